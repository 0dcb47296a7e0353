import { CALL_RULES, GENERIC_RULES, PASSWORD_RULES, SID_RULES } from './contextRules';
import { holdsKeyBody, KEY_BLOCK, KEY_BLOCK_CUT_OPEN, redactKeyTails } from './privateKeys';
import { isNotLiteral, isReference, marker, type Rule, type SecretKind } from './secretRule';

/**
 * Secret redaction, applied to every piece of text before it leaves the store (distillers, LLM requests
 * and dry runs, the MCP server and the language-model tools). Each rule replaces the secret itself with
 * `[REDACTED:<kind>]` and keeps the surrounding words, so a reader still sees that a key was configured,
 * never the key. Rules are tuned against normal code: provider keys need their exact prefix and a realistic
 * length; secrets known by context (contextRules.ts) need a credential-like name, flag or account beside
 * them AND a literal value (not a number, a boolean or a variable reference).
 */

export type { SecretKind } from './secretRule';

/**
 * The rules' version, stamped on each exchange checked by them (`distilled.clean`; redactionCheck.ts): a search shows
 * a text found to hold no secret as it is instead of redacting it again, while the version stamped is this one. Bump
 * it with any change to what the rules find (this file, contextRules.ts, privateKeys.ts, secretRule.ts; a unit test
 * pins their text): the next index run checks every text again. r2: a key whose value is no secret no longer hides
 * the secret of the key after it ("Notes:\napi_key = …").
 */
export const REDACTION_VERSION = 'r2';

export interface RedactionResult {
  readonly text: string;
  /** Secrets replaced, by kind (absent kinds: none found). */
  readonly found: Partial<Record<SecretKind, number>>;
  readonly count: number;
}

// Order matters: whole blocks first, then exact provider formats, then the generic shapes, so a key in
// `OPENAI_API_KEY=sk-…` is reported as an OpenAI key, not as a generic env secret.
const RULES: readonly Rule[] = [
  { kind: 'private-key', re: KEY_BLOCK, replace: (m, block = '') => (holdsKeyBody(block) ? m : undefined) },
  { kind: 'private-key', re: KEY_BLOCK_CUT_OPEN },
  { kind: 'private-key', pass: redactKeyTails },
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
  { kind: 'twilio-key', re: /(?<![A-Za-z0-9_])SK[a-f0-9]{32}(?![A-Za-z0-9_])/g, needs: ['SK'] },
  ...SID_RULES,
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
    needs: ['shp', 'dapi', 'lin_api_', 'ntn_', 'secret_', 'PMAK-', 'glsa_', 'glc_', 'hvs.', 'hvb.', 'hvr.', 'sbp_', 'gsk_', 'r8_', 'ATATT3'],
  },
  {
    kind: 'service-token',
    // Docker personal and organisation access tokens; Azure AD client secrets (`…8Q~…`)
    re: /(?<![A-Za-z0-9_-])dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,}(?![A-Za-z0-9_-])|(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/g,
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
    // scheme://user:password@host (or redis://:password@host): the user name stays, the password goes. Every
    // part is bounded: an unbounded scheme made runs like `a.a.a.…` quadratic (200 KB took over a minute).
    re: /\b([a-z][a-z0-9+.-]{0,30}:\/\/[^\s:/@'"]{0,128}:)([^\s@/'"]{1,256})(?=@)/gi,
    needs: ['://'],
    replace: (m, head = '', pass = '') => (isNotLiteral(pass) ? undefined : `${head}${m}`),
  },
  ...PASSWORD_RULES,
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
      /(?:^|_)(?:PASSWORD|PASSWD|PASS|SECRET|SECRETS|TOKEN|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|AUTH|CREDENTIALS?|PAT)(?:_|$)/.test(
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
    needs: ['passw', 'secret', 'key', 'token'],
    // a quoted literal is a value whatever it holds (`"Tr0ub4dor&3"`), unless it stands for one kept elsewhere
    replace: (m, q1 = '', name = '', eq = '', q2 = '', value = '') =>
      isReference(value) ? undefined : `${q1}${name}${q1}${eq}${q2}${m}${q2}`,
  },
  ...CALL_RULES,
];

export function redactSecrets(text: string): RedactionResult {
  const found: Partial<Record<SecretKind, number>> = {};
  let count = 0;
  let out = text;
  // the text lower-cased, for the literals of case-insensitive patterns (made again only after a replacement)
  let lower: string | undefined;
  for (const rule of [...RULES, ...GENERIC_RULES]) {
    if ('pass' in rule) {
      const r = rule.pass(out, marker(rule.kind));
      if (r.count > 0) found[rule.kind] = (found[rule.kind] ?? 0) + r.count;
      count += r.count;
      if (r.text !== out) lower = undefined;
      out = r.text;
      continue;
    }
    if (rule.needs) {
      const searched = rule.re.ignoreCase ? (lower ??= out.toLowerCase()) : out;
      if (!rule.needs.some((literal) => searched.includes(literal))) continue;
    }
    const before = out;
    out = replaceSecrets(out, rule.re, rule.resumeAt, (groups) => {
      const m = marker(rule.kind);
      const replaced = rule.replace ? rule.replace(m, ...groups) : m;
      if (replaced === undefined) return undefined;
      found[rule.kind] = (found[rule.kind] ?? 0) + 1;
      count++;
      return replaced;
    });
    if (out !== before) lower = undefined;
  }
  return { text: out, found, count };
}

/**
 * `text` with each match of `re` that `replace` takes (given its groups) replaced, as `String.replace` would, except
 * that a match `replace` refuses (not a secret after all) gives its text back to the scan from `resumeAt` on: in
 * "Notes:\napi_key = sk_…" the key-value shape first matches "Notes:\napi_key" (no secret), and the secret's own key
 * must still be found inside it.
 */
function replaceSecrets(
  text: string,
  re: RegExp,
  resumeAt: ((...groups: string[]) => number) | undefined,
  replace: (groups: string[]) => string | undefined,
): string {
  let out = '';
  let kept = 0;
  let replacedAny = false;
  re.lastIndex = 0;
  // a pattern without the g flag (one anchored at the text's start) is looked for once, as String.replace does
  for (let m = re.exec(text); m !== null; m = re.global ? re.exec(text) : null) {
    // the string captures only (a group that took no part is '')
    const groups = m.slice(1).map((g) => g ?? '');
    const replaced = replace(groups);
    if (replaced === undefined) {
      re.lastIndex = m.index + Math.max(1, resumeAt ? resumeAt(...groups) : m[0].length);
      continue;
    }
    out += text.slice(kept, m.index) + replaced;
    kept = m.index + m[0].length;
    replacedAny = true;
    if (m[0].length === 0) re.lastIndex++;
  }
  return replacedAny ? out + text.slice(kept) : text;
}

/** The redacted text alone. */
export function redact(text: string): string {
  return redactSecrets(text).text;
}
