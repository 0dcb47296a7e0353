/**
 * The programs an exchange ran in a shell (`sips`, `iconutil`, `powerprofilesctl`, `gitleaks`): what a person
 * remembers of an exchange whose words were mostly tool calls ("resized it with sips into an icns"). Read from
 * the rendered tool calls of the agents' shell tools; the shell's own plumbing (listing, reading, moving files,
 * the interpreters and wrappers a command runs in) names no task and is left out.
 */

/** Shell tools as render.ts names them: Claude Code, Codex (old and new), Gemini CLI. */
const SHELL_TOOLS: ReadonlySet<string> = new Set(['Bash', 'shell', 'shell_command', 'run_shell_command']);

/** Programs every session runs whatever it is about: reading, listing, moving files, shells, interpreters, wrappers. */
const PLUMBING: ReadonlySet<string> = new Set(
  ('cd ls ll cat echo printf sed awk gawk grep egrep rg ag fd find xargs head tail less more wc sort uniq cut tr tee ' +
    'mkdir rmdir rm cp mv ln touch chmod chown pwd which whereis type command test true false sleep export source ' +
    'set unset read exit date env file stat du df basename dirname realpath readlink diff cmp open clear history ' +
    'bash sh zsh fish python python3 node npx deno ruby perl php jq yq curl wget ssh scp git apply_patch ' +
    'uname whoami hostname id ps kill pkill killall uptime ' +
    'sudo doas time timeout nohup exec eval nice watch then else fi do done for while if').split(' '),
);

/** A program's name as typed: a lower-case letter, then letters, digits, `.`, `_`, `+`, `-` (no path, no assignment, no `EOF`). */
const PROGRAM_RE = /^[a-z][\w.+-]*$/u;
/** Where one command of a line ends and the next begins: `&&`, `||`, `|`, `;`, a subshell, a line break (`⏎` in a summary). */
const SEPARATOR_RE = /&&|\|\||[|;(`]|\$\(|\n|⏎/u;
/** Words before the program that are no program: `sudo -u me`, `VAR=value`, `bash -lc`, `env`. */
const WRAPPER_RE = /^(?:(?:sudo|doas)(?:\s+-[\w-]+(?:\s+(?!-)[\w.@-]+)?)*|env|time|nohup|exec|(?:ba|z)?sh\s+-\w*c|timeout\s+\d+\w?|[A-Za-z_]\w*=\S*)\s+/u;

/** The programs a shell tool call ran, in order, each once; none for another tool's call or a rendered line of another kind. */
export function programsRun(toolCall: string): string[] {
  const space = toolCall.indexOf(' ');
  if (space < 0 || !SHELL_TOOLS.has(toolCall.slice(0, space))) return [];
  const found: string[] = [];
  // a here-document's lines are its text, not commands
  const line = toolCall.slice(space + 1).split('<<', 1)[0]!;
  for (const piece of line.split(SEPARATOR_RE)) {
    const program = programOf(piece);
    if (program && !found.includes(program)) found.push(program);
  }
  return found;
}

function programOf(command: string): string | undefined {
  let rest = command.trim().replace(/^["']/u, '');
  for (let unwrapped = rest.replace(WRAPPER_RE, ''); unwrapped !== rest; unwrapped = rest.replace(WRAPPER_RE, '')) rest = unwrapped;
  const program = rest.split(/\s/u, 1)[0] ?? '';
  return PROGRAM_RE.test(program) && !PLUMBING.has(program.toLowerCase()) ? program : undefined;
}
