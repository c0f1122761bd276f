package conv

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWholeFile: a whole file is seen under its name complete or not at
// all — the unnamed file where the system has one, and the hidden
// temporary file elsewhere (removed when dropped, and a stale one left by
// a crash removed by the next) — and never replaces a file.
func TestWholeFile(t *testing.T) {
	for _, named := range []bool{false, true} {
		dir := t.TempDir()
		create := func() *wholeFile {
			t.Helper()
			var w *wholeFile
			var err error
			if named {
				w, err = createTemp(dir, 0o640)
			} else {
				w, err = createWhole(dir, 0o640)
			}
			if err != nil {
				t.Fatal(err)
			}
			return w
		}
		names := func() []string {
			ents, _ := os.ReadDir(dir)
			var out []string
			for _, e := range ents {
				out = append(out, e.Name())
			}
			return out
		}
		stale := filepath.Join(dir, PartialPrefix+"from-a-crash")
		if named {
			os.WriteFile(stale, []byte("half"), 0o600)
			old := time.Now().Add(-2 * time.Hour)
			os.Chtimes(stale, old, old)
		}
		w := create()
		w.Write([]byte("being written"))
		if n := names(); named && len(n) != 1 || !named && len(n) != 0 {
			t.Fatalf("named=%v: while writing the folder holds %v", named, n)
		}
		w.discard()
		if n := names(); len(n) != 0 {
			t.Fatalf("named=%v: after a dropped file the folder holds %v", named, n)
		}
		w = create()
		w.Write([]byte("whole\n"))
		dst := filepath.Join(dir, "fork.jsonl")
		if err := w.publish(dst); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(dst); string(data) != "whole\n" {
			t.Fatalf("named=%v: published %q", named, data)
		}
		if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o640 {
			t.Fatalf("named=%v: mode %v", named, fi.Mode())
		}
		w = create()
		w.Write([]byte("another"))
		if err := w.publish(dst); err == nil {
			t.Fatalf("named=%v: a published file replaced one that exists", named)
		}
		w.discard()
		if n := names(); len(n) != 1 || n[0] != "fork.jsonl" {
			t.Fatalf("named=%v: the folder holds %v, want only the published file", named, n)
		}
		if data, _ := os.ReadFile(dst); string(data) != "whole\n" {
			t.Fatalf("named=%v: the existing file became %q", named, data)
		}
	}
}
