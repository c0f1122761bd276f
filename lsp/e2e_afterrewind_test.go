package lsp

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestAgentChangeRightAfterRewind: an agent with no hooks keeps working
// right after the person rewound — it rewrites a file the rewind just
// restored, and creates a file in a folder the rewind just removed, within
// a second. Both are the agent's changes: the automatic turn lists them.
// (The editor's own steps in applying the rewind — the file still as
// before, empty, gone, or the target — stay the rewind's.)
func TestAgentChangeRightAfterRewind(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike} {
		t.Run(string(kind), func(t *testing.T) {
			w := testkit.NewSandbox(t)
			w.Write("a.txt", "one\n")
			srv, c := testkit.StartServer(w)
			e := testkit.NewEditor(t, c, kind)
			e.Server = srv
			e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurnQuietMs": 300})
			e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "turn 1"}, nil)
			w.Write("a.txt", "two\n")
			w.Write("dir/made.txt", "made by turn 1\n")
			e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
			var rr commands.RewindResult
			e.MustCmd(commands.NameRewind, map[string]any{"target": "1"}, &rr)
			if !rr.Applied {
				t.Fatal(rr.FailureReason)
			}
			waitSaved(t, e)
			// The agent, at once.
			w.Write("a.txt", "three, by the agent after the rewind\n")
			w.Write("dir/new.txt", "made by the agent after the rewind\n")
			e.Reload(w.Abs("a.txt")) // a clean buffer follows the disk
			var turn commands.TurnInfo
			for t0 := time.Now(); ; time.Sleep(50 * time.Millisecond) {
				var l commands.ListResult
				e.MustCmd(commands.NameList, map[string]any{}, &l)
				if n := len(l.Turns); n >= 2 && l.Turns[n-1].Source == journal.SourceAuto && l.Turns[n-1].Ended != "" {
					turn = l.Turns[n-1]
					break
				}
				if time.Since(t0) > 15*time.Second {
					t.Fatalf("no automatic turn for the agent's changes after the rewind: %+v", l.Turns)
				}
			}
			var got []string
			for _, ch := range turn.Changed {
				got = append(got, ch.Path)
			}
			sort.Strings(got)
			if strings.Join(got, " ") != "a.txt dir/new.txt" {
				t.Fatalf("the automatic turn lists %v, want the agent's a.txt and dir/new.txt", got)
			}
		})
	}
}

// TestSaveCaughtHalfWayIsNoAutoTurn: the person saves a file in place, as
// editors do — the file is cut to nothing, then written — and the server
// sees it empty in between. The save is the person's, not an agent's
// change: no automatic turn.
func TestSaveCaughtHalfWayIsNoAutoTurn(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "one\n")
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurnQuietMs": 200})
	e.MustCmd(commands.NameCheckpoint, map[string]any{}, nil)
	e.Open(w.Abs("a.txt"))
	e.MustCmd(commands.NameList, map[string]any{}, nil) // the server has read the didOpen
	for i := 0; i < 3; i++ {
		e.TypeText(w.Abs("a.txt"), testkit.Range{Start: testkit.Position{Line: 1 + i}, End: testkit.Position{Line: 1 + i}}, "typed\n")
		if err := os.Truncate(w.Abs("a.txt"), 0); err != nil {
			t.Fatal(err)
		}
		time.Sleep(150 * time.Millisecond) // the server sees it empty
		e.Save(w.Abs("a.txt"))
		time.Sleep(time.Second)
	}
	var l commands.ListResult
	e.MustCmd(commands.NameList, map[string]any{}, &l)
	if len(l.Turns) != 0 {
		t.Fatalf("the person's saves made turns: %+v", l.Turns)
	}
}

// TestSaveThenCloseIsNoAutoTurn: the person saves a file and closes it at
// once (Ctrl+S, Ctrl+W), before the server has looked at the change on
// disk; then an agent with no hooks writes another file. The save is the
// person's: the one automatic turn lists the agent's file only.
func TestSaveThenCloseIsNoAutoTurn(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "one\n")
	w.Write("b.txt", "two\n")
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurnQuietMs": 200})
	e.MustCmd(commands.NameCheckpoint, map[string]any{}, nil)
	e.Open(w.Abs("a.txt"))
	e.MustCmd(commands.NameList, map[string]any{}, nil) // the server has read the didOpen
	e.TypeText(w.Abs("a.txt"), testkit.Range{Start: testkit.Position{Line: 1}, End: testkit.Position{Line: 1}}, "typed by the person\n")
	e.Save(w.Abs("a.txt"))
	e.Close(w.Abs("a.txt"))
	e.MustCmd(commands.NameList, map[string]any{}, nil) // the server has read the didClose
	time.Sleep(300 * time.Millisecond)                  // the agent comes a moment later
	w.Write("b.txt", "two, by the agent\n")
	var turns []commands.TurnInfo
	for t0 := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		var l commands.ListResult
		e.MustCmd(commands.NameList, map[string]any{}, &l)
		turns = l.Turns
		if n := len(turns); n > 0 && turns[n-1].Ended != "" && changedSet(turns[n-1]) == "b.txt" {
			time.Sleep(500 * time.Millisecond) // a late turn for the person's save would show now
			e.MustCmd(commands.NameList, map[string]any{}, &l)
			turns = l.Turns
			break
		}
		if time.Since(t0) > 15*time.Second {
			break
		}
	}
	if len(turns) != 1 || turns[0].Source != journal.SourceAuto || changedSet(turns[0]) != "b.txt" {
		var got []string
		for _, tu := range turns {
			got = append(got, fmt.Sprintf("turn %d (%s) changed %q", tu.Turn, tu.Source, changedSet(tu)))
		}
		t.Fatalf("want one automatic turn that changed b.txt (the agent's), got %v", got)
	}
}

func changedSet(tu commands.TurnInfo) string {
	var out []string
	for _, ch := range tu.Changed {
		out = append(out, ch.Path)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
