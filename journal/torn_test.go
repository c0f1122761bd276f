package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func appendKinds(t *testing.T, j *Journal, kinds ...string) {
	t.Helper()
	l, err := j.Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	for _, k := range kinds {
		if err := l.Append(&Entry{Kind: Kind(k), Label: k}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTornTailSetAside: each way a crash can leave the journal (cut inside
// its first line, inside a later one, with the tail already set aside once
// and the cut not made, with a tail of only a checksum) is made whole by
// the next append: the torn bytes land in a file beside the journal, every
// whole entry before them stays, ReadAll finds no damage, and Repairs names
// each set-aside tail exactly once.
func TestTornTailSetAside(t *testing.T) {
	cases := []struct {
		name  string
		whole int    // whole lines kept before the tail
		tail  string // the torn bytes
		again bool   // the tail was set aside before, the cut never made
	}{
		{"inside the first line", 0, `0badf00d {"id":"01`, false},
		{"inside a later line", 3, `1234abcd {"id":"01a2","kind":"checkpoint","lab`, false},
		{"set aside before the crash cut it", 2, `deadbeef {"kind":"tu`, true},
		{"only a checksum", 1, "cafe", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			j := openT(t, dir)
			appendKinds(t, j, "checkpoint", "checkpoint", "checkpoint")
			data, _ := os.ReadFile(j.Path())
			lines := bytes.SplitAfter(data, []byte{'\n'})
			kept := bytes.Join(lines[:c.whole], nil)
			if err := os.WriteFile(j.Path(), append(append([]byte(nil), kept...), c.tail...), 0o600); err != nil {
				t.Fatal(err)
			}
			if _, bad, _ := j.ReadAll(); len(bad) != 1 || bad[0].Err != ErrTornLine {
				t.Fatalf("a torn journal reads as %v", bad)
			}
			if c.again {
				f, _ := os.OpenFile(j.Path(), os.O_RDWR, 0)
				fi, _ := f.Stat()
				j.setAside(f, fi.Size())
				f.Close()
				// The crash came before the cut: the journal is torn again.
				os.WriteFile(j.Path(), append(append([]byte(nil), kept...), c.tail...), 0o600)
			}
			appendKinds(t, j, "undo")
			ents, bad, err := j.ReadAll()
			if err != nil || len(bad) != 0 {
				t.Fatalf("after the append: %v %v", bad, err)
			}
			if len(ents) != c.whole+1 || ents[len(ents)-1].Kind != "undo" {
				t.Fatalf("after the append %d entries, want the %d whole ones and the new one", len(ents), c.whole)
			}
			after, _ := os.ReadFile(j.Path())
			if !bytes.HasPrefix(after, kept) {
				t.Fatalf("a whole line was changed by the repair")
			}
			reps, err := j.Repairs()
			if err != nil || len(reps) != 1 {
				t.Fatalf("repairs: %+v %v (want one)", reps, err)
			}
			r := reps[0]
			if got, _ := os.ReadFile(r.File); string(got) != c.tail || r.Offset != int64(len(kept)) || r.Bytes != int64(len(c.tail)) || filepath.Dir(r.File) != dir {
				t.Fatalf("repair %+v holds %q, want %q from byte %d beside the journal", r, got, c.tail, len(kept))
			}
			if again, _ := j.Repairs(); len(again) != 0 {
				t.Fatalf("a repair named twice: %+v", again)
			}
		})
	}
}

// TestDamageBeforeTheTailStays: only the torn tail is set aside; a damaged
// line before it is whole (it ends with a newline) and stays an error for
// the person to act on.
func TestDamageBeforeTheTailStays(t *testing.T) {
	dir := t.TempDir()
	j := openT(t, dir)
	appendKinds(t, j, "checkpoint", "checkpoint", "checkpoint")
	data, _ := os.ReadFile(j.Path())
	damaged := strings.Replace(string(data), `"checkpoint"`, `"checkpoinX"`, 1) + "torn"
	os.WriteFile(j.Path(), []byte(damaged), 0o600)
	appendKinds(t, j, "undo")
	ents, bad, err := j.ReadAll()
	if err != nil || len(bad) != 1 || bad[0].Line != 1 || len(ents) != 3 {
		t.Fatalf("after the append: %d entries, damage %v (want line 1 only), %v", len(ents), bad, err)
	}
	if reps, _ := j.Repairs(); len(reps) != 1 {
		t.Fatalf("repairs %+v, want the torn tail only", reps)
	}
}
