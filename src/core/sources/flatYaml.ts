/**
 * The top-level `key: value` pairs of a small YAML file an agent keeps beside a transcript (Copilot CLI's
 * `workspace.yaml`): plain, single- or double-quoted scalars, and `|` / `>` blocks (their indented lines).
 * Not a YAML parser: nested maps, lists and anchors are left out, which costs only the fields they hold.
 */
export function readFlatYaml(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^([A-Za-z_][\w.-]*):(?:\s+(.*))?$/.exec(lines[i]!);
    if (!m) continue;
    const raw = (m[2] ?? '').trim();
    if (raw === '|' || raw === '>' || raw === '|-' || raw === '>-') {
      const block: string[] = [];
      while (i + 1 < lines.length && /^(?:\s|$)/.test(lines[i + 1]!)) block.push(lines[++i]!.trim());
      out.set(m[1]!, block.join(raw.startsWith('|') ? '\n' : ' ').trim());
    } else if (raw !== '') {
      out.set(m[1]!, scalar(raw));
    }
  }
  return out;
}

function scalar(raw: string): string {
  if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
    try {
      return JSON.parse(raw) as string;
    } catch {
      return raw.slice(1, -1);
    }
  }
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1).replace(/''/g, "'");
  // a plain scalar ends before a comment
  return raw.replace(/\s+#.*$/, '');
}
