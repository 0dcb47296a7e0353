import { readFileSync, statSync } from 'node:fs';
import * as nodeModule from 'node:module';
import * as path from 'node:path';
import * as vm from 'node:vm';
import { type NotKept, readKept, writeKept } from './keptFile';

/**
 * A bundle required with V8's code for it kept between runs, with the functions a command ran (compiled lazily,
 * after loading): `module.enableCompileCache` (Node 22.1 and later) keeps the code V8 has as a module is compiled,
 * before it runs, and Node 20 has none. Compiling dist/mcp.js (2.1 MB) and the functions its first answer runs cost the MCP server
 * ~50 ms of CPU at every start on Node 20; with the code kept, V8 reads it instead.
 *
 * V8 checks a code cache only against its own version, its flags and the source's length: a bundle rebuilt to the
 * same length would run the old code. So the code is kept as a kept file (keptFile.ts), tied to the bundle's size
 * and modification time and checked whole (V8 does not checksum it: a damaged file would run). Any mismatch, or
 * V8 rejecting the code, compiles the bundle as `require` would and keeps the new code.
 */

/** How a bundle's code was had: read from the cache, or compiled (none kept, kept for another build, damaged, refused by V8). */
export type CodeCacheUse = 'read' | NotKept | 'rejected';

export interface CachedBundle<T> {
  readonly exports: T;
  readonly use: CodeCacheUse;
  /**
   * Keeps V8's code for the bundle, with every function compiled so far (once a command has done its work, the
   * functions it ran), unless it was read from the cache. Never throws: a folder that cannot be written is no cache.
   */
  keep(): void;
}

/** `require(file)` through a code cache kept in `cacheDir` (one file a bundle and V8 version). */
export function requireWithCodeCache<T>(file: string, cacheDir: string): CachedBundle<T> {
  const source = readFileSync(file, 'utf8');
  const stat = statSync(file);
  const cacheFile = path.join(cacheDir, `${path.basename(file)}.v8-${process.versions.v8}.bin`);
  const kept = readKept(cacheFile, stat);
  const script = new vm.Script(nodeModule.wrap(source), {
    filename: file,
    ...('data' in kept ? { cachedData: kept.data } : {}),
    // import() inside the bundle resolves as it would under require (none today; Node 20.x has the constant)
    ...(vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ? { importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER } : {}),
  });
  const use: CodeCacheUse = 'data' in kept ? (script.cachedDataRejected ? 'rejected' : 'read') : kept.why;
  const module = new nodeModule.Module(file);
  module.filename = file;
  module.paths = (nodeModule.Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(file));
  const require = nodeModule.createRequire(file);
  (script.runInThisContext() as (...args: unknown[]) => void).call(module.exports, module.exports, require, module, file, path.dirname(file));
  module.loaded = true;
  let done = use === 'read';
  return {
    exports: module.exports as T,
    use,
    keep() {
      if (done) return;
      done = true;
      writeKept(cacheFile, stat, script.createCachedData());
    },
  };
}
