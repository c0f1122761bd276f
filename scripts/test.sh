#!/usr/bin/env bash
# Runs every test of rewind-lsp on a fresh Debian machine: installs what the
# tests need (idempotently), then Go checks and tests, brief fuzzing, a short soak, and the
# editor suites (real Neovim, real VS Code, real Emacs with eglot and lsp-mode). The last line is
# "N passed, N failed" over the suites.
set -uo pipefail
cd "$(dirname "$0")/.."


passed=0 failed=0 failures=()

suite() { # suite NAME COMMAND...
  local name=$1; shift
  echo "=== suite: $name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1)); echo "--- suite $name: ok ($((SECONDS - start))s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "--- suite $name: FAILED ($((SECONDS - start))s)"
  fi
}

need_apt() { # install Debian packages that are missing
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

install() {
  # tmux: the Go tests drive Claude Code's and Qwen Code's own interfaces in it (their Esc Esc rewind).
  need_apt git ca-certificates tmux || return 1
  command -v go >/dev/null || { echo "go is not installed"; return 1; }
  go mod download || return 1
  agents
}

# agents installs the real coding agents the Go tests drive (scripts/agents/install.sh, cached) and
# names their folder in REWIND_LSP_AGENTS, so their tests run and can never skip silently: if the
# install fails, the variable names a folder that does not exist and those tests fail.
agents() {
  command -v npm >/dev/null || need_apt npm || return 1
  local bin
  if bin=$(scripts/agents/install.sh); then
    export REWIND_LSP_AGENTS="$bin"
  else
    export REWIND_LSP_AGENTS=/nonexistent/rewind-lsp-agents-install-failed
    return 1
  fi
}

gochecks() {
  local bad
  bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
  [ -z "$bad" ] || { echo "gofmt would change: $bad"; return 1; }
  go vet ./...
}

# The real agents' tests alone (testkit/agents) take longer than go test's default 10 minutes.
gotests() { go test -count=1 -timeout 60m ./...; }

# targets builds the binary and vets every package for each release and
# arm64 target: macOS cannot run here, but its code must compile.
targets() {
  local t ok=0
  for t in linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64; do
    GOOS=${t%/*} GOARCH=${t#*/} CGO_ENABLED=0 go build -o /dev/null ./cmd/rewind-lsp &&
      GOOS=${t%/*} GOARCH=${t#*/} go vet ./... || { echo "target $t: failed"; ok=1; }
  done
  return $ok
}

# portable runs every test on the generic file-system path (rootfs without
# the Linux fast path: what macOS, Windows and the BSDs run), but the real
# agents' (testkit/agents, a quarter of an hour): what they check is the
# agents' hooks, plugins and sessions, which no file-system path changes, and
# the command line's and the language server's own tests run here whole.
portable() { go test -count=1 -timeout 60m -tags portable $(go list ./... | grep -v '/testkit/agents$'); }

# windows runs the Windows build's tests under wine (scripts/wine.sh prints
# every skip with its reason): the file layer, locks, store and journal
# whole; a workspace write to a file another program holds; the command
# line's rewind, undo, revert, fsck, gc and setup; the language server over
# stdio with the fake editors.
wine_cli='^(TestTurnLogDiffRewindUndo|TestConflictRefusedThenForced|TestForcedUndoIsUndoable|TestDamagedStore|TestDamagedJournalLine|TestDamagedObjectHealedByCapture|TestTornJournalTailSetAside|TestGCKeepsPinnedAndDropsTheRest|TestExitCodesAndErrors|TestTargetErrorsAreClear|TestOneVersion|TestStatusJSON|TestRevertAndBlameCommandLine|TestSetupClaudeCode|TestSetupClaudeCodeUser|TestUnknownPathsAreErrors|TestOutputNamesKindsAndCounts|TestStoreFromBeforePacks|TestCaseOnlyRenameRewound)$'
wine_lsp='^(TestTwoTurnSession|TestUTF8Rewind|TestDirtyBufferConflict|TestStaleVersion|TestBinaryBadInputAndExit|TestBinaryExitWithoutShutdown|TestBinaryStrictJSONRPC|TestMultiRoot|TestRootURIFallback|TestEchoesAreNotTurns|TestInitializeGolden|TestLifecycleErrors|TestHistoryContentAndCodeActions|TestRevertTurnInEditor|TestCancelRequest|TestProgress)$'
windows() {
  scripts/wine.sh ./osfile ./rootfs ./store ./journal &&
    scripts/wine.sh -run '^(TestWriteHeldFile|TestKindOfStatKeepsRecordedExec)$' ./snapshot &&
    scripts/wine.sh -run "$wine_cli" ./e2e &&
    scripts/wine.sh -run "$wine_lsp" ./lsp
}

# release builds a release from a clone of HEAD (release.sh wants a clean
# tree) and checks every artifact (TestRelease).
release() {
  local tmp ok=0
  tmp=$(mktemp -d)
  git clone -q --shared . "$tmp/src" &&
    "$tmp/src/scripts/release.sh" "$tmp/out" >/dev/null &&
    (cd "$tmp/src" && REWIND_RELEASE_DIR="$tmp/out" go test -count=1 -run '^TestRelease$' -v ./e2e | grep -E '^(--- |ok|FAIL|\s+release)') || ok=1
  rm -rf "$tmp"
  return $ok
}

# soak runs bench/soak.sh -short: 300 turns against one running server on a
# copy of GOROOT/src/net — hooks of three agents, automatic turns, rewinds,
# reverts, undos, MCP checkpoints and rewinds, the person's saves — and
# fails on any broken promise (bench/README.md, "soak.sh").
soak() { bench/soak.sh -short; }

fuzz() {
  local ok=0
  for spec in journal:FuzzJournal journal:FuzzResolve $(extra_fuzz); do
    local pkg=${spec%%:*} name=${spec#*:}
    # Go's fuzzer sometimes reports "context deadline exceeded" when its time runs out mid-run
    # without any failing input (none is written under testdata/fuzz): that run is tried again once.
    local try
    for try in 1 2; do
      if go test ./"$pkg"/ -run '^$' -fuzz "^${name}\$" -fuzztime "${FUZZTIME:-5s}" >/tmp/rewind-fuzz.log 2>&1; then
        break
      fi
      if [ "$try" = 1 ] && grep -q 'context deadline exceeded' /tmp/rewind-fuzz.log && ! grep -q 'Failing input written' /tmp/rewind-fuzz.log; then
        echo "fuzz $pkg $name: the fuzzer's deadline hiccup (no failing input); trying again"
        continue
      fi
      cat /tmp/rewind-fuzz.log; ok=1; break
    done
  done
  return $ok
}

# extra_fuzz lists the other packages' fuzz targets as pkg:Name.
extra_fuzz() {
  grep -l '^func Fuzz' */*_test.go 2>/dev/null | while read -r f; do
    grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | sed "s#^func #$(dirname "$f"):#"
  done | grep -v -e '^journal:'
}

suite install install
suite "gofmt and go vet" gochecks
suite "go test" gotests
suite "build and vet: linux, darwin, windows x amd64, arm64" targets
suite "go test -tags portable (the generic file-system path)" portable
suite "windows under wine" windows
suite "release" release
suite fuzz fuzz
suite "bench/soak.sh -short" soak
for s in editors/neovim/test/run.sh editors/vscode/test/run.sh; do
  [ -f "$s" ] && suite "$s" bash "$s"
done
# Emacs (eglot, lsp-mode).
suite editors/emacs/test/run.sh bash editors/emacs/test/run.sh
# The pi and oh-my-pi extension's own tests (TypeScript strict, Node's test runner).
suite extensions/pi/test/run.sh bash extensions/pi/test/run.sh

echo
[ ${#failures[@]} -gt 0 ] && echo "failed suites: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
