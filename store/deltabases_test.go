package store

import (
	"os"
	"testing"
	"time"
)

// openWithDeltas opens a store whose deltas are "the base's content, then
// the body".
func openWithDeltas(t *testing.T, dir string) *Objects {
	t.Helper()
	var o *Objects
	o, err := Open(dir, Options{Delta: func(base ID, body []byte) ([]byte, error) {
		b, err := o.Get(base)
		if err != nil {
			return nil, err
		}
		return append(append([]byte(nil), b...), body...), nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// age makes every pack written so far look written an hour ago.
func age(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	for _, p := range packFiles(t, dir) {
		os.Chtimes(p, old, old)
		os.Chtimes(idxPath(p), old, old)
	}
}

// TestRepackKeepsTheBasesOfWhatStays: a delta stored within the grace (its
// pack is left as it is) against a base in an old pack that nothing keeps,
// and a kept delta whose base is itself a delta: after a repack every
// object left in the store reads back, and fsck (Verify) finds no damage.
// Before, the old base was dropped and the young delta could no longer be
// read ("its base …: missing"), though a later capture finding its ID
// stored would have used it.
func TestRepackKeepsTheBasesOfWhatStays(t *testing.T) {
	dir := t.TempDir()
	o := openWithDeltas(t, dir)
	base, _ := o.Put(content(1))
	mid := Sum(append(content(1), "mid\n"...))
	if err := o.PutDelta(mid, base, []byte("mid\n")); err != nil {
		t.Fatal(err)
	}
	other, _ := o.Put(content(2))
	o.Sync()
	age(t, dir)

	// Within the grace: a delta against the old base, and a delta against
	// a delta (kept by keep below, as a snapshot's tree is).
	young := Sum(append(content(1), "young\n"...))
	if err := o.PutDelta(young, base, []byte("young\n")); err != nil {
		t.Fatal(err)
	}
	o.Sync()
	top := Sum(append(append(content(1), "mid\n"...), "top\n"...))
	if err := o.PutDelta(top, mid, []byte("top\n")); err != nil {
		t.Fatal(err)
	}
	o.Sync()

	// keep names only top, as a Reach that missed mid's chain would; the
	// young packs stay whatever keep says.
	rep, err := o.Repack(func(id ID) bool { return id == top }, 10*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ObjectsRemoved != 1 {
		t.Errorf("removed %d objects, want 1 (only the one nothing needs)", rep.ObjectsRemoved)
	}
	fresh := openWithDeltas(t, dir)
	for name, id := range map[string]ID{"the young delta": young, "its old base": base, "the kept delta": top, "its base, a delta": mid} {
		if _, err := fresh.Get(id); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := fresh.Get(other); err == nil {
		t.Errorf("the object nothing needs is still there")
	}
	v, err := fresh.Verify()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range v.Problems {
		t.Errorf("fsck: %s: %s", p.Where, p.Err)
	}
}
