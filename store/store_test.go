package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/rewind-lsp/rewind-lsp/testkit/wine"
)

func open(t *testing.T, dir string) *Objects {
	t.Helper()
	o, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close() })
	return o
}

// content is a reproducible, compressible blob.
func content(i int) []byte {
	return []byte(strings.Repeat(fmt.Sprintf("object %d says hello\n", i), 1+i%50))
}

func packFiles(t *testing.T, dir string) []string {
	t.Helper()
	names, err := listPacks(filepath.Join(dir, "packs"))
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func mustGet(t *testing.T, o *Objects, id ID, want []byte) {
	t.Helper()
	got, err := o.Get(id)
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("get %s: wrong content", id)
	}
}

// TestPackRoundTrip: objects of one capture go into one pack with an
// index; another process (a fresh store) reads them back verified, and the
// same content is never stored twice.
func TestPackRoundTrip(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir)
	var ids []ID
	for i := 0; i < 600; i++ { // past indexMin: the pack gets an index
		id, err := o.Put(content(i))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
		mustGet(t, o, id, content(i)) // readable before the pack is sealed
	}
	if _, err := o.Put(content(3)); err != nil {
		t.Fatal(err)
	}
	if err := o.Sync(); err != nil {
		t.Fatal(err)
	}
	packs := packFiles(t, dir)
	if len(packs) != 1 {
		t.Fatalf("%d packs after one sync, want 1", len(packs))
	}
	if _, err := os.Stat(idxPath(packs[0])); err != nil {
		t.Fatalf("no index beside the pack: %v", err)
	}
	p, _ := readIndex(packs[0])
	if len(p.ents) != 600 {
		t.Fatalf("index lists %d records, want 600 (no duplicate)", len(p.ents))
	}
	fresh := open(t, dir)
	for i, id := range ids {
		mustGet(t, fresh, id, content(i))
	}
	// Tiny and incompressible content is stored as it is, and reads back.
	for _, b := range [][]byte{nil, []byte("x"), randomBytes(1, 5000)} {
		id, err := fresh.Put(b)
		if err != nil {
			t.Fatal(err)
		}
		got, err := fresh.Get(id)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%d bytes: %v", len(b), err)
		}
	}
}

func randomBytes(seed int64, n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(seed)).Read(b)
	return b
}

// TestUnsealedPackIsScanned: a process that died after writing records but
// before sealing its pack (no index) leaves objects others still read.
func TestUnsealedPackIsScanned(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir)
	var ids []ID
	for i := 0; i < 50; i++ {
		id, _ := o.Put(content(i))
		ids = append(ids, id)
	}
	o.mu.Lock()
	o.w.flush()
	o.w.f.Close() // dies: the lock goes with the descriptor
	o.w = nil
	o.mu.Unlock()
	if _, err := os.Stat(idxPath(packFiles(t, dir)[0])); err == nil {
		t.Fatal("an unsealed pack has an index")
	}
	fresh := open(t, dir)
	for i, id := range ids {
		mustGet(t, fresh, id, content(i))
	}
	rep, err := fresh.Verify()
	if err != nil || len(rep.Problems) != 0 || rep.Objects != 50 {
		t.Fatalf("verify: %v %+v", err, rep)
	}
}

// TestTornPackTail: a pack cut in the middle of a record (a crash while
// writing) is read up to its last whole record; the torn record is never
// used, fsck notes it without calling it damage, and gc drops it.
func TestTornPackTail(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir)
	var ids []ID
	for i := 0; i < 20; i++ {
		id, _ := o.Put(content(i))
		ids = append(ids, id)
	}
	o.Sync()
	pk := packFiles(t, dir)[0]
	os.Remove(idxPath(pk)) // the index had not been written yet
	fi, _ := os.Stat(pk)
	os.Truncate(pk, fi.Size()-7)
	fresh := open(t, dir)
	torn := -1
	for i, id := range ids {
		got, err := fresh.Get(id)
		if err != nil {
			var de *DamagedError
			if !errors.As(err, &de) || torn >= 0 {
				t.Fatalf("object %d: %v", i, err)
			}
			torn = i
			continue
		}
		if !bytes.Equal(got, content(i)) {
			t.Fatalf("object %d: wrong content", i)
		}
	}
	if torn < 0 {
		t.Fatal("the torn record was read")
	}
	rep, err := fresh.Verify()
	if err != nil || len(rep.Problems) != 0 {
		t.Fatalf("verify: %v %+v", err, rep)
	}
	if len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "torn tail") {
		t.Fatalf("notes %q", rep.Notes)
	}
	// The next process still writes (into a pack of its own) and the torn
	// content is healed by a Put of it.
	if err := fresh.PutID(ids[torn], content(torn)); err != nil {
		t.Fatal(err)
	}
	fresh.Sync()
	mustGet(t, open(t, dir), ids[torn], content(torn))
	rp, err := fresh.Repack(nil, 0)
	if err != nil || rp.TornBytes == 0 {
		t.Fatalf("repack: %v %+v", err, rp)
	}
	// Other opens of the store (the two above) still hold the torn pack.
	wine.Skip(t, "POSIX delete semantics (a pack removed while open elsewhere stays listed until closed)")
	if rep, _ := open(t, dir).Verify(); len(rep.Notes) != 0 || len(rep.Problems) != 0 || rep.Objects != 20 {
		t.Fatalf("after gc: %+v", rep)
	}
}

