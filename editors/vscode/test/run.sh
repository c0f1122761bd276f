#!/usr/bin/env bash
# The VS Code extension's whole test: build, unit tests, the platform-specific .vsix that carries
# the server (scripts/vsix.sh, the README's one command), and an end-to-end run in a real VS Code
# (code-server 4.100.3 = VS Code 1.100.3) where that .vsix is installed and no rewind-lsp is on
# PATH, with the bundled rewind-lsp, driven through Debian's Chromium by playwright-core. Idempotent on a fresh Debian 12 machine (run as root, or
# with sudo for apt). Tools are cached outside the clone; nothing is written inside it but the
# extension's own node_modules/, out/ and dist/ (ignored by git).
#
# env: ARTIFACTS_DIR   screenshots (vscode-*.png) and logs (vscode-logs/) (default /tmp/rewind-artifacts)
#      REWIND_E2E_CACHE npm tools cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/rewind-lsp-e2e)
#      E2E=0            unit tests and packaging only
#      KEEP=1           keep the scratch folder (workspace, store, code-server dirs)
# The last line printed is "N passed, N failed"; the exit status is non-zero on any failure.
set -euo pipefail
TEST="$(cd "$(dirname "$0")" && pwd)"
EXT="$(cd "$TEST/.." && pwd)"
REPO="$(cd "$EXT/../.." && pwd)"
CACHE="${REWIND_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind-lsp-e2e}"
export ARTIFACTS_DIR="${ARTIFACTS_DIR:-/tmp/rewind-artifacts}"
mkdir -p "$CACHE" "$ARTIFACTS_DIR"
WORK="$(mktemp -d "/tmp/rwvsc.XXXXXX")"
export DEBIAN_FRONTEND=noninteractive
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 ))s] $*"; }
pass=0 fail=0
failed() { fail=$((fail + 1)); echo "FAIL - $*"; }
finish() {
  [ "${KEEP:-0}" = 1 ] && echo "scratch kept in $WORK" || rm -rf "$WORK"
  step "done (artifacts in $ARTIFACTS_DIR)"
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ] && [ "$pass" -gt 0 ]
}
die() { failed "$*"; finish; exit 1; }

# 1) Debian packages: Chromium, and what code-server's npm install builds native modules with.
PKGS=(chromium ripgrep build-essential pkg-config python3 libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev curl)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  step "apt-get install ${missing[*]}"
  SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo -n)
  "${SUDO[@]}" apt-get update -qq >/dev/null
  "${SUDO[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null || die "apt-get install ${missing[*]}"
fi
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"

# 2) Pinned npm tools (code-server, playwright-core, vsce) from test/e2e/package-lock.json, in a
#    cache folder keyed by the lock's hash.
KEY=$(cat "$TEST/e2e/package.json" "$TEST/e2e/package-lock.json" | sha256sum | cut -c1-16)
TOOLS="$CACHE/tools-$KEY"
if [ ! -f "$TOOLS/.ok" ]; then
  step "npm ci e2e tools into $TOOLS (code-server builds native modules; a few minutes)"
  rm -rf "$TOOLS"; mkdir -p "$TOOLS/tmp/vscode-ripgrep-cache-1.15.11"
  # @vscode/ripgrep's postinstall downloads rg from GitHub: pre-seed its cache with Debian's rg.
  tar czf "$TOOLS/tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C /usr/bin rg
  cp "$TEST/e2e/package.json" "$TEST/e2e/package-lock.json" "$TOOLS/"
  if ! (cd "$TOOLS" && TMPDIR="$TOOLS/tmp" npm_config_yes=true npm_config_unsafe_perm=true \
        npm ci --foreground-scripts --no-audit --no-fund > "$TOOLS/npm-ci.log" 2>&1); then
    tail -40 "$TOOLS/npm-ci.log"; die "npm ci of the e2e tools"
  fi
  touch "$TOOLS/.ok"
fi
export PATH="$TOOLS/node_modules/.bin:$PATH"

# 3) The extension: dependencies, unit tests, package (vscode:prepublish typechecks and bundles).
cd "$EXT"
LOCKSUM=$(sha256sum package-lock.json | cut -c1-16)
if [ "$(cat node_modules/.lock-sum 2>/dev/null)" != "$LOCKSUM" ]; then
  step "npm ci (extension)"
  npm ci --no-audit --no-fund > "$WORK/npm-ci.log" 2>&1 || { tail -30 "$WORK/npm-ci.log"; die "npm ci of the extension"; }
  echo "$LOCKSUM" > node_modules/.lock-sum
