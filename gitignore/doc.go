// Package gitignore decides which paths of a workspace root are ignored,
// exactly as git would: .gitignore files at every level, .rewindignore files
// (same syntax, overriding the .gitignore of their folder), the
// repository's info/exclude and core.excludesFile, and the paths git's index
// tracks, which are never ignored. It reads git's own files (the config and
// the index) without running git.
//
// The one departure from git: the files editors write beside the ones being
// edited (swap, backup, lock files) and the rewind writer's temporary files
// are ignored unless git tracks them.
package gitignore
