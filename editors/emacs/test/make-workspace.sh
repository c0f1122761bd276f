#!/usr/bin/env bash
# Makes the Emacs suites' workspace: a small project and one agent turn recorded with the
# rewind-lsp command line, as an agent hook would, and the states the suites compare against:
#   $EXPECT/start/  before turn 1 (what "rewind to turn 1" restores)
#   $EXPECT/end/    when turn 1 ended (the state the suites start from)
#   $EXPECT/hunk/   the end state with only the first hunk of a.txt reverted (line 2)
# The store is the default one under $REWIND_LSP_HOME, which the editor's server uses too.
# usage: make-workspace.sh LSP_BIN WORKSPACE EXPECT
set -euo pipefail
LSP_BIN=$1 WS=$2 EXPECT=$3
: "${REWIND_LSP_HOME:?}"
rm -rf "$WS" "$EXPECT"
mkdir -p "$WS" "$EXPECT"
cli() { "$LSP_BIN" --root "$WS" "$@"; }
snap() { mkdir -p "$EXPECT/$1"; (cd "$WS" && tar cf - .) | (cd "$EXPECT/$1" && tar xf -); }
lines() { for i in $(seq 1 10); do case $i in "$1") echo "LINE $i (agent)" ;; "$2") echo "LINE $i (agent)" ;; *) echo "line $i" ;; esac; done; }

lines 0 0 > "$WS/a.txt"
printf 'bee\n' > "$WS/b.txt"
printf '# Notes\n\nKept by a human.\n' > "$WS/notes.md"
printf 'untouched\n' > "$WS/keep.txt"
snap start

cli turn start --prompt "edit a, add c, drop b" >/dev/null
lines 2 9 > "$WS/a.txt"
printf 'sea\n' > "$WS/c.txt"
rm "$WS/b.txt"
printf '# Notes\n\nKept by a human.\nAgent was here.\n' > "$WS/notes.md"
cli turn end --summary "two hunks in a.txt" >/dev/null
snap end

snap hunk
lines 9 0 > "$EXPECT/hunk/a.txt"
