package rootfs

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// benchTree is the tree the benchmarks walk: $REWIND_BENCH_TREE, else
// GOROOT/src (about 11k files, as bench/ uses).
func benchTree(b *testing.B) string {
	if t := os.Getenv("REWIND_BENCH_TREE"); t != "" {
		return t
	}
	return filepath.Join(runtime.GOROOT(), "src")
}

// walk lists every folder below rel, stats every entry and, with read,
// reads every file: what a capture does (a warm one reads nothing).
func walk(b *testing.B, r *Root, rel string, l *Listing, read bool) (files int) {
	d, err := r.OpenDir(rel)
	if err != nil {
		b.Fatal(err)
	}
	defer d.Close()
	if err := d.List(l); err != nil {
		b.Fatal(err)
	}
	var subs []string
	for _, e := range l.Entries {
		name := string(e.Name)
		st, err := d.Lstat(name)
		if err != nil {
			b.Fatal(err)
		}
		switch st.Type() {
		case TypeDir:
			subs = append(subs, join(rel, name))
		case TypeFile:
			files++
			if read {
				if _, err := d.ReadFile(name, st.Size); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	for _, s := range subs {
		files += walk(b, r, s, l, read)
	}
	return files
}

// BenchmarkWalkStat is a warm capture's file-system work: list and stat
// (compare `go test -bench Walk ./rootfs` with `-tags portable`).
func BenchmarkWalkStat(b *testing.B) { benchWalk(b, false) }

// BenchmarkWalkRead is a first capture's: list, stat and read.
func BenchmarkWalkRead(b *testing.B) { benchWalk(b, true) }

func benchWalk(b *testing.B, read bool) {
	r, err := Open(benchTree(b))
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	var l Listing
	files := 0
	for b.Loop() {
		files = walk(b, r, "", &l, read)
	}
	b.ReportMetric(float64(files), "files")
}
