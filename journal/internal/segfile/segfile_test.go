package segfile

import (
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func rec(key uint64, val uint32) []byte {
	b := make([]byte, 12)
	binary.BigEndian.PutUint64(b, key)
	binary.BigEndian.PutUint32(b[8:], val)
	return b
}

// write makes a file with an array of n 16-byte records and a table whose
// keys repeat (key i/7 for record i), so runs of one key cross blocks.
func write(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "seg")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Begin("array", 16, 0)
	for i := 0; i < n; i++ {
		r := make([]byte, 16)
		binary.LittleEndian.PutUint64(r, uint64(i)*3)
		w.Add(r)
	}
	w.End()
	w.Begin("table", 12, 8)
	for i := 0; i < n; i++ {
		w.Add(rec(uint64(i/7), uint32(i)))
	}
	w.End()
	if err := w.Close(map[string]int{"n": n}); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRecordsAndTables(t *testing.T) {
	const n = 5000 // several blocks of each section
	f, err := Open(write(t, n))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if string(f.Meta()) != `{"n":5000}` {
		t.Errorf("meta %s", f.Meta())
	}
	if f.Count("array") != n || f.Count("table") != n || f.Count("none") != 0 {
		t.Fatalf("counts %d %d", f.Count("array"), f.Count("table"))
	}
	for _, i := range []int{0, 1, 254, 255, 256, n - 1} {
		r, err := f.Record("array", i)
		if err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint64(r); got != uint64(i)*3 {
			t.Errorf("record %d holds %d", i, got)
		}
	}
	if _, err := f.Record("array", n); err == nil {
		t.Error("a record past the end was read")
	}
	// Every key: exactly its seven values, in order, whichever blocks
	// they are in.
	for k := uint64(0); k <= uint64(n/7); k++ {
		var vals []uint32
		key := rec(k, 0)[:8]
		err := f.Find("table", key, key, func(r []byte) bool {
			vals = append(vals, binary.BigEndian.Uint32(r[8:]))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		want := 7
		if int(k)*7+7 > n {
			want = n - int(k)*7
		}
		if len(vals) != want {
			t.Fatalf("key %d: %d values %v, want %d", k, len(vals), vals, want)
		}
		for j, v := range vals {
			if v != uint32(int(k)*7+j) {
				t.Fatalf("key %d: values %v", k, vals)
			}
		}
	}
	// From the other end: the same records, last first, for every key,
	// and a stop after the first.
	for k := uint64(0); k <= uint64(n/7); k++ {
		key := rec(k, 0)[:8]
		var fwd, back []uint32
		f.Find("table", key, key, func(r []byte) bool { fwd = append(fwd, binary.BigEndian.Uint32(r[8:])); return true })
		err := f.FindBack("table", key, key, func(r []byte) bool { back = append(back, binary.BigEndian.Uint32(r[8:])); return true })
		if err != nil {
			t.Fatal(err)
		}
		slices.Reverse(back)
		if !slices.Equal(fwd, back) {
			t.Fatalf("key %d: back %v, forth %v", k, back, fwd)
		}
		var last []uint32
		f.FindBack("table", key, key, func(r []byte) bool { last = append(last, binary.BigEndian.Uint32(r[8:])); return false })
		if len(last) != 1 || last[0] != fwd[len(fwd)-1] {
			t.Fatalf("key %d: the last record %v, want %d", k, last, fwd[len(fwd)-1])
		}
	}
	for _, missing := range []uint64{uint64(n/7) + 1, 1 << 40} {
		key := rec(missing, 0)[:8]
		f.FindBack("table", key, key, func(r []byte) bool { t.Fatalf("key %d: found %x", missing, r); return false })
	}
	// A range, and a prefix bound.
	var count int
	f.Find("table", rec(10, 0)[:8], rec(12, 0)[:8], func([]byte) bool { count++; return true })
	if count != 21 {
		t.Errorf("keys 10..12: %d records, want 21", count)
	}
	count = 0
	f.Find("table", []byte{0, 0, 0, 0, 0, 0, 0}, []byte{0, 0, 0, 0, 0, 0, 0}, func([]byte) bool { count++; return true })
	if count != 256*7 {
		t.Errorf("prefix of 7 zero bytes: %d records, want %d", count, 256*7)
	}
}

func TestDamageIsAnError(t *testing.T) {
	path := write(t, 2000)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// A byte of the array's third block.
	data[8+2*BlockSize+100] ^= 1
	bad := path + ".bad"
	os.WriteFile(bad, data, 0o600)
	f, err := Open(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Record("array", 0); err != nil {
		t.Errorf("an intact block: %v", err)
	}
	if _, err := f.Record("array", 2*(payload/16)+1); !errors.Is(err, ErrDamaged) {
		t.Errorf("a damaged block read as %v", err)
	}
	// The directory, and a file cut short.
	for _, cut := range [][]byte{data[:len(data)-30], append(append([]byte(nil), data[:len(data)-40]...), make([]byte, 40)...)} {
		os.WriteFile(bad, cut, 0o600)
		if _, err := Open(bad); !errors.Is(err, ErrDamaged) {
			t.Errorf("a cut or zeroed end opened: %v", err)
		}
	}
}

func TestTableOrderIsChecked(t *testing.T) {
	w, err := Create(filepath.Join(t.TempDir(), "seg"))
	if err != nil {
		t.Fatal(err)
	}
	w.Begin("table", 12, 8)
	w.Add(rec(2, 0))
	w.Add(rec(1, 0))
	if err := w.Close(nil); err == nil {
		t.Error("records out of order were written")
	}
}