fi
step "unit tests"
if npm test > "$WORK/unit.log" 2>&1; then rc=0; else rc=$?; fi
grep -E '^not ok|^# (tests|pass|fail)' "$WORK/unit.log" || true
up=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$WORK/unit.log" | tail -1); uf=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$WORK/unit.log" | tail -1)
pass=$((pass + ${up:-0})); fail=$((fail + ${uf:-0}))
if [ "$rc" != 0 ] && [ "${uf:-0}" = 0 ]; then tail -30 "$WORK/unit.log"; failed "unit tests exited $rc"; fi
step "scripts/vsix.sh (linux-x64 .vsix with the server built from this tree)"
VSIX="$WORK/rewind-lsp-linux-x64.vsix"
if bash "$REPO/scripts/vsix.sh" "$VSIX" > "$WORK/vsix.log" 2>&1; then
  mode=$(unzip -Z "$VSIX" extension/server/linux-x64/rewind-lsp 2>/dev/null | awk '{print $1}')
  if [[ "$mode" == -rwx* ]]; then
    pass=$((pass + 1)); echo "ok   - .vsix for linux-x64: $(du -k "$VSIX" | cut -f1) KB, carries an executable extension/server/linux-x64/rewind-lsp"
  else
    failed ".vsix lacks an executable extension/server/linux-x64/rewind-lsp (mode ${mode:-none})"
  fi
  grep -q '"targetPlatform": *"linux-x64"\|TargetPlatform="linux-x64"' <(unzip -p "$VSIX" extension.vsixmanifest) &&
    { pass=$((pass + 1)); echo "ok   - .vsix manifest targets linux-x64"; } || failed ".vsix manifest does not target linux-x64"
else
  tail -30 "$WORK/vsix.log"; die "scripts/vsix.sh"
fi
[ "${E2E:-1}" = 0 ] && { finish; exit $?; }

# 4) The command line for making the workspace: the very binary the .vsix carries, kept off PATH.
mkdir -p "$WORK/bin"
cp "$EXT/server/linux-x64/rewind-lsp" "$WORK/bin/rewind-lsp"

# 5) A workspace with two agent turns, made with the command line.
step "workspace with two agent turns"
bash "$TEST/e2e/make-workspace.sh" "$WORK/bin/rewind-lsp" "$WORK/ws" "$WORK/store" "$WORK/expect" > "$WORK/make-workspace.log" 2>&1 ||
  { cat "$WORK/make-workspace.log"; die "make-workspace.sh"; }

# 6) VS Code end to end.
step "code-server + chromium end to end"
rm -rf "$ARTIFACTS_DIR"/vscode-*.png "$ARTIFACTS_DIR/vscode-logs"
if CODE_SERVER="$TOOLS/node_modules/.bin/code-server" VSIX="$VSIX" LSP_BIN="$WORK/bin/rewind-lsp" RUN_DIR="$WORK" \
   EXT_VERSION="$(node -p "require('$EXT/package.json').version")" \
   WS="$WORK/ws" STORE="$WORK/store" EXPECT="$WORK/expect" TOOLS_NODE_MODULES="$TOOLS/node_modules" \
   bash "$TEST/e2e/run-vscode.sh" > "$WORK/e2e.log" 2>&1; then rc=0; else rc=$?; fi
cat "$WORK/e2e.log"
mkdir -p "$ARTIFACTS_DIR/vscode-logs"
cp "$WORK/e2e.log" "$WORK/cs/code-server.log" "$WORK/cs/events.jsonl" "$WORK/cs/page-console.log" "$WORK/cs/page-errors.log" "$ARTIFACTS_DIR/vscode-logs/" 2>/dev/null || true
find "$WORK/cs/user-data/logs" \( -name '*Rewind*' -o -name 'remoteexthost.log' \) -exec cp {} "$ARTIFACTS_DIR/vscode-logs/" \; 2>/dev/null || true
ep=$(sed -n 's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p' "$WORK/e2e.log"); ef=$(sed -n 's/^e2e: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p' "$WORK/e2e.log")
pass=$((pass + ${ep:-0})); fail=$((fail + ${ef:-0}))
if [ "$rc" != 0 ] && [ "${ef:-0}" = 0 ]; then failed "e2e exited $rc without reporting a failure"; fi
finish
