package snapshot

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"reflect"
	"testing"
)

// TestDiffTreesAgreesWithManifests: the paths DiffTrees lists between two
// snapshots are exactly those whose entries differ between their
// manifests, sorted, with each side's entry, for random pairs of trees
// where files change, appear, go, and become folders (or the other way
// round), and against the empty snapshot.
func TestDiffTreesAgreesWithManifests(t *testing.T) {
	objs, err := OpenObjects(filepath.Join(t.TempDir(), "objects"))
	if err != nil {
		t.Fatal(err)
	}
	var ids []ID
	for i := 0; i < 4; i++ {
		id, err := objs.Put([]byte(fmt.Sprint("content ", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	r := rand.New(rand.NewSource(1))
	names := []string{"a", "b", "c"}
	manifest := func() Manifest {
		m := Manifest{}
		for n := r.Intn(12); n > 0; n-- {
			p := names[r.Intn(3)]
			for d := r.Intn(4); d > 0; d-- {
				p += "/" + names[r.Intn(3)]
			}
			m[p] = Entry{Kind: Kind(1 + r.Intn(2)), ID: ids[r.Intn(len(ids))]}
		}
		// A path that is a file and a folder's prefix: keep the folder.
		for p := range m {
			for q := range m {
				if len(q) > len(p) && q[:len(p)+1] == p+"/" {
					delete(m, p)
				}
			}
		}
		return m
	}
	for round := 0; round < 500; round++ {
		ma, mb := manifest(), manifest()
		if round%50 == 0 {
			ma = Manifest{}
		}
		a, err := WriteTree(objs, ma, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := WriteTree(objs, mb, nil)
		if err != nil {
			t.Fatal(err)
		}
		var want []PathDiff
		all := Manifest{}
		for p, e := range ma {
			all[p] = e
		}
		for p, e := range mb {
			all[p] = e
		}
		for _, p := range all.Paths() {
			ea, inA := ma[p]
			eb, inB := mb[p]
			if inA != inB || ea != eb {
				want = append(want, PathDiff{Path: p, A: ea, InA: inA, B: eb, InB: inB})
			}
		}
		got, err := DiffTrees(objs, a, b)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 && len(want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d:\na %v\nb %v\nDiffTrees %+v\nwant      %+v", round, ma, mb, got, want)
		}
	}
}

// BenchmarkDiffTrees: the paths changed between two snapshots of 11,700
// files in 1,300 folders (three deep) that differ in 1,000 files spread
// over the folders, read from a store just opened (no tree in memory), as
// a command-line rewind of 1,000 files does.
func BenchmarkDiffTrees(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "objects")
	objs, err := OpenObjects(dir)
	if err != nil {
		b.Fatal(err)
	}
	ma, mb := Manifest{}, Manifest{}
	n := 0
	for i := 0; i < 1300; i++ {
		for j := 0; j < 9; j++ {
			p := fmt.Sprintf("d%d/e%d/f%d/file%d.go", i%13, i%100, i, j)
			data := fmt.Sprintf("package p // %s\n", p)
			id, err := objs.Put([]byte(data))
			if err != nil {
				b.Fatal(err)
			}
			ma[p] = Entry{Kind: KindFile, ID: id, Size: int64(len(data))}
			mb[p] = ma[p]
			if (i*9+j)%12 == 0 && n < 1000 {
				n++
				id, _ := objs.Put([]byte(data + "// changed\n"))
				mb[p] = Entry{Kind: KindFile, ID: id, Size: int64(len(data)) + 11}
			}
		}
	}
	a, err := WriteTree(objs, ma, nil)
	if err != nil {
		b.Fatal(err)
	}
	c, err := WriteTree(objs, mb, nil)
	if err != nil {
		b.Fatal(err)
	}
	if err := objs.Sync(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fresh, err := OpenObjects(dir)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		d, err := DiffTrees(fresh, a, c)
		if err != nil || len(d) != n {
			b.Fatalf("%d paths, want %d: %v", len(d), n, err)
		}
		b.StopTimer()
		fresh.Close()
		b.StartTimer()
	}
}
