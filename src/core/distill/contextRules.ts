import { isReference, looksSecret, type Rule } from './secretRule';

/**
 * Secrets known by where they stand rather than by their shape (issue 44): a bare hex token beside the
 * account it belongs to, the password of a command line, a `.netrc` or a config file, a literal passed to
 * a credential-named call, and (last) any secret-looking value given to a secret-named key or flag.
 */

/** A bare command-line value, or a quoted one (which may hold spaces). */
const ARG = String.raw`(["']?)([^\s"']+|(?<=["'])[^"'\n]+)\2`;

/** A password value written out: not a reference (`$PW`, `{{ pw }}`, `<password>`) and not an empty mask. */
const literalPassword = (value: string): boolean => value.length >= 2 && !isReference(value);

/**
 * An unquoted config value that is code, not a password: a YAML tag, anchor or block, a call, a member or an
 * element (`form.password`, `userPass[2]`, `opts?.pw`), or a bare name without a digit (over the text files of
 * node_modules, `password: userPass[2]` was the only value this rule took before elements were code).
 */
function isCodeValue(value: string): boolean {
  const v = value.replace(/[;,]$/, '');
  if (/^[!&*|>[{]/.test(v) || /[\w$]\(.*\)/.test(v)) return true;
  if (/^[A-Za-z_$#][\w$#]*(?:\??\.[A-Za-z_$#][\w$#]*|\[[^\]]*\])+$/.test(v)) return true;
  return /^[A-Za-z_$][\w$]*$/.test(v) && (!/\d/.test(v) || v.length < 6);
}

export const SID_RULES: readonly Rule[] = [
  {
    kind: 'twilio-key',
    // Client("AC…", "<auth token>"), curl -u AC…:<auth token>: a Twilio auth token is 32 bare hex digits
    re: /(\bAC[0-9a-fA-F]{32}["'`]?[ \t]*[,:][ \t]*["'`]?)([0-9a-fA-F]{32})(?![0-9A-Za-z])/g,
    needs: ['AC'],
    replace: (m, head = '') => `${head}${m}`,
  },
  {
    kind: 'aws-secret-key',
    // Credentials("AKIA…", "<secret>"), once the access key id itself is redacted
    re: /(\[REDACTED:aws-access-key\]["'`]?[ \t]*[,:][ \t]*["'`]?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/g,
    needs: ['[REDACTED:aws-access-key]'],
    replace: (m, head = '') => `${head}${m}`,
  },
];

/**
 * The password flags of clients: docker (podman, helm registry…) login -p, sshpass -p, redis-cli -a, and
 * mysql -pSECRET (attached only: `mysql -p shop` asks for the password and names the database). Each flag is
 * found first and its command looked for behind it, so a text is scanned for `-` rather than for every command.
 */
const CLIENT_PASSWORD_FLAG = [
  String.raw`(?:-p|--password)(?<=\b(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]+registry)[ \t]+login\b[^\n|;&]{0,200}?[ \t](?:-p|--password))(?:=|[ \t]+)`,
  String.raw`-p(?<=\bsshpass[ \t]+-p)[ \t]*`,
  String.raw`-a(?<=\bredis-cli\b[^\n|;&]{0,200}?[ \t]-a)[ \t]+`,
  String.raw`-p(?=[^\s-])(?<=\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b[^\n|;&]{0,200}?[ \t]-p)`,
].join('|');

export const PASSWORD_RULES: readonly Rule[] = [
  {
    kind: 'password',
    // .netrc: machine HOST login USER password SECRET (one line or several)
    re: /(\b(?:machine[ \t]+\S+|default)\s+login[ \t]+\S+\s+password[ \t]+)(\S+)/g,
    needs: ['password'],
    replace: (m, head = '', value = '') => (literalPassword(value) ? `${head}${m}` : undefined),
  },
  {
    kind: 'password',
    re: new RegExp(String.raw`(${CLIENT_PASSWORD_FLAG})` + ARG, 'g'),
    needs: ['-'],
    replace: (m, head = '', q = '', value = '') => (literalPassword(value) ? `${head}${q}${m}${q}` : undefined),
  },
  {
    kind: 'password',
    // --password=SECRET, --db-password SECRET: whatever its shape (not --password-stdin, --password-file)
    // (letter classes rather than the `i` flag, and a lookbehind for the space: 3 times faster on code)
    re: new RegExp(String.raw`(?<![^ \t\n])(--?(?:[A-Za-z][\w-]*-)?[Pp][Aa][Ss][Ss](?:[Ww][Oo][Rr][Dd]|[Ww][Dd]|[Pp][Hh][Rr][Aa][Ss][Ee])(?:=|[ \t]+))(?!-)` + ARG, 'g'),
    needs: ['-'],
    replace: (m, head = '', q = '', value = '') => (literalPassword(value) ? `${head}${q}${m}${q}` : undefined),
  },
  {
    kind: 'password',
    // a config line (my.cnf, .pypirc, .properties, YAML): `password = SECRET` to the end of the line, which
    // may hold `&`, `;` or `#`. Upper-case names are env lines (env-secret); quoted values are assigned-secret's.
    re: /^([ \t]*(?:-[ \t]+)?((?:[A-Za-z_][\w.-]*[._-])?(?:password|passwd|passphrase)|[A-Za-z_][\w.-]*[._-]pass)[ \t]*[=:][ \t]*)([^\s'"][^\n\r]*?)[ \t]*(?=\r?$)/gim,
    needs: ['pass'],
    replace: (m, head = '', name = '', value = '') =>
      name === name.toUpperCase() || /\s/.test(value) || isReference(value) || isCodeValue(value) ? undefined : `${head}${m}`,
  },
];

/**
 * A call or tuple whose name says it takes a credential: `setApiKey("…")`, `HTTPBasicAuth("u", "…")`, `auth=("u", "…")`.
 * Found at its parenthesis (the name's ending looked for behind it), then the whole name is read back.
 */
const CREDENTIAL_CALL = /\((?<=(?:key|token|secret|password|passwd|credentials?|auth|login|signin|authenticate)\s*(?:=\s*)?\()([^()\n]{1,300})\)/gi;
const CALLEE = /([A-Za-z_$][\w$]*)\s*(?:=\s*)?$/;
const QUOTED = /(["'])([^"'\n]{0,512})\1/g;

/** The quoted literals of a credential call's arguments that are secrets, replaced; undefined when none is. */
function credentialArgs(callee: string, args: string, marker: string): { args: string; count: number } | undefined {
  // logins and basic auth take (user, password): the last literal is the password
  const login = /(?:auth|login|signin|authenticate)$/i.test(callee);
  const literals = [...args.matchAll(QUOTED)];
  const last = literals.at(-1)?.index;
  let count = 0;
  const out = args.replace(QUOTED, (whole, q: string, value: string, at: number) => {
    const password = login && literals.length > 1 && at === last;
    if (!(password ? !isReference(value) && /\d/.test(value) && value.length >= 6 : looksSecret(callee, value))) return whole;
    count++;
    return `${q}${marker}${q}`;
  });
  return count ? { args: out, count } : undefined;
}

export const CALL_RULES: readonly Rule[] = [
  {
    kind: 'generic-secret',
    pass: (text, marker) => {
      let count = 0;
      const out = text.replace(CREDENTIAL_CALL, (whole, args: string, at: number) => {
        const callee = CALLEE.exec(text.slice(Math.max(0, at - 100), at))?.[1];
        const found = callee && /["']/.test(args) ? credentialArgs(callee, args, marker) : undefined;
        if (!found) return whole;
        count += found.count;
        return `(${found.args})`;
      });
      return { text: count ? out : text, count };
    },
  },
];

/** A literal value up to where code goes on (`getPassword(user)` is a call, not a password). */
// No '=' or ':' inside (only base64 padding at the end): runs like `A=A=A=…` must not be scanned 512 characters
// deep at every position.
const VALUE = String.raw`(["']?)([^\s'"&;,<>(){}[\]\`=:]{4,512}={0,2})\3(?=$|[\s'"&;,)}\]])`;

/**
 * The generic shapes, last: any secret-named key, env variable, JSON field or URL parameter given a literal
 * that looks like a secret (see looksSecret), and the same as a command-line flag (`--api-key VALUE`).
 */
export const GENERIC_RULES: readonly Rule[] = [
  {
    kind: 'generic-secret',
    // a leading "public " is part of the name: `public key: …` (WireGuard, SSH tools) is no secret
    re: new RegExp(String.raw`(^|[^A-Za-z0-9_.-])((?:public[ \t]+)?[A-Za-z_][A-Za-z0-9_.-]{0,60}["']?\s*[:=](?!//)\s*)` + VALUE, 'gm'),
    needs: [':', '='],
    replace: (m, lead = '', head = '', q = '', value = '') =>
      looksSecret(head.replace(/["']?\s*[:=]\s*$/, ''), value) ? `${lead}${head}${q}${m}${q}` : undefined,
    // a value that is no secret may be the next key ("Notes:\napi_key = …"): look again from the head's last
    // character, which leads that key as this key's lead did (not from inside the head: "public key" is one name)
    resumeAt: (lead = '', head = '') => lead.length + head.length - 1,
  },
  {
    kind: 'generic-secret',
    re: new RegExp(String.raw`(^|[\s])(--?[A-Za-z][A-Za-z0-9_.-]{0,60}[ \t]+)` + VALUE, 'gm'),
    needs: ['-'],
    replace: (m, lead = '', head = '', q = '', value = '') => (looksSecret(head.trim(), value) ? `${lead}${head}${q}${m}${q}` : undefined),
    resumeAt: (lead = '', head = '') => lead.length + head.length - 1,
  },
];
