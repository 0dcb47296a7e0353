/**
 * The redaction corpus (issue 18): secret formats, each embedded in code, JSON, a URL, a shell line and a
 * config file. Built from pieces at run time so no real-looking key sits in the repository; each has the
 * shape its issuer uses. `name` is what the secret is usually called where it is assigned.
 */
const body = (alphabet: string, n: number, seed = 3): string =>
  Array.from({ length: n }, (_, i) => alphabet[(i * 7 + seed) % alphabet.length]).join('');
const B62 = 'aB3dE5gH7jK9mN1pQ2rS4tU6vW8xY0zCfLoZ';
const HEX = '0123456789abcdef';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const B64 = `${B62}+/`;
const BECH32 = 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L';

export interface SecretFormat {
  readonly format: string;
  readonly secret: string;
  /** The name it is assigned to in code, JSON, URLs and env lines. */
  readonly name: string;
}

const pem = (label: string): string =>
  [`-----BEGIN ${label}PRIVATE KEY-----`, body(B64, 64), body(B64, 64, 5), `-----END ${label}PRIVATE KEY-----`].join('\n');

export const SECRET_FORMATS: readonly SecretFormat[] = [
  { format: 'Anthropic API key', secret: `sk-ant-api03-${body(B62, 93)}AA`, name: 'anthropic_api_key' },
  { format: 'OpenAI project key', secret: `sk-proj-${body(B62, 48)}`, name: 'openai_api_key' },
  { format: 'OpenAI legacy key', secret: `sk-${body(B62, 48)}`, name: 'api_key' },
  { format: 'OpenAI service account key', secret: `sk-svcacct-${body(B62, 60)}`, name: 'openai_key' },
  { format: 'GitHub personal access token', secret: `ghp_${body(B62, 36)}`, name: 'github_token' },
  { format: 'GitHub OAuth token', secret: `gho_${body(B62, 36)}`, name: 'gh_token' },
  { format: 'GitHub app installation token', secret: `ghs_${body(B62, 36)}`, name: 'token' },
  { format: 'GitHub fine-grained token', secret: `github_pat_11${body(B62, 20)}_${body(B62, 59)}`, name: 'github_pat' },
  { format: 'AWS access key id', secret: `AKIA${body(UPPER, 16)}`, name: 'aws_access_key_id' },
  { format: 'AWS secret access key', secret: body(B64, 40, 11), name: 'aws_secret_access_key' },
  { format: 'AWS session token', secret: `IQoJb3JpZ2luX2Vj${body(B64, 300, 13)}`, name: 'aws_session_token' },
  { format: 'Google API key', secret: `AIza${body(B62, 35)}`, name: 'google_api_key' },
  { format: 'Google OAuth client secret', secret: `GOCSPX-${body(B62, 28)}`, name: 'client_secret' },
  { format: 'Google OAuth access token', secret: `ya29.a0${body(B62, 120)}`, name: 'access_token' },
  { format: 'Slack bot token', secret: `xoxb-1234567890-${body(B62, 24)}`, name: 'slack_bot_token' },
  { format: 'Slack webhook URL', secret: `https://hooks.slack.com/services/T${body(UPPER, 8)}/B${body(UPPER, 8)}/${body(B62, 24)}`, name: 'slack_webhook' },
  { format: 'Stripe secret key', secret: `sk_live_${body(B62, 24)}`, name: 'stripe_secret_key' },
  { format: 'Stripe restricted key', secret: `rk_live_${body(B62, 24)}`, name: 'stripe_key' },
  { format: 'Stripe webhook secret', secret: `whsec_${body(B62, 32)}`, name: 'webhook_secret' },
  { format: 'JWT', secret: `eyJ${body(B62, 20)}.eyJ${body(B62, 40)}.${body(B62, 43)}`, name: 'id_token' },
  { format: 'RSA private key', secret: pem('RSA '), name: 'private_key' },
  { format: 'OpenSSH private key', secret: pem('OPENSSH '), name: 'ssh_key' },
  { format: 'GitLab personal access token', secret: `glpat-${body(B62, 20)}`, name: 'gitlab_token' },
  { format: 'GitLab runner token', secret: `glrt-${body(B62, 20)}`, name: 'runner_token' },
  { format: 'Hugging Face token', secret: `hf_${body(B62, 34)}`, name: 'hf_token' },
  { format: 'npm token', secret: `npm_${body(B62, 36)}`, name: 'npm_token' },
  { format: 'PyPI token', secret: `pypi-AgEIcHlwaS5vcmc${body(B62, 60)}`, name: 'pypi_token' },
  { format: 'SendGrid API key', secret: `SG.${body(B62, 22)}.${body(B62, 43, 5)}`, name: 'sendgrid_api_key' },
  { format: 'Twilio auth token', secret: body(HEX, 32, 5), name: 'twilio_auth_token' },
  { format: 'Twilio API key', secret: `SK${body(HEX, 32)}`, name: 'twilio_api_key' },
  { format: 'Discord bot token', secret: `MT${body(B62, 24)}.${body(B62, 6)}.${body(B62, 38)}`, name: 'discord_token' },
  { format: 'Telegram bot token', secret: `7123456789:AA${body(B62, 33)}`, name: 'bot_token' },
  { format: 'DigitalOcean token', secret: `dop_v1_${body(HEX, 64)}`, name: 'do_token' },
  { format: 'Mailgun API key', secret: `key-${body(HEX, 32)}`, name: 'mailgun_api_key' },
  { format: '.npmrc auth token (legacy)', secret: `${body(HEX, 8)}-${body(HEX, 4, 5)}-${body(HEX, 4, 7)}-${body(HEX, 4, 9)}-${body(HEX, 12, 2)}`, name: '_authToken' },
  { format: 'Shopify access token', secret: `shpat_${body(HEX, 32)}`, name: 'shopify_token' },
  { format: 'Databricks token', secret: `dapi${body(HEX, 32)}`, name: 'databricks_token' },
  { format: 'Linear API key', secret: `lin_api_${body(B62, 40)}`, name: 'linear_api_key' },
  { format: 'Notion integration token', secret: `ntn_${body(B62, 46)}`, name: 'notion_token' },
  { format: 'Postman API key', secret: `PMAK-${body(HEX, 24)}-${body(HEX, 34, 5)}`, name: 'postman_api_key' },
  { format: 'Grafana service account token', secret: `glsa_${body(B62, 32)}_${body(HEX, 8)}`, name: 'grafana_token' },
  { format: 'HashiCorp Vault token', secret: `hvs.${body(B62, 90)}`, name: 'vault_token' },
  { format: 'Supabase access token', secret: `sbp_${body(HEX, 40)}`, name: 'supabase_token' },
  { format: 'Groq API key', secret: `gsk_${body(B62, 52)}`, name: 'groq_api_key' },
  { format: 'Replicate token', secret: `r8_${body(B62, 37)}`, name: 'replicate_api_token' },
  { format: 'age secret key', secret: `AGE-SECRET-KEY-1${body(BECH32, 58)}`, name: 'age_key' },
  { format: 'Atlassian API token', secret: `ATATT3xFfGF0${body(B62, 170)}`, name: 'jira_api_token' },
  { format: 'Azure storage account key', secret: `${body(B64, 86, 17)}==`, name: 'AccountKey' },
  { format: 'generic high-entropy *_KEY', secret: body(B62, 32, 19), name: 'PAYMENT_SIGNING_KEY' },
  { format: 'generic high-entropy *_SECRET', secret: body(B62, 40, 23), name: 'session_secret' },
  { format: 'generic high-entropy *Token', secret: body(B62, 28, 29), name: 'refreshToken' },
  { format: 'generic password', secret: 'Tr0ub4dor-3-horse', name: 'password' },
];

