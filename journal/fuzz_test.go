package journal

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/store"
)

// FuzzJournal feeds arbitrary bytes to the journal reader: it must never
// panic, every entry it returns must have an id and a kind, the active
// branch holds each entry once, and a valid record appended after the
// garbage (the way Append does: a torn tail is ended with a newline, never
// cut) reads back after every entry read before.
func FuzzJournal(f *testing.F) {
	good, _ := encodeLine(&Entry{ID: "0190a0b0-0000-7000-8000-000000000001", Kind: KindTurnStart, Turn: 1, Time: time.Unix(1, 0)})
	f.Add(good)
	f.Add(append(append([]byte{}, good...), []byte("00000000 {\"id\":\"torn")...))
	f.Add([]byte("zzzzzzzz {}\n"))
	f.Add([]byte("\n\n\n"))
	f.Add([]byte("12345678 {\"id\":\"x\",\"kind\":\"turnStart\"}\n"))
	// A turn whose start line is damaged, between intact entries.
	var chain []byte
	for _, e := range sampleEntries() {
		line, _ := encodeLine(e)
		if e.Kind == KindTurnStart && e.Turn == 1 {
			line[0] ^= 1
		}
		chain = append(chain, line...)
	}
	f.Add(chain)
	f.Fuzz(func(t *testing.T, data []byte) {
		ents, _, err := parseJournal(data)
		if err != nil {
			t.Fatal(err)
		}
		known := map[EntryID]bool{}
		for _, e := range ents {
			if e.ID == "" || e.Kind == "" {
				t.Fatalf("entry without id or kind: %+v", e)
			}
			known[e.ID] = true
		}
		// The view of these bytes as a journal must not panic or loop on
		// any parent links; its branch holds each entry once.
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "journal"), data, 0o600)
		h, err := openT(t, dir).History()
		if err != nil {
			t.Fatal(err)
		}
		seen := map[pos]bool{}
		for p := h.v.Leaf; p != none; p = h.v.Rec(p).Parent {
			e := h.at(p)
			if seen[p] || e == nil || (!known[e.ID] && !e.Damaged) {
				t.Fatalf("branch entry %+v twice or from nowhere", e)
			}
			seen[p] = true
		}
		h.OpenTurns()
		h.Turns(0, 0)
		var buf bytes.Buffer
		buf.Write(data)
		if len(data) > 0 && data[len(data)-1] != '\n' {
			buf.WriteByte('\n') // what the next append does to a torn tail
		}
		buf.Write(good)
		ents2, _, _ := parseJournal(buf.Bytes())
		if len(ents2) < len(ents)+1 || ents2[len(ents2)-1].ID != "0190a0b0-0000-7000-8000-000000000001" {
			t.Fatalf("a record appended after %q does not read back", data)
		}
		for i, e := range ents {
			if ents2[i].ID != e.ID {
				t.Fatalf("entry %d (%s) is lost by the append after %q", i, e.ID, data)
			}
		}
	})
}

// FuzzResolve feeds arbitrary target strings to the parser: it must never
// panic, and anything it resolves must name an entry with a snapshot.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{"1", "turn:2", "turn:2:end", "~1", "~0", "@good", "@", "0190a0", "turn:", "turn:x:end", "-1", "99999999999999999999", " 2 ", "turn:1:end:end"} {
		f.Add(s)
	}
	h := historyOf(f, sampleEntries())
	f.Fuzz(func(t *testing.T, spec string) {
		tg, err := h.Resolve(spec)
		if err != nil {
			if _, ok := err.(*UnknownTargetError); !ok {
				t.Fatalf("Resolve(%q): error of type %T", spec, err)
			}
			if !strings.Contains(err.Error(), "unknown target") {
				t.Fatalf("unclear error %q", err)
			}
			return
		}
		if tg.Entry == nil || tg.Snapshot.IsZero() {
			t.Fatalf("Resolve(%q) = %+v without an entry or snapshot", spec, tg)
		}
	})
}

func sampleEntries() []*Entry {
	id, _ := store.ParseID(strings.Repeat("ab", 32))
	snap := SnapOf(id)
	return []*Entry{
		{ID: "0190a0b0-0000-7000-8000-000000000001", Kind: KindTurnStart, Turn: 1, Snapshot: snap},
		{ID: "0190a0b0-0000-7000-8000-000000000002", Parent: "0190a0b0-0000-7000-8000-000000000001", Kind: KindTurnEnd, Turn: 1, Start: "0190a0b0-0000-7000-8000-000000000001", Snapshot: snap},
		{ID: "0190a0b0-0000-7000-8000-000000000003", Parent: "0190a0b0-0000-7000-8000-000000000002", Kind: KindCheckpoint, Label: "good", Snapshot: snap},
		{ID: "0190a0b0-0000-7000-8000-000000000004", Parent: "0190a0b0-0000-7000-8000-000000000003", Kind: KindTurnStart, Turn: 2, Snapshot: snap},
		{ID: "0190a0b1-0000-7000-8000-000000000005", Parent: "0190a0b0-0000-7000-8000-000000000004", Kind: KindSummary},
	}
}

func TestResolveTargets(t *testing.T) {
	h := historyOf(t, sampleEntries())
	cases := map[string]string{
		"1":                                    "0190a0b0-0000-7000-8000-000000000001",
		"turn:1":                               "0190a0b0-0000-7000-8000-000000000001",
		"turn:1:end":                           "0190a0b0-0000-7000-8000-000000000002",
		"~1":                                   "0190a0b0-0000-7000-8000-000000000004",
		"~2":                                   "0190a0b0-0000-7000-8000-000000000001",
		"@good":                                "0190a0b0-0000-7000-8000-000000000003",
		"0190a0b0-0000-7000-8000-000000000003": "0190a0b0-0000-7000-8000-000000000003",
	}
	for spec, want := range cases {
		tg, err := h.Resolve(spec)
		if err != nil || string(tg.Entry.ID) != want {
			t.Errorf("Resolve(%q) = %v, %v; want %s", spec, tg, err, want)
		}
	}
	for spec, why := range map[string]string{
		"turn:2:end": "has not ended",
		"3":          "no turn 3",
		"0190a0":     "ambiguous",
		"0190a0b1":   "recorded no state",
		"abc":        "at least 6",
		"~3":         "only 2 turns",
		"turn:0":     "turn numbers start at 1",
		"turn:x":     "turn:N needs a turn number",
	} {
		if _, err := h.Resolve(spec); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("Resolve(%q) error %v, want it to say %q", spec, err, why)
		}
	}
	// An ambiguous prefix names the entries it matches, so the user can pick one.
	if _, err := h.Resolve("0190a0"); err == nil ||
		!strings.Contains(err.Error(), "0190a0b0-0000-7000-8000-000000000001 (turn 1, turnStart)") ||
		!strings.Contains(err.Error(), "0190a0b0-0000-7000-8000-000000000003 (checkpoint)") {
		t.Errorf("Resolve(ambiguous prefix) error %v, want it to list the matching entries", err)
	}
	if got := h.OpenTurn(); got == nil || got.Turn != 2 {
		t.Errorf("open turn: %+v", got)
	}
}
