// Command live is the language-client side of bench/live.sh: it starts
// `rewind-lsp` (no arguments: LSP over stdio) on one root, initializes it,
// and then answers one-line commands read from its stdin with one line on
// its stdout, so that a shell script can interleave its own file changes
// and git commands with the server's turns:
//
//	init               initialize + initialized          -> "ok <ms>"
//	ready SECONDS      poll rewind.status until watchMode is no longer
//	                   "starting"                         -> "<watchMode> <ms waited> <lastCaptureMs>"
//	start              rewind.turnStart {"prompt":"p"}    -> "<wall µs> <server cpu µs> <turn>"
//	end                rewind.turnEnd {}                  -> "<wall µs> <server cpu µs> <turn> <files changed> <lastCaptureMs>"
//	quiet              wait (at most 5 s) until the server used < 1 ms of CPU in
//	                   100 ms: the GC or delayed work of what came before is
//	                   done                               -> "<ms waited>"
//	cpu                the server's CPU so far            -> "<utime+stime ticks> <µs, summed schedstat of its threads>"
//	rss                the server's VmRSS                 -> "<kB>"
//	pid                the server's process id            -> "<pid>"
//	status             rewind.status                      -> its JSON result
//	quit               shutdown + exit, wait for the process
//
// The wall time of start/end runs from just before the request is written
// to the server's pipe to the moment its reply has been read. The server
// CPU is the growth of the summed sum_exec_runtime of its threads
// (/proc/PID/task/*/schedstat, ns resolution) across the call.
//
// Requests the server sends (window/workDoneProgress/create, ...) are
// answered with a null result; notifications are ignored, except
// window/logMessage and window/showMessage, which are copied to stderr.
// Errors go to stderr and the reply line starts with "error".
//
// It is a benchmark helper, not part of rewind-lsp: its connection is
// testkit.Conn, the client the tests use.
package main
