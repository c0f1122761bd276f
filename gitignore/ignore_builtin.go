package gitignore

import "strings"

// Built-in ignores: the files editors write beside the ones a person edits,
// and the rewind writer's own temporary files. They are never
// captured, so they never open an automatic turn (the watcher asks the same
// Ignored) and never count as a conflict, whatever the ignore files say.
//
// They are the one departure from git's verdicts, and a narrow one: they
// apply to files and symbolic links only, never to folders, and like every
// other ignore rule they give way to git's index — a side-file name that git
// tracks (a committed `notes.txt~`, a data file named 4913) is captured as
// git would keep it. A .gitignore negation ("!*~") does not bring them back:
// use `git add` for that.
//
// The names:
//
//	.#name         Emacs lock file (a symbolic link, or a file where links fail)
//	#name#         Emacs auto-save file
//	.name.swp      Vim swap file: .sw[a-z] covers .swp, .swo, .swn… and the
//	               .swx Vim makes to test a folder
//	4913           the file Vim creates to test whether a folder is writable
//	name~          Emacs, Vim and nano backup
//	.name.kate-swp Kate swap file
//	.rewind-*.tmp  a file the rewind writer is writing (put into place), or
//	               the old one it replaced, until it is removed
//	.rewind-link-* a symbolic link the rewind writer is making
func isSideFile(name string) bool {
	n := len(name)
	switch {
	case n < 2:
		return false
	case name[n-1] == '~':
		return true
	case strings.HasPrefix(name, ".#"):
		return true
	case name[0] == '#' && name[n-1] == '#' && n >= 3:
		return true
	case name == "4913":
		return true
	}
	if name[0] != '.' {
		return false
	}
	if n >= 4 && name[n-4:n-1] == ".sw" && name[n-1] >= 'a' && name[n-1] <= 'z' {
		return true // ".swp" alone is Vim's swap file of an unnamed buffer
	}
	return strings.HasSuffix(name, ".kate-swp") ||
		strings.HasPrefix(name, ".rewind-link-") ||
		(strings.HasPrefix(name, ".rewind-") && strings.HasSuffix(name, ".tmp"))
}
