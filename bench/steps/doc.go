// Command steps is the Go side of bench/steps.sh: it measures the real
// rewind-lsp binary recording and using steps (each tool call of an
// agent's turn that changed files), through a language server it starts
// on a root and drives over stdio with testkit.Conn, and with the command
// line, and prints the table of the goals.
//
//	steps -bin B -work DIR -goroot G [-base B0] [-small TREE] [-big TREE]
//	      [-n N] [-zstd PATH] [-profile] [-history=false]
//
// Goal 1, on each tree (a git repository; -small the ~11k-file copy of
// GOROOT/src, -big the 500k-file generated one): a server on the tree with
// a fresh store (initializationOptions storeDir), a turn of one session
// open (rewind.turnStart), then per step, from an idle server:
// rewind.toolCall pre (Write, paths [f]), f changed, rewind.toolCall post;
// the same as a Bash call (capture: true). The wall time of each request,
// the server's CPU over it (/proc/PID/task/*/schedstat) and the server's
// REWIND_LSP_TRACE lines logged during the post.
//
// Goal 3, on -small, in the same turn: Bash steps that append a block of
// another file's text to 10 files; du -sb of the store before and after
// (the server idle, the size still) against the zstd -3 size of the 10
// files' new content (-zstd, the C tool; without it klauspost/compress at
// SpeedDefault).
//
// Goal 2, on -small with -base: `rewind-lsp hook claude-code` fed
// PreToolUse then PostToolUse of a Write (the file changed between) and of
// a Bash call, a server running, for B and for B0, each on its own copy of
// the tree with its own fresh store and server, the two alternating; the
// session's turn opened by UserPromptSubmit, its transcript written as
// Claude Code writes it.
//
// Goal 4 (-history): two roots of ~300 files, one turn of 10 steps and one
// of 1,000 recorded through a server (then stopped); with the command line
// and no server: log --json --limit 50, rewind T.(S/2) then undo, revert
// T.(S/2) then undo, diff T.(S/2).
//
// Every measure runs once as a warm-up, then -n times; the report gives
// medians, the ratios and whether each goal is met. With -profile the
// servers write CPU profiles (REWIND_LSP_CPUPROFILE) into -work, for `go
// tool pprof BINARY PROFILE`.
//
// It is a benchmark helper, not part of rewind-lsp: its LSP connection is
// testkit.Conn, the client the tests use.
package main
