package view

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The engine on its own, with a schema of its own: entries of a toy
// journal, one JSON object a line. The journal package's tests check the
// view's every answer against the old in-memory history; these check what
// the engine promises whatever the entries: what it persists loads back
// the same, a damaged file is healed or noted, and the scans agree with
// the lookups.

type toy struct {
	ID, Parent, Session string
	Kind                Kind
	Turn                int
	pos                 Pos
}

type toySchema struct{}

func (toySchema) Decode(line []byte) (*toy, error) {
	var e toy
	if err := json.Unmarshal(line, &e); err != nil {
		return nil, err
	}
	if e.ID == "" {
		return nil, errors.New("no id")
	}
	return &e, nil
}

func (toySchema) Facts(e *toy) Facts {
	return Facts{Kind: e.Kind, ID: e.ID, Parent: e.Parent, Session: e.Session, Turn: e.Turn}
}

func (toySchema) ID(e *toy) string { return e.ID }

func (toySchema) StandIn(end *toy, parent string) *toy {
	return &toy{ID: "stand-in", Parent: parent, Kind: KindTurnStart, Turn: end.Turn}
}

func (toySchema) Placed(e *toy, p Pos) { e.pos = p }

// toyJournal writes n entries to a journal in dir: a tree of turns and
// checkpoints with rewinds to earlier entries, and tool entries outside
// it, in three sessions.
func toyJournal(t *testing.T, dir string, r *rand.Rand, n int) string {
	t.Helper()
	var lines []byte
	var tree []string
	leaf, turn := "", 0
	for i := 0; i < n; i++ {
		e := toy{ID: fmt.Sprintf("e%d", i), Session: []string{"", "a", "b"}[r.Intn(3)]}
		switch k := r.Intn(10); {
		case k < 5:
			turn++
			e.Kind, e.Turn, e.Parent = KindTurnStart, turn, leaf
		case k < 7:
			e.Kind, e.Parent = KindCheckpoint, leaf
		case k < 8 && len(tree) > 0:
			e.Kind, e.Parent = KindRewind, tree[r.Intn(len(tree))]
		default:
			e.Kind = KindTool
		}
		if InTree(e.Kind) {
			tree, leaf = append(tree, e.ID), e.ID
		}
		b, _ := json.Marshal(e)
		lines = append(append(lines, b...), '\n')
	}
	path := filepath.Join(dir, "journal")
	if err := os.WriteFile(path, lines, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// describe is everything a reader holds: the state, every record, and
// every table's pairs for the ids and sessions of the journal.
func describe(t *testing.T, r *Reader[*toy]) string {
	t.Helper()
	s, _ := json.Marshal(r.State)
	out := string(s) + "\n"
	for p := Pos(0); p < r.N; p++ {
		out += fmt.Sprintf("%d %+v\n", p, r.Rec(p))
	}
	for p := Pos(0); p < r.N; p++ {
		out += fmt.Sprintf("id %d: %v\n", p, r.Find(ByID, Hash(r.IDAt(p))))
	}
	for _, sid := range []string{"a", "b"} {
		out += fmt.Sprintf("session %s: %v\n", sid, r.Find(Sessions, Hash(sid)))
	}
	return out
}

func TestPersistedViewLoadsTheSame(t *testing.T) {
	t.Cleanup(SetThresholds(7, 20))
	dir := t.TempDir()
	path := toyJournal(t, dir, rand.New(rand.NewSource(1)), 300)
	built := New[*toy](path, filepath.Join(dir, "view"), toySchema{})
	defer built.Close()
	r, err := built.Current()
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 300 {
		t.Fatalf("%d positions of 300 entries", r.N)
	}
	want := describe(t, r)
	built.Persist()
	segs, err := Segments(filepath.Join(dir, "view"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no segments written: %v %v", segs, err)
	}
	loaded := New[*toy](path, filepath.Join(dir, "view"), toySchema{})
	defer loaded.Close()
	r2, err := loaded.Current()
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(t, r2); got != want {
		t.Fatalf("loaded from %d segments:\n%s\nbuilt:\n%s", len(segs), got, want)
	}
	for p := Pos(0); p < r2.N; p++ {
		if e, ok := r2.Entry(p); !ok || e.ID != fmt.Sprintf("e%d", p) || e.pos != p {
			t.Fatalf("entry at %d: %+v %v", p, e, ok)
		}
	}
	if _, ok := r2.Entry(r2.N); ok {
		t.Fatal("an entry past the reader's end")
	}
	if problems, notes, err := loaded.Check(); err != nil || len(problems)+len(notes) > 0 {
		t.Fatalf("check of a whole view: %q %q %v", problems, notes, err)
	}
}

func TestScansAgreeWithFind(t *testing.T) {
	t.Cleanup(SetThresholds(5, 16))
	dir := t.TempDir()
	path := toyJournal(t, dir, rand.New(rand.NewSource(2)), 200)
	// The view in several segments and in memory: written 40 entries at
	// a time, persisted after each.
	data, _ := os.ReadFile(path)
	os.WriteFile(path, nil, 0o600)
	v := New[*toy](path, filepath.Join(dir, "view"), toySchema{})
	defer v.Close()
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	defer f.Close()
	for len(data) > 0 {
		k := 0
		for n := 0; n < 40 && k < len(data); k++ {
			if data[k] == '\n' {
				n++
			}
		}
		f.Write(data[:k])
		data = data[k:]
		if _, err := v.Current(); err != nil {
			t.Fatal(err)
		}
		v.Persist()
		r, _ := v.Current()
		for _, key := range [][]byte{Hash("a"), Hash("b"), Hash("none")} {
			all := r.Find(Sessions, key)
			var fwd, back []Pos
			r.Each(Sessions, key, func(p Pos) bool { fwd = append(fwd, p); return true })
			r.EachBack(Sessions, key, func(p Pos) bool { back = append(back, p); return true })
			slices.Reverse(back)
			if !slices.Equal(fwd, all) || !slices.Equal(back, all) {
				t.Fatalf("at %d: Find %v, Each %v, EachBack reversed %v", r.N, all, fwd, back)
			}
			var first, last []Pos
			r.Each(Sessions, key, func(p Pos) bool { first = append(first, p); return false })
			r.EachBack(Sessions, key, func(p Pos) bool { last = append(last, p); return false })
			if len(all) > 0 && (len(first) != 1 || first[0] != all[0] || len(last) != 1 || last[0] != all[len(all)-1]) {
				t.Fatalf("at %d: first %v, last %v of %v", r.N, first, last, all)
			}
		}
	}
}

func TestDamagedSegmentIsHealedAndNoted(t *testing.T) {
	t.Cleanup(SetThresholds(7, 20))
	dir := t.TempDir()
	path := toyJournal(t, dir, rand.New(rand.NewSource(3)), 200)
	v := New[*toy](path, filepath.Join(dir, "view"), toySchema{})
	r, err := v.Current()
	if err != nil {
		t.Fatal(err)
	}
	want := describe(t, r)
	v.Persist()
	v.Close()
	segs, _ := Segments(filepath.Join(dir, "view"))
	if len(segs) == 0 {
		t.Fatal("no segment")
	}
	seg := filepath.Join(dir, "view", segs[0])
	b, _ := os.ReadFile(seg)
	b[100] ^= 1
	os.WriteFile(seg, b, 0o600)
	// A reader finds the damage, builds the view again from the journal
	// and answers as before.
	v2 := New[*toy](path, filepath.Join(dir, "view"), toySchema{})
	r2, err := v2.Current()
	if err != nil {
		t.Fatal(err)
	}
	if got := describe(t, r2); got != want {
		t.Fatalf("after the damage:\n%s\nwant:\n%s", got, want)
	}
	v2.Close()
	// Written whole again by the next writer, then damaged again: fsck's
	// check says so (a note: the view is derived) and builds it again.
	v3 := New[*toy](path, filepath.Join(dir, "view"), toySchema{})
	defer v3.Close()
	if _, err := v3.Current(); err != nil {
		t.Fatal(err)
	}
	v3.Persist()
	if segs, _ = Segments(filepath.Join(dir, "view")); len(segs) == 0 {
		t.Fatal("the view was not written again")
	}
	seg = filepath.Join(dir, "view", segs[0])
	b, _ = os.ReadFile(seg)
	b[100] ^= 1
	os.WriteFile(seg, b, 0o600)
	problems, notes, err := v3.Check()
	if err != nil || len(problems) != 0 || len(notes) != 1 {
		t.Fatalf("check of a damaged segment: problems %q, notes %q, %v", problems, notes, err)
	}
	if problems, notes, err := v3.Check(); err != nil || len(problems)+len(notes) > 0 {
		t.Fatalf("check after it was built again: %q %q %v", problems, notes, err)
	}
}
