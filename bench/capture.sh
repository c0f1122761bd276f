#!/usr/bin/env bash
# Per-turn capture benchmark for rewind-lsp.
#
# Builds the binary, commits a copy of $(go env GOROOT)/src (or -tree DIR)
# into a fresh git repository in a temporary folder, and measures side by
# side, median of N iterations (each after a fresh change of 10 modified,
# 2 added and 1 deleted files, different files each time):
#   (a)  rewind-lsp checkpoint (process start included, store outside the
#        tree, warm: a first capture was done before the loop)
#   (b)  pi-rewind's capture: fresh temporary GIT_INDEX_FILE, git add -A,
#        git write-tree, git commit-tree
#   (c)  the same with a temporary index kept between captures
#   (d)  git status --porcelain
# and once (or -first N times) the first capture of the whole tree:
#   (a0) rewind-lsp checkpoint into an empty store
#   (e)  Cline's first checkpoint: git add -A + git commit into an empty
#        separate git dir with core.worktree set
# plus the store growth of one (a) capture (du -sb) against the zstd -3 size
# of the 12 modified/added files.
#
# usage: bench/capture.sh [-n N] [-first N] [-tree DIR] [-big] [-bin PATH] [-keep]
#   -n N       timed iterations (default 5, at least 1; medians over them)
#   -first N   repeats of the first-capture pair a0/e (default 1)
#   -tree DIR  benchmark a copy of DIR (its .git folders left out) instead of GOROOT/src
#   -big       a tree of ~80k files: GOROOT/src (or -tree) copied into k subfolders
#   -bin PATH  use this rewind-lsp binary instead of building one
#   -keep      keep the temporary folder (printed) for inspection
#
# Everything happens in one temporary folder, removed on exit. git runs with
# HOME pointing into it and GIT_CONFIG_NOSYSTEM=1, so no user or system
# configuration leaks in; automatic gc is off (-c gc.auto=0) so no background
# gc runs while timing.
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
n=5 first=1 tree_src="" big=0 bin="" keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n | --n) n=$2; shift 2 ;;
	-first | --first) first=$2; shift 2 ;;
	-tree | --tree) tree_src=$2; shift 2 ;;
	-big | --big) big=1; shift ;;
	-bin | --bin) bin=$2; shift 2 ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "capture.sh: unknown argument $1 (try -h)" >&2; exit 2 ;;
	esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "capture.sh: -n wants a positive number" >&2; exit 2; }
