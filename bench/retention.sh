#!/usr/bin/env bash
# Retention benchmark: many agent turns on a real tree from the
# command line, nobody running gc: the store stays within its budget by
# itself, while the pinned checkpoint stays whole.
#
# Builds the binary, commits a copy of $(go env GOROOT)/src (or -tree DIR)
# into a fresh git repository in a temporary folder, records a labeled
# checkpoint of it (pinned), then -turns turns, each `turn start`, a change
# (10 files of a working set of 300 modified — an agent works on a part of a
# tree —, 2 small files added, 1 file added earlier deleted) and `turn end`,
# with --max-store-bytes BUDGET. Prints the store's objects size
# every 50 turns and at its largest, the automatic retention runs (gc
# entries in the journal), the turn end times, and checks at the end: fsck
# clean, and a rewind to the pinned checkpoint gives git's HEAD exactly.
#
# The budget is small by default (44M) so that retention has to work within
# 500 turns: the pinned first capture alone is ~38 MB, and what the pinned
# snapshots need is a floor no retention can go below. The product's default
# is 2G, which 500 such turns never reach (see the last line). Retention leaves
# packs younger than 10 minutes alone (a capture in progress elsewhere may
# need them); REWIND_LSP_GC_GRACE=0 lets this run compress hours of turns
# into minutes.
#
# usage: bench/retention.sh [-turns N] [-budget SIZE] [-tree DIR] [-bin PATH] [-keep]
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
turns=500 budget=44M tree_src="" bin="" keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-turns | --turns) turns=$2; shift 2 ;;
	-budget | --budget) budget=$2; shift 2 ;;
	-tree | --tree) tree_src=$2; shift 2 ;;
	-bin | --bin) bin=$2; shift 2 ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "retention.sh: unknown argument $1 (try -h)" >&2; exit 2 ;;
	esac
