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

const hex = (n: number, seed: number): string => Array.from({ length: n }, (_, i) => '0123456789abcdef'[(i * 7 + seed) % 16]).join('');
const twilioSid = `AC${hex(32, 1)}`;
const twilioToken = hex(32, 5);
const pemTail = [body(B62, 64), body(B62, 40), '-----END OPENSSH PRIVATE KEY-----'];

/**
 * Issue 44: secrets known by where they stand, each with the exact text redaction must leave (the secret
 * gone, its marker in its place, everything around it kept).
 */
export const BY_CONTEXT: ReadonlyArray<PlantedSecret & { readonly redacted: string }> = [
  { kind: 'twilio-key', secret: twilioToken, line: `client = Client("${twilioSid}", "${twilioToken}")`, redacted: `client = Client("${twilioSid}", "[REDACTED:twilio-key]")` },
  { kind: 'twilio-key', secret: twilioToken, line: `const client = twilio('${twilioSid}', '${twilioToken}');`, redacted: `const client = twilio('${twilioSid}', '[REDACTED:twilio-key]');` },
  {
    kind: 'twilio-key',
    secret: twilioToken,
    line: `curl https://api.twilio.com/2010-04-01/Accounts/${twilioSid}/Messages.json -u ${twilioSid}:${twilioToken}`,
    redacted: `curl https://api.twilio.com/2010-04-01/Accounts/${twilioSid}/Messages.json -u ${twilioSid}:[REDACTED:twilio-key]`,
  },
  {
    kind: 'aws-secret-key',
    secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
    line: 'creds = Credentials("AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")',
    redacted: 'creds = Credentials("[REDACTED:aws-access-key]", "[REDACTED:aws-secret-key]")',
  },
  { kind: 'service-token', secret: `dckr_pat_${body(B62, 27)}`, line: `docker login -u ci-bot -p dckr_pat_${body(B62, 27)}`, redacted: 'docker login -u ci-bot -p [REDACTED:service-token]' },
  { kind: 'password', secret: 'Gh7-kLm2pQ9x', line: 'docker login registry.example.com -u deploy -p Gh7-kLm2pQ9x', redacted: 'docker login registry.example.com -u deploy -p [REDACTED:password]' },
  { kind: 'password', secret: 'Zq9!xv33', line: "sshpass -p 'Zq9!xv33' ssh deploy@10.0.0.5", redacted: "sshpass -p '[REDACTED:password]' ssh deploy@10.0.0.5" },
  { kind: 'password', secret: 'S3cr3tPass', line: 'mysql -u root -pS3cr3tPass shop < dump.sql', redacted: 'mysql -u root -p[REDACTED:password] shop < dump.sql' },
  { kind: 'password', secret: 'Qm4vTz8wLp2s', line: 'redis-cli -h cache.internal -a Qm4vTz8wLp2s ping', redacted: 'redis-cli -h cache.internal -a [REDACTED:password] ping' },
  { kind: 'password', secret: 'hunter2x', line: 'pg_dump --db-password=hunter2x shop', redacted: 'pg_dump --db-password=[REDACTED:password] shop' },
  { kind: 'password', secret: 'correct horse 4 staple', line: 'age-keygen --passphrase "correct horse 4 staple" -o key.txt', redacted: 'age-keygen --passphrase "[REDACTED:password]" -o key.txt' },
  { kind: 'password', secret: 's7Gq&Lm2;pQx!9', line: '[client]\nuser=root\npassword=s7Gq&Lm2;pQx!9\nhost=db.internal', redacted: '[client]\nuser=root\npassword=[REDACTED:password]\nhost=db.internal' },
  { kind: 'password', secret: 'Vx7#kq&Lm2', line: '[mysqld]\npassword = Vx7#kq&Lm2\r\nport = 3306', redacted: '[mysqld]\npassword = [REDACTED:password]\r\nport = 3306' },
  { kind: 'password', secret: 'Tr0ub4dor&3', line: 'db:\n  user: shop\n  password: Tr0ub4dor&3', redacted: 'db:\n  user: shop\n  password: [REDACTED:password]' },
  { kind: 'assigned-secret', secret: 'Tr0ub4dor&3', line: 'password = "Tr0ub4dor&3"', redacted: 'password = "[REDACTED:assigned-secret]"' },
  { kind: 'url-password', secret: 'Qm4vTz8wLp2s', line: 'REDIS_URL=redis://:Qm4vTz8wLp2s@cache.internal:6379/0', redacted: 'REDIS_URL=redis://:[REDACTED:url-password]@cache.internal:6379/0' },
  {
    kind: 'password',
    secret: '4f3c2b1a-9d8e-4f7a-b6c5-d4e3f2a1b0c9',
    line: 'machine api.heroku.com\n  login dev@shop.example\n  password 4f3c2b1a-9d8e-4f7a-b6c5-d4e3f2a1b0c9',
    redacted: 'machine api.heroku.com\n  login dev@shop.example\n  password [REDACTED:password]',
  },
  { kind: 'env-secret', secret: body(B62, 52), line: `AZURE_DEVOPS_PAT=${body(B62, 52)}`, redacted: 'AZURE_DEVOPS_PAT=[REDACTED:env-secret]' },
  { kind: 'generic-secret', secret: 'Zx81kq0pLm29xY73bV46nC51', line: 'az devops login --pat Zx81kq0pLm29xY73bV46nC51', redacted: 'az devops login --pat [REDACTED:generic-secret]' },
  { kind: 'generic-secret', secret: 'Gh7-kLm2pQ9x', line: 'requests.get(url, auth=("deploy", "Gh7-kLm2pQ9x"))', redacted: 'requests.get(url, auth=("deploy", "[REDACTED:generic-secret]"))' },
  { kind: 'generic-secret', secret: 'Gh7-kLm2pQ9x', line: 'session.auth = HTTPBasicAuth("u", "Gh7-kLm2pQ9x")', redacted: 'session.auth = HTTPBasicAuth("u", "[REDACTED:generic-secret]")' },
  { kind: 'generic-secret', secret: '9f8e7d6c5b4a39281706f5e4d3c2b1a0', line: 'stripe.setApiKey("9f8e7d6c5b4a39281706f5e4d3c2b1a0");', redacted: 'stripe.setApiKey("[REDACTED:generic-secret]");' },
  // a key's tail whose BEGIN line is not in the text (a window or a segment opening inside the block)
  { kind: 'private-key', secret: pemTail.slice(0, 2).join('\n'), line: `…${pemTail.join('\n')}\nRotate it after the release.`, redacted: '[REDACTED:private-key]\nRotate it after the release.' },
  {
    kind: 'private-key',
    secret: pemTail.slice(0, 2).join('\n'),
    line: `"…${pemTail.slice(0, 2).join('\\n')}\\n-----END PRIVATE KEY-----\\n", "client_email": "ci@shop.iam"`,
    redacted: '"[REDACTED:private-key]\\n", "client_email": "ci@shop.iam"',
  },
  // a block cut short by render.ts (600 characters of a tool output): the block goes, the reply after it stays
  {
    kind: 'private-key',
    secret: pemTail.slice(0, 2).join('\n'),
    line: `[result] -----BEGIN RSA PRIVATE KEY-----\n${pemTail[0]}\n${pemTail[1]}… [2600 more chars]\n\nAssistant: Saved the key to deploy/server.key.`,
    redacted: '[result] [REDACTED:private-key]\n\nAssistant: Saved the key to deploy/server.key.',
  },
];

