#!/usr/bin/env bash
# Scale benchmark: what a turn end, a rewind and its undo cost
# from the command line (a new process each, no server running) as the
# number of changed files grows, against git status on the same tree.
#
# Builds the binary, commits a copy of $(go env GOROOT)/src (or -tree DIR)
# into a fresh git repository in a temporary folder, makes one first
# capture, then for each N in -sizes, -r times: `turn start`; a line
# appended to N random .go files; then, timed, `turn end`, `git status
# --porcelain`, `rewind ~1` (the N files back) and `undo` (forward again).
# Prints the median of each per N, the cost per changed file, and the
# REWIND_LSP_TRACE phases of the last run at the largest N.
#
# usage: bench/scale.sh [-r N] [-sizes "1 10 100 1000 3000"] [-tree DIR] [-bin PATH] [-keep]
#   -r N        runs per size (default 3; medians over them)
#   -sizes LIST numbers of changed files (default "1 10 100 1000 3000")
#   -tree DIR   benchmark a copy of DIR (its .git folders left out) instead of GOROOT/src
#   -bin PATH   use this rewind-lsp binary instead of building one
#   -keep       keep the temporary folder (printed) for inspection
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
reps=3 sizes="1 10 100 1000 3000" tree_src="" bin="" keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-r | --r) reps=$2; shift 2 ;;
	-sizes | --sizes) sizes=$2; shift 2 ;;
	-tree | --tree) tree_src=$2; shift 2 ;;
	-bin | --bin) bin=$2; shift 2 ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "scale.sh: unknown argument $1 (try -h)" >&2; exit 2 ;;
	esac
done
[[ $reps =~ ^[1-9][0-9]*$ ]] || { echo "scale.sh: -r wants a positive number" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in git go awk sort tar; do
	command -v "$tool" >/dev/null || { echo "scale.sh: $tool is required (apt-get install git golang)" >&2; exit 1; }
done
BENCH_NAME=scale.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp scale


real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY REWIND_LSP_HOME || true
G=(git -c user.name=rewind-bench -c user.email=bench@rewind-lsp.invalid -c gc.auto=0 -c maintenance.auto=false)
gohome=(env HOME="${real_home:-$HOME}")

if [ -z "$bin" ]; then
	bin="$TMP/bin/rewind-lsp"
	say "building rewind-lsp …"
	(cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp) || { say "scale.sh: build failed"; exit 1; }
fi
[ -x "$bin" ] || { say "scale.sh: no binary at $bin"; exit 1; }
[ -n "$tree_src" ] || tree_src="$("${gohome[@]}" go env GOROOT)/src"
tree_src=$(cd "$tree_src" && pwd)

TREE="$TMP/tree" STORE="$TMP/store"
say "copying $tree_src and committing it into a fresh git repository …"
build_tree "$TREE" "$tree_src"
nfiles=$("${G[@]}" -C "$TREE" ls-files | wc -l)
make_pool "$TREE" .go
[ "${#pool[@]}" -gt 0 ] || { say "scale.sh: no .go files of 200 B – 256 KiB in the tree"; exit 1; }
R() { "$bin" --root "$TREE" --store "$STORE" "$@"; }
say "first capture …"
run R checkpoint

load_before=$(uptime)
next=0 # the next pool file to change
declare -A T
for N in $sizes; do
	te=() gs=() rw=() ud=() co=()
	for r in $(seq 1 "$reps"); do
		say "N=$N run $r/$reps …"
		run R turn start --prompt "scale $N/$r"
		for ((k = 0; k < N; k++)); do
			printf '\n// rewind-lsp scale bench: %d files, run %d\n' "$N" "$r" >>"$TREE/${pool[next % ${#pool[@]}]}"
			next=$((next + 1))
		done
		export REWIND_LSP_TRACE=1
		timed t R turn end; te+=("$t"); cp "$TMP/err" "$TMP/trace-end"
		timed t "${G[@]}" -C "$TREE" status --porcelain; gs+=("$t")
		timed t R rewind ~1; rw+=("$t"); cp "$TMP/err" "$TMP/trace-rewind"
		timed t R undo; ud+=("$t"); cp "$TMP/err" "$TMP/trace-undo"
		unset REWIND_LSP_TRACE
		# The floor for writing N files: git writes the same N back.
		timed t "${G[@]}" -C "$TREE" checkout -q -- .; co+=("$t")
	done
	T[$N,te]=$(median "${te[@]}") T[$N,gs]=$(median "${gs[@]}") T[$N,rw]=$(median "${rw[@]}") T[$N,ud]=$(median "${ud[@]}") T[$N,co]=$(median "${co[@]}")
	last=$N
done
load_after=$(uptime)

first=${sizes%% *}
perfile() { # perfile KEY N: ms per changed file above the smallest size
	awk -v a="${T[$first,$1]}" -v b="${T[$2,$1]}" -v n0="$first" -v n="$2" 'BEGIN{ if (n>n0) printf "%.3f", (b-a)/1000/(n-n0); else printf "-" }'
}
{
echo
echo "rewind-lsp scale benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command:  bench/scale.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}"
echo "tree:     copy of $tree_src — $nfiles files, in a fresh git repository (packed)"
echo "machine:  $(nproc) cores, $(uname -sr), $(git --version | cut -d' ' -f3- | sed 's/^/git /'), $("$bin" version 2>/dev/null || echo 'rewind-lsp ?')"
echo "uptime:   before: $load_before"
echo "          after:  $load_after"
echo "runs:     median of $reps per size; each: turn start, a line appended to N .go files,"
echo "          then turn end, git status --porcelain, rewind ~1, undo (new processes, no server);"
echo "          git checkout -- . then writes the same N files back (the floor for writing them)"
echo
printf '%-14s %10s %10s %10s %12s %13s   %s\n' "changed files" "turn end" "rewind" "undo" "git status" "git checkout" "(ms, wall)"
for N in $sizes; do
	printf '%-14s %10s %10s %10s %12s %13s\n' "$N" "$(ms "${T[$N,te]}")" "$(ms "${T[$N,rw]}")" "$(ms "${T[$N,ud]}")" "$(ms "${T[$N,gs]}")" "$(ms "${T[$N,co]}")"
done
echo
printf '%-14s %10s %10s %10s %12s %13s   %s\n' "per file" "turn end" "rewind" "undo" "git status" "git checkout" "(ms per changed file above N=$first)"
for N in $sizes; do
	[ "$N" = "$first" ] && continue
	printf '%-14s %10s %10s %10s %12s %13s\n' "$N" "$(perfile te "$N")" "$(perfile rw "$N")" "$(perfile ud "$N")" "$(perfile gs "$N")" "$(perfile co "$N")"
done
if [ -n "${T[1000,te]:-}" ]; then
	echo
	printf '%-40s %9s   %-7s %s\n' "target" "ms" "limit" "result"
	for k in te:turn\ end rw:rewind ud:undo; do
		v=$(ms "${T[1000,${k%%:*}]}")
		printf '%-40s %9s   %-7s %s\n' "1,000 changed files: ${k#*:}" "$v" "< 150" "$(awk -v v="$v" 'BEGIN{print (v<150)?"ok":"MISSED"}')"
	done
fi
echo
echo "REWIND_LSP_TRACE of the last run at N=$last:"
for f in end rewind undo; do grep -h 'trace' "$TMP/trace-$f" | sed 's/^/  /' || true; done
}
