/** What the redaction rules share: the kinds they report, their shape, and how a value is told from code. */

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
  | 'password'
  | 'generic-secret';

/** A pattern and what replaces its matches; or a pass over the whole text (what a pattern cannot say). */
export type Rule =
  | {
      readonly kind: SecretKind;
      readonly re: RegExp;
      /** Replacement given the match groups (undefined: not a secret after all); by default the whole match becomes the marker. */
      readonly replace?: (marker: string, ...groups: string[]) => string | undefined;
      /**
       * Strings one of which every match holds (lower-case where the pattern ignores case): a text holding none is
       * not searched. Every pattern with such literals names them: a hit's short fields (a path, a room, a headline)
       * then meet a few patterns instead of every one (issue 42; redactNeeds.test.ts checks each match holds one).
       */
      readonly needs?: readonly string[];
      /**
       * Where in a match `replace` refused the scan goes on (given the match's groups), for a pattern whose refused
       * match can hold the start of a secret's own match ("Notes:\napi_key = …": a key whose value is the next key).
       * By default after the match.
       */
      readonly resumeAt?: (...groups: string[]) => number;
    }
  | { readonly kind: SecretKind; readonly pass: (text: string, marker: string) => { text: string; count: number } };

export const marker = (kind: SecretKind): string => `[REDACTED:${kind}]`;

/** A value that stands for one kept elsewhere, or for none: a variable, a template, a placeholder, a mask. */
export function isReference(value: string): boolean {
  return (
    /^(?:\d+(?:\.\d+)?|true|false|null|none|undefined|yes|no|on|off)$/i.test(value) ||
    /^(?:\$|%|<|\[REDACTED|process\.env|os\.environ|env\(|getenv|\{\{)/i.test(value) ||
    /^[x*.•]+$/i.test(value) ||
    // documentation placeholders: your_api_key, <token>, changeme, …
    /^(?:your|my)[_-]|^(?:changeme|placeholder|example|dummy|value|redacted|secret|password|token)$/i.test(value)
  );
}

/** An unquoted value that is not a literal secret: a reference, or a type or an expression (`Option<&str>`, `getToken()`). */
export function isNotLiteral(value: string): boolean {
  return isReference(value) || /[<>()&{}]/.test(value);
}

/** What a name ends in when its value is a secret: `PAYMENT_SIGNING_KEY`, `refreshToken`, `X-Api-Key`. */
const SECRET_NAME = /(?:key|token|secret|credentials?|signature|auth)$/;
const PASSWORD_NAME = /(?:password|passwd|passphrase)$/;
/** A personal access token: `github_pat`, `--pat`, `adoPat` (not `compat`). */
const PAT_NAME = /(?:^|[^A-Za-z0-9])pat$|[a-z0-9](?:Pat|PAT)$/;
/**
 * Names ending like a secret's that name something public or an identifier (measured on the corpus: all 8
 * generic false positives were of these): public keys (`wg` "public key:"), GPG key ids and fingerprints
 * (git's `user.signingkey`, `gpg --edit-key`), lookup keys holding hashes (`cacheKey`, `partitionKey`), and
 * tokens that are positions (`nextToken`, `pageToken`).
 */
const NOT_SECRET_NAME =
  /(?:public|pub|(?:^|user)signing|edit|recv|sort|primary|partition|foreign|cache|idempotency|dedup|lookup|hash|range|row|unique|lock|map|translation|i18n|storage|object|route|routing|composite|search)keys?$|keyid$|fingerprint$|(?:next|page|pagination|continuation|cursor|sync|resume|cancellation)token$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
 * high-entropy literal holding letters and digits (not a path or a URL, and not a UUID under a bare `key`,
 * which names a list item or a cache entry); for passwords any literal with a digit.
 */
export function looksSecret(name: string, value: string): boolean {
  if (isNotLiteral(value) || /^(?:\/|\.{1,2}\/|~\/)|:\/\//.test(value)) return false;
  const plain = name.replace(/[^A-Za-z0-9]/g, '').toLowerCase();
  if (PASSWORD_NAME.test(plain)) return value.length >= 6 && /\d/.test(value);
  if (!(SECRET_NAME.test(plain) || PAT_NAME.test(name)) || NOT_SECRET_NAME.test(plain)) return false;
  if (plain === 'key' && UUID.test(value)) return false;
  return value.length >= 16 && /\d/.test(value) && /[A-Za-z]/.test(value) && entropy(value) >= 3;
}
