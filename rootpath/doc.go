// Package rootpath says how rewind-lsp names a workspace root and where its
// store lives: a root's one canonical spelling (RealRoot: links resolved,
// the case the file system keeps, a Windows drive letter in upper case), a
// path's real folder (RealPath), a path as the root names it (Rel, and
// RelReal through links), and the store folder of a root
// (DefaultStoreDir: $REWIND_LSP_HOME/<base>-<first 12 hex of the sha256 of
// the root>, under the state folder of each system). It imports nothing of
// rewind-lsp.
package rootpath
