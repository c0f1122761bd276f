module github.com/rewind-lsp/rewind-lsp

go 1.26.8

require (
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/fsnotify/fsnotify v1.9.0
	github.com/google/uuid v1.6.0
	github.com/klauspost/compress v1.18.0
	github.com/sergi/go-diff v1.4.0
	github.com/sourcegraph/jsonrpc2 v0.2.2
	golang.org/x/sys v0.30.0
)