// TestDamagedRecordHealed: a record damaged on disk is reported (Get,
// fsck), goes on the damaged list, and the next Put of its content writes
// a good copy that every reader then uses.
func TestDamagedRecordHealed(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir)
	var ids []ID
	for i := 0; i < 10; i++ {
		id, _ := o.Put(content(i))
		ids = append(ids, id)
	}
	o.Sync()
	p, _ := loadPack(packFiles(t, dir)[0], false)
	victim := ids[4]
	lo, _ := p.find(victim)
	f, _ := os.OpenFile(p.path, os.O_RDWR, 0)
	f.WriteAt([]byte{0xff, 0xfe}, p.ents[lo].off+recHeader+3)
	f.Close()

	r := open(t, dir)
	if _, err := r.Get(victim); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("get of a damaged record: %v", err)
	}
	mustGet(t, r, ids[5], content(5)) // its neighbours are intact
	rep, _ := open(t, dir).Verify()
	if len(rep.Problems) != 1 || rep.Problems[0].ID != victim {
		t.Fatalf("verify: %+v", rep)
	}
	if d := open(t, dir).Damaged(); len(d) != 1 || d[0] != victim {
		t.Fatalf("damaged list %v", d)
	}
	// A capture that has the content heals it.
	w := open(t, dir)
	if err := w.PutID(victim, content(4)); err != nil {
		t.Fatal(err)
	}
	w.Sync()
	if d := w.Damaged(); len(d) != 0 {
		t.Fatalf("still on the damaged list after healing: %v", d)
	}
	mustGet(t, open(t, dir), victim, content(4))
	// gc keeps the good copy only.
	if _, err := w.Repack(nil, 0); err != nil {
		t.Fatal(err)
	}
	if rep, _ := open(t, dir).Verify(); len(rep.Problems) != 0 || rep.Objects != 10 {
		t.Fatalf("after gc: %+v", rep)
	}
}

// TestPutVerifiesWhatItReuses: content stored damaged (but not yet known
// to be) is written again by the next Put of it instead of being reused.
func TestPutVerifiesWhatItReuses(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir)
	id, _ := o.Put(content(7))
	o.Sync()
	p, _ := loadPack(packFiles(t, dir)[0], false)
	f, _ := os.OpenFile(p.path, os.O_RDWR, 0)
	f.WriteAt([]byte{0}, p.ents[0].off+recHeader+1)
	f.Close()
	w := open(t, dir)
	if err := w.PutID(id, content(7)); err != nil {
		t.Fatal(err)
	}
	w.Sync()
	if n := len(packFiles(t, dir)); n != 2 {
		t.Fatalf("%d packs: the damaged copy was reused", n)
	}
	mustGet(t, open(t, dir), id, content(7))
}

// TestFallbackHeals: a reader of a damaged object whose content a
// fallback still has (the file on disk) gets it, and the object is healed.
func TestFallbackHeals(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir)
	id, _ := o.Put(content(1))
	o.Sync()
	pk := packFiles(t, dir)[0]
	data, _ := os.ReadFile(pk)
	data[len(data)-1] ^= 1
	os.WriteFile(pk, data, 0o600)
	r := open(t, dir)
	r.AddFallback(func(want ID) ([]byte, bool) { return []byte("not it"), true })
	r.AddFallback(func(want ID) ([]byte, bool) { return content(1), want == id })
	mustGet(t, r, id, content(1))
	r.Sync()
	mustGet(t, open(t, dir), id, content(1)) // no fallback needed any more
}

// TestSmallPacksMerged: one pack per capture does not pile up: past
// mergeMin the small ones are merged, and everything still reads; also
// when the first pack is much smaller than the next ones (a capture of one
// small file), which must not keep the others from being merged.
func TestSmallPacksMerged(t *testing.T) {
	t.Run("even", func(t *testing.T) { testSmallPacksMerged(t, false) })
	t.Run("a tiny first pack", func(t *testing.T) { testSmallPacksMerged(t, true) })
}

