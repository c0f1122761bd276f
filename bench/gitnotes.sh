#!/usr/bin/env bash
# Git notes: what the post-commit hook `rewind-lsp setup git` installs
# costs a commit. In a fresh repository of -files files (default 11,000:
# 110 folders of 100), one recorded turn (turn start / turn end, no server)
# appends 50 lines to each of 20 files; `git commit -a` runs the hook once;
# then `rewind-lsp hook git post-commit` is timed -n times on that commit,
# against (g) git commands like the hook's, alone (the two notes writes
# replaced by reads of them). Prints the median and the worst of each.
# Goal: <= 100 ms without a server (<= 30 ms with one: not measured yet).
#
#   bench/gitnotes.sh [-n 15] [-files 11000] [-bin PATH] [-keep]
set -euo pipefail
BENCH_NAME=gitnotes
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
n=15 files=11000 bin="" keep=0
while [ $# -gt 0 ]; do
	case "$1" in
	-n) n=$2; shift 2 ;;
	-files) files=$2; shift 2 ;;
	-bin) bin=$2; shift 2 ;;
	-keep) keep=1; shift ;;
	*) say "usage: bench/gitnotes.sh [-n N] [-files N] [-bin PATH] [-keep]"; exit 2 ;;
	esac
done
make_tmp gitnotes
if [ -z "$bin" ]; then
	bin=$TMP/rewind-lsp
	(cd "$here/.." && CGO_ENABLED=0 go build -trimpath -o "$bin" ./cmd/rewind-lsp)
fi
export REWIND_LSP_HOME=$TMP/home GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
repo=$TMP/repo
mkdir -p "$repo" && cd "$repo"
git init -q
dirs=$(( (files + 99) / 100 ))
for d in $(seq 1 "$dirs"); do
	mkdir "d$d"
	for f in $(seq 1 100); do echo "file $d $f" >"d$d/f$f.txt"; done
done
git add -A && git commit -qm base
"$bin" setup git >/dev/null
"$bin" turn start --prompt bench --session bench >/dev/null
for i in $(seq 1 20); do seq 1 50 >>"d$i/f1.txt"; done
"$bin" turn end --session bench >/dev/null
git commit -qam twenty
"$bin" explain | sed -n 2p >&2

median_worst() { sort -n | awk '{a[NR]=$1} END{printf "median %.1f ms, worst %.1f ms\n", a[int((NR+1)/2)]/1000, a[NR]/1000}'; }
for i in $(seq 1 "$n"); do
	now_us; t0=$REPLY
	"$bin" hook git post-commit
	now_us; echo $((REPLY - t0))
done | median_worst | sed 's/^/(h) rewind-lsp hook git post-commit: /'
p=$(git rev-parse HEAD~1)
for i in $(seq 1 "$n"); do
	now_us; t0=$REPLY
	git rev-list --parents -n1 HEAD >/dev/null
	git diff-tree -r -M -z --raw "$p" HEAD >/dev/null
	git diff-tree -r -M -p -U0 "$p" HEAD >/dev/null
	git rev-parse --show-prefix >/dev/null
	git ls-tree -r HEAD d1 d2 | awk '{print $3}' | git cat-file --batch >/dev/null
	echo a | git hash-object --stdin >/dev/null
	echo b | git hash-object --stdin >/dev/null
	git rev-parse --git-common-dir >/dev/null
	git notes --ref refs/notes/ai list HEAD >/dev/null
	git notes --ref refs/notes/agent-trace list HEAD >/dev/null
	now_us; echo $((REPLY - t0))
done | median_worst | sed "s/^/(g) git commands like the hook's:    /"
