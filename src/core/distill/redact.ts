/**
 * Secret redaction, applied to every piece of text before it leaves the machine (LLM distillers, dry
 * runs). Each rule replaces the secret itself with `[REDACTED:<kind>]` and keeps the surrounding words,
 * so the distiller still sees that a key was configured, never the key. Rules are tuned against normal
 * code: provider keys need their exact prefix and a realistic length, generic key=value rules need a
 * secret-like name AND a literal value (not a number, a boolean or a variable reference).
 */

export type SecretKind =
  | 'private-key'
  | 'anthropic-key'
  | 'openai-key'
  | 'github-token'
  | 'aws-access-key'
  | 'google-api-key'
  | 'slack-token'
  | 'stripe-key'
  | 'jwt'
  | 'bearer-token'
  | 'basic-auth'
  | 'url-password'
  | 'connection-string-secret'
  | 'env-secret'
  | 'assigned-secret';

export interface RedactionResult {
  readonly text: string;
  /** Secrets replaced, by kind (absent kinds: none found). */
  readonly found: Partial<Record<SecretKind, number>>;
  readonly count: number;
}

interface Rule {
  readonly kind: SecretKind;
  readonly re: RegExp;
  /** Replacement given the match groups; by default the whole match becomes the marker. */
  readonly replace?: (marker: string, ...groups: string[]) => string | undefined;
}

const marker = (kind: SecretKind): string => `[REDACTED:${kind}]`;

/** A value that is not a literal secret: numbers, booleans, empty/placeholder or a reference to elsewhere. */
function isNotLiteral(value: string): boolean {
  return (
    /^(?:\d+(?:\.\d+)?|true|false|null|none|undefined|yes|no|on|off)$/i.test(value) ||
    /^(?:\$|%|<|\[REDACTED|process\.env|os\.environ|env\(|getenv|\{\{)/i.test(value) ||
    /^[x*.•]+$/i.test(value) ||
    // documentation placeholders: your_api_key, <token>, changeme, …
    /^(?:your|my)[_-]|^(?:changeme|placeholder|example|dummy|value|redacted|secret|password|token)$/i.test(value) ||
    // a type or an expression, not a value: `API_KEY: Option<&str>`, `TOKEN: getToken()`
    /[<>()&{}]/.test(value)
  );
}

// Order matters: whole blocks first, then exact provider formats, then the generic shapes, so a key in
// `OPENAI_API_KEY=sk-…` is reported as an OpenAI key, not as a generic env secret.
const RULES: readonly Rule[] = [
  {
    kind: 'private-key',
    // An unterminated block (the message was cut) is redacted to the end of the text.
    re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?(?:-----END \1PRIVATE KEY\2-----|$)/g,
  },
  { kind: 'anthropic-key', re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g },
  {
    kind: 'openai-key',
    // sk-, sk-proj-, sk-svcacct-, sk-admin-: random base62-ish bodies, which always hold a digit.
    re: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]{0,200}\d)(?=[A-Za-z0-9_-]{0,200}[A-Za-z])[A-Za-z0-9_-]{20,}/g,
  },
  { kind: 'github-token', re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'aws-access-key', re: /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}(?![A-Z0-9])/g },
  { kind: 'google-api-key', re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  {
    kind: 'slack-token',
    re: /(?<![A-Za-z0-9_-])xox[abposre]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g,
  },
  { kind: 'stripe-key', re: /(?<![A-Za-z0-9_])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{24,}/g },
  { kind: 'jwt', re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  {
    kind: 'bearer-token',
    re: /\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g,
    replace: (m, prefix = '') => `${prefix}${m}`,
  },
  {
    kind: 'basic-auth',
    re: /\b(Authorization:\s*Basic\s+)([A-Za-z0-9+/]{8,}=*)/gi,
    replace: (m, prefix = '') => `${prefix}${m}`,
  },
  {
    kind: 'url-password',
    // scheme://user:password@host — the user name stays, the password goes. Every part is bounded: an
    // unbounded scheme made runs like `a.a.a.…` quadratic (200 KB took over a minute).
    re: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@'"]{1,128}:)([^\s@/'"]{1,256})(?=@)/gi,
    replace: (m, head = '', pass = '') => (isNotLiteral(pass) ? undefined : `${head}${m}`),
  },
  {
    kind: 'connection-string-secret',
    // ADO.NET / Azure style: Server=…;Password=…; AccountKey=…; SharedAccessKey=…
    // (no spaces around `=`: `password = getPassword()` is code, not a connection string).
    re: /(^|[;\s'"])(Password|Pwd|AccountKey|SharedAccessKey|SharedAccessSignature)=([^;\s'"]+)/gi,
    replace: (m, lead = '', name = '', value = '') => (isNotLiteral(value) ? undefined : `${lead}${name}=${m}`),
  },
  {
    kind: 'env-secret',
    // Upper-case env/config lines (.env, export, docker -e, YAML): NAME=value with no spaces around `=`
    // (code like `TOKEN_KIND = Kind.Ident` is not an env line) or `NAME: value`; the name must hold a
    // secret-like word (not PWD: that is the working directory).
    re: /(^|[\s;'"])((?:export\s+)?[A-Z][A-Z0-9_]*)(=|:[ \t]+)(['"]?)([^\s'"]+)\4/gm,
    replace: (m, lead = '', name = '', eq = '', quote = '', value = '') =>
      /(?:^|_)(?:PASSWORD|PASSWD|PASS|SECRET|SECRETS|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH|CREDENTIALS?)(?:_|$)/.test(
        name.replace(/^export\s+/, ''),
      ) && !isNotLiteral(value)
        ? `${lead}${name}${eq}${quote}${m}${quote}`
        : undefined,
  },
  {
    kind: 'assigned-secret',
    // Code, JSON and YAML: password = "…", "client_secret": "…", api_key: '…'. Only quoted literals.
    re: /(["']?)\b(password|passwd|secret|client_secret|api_?key|access_?token|auth_?token|refresh_?token|private_?key)\1(\s*[:=]\s*)(["'])([^"'\s]{4,})\4/gi,
    replace: (m, q1 = '', name = '', eq = '', q2 = '', value = '') =>
      isNotLiteral(value) ? undefined : `${q1}${name}${q1}${eq}${q2}${m}${q2}`,
  },
];

export function redactSecrets(text: string): RedactionResult {
  const found: Partial<Record<SecretKind, number>> = {};
  let count = 0;
  let out = text;
  for (const rule of RULES) {
    out = out.replace(rule.re, (whole: string, ...rest: unknown[]) => {
      // rest = capture groups…, offset, input (and groups when named): keep the string captures only.
      const groups = rest.slice(0, -2).map((g) => (typeof g === 'string' ? g : ''));
      const m = marker(rule.kind);
      const replaced = rule.replace ? rule.replace(m, ...groups) : m;
      if (replaced === undefined) return whole;
      found[rule.kind] = (found[rule.kind] ?? 0) + 1;
      count++;
      return replaced;
    });
  }
  return { text: out, found, count };
}

/** The redacted text alone. */
export function redact(text: string): string {
  return redactSecrets(text).text;
}
