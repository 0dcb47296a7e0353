/** The part of vscode.CancellationToken core needs, so core stays free of `vscode`. */
export interface CancellationSignal {
  readonly isCancellationRequested: boolean;
}

export const NEVER_CANCELLED: CancellationSignal = { isCancellationRequested: false };
