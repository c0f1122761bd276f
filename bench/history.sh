#!/usr/bin/env bash
# History length: does what each call costs depend on how many turns the
# root has recorded?
#
# Builds, once, roots with 100, 1,000, 10,000 and 100,000 turns (or -turns)
# and measures the real binary on each:
#   - the real states: a root of 300 files (-files) in a git repository and
#     20 real turns (`rewind-lsp turn start|end`) that change 2-4 files each,
#     sometimes adding or deleting one: 21 distinct snapshots;
#   - per length, a journal written by bench/history with the product's own
#     journal writer (journal.Open, Lock, Append): hook turns of Claude Code
#     sessions (session entries, tool entries before and after each call,
#     turn ends with the files the session wrote), command-line turns (some
#     with --session), editor turns, automatic turns, labeled and agent
#     checkpoints (agent-N), rewinds (some with a report), reverts of the
#     latest turn and undos (each a pending entry, then a done entry), and
#     the notices a session's next prompt records after them. Every
#     snapshot is one of the 21 real states, so every rewind, revert and
#     undo target is a real one; the store holds their objects. Two real
#     turns end the history: the last recorded state is the disk's.
# Generated roots are cached in -cache (default
# ${TMPDIR:-/tmp}/rewind-lsp-history/<turns>: pristine/, the copy a run
# measures in run/, with its store in run/store), and reused until the
# flags or the generator change, or after 7 days (automatic retention drops
# snapshots last referenced 30 days ago; the history is dated up to about
# nine days back).
#
# Measured with the binary alone, per length, median of -n runs after one
# warm-up (a measure that took longer than -budget seconds stops at 3):
#   no server: `status`; `log --limit 20`; `turn start` + `turn end` (a
#     file changed between them); `hook claude-code` UserPromptSubmit + Stop
#     of one session (its transcript written between, a file changed);
#     `rewind N` of a turn that changed 10 files, then `undo`;
#   a language server on the root (initializationOptions rewindDidChange):
#     its start until rewind.status is no longer "starting"; the turn pair,
#     the hook pair, the rewind and undo above, forwarded over its socket;
#     rewind.list {limit: 50} over LSP; when the rewind/didChange of a turn
#     end arrives after the `turn end` process exited; the server's CPU per
#     turn end with its didChange (schedstat of its threads, until it is
#     quiet again); its VmRSS and VmHWM after the measures;
#   the store: the journal, the other files (not objects/), objects/.
# The table shows each length and the ratio of each to the shortest, and
# flags each against the goal: at most 1.2 times, or within 3 ms (memory:
# 1.2 times or 16 MB).
#
# usage: bench/history.sh [-turns LIST] [-n N] [-budget S] [-seed S] [-files N]
#                         [-bin PATH] [-cache DIR] [-regen] [-quick] [-keep]
#   -turns LIST  lengths, comma-separated (default 100,1000,10000,100000)
#   -n N         runs of each measure after its warm-up (default 7)
#   -budget S    a measure that took longer than S seconds stops after 3 runs (default 20)
#   -seed S      the seed of the files and of the histories (default 1)
#   -bin PATH    the rewind-lsp binary measured (default: ./cmd/rewind-lsp of
#                this checkout, built as scripts/release.sh builds it); the
#                real turns of a root being generated are made with it too
#   -cache DIR   where the generated roots are kept
#   -regen       generate the roots again
#   -one-session every agent turn of a history in one Claude Code session (the
#                default starts a new session about every 20 prompts; a long
#                session shows what reads a whole session)
#   -quick       a smoke test: -turns 100,1000 -n 3
#   -keep        keep the temporary folder (the results as JSON)
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
one_session="" lengths=100,1000,10000,100000 n=7 budget=20 seed=1 files=300 bin="" cache="" regen=0 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-turns | --turns) lengths=$2; shift 2 ;;
	-n | --n) n=$2; shift 2 ;;
	-budget | --budget) budget=$2; shift 2 ;;
	-seed | --seed) seed=$2; shift 2 ;;
	-files | --files) files=$2; shift 2 ;;
	-bin | --bin) bin=$2; shift 2 ;;
	-cache | --cache) cache=$2; shift 2 ;;
	-regen | --regen) regen=1; shift ;;
	-one-session | --one-session) one_session=-one-session; shift ;;
	-quick | --quick) lengths=100,1000 n=3; shift ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "history.sh: unknown argument $1 (try -h)" >&2; exit 2 ;;
	esac
