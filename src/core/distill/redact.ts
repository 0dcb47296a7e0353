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
  | 'assigned-secret'
  | 'aws-secret-key'
  | 'gitlab-token'
  | 'huggingface-token'
  | 'npm-token'
  | 'pypi-token'
  | 'sendgrid-key'
  | 'twilio-key'
  | 'discord-token'
  | 'telegram-token'
  | 'digitalocean-token'
  | 'mailgun-key'
  | 'google-oauth'
  | 'service-token'
  | 'age-secret-key'
  | 'generic-secret';

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
  { kind: 'gitlab-token', re: /(?<![A-Za-z0-9_-])(?:glpat|glptt|gldt|glrt|glcbt|glimt|glsoat|glft|glagent)-[A-Za-z0-9_-]{20,}|\bGR1348941[A-Za-z0-9_-]{20,}/g },
  { kind: 'huggingface-token', re: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9_])/g },
  { kind: 'npm-token', re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g },
  {
    kind: 'npm-token',
    // .npmrc: //registry/:_authToken=…, _auth=…, _password=… (legacy tokens are bare UUIDs)
    re: /(:_(?:authToken|auth|password)\s*=\s*)(["']?)([^\s"']+)\2/g,
    replace: (m, head = '', q = '', value = '') => (isNotLiteral(value) ? undefined : `${head}${q}${m}${q}`),
  },
  { kind: 'pypi-token', re: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
  { kind: 'sendgrid-key', re: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  { kind: 'twilio-key', re: /(?<![A-Za-z0-9_])SK[a-f0-9]{32}(?![A-Za-z0-9_])/g },
  {
    kind: 'discord-token',
    re: /(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])/g,
  },
  { kind: 'telegram-token', re: /(?<![A-Za-z0-9_:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g },
  { kind: 'digitalocean-token', re: /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])/g },
  { kind: 'mailgun-key', re: /(?<![A-Za-z0-9_])key-[a-f0-9]{32}(?![A-Za-z0-9_])/g },
  { kind: 'google-oauth', re: /(?<![A-Za-z0-9_-])(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{30,})/g },
  {
    kind: 'service-token',
    // Prefixed tokens of other services: Shopify, Databricks, Linear, Notion, Postman, Grafana, Vault,
    // Supabase, Groq, Replicate, Atlassian.
    re: /(?<![A-Za-z0-9_.-])(?:shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}|dapi[a-f0-9]{32}(?:-\d)?|lin_api_[A-Za-z0-9]{40}|ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}|gl(?:sa|c)_[A-Za-z0-9_=+/-]{32,}|hv[sbr]\.[A-Za-z0-9_-]{24,}|sbp_[a-f0-9]{40}|gsk_[A-Za-z0-9]{48,}|r8_[A-Za-z0-9]{37}|ATATT3[A-Za-z0-9_=-]{150,})(?![A-Za-z0-9_-])/g,
  },
  { kind: 'age-secret-key', re: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/g },
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
    kind: 'aws-secret-key',
    // The credentials file (after env-secret: an upper-case env line stays an env secret): aws_secret_access_key = …, AWS_SESSION_TOKEN=…
    re: /\b(aws_secret_access_key|aws_session_token|aws_security_token)(["']?\s*[:=]\s*)(["']?)([A-Za-z0-9/+=]{40,})\3/gi,
    replace: (m, name = '', eq = '', q = '') => `${name}${eq}${q}${m}${q}`,
  },
  {
    kind: 'assigned-secret',
    // Code, JSON and YAML: password = "…", "client_secret": "…", api_key: '…'. Only quoted literals.
    re: /(["']?)\b(password|passwd|secret|client_secret|api_?key|access_?token|auth_?token|refresh_?token|private_?key)\1(\s*[:=]\s*)(["'])([^"'\s]{4,})\4/gi,
    replace: (m, q1 = '', name = '', eq = '', q2 = '', value = '') =>
      isNotLiteral(value) ? undefined : `${q1}${name}${q1}${eq}${q2}${m}${q2}`,
  },
];

/** What a name ends in when its value is a secret: `PAYMENT_SIGNING_KEY`, `refreshToken`, `X-Api-Key`. */
const SECRET_NAME = /(?:key|token|secret|credentials?|signature|auth)$/;
const PASSWORD_NAME = /(?:password|passwd|passphrase)$/;
/**
 * Names ending like a secret's that name something public or an identifier (measured on the corpus: all 8
 * generic false positives were of these): public keys (`wg` "public key:"), GPG key ids and fingerprints
 * (git's `user.signingkey`, `gpg --edit-key`), lookup keys holding hashes (`cacheKey`, `partitionKey`), and
 * tokens that are positions (`nextToken`, `pageToken`).
 */
const NOT_SECRET_NAME =
  /(?:public|pub|(?:^|user)signing|edit|recv|sort|primary|partition|foreign|cache|idempotency|dedup|lookup|hash|range|row|unique|lock|map|translation|i18n|storage|object|route|routing|composite|search)keys?$|keyid$|fingerprint$|(?:next|page|pagination|continuation|cursor|sync|resume|cancellation)token$/;

/** Bits per character: random keys have 4 or more, words and identifiers less. */
function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let h = 0;
  for (const n of counts.values()) h -= (n / value.length) * Math.log2(n / value.length);
  return h;
}

