package soak

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// fileState is what the driver knows of one file it changes: its kind
// ('f' a file, 'x' an executable file, 'l' a symbolic link) and the sha256
// of its content (a link's target).
type fileState struct {
	kind byte
	sum  [32]byte
}

// state is the tree as the driver made it: every file it ever changed that
// exists, by root-relative path. Files it never changed are the tree's
// initial files, checked by their stat.
type state map[string]fileState

func (s state) clone() state { return maps.Clone(s) }

// stamp is the stat of a file the driver never changes.
type stamp struct {
	mode  fs.FileMode
	size  int64
	mtime time.Time
}

// model is the expected tree: the initial listing of the files the driver
// never changes, and the current state of those it does.
type model struct {
	root    string
	initial map[string]stamp // every file of the tree at the start
	touched map[string]bool  // paths the driver ever changed (kept out of initial's check)
	cur     state
}

func newModel(root string) (*model, error) {
	m := &model{root: root, initial: map[string]stamp{}, touched: map[string]bool{}, cur: state{}}
	err := walkTree(root, func(rel string, fi fs.FileInfo) error {
		m.initial[rel] = stamp{fi.Mode(), fi.Size(), fi.ModTime()}
		return nil
	})
	return m, err
}

// walkTree lists every file and link of root below it, .git left out.
func walkTree(root string, fn func(rel string, fi fs.FileInfo) error) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		return fn(filepath.ToSlash(rel), fi)
	})
}

// read returns the state of rel on disk (ok false: absent).
func readState(root, rel string) (fileState, bool, error) {
	p := filepath.Join(root, filepath.FromSlash(rel))
	fi, err := os.Lstat(p)
	if os.IsNotExist(err) || errors.Is(err, syscall.ENOTDIR) {
		return fileState{}, false, nil // ENOTDIR: a folder above is a file now
	}
	if err != nil {
		return fileState{}, false, err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		t, err := os.Readlink(p)
		if err != nil {
			return fileState{}, false, err
		}
		return fileState{'l', sha256.Sum256([]byte(t))}, true, nil
	case fi.Mode().IsRegular():
		data, err := os.ReadFile(p)
		if err != nil {
			return fileState{}, false, err
		}
		k := byte('f')
		if fi.Mode()&0o111 != 0 {
			k = 'x'
		}
		return fileState{k, sha256.Sum256(data)}, true, nil
	}
	return fileState{}, false, fmt.Errorf("%s is neither a file nor a link", rel)
}

// adopt makes rels files the driver changes: their state now is read from
// the disk, and from now on they are checked by content.
func (m *model) adopt(rels []string) error {
	for _, rel := range rels {
		if err := m.note(rel); err != nil {
			return err
		}
	}
	return nil
}

// note records that the driver changed rel: its state now is read back
// from the disk.
func (m *model) note(rel string) error {
	m.touched[rel] = true
	st, ok, err := readState(m.root, rel)
	if err != nil {
		return err
	}
	if ok {
		m.cur[rel] = st
	} else {
		delete(m.cur, rel)
	}
	return nil
}

// check compares the disk with want: every changed file byte for byte and
// by kind, every other file by its stat, no file missing, none extra. It
// returns the differences (at most a few, then a count).
func (m *model) check(want state) []string {
	var diffs []string
	add := func(f string, a ...any) { diffs = append(diffs, fmt.Sprintf(f, a...)) }
	seen := map[string]bool{}
	err := walkTree(m.root, func(rel string, fi fs.FileInfo) error {
		seen[rel] = true
		if w, ok := want[rel]; ok {
			got, present, err := readState(m.root, rel)
			switch {
			case err != nil:
				add("%s: %v", rel, err)
			case !present:
				add("%s: gone while checking", rel)
			case got.kind != w.kind:
				add("%s: kind %c, want %c", rel, got.kind, w.kind)
			case got.sum != w.sum:
				add("%s: content differs", rel)
			}
			return nil
		}
		if m.touched[rel] {
			add("%s: exists, want it absent", rel)
			return nil
		}
		st, ok := m.initial[rel]
		switch {
		case !ok:
			add("%s: a file nobody made", rel)
		case st.mode != fi.Mode() || st.size != fi.Size() || !st.mtime.Equal(fi.ModTime()):
			add("%s: a file the driver never changed was changed (%v %d %v, was %v %d %v)", rel,
				fi.Mode(), fi.Size(), fi.ModTime().Format(time.RFC3339Nano), st.mode, st.size, st.mtime.Format(time.RFC3339Nano))
		}
		return nil
	})
	if err != nil {
		add("walk: %v", err)
	}
	for rel := range want {
		if !seen[rel] {
			add("%s: missing", rel)
		}
	}
	for rel := range m.initial {
		if !seen[rel] && !m.touched[rel] {
			add("%s: missing (never changed by the driver)", rel)
		}
	}
	sort.Strings(diffs)
	if len(diffs) > 6 {
		diffs = append(diffs[:6], fmt.Sprintf("… and %d more", len(diffs)-6))
	}
	return diffs
}

// resync makes the model the disk after a failed check, so that one
// divergence is reported once rather than at every later check.
func (m *model) resync() {
	for rel := range m.touched {
		m.note(rel)
	}
	walkTree(m.root, func(rel string, fi fs.FileInfo) error {
		if _, ok := m.initial[rel]; !ok && !m.touched[rel] && !strings.HasPrefix(rel, ".git/") {
			m.note(rel)
		}
		return nil
	})
}

// differing lists the paths whose state differs between a and b.
func differing(a, b state) []string {
	var out []string
	for p, x := range a {
		if y, ok := b[p]; !ok || x != y {
			out = append(out, p)
		}
	}
	for p := range b {
		if _, ok := a[p]; !ok {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
