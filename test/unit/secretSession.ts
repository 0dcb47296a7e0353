/**
 * Issue 44: twenty realistic secrets in the places people leave them (a docker login, a my.cnf, a Redis URL
 * with an empty user, pasted and printed private keys, an installation token named in a prompt, a Twilio
 * client...), in a Claude Code session of five exchanges. Built from pieces at run time so no real-looking
 * key sits in the repository.
 */
/** `n` characters of `alphabet` drawn by a generator seeded with `seed` (mulberry32): no two secrets share a piece. */
function body(alphabet: string, n: number, seed: number): string {
  let a = (seed * 0x9e3779b9) >>> 0;
  let out = '';
  for (let i = 0; i < n; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    out += alphabet[((t ^ (t >>> 14)) >>> 0) % alphabet.length];
  }
  return out;
}
const B62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${B62}+/`;
const HEX = '0123456789abcdef';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export interface SessionSecret {
  readonly what: string;
  readonly secret: string;
}

const keyLines = (n: number, width: number, seed: number): string[] => Array.from({ length: n }, (_, i) => body(B64, width, seed + i * 2));
const opensshBody = keyLines(6, 70, 100);
// words of a query can occur inside a key's base64 (between `+` and `/`): a snippet window then opens inside the block
opensshBody[3] = `${opensshBody[3]!.slice(0, 24)}+harbour/release+${opensshBody[3]!.slice(41)}`;
const rsaBody = keyLines(8, 64, 200);

export const S = {
  dockerPat: `dckr_pat_${body(B62, 27, 1)}`,
  mysqlPassword: 's7Gq&Lm2;pQx!9',
  redisPassword: `Qm4vTz8w${body(B62, 8, 4)}`,
  openssh: ['-----BEGIN OPENSSH PRIVATE KEY-----', ...opensshBody, '-----END OPENSSH PRIVATE KEY-----'].join('\n'),
  githubInstallation: `ghs_${body(B62, 36, 6)}`,
  twilioSid: `AC${body(HEX, 32, 2)}`,
  twilioAuth: body(HEX, 32, 7),
  twilioApiKey: `SK${body(HEX, 32, 9)}`,
  slackWebhook: `https://hooks.slack.com/services/T${body(UPPER, 8, 27)}/B${body(UPPER, 8, 5)}/${body(B62, 24, 8)}`,
  awsKeyId: `AKIA${body(UPPER, 16, 10)}`,
  awsSecret: body(B64, 40, 11),
  googleKey: `AIza${body(B62, 35, 12)}`,
  stripeKey: `sk_live_${body(B62, 24, 13)}`,
  npmToken: `npm_${body(B62, 36, 14)}`,
  postgresPassword: `Pg-${body(B62, 12, 15)}`,
  pypiToken: `pypi-AgEIcHlwaS5vcmc${body(B62, 60, 16)}`,
  rsa: ['-----BEGIN RSA PRIVATE KEY-----', ...rsaBody, '-----END RSA PRIVATE KEY-----'].join('\n'),
  anthropicKey: `sk-ant-api03-${body(B62, 93, 17)}AA`,
  openaiKey: `sk-proj-${body(B62, 48, 18)}`,
  jwt: `eyJ${body(B62, 20, 19)}.eyJ${body(B62, 40, 20)}.${body(B62, 43, 21)}`,
  netrcPassword: `${body(HEX, 8, 22)}-${body(HEX, 4, 23)}-${body(HEX, 4, 24)}-${body(HEX, 4, 25)}-${body(HEX, 12, 26)}`,
};

/** The twenty secrets (the Twilio account SID is an identifier, not a secret; the access key id is one). */
export const SESSION_SECRETS: readonly SessionSecret[] = [
  { what: 'Docker PAT in docker login -p', secret: S.dockerPat },
  { what: 'lowercase password= in a my.cnf', secret: S.mysqlPassword },
  { what: 'Redis URL with an empty user', secret: S.redisPassword },
  { what: 'OpenSSH private key pasted by the user', secret: S.openssh },
  { what: 'GitHub installation token in a prompt', secret: S.githubInstallation },
  { what: 'Twilio auth token beside its account SID', secret: S.twilioAuth },
  { what: 'Twilio API key', secret: S.twilioApiKey },
  { what: 'Slack webhook', secret: S.slackWebhook },
  { what: 'AWS access key id', secret: S.awsKeyId },
  { what: 'AWS secret access key', secret: S.awsSecret },
  { what: 'Google API key', secret: S.googleKey },
  { what: 'Stripe secret key', secret: S.stripeKey },
  { what: 'npm token in .npmrc', secret: S.npmToken },
  { what: 'postgres URL password', secret: S.postgresPassword },
  { what: 'PyPI token in .pypirc', secret: S.pypiToken },
  { what: 'RSA private key printed by a tool', secret: S.rsa },
  { what: 'Anthropic key', secret: S.anthropicKey },
  { what: 'OpenAI key', secret: S.openaiKey },
  { what: 'JWT bearer token', secret: S.jwt },
  { what: '.netrc password', secret: S.netrcPassword },
];

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };
type Turn =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly blocks: readonly Block[] }
  | { readonly role: 'result'; readonly id: string; readonly text: string };

const say = (text: string): Turn => ({ role: 'assistant', blocks: [{ type: 'text', text }] });
const tool = (id: string, name: string, input: Record<string, unknown>, text = ''): Turn => ({
  role: 'assistant',
  blocks: [...(text ? [{ type: 'text' as const, text }] : []), { type: 'tool_use', id, name, input }],
});

