#!/usr/bin/env bash
# Soak: thousands of agent turns against one running rewind-lsp server.
#
# Commits a copy of $(go env GOROOT)/src (~11.5k files; or -tree DIR) into a
# fresh git repository in a temporary folder, records a first checkpoint of
# it from the command line (its store size sets the budget: that + 25%,
# or -budget), starts the server with that lowered store budget
# (maxStoreBytes) and runs TestSoak in bench/soak (testkit's VS Code-like
# editor drives the server). Every step, drawn from -seed:
#   - a turn of one of: the editor's chat (rewind.turnStart/turnEnd), a
#     Claude Code session (`rewind-lsp hook claude-code`, its transcript
#     written as Claude Code does), a shell session (`turn start|end
#     --session`), Codex and Gemini CLI sessions (their hooks), changes with
#     no turn open (an automatic turn), or two sessions at once; inside
#     Claude Code's turns, MCP checkpoints and rewinds (`rewind-lsp mcp`);
#   - sometimes the person typing and saving in the editor between turns;
#   - sometimes a rewind (over LSP or from the command line), an undo, a
#     revert of one turn, or a conversation rewind of the Claude Code
#     session (whose fork it then continues).
# Every rewind, undo and revert is checked against the state the driver
# recorded for its target (the files it changes byte for byte, all others
# by their stat, nothing missing or extra), every turn's changed files
# against what changed, every refusal against the person's saves. It
# prints per thousand turns (-every) the turn-end p50/p99, the server's
# memory and the store's size; memory at turn 1,000 and at the end; the
# store against its budget; fsck with the server running and after it
# stopped; and every broken promise. Exit 1 when one broke.
#
# Retention leaves objects younger than its grace alone; the soak sets
# REWIND_LSP_GC_GRACE=60 (one minute) so the lowered budget works within
# the run.
#
# usage: bench/soak.sh [-turns N] [-every N] [-seed S] [-budget BYTES] [-tree DIR]
#                      [-pool N] [-short] [-leave PARTS] [-debug] [-keep]
#   -short     the version scripts/test.sh runs: 300 turns on GOROOT/src/net,
#              a row per 100 turns (a few minutes)
#   -leave     parts of the mix to leave out (comma-separated): mcp-rewind,
#              auto, fork, person, revert, codex, gemini
#   -debug     check the whole tree after every turn (slower); soak.log
#              (kept with -keep) has every change, turn and operation anyway
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
turns=10000 every=1000 seed=1 budget=0 tree_src="" pool=300 keep=0 leave="" short=0 debug=false
while [ $# -gt 0 ]; do
	case $1 in
	-turns | --turns) turns=$2; shift 2 ;;
	-every | --every) every=$2; shift 2 ;;
	-seed | --seed) seed=$2; shift 2 ;;
	-budget | --budget) budget=$2; shift 2 ;;
	-tree | --tree) tree_src=$2; shift 2 ;;
	-pool | --pool) pool=$2; shift 2 ;;
	-leave | --leave) leave=$2; shift 2 ;;
	-short | --short) short=1; shift ;;
	-keep | --keep) keep=1; shift ;;
	-debug | --debug) debug=true; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "soak.sh: unknown argument $1 (try -h)" >&2; exit 2 ;;
	esac
done
repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in git go tar; do
	command -v "$tool" >/dev/null || { echo "soak.sh: $tool is required" >&2; exit 1; }
done

BENCH_NAME=soak.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp soak

real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
gohome=(env HOME="${real_home:-$HOME}")
goroot=$("${gohome[@]}" go env GOROOT)
if [ "$short" = 1 ]; then
	turns=300 every=100 pool=100
	[ -n "$tree_src" ] || tree_src="$goroot/src/net"
fi
[ -n "$tree_src" ] || tree_src="$goroot/src"
tree_src=$(cd "$tree_src" && pwd)

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 REWIND_LSP_GC_GRACE=60
mkdir -p "$HOME"
unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE REWIND_LSP_HOME XDG_STATE_HOME || true
G=(git -c user.name=rewind-soak -c user.email=soak@rewind-lsp.invalid -c gc.auto=0 -c maintenance.auto=false)

# load is uptime's line (a fresh Debian machine may lack procps: the
# kernel's load averages then).
load() { uptime 2>/dev/null || echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }

say "soak: building the driver …"
(cd "$repo" && "${gohome[@]}" go test -c -o "$TMP/soak.test" ./bench/soak) || { say "soak.sh: building bench/soak failed"; exit 1; }
say "soak: copying $tree_src and committing it into a fresh git repository …"
TREE="$TMP/tree"
build_tree "$TREE" "$tree_src"
files=$("${G[@]}" -C "$TREE" ls-files | wc -l)
mkdir -p "$TMP/run"
load_before=$(load)
say "soak: $turns turns on $files files (log: $TMP/run/soak.log) …"
status=0
(cd "$repo/bench/soak" && "$TMP/soak.test" -test.run '^TestSoak$' -test.timeout 0 \
	-soak.root "$TREE" -soak.home "$TMP/run" -soak.turns "$turns" -soak.every "$every" -soak.seed "$seed" \
	-soak.budget "$budget" -soak.pool "$pool" -soak.leave "$leave" -soak.debug="$debug") >"$TMP/run/out" 2>&1 || status=$?
load_after=$(load)
{
	echo
	echo "command:  bench/soak.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}"
	echo "tree:     copy of $tree_src, $files files, fresh git repository"
	echo "machine:  $(nproc) cores, $(uname -sr), $("${gohome[@]}" go version | cut -d' ' -f3); REWIND_LSP_GC_GRACE=60"
	echo "uptime:   before: $load_before"
	echo "          after:  $load_after"
	sed -n '/^rewind-lsp soak/,$p' "$TMP/run/out"
}
if [ "$status" != 0 ]; then
	grep -v '^rewind-lsp soak' "$TMP/run/out" | grep -E '^(--- FAIL|\s+soak_test|panic)' | head -20 >&2 || true
	[ "$keep" = 1 ] || say "soak.sh: failed (run with -keep to keep $TMP)"
fi
exit "$status"
