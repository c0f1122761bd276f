package snapshot

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/fileop"
)

// TestPlanDiffAppliesWithGit: the diff text of every kind of change —
// content, creation, deletion, mode, symbolic links and their retargets,
// a file becoming a link and back — is git's own format: `git apply`
// takes it and leaves exactly the target (content, executable bit, links).
func TestPlanDiffAppliesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	type file struct {
		kind Kind
		data string
	}
	cur := map[string]file{
		"mod.txt":      {KindFile, "one\ntwo\nthree\n"},
		"gone.txt":     {KindFile, "bye\n"},
		"run.sh":       {KindFile, "#!/bin/sh\necho hi\n"},
		"both.sh":      {KindExec, "#!/bin/sh\nold\n"},
		"link":         {KindSymlink, "mod.txt"},
		"oldlink":      {KindSymlink, "gone.txt"},
		"becomes-link": {KindFile, "plain\n"},
		"was-link":     {KindSymlink, "run.sh"},
		"noeol.txt":    {KindFile, "a\nb"},
	}
	tgt := map[string]file{
		"mod.txt":      {KindFile, "one\n2\nthree\n"},
		"new.txt":      {KindFile, "fresh\n"},
		"empty.txt":    {KindFile, ""},
		"run.sh":       {KindExec, "#!/bin/sh\necho hi\n"},
		"both.sh":      {KindFile, "#!/bin/sh\nnew\n"},
		"link":         {KindSymlink, "new.txt"},
		"newlink":      {KindSymlink, "dir/x"},
		"becomes-link": {KindSymlink, "mod.txt"},
		"was-link":     {KindFile, "now a file\n"},
		"noeol.txt":    {KindFile, "a\nc"},
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		c := exec.Command("git", args...)
		c.Dir = dir
		out, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q")
	write := func(p string, f file) {
		abs := filepath.Join(dir, p)
		os.Remove(abs)
		if f.kind == KindSymlink {
			os.Symlink(f.data, abs)
			return
		}
		mode := os.FileMode(0o644)
		if f.kind == KindExec {
			mode = 0o755
		}
		os.WriteFile(abs, []byte(f.data), mode)
		os.Chmod(abs, mode)
	}
	for p, f := range cur {
		write(p, f)
	}
	var text strings.Builder
	paths := map[string]bool{}
	for p := range cur {
		paths[p] = true
	}
	for p := range tgt {
		paths[p] = true
	}
	for p := range paths {
		c, inC := cur[p]
		g, inT := tgt[p]
		op := FileOp{Path: p, BeforeKind: c.kind, AfterKind: g.kind}
		switch {
		case !inC:
			op.Change, op.After, op.BeforeKind = fileop.Create, []byte(g.data), 0
		case !inT:
			op.Change, op.Before, op.AfterKind = fileop.Delete, []byte(c.data), 0
		default:
			op.Change, op.Before, op.After = fileop.Modify, []byte(c.data), []byte(g.data)
		}
		FillOp(&op)
		op.Diff = DiffText(&op)
		if strings.Contains(op.Diff, "→") || strings.Contains(op.Diff, "@@ symbolic link") {
			t.Errorf("%s: a non-git line in the diff:\n%s", p, op.Diff)
		}
		text.WriteString(op.Diff)
	}
	patch := filepath.Join(t.TempDir(), "p.diff")
	os.WriteFile(patch, []byte(text.String()), 0o644)
	git("apply", "--check", patch)
	git("apply", patch)
	for p, f := range tgt {
		abs := filepath.Join(dir, p)
		fi, err := os.Lstat(abs)
		if err != nil {
			t.Errorf("%s missing after git apply", p)
			continue
		}
		switch f.kind {
		case KindSymlink:
			if got, _ := os.Readlink(abs); fi.Mode()&os.ModeSymlink == 0 || got != f.data {
				t.Errorf("%s: want a link to %q, got mode %v target %q", p, f.data, fi.Mode(), got)
			}
		default:
			data, _ := os.ReadFile(abs)
			exec := fi.Mode()&0o100 != 0
			if !fi.Mode().IsRegular() || string(data) != f.data || exec != (f.kind == KindExec) {
				t.Errorf("%s: got %q (mode %v), want %q exec=%v", p, data, fi.Mode(), f.data, f.kind == KindExec)
			}
		}
	}
	for p := range cur {
		if _, ok := tgt[p]; !ok {
			if _, err := os.Lstat(filepath.Join(dir, p)); err == nil {
				t.Errorf("%s still there after git apply", p)
			}
		}
	}
	// Binary content is named the way git names it.
	op := FileOp{Path: "img.png", Change: fileop.Modify, Before: []byte("\x00\x01"), After: []byte("\x00\x02"), BeforeKind: KindFile, AfterKind: KindFile}
	FillOp(&op)
	op.Diff = DiffText(&op)
	if op.Diff != "diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n" {
		t.Errorf("binary diff: %q", op.Diff)
	}
}