[[ $first =~ ^[1-9][0-9]*$ ]] || { echo "capture.sh: -first wants a positive number" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in git go awk sort du tar zstd; do
	command -v "$tool" >/dev/null || { echo "capture.sh: $tool is required (apt-get install git golang zstd / see README)" >&2; exit 1; }
done

BENCH_NAME=capture.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp bench

# ---------------------------------------------------------------- helpers
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{if(b>0)printf "%.2f", a/b; else print "inf"}'; }
# check VALUE OP LIMIT -> ok / MISSED
check() { awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN{ok=(op=="<=")?(v<=l):(v>=l); print ok?"ok":"MISSED"}'; }
row() { printf '%-70s %10s %s' "$1" "$2" "$3"; } # label, value, unit
store_bytes() { du -sb "$1" | awk '{print $1}'; }

export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1
# captured before HOME changes: the Go toolchain uses the real one.
real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
mkdir -p "$HOME"
unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY REWIND_LSP_HOME || true
G=(git -c user.name=rewind-bench -c user.email=bench@rewind-lsp.invalid -c gc.auto=0 -c maintenance.auto=false)

# ---------------------------------------------------------------- build
if [ -z "$bin" ]; then
	bin="$TMP/bin/rewind-lsp"
	say "building rewind-lsp …"
	gohome=(env HOME="${real_home:-$HOME}")
	if ! (cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp) 2>"$TMP/build.err"; then
		# lsp/ may be mid-edit by a colleague: the capture path does not need
		# it, so replace it by a stub through a build overlay.
		say "build failed; retrying with lsp/ replaced by a stub (overlay):"
		sed 's/^/  /' "$TMP/build.err" | head -5 >&2
		stub="$TMP/lsp_stub.go"
		printf '%s\n' 'package lsp' 'import ("context"; "io")' \
			'func Run(ctx context.Context, in io.Reader, out io.Writer, log io.Writer) int { return 1 }' >"$stub"
		{
			printf '{"Replace":{'
			sep="" first_file=1
			for f in "$repo"/lsp/*.go; do
				case $f in *_test.go) continue ;; esac
				if [ $first_file = 1 ]; then printf '%s"%s":"%s"' "$sep" "$f" "$stub"; first_file=0
				else printf '%s"%s":""' "$sep" "$f"; fi
				sep=,
			done
			printf '}}\n'
		} >"$TMP/overlay.json"
		(cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -overlay "$TMP/overlay.json" -o "$bin" ./cmd/rewind-lsp) ||
			{ say "capture.sh: build failed"; exit 1; }
	fi
fi
[ -x "$bin" ] || { say "capture.sh: no binary at $bin"; exit 1; }
goroot=$(env HOME="${real_home:-$HOME}" go env GOROOT)
[ -n "$tree_src" ] || tree_src="$goroot/src"
[ -d "$tree_src" ] || { say "capture.sh: no folder $tree_src"; exit 1; }
tree_src=$(cd "$tree_src" && pwd)

# ---------------------------------------------------------------- tree
TREE="$TMP/tree" STORE="$TMP/store"
if [ "$big" = 1 ]; then
	copies=$(copies_for "$tree_src")
	say "copying $tree_src $copies times and committing it into a fresh git repository …"
	build_tree "$TREE" "$tree_src" "$copies"
else
	say "copying $tree_src and committing it into a fresh git repository …"
	build_tree "$TREE" "$tree_src"
fi
nfiles=$("${G[@]}" -C "$TREE" ls-files | wc -l)
tree_mb=$(du -sm --exclude=.git "$TREE" | awk '{print $1}')

# Files to change: tracked regular files of 200 B – 256 KiB, in a fixed
# pseudo-random order. Iteration i (0 = warm-up) modifies 10 of them,
# deletes 1, and adds 2 new files made from two others (plus a unique line).
make_pool "$TREE"
need=$(((n + 1) * 15))
[ "${#pool[@]}" -ge "$need" ] || { say "capture.sh: the tree has too few files to change (${#pool[@]} < $need)"; exit 1; }

changed=() # the 12 modified/added files of the latest change (tree-relative)
apply_change() { # apply_change ITERATION
	local it=$1 base=$((it * 13)) k f src dst
	changed=()
	for k in $(seq 0 9); do
		f=${pool[base + k]}
		printf '\n// rewind-lsp bench: iteration %d edit %d\n' "$it" "$k" >>"$TREE/$f"
		changed+=("$f")
	done
	rm -f -- "$TREE/${pool[base + 10]}"
	for k in 0 1; do
		src=${pool[${#pool[@]} - 1 - it * 2 - k]}
		dst="$(dirname -- "${pool[base + k]}")/bench_added_${it}_${k}_$(basename -- "$src")"
		{ cat -- "$TREE/$src"; printf '\n// rewind-lsp bench: added in iteration %d\n' "$it"; } >"$TREE/$dst"
		changed+=("$dst")
	done
}

zstd_method="zstd -3 (CLI, per file)"
compressed_changed() { # bytes of the 12 changed files compressed with zstd -3, one by one
	local total=0 f sz
	for f in "${changed[@]}"; do
		sz=$(zstd -3 -q -c -- "$TREE/$f" | wc -c)
		total=$((total + sz))
	done
	echo "$total"
}

# ---------------------------------------------------------------- methods
a_capture() { "$bin" --root "$TREE" --store "$STORE" checkpoint; }
b_capture() { git_capture "$TREE" "$TMP/fresh-index"; }
c_capture() { git_capture "$TREE" "$TMP/kept-index"; }
d_status() { "${G[@]}" -C "$TREE" status --porcelain; }
e_first() { # Cline: a separate, empty git dir whose core.worktree is the tree
	"${G[@]}" --git-dir="$1" -C "$TREE" add -A &&
		"${G[@]}" --git-dir="$1" -C "$TREE" commit -q --allow-empty --no-verify -m "initial checkpoint"
}

load_before=$(uptime)

# ---------------------------------------------------------------- first capture
A0=() E=() A0c=() Ec=()
for r in $(seq 1 "$first"); do
	say "first capture $r/$first: (a0) rewind-lsp into an empty store …"
	rm -rf "$STORE"
	timed t a_capture; A0+=("$t") A0c+=("$t_cpu")
	say "first capture $r/$first: (e) Cline's git add -A + commit into an empty git dir …"
	egit="$TMP/cline-$r.git"
	run git init -q --bare "$egit"
	run git --git-dir="$egit" config core.bare false
	run git --git-dir="$egit" config core.worktree "$TREE"
	timed t e_first "$egit"; E+=("$t") Ec+=("$t_cpu")
	store_first=$(store_bytes "$STORE")
	egit_bytes=$(du -sb "$egit" | awk '{print $1}')
	chmod -R u+w "$egit"; rm -rf "$egit"
done

# ---------------------------------------------------------------- per-turn loop
run env GIT_INDEX_FILE="$TMP/kept-index" "${G[@]}" -C "$TREE" add -A # (c) starts warm
A=() B=() C=() D=() Ac=() Bc=() Cc=() Dc=() GROW=() COMP=() GRATIO=()
methods=(a b c d)
for it in $(seq 0 "$n"); do
	apply_change "$it"
	comp=$(compressed_changed)
	label="iteration $it/$n"; [ "$it" = 0 ] && label="warm-up iteration (not counted)"
	say "$label: change applied (10 modified, 2 added, 1 deleted) …"
	# Rotate the order so that no method always runs first (b and c write the
	# same git blobs: the first of them pays for it).
	for j in 0 1 2 3; do
		m=${methods[(it + j) % 4]}
		case $m in
		a)
			before=$(store_bytes "$STORE")
			timed ta a_capture
			after=$(store_bytes "$STORE")
			;;
		b) rm -f "$TMP/fresh-index"; timed tb b_capture ;;
		c) timed tc c_capture ;;
		d) timed td d_status ;;
		esac
	done
	[ "$it" = 0 ] && continue
	A+=("$ta") B+=("$tb") C+=("$tc") D+=("$td")
	Ac+=("$ta_cpu") Bc+=("$tb_cpu") Cc+=("$tc_cpu") Dc+=("$td_cpu")
	GROW+=($((after - before))) COMP+=("$comp")
	GRATIO+=("$(ratio $((after - before)) "$comp")")
	printf '  #%-3s a %7s (%6s)  b %7s (%6s)  c %7s (%6s)  d %7s (%6s)   growth %7d B  zstd(changed) %6d B\n' "$it" \
		"$(ms "$ta")" "$(ms "$ta_cpu")" "$(ms "$tb")" "$(ms "$tb_cpu")" "$(ms "$tc")" "$(ms "$tc_cpu")" \
		"$(ms "$td")" "$(ms "$td_cpu")" $((after - before)) "$comp" >>"$TMP/samples"
done
load_after=$(uptime)

# ---------------------------------------------------------------- report
a=$(median "${A[@]}") b=$(median "${B[@]}") c=$(median "${C[@]}") d=$(median "${D[@]}")
a0=$(median "${A0[@]}") e=$(median "${E[@]}")
ac=$(median "${Ac[@]}") bc=$(median "${Bc[@]}") cc=$(median "${Cc[@]}") dc=$(median "${Dc[@]}")
a0c=$(median "${A0c[@]}") ec=$(median "${Ec[@]}")
grow=$(printf "%.0f" "$(median "${GROW[@]}")") comp=$(printf "%.0f" "$(median "${COMP[@]}")") gr=$(median "${GRATIO[@]}")

row() { printf '%-66s %9s %9s\n' "$1" "$2" "$3"; }   # label, wall, cpu
rrow() { # label, wall ratio, cpu ratio, op, limit
	printf '%-26s %9s %9s   %-7s %s\n' "$1" "$2" "$3" "$4 $5" "$(check "$2" "$4" "$5")"
}
what="copy of $tree_src"; [ "$big" = 1 ] && what="$copies copies of $tree_src"
{
echo
echo "rewind-lsp capture benchmark — $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "command:  bench/capture.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}"
echo "tree:     $what — $nfiles files, $tree_mb MB, in a fresh git repository (packed)"
echo "machine:  $(nproc) cores, $(uname -sr), $(git --version | cut -d' ' -f3- | sed 's/^/git /'), $("$bin" version 2>/dev/null || echo 'rewind-lsp ?'), $(env HOME="${real_home:-$HOME}" go version | cut -d' ' -f3)"
echo "uptime:   before: $load_before"
echo "          after:  $load_after"
echo "turns:    median of $n (after 1 warm-up), each after 10 modified + 2 added + 1 deleted"
echo "          files (different files each turn); the order of a/b/c/d rotates per turn"
echo
row "median (ms)" "wall" "cpu"
row "(a)  rewind-lsp checkpoint (new process, warm store)" "$(ms "$a")" "$(ms "$ac")"
row "(b)  pi-rewind: fresh temp index; add -A, write-tree, commit-tree" "$(ms "$b")" "$(ms "$bc")"
row "(c)  the same, temporary index kept between captures" "$(ms "$c")" "$(ms "$cc")"
row "(d)  git status --porcelain" "$(ms "$d")" "$(ms "$dc")"
row "(a0) rewind-lsp first checkpoint, empty store (x$first)" "$(ms "$a0")" "$(ms "$a0c")"
row "(e)  Cline first checkpoint: add -A + commit, empty git dir (x$first)" "$(ms "$e")" "$(ms "$ec")"
echo
printf '%-66s %9s B\n' "store growth by one turn's capture (a), du -sb" "$grow"
printf '%-66s %9s B\n' "the 12 modified/added files compressed, $zstd_method" "$comp"
printf '%-66s %9s B\n' "first capture: rewind-lsp store" "$store_first"
printf '%-66s %9s B\n' "first capture: Cline's git dir (loose objects)" "$egit_bytes"
printf '%-66s %9s B, %s packs\n' "store after the turns (objects in packs; small packs are merged)" "$(store_bytes "$STORE")" "$(ls "$STORE/objects/packs" | grep -c '\.pack$')"
echo
printf '%-26s %9s %9s   %-7s %s\n' "ratio" "wall" "cpu" "target" "result (on wall)"
rrow "a / d" "$(ratio "$a" "$d")" "$(ratio "$ac" "$dc")" "<=" 1.3
rrow "b / a" "$(ratio "$b" "$a")" "$(ratio "$bc" "$ac")" ">=" 8
rrow "c / a" "$(ratio "$c" "$a")" "$(ratio "$cc" "$ac")" ">=" 1
rrow "e / a0" "$(ratio "$e" "$a0")" "$(ratio "$ec" "$a0c")" ">=" 5
printf '%-26s %9s %9s   %-7s %s\n' "growth / compressed" "$gr" "" "<= 1.2" "$(check "$gr" "<=" 1.2) (median of per-turn ratios)"
echo
echo "per turn, ms wall (cpu):"
cat "$TMP/samples"
printf 'first capture a0 / e, ms wall (cpu):'
for i in "${!A0[@]}"; do printf '  %s (%s) / %s (%s)' "$(ms "${A0[i]}")" "$(ms "${A0c[i]}")" "$(ms "${E[i]}")" "$(ms "${Ec[i]}")"; done
echo
}
