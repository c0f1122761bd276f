#!/usr/bin/env bash
# Builds the VS Code extension as a platform-specific .vsix that carries the rewind-lsp server
# built from this tree, so VS Code needs neither Go nor rewind-lsp on PATH:
#
#   scripts/vsix.sh [--target T] [--server BIN] [OUT.vsix]
#
#   --target T    linux-x64 (default), linux-arm64, darwin-x64, darwin-arm64 or win32-x64
#   --server BIN  carry this rewind-lsp binary (built for T) instead of building one
#   OUT.vsix      default: editors/vscode/rewind-lsp-<T>-<version>.vsix
#
# Needs Go 1.26+ and Node 20 with npm (the extension's devDependencies, @vscode/vsce among them,
# come from its package-lock.json). The server is a static binary for T stamped with the
# extension's version (`rewind-lsp version` says it); it goes to
# editors/vscode/server/<T>/rewind-lsp (rewind-lsp.exe for Windows), which the extension runs
# unless rewind.serverPath is set. Prints the path of the .vsix on its last line.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
EXT="$REPO/editors/vscode"
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"

TARGET=linux-x64 SERVER="" OUT=""
while [ $# -gt 0 ]; do
  case $1 in
  --target) TARGET=$2; shift 2 ;;
  --server) SERVER=$2; shift 2 ;;
  -*) echo "vsix: unknown option $1" >&2; exit 2 ;;
  *) OUT=$1; shift ;;
  esac
done
# The VS Code target names the folder the extension looks in (server/<platform>-<arch>).
case $TARGET in
linux-x64) GOOS=linux GOARCH=amd64 ;;
linux-arm64) GOOS=linux GOARCH=arm64 ;;
darwin-x64) GOOS=darwin GOARCH=amd64 ;;
darwin-arm64) GOOS=darwin GOARCH=arm64 ;;
win32-x64) GOOS=windows GOARCH=amd64 ;;
*) echo "vsix: unknown target $TARGET (linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64)" >&2; exit 2 ;;
esac
EXE=rewind-lsp; [ "$GOOS" = windows ] && EXE=rewind-lsp.exe

VERSION="$(node -p "require('$EXT/package.json').version")"
OUT="${OUT:-$EXT/rewind-lsp-$TARGET-$VERSION.vsix}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac

rm -rf "$EXT/server"
mkdir -p "$EXT/server/$TARGET"
if [ -n "$SERVER" ]; then
  cp "$SERVER" "$EXT/server/$TARGET/$EXE"
  chmod 755 "$EXT/server/$TARGET/$EXE"
else
  echo "vsix: go build rewind-lsp $VERSION for $GOOS/$GOARCH" >&2
  (cd "$REPO" && CGO_ENABLED=0 GOOS=$GOOS GOARCH=$GOARCH go build -trimpath \
    -ldflags "-s -w -X github.com/rewind-lsp/rewind-lsp/lsp.Version=$VERSION" \
    -o "$EXT/server/$TARGET/$EXE" ./cmd/rewind-lsp)
fi

cd "$EXT"
# npm ci only when the lock changed since the last install (the same stamp test/run.sh uses).
LOCKSUM=$(sha256sum package-lock.json | cut -c1-16)
if [ "$(cat node_modules/.lock-sum 2>/dev/null)" != "$LOCKSUM" ]; then
  echo "vsix: npm ci" >&2
  npm ci --no-audit --no-fund >&2
  echo "$LOCKSUM" >node_modules/.lock-sum
fi
echo "vsix: vsce package --target $TARGET" >&2
# vscode:prepublish typechecks and bundles dist/extension.js.
npx --no-install vsce package --target "$TARGET" --no-dependencies --skip-license \
  --allow-missing-repository -o "$OUT" >&2
echo "$OUT"
