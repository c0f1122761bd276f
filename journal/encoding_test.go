package journal

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"os"
	"strings"
	"testing"
)

// TestOldLinesReadAndWriteBackIdentically: journal lines written before
// snapshot ids were typed (ids as strings, fields left out when empty) read
// into the same entries and encode back to the very same bytes, so a
// journal keeps one format whichever version wrote which line. The empty
// tree (an empty root: 64 zeros) stays a state, distinct from none.
func TestOldLinesReadAndWriteBackIdentically(t *testing.T) {
	const a = "7083162e23b4b710d32b62a0e2902fad7dd6c6e056de0744617fff3612bdb932"
	const b = "1cf1e05f1b1a74204db344be0e2e329a77f18898fb5cb0d05035d0cd614546df"
	empty := strings.Repeat("0", 64)
	var lines [][]byte
	for _, js := range []string{
		`{"id":"01a20b76-6959-7245-a0f2-b2b8e0ebf0e6","time":"2026-11-24T02:50:39.321149248Z","kind":"rewind","actor":"cli","snapshot":"` + a + `","target":"1","targetEntry":"01a20b76-68db-779b-b3ab-58a2b0f7a14d","mode":"files","undoSnapshot":"` + b + `","files":["new.txt"],"pending":true}`,
		`{"id":"01a20b76-6959-7245-a0f2-b2b8e0ebf0e7","time":"2026-11-24T02:50:39.321149248Z","kind":"done","actor":"cli","applied":false,"failureReason":"no","of":"01a20b76-6959-7245-a0f2-b2b8e0ebf0e6"}`,
		`{"id":"01a20b76-6959-7245-a0f2-b2b8e0ebf0e8","time":"2026-11-24T02:50:39.321149248Z","kind":"gc","gone":["` + a + `","` + b + `"]}`,
		`{"id":"01a20b76-6959-7245-a0f2-b2b8e0ebf0e9","time":"2026-11-24T02:50:39.321149248Z","kind":"summary","report":"r"}`,
		`{"id":"01a20b76-6959-7245-a0f2-b2b8e0ebf0ea","time":"2026-11-24T02:50:39.321149248Z","kind":"turnEnd","snapshot":"` + empty + `","turn":1}`,
	} {
		lines = append(lines, fmt.Appendf(nil, "%08x %s\n", crc32.Checksum([]byte(js), crcTable), js))
	}
	// The journal of the version-1 store fixture, as that version wrote it.
	fixture, err := os.ReadFile("../e2e/testdata/store-v1/store/journal")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.SplitAfter(fixture, []byte{'\n'}) {
		if len(l) > 0 {
			lines = append(lines, l)
		}
	}
	for _, line := range lines {
		e, err := decodeLine(bytes.TrimSuffix(line, []byte{'\n'}))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		again, err := encodeLine(e)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, line) {
			t.Errorf("written back differently:\nwas %s\nnow %s", line, again)
		}
	}
	ents, bad, _ := parseJournal(bytes.Join(lines, nil))
	if len(bad) != 0 || ents[0].Snapshot.String() != a || ents[0].UndoSnapshot.String() != b || len(ents[2].Gone) != 2 || ents[2].Gone[1].String() != b || !ents[3].Snapshot.IsZero() || !ents[4].Snapshot.Set || !ents[4].Snapshot.ID.IsZero() {
		t.Fatalf("typed ids read wrong: %v %+v", bad, ents[:4])
	}
}
