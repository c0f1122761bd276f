#!/usr/bin/env bash
# Makes the e2e workspace: a small project and two agent turns recorded with the rewind-lsp
# command line, exactly as an agent hook would. Saves the states a test compares against:
#   $EXPECT/turn1-start/  the files when turn 1 started (what "rewind to turn 1" restores)
#   $EXPECT/turn2-end/    the files when turn 2 ended (what "undo" brings back)
# usage: make-workspace.sh LSP_BIN WORKSPACE STORE EXPECT
set -euo pipefail
LSP_BIN=$1 WS=$2 STORE=$3 EXPECT=$4
rm -rf "$WS" "$STORE" "$EXPECT"
mkdir -p "$WS" "$STORE" "$EXPECT"
cli() { "$LSP_BIN" --root "$WS" --store "$STORE" "$@"; }
snap() { mkdir -p "$EXPECT/$1"; (cd "$WS" && tar cf - .) | (cd "$EXPECT/$1" && tar xf -); }

# The project before the agent ran.
cat > "$WS/main.go" <<'GO'
package main

import "fmt"

func main() {
	fmt.Println("hello")
}
GO
printf 'Notes kept by a human.\nDo not delete.\n' > "$WS/notes.txt"
snap turn1-start

cli turn start --prompt "add a greeting function" >/dev/null
cat > "$WS/main.go" <<'GO'
package main

import "fmt"

func main() {
	fmt.Println(greet())
}
GO
cat > "$WS/greet.go" <<'GO'
package main

func greet() string {
	return "hello from greet"
}
GO
cli turn end --summary "added greet()" >/dev/null

cli turn start --prompt "greet by name and drop the notes" >/dev/null
cat > "$WS/main.go" <<'GO'
package main

import (
	"fmt"
	"os"
)

func main() {
	name := "world"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	fmt.Println(greet(name))
}
GO
cat > "$WS/greet.go" <<'GO'
package main

func greet(name string) string {
	return "hello, " + name
}
GO
rm "$WS/notes.txt"
cli turn end --summary "greet takes a name" >/dev/null
snap turn2-end
