import { CALL_RULES, GENERIC_RULES, PASSWORD_RULES, SID_RULES } from './contextRules';
import { literalKeys, PairSet } from './pairSet';
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
  { kind: 'anthropic-key', re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g, needs: ['sk-ant-'] },
  {
    kind: 'openai-key',
    // sk-, sk-proj-, sk-svcacct-, sk-admin-: random base62-ish bodies, which always hold a digit.
    re: /(?<![A-Za-z0-9_-])sk-(?:proj-|svcacct-|admin-|None-)?(?=[A-Za-z0-9_-]{0,200}\d)(?=[A-Za-z0-9_-]{0,200}[A-Za-z])[A-Za-z0-9_-]{20,}/g,
    needs: ['sk-'],
  },
  { kind: 'github-token', re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g, needs: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'] },
  { kind: 'aws-access-key', re: /(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[A-Z0-9]{16}(?![A-Z0-9])/g, needs: ['AKIA', 'ASIA', 'AGPA', 'AIDA', 'AROA', 'ANPA'] },
  { kind: 'google-api-key', re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g, needs: ['AIza'] },
  {
    kind: 'slack-token',
    re: /(?<![A-Za-z0-9_-])xox[abposre]-[A-Za-z0-9-]{10,}|https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g,
    needs: ['xox', 'https://hooks.slack.com/services/'],
  },
  { kind: 'stripe-key', re: /(?<![A-Za-z0-9_])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}|(?<![A-Za-z0-9_])whsec_[A-Za-z0-9]{24,}/g, needs: ['_live_', '_test_', 'whsec_'] },
  {
    kind: 'gitlab-token',
    re: /(?<![A-Za-z0-9_-])(?:glpat|glptt|gldt|glrt|glcbt|glimt|glsoat|glft|glagent)-[A-Za-z0-9_-]{20,}|\bGR1348941[A-Za-z0-9_-]{20,}/g,
    needs: ['glpat-', 'glptt-', 'gldt-', 'glrt-', 'glcbt-', 'glimt-', 'glsoat-', 'glft-', 'glagent-', 'GR1348941'],
  },
  { kind: 'huggingface-token', re: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9_])/g, needs: ['hf_'] },
  { kind: 'npm-token', re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])/g, needs: ['npm_'] },
  {
    kind: 'npm-token',
    // .npmrc: //registry/:_authToken=…, _auth=…, _password=… (legacy tokens are bare UUIDs)
    re: /(:_(?:authToken|auth|password)\s*=\s*)(["']?)([^\s"']+)\2/g,
    needs: [':_'],
    replace: (m, head = '', q = '', value = '') => (isNotLiteral(value) ? undefined : `${head}${q}${m}${q}`),
  },
  { kind: 'pypi-token', re: /(?<![A-Za-z0-9_-])pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g, needs: ['pypi-AgEIcHlwaS5vcmc'] },
  { kind: 'sendgrid-key', re: /(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, needs: ['SG.'] },
  { kind: 'twilio-key', re: /(?<![A-Za-z0-9_])SK[a-f0-9]{32}(?![A-Za-z0-9_])/g, needs: ['SK'] },
  ...SID_RULES,
  {
    kind: 'discord-token',
    re: /(?<![A-Za-z0-9_.-])[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}(?![A-Za-z0-9_-])/g,
    needs: ['.'],
  },
  { kind: 'telegram-token', re: /(?<![A-Za-z0-9_:])\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])/g, needs: [':AA'] },
  { kind: 'digitalocean-token', re: /(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9_])/g, needs: ['_v1_'] },
  { kind: 'mailgun-key', re: /(?<![A-Za-z0-9_])key-[a-f0-9]{32}(?![A-Za-z0-9_])/g, needs: ['key-'] },
  { kind: 'google-oauth', re: /(?<![A-Za-z0-9_-])(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[A-Za-z0-9_-]{30,})/g, needs: ['GOCSPX-', 'ya29.'] },
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
    needs: ['dckr_', 'Q~'],
  },
  { kind: 'age-secret-key', re: /AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}/g, needs: ['AGE-SECRET-KEY-1'] },
  { kind: 'jwt', re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, needs: ['eyJ'] },
  {
    kind: 'bearer-token',
    re: /\b(Bearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g,
    needs: ['Bearer'],
    replace: (m, prefix = '') => `${prefix}${m}`,
  },
  {
    kind: 'basic-auth',
    re: /\b(Authorization:\s*Basic\s+)([A-Za-z0-9+/]{8,}=*)/gi,
    needs: ['authorization:'],
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
    needs: ['password=', 'pwd=', 'accountkey=', 'sharedaccesskey=', 'sharedaccesssignature='],
    replace: (m, lead = '', name = '', value = '') => (isNotLiteral(value) ? undefined : `${lead}${name}=${m}`),
  },
  {
    kind: 'env-secret',
    // Upper-case env/config lines (.env, export, docker -e, YAML): NAME=value with no spaces around `=`
    // (code like `TOKEN_KIND = Kind.Ident` is not an env line) or `NAME: value`; the name must hold a
    // secret-like word (not PWD: that is the working directory).
    re: /(^|[\s;'"])((?:export\s+)?[A-Z][A-Z0-9_]*)(=|:[ \t]+)(['"]?)([^\s'"]+)\4/gm,
    needs: ['=', ':'],
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
    needs: ['aws_s'],
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

/**
 * A rule as redactSecrets runs it: every rule in one shape, so the loop reads each field at one place for all of them
 * (the rules' five shapes made every read of the loop a lookup among them), its marker made once.
 */
interface Step {
  readonly kind: SecretKind;
  readonly marker: string;
  readonly pass: ((text: string, marker: string) => { text: string; count: number }) | undefined;
  readonly re: RegExp | undefined;
  readonly needs: readonly string[] | undefined;
  /** Each literal of `needs`' keys in a PairSet (pairSet.ts). */
  readonly needKeys: readonly Int32Array[] | undefined;
  /** Whether `needs` is looked for in the lower-cased text (the pattern ignores case). */
  readonly lower: boolean;
  readonly replace: ((marker: string, ...groups: string[]) => string | undefined) | undefined;
  readonly resumeAt: ((...groups: string[]) => number) | undefined;
}

const STEPS: readonly Step[] = [...RULES, ...GENERIC_RULES].map((rule) =>
  'pass' in rule
    ? { kind: rule.kind, marker: marker(rule.kind), pass: rule.pass, re: undefined, needs: undefined, needKeys: undefined, lower: false, replace: undefined, resumeAt: undefined }
    : { kind: rule.kind, marker: marker(rule.kind), pass: undefined, re: rule.re, needs: rule.needs, needKeys: rule.needs?.map(literalKeys), lower: rule.re.ignoreCase, replace: rule.replace, resumeAt: rule.resumeAt },
);

/**
 * Whether `text` holds one of `literals`: looked for only where `pairs` (the text's, pairSet.ts) has each of the
 * literal's pairs of characters (most of the rules' literals are in no text, and each was a scan of the whole text).
 */
function holdsAny(text: string, pairs: PairSet, literals: readonly string[], keys: readonly Int32Array[]): boolean {
  for (let i = 0; i < literals.length; i++) if (pairs.mayHold(keys[i]!) && text.includes(literals[i]!)) return true;
  return false;
}

/** The pairs of the text being redacted and of its lower case (redactSecrets calls nothing that redacts again). */
const textPairs = new PairSet();
const lowerPairs = new PairSet();

export function redactSecrets(text: string): RedactionResult {
  const found: Partial<Record<SecretKind, number>> = {};
  let count = 0;
  let out = text;
  // the text lower-cased, for the literals of case-insensitive patterns (made again only after a replacement), and
  // whether textPairs and lowerPairs are those of out and of lower
  let lower: string | undefined;
  let outPaired = false;
  let lowerPaired = false;
  for (const step of STEPS) {
    if (step.needs !== undefined) {
      let holds: boolean;
      if (step.lower) {
        lower ??= out.toLowerCase();
        if (!lowerPaired) lowerPairs.of(lower);
        lowerPaired = true;
        holds = holdsAny(lower, lowerPairs, step.needs, step.needKeys!);
      } else {
        if (!outPaired) textPairs.of(out);
        outPaired = true;
        holds = holdsAny(out, textPairs, step.needs, step.needKeys!);
      }
      if (!holds) continue;
    }
    const r = step.pass !== undefined ? step.pass(out, step.marker) : replaceSecrets(out, step);
    if (r.text !== out) {
      lower = undefined;
      outPaired = false;
      lowerPaired = false;
    }
    out = r.text;
    if (r.count > 0) found[step.kind] = (found[step.kind] ?? 0) + r.count;
    count += r.count;
  }
  return { text: out, found, count };
}

/**
 * `text` with each match of the step's pattern that its `replace` takes (given its groups) replaced, as `String.replace`
 * would, except that a match `replace` refuses (not a secret after all) gives its text back to the scan from `resumeAt`
 * on: in "Notes:\napi_key = sk_…" the key-value shape first matches "Notes:\napi_key" (no secret), and the secret's own
 * key must still be found inside it. With how many it replaced.
 */
function replaceSecrets(text: string, step: Step): { text: string; count: number } {
  const re = step.re!;
  let out = '';
  let kept = 0;
  let count = 0;
  re.lastIndex = 0;
  // a pattern without the g flag (one anchored at the text's start) is looked for once, as String.replace does
  for (let m = re.exec(text); m !== null; m = re.global ? re.exec(text) : null) {
    // the string captures only (a group that took no part is '')
    const groups = m.slice(1).map((g) => g ?? '');
    const replaced = step.replace ? step.replace(step.marker, ...groups) : step.marker;
    if (replaced === undefined) {
      re.lastIndex = m.index + Math.max(1, step.resumeAt ? step.resumeAt(...groups) : m[0].length);
      continue;
    }
    count++;
    out += text.slice(kept, m.index) + replaced;
    kept = m.index + m[0].length;
    if (m[0].length === 0) re.lastIndex++;
  }
  return { text: count > 0 ? out + text.slice(kept) : text, count };
}

/** The rules in the order they run (for tests). */
export function redactionRules(): readonly Rule[] {
  return [...RULES, ...GENERIC_RULES];
}

/** The redacted text alone. */
export function redact(text: string): string {
  return redactSecrets(text).text;
}
