// Command gen writes a generated source tree shaped like a large monorepo,
// for bench/mono.sh: a given number of tracked files in folders of mixed
// depth (1 to 12 levels below the root, most at 3–7) and mixed sizes
// (log-normal: median ~2 KB, a long tail to 1 MiB, a few incompressible
// assets), in top-level projects that each favour one language, with a
// root .gitignore and nested ones, and ignored build output (build/,
// node_modules/, __pycache__/, *.o) on top of the tracked files.
//
// Text is cut from a corpus (the text files of $(go env GOROOT)/src by
// default), so it compresses like source code; every file starts with a
// line naming it, so no two files have the same content. The tree is a
// pure function of -seed and -files: the same flags give the same bytes.
//
//	gen -out DIR [-files 500000] [-seed 1] [-corpus DIR] [-ignored 0.12]
//
// It prints one line of totals on stdout: tracked files, folders, bytes,
// ignored files, ignored bytes. It is a benchmark helper, not part of
// rewind-lsp: standard library only.
package main
