import { keepHeapsSmall, setFlagsFromString } from './core/heap';

/**
 * V8's compiler flags for the command line's `index`, a process of its own (the extension host's index runs set none:
 * its flags are the editor's). TurboFan inlines up to a quarter of its default bytecode into a function it compiles
 * (920 -> 230, as the MCP server's: serverFlags.ts). A first index compiles its parser, writes and distiller afresh in
 * each isolate, a quarter of the parse stage's CPU on V8's threads; with less inlined, the corpus's first index
 * takes ~7 % less CPU and its hot code runs no slower (docs/benchmarks.md).
 */
export const INDEX_COMPILE_FLAGS = '--max-inlined-bytecode-size-cumulative=230';

/** The command line's index process: its heaps kept small (core/heap.ts) and TurboFan's inlining budget cut. */
export function setIndexFlags(): void {
  keepHeapsSmall();
  setFlagsFromString(INDEX_COMPILE_FLAGS);
}
