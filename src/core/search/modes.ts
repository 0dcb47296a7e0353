import { RecallError } from '../errors';
import type { Layer, Mechanism, ModeName } from './types';

/** One signal of a mode: a mechanism on a layer. */
export interface SignalSpec {
  readonly mechanism: Mechanism;
  readonly layer: Layer;
}

export const LAYERS: readonly Layer[] = ['verbatim', 'core', 'core+files', 'core+rooms', 'all-facets'];

/** Every mode, in the order the CLI's `eval --mode all` reports them (DESIGN.md, paper 3.4). */
export const MODES: readonly ModeName[] = [
  ...LAYERS.flatMap((l) => [`${l}/bm25`, `${l}/vector`] as ModeName[]),
  'bm25(v)+vec(d)',
  'vec(v)+bm25(d)',
  '3-signal',
];

/** The signals of a mode; "d" of the cross-layer modes is the distilled text (core + context). */
export function modeSignals(mode: ModeName): SignalSpec[] {
  switch (mode) {
    case 'bm25(v)+vec(d)':
      return [{ mechanism: 'bm25', layer: 'verbatim' }, { mechanism: 'vector', layer: 'core' }];
    case 'vec(v)+bm25(d)':
      return [{ mechanism: 'vector', layer: 'verbatim' }, { mechanism: 'bm25', layer: 'core' }];
    case '3-signal':
      // The paper's: BM25 on both layers plus vector search on the distilled one.
      return [
        { mechanism: 'bm25', layer: 'verbatim' },
        { mechanism: 'bm25', layer: 'core' },
        { mechanism: 'vector', layer: 'core' },
      ];
    default: {
      const [layer, mechanism] = mode.split('/') as [Layer, Mechanism];
      return [{ mechanism, layer }];
    }
  }
}

export function parseMode(name: string): ModeName {
  if ((MODES as readonly string[]).includes(name)) return name as ModeName;
  throw new RecallError('bad-argument', `Unknown search mode "${name}". Modes: ${MODES.join(', ')}.`);
}

/**
 * The signals that can run without vectors: vector signals are dropped; a mode left with nothing
 * searches its layer by BM25 instead.
 */
export function lexicalFallback(signals: readonly SignalSpec[]): SignalSpec[] {
  const lexical = signals.filter((s) => s.mechanism === 'bm25');
  return lexical.length > 0 ? lexical : signals.map((s) => ({ mechanism: 'bm25', layer: s.layer }));
}

export function signalName(s: SignalSpec): string {
  return `${s.mechanism}(${s.layer})`;
}
