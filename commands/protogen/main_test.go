package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestGeneratedFilesAreFresh: the editors' protocol files and the
// generated parts of docs/PROTOCOL.md are what the registry makes now.
func TestGeneratedFilesAreFresh(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, name))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale: run go generate ./commands (%v)", name, err)
		}
	}
}

// pointer is "docs/PROTOCOL.md" or "docs/ARCHITECTURE.md" followed by the
// names of sections: `(docs/PROTOCOL.md, "Commands", "Rewind modes")`.
var pointer = regexp.MustCompile(`docs/(PROTOCOL|ARCHITECTURE)\.md((?:,\s*"[^"\n]+")+)`)

// commentBreak joins a comment continued on the next line.
var commentBreak = regexp.MustCompile(`\n\s*(?://|--|\*|#)?\s*`)

// TestDocPointersNameSections: every comment or page that points at a
// section of docs/PROTOCOL.md or docs/ARCHITECTURE.md by name points at a
// heading that exists.
func TestDocPointersNameSections(t *testing.T) {
	root := filepath.Join("..", "..")
	headings := map[string]map[string]bool{}
	for _, doc := range []string{"PROTOCOL", "ARCHITECTURE"} {
		data, err := os.ReadFile(filepath.Join(root, "docs", doc+".md"))
		if err != nil {
			t.Fatal(err)
		}
		headings[doc] = map[string]bool{}
		for _, line := range strings.Split(string(data), "\n") {
			if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") {
				headings[doc][strings.ToLower(strings.Trim(h, "` "))] = true
			}
		}
	}
	found := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".ts", ".lua", ".md", ".sh", ".mjs", ".el", ".txt":
		default:
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		text := commentBreak.ReplaceAllString(string(data), " ")
		for _, m := range pointer.FindAllStringSubmatch(text, -1) {
			for _, name := range regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(m[2], -1) {
				found++
				if !headings[m[1]][strings.ToLower(name[1])] {
					t.Errorf("%s points at docs/%s.md, %q: there is no such section", p, m[1], name[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 10 {
		t.Fatalf("found only %d pointers: the scan is broken", found)
	}
}

// outsidePointer is a pointer at what a clone of the repository does not
// hold: the project's external specification, or its issue tracker's
// numbers ("issue 12", "defect 3").
var outsidePointer = regexp.MustCompile(`(?i)SPEC\s*§|SPEC section|SPEC\.md|\bissues? #?[0-9]+|\bdefect [0-9]+`)

// TestNothingPointsOutsideTheRepo: code, scripts and the repository's own
// pages explain themselves or point at docs/, never at a document or an
// issue that a person who clones the project cannot read.
func TestNothingPointsOutsideTheRepo(t *testing.T) {
	root := filepath.Join("..", "..")
	scanned := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules" || d.Name() == "testdata" || d.Name() == "out") {
			return filepath.SkipDir
		}
		switch filepath.Ext(p) {
		case ".go", ".ts", ".lua", ".md", ".sh", ".mjs", ".el":
		default:
			return nil
		}
		if p == filepath.Join(root, "commands", "protogen", "main_test.go") {
			return nil // this test names what it looks for
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		scanned++
		for i, line := range strings.Split(string(data), "\n") {
			if m := outsidePointer.FindString(line); m != "" {
				t.Errorf("%s:%d points outside the repository (%q): explain in place or point at docs/", p, i+1, m)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if scanned < 100 {
		t.Fatalf("scanned only %d files: the walk is broken", scanned)
	}
}