/** Issue 44: hashes, ids, colours and account ids beside credential-like names: no credential, left alone. */
export const NOT_CREDENTIALS: readonly string[] = [
  `account_sid = "${twilioSid}"`,
  `client.messages.create(from_="+15005550006", to="+15551234567")  # account ${twilioSid}`,
  'git checkout 3b964ae1f2c4d5e6f708192a3b4c5d6e7f8091a2',
  '"sha": "3b964ae1f2c4d5e6f708192a3b4c5d6e7f8091a2",',
  'checksum = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"',
  '"integrity": "sha512-9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08/Lq8Qf0Xw==",',
  '{file = "shop-1.0.tar.gz", hash = "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"}',
  'golang.org/x/text v0.14.0 h1:ScX5w1eTa3QqT8oi6+ziP7dTV1S2+ALU0bI+0zXKWiQ=',
  'image: node@sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  '"session_id": "5b2f8e1a-9c3d-4e7f-a1b2-c3d4e5f60718"',
  'key: 5b2f8e1a-9c3d-4e7f-a1b2-c3d4e5f60718',
  '{ "token": "keyword", "foreground": "#569cd6" }',
  'accentKey: "#ff8800", tokenColor: "#1e1e1e"',
  'mysql -u root -p shop',
  'echo "$DOCKER_PAT" | docker login -u ci-bot --password-stdin',
  'docker login -u ci-bot -p $DOCKER_PAT registry.shop.example',
  'password = form.password.data',
  '    password: userPass[2]',
  'password = user_input',
  'password = None',
  'password: required',
  'Password: ********',
  'the key ends here -----END RSA PRIVATE KEY----- and the block is gone',
  'if (typeof pkcs8 != "string" || pkcs8.indexOf("-----BEGIN PRIVATE KEY-----") !== 0) throw new TypeError(msg);',
  'login("admin", "admin")',
  'const token = getToken("user-42");',
];
