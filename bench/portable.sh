#!/usr/bin/env bash
# The generic file-system path against the Linux fast path (rootfs): the
# same capture by rewind-lsp built normally (getdents, openat2, fstatat,
# syncfs) and built with -tags portable (os.Root with a per-folder
# Lstat/os.SameFile check, per-file sync: what macOS, Windows and the BSDs
# run), on a copy of $(go env GOROOT)/src (~11k files) or -tree DIR.
#
#   bench/portable.sh [-n N] [-tree DIR] [-keep]
#
# Prints, for each build, the median over N runs (default 7, alternating
# the two builds) of a warm checkpoint after a change of 10 files (what a
# turn boundary costs: the walk, the stat cache, 10 files read) and of a
# checkpoint of an unchanged tree (the walk and the stat cache alone), the
# first capture into an empty store once, and the ratio generic/fast. The
# goal: the generic path within 1.5x of the fast path on warm captures.
set -euo pipefail
export LC_ALL=C

n=7 tree_src="" keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n | --n) n=$2; shift 2 ;;
	-tree | --tree) tree_src=$2; shift 2 ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "portable.sh: unknown argument $1 (try -h)" >&2; exit 2 ;;
	esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "portable.sh: -n wants a positive number" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
BENCH_NAME=portable.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp portable

[ -n "$tree_src" ] || tree_src="$(go env GOROOT)/src"
say "building rewind-lsp twice (fast path, -tags portable) …"
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -o "$TMP/fast" ./cmd/rewind-lsp)
(cd "$repo" && CGO_ENABLED=0 go build -trimpath -tags portable -o "$TMP/portable" ./cmd/rewind-lsp)

TREE=$TMP/tree
mkdir -p "$TREE"
copy_tree "$tree_src" "$TREE"
nfiles=$(find "$TREE" -type f | wc -l)
mapfile -t pool < <(cd "$TREE" && find . -name '*.go' -size +1k -size -64k | sort | head -n $((10 * (n + 2))))
export REWIND_LSP_NO_SERVER=1 HOME=$TMP/home
mkdir -p "$HOME"

# checkpoint BUILD LABEL: one checkpoint with BUILD's binary into its own
# store; REPLY = its wall time in µs.
checkpoint() {
	timed t "$TMP/$1" --root "$TREE" --store "$TMP/store-$1" checkpoint "$2"
	REPLY=$t
}
change() { # change I: append a line to 10 files of the pool
	local k
	for k in $(seq 0 9); do printf '\n// portable.sh %d %d\n' "$1" "$k" >>"$TREE/${pool[$(( $1 * 10 + k ))]}"; done
}

declare -A first warm same
for b in fast portable; do
	checkpoint "$b" "first"
	first[$b]=$REPLY
done
warm_fast=() warm_portable=() same_fast=() same_portable=()
for i in $(seq 1 "$n"); do
	change "$i"
	# Both builds see the same change: each store captures it once.
	for b in fast portable; do
		checkpoint "$b" "w$i"
		eval "warm_$b+=($REPLY)"
	done
	for b in portable fast; do
		checkpoint "$b" "s$i"
		eval "same_$b+=($REPLY)"
	done
done
for b in fast portable; do
	eval "warm[$b]=\$(median \"\${warm_$b[@]}\")"
	eval "same[$b]=\$(median \"\${same_$b[@]}\")"
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a/b}'; }
printf 'tree: %s (%d files); load: %s\n' "$tree_src" "$nfiles" "$(uptime | sed 's/.*load average: //')"
printf '%-44s %12s %12s %8s\n' "checkpoint (median of $n, ms)" "fast path" "portable" "ratio"
printf '%-44s %12s %12s %8s\n' "warm, 10 files changed" "$(ms "${warm[fast]}")" "$(ms "${warm[portable]}")" "$(ratio "${warm[portable]}" "${warm[fast]}")"
printf '%-44s %12s %12s %8s\n' "warm, nothing changed" "$(ms "${same[fast]}")" "$(ms "${same[portable]}")" "$(ratio "${same[portable]}" "${same[fast]}")"
printf '%-44s %12s %12s %8s\n' "first capture (once)" "$(ms "${first[fast]}")" "$(ms "${first[portable]}")" "$(ratio "${first[portable]}" "${first[fast]}")"
r=$(ratio "${warm[portable]}" "${warm[fast]}")
awk -v r="$r" 'BEGIN{exit !(r <= 1.5)}' && echo "goal (generic within 1.5x of the fast path, warm): ok ($r)" ||
	echo "goal (generic within 1.5x of the fast path, warm): MISSED ($r)"
