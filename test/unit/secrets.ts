/**
 * Planted secrets for the redaction tests and the Anthropic wire tests. Built from pieces at run time so
 * no real-looking key sits in the repository; each is the shape its provider issues.
 */
const body = (alphabet: string, n: number): string => Array.from({ length: n }, (_, i) => alphabet[(i * 7 + 3) % alphabet.length]).join('');
const B62 = 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zC';

export interface PlantedSecret {
  readonly kind: string;
  /** The secret itself: must never survive redaction. */
  readonly secret: string;
  /** A realistic line carrying it. */
  readonly line: string;
}

const jwt = `eyJ${body(B62, 20)}.eyJ${body(B62, 40)}.${body(B62, 43)}`;
const pem = ['-----BEGIN RSA PRIVATE KEY-----', body(B62, 64), body(B62, 64), '-----END RSA PRIVATE KEY-----'].join('\n');

export const PLANTED: readonly PlantedSecret[] = [
  { kind: 'anthropic-key', secret: `sk-ant-api03-${body(B62, 80)}`, line: '' },
  { kind: 'openai-key', secret: `sk-proj-${body(B62, 48)}`, line: '' },
  { kind: 'openai-key', secret: `sk-${body(B62, 48)}`, line: '' },
  { kind: 'github-token', secret: `ghp_${body(B62, 36)}`, line: '' },
  { kind: 'github-token', secret: `gho_${body(B62, 36)}`, line: '' },
  { kind: 'github-token', secret: `github_pat_11${body(B62, 20)}_${body(B62, 59)}`, line: '' },
  { kind: 'aws-access-key', secret: `AKIA${body('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`, line: '' },
  { kind: 'google-api-key', secret: `AIza${body(B62, 35)}`, line: '' },
  { kind: 'slack-token', secret: `xoxb-1234567890-${body(B62, 24)}`, line: '' },
  { kind: 'stripe-key', secret: `sk_live_${body(B62, 24)}`, line: '' },
  { kind: 'jwt', secret: jwt, line: '' },
  { kind: 'private-key', secret: pem, line: '' },
].map((p) => ({ ...p, line: `config value ${p.secret} was pasted here` }));

/** Secrets embedded in their usual surroundings: the secret part is what must disappear. */
export const PLANTED_IN_CONTEXT: readonly PlantedSecret[] = [
  { kind: 'bearer-token', secret: 'f00dFACE1234abcd5678EF90', line: 'curl -H "Authorization: Bearer f00dFACE1234abcd5678EF90" https://api.example.com' },
  { kind: 'basic-auth', secret: 'YWRtaW46aHVudGVyMg==', line: 'Authorization: Basic YWRtaW46aHVudGVyMg==' },
  { kind: 'url-password', secret: 'S3cr3tPa55', line: 'DATABASE_URL is postgres://app:S3cr3tPa55@db.internal:5432/shop' },
  { kind: 'url-password', secret: 'mongoPw42x', line: 'client = MongoClient("mongodb+srv://admin:mongoPw42x@cluster0.mongodb.net/test")' },
  { kind: 'connection-string-secret', secret: 'Zq9!xv33', line: 'Server=tcp:sql.local,1433;Database=shop;User Id=sa;Password=Zq9!xv33;' },
  { kind: 'env-secret', secret: 'hunter2hunter2', line: 'DB_PASSWORD=hunter2hunter2' },
  { kind: 'env-secret', secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', line: 'export AWS_SECRET_ACCESS_KEY="wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"' },
  { kind: 'env-secret', secret: 'tok_9f8e7d6c5b4a', line: 'GITLAB_TOKEN: tok_9f8e7d6c5b4a' },
  { kind: 'assigned-secret', secret: 'correct-horse-battery', line: '  "client_secret": "correct-horse-battery",' },
  { kind: 'assigned-secret', secret: 'p4ssw0rd!', line: "password = 'p4ssw0rd!'" },
];

/** Normal code and prose that looks a little like secrets: must come through unchanged. */
export const NEAR_MISSES: readonly string[] = [
  'const MAX_TOKENS = 1024;',
  'TOKEN_KIND = TokenKind.Ident',
  'MAX_TOKENS=4096',
  'USE_AUTH=true',
  'API_KEY=${ANTHROPIC_API_KEY}',
  'DB_PASSWORD=$DB_PASSWORD',
  'password = getPassword(user)',
  '<input type="password" name="password">',
  'function validatePassword(password: string): boolean {',
  'The token limit is sk-learn compatible; see sk-learn docs.',
  'import { task-runner } from "sk-utils-helpers";',
  'Use the `Authorization: Bearer <token>` header.',
  'headers: { Authorization: `Bearer ${token}` }',
  'git clone git@github.com:acme/shop.git',
  'open http://localhost:8080/api/users?id=42',
  'ssh://git@github.com:22/acme/shop.git',
  'eyJhbGciOi is how every JWT header starts',
  'AKIA prefix marks long-term AWS access keys',
  'const apiKey = process.env.OPENAI_API_KEY;',
  'sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'commit 3b964ae1f2c4d5e6f708192a3b4c5d6e7f8091a2',
  'npm error code E401 Unable to authenticate, your authentication token seems to be invalid.',
  'export PATH="$HOME/.local/bin:$PATH"',
  'TokenizerConfig tokenizer = new TokenizerConfig("cl100k_base");',
  'postgres://localhost:5432/shop',
  'The PASSWORD_MIN_LENGTH setting is 12.',
  // seen in the real corpus
  '- OCODEX_DOCKER_MOUNT_PWD: mounts workspace to `/work`',
  '    pub OPENAI_API_KEY: Option<&str> = None;',
  'GOOGLE_API_KEY=your_api_key',
  'OPENWEATHER_API_KEY=your_free_key_here',
  'Now in 1Password: Settings → Developer',
  // public keys, key ids, fingerprints and hash-valued identifiers (the catch-all took these for secrets)
  'interface: wg0 public key: iDOkPq2eH57bILCMFmfvYtOmZLcetwfAOzm+VEUZlx0=',
  'git config --global user.signingkey 8D357AFBEA94CD48BC1982CCBDDE13F749C6CF8A',
  'user.signingkey=8D357AFBEA94CD48BC1982CCBDDE13F749C6CF8A',
  'signingkey = 3AA5C34371567BD2',
  'gpg --edit-key BF272C9251706E4A3B0CE36712740A31E8F40B96',
  'const cacheKey = "v2-9f86d081884c7d659a2feaa0c55ad015";',
  '"partitionKey": "tenant-42-7f3e2a9b1c4d5e6f"',
  'idempotency_key: 5b2f8e1a-9c3d-4e7f-a1b2-c3d4e5f60718',
  'params.nextToken = "eyAiYyI6IDE3LCAibyI6IDQyIH0x"',
  'publicKey: "BEl62iUYgUivxIkv69yViEuiBIa40HI80NM9f3q0dL6Y"',
];