done
IFS=, read -r -a turns_list <<<"$lengths"
for t in "${turns_list[@]}"; do
	[[ $t =~ ^[0-9]+$ ]] && [ "$t" -ge 3 ] || { echo "history.sh: -turns wants numbers of at least 3, comma-separated" >&2; exit 2; }
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "history.sh: -n wants a positive number" >&2; exit 2; }
[[ $budget =~ ^[1-9][0-9]*$ ]] || { echo "history.sh: -budget wants a positive number of seconds" >&2; exit 2; }
mapfile -t turns_list < <(printf '%s\n' "${turns_list[@]}" | sort -n -u)

repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in git go cp uptime; do
	command -v "$tool" >/dev/null || { echo "history.sh: $tool is required" >&2; exit 1; }
done
[ -r /proc/self/schedstat ] || { echo "history.sh: needs Linux /proc (schedstat, status)" >&2; exit 1; }

BENCH_NAME=history.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp history

real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
gohome=(env HOME="${real_home:-$HOME}")
[ -n "$cache" ] || cache="${TMPDIR:-/tmp}/rewind-lsp-history"
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

mkdir -p "$TMP/bin"
if [ -z "$bin" ]; then
	bin="$TMP/bin/rewind-lsp"
	say "history: building rewind-lsp from $repo …"
	(cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp) || { say "history.sh: build failed"; exit 1; }
	bin_what="built from $repo at $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$repo" diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)') (CGO_ENABLED=0 -trimpath)"
else
	bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
	bin_what="$bin"
fi
[ -x "$bin" ] || { say "history.sh: no binary at $bin"; exit 1; }
drv="$TMP/bin/history"
(cd "$repo" && "${gohome[@]}" go build -o "$drv" ./bench/history) || { say "history.sh: building bench/history failed"; exit 1; }

# ---------------------------------------------------------------- roots
states_dir="$cache/states"
states_key="seed $seed files $files"
if [ "$regen" = 1 ] || [ "$(cat "$states_dir/params" 2>/dev/null)" != "$states_key" ]; then
	say "history: the real states: $files files, 20 real turns …"
	"$drv" states -bin "$bin" -dir "$states_dir" -files "$files" -seed "$seed"
	echo "$states_key" >"$states_dir/params"
fi

declare -A GEN
for t in "${turns_list[@]}"; do
	dir="$cache/$t${one_session:+-one}"
	want="$("$drv" key -states "$states_dir" -turns "$t" -seed "$seed" $one_session)"
	if [ "$regen" = 0 ] && [ "$(cat "$dir/params" 2>/dev/null)" = "$want" ] && [ -z "$(find "$dir/params" -mtime +7)" ]; then
		GEN[$t]="cached: $(cat "$dir/gen.txt" 2>/dev/null || echo '?')"
		continue
	fi
	say "history: generating $t turns in $dir …"
	rm -f "$dir/params"
	now_us; g0=$REPLY
	line=$("$drv" gen -bin "$bin" -states "$states_dir" -dir "$dir" -turns "$t" -seed "$seed" $one_session)
	now_us
	# line: turns N entries E journal_bytes B synthetic_s S total_s T
	read -r _ _ _ entries _ jbytes _ synth _ _ <<<"$line"
	GEN[$t]="$entries entries, $(awk -v b="$jbytes" 'BEGIN{printf "%.1f MB", b/1e6}') of journal; generated in $(awk -v u=$((REPLY - g0)) 'BEGIN{printf "%.1f", u/1e6}') s (the synthetic journal ${synth} s; the rest: copies and the two real turns) on $(date -u '+%Y-%m-%d')"
	echo "${GEN[$t]}" >"$dir/gen.txt"
done

# ---------------------------------------------------------------- measures
results=()
for t in "${turns_list[@]}"; do
	"$drv" measure -bin "$bin" -dir "$cache/$t${one_session:+-one}" -states "$states_dir" -n "$n" -budget "${budget}s" -out "$TMP/result-$t.json"
	results+=("$TMP/result-$t.json")
done

# ---------------------------------------------------------------- report
{
	echo
	echo "rewind-lsp history-length benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "command:  bench/history.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}"
	echo "binary:   $("$bin" version 2>/dev/null || echo 'rewind-lsp ?'), $bin_what"
	echo "machine:  $(nproc) cores, $(uname -sr), $("${gohome[@]}" go version | cut -d' ' -f3)"
	echo "roots:    $files files (git repository), 21 real states from 20 real turns, seed $seed; in $cache"
	for t in "${turns_list[@]}"; do
		echo "  $t turns: ${GEN[$t]}"
	done
	"$drv" uptimes "${results[@]}"
	echo "run:      $((SECONDS / 60)) min $((SECONDS % 60)) s in all"
	echo "runs:     median of $n after one warm-up each (3 once a measure took over $budget s)"
	echo
	"$drv" report "${results[@]}"
}
