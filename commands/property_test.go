package commands_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
)

// fileState is what a person would see of one path: kind, mode and bytes.
type fileState struct {
	kind    string // file, exec, symlink
	content string // bytes, or the link target
}

// readState reads every path under root except .git and the ignored
// fixtures (*.log, build/), independently of the snapshot package.
func readState(t *testing.T, root string) map[string]fileState {
	t.Helper()
	st := map[string]fileState{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.Name() == ".git" || rel == "build" || strings.HasSuffix(rel, ".log") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			st[rel] = fileState{kind: "symlink", content: target}
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			k := "file"
			if fi.Mode()&0o111 != 0 {
				k = "exec"
			}
			st[rel] = fileState{kind: k, content: string(data)}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("read state: %v", err)
	}
	return st
}

// diffStates describes how got differs from want, or "" when equal.
func diffStates(want, got map[string]fileState) string {
	var b strings.Builder
	keys := map[string]bool{}
	for k := range want {
		keys[k] = true
	}
	for k := range got {
		keys[k] = true
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		w, inW := want[k]
		g, inG := got[k]
		switch {
		case !inW:
			fmt.Fprintf(&b, "  %s: unexpected (%s)\n", k, g.kind)
		case !inG:
			fmt.Fprintf(&b, "  %s: missing (want %s)\n", k, w.kind)
		case w != g:
			fmt.Fprintf(&b, "  %s: want %s %q, got %s %q\n", k, w.kind, clip(w.content), g.kind, clip(g.content))
		}
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// treeHash hashes every file (path, mode, bytes) under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, _ := os.Lstat(p)
		fmt.Fprintf(h, "%s %v %d\n", p, fi.Mode(), fi.ModTime().UnixNano())
		if fi.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			h.Write(data)
		}
		return nil
	})
	return fmt.Sprintf("%x", h.Sum(nil))
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir+"/.home-unused", "GIT_CONFIG_NOSYSTEM=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// contents are the kinds of bytes an agent writes.
var contents = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return fmt.Sprintf("line one\nline %d\nend\n", r.Intn(1000)) },
	func(r *rand.Rand) string { return fmt.Sprintf("windows\r\nline %d\r\nend\r\n", r.Intn(1000)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("emoji 😀 and astral 𝄞 before\nchanged %d\n", r.Intn(1000))
	},
	func(r *rand.Rand) string { return fmt.Sprintf("no final newline %d", r.Intn(1000)) },
	func(r *rand.Rand) string { return "\ufeffBOM text\n" + fmt.Sprint(r.Intn(9)) },
	func(r *rand.Rand) string { return string([]byte{0xff, 0xfe, 'x', byte(r.Intn(256)), 0xc3}) }, // invalid UTF-8
	func(r *rand.Rand) string { // binary with NUL
		b := make([]byte, 64+r.Intn(200))
		r.Read(b)
		b[3] = 0
		return string(b)
	},
	func(r *rand.Rand) string { return "" },
	func(r *rand.Rand) string { return "lone\rcarriage\rreturns\r" + fmt.Sprint(r.Intn(99)) },
}

var dirs = []string{"", "src", "src/deep/er", "docs", "日本語", "new folder/nested/more", "a b"}
var names = []string{"main.go", "notes.txt", "héllo wörld.md", "ファイル.txt", "data.bin", "run.sh", "x", "tab\tname"}

