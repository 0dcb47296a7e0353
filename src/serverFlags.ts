import { setFlagsFromString } from './core/heap';

/**
 * V8's flags for the MCP server's process, set by the launcher before it loads the server's bundle. TurboFan inlines
 * up to a quarter of its default bytecode into a function it compiles (920 -> 230): a fresh server's first calls
 * compile the search's code as it gets hot, on V8's worker threads, ~47 ms of CPU a call over calls 1-3 (two cores:
 * taken from the main thread too); with less inlined, ~35, and warm calls no dearer (docs/benchmarks-log.md). Set at
 * every start before any code is compiled: V8 checks kept code against the flags it was made under (codeCache.ts).
 */
export const SERVER_FLAGS = '--max-inlined-bytecode-size-cumulative=230';

export function setServerFlags(): void {
  setFlagsFromString(SERVER_FLAGS);
}