const camel = (name: string): string =>
  name === name.toUpperCase() ? name : name.replace(/[_-]+([a-zA-Z])/g, (_, c: string) => c.toUpperCase());
const envName = (name: string): string => name.replace(/^_+/, '').replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase();

/** The contexts every format is embedded in; a PEM block has no URL form and is escaped in JSON. */
export function embeddings(f: SecretFormat): Array<{ context: string; text: string }> {
  const multiline = f.secret.includes('\n');
  const out = [
    { context: 'code', text: `  const ${camel(f.name)} = "${f.secret}";` },
    { context: 'json', text: `{"${f.name}": ${JSON.stringify(f.secret)}, "region": "eu-west-1"}` },
    { context: 'shell', text: `export ${envName(f.name)}='${f.secret}' && ./deploy.sh --${f.name.replace(/^_+/, '').replace(/_/g, '-').toLowerCase()} ${f.secret}` },
    { context: 'config', text: `${f.name} = ${f.secret}` },
    // a config line after a heading or a note ending in a colon (the note's colon must not take the key as its value)
    { context: 'config after a heading', text: `Set it up:\n${f.name} = ${f.secret}` },
    { context: 'config after a note', text: `Note: ${f.name} = ${f.secret}` },
  ];
  if (!multiline) out.push({ context: 'url', text: `GET https://api.example.com/v1/items?${f.name}=${f.secret}&page=2 200` });
  if (f.name === '_authToken') out.push({ context: 'npmrc', text: `//registry.npmjs.org/:_authToken=${f.secret}` });
  // issue 44: the auth token beside its account SID, as Twilio's quickstarts pass them (no name says "token")
  if (f.format === 'Twilio auth token') {
    const sid = 'AC7a1e9c03f4b8d2e6a5c19f70b3d84e2c'; // written out: the account id stays, and shares no piece with the secrets
    out.push({ context: 'client', text: `client = Client("${sid}", "${f.secret}")` }, { context: 'curl', text: `curl -X POST https://api.twilio.com/2010-04-01/Accounts/${sid}/Messages.json -u ${sid}:${f.secret}` });
  }
  return out;
}

const WINDOW = 12;

/**
 * The first piece of `secret` that survives in `text`: any WINDOW characters of it (or all of a shorter one),
 * so a cut or partly redacted secret counts too; a PEM block's BEGIN/END lines are no secret and are skipped.
 */
export function leak(text: string, secret: string): string | undefined {
  const parts = secret.split('\n').filter((p) => !/^-----/.test(p));
  for (const part of parts) {
    if (part.length <= WINDOW) {
      if (text.includes(part)) return part;
      continue;
    }
    for (let i = 0; i + WINDOW <= part.length; i++) {
      const piece = part.slice(i, i + WINDOW);
      if (text.includes(piece)) return piece;
    }
  }
  return undefined;
}
