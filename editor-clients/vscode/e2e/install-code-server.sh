#!/usr/bin/env bash
# Installs code-server (VS Code built to be served to a browser) for the real-editor test, from the
# npm registry alone, into a cache folder that later runs reuse. Prints the path of its
# `code-server` program as the last line of stdout; progress and errors go to stderr.
#
# code-server's own postinstall cannot run here: it refuses root under npm 11 (which ignores
# --unsafe-perm) and its native modules try to download prebuilt binaries from hosts outside the
# package registries. So the package is installed with --ignore-scripts and this script does what
# the install scripts would: build the native modules against the system Node's headers, give
# @vscode/ripgrep the system `rg`, and make the links postinstall makes.
#
# Needs: Node 20 (code-server 4.100.3 is the last release that runs on it) with npm, python3,
# make and a C++ compiler (node-gyp), krb5-config (Debian: libkrb5-dev) and rg (Debian: ripgrep).
#
# Environment: COLOSSEUM_E2E_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/colosseum-tests).
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
cache_root="${COLOSSEUM_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/colosseum-tests}"
dest="$cache_root/code-server-$CODE_SERVER_VERSION"
program="$dest/node_modules/code-server/out/node/entry.js"

say() { echo "install-code-server: $*" >&2; }
fail() { say "$*"; exit 1; }

if [ -f "$dest/.installed" ]; then
  echo "$program"
  exit 0
fi

# --- what the build needs, checked first so that a missing piece is named -----------------------
command -v node >/dev/null 2>&1 || fail "needs node (Node 20) on PATH"
command -v npm >/dev/null 2>&1 || fail "needs npm on PATH"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" = "20" ] || fail "code-server $CODE_SERVER_VERSION needs Node 20; node on PATH is $(node --version)"
for tool in python3 make c++ krb5-config rg; do
  command -v "$tool" >/dev/null 2>&1 \
    || fail "needs '$tool' on PATH (Debian packages: build-essential python3 libkrb5-dev ripgrep)"
done
# npm's own node-gyp, run by path: `npm exec node-gyp` would ask the registry for another one
npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
node_gyp="$npm_dir/node_modules/node-gyp/bin/node-gyp.js"
[ -f "$node_gyp" ] || fail "npm's node-gyp not found at $node_gyp"
# the system Node's headers (Debian: /usr/include/node): node-gyp would otherwise download them
node_prefix=$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")
if [ -f "$node_prefix/include/node/node.h" ]; then
  export npm_config_nodedir="$node_prefix"
else
  say "no Node headers under $node_prefix/include/node: node-gyp will try to download them"
fi

mkdir -p "$cache_root"
# one install at a time (two test runs may start together); the second finds the first's result
exec 9>"$cache_root/code-server.lock"
flock 9
if [ -f "$dest/.installed" ]; then
  echo "$program"
  exit 0
fi

staging="$dest.partial"
rm -rf "$staging"
mkdir -p "$staging"
started=$SECONDS
npm_quiet=(--no-audit --no-fund --loglevel=error --ignore-scripts)

gyp_rebuild() {  # build one native module in place (quietly unless it fails); $2... go to node-gyp
  local log module=$1
  shift
  log=$(mktemp)
  if ! (cd "$module" && node "$node_gyp" rebuild "$@" >"$log" 2>&1); then
    tail -n 40 "$log" >&2
    rm -f "$log"
    fail "building the native module in $module failed"
  fi
  rm -f "$log"
}

say "npm install code-server@$CODE_SERVER_VERSION (scripts off) into $staging"
(cd "$staging" && echo '{"private": true}' >package.json \
  && npm install "${npm_quiet[@]}" "code-server@$CODE_SERVER_VERSION" >&2)

# argon2 (password hashing) is found by node-pre-gyp under lib/binding/napi-v3; its binding.gyp
# takes the names node-pre-gyp would pass, and copies the module there itself (a relative path
# would be taken from build/)
say "building argon2"
argon2="$staging/node_modules/argon2"
gyp_rebuild "$argon2" --module_name=argon2 --module_path="$argon2/lib/binding/napi-v3" --napi_build_version=3

vscode="$staging/node_modules/code-server/lib/vscode"
say "npm install VS Code's own dependencies (scripts off)"
(cd "$vscode" && npm install --omit=dev "${npm_quiet[@]}" >&2)
# the modules npm would build with node-gyp; the Windows-only ones and @parcel/watcher (which
# ships a prebuilt package per platform) are left alone
for module in kerberos @vscode/spdlog native-watchdog node-pty @vscode/deviceid; do
  say "building $module"
  gyp_rebuild "$vscode/node_modules/$module"
done
# @vscode/ripgrep's postinstall downloads rg from GitHub: give it the system's
mkdir -p "$vscode/node_modules/@vscode/ripgrep/bin"
ln -sfn "$(command -v rg)" "$vscode/node_modules/@vscode/ripgrep/bin/rg"

# the links code-server's postinstall makes
ln -sfn node_modules "$vscode/node_modules.asar"
ln -sfn code-linux.sh "$vscode/bin/remote-cli/code-server"
ln -sfn browser-linux.sh "$vscode/bin/helpers/browser.sh"
say "npm install the built-in extensions' shared dependencies (scripts off)"
(cd "$vscode/extensions" && npm install --omit=dev "${npm_quiet[@]}" >&2)

# every native module loads, and the server answers --version, before the cache is trusted
(cd "$vscode" && node -e '
  for (const m of ["kerberos", "@vscode/spdlog", "native-watchdog", "node-pty", "@vscode/deviceid"]) require(m);
') || fail "a rebuilt native module does not load"
(cd "$staging" && node -e 'require("argon2")') || fail "argon2 does not load"
# (a throwaway config dir: code-server writes a default config.yaml on every start)
scratch_config=$(mktemp -d)
version=$(XDG_CONFIG_HOME="$scratch_config" node "$staging/node_modules/code-server/out/node/entry.js" --version \
  2>/dev/null | grep -E '^[0-9]+\.[0-9]+\.[0-9]+' | head -n 1 || true)
rm -rf "$scratch_config"
case "$version" in
  "$CODE_SERVER_VERSION"*) ;;
  *) fail "code-server --version answered '$version', expected $CODE_SERVER_VERSION" ;;
esac

rm -rf "$dest"
mv "$staging" "$dest"
touch "$dest/.installed"
say "code-server $CODE_SERVER_VERSION installed in $((SECONDS - started)) s"
echo "$program"
