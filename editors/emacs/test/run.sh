#!/usr/bin/env bash
# Emacs suites: real Emacs (Debian emacs-nox 28) with eglot (elpa-eglot) and with lsp-mode
# (elpa-lsp-mode), each configured by the snippet lsp/README.md documents, against the real
# rewind-lsp. Idempotent; called by scripts/test.sh.
#
#   editors/emacs/test/run.sh [eglot|lsp-mode]...
#
# Per client: a fresh workspace with one agent turn made through the command line, then the
# suite drives a preview, a hunk revert, a rewind and an undo, and checks files byte for byte;
# then, in a second folder it makes itself, it reports a turn of two Edit calls over LSP
# (rewind.toolCall), hovers step 1's line, reverts step 1 alone through its code action and
# undoes that.
# The last line is "N passed, N failed[, N skipped]"; the exit status is non-zero on a failure.
#
# env: REWIND_LSP_BIN (test this server binary instead of building one),
#      ARTIFACTS_DIR (Emacs's stderr; default /tmp/rewind-artifacts).
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
ART="${ARTIFACTS_DIR:-/tmp/rewind-artifacts}"
mkdir -p "$ART"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/rewind-emacs-test.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
SUITES=("$@")
[ ${#SUITES[@]} -gt 0 ] || SUITES=(eglot lsp-mode)

PASSED=0 FAILED=0 SKIPPED=0
T0=$(date +%s)
step() { echo "== [$(($(date +%s) - T0))s] $*"; }
bad() { FAILED=$((FAILED + 1)); echo "FAIL - $*"; }
summary() {
  local s="$PASSED passed, $FAILED failed"
  [ "$SKIPPED" -gt 0 ] && s="$s, $SKIPPED skipped"
  echo "$s"
}
die() { bad "$*"; summary; exit 1; }

# 1. Debian packages (Emacs 28 has no eglot of its own: elpa-eglot).
missing=()
for p in emacs-nox elpa-eglot elpa-lsp-mode elpa-markdown-mode; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  step "apt-get install ${missing[*]}"
  SUDO=(); [ "$(id -u)" = 0 ] || SUDO=(sudo -n)
  export DEBIAN_FRONTEND=noninteractive
  APT=(-o DPkg::Lock::Timeout=300 -qq)
  if ! "${SUDO[@]}" apt-get "${APT[@]}" install -y --no-install-recommends "${missing[@]}" >"$WORK/apt.log" 2>&1; then
    "${SUDO[@]}" apt-get "${APT[@]}" update >/dev/null
    "${SUDO[@]}" apt-get "${APT[@]}" install -y --no-install-recommends "${missing[@]}" >"$WORK/apt.log" 2>&1 ||
      { tail -20 "$WORK/apt.log"; die "apt-get install ${missing[*]}"; }
  fi
fi
command -v emacs >/dev/null || die "no emacs after installing emacs-nox"

# 2. The server under test, named rewind-lsp in a folder the suites put on PATH (the
#    documented snippets run "rewind-lsp").
mkdir -p "$WORK/bin"
if [ -n "${REWIND_LSP_BIN:-}" ]; then
  ln -s "$REWIND_LSP_BIN" "$WORK/bin/rewind-lsp"
  step "server: $REWIND_LSP_BIN (REWIND_LSP_BIN)"
else
  step "go build ./cmd/rewind-lsp"
  command -v go >/dev/null || export PATH="/usr/local/go/bin:$PATH"
  (cd "$REPO" && go build -o "$WORK/bin/rewind-lsp" ./cmd/rewind-lsp) >"$WORK/build.log" 2>&1 ||
    { cat "$WORK/build.log"; die "go build ./cmd/rewind-lsp"; }
fi
BIN="$WORK/bin/rewind-lsp"

# 3. The suites, each in a fresh HOME, store and workspace.
for suite in "${SUITES[@]}"; do
  case "$suite" in eglot | lsp-mode) ;; *) die "unknown suite $suite (eglot, lsp-mode)" ;; esac
  step "Emacs $(emacs --version | head -1 | awk '{print $3}') with $suite"
  home="$WORK/home-$suite"
  mkdir -p "$home"/{tmp,state}
  export REWIND_LSP_HOME="$home/state/rewind-lsp"
  if ! bash "$HERE/make-workspace.sh" "$BIN" "$WORK/ws-$suite" "$WORK/expect-$suite" >"$WORK/ws-$suite.log" 2>&1; then
    cat "$WORK/ws-$suite.log"
    bad "[$suite] making the workspace with the CLI"
    continue
  fi
  log="$ART/emacs-$suite.stderr.log"
  out="$(cd "$WORK/ws-$suite" && env HOME="$home" TMPDIR="$home/tmp" XDG_CONFIG_HOME="$home/config" \
    XDG_CACHE_HOME="$home/cache" XDG_DATA_HOME="$home/data" XDG_STATE_HOME="$home/state" \
    REWIND_LSP_HOME="$REWIND_LSP_HOME" REWIND_TEST_WS="$WORK/ws-$suite" REWIND_TEST_EXPECT="$WORK/expect-$suite" \
    REWIND_TEST_BIN="$BIN" REWIND_TEST_README="$REPO/lsp/README.md" \
    timeout 300 emacs --batch -Q -l "$HERE/$suite-test.el" </dev/null 2>"$log")"
  rc=$?
  echo "$out" | sed "s/^/[$suite] /"
  p=$(echo "$out" | grep -c '^ok   - ')
  f=$(echo "$out" | grep -c '^FAIL - ')
  k=$(echo "$out" | grep -c '^skip - ')
  PASSED=$((PASSED + p)) FAILED=$((FAILED + f)) SKIPPED=$((SKIPPED + k))
  if ! echo "$out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'; then
    bad "[$suite] the suite did not finish (exit $rc); Emacs's stderr in $log"
    tail -15 "$log" | sed 's/^/      /'
  elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    bad "[$suite] exited $rc without a failed check"
  fi
done

step "done"
summary
[ "$FAILED" = 0 ]