// agentTurn makes random changes like an agent with shell access would.
func agentTurn(t *testing.T, r *rand.Rand, root string) {
	t.Helper()
	n := 1 + r.Intn(6)
	for i := 0; i < n; i++ {
		dir := dirs[r.Intn(len(dirs))]
		rel := filepath.Join(dir, names[r.Intn(len(names))])
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		fi, lerr := os.Lstat(p)
		switch op := r.Intn(10); {
		case op < 4: // create or modify
			if lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				os.Remove(p)
			}
			if err := os.WriteFile(p, []byte(contents[r.Intn(len(contents))](r)), 0o644); err != nil {
				t.Fatal(err)
			}
		case op < 6: // delete
			os.Remove(p)
		case op < 7: // chmod
			if lerr == nil && fi.Mode().IsRegular() {
				os.Chmod(p, fi.Mode().Perm()^0o111)
			}
		default: // symlink create or retarget
			os.Remove(p)
			targets := []string{"main.go", "../outside/secret", "src", "missing-" + fmt.Sprint(r.Intn(9)), "/etc/passwd"}
			if err := os.Symlink(targets[r.Intn(len(targets))], p); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestRewindPropertyExactStates runs random agent turns, then rewinds to
// every turn's start and end: each must reproduce that state byte for byte
// (modes and links included), undo must return to the state before, ignored
// files are never touched and .git stays byte-identical.
func TestRewindPropertyExactStates(t *testing.T) {
	seeds := 3
	if testing.Short() {
		seeds = 1
	}
	for seed := int64(1); seed <= int64(seeds); seed++ {
		t.Run(fmt.Sprint("seed", seed), func(t *testing.T) { propertyRun(t, seed) })
	}
}

func propertyRun(t *testing.T, seed int64) {
	ctx := context.Background()
	r := rand.New(rand.NewSource(seed))
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, ".gitignore"), []byte("*.log\nbuild/\n"), 0o644)
	os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644)
	git(t, root, "init", "-q")
	git(t, root, "add", "-A")
	git(t, root, "commit", "-qm", "init")
	os.MkdirAll(filepath.Join(root, "build"), 0o755)
	os.WriteFile(filepath.Join(root, "build", "out.bin"), []byte("ignored\x00build"), 0o644)
	os.WriteFile(filepath.Join(root, "debug.log"), []byte("ignored log\n"), 0o644)
	ignoredBefore := treeHash(t, filepath.Join(root, "build")) + treeHash(t, filepath.Join(root, "debug.log"))
	gitBefore := treeHash(t, filepath.Join(root, ".git"))

	svc, err := commands.Open(commands.Options{Root: root, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	const turns = 6
	var starts, ends []map[string]fileState
	for i := 0; i < turns; i++ {
		if _, err := svc.TurnStart(ctx, commands.TurnStartArgs{Prompt: fmt.Sprint("turn ", i+1)}); err != nil {
			t.Fatal(err)
		}
		starts = append(starts, readState(t, root))
		agentTurn(t, r, root)
		ends = append(ends, readState(t, root))
		if _, err := svc.TurnEnd(ctx, commands.TurnEndArgs{}); err != nil {
			t.Fatal(err)
		}
	}
	final := readState(t, root)
	check := func(target string, want map[string]fileState) {
		t.Helper()
		res, err := svc.Rewind(ctx, commands.RewindArgs{Target: target})
		if err != nil {
			t.Fatalf("rewind %s: %v", target, err)
		}
		if !res.Applied {
			t.Fatalf("rewind %s not applied: %s", target, res.FailureReason)
		}
		if d := diffStates(want, readState(t, root)); d != "" {
			t.Fatalf("rewind to %s: state differs:\n%s", target, d)
		}
		if res.Entry == "" {
			return // already there: nothing to undo
		}
		u, err := svc.Undo(ctx, commands.UndoArgs{})
		if err != nil || !u.Applied {
			t.Fatalf("undo after rewind %s: %v %+v", target, err, u)
		}
		if d := diffStates(final, readState(t, root)); d != "" {
			t.Fatalf("undo of rewind to %s: state differs:\n%s", target, d)
		}
	}
	for i := 0; i < turns; i++ {
		check(fmt.Sprint(i+1), starts[i])
		check(fmt.Sprintf("turn:%d:end", i+1), ends[i])
	}
	if got := treeHash(t, filepath.Join(root, "build")) + treeHash(t, filepath.Join(root, "debug.log")); got != ignoredBefore {
		t.Errorf("ignored files were touched")
	}
	if got := treeHash(t, filepath.Join(root, ".git")); got != gitBefore {
		t.Errorf(".git changed")
	}
	if _, err := os.Stat(filepath.Join(root, "..", "outside")); err == nil {
		t.Errorf("something was written outside the root")
	}
	_ = bytes.Equal
}

// TestRewindEachKindOfChange covers every kind of change once, explicitly:
// a mode-only change, a link retarget, a file replaced by a folder, binary,
// and an emptied folder that must disappear.
func TestRewindEachKindOfChange(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	w := func(rel, s string, mode fs.FileMode) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		os.Chmod(p, mode)
	}
	w("run.sh", "#!/bin/sh\necho hi\n", 0o644)
	w("thing", "a file that becomes a folder\n", 0o644)
	w("bin.dat", "\x00\x01\x02", 0o644)
	os.Symlink("run.sh", filepath.Join(root, "link"))
	svc, err := commands.Open(commands.Options{Root: root, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	svc.TurnStart(ctx, commands.TurnStartArgs{Prompt: "p"})
	before := readState(t, root)
	os.Chmod(filepath.Join(root, "run.sh"), 0o755)
	os.Remove(filepath.Join(root, "link"))
	os.Symlink("bin.dat", filepath.Join(root, "link"))
	os.Remove(filepath.Join(root, "thing"))
	w("thing/inside.txt", "now a folder\n", 0o644)
	w("bin.dat", "\x00\x09", 0o644)
	w("fresh/deep/new.txt", "new\n", 0o644)
	svc.TurnEnd(ctx, commands.TurnEndArgs{})
	after := readState(t, root)

	res, err := svc.Rewind(ctx, commands.RewindArgs{Target: "1"})
	if err != nil || !res.Applied {
		t.Fatalf("rewind: %v %+v", err, res)
	}
	if d := diffStates(before, readState(t, root)); d != "" {
		t.Fatalf("after rewind:\n%s", d)
	}
	if _, err := os.Stat(filepath.Join(root, "fresh")); err == nil {
		t.Errorf("the folder the rewind emptied is still there")
	}
	vias := map[string]snapshot.Via{}
	for _, f := range res.Plan.Files {
		vias[f.Path] = f.Via
	}
	for _, p := range []string{"run.sh", "link", "bin.dat"} {
		if vias[p] != snapshot.ViaDisk {
			t.Errorf("%s: via %q, want disk (mode, link or binary)", p, vias[p])
		}
	}
	u, err := svc.Undo(ctx, commands.UndoArgs{})
	if err != nil || !u.Applied {
		t.Fatalf("undo: %v %+v", err, u)
	}
	if d := diffStates(after, readState(t, root)); d != "" {
		t.Fatalf("after undo (%d files in its plan):\n%s", len(u.Plan.Files), d)
	}
}
