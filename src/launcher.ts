import * as nodeModule from 'node:module';
import { runAsProcess } from './processMain';

/**
 * `agent-recall` (dist/cli.js): loads the bundle of the command asked for, no more. The MCP server's (dist/mcp.js)
 * holds what serving needs; the other commands' (dist/commands.js) the rest: an agent's first answer waited for
 * Node to read and compile 2.3 MB of one bundle (esbuild.mjs).
 */
// V8's code for the bundles, kept between runs where Node can (22.1 and later: VS Code's own runtime; Node 20
// has no such cache): a process then compiles again only what changed
(nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
const [command, ...rest] = process.argv.slice(2);
if (command === 'mcp') {
  runAsProcess(() => (require('./mcp.js') as typeof import('./mcp/command')).mcpCommand(rest, (s) => process.stderr.write(`${s}\n`)));
} else {
  runAsProcess(() => (require('./commands.js') as typeof import('./cli')).main(process.argv.slice(2)));
}