/**
 * A value assigned to a secret-named thing that looks like a secret: for keys, tokens and secrets a long,
 * high-entropy literal holding letters and digits (not a path or a URL); for passwords any literal with a digit.
 */
function looksSecret(name: string, value: string): boolean {
  if (isNotLiteral(value) || /^(?:\/|\.{1,2}\/|~\/)|:\/\//.test(value)) return false;
  const plain = name.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  if (PASSWORD_NAME.test(plain)) return value.length >= 6 && /\d/.test(value);
  if (!SECRET_NAME.test(plain) || NOT_SECRET_NAME.test(plain)) return false;
  return value.length >= 16 && /\d/.test(value) && /[A-Za-z]/.test(value) && entropy(value) >= 3;
}

/** A literal value up to where code goes on (`getPassword(user)` is a call, not a password). */
// No '=' or ':' inside (only base64 padding at the end): runs like `A=A=A=…` must not be scanned 512 characters
// deep at every position.
const VALUE = String.raw`(["']?)([^\s'"&;,<>(){}[\]\`=:]{4,512}={0,2})\3(?=$|[\s'"&;,)}\]])`;

/**
 * The generic shapes, last: any secret-named key, env variable, JSON field or URL parameter given a literal
 * that looks like a secret (see looksSecret), and the same as a command-line flag (`--api-key VALUE`).
 */
const GENERIC_RULES: readonly Rule[] = [
  {
    kind: 'generic-secret',
    // a leading "public " is part of the name: `public key: …` (WireGuard, SSH tools) is no secret
    re: new RegExp(String.raw`(^|[^A-Za-z0-9_.-])((?:public[ \t]+)?[A-Za-z_][A-Za-z0-9_.-]{0,60}["']?\s*[:=](?!//)\s*)` + VALUE, 'gm'),
    replace: (m, lead = '', head = '', q = '', value = '') =>
      looksSecret(head.replace(/["']?\s*[:=]\s*$/, ''), value) ? `${lead}${head}${q}${m}${q}` : undefined,
  },
  {
    kind: 'generic-secret',
    re: new RegExp(String.raw`(^|[\s])(--?[A-Za-z][A-Za-z0-9_.-]{0,60}[ \t]+)` + VALUE, 'gm'),
    replace: (m, lead = '', head = '', q = '', value = '') => (looksSecret(head.trim(), value) ? `${lead}${head}${q}${m}${q}` : undefined),
  },
];

export function redactSecrets(text: string): RedactionResult {
  const found: Partial<Record<SecretKind, number>> = {};
  let count = 0;
  let out = text;
  for (const rule of [...RULES, ...GENERIC_RULES]) {
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
