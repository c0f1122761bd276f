#!/usr/bin/env bash
# The pi extension's own tests: TypeScript checks index.ts (strict) and builds it, then Node's test
# runner drives the built extension as pi and oh-my-pi would — its events, its dialogs, its /rewind
# command — against a stand-in rewind-lsp that records what it was asked (extension.test.mjs).
# The compiler is pinned (package-lock.json) and cached outside the clone, keyed by the lock's hash.
#
# env: REWIND_E2E_CACHE  npm tools cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/rewind-lsp-e2e)
set -euo pipefail
TEST="$(cd "$(dirname "$0")" && pwd)"
EXT="$(cd "$TEST/.." && pwd)"
CACHE="${REWIND_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind-lsp-e2e}"
KEY=$(cat "$TEST/package.json" "$TEST/package-lock.json" | sha256sum | cut -c1-16)
TOOLS="$CACHE/pi-extension-$KEY"
if [ ! -f "$TOOLS/.ok" ]; then
  rm -rf "$TOOLS"; mkdir -p "$TOOLS"
  cp "$TEST/package.json" "$TEST/package-lock.json" "$TOOLS/"
  (cd "$TOOLS" && npm ci --no-audit --no-fund --loglevel=error >/dev/null) || { echo "npm ci of the extension's test tools failed"; exit 1; }
  touch "$TOOLS/.ok"
fi
WORK="$(mktemp -d /tmp/rwpiext.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
# ES modules, as pi loads the extension; strict, with Node's types.
"$TOOLS/node_modules/.bin/tsc" --strict --target es2022 --module es2022 --moduleResolution bundler \
  --typeRoots "$TOOLS/node_modules/@types" --types node --skipLibCheck \
  --outDir "$WORK" "$EXT/index.ts"
echo '{"type":"module"}' > "$WORK/package.json"
# oh-my-pi's copy, as `setup omp` writes it.
sed 's/^const AGENT = "pi";$/const AGENT = "omp";/' "$WORK/index.js" > "$WORK/omp.js"
grep -q '^const AGENT = "omp";$' "$WORK/omp.js" || { echo "the built extension has no AGENT line to set"; exit 1; }
REWIND_LSP_PI_EXTENSION="$WORK/index.js" REWIND_LSP_OMP_EXTENSION="$WORK/omp.js" node --test "$TEST/extension.test.mjs"
