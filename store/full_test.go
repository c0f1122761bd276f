package store

import (
	"crypto/rand"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit/disk"
)

// TestFullDiskDuringPackWrite: the disk fills while a pack is written. The
// write fails with the disk's error; what was stored before reads back;
// once space is freed, putting the same content again stores it (it is
// not taken for stored because it once was buffered), and a fresh reader
// finds every object and no damage.
func TestFullDiskDuringPackWrite(t *testing.T) {
	root := disk.Small(t, 2<<20)
	dir := filepath.Join(root, "objects")
	o, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	before, _ := o.Put([]byte("stored before the disk filled"))
	if err := o.Sync(); err != nil {
		t.Fatal(err)
	}
	free := disk.Fill(t, root, 100<<10)
	var ids []ID
	var data [][]byte
	var failed error
	for i := 0; i < 4 && failed == nil; i++ {
		b := make([]byte, 60<<10) // incompressible
		rand.Read(b)
		id, err := o.Put(b)
		if err == nil {
			err = o.Sync()
		}
		ids, data, failed = append(ids, id), append(data, b), err
	}
	if failed == nil {
		t.Fatal("the disk never filled: the test tests nothing")
	}
	t.Logf("on a full disk: %v", failed)
	if got, err := o.Get(before); err != nil || string(got) != "stored before the disk filled" {
		t.Fatalf("an object stored before the disk filled: %v", err)
	}
	free()
	for i, b := range data {
		if _, err := o.Put(b); err != nil {
			t.Fatalf("put %d after freeing space: %v", i, err)
		}
	}
	if err := o.Sync(); err != nil {
		t.Fatalf("sync after freeing space: %v", err)
	}
	fresh := open(t, dir)
	for i, id := range ids {
		if got, err := fresh.Get(id); err != nil || string(got) != string(data[i]) {
			t.Fatalf("object %d put again after the disk was freed: %v", i, err)
		}
	}
	if rep, err := fresh.Verify(); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// TestFullDiskWhilePiecesAreWritten: several goroutines store objects
// while the pack's full pieces are written outside the store's lock, and
// the disk fills. A put or a sync fails with the disk's error; every
// object put again once space is freed reads back, from this store and a
// fresh one, and the store has no damage (the pack was cut back to the
// records written whole).
func TestFullDiskWhilePiecesAreWritten(t *testing.T) {
	defer func(n int) { flushAt = n }(flushAt)
	flushAt = 64 << 10 // many pieces per pack
	root := disk.Small(t, 4<<20)
	dir := filepath.Join(root, "objects")
	o, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	free := disk.Fill(t, root, 1<<20)
	const workers, each = 4, 40
	data := make([][]byte, workers*each)
	for i := range data {
		data[i] = make([]byte, 8<<10) // incompressible
		rand.Read(data[i])
	}
	errs := make(chan error, len(data)+1)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(data); i += workers {
				if _, err := o.Put(data[i]); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	errs <- o.Sync()
	close(errs)
	var failed error
	for err := range errs {
		if err != nil && failed == nil {
			failed = err
		}
	}
	if failed == nil {
		t.Fatal("the disk never filled: the test tests nothing")
	}
	if !strings.Contains(failed.Error(), "no space left") {
		t.Fatalf("the error does not say the disk is full: %v", failed)
	}
	free()
	for i, b := range data {
		if _, err := o.Put(b); err != nil {
			t.Fatalf("put %d after freeing space: %v", i, err)
		}
	}
	if err := o.Sync(); err != nil {
		t.Fatalf("sync after freeing space: %v", err)
	}
	fresh := open(t, dir)
	for i, b := range data {
		for _, s := range []*Objects{o, fresh} {
			if got, err := s.Get(Sum(b)); err != nil || string(got) != string(b) {
				t.Fatalf("object %d put again after the disk was freed: %v", i, err)
			}
		}
	}
	if rep, err := fresh.Verify(); err != nil || len(rep.Problems) > 0 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}
