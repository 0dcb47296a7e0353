/** A run's progress as the views take it: a phase, how far along. */
export interface PhaseProgress {
  readonly phase: string;
  readonly done: number;
  readonly total: number;
}

/**
 * Paces a run's progress reports: the first of each phase, its last, and at most one per `everyMs` between.
 * Every report refreshes the Index view and the status item through the extension host's channel to the window: a
 * first index of 12,000 transcripts reported each one, hundreds of refreshes a second.
 */
export class ProgressPace {
  private phase: string | undefined;
  private at = Number.NEGATIVE_INFINITY;
  private done = 0;

  constructor(private readonly everyMs = 100) {}

  /**
   * Whether `p` is to be reported at `now` (ms), with the share of its phase done since the last report (percent of
   * the total, for a progress bar); undefined: not yet.
   */
  next(p: PhaseProgress, now: number): { readonly increment: number } | undefined {
    const newPhase = p.phase !== this.phase;
    if (!newPhase && p.done < p.total && now - this.at < this.everyMs) return undefined;
    const since = newPhase ? p.done : p.done - this.done;
    this.phase = p.phase;
    this.at = now;
    this.done = p.done;
    return { increment: p.total > 0 ? (100 * Math.max(0, since)) / p.total : 0 };
  }
}
