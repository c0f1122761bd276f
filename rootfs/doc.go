// Package rootfs is the one way rewind-lsp reads and changes a workspace
// folder tree: a Root opened at the workspace, and Dirs opened inside it,
// through which entries are listed, stat'ed, read, created, renamed,
// removed, linked and chmod'ed by name.
//
// Its promises hold on every system: nothing is ever written outside the
// root or through a symbolic link (a folder swapped for a link while an
// operation runs stops it with ErrLink); no entry whose name a file system
// may take for ".git" (".GIT", "GIT~1", ".git." …) is opened or written;
// every file written is durable once Root.Sync returns; on Windows a file
// another program holds open is retried briefly, then reported as ErrBusy
// with nothing half-written.
//
// Linux has a fast implementation on file descriptors (getdents, openat2 or
// openat with O_NOFOLLOW, fstatat, one syncfs per operation). Every other
// system, and Linux built with the `portable` tag (so the whole test suite
// runs on it there too), has the generic one on os.Root: os.Root refuses
// escapes from the root but follows links inside it, so each folder is
// entered by name after an Lstat, and checked with os.SameFile to be the
// folder that Lstat saw; each written file is synced on its own (f.Sync,
// F_FULLFSYNC on macOS) and folders are synced at Root.Sync (never on
// Windows, which refuses it).
package rootfs