func testSmallPacksMerged(t *testing.T, tiny bool) {
	dir := t.TempDir()
	o := open(t, dir)
	var ids []ID
	if tiny {
		o.Put([]byte("tiny"))
		if err := o.Sync(); err != nil {
			t.Fatal(err)
		}
	}
	for turn := 0; turn < 60; turn++ {
		for j := 0; j < 3; j++ {
			id, _ := o.Put(content(turn*3 + j))
			ids = append(ids, id)
		}
		if err := o.Sync(); err != nil {
			t.Fatal(err)
		}
		if n := len(packFiles(t, dir)); n > mergeMin+1 {
			t.Fatalf("turn %d: %d packs", turn, n)
		}
	}
	fresh := open(t, dir)
	for i, id := range ids {
		mustGet(t, fresh, id, content(i))
	}
	want := len(ids)
	if tiny {
		want++
	}
	if rep, _ := fresh.Verify(); len(rep.Problems) != 0 || rep.Objects != want {
		t.Fatalf("verify: %+v", rep)
	}
}

// TestRepackKeeps: gc keeps what it is told into one pack and frees the
// rest; packs younger than the grace period are left alone.
func TestRepackKeeps(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir)
	keep := map[ID]bool{}
	var all []ID
	for i := 0; i < 100; i++ {
		id, _ := o.Put(content(i))
		all = append(all, id)
		if i%2 == 0 {
			keep[id] = true
		}
		if i%10 == 9 {
			o.Sync()
		}
	}
	rep, err := o.Repack(func(id ID) bool { return keep[id] }, time.Hour)
	if err != nil || rep.ObjectsRemoved != 0 {
		t.Fatalf("young packs were touched: %v %+v", err, rep)
	}
	rep, err = o.Repack(func(id ID) bool { return keep[id] }, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rep.ObjectsRemoved != 50 || rep.BytesAfter >= rep.BytesBefore {
		t.Fatalf("repack: %+v", rep)
	}
	if n := len(packFiles(t, dir)); n != 1 {
		t.Fatalf("%d packs after gc", n)
	}
	fresh := open(t, dir)
	for i, id := range all {
		_, err := fresh.Get(id)
		if keep[id] != (err == nil) {
			t.Fatalf("object %d kept=%v: %v", i, keep[id], err)
		}
	}
}

// TestLooseObjectsReadAndRepacked: a store from before packs (one zstd
// file per object under objects/ab/…, and temp files a crash left) is read
// as it is; gc moves what it keeps into a pack and removes the rest and
// the stray temp files.
func TestLooseObjectsReadAndRepacked(t *testing.T) {
	dir := t.TempDir()
	enc, _ := zstd.NewWriter(nil)
	var ids []ID
	for i := 0; i < 30; i++ {
		id := Sum(content(i))
		p := loosePath(dir, id)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, enc.EncodeAll(content(i), nil), 0o600)
		ids = append(ids, id)
	}
	stray := filepath.Join(filepath.Dir(loosePath(dir, ids[0])), ".tmp-123456")
	os.WriteFile(stray, []byte("half an object"), 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(stray, old, old)
	o := open(t, dir)
	for i, id := range ids {
		mustGet(t, o, id, content(i))
		if !o.Has(id) {
			t.Fatalf("Has(%d) false", i)
		}
	}
	if rep, _ := o.Verify(); len(rep.Problems) != 0 || rep.Objects != 30 {
		t.Fatalf("verify: %+v", rep)
	}
	rep, err := o.Repack(func(id ID) bool { return id != ids[0] }, 0)
	if err != nil || rep.ObjectsRemoved != 1 || rep.TempsRemoved != 1 {
		t.Fatalf("repack: %v %+v", err, rep)
	}
	if hasLooseShards(dir) {
		t.Fatal("loose objects left after gc")
	}
	fresh := open(t, dir)
	for i, id := range ids[1:] {
		mustGet(t, fresh, id, content(i+1))
	}
}

// TestNewerFormatRefused: a store written by a newer rewind-lsp is refused
// with a message saying so; a damaged format file is reported by fsck.
func TestNewerFormatRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, formatFile), []byte("rewind-lsp objects 9\n"), 0o600)
	if _, err := Open(dir, Options{}); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Fatalf("open of a format 9 store: %v", err)
	}
	os.WriteFile(filepath.Join(dir, formatFile), []byte("rewind-lsp objects 2\xff"), 0o600)
	o := open(t, dir)
	if rep, _ := o.Verify(); len(rep.Problems) != 1 || !strings.Contains(rep.Problems[0].Where, formatFile) {
		t.Fatalf("verify: %+v", rep)
	}
}
