#!/usr/bin/env bash
# Builds the VS Code extension as a platform-specific .vsix for linux-x64 that carries the
# rewind-lsp server built from this tree, so VS Code needs neither Go nor rewind-lsp on PATH:
#
#   scripts/vsix.sh [OUT.vsix]     (default: editors/vscode/rewind-lsp-linux-x64-<version>.vsix)
#
# Needs Go 1.26+ and Node 20 with npm (the extension's devDependencies, @vscode/vsce among them,
# come from its package-lock.json). The server is a static linux/amd64 binary stamped with the
# extension's version (`rewind-lsp version` says it); it goes to
# editors/vscode/server/linux-x64/rewind-lsp, which the extension runs unless rewind.serverPath
# is set. Prints the path of the .vsix on its last line.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
EXT="$REPO/editors/vscode"
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
VERSION="$(node -p "require('$EXT/package.json').version")"
OUT="${1:-$EXT/rewind-lsp-linux-x64-$VERSION.vsix}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac

echo "vsix: go build rewind-lsp $VERSION for linux/amd64" >&2
rm -rf "$EXT/server"
mkdir -p "$EXT/server/linux-x64"
(cd "$REPO" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -trimpath \
  -ldflags "-s -w -X github.com/rewind-lsp/rewind-lsp/lsp.Version=$VERSION" \
  -o "$EXT/server/linux-x64/rewind-lsp" ./cmd/rewind-lsp)

cd "$EXT"
# npm ci only when the lock changed since the last install (the same stamp test/run.sh uses).
LOCKSUM=$(sha256sum package-lock.json | cut -c1-16)
if [ "$(cat node_modules/.lock-sum 2>/dev/null)" != "$LOCKSUM" ]; then
  echo "vsix: npm ci" >&2
  npm ci --no-audit --no-fund >&2
  echo "$LOCKSUM" >node_modules/.lock-sum
fi
echo "vsix: vsce package --target linux-x64" >&2
# vscode:prepublish typechecks and bundles dist/extension.js.
npx --no-install vsce package --target linux-x64 --no-dependencies --skip-license \
  --allow-missing-repository -o "$OUT" >&2
echo "$OUT"
