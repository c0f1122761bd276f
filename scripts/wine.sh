#!/usr/bin/env bash
# Runs Go tests of rewind-lsp's Windows build under wine on a Debian machine:
#
#   scripts/wine.sh [go test flags] PKG...      e.g. scripts/wine.sh -run Lock ./osfile
#
# It installs Debian's wine64 and binutils-mingw-w64-x86-64 when missing, makes a
# cached WINEPREFIX holding a one-export bcryptprimitives.dll (ProcessPrng, which Go's
# runtime needs and wine 8.0 lacks, forwarded to advapi32.SystemFunction036), puts a
# go_windows_amd64_exec on PATH (so `GOOS=windows go test` runs each test binary with
# wine64) and keeps one persistent wineserver, so a test binary starts in ~0.1 s, not ~4 s.
# Everything is idempotent; the prefix lives in $REWIND_WINE_CACHE (default
# ~/.cache/rewind-lsp/wine). `scripts/wine.sh --setup` only prepares.
#
# Wine's background services inherit the output of the first wine process that starts
# them: they are started here with their output sent to files, never to go test's pipes.
set -euo pipefail
cd "$(dirname "$0")/.."

cache=${REWIND_WINE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/rewind-lsp/wine}
export WINEPREFIX=$cache/prefix WINEARCH=win64 WINEDEBUG=-all
# No Mono or Gecko installer prompts while the prefix is made.
export WINEDLLOVERRIDES="mscoree,mshtml="
wine=/usr/lib/wine/wine64
wineserver=/usr/lib/wine/wineserver64

need_apt() { # install Debian packages that are missing
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  echo "wine.sh: installing ${missing[*]}" >&2
  $sudo apt-get update -qq >/dev/null &&
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# dll builds the forwarder once into the cache.
dll() {
  local out=$cache/bcryptprimitives.dll
  [ -s "$out" ] && return 0
  local tmp; tmp=$(mktemp -d)
  cat >"$tmp/bcp.def" <<'EOF'
LIBRARY bcryptprimitives.dll
EXPORTS
ProcessPrng = advapi32.SystemFunction036
EOF
  x86_64-w64-mingw32-dlltool -d "$tmp/bcp.def" -e "$tmp/exports.o"
  # A DLL of one forwarded export needs no code and no entry point.
  x86_64-w64-mingw32-ld --dll -e 0 -o "$tmp/bcryptprimitives.dll" "$tmp/exports.o"
  mv "$tmp/bcryptprimitives.dll" "$out"
  rm -rf "$tmp"
}

# prefix makes the WINEPREFIX once (wineboot) and keeps a wineserver running.
prefix() {
  mkdir -p "$cache/bin" "$cache/log"
  if [ ! -f "$WINEPREFIX/system.reg" ] || [ ! -f "$cache/prefix.ok" ]; then
    echo "wine.sh: making the wine prefix $WINEPREFIX (once, ~10 s)" >&2
    "$wine" wineboot -i </dev/null >>"$cache/log/wineboot.log" 2>&1
    "$wineserver" -w
    touch "$cache/prefix.ok"
  fi
  # A persistent server (it exits 10 minutes after its last client): each test binary
  # then starts in ~0.1 s. A second start for the same prefix exits at once.
  "$wineserver" -p600 >>"$cache/log/wineserver.log" 2>&1 || true
  local sys32=$WINEPREFIX/drive_c/windows/system32
  cmp -s "$cache/bcryptprimitives.dll" "$sys32/bcryptprimitives.dll" ||
    cp "$cache/bcryptprimitives.dll" "$sys32/bcryptprimitives.dll"
  # Start wine's services now, with their output in a file: a test binary started
  # later finds them running and its pipes reach EOF when it exits.
  "$wine" cmd /c exit 0 </dev/null >>"$cache/log/services.log" 2>&1 || true
  cat >"$cache/bin/go_windows_amd64_exec" <<EOF
#!/bin/sh
# Runs a Windows test binary built by go test under wine (see scripts/wine.sh).
export WINEPREFIX='$WINEPREFIX' WINEARCH=win64 WINEDEBUG=-all WINEDLLOVERRIDES='mscoree,mshtml='
exec '$wine' "\$@"
EOF
  chmod +x "$cache/bin/go_windows_amd64_exec"
}

setup() {
  need_apt wine64 binutils-mingw-w64-x86-64
  mkdir -p "$cache"
  dll
  prefix
}

setup
[ "${1:-}" = "--setup" ] && exit 0
[ $# -gt 0 ] || { echo "usage: scripts/wine.sh [go test flags] PKG..." >&2; exit 2; }
# The wine tag lets testkit/wine switch Go's delete path to one wine has; it links to a
# runtime internal by name (go:linkname), which needs -checklinkname=0. The verbose output
# is cut down to what did not pass (skips with their reasons, failures with their output)
# and each package's result: no test is skipped silently.
# The tests that drive the real binary cannot build it inside wine: it is built here.
GOOS=windows GOARCH=amd64 CGO_ENABLED=0 go build -tags wine -ldflags=-checklinkname=0 -o "$cache/rewind-lsp.exe" ./cmd/rewind-lsp
export REWIND_LSP_TEST_BIN="Z:$cache/rewind-lsp.exe"
PATH=$cache/bin:$PATH GOOS=windows GOARCH=amd64 CGO_ENABLED=0 \
  go test -tags wine -ldflags=-checklinkname=0 -v "$@" 2>&1 | awk '
  /^=== (RUN|CONT|PAUSE|NAME) / { cur = $3; next }
  /^ *--- PASS: / { delete buf[$3]; next }
  /^ *--- (SKIP|FAIL): / { printf "%s", buf[$3]; delete buf[$3]; print; next }
  /^(ok|FAIL|PASS$|panic:|\?)/ { for (k in buf) printf "%s", buf[k]; delete buf; if ($0 != "PASS") print; next }
  { buf[cur] = buf[cur] $0 "\n" }'
exit "${PIPESTATUS[0]}"
