#!/usr/bin/env bash
# Builds a release of rewind-lsp into DIR from the committed tree:
#
#   scripts/release.sh DIR
#
# DIR receives, for linux/amd64, linux/arm64, darwin/amd64, darwin/arm64 and windows/amd64:
#   rewind-lsp_<version>_<os>_<arch>.tar.gz   (.zip for Windows): the binary and README.md
#   rewind-lsp-<vscode target>-<version>.vsix  the VS Code extension carrying that binary
# and SHA256SUMS over all of them. <version> is the extension's (editors/vscode/package.json);
# `rewind-lsp version` prints it with the commit. The tree must be clean (no uncommitted
# change), and the build runs in a fresh clone of HEAD, so nothing that is not committed (an
# ignored build output, a local node_modules) gets in. Archives are reproducible: the files
# have the commit's time and no owner. Needs Go 1.26+, git, Node 20 with npm, zip.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
[ $# -eq 1 ] || { echo "usage: scripts/release.sh DIR" >&2; exit 2; }
mkdir -p "$1"
OUT="$(cd "$1" && pwd)"
command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"

if [ -n "$(git -C "$REPO" status --porcelain)" ]; then
  echo "release: $REPO has uncommitted changes (git status): a release is built from a clean tree" >&2
  exit 1
fi
COMMIT=$(git -C "$REPO" rev-parse HEAD)
STAMP=$(git -C "$REPO" log -1 --format=%ct HEAD)
VERSION="$(node -p "require('$REPO/editors/vscode/package.json').version")"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rewind-release.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
git clone --quiet --shared "$REPO" "$WORK/src"
SRC=$WORK/src
# The extension's packages: reuse the main tree's install when its lock is the same.
if [ "$(cat "$REPO/editors/vscode/node_modules/.lock-sum" 2>/dev/null)" = \
     "$(sha256sum "$SRC/editors/vscode/package-lock.json" | cut -c1-16)" ]; then
  cp -a "$REPO/editors/vscode/node_modules" "$SRC/editors/vscode/node_modules"
fi

echo "release: rewind-lsp $VERSION (commit ${COMMIT:0:12}) into $OUT" >&2
artifacts=()
for t in linux/amd64/linux-x64 linux/arm64/linux-arm64 darwin/amd64/darwin-x64 \
         darwin/arm64/darwin-arm64 windows/amd64/win32-x64; do
  IFS=/ read -r goos goarch target <<<"$t"
  name=rewind-lsp_${VERSION}_${goos}_${goarch}
  exe=rewind-lsp; [ "$goos" = windows ] && exe=rewind-lsp.exe
  dir=$WORK/$name
  mkdir -p "$dir"
  echo "release: go build $goos/$goarch" >&2
  (cd "$SRC" && CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "-s -w -X github.com/rewind-lsp/rewind-lsp/lsp.Version=$VERSION -X github.com/rewind-lsp/rewind-lsp/lsp.Commit=$COMMIT" \
    -o "$dir/$exe" ./cmd/rewind-lsp)
  cp "$SRC/README.md" "$dir/README.md"
  chmod 755 "$dir/$exe"; chmod 644 "$dir/README.md"
  touch -d "@$STAMP" "$dir/$exe" "$dir/README.md"
  if [ "$goos" = windows ]; then
    rm -f "$OUT/$name.zip"
    (cd "$dir" && zip -q -X "$OUT/$name.zip" "$exe" README.md)
    artifacts+=("$name.zip")
  else
    tar -C "$dir" --owner=0 --group=0 --numeric-owner --mtime="@$STAMP" --sort=name \
      -cf - "$exe" README.md | gzip -n -9 >"$OUT/$name.tar.gz"
    artifacts+=("$name.tar.gz")
  fi
  vsix=rewind-lsp-$target-$VERSION.vsix
  echo "release: $vsix" >&2
  "$SRC/scripts/vsix.sh" --target "$target" --server "$dir/$exe" "$OUT/$vsix" >"$WORK/vsix.log" 2>&1 ||
    { cat "$WORK/vsix.log" >&2; exit 1; }
  artifacts+=("$vsix")
done
(cd "$OUT" && sha256sum "${artifacts[@]}" >SHA256SUMS)
ls -l "$OUT" >&2
echo "$OUT"
