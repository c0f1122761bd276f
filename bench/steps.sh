#!/usr/bin/env bash
# Steps: what recording each tool call of an agent's turn as a step costs,
# and whether a turn of many steps is as quick to list, rewind and revert
# as a short one. Measured on the real binary (bench/steps drives it):
#
#   (1) a step boundary through a running language server: a server on the
#       tree (initializationOptions storeDir, a fresh store), a turn of one
#       session open; per step, from an idle server: rewind.toolCall pre
#       (Write, paths [f]), f changed, rewind.toolCall post — the wall of
#       each and the server's CPU (schedstat of its threads); the same as a
#       Bash call (capture: true). On a copy of $(go env GOROOT)/src (~11k
#       files) and, with -only big|all, on a generated 500k-file tree
#       (bench/gen, as mono.sh makes it; cached). rewind.toolCall is an
#       internal command: it goes over the store's socket, as a hook sends it;
#   (2) `rewind-lsp hook claude-code` PreToolUse + PostToolUse of a Write
#       (the file changed between) and of a Bash call, a server running,
#       against the same with the base binary (-base; default: built from
#       this repository's main branch), each on its own copy of the tree
#       with its own server, alternating;
#   (3) the store's growth (du -sb, the server idle) per step that appends a
#       block of another file's text to 10 files, against the zstd -3 size
#       of the files' new content (the zstd tool if installed, else
#       klauspost/compress at SpeedDefault);
#   (4) a turn of 1,000 steps against one of 10 (two roots of ~250 files,
#       recorded through a server that is then stopped): `log --json
#       --limit 50`, `rewind T.(S/2)` + `undo`, `revert T.(S/2)` + `undo`,
#       `diff T.(S/2)` from the command line, no server.
# Goals: (1) <= 2 ms at 11k files, <= 5 ms at 500k; (2) the pair within
# 1.2x of the base binary's; (3) growth <= 1.2x the compressed size; (4)
# each 1,000-step measure within 1.2x of the 10-step one, or 3 ms.
#
# usage: bench/steps.sh [-n N] [-only small|big|all] [-base PATH] [-bin PATH]
#                       [-files N] [-cache DIR] [-profile] [-keep]
#   -n N        runs of each measure after one warm-up (default 7)
#   -only K     small: every goal on the 11k tree (default); big: goal 1 on
#               the 500k tree only (~20-30 min the first time: generating
#               and committing it; then cached); all: both
#   -base PATH  the base binary of (2) (default: `git archive main` of this
#               repository, built as scripts/release.sh builds)
#   -bin PATH   the binary measured (default: this checkout, built as
#               scripts/release.sh builds: CGO_ENABLED=0 -trimpath)
#   -files N    files of the generated tree (default 500000)
#   -cache DIR  where the generated tree is kept (default
#               ${TMPDIR:-/tmp}/rewind-lsp-steps); reused while bench/gen
#               and the flags are the same
#   -profile    the servers and goal 4's commands write CPU profiles
#               (REWIND_LSP_CPUPROFILE) into the temporary folder (-keep it)
#   -keep       keep the temporary folder (stores, server logs, profiles)
#
# Needs bash >= 5, git, go, tar, du, coreutils, Linux /proc (schedstat).
set -euo pipefail
export LC_ALL=C

ORIG_ARGS=("$@")
n=7 only=small base="" bin="" nfiles=500000 cache="" profile=0 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	-n | --n) n=$2; shift 2 ;;
	-only | --only) only=$2; shift 2 ;;
	-base | --base) base=$2; shift 2 ;;
	-bin | --bin) bin=$2; shift 2 ;;
	-files | --files) nfiles=$2; shift 2 ;;
	-cache | --cache) cache=$2; shift 2 ;;
	-profile | --profile) profile=1; shift ;;
	-keep | --keep) keep=1; shift ;;
	-h | -help | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "steps.sh: unknown argument $1 (try -h)" >&2; exit 2 ;;
	esac
done
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "steps.sh: -n wants a positive number" >&2; exit 2; }
[[ $nfiles =~ ^[1-9][0-9]*$ ]] || { echo "steps.sh: -files wants a positive number" >&2; exit 2; }
case $only in small | big | all) ;; *) echo "steps.sh: -only small|big|all" >&2; exit 2 ;; esac

repo=$(cd "$(dirname "$0")/.." && pwd)
for tool in git go tar du cp uptime; do
	command -v "$tool" >/dev/null || { echo "steps.sh: $tool is required" >&2; exit 1; }
done
[ -r /proc/self/schedstat ] || { echo "steps.sh: needs Linux /proc (schedstat)" >&2; exit 1; }

BENCH_NAME=steps.sh
# shellcheck source=bench/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
make_tmp steps

real_home=$(getent passwd "$(id -u)" | cut -d: -f6 || true)
gohome=(env HOME="${real_home:-$HOME}")
export HOME="$TMP/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "$HOME"
unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_OBJECT_DIRECTORY REWIND_LSP_HOME REWIND_LSP_NO_SERVER || true
G=(git -c user.name=rewind-bench -c user.email=bench@rewind-lsp.invalid -c gc.auto=0 -c maintenance.auto=false)
goroot=$("${gohome[@]}" go env GOROOT)