done
[[ $turns =~ ^[1-9][0-9]*$ ]] || { echo "retention.sh: -turns wants a positive number" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
BENCH_NAME=retention.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp retention

mib() { awk -v b="$1" 'BEGIN{printf "%.1f MiB", b/1048576}'; }

real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1 REWIND_LSP_GC_GRACE=0
mkdir -p "$HOME"
unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY REWIND_LSP_HOME || true
G=(git -c user.name=rewind-bench -c user.email=bench@rewind-lsp.invalid -c gc.auto=0 -c maintenance.auto=false)
gohome=(env HOME="${real_home:-$HOME}")

if [ -z "$bin" ]; then
	bin="$TMP/bin/rewind-lsp"
	say "building rewind-lsp …"
	(cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp) || { say "retention.sh: build failed"; exit 1; }
fi
[ -n "$tree_src" ] || tree_src="$("${gohome[@]}" go env GOROOT)/src"
tree_src=$(cd "$tree_src" && pwd)

TREE="$TMP/tree" STORE="$TMP/store"
say "copying $tree_src and committing it into a fresh git repository …"
build_tree "$TREE" "$tree_src"
nfiles=$("${G[@]}" -C "$TREE" ls-files | wc -l)
make_pool "$TREE"
np=${#pool[@]}
R() { "$bin" --root "$TREE" --store "$STORE" --max-store-bytes "$budget" "$@"; }
objects_bytes() { find "$STORE/objects" -type f -printf '%s\n' | awk '{n+=$1} END{print n+0}'; } # what the budget bounds: the objects' files
budget_bytes=$(R --json status | awk -F': ' '/"maxStoreBytes"/{gsub(/,/,"",$2); print $2}')

W=300 # the working set
[ "$np" -ge "$W" ] || { say "retention.sh: the tree has too few files to change"; exit 1; }
apply_change() { # apply_change TURN: 10 of the working set modified, 2 added, 1 added earlier deleted
	local it=$1 k
	for k in $(seq 0 9); do
		printf '\n// rewind-lsp retention bench: turn %d edit %d\n' "$it" "$k" >>"$TREE/${pool[(it * 10 + k) % W]}"
	done
	for k in 0 1; do
		head -c 1500 "$TREE/${pool[W + (it * 2 + k) % (np - W)]}" >"$TREE/bench_added_${it}_$k.txt"
		printf '\n// added in turn %d\n' "$it" >>"$TREE/bench_added_${it}_$k.txt"
	done
	rm -f -- "$TREE/bench_added_$((it - 5))_0.txt"
}

load_before=$(uptime)
say "pinned checkpoint of the committed tree …"
timed t0 R checkpoint base --goal "the committed tree"
first_bytes=$(objects_bytes)
END=() maxb=0 maxat=0 samples=""
for it in $(seq 1 "$turns"); do
	run R turn start --prompt "turn $it"
	apply_change "$it"
	timed t R turn end
	END+=("$t")
	b=$(objects_bytes)
	if [ "$b" -gt "$maxb" ]; then maxb=$b maxat=$it; fi
	if [ "$it" = 50 ] || { [ "$it" = "$turns" ] && [ "$turns" -lt 50 ]; }; then
		grow_turns=$it grow_bytes=$((b - first_bytes)) grow_gcs=$(grep -c '"kind":"gc"' "$STORE/journal" || true)
	fi
	if [ $((it % 50)) = 0 ]; then
		samples+=$(printf '  turn %4d: objects %s, turn end %s ms\n' "$it" "$(mib "$b")" "$(ms "$t")")$'\n'
		say "turn $it/$turns: objects $(mib "$b")"
	fi
done
load_after=$(uptime)
gcs=$(grep -c '"kind":"gc"' "$STORE/journal" || true)
gone=$(grep '"kind":"gc"' "$STORE/journal" | grep -o '"gone":\[[^]]*\]' | tr ',' '\n' | grep -c '[0-9a-f]\{64\}' || true)
fsck=$(R fsck >/dev/null 2>"$TMP/fsck.err" && echo clean || echo "DAMAGED: $(head -3 "$TMP/fsck.err")")
run R rewind @base --force
exact=$([ -z "$("${G[@]}" -C "$TREE" status --porcelain)" ] && echo "yes: git status is clean" || echo "NO: git status shows changes")
sorted=$(printf '%s\n' "${END[@]}" | sort -n)
p50=$(median "${END[@]}")
p99=$(printf '%s\n' "$sorted" | awk -v n="${#END[@]}" 'NR==int(n*0.99+0.5){print}')
worst=$(printf '%s\n' "$sorted" | tail -1)
{
echo
echo "rewind-lsp retention benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command:  bench/retention.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}"
echo "tree:     copy of $tree_src — $nfiles files, in a fresh git repository (packed)"
echo "machine:  $(nproc) cores, $(uname -sr), $("$bin" version 2>/dev/null || echo 'rewind-lsp ?')"
echo "uptime:   before: $load_before"
echo "          after:  $load_after"
echo "turns:    $turns, each: turn start, 10 files of a working set of $W modified, 2 small files"
echo "          added, 1 added earlier deleted, turn end;"
echo "          --max-store-bytes $budget ($budget_bytes B); REWIND_LSP_GC_GRACE=0; no gc run by hand"
echo
printf '%-58s %s\n' "objects after the pinned first capture" "$(mib "$first_bytes")"
printf '%s' "$samples"
printf '%-58s %s (turn %d)\n' "objects at their largest" "$(mib "$maxb")" "$maxat"
printf '%-58s %s\n' "budget" "$(mib "$budget_bytes")"
printf '%-58s %s\n' "stayed under the budget" "$([ "$maxb" -le "$budget_bytes" ] && echo yes || echo "NO (by $(mib $((maxb - budget_bytes))))")"
printf '%-58s %s runs, %s snapshots dropped\n' "automatic retention (gc entries in the journal)" "$gcs" "$gone"
printf '%-58s %s / %s / %s ms\n' "turn end, median / p99 / worst (retention runs inside)" "$(ms "$p50")" "$(ms "$p99")" "$(ms "$worst")"
printf '%-58s %s\n' "fsck after the turns" "$fsck"
printf '%-58s %s\n' "rewind to the pinned checkpoint @base exact" "$exact"
if [ "${grow_gcs:-1}" = 0 ]; then
	g=$((grow_bytes / grow_turns))
	printf '%-58s %s B per turn (first %d turns): the default 2G lasts %s turns\n' "objects grow, before any retention" "$g" "$grow_turns" \
		"$(awk -v g="$g" -v f="$first_bytes" 'BEGIN{ if (g>0) printf "%.0f", (2*1073741824-f)/g; else print "any number of" }')"
fi
}
