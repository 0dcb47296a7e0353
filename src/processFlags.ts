import { keepHeapsSmall, setFlagsFromString } from './core/heap';

/**
 * V8's compiler flag for the processes of our own that compile their code afresh at each start: the MCP server and
 * the command line's index (never the extension host, whose flags are the editor's). TurboFan inlines up to a quarter
 * of its default bytecode into a function it compiles (920 -> 230). A fresh server's first calls compile the search's
 * code as it gets hot, ~47 ms of CPU a call over calls 1-3, ~35 with less inlined; a first index compiles its parser,
 * writes and distiller in each isolate, a quarter of the parse stage's CPU, and takes ~7 % less CPU with it; warm
 * code runs no slower in either (docs/benchmarks.md). Set before any code is compiled: V8 checks kept code against the
 * flags it was made under (codeCache.ts).
 */
export const COMPILE_FLAGS = '--max-inlined-bytecode-size-cumulative=230';

/** The MCP server's process, set by its launcher before it loads the server's bundle. */
export function setServerFlags(): void {
  setFlagsFromString(COMPILE_FLAGS);
}

/** The command line's index process: its heaps kept small (core/heap.ts) and TurboFan's inlining budget cut. */
export function setIndexFlags(): void {
  keepHeapsSmall();
  setFlagsFromString(COMPILE_FLAGS);
}