# ---------------------------------------------------------------- builds
mkdir -p "$TMP/bin"
if [ -z "$bin" ]; then
	bin="$TMP/bin/rewind-lsp"
	say "steps: building rewind-lsp from $repo …"
	(cd "$repo" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp) || { say "steps.sh: build failed"; exit 1; }
	bin_what="built from $repo at $(git -C "$repo" rev-parse --short HEAD)$(git -C "$repo" diff --quiet HEAD -- . ':!bench' 2>/dev/null || echo ' (with uncommitted changes outside bench/)') (CGO_ENABLED=0 -trimpath)"
else
	bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
	bin_what="$bin"
fi
[ -x "$bin" ] || { say "steps.sh: no binary at $bin"; exit 1; }
base_what=""
if [ "$only" != big ]; then
	if [ -z "$base" ]; then
		main=$(git -C "$repo" rev-parse --short main 2>/dev/null) || { say "steps.sh: no branch main in $repo: name a base binary with -base"; exit 1; }
		say "steps: building the base binary from main ($main) …"
		mkdir -p "$TMP/base-src"
		git -C "$repo" archive main | tar -x -C "$TMP/base-src"
		base="$TMP/bin/rewind-lsp-base"
		(cd "$TMP/base-src" && "${gohome[@]}" CGO_ENABLED=0 go build -trimpath -o "$base" ./cmd/rewind-lsp) || { say "steps.sh: building main failed"; exit 1; }
		rm -rf "$TMP/base-src"
		base_what="built from main at $main (git archive; CGO_ENABLED=0 -trimpath)"
	else
		base=$(cd "$(dirname "$base")" && pwd)/$(basename "$base")
		base_what="$base"
	fi
	[ -x "$base" ] || { say "steps.sh: no base binary at $base"; exit 1; }
fi
drv="$TMP/bin/steps" gen="$TMP/bin/gen"
(cd "$repo" && "${gohome[@]}" go build -o "$drv" ./bench/steps && "${gohome[@]}" go build -o "$gen" ./bench/gen) ||
	{ say "steps.sh: building bench/steps or bench/gen failed"; exit 1; }

# ---------------------------------------------------------------- trees
args=(-bin "$bin" -work "$TMP/work" -goroot "$goroot" -n "$n")
[ -z "$base" ] || args+=(-base "$base")
[ "$profile" = 0 ] || args+=(-profile)
if command -v zstd >/dev/null; then args+=(-zstd "$(command -v zstd)"); fi
mkdir -p "$TMP/work"

if [ "$only" != big ]; then
	say "steps: the 11k tree: a copy of $goroot/src in a fresh git repository …"
	build_tree "$TMP/tree-small" "$goroot/src"
	args+=(-small "$TMP/tree-small")
fi

big=""
if [ "$only" != small ]; then
	[ -n "$cache" ] || cache="${TMPDIR:-/tmp}/rewind-lsp-steps"
	mkdir -p "$cache"
	cache=$(cd "$cache" && pwd)
	big="$cache/big-$nfiles"
	key="files $nfiles seed 1 gen $(cat "$repo"/bench/gen/*.go | sha256sum | cut -c1-16) corpus $("${gohome[@]}" go version | cut -d' ' -f3)"
	if [ "$(cat "$big/params" 2>/dev/null)" = "$key" ] && [ -d "$big/tree/.git" ]; then
		say "steps: the ${nfiles}-file tree is cached in $big; restoring its files …"
		# The measures only append to tracked files: check them out again.
		run "${G[@]}" -C "$big/tree" checkout -q -- .
		run "${G[@]}" -C "$big/tree" clean -fdq
	else
		say "steps: generating $nfiles files (bench/gen) into $big and committing them (long) …"
		chmod -R u+w "$big" 2>/dev/null || true
		rm -rf "$big"
		mkdir -p "$big/tree"
		"$gen" -out "$big/tree" -files "$nfiles" -seed 1 -corpus "$goroot/src" >"$big/gen.txt"
		run "${G[@]}" -C "$big/tree" init -q
		run "${G[@]}" -C "$big/tree" add -A
		run "${G[@]}" -C "$big/tree" commit -q --no-verify -m "benchmark tree"
		run "${G[@]}" -C "$big/tree" gc -q
		echo "$key" >"$big/params"
	fi
	run "${G[@]}" -C "$big/tree" status --porcelain
	args+=(-big "$big/tree" -big-what "generated by bench/gen -files $nfiles -seed 1 (corpus: $goroot/src; $(cat "$big/gen.txt"))")
fi
restore_big() {
	if [ -n "$big" ] && [ -d "$big/tree/.git" ]; then
		"${G[@]}" -C "$big/tree" checkout -q -- . 2>/dev/null || true
	fi
}
before_cleanup() { restore_big; }

# ---------------------------------------------------------------- measures
"$drv" "${args[@]}" -cmd "bench/steps.sh${ORIG_ARGS[*]+ ${ORIG_ARGS[*]}}" -bin-what "$bin_what" -base-what "$base_what"
echo "whole run: $((SECONDS / 60)) min $((SECONDS % 60)) s (builds and trees included)"