/** Five exchanges: each a user's request, the agent's tool calls and their results, and a closing reply. */
function turns(cwd: string): Turn[][] {
  return [
    [
      { role: 'user', text: 'Set up the registry login for the CI box and the mysql client config for the shop database.' },
      tool('t1', 'Bash', { command: `docker login registry.shop.example -u ci-bot -p ${S.dockerPat}` }, 'Logging the CI box in to the registry.'),
      { role: 'result', id: 't1', text: 'Login Succeeded' },
      tool('t2', 'Write', { file_path: `${cwd}/config/my.cnf`, content: `[client]\nuser=shop\npassword=${S.mysqlPassword}\nhost=db.internal\n` }),
      { role: 'result', id: 't2', text: `File created successfully at: ${cwd}/config/my.cnf` },
      tool('t3', 'Bash', { command: `cat ${cwd}/config/my.cnf` }),
      { role: 'result', id: 't3', text: `[client]\nuser=shop\npassword=${S.mysqlPassword}\nhost=db.internal` },
      say(`Done: the registry login works, config/my.cnf holds the client settings, and the session cache now uses redis://:${S.redisPassword}@cache.internal:6379/0 as its Redis URL.`),
    ],
    [
      { role: 'user', text: `Here is the deploy key for the release box, please install it:\n${S.openssh}\nRotate the deploy key after the harbour release goes out.` },
      tool('t4', 'Write', { file_path: `${cwd}/deploy/id_ed25519`, content: S.openssh }, 'Installing the deploy key.'),
      { role: 'result', id: 't4', text: `File created successfully at: ${cwd}/deploy/id_ed25519` },
      tool('t5', 'Bash', { command: 'openssl genrsa -traditional 2048 && cat deploy/server.key' }),
      { role: 'result', id: 't5', text: `${S.rsa}\nwrote deploy/server.key` },
      say('Installed the deploy key with mode 600 and generated the TLS server key; rotate the deploy key after the harbour release goes out.'),
    ],
    [
      { role: 'user', text: `Use the installation token \`${S.githubInstallation}\` to open the release PR, and wire the SMS alerts to Twilio.` },
      tool('t6', 'Write', {
        file_path: `${cwd}/alerts/sms.py`,
        content: `from twilio.rest import Client\nclient = Client("${S.twilioSid}", "${S.twilioAuth}")\n`,
      }),
      { role: 'result', id: 't6', text: `File created successfully at: ${cwd}/alerts/sms.py` },
      say(
        `The SMS alerts use client = Client("${S.twilioSid}", "${S.twilioAuth}") in alerts/sms.py; the API key ${S.twilioApiKey} ` +
          `is kept for the voice calls, and failures post to the Slack webhook ${S.slackWebhook}.`,
      ),
    ],
    [
      { role: 'user', text: 'Configure the cloud credentials for the nightly export job and the Stripe payouts.' },
      tool('t7', 'Write', {
        file_path: `${cwd}/.aws/credentials`,
        content: `[export]\naws_access_key_id = ${S.awsKeyId}\naws_secret_access_key = ${S.awsSecret}\n`,
      }),
      { role: 'result', id: 't7', text: `[export]\naws_access_key_id = ${S.awsKeyId}\naws_secret_access_key = ${S.awsSecret}` },
      say(
        `Wrote the export credentials; the map widget gets apiKey: "${S.googleKey}" and .env has STRIPE_SECRET_KEY=${S.stripeKey} ` +
          `for the payouts. The npm registry line is //registry.npmjs.org/:_authToken=${S.npmToken} and the export reads ` +
          `postgres://export:${S.postgresPassword}@db.internal:5432/shop.`,
      ),
    ],
    [
      { role: 'user', text: 'Publish the harbour package and call the summariser APIs from the export job.' },
      tool('t8', 'Write', { file_path: `${cwd}/.pypirc`, content: `[pypi]\nusername = __token__\npassword = ${S.pypiToken}\n` }),
      { role: 'result', id: 't8', text: `[pypi]\nusername = __token__\npassword = ${S.pypiToken}` },
      tool('t9', 'Bash', { command: `curl -s https://api.shop.example/v1/summaries -H "Authorization: Bearer ${S.jwt}"` }),
      { role: 'result', id: 't9', text: '{"status":"ok"}' },
      say(
        `Published. The export job reads export ANTHROPIC_API_KEY=${S.anthropicKey} and openai.api_key = "${S.openaiKey}"; ` +
          `the Heroku CLI authenticates from ~/.netrc: machine api.heroku.com login ops@shop.example password ${S.netrcPassword}`,
      ),
    ],
  ];
}

/** The session as Claude Code writes it (one JSON record per line), in project `cwd`. */
export function secretSession(cwd: string): string {
  const sessionId = '44444444-0000-4000-8000-000000000044';
  const lines: string[] = [];
  let parent: string | null = null;
  let k = 0;
  for (const [x, exchange] of turns(cwd).entries()) {
    for (const t of exchange) {
      const uuid = `44444444-0000-4000-8000-${String(++k).padStart(12, '0')}`;
      const timestamp = new Date(Date.UTC(2025, 3, 1 + x, 9, k)).toISOString();
      const message =
        t.role === 'user'
          ? { role: 'user', content: t.text }
          : t.role === 'result'
            ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: t.id, content: t.text }] }
            : { role: 'assistant', model: 'claude-sonnet-4-5', content: t.blocks };
      lines.push(JSON.stringify({ parentUuid: parent, type: t.role === 'assistant' ? 'assistant' : 'user', cwd, sessionId, uuid, timestamp, message }));
      parent = uuid;
    }
  }
  return `${lines.join('\n')}\n`;
}
