package gitignore

import (
	"os"
	"path/filepath"
	"testing"
)

// sideFiles are names editors and the rewind writer put beside edited
// files; lookalikes are names a person may well use.
var (
	sideFiles = []string{".#notes.txt", "#notes.txt#", ".notes.txt.swp", ".notes.txt.swo", ".notes.txt.swn",
		".notes.txt.swx", ".swp", "4913", "notes.txt~", ".notes.txt.kate-swp", ".rewind-0f3a9c.tmp",
		".rewind-link-4242"}
	lookalikes = []string{"notes.txt", "#notes.txt", "notes#", "#", "~", "notes~.txt", "notes.swp", ".swp.txt",
		"49130", "x4913", ".notes.txt.sw", ".notes.txt.SWP", "notes.kate-swp.txt", ".rewind-notes.txt",
		"rewind-1.tmp", ".rewindignore"}
)

// TestIgnoredEditorSideFiles: editors' side files are ignored in a git
// repository (whatever .gitignore says) and in a plain folder, but never a
// folder of that name, and never a file git tracks; other names keep git's
// verdict.
func TestIgnoredEditorSideFiles(t *testing.T) {
	isolateGit(t)
	for _, repo := range []bool{true, false} {
		name := map[bool]string{true: "git", false: "no repository"}[repo]
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{".gitignore": "!*~\n!.#*\n", "backup~/inside.txt": "", "sub/.#deep/x": ""}
			for _, n := range sideFiles {
				files[n] = "side"
				files["sub/"+n] = "side"
			}
			for _, n := range lookalikes {
				files[n] = "mine"
			}
			delete(files, ".#notes.txt")
			writeFiles(t, root, files)
			// Emacs's lock file is a dangling symbolic link.
			if err := os.Symlink("user@host.1234:1700000000", filepath.Join(root, ".#notes.txt")); err != nil {
				t.Fatal(err)
			}
			if repo {
				writeFiles(t, root, map[string]string{"tracked~": "committed", "sub/4913": "data"})
				git(t, root, "init", "-q")
				git(t, root, "add", "-f", "tracked~", "sub/4913")
				git(t, root, "commit", "-q", "-m", "side-file names on purpose")
			}
			var got map[string]bool
			if repo {
				got = compareWithGit(t, root)
			} else {
				ig, err := NewIgnorer(root)
				if err != nil {
					t.Fatal(err)
				}
				got = walkVerdicts(t, ig, root)
			}
			for _, n := range sideFiles {
				want := !(repo && n == "4913")
				if !got[n] || got["sub/"+n] != want {
					t.Errorf("%s: ignored=%v, sub/%s ignored=%v; want true, %v", n, got[n], n, got["sub/"+n], want)
				}
			}
			for _, p := range append(lookalikes, "backup~", "backup~/inside.txt", "sub/.#deep", "sub/.#deep/x") {
				if got[p] {
					t.Errorf("%s is ignored; only side files are", p)
				}
			}
			if repo && got["tracked~"] {
				t.Error("a side-file name git tracks is ignored")
			}
		})
	}
}
