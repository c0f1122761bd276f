package store

import (
	"crypto/rand"
	"path/filepath"
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
