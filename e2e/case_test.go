package e2e_test

import (
	"os"
	"sort"
	"strings"
	"testing"
)

// names lists the root's entries as the file system spells them.
func names(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range ents {
		n = append(n, e.Name())
	}
	sort.Strings(n)
	return strings.Join(n, " ")
}

// TestCaseOnlyRenameRewound: a rename that changes only the case of a name
// is a change, and a rewind brings the old spelling back (on a file system
// that ignores case — macOS, Windows — too: the old name is removed before
// the new one is written); the undo brings the new one.
func TestCaseOnlyRenameRewound(t *testing.T) {
	w := newWS(t)
	w.Write("Readme.md", "# hello\n")
	w.Write("src/Main.go", "package main\n")
	w.turn("rename", func() {
		if err := os.Rename(w.Abs("Readme.md"), w.Abs("README.md")); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(w.Abs("src/Main.go"), w.Abs("src/main.go")); err != nil {
			t.Fatal(err)
		}
	})
	if got := names(t, w.Root) + " | " + names(t, w.Abs("src")); got != "README.md src | main.go" {
		t.Skipf("this file system did not rename by case only (%s): nothing to rewind", got)
	}
	w.ok("rewind", "1")
	if got := names(t, w.Root) + " | " + names(t, w.Abs("src")); got != "Readme.md src | Main.go" {
		t.Fatalf("after the rewind: %s; want Readme.md and src/Main.go", got)
	}
	w.ok("undo")
	if got := names(t, w.Root) + " | " + names(t, w.Abs("src")); got != "README.md src | main.go" {
		t.Fatalf("after the undo: %s; want README.md and src/main.go", got)
	}
}
