package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestServerKilledDuringRevert: a revert of one turn through the server —
// a later turn's change to the same file kept by the merge — and the
// server killed (SIGKILL) while the editor applies the edit. The next
// command, the command line or a new server, finishes it: turn 1's changes
// taken back, turn 2's kept, the revert listed as applied; undo brings
// turn 1's changes back, and the next revert needs no force.
func TestServerKilledDuringRevert(t *testing.T) {
	for _, kind := range []testkit.EditorKind{testkit.VSCodeLike, testkit.NeovimLike, testkit.PlainClient} {
		for _, next := range []string{"cli", "server"} {
			t.Run(string(kind)+"/"+next, func(t *testing.T) { serverKilledDuringRevert(t, kind, next) })
		}
	}
}

func serverKilledDuringRevert(t *testing.T, kind testkit.EditorKind, next string) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "one\ntwo\nthree\nfour\nfive\nsix\n")
	w.Write("b.txt", "b\n")
	w.Write("bin.dat", "\x00binary\x01")
	srv, e := startServer(t, w, kind)
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "turn 1"}, nil)
	w.Write("a.txt", "ONE by turn 1\ntwo\nthree\nfour\nfive\nsix\n")
	w.Write("b.txt", "b by turn 1\n")
	w.Write("c.txt", "created by turn 1\n")
	w.Write("bin.dat", "\x00binary by turn 1\x02")
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	e.MustCmd(commands.NameTurnStart, map[string]any{"prompt": "turn 2"}, nil)
	w.Write("a.txt", "ONE by turn 1\ntwo\nthree\nfour\nfive\nSIX by turn 2\n")
	e.MustCmd(commands.NameTurnEnd, map[string]any{}, nil)
	reverted := map[string]testkit.File{"a.txt": {Data: "one\ntwo\nthree\nfour\nfive\nSIX by turn 2\n", Kind: "file"},
		"b.txt": {Data: "b\n", Kind: "file"}, "bin.dat": {Data: "\x00binary\x01", Kind: "file"}}
	before := w.State()

	journal := filepath.Join(w.Store, "journal")
	var pendingSeen atomic.Bool // set on the editor's goroutine
	e.SetBeforeApply(func(e *testkit.Editor) {
		e.SetBeforeApply(nil)
		data, _ := os.ReadFile(journal)
		pendingSeen.Store(strings.Contains(string(data), `"pending":true`))
		srv.Proc.Signal(syscall.SIGKILL)
		<-e.Conn.Closed()
	})
	if err := e.Cmd(commands.NameRevert, map[string]any{"target": "1"}, nil); err == nil {
		t.Fatal("the revert answered although its server was killed")
	}
	if !pendingSeen.Load() {
		t.Error("the revert was not recorded as pending before its edit was sent")
	}
	waitSaved(t, e) // the editor applies (and saves) the edit anyway

	var list func() commands.ListResult
	var undo func() commands.RewindResult
	var revert func() commands.RewindResult
	switch next {
	case "cli":
		list = func() (l commands.ListResult) { unmarshalT(t, w.MustRun("--json", "log"), &l); return l }
		undo = func() (r commands.RewindResult) { unmarshalT(t, w.MustRun("--json", "undo"), &r); return r }
		revert = func() (r commands.RewindResult) { unmarshalT(t, w.MustRun("--json", "revert", "1"), &r); return r }
	case "server":
		_, e2 := startServer(t, w, kind)
		list = func() (l commands.ListResult) { e2.MustCmd(commands.NameList, map[string]any{}, &l); return l }
		undo = func() (r commands.RewindResult) {
			e2.MustCmd(commands.NameUndo, map[string]any{}, &r)
			waitSaved(t, e2)
			return r
		}
		revert = func() (r commands.RewindResult) {
			e2.MustCmd(commands.NameRevert, map[string]any{"target": "1"}, &r)
			waitSaved(t, e2)
			return r
		}
	}
	l := list()
	if len(l.Rewinds) != 1 || l.Rewinds[0].Mode != "revert" || !l.Rewinds[0].Applied {
		t.Fatalf("after the crash, the rewinds are %+v; want the revert, applied", l.Rewinds)
	}
	waitState(t, w, reverted, "after the revert was finished")
	if r := undo(); !r.Applied {
		t.Fatalf("undo of the revert the server did not finish: %s", r.FailureReason)
	}
	waitState(t, w, before, "undo")
	if r := revert(); !r.Applied {
		t.Fatalf("the next revert (no force): %s", r.FailureReason)
	}
	waitState(t, w, reverted, "the next revert")
	if r := w.Run("", nil, "fsck"); r.Code != 0 {
		t.Fatalf("fsck: %s", r.Stderr)
	}
}

// TestJournalWrittenByManyAtOnce: two language servers (two editors) and
// three agent sessions' hooks (Claude Code, Codex, Gemini CLI) record turns
// and checkpoints on one root at the same time. Every turn and checkpoint
// is in the journal exactly once, each turn lists the file its session
// wrote, no turn number repeats, and fsck is clean.
func TestJournalWrittenByManyAtOnce(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("shared.txt", "0\n")
	const rounds = 6
	_, e1 := startServer(t, w, testkit.VSCodeLike)
	_, e2 := startServer(t, w, testkit.NeovimLike)
	agents := []string{"claude-code", "codex", "gemini"}
	events := map[string][3]string{
		"claude-code": {"UserPromptSubmit", "PostToolUse", "Stop"},
		"codex":       {"UserPromptSubmit", "PostToolUse", "Stop"},
		"gemini":      {"BeforeAgent", "AfterTool", "AfterAgent"},
	}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for i, agent := range agents {
		wg.Add(1)
		go func(i int, agent string) {
			defer wg.Done()
			session := fmt.Sprintf("%s-session-%d", agent, i)
			for r := 0; r < rounds; r++ {
				rel := fmt.Sprintf("agent%d.txt", i)
				ev := events[agent]
				send := func(name string, extra map[string]any) {
					m := map[string]any{"hook_event_name": name, "session_id": session, "cwd": w.Root, "turn_id": fmt.Sprint(r)}
					for k, v := range extra {
						m[k] = v
					}
					data, _ := json.Marshal(m)
					if res := w.Run(string(data), nil, "hook", agent); res.Code != 0 || strings.Contains(res.Stderr, "gave up") {
						errs <- fmt.Errorf("%s %s: exit %d %s", agent, name, res.Code, res.Stderr)
					}
				}
				send(ev[0], map[string]any{"prompt": fmt.Sprintf("%s prompt %d", session, r)})
				os.WriteFile(w.Abs(rel), []byte(fmt.Sprintf("%s round %d\n", session, r)), 0o644)
				tool := map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": w.Abs(rel)}}
				if agent == "gemini" {
					tool = map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": w.Abs(rel)}}
				}
				send(ev[1], tool)
				send(ev[2], nil)
			}
		}(i, agent)
	}
	for i, e := range []*testkit.Editor{e1, e2} {
		wg.Add(1)
		go func(i int, e *testkit.Editor) {
			defer wg.Done()
			session := fmt.Sprint("editor-", i)
			for r := 0; r < rounds; r++ {
				if err := e.Cmd(commands.NameCheckpoint, map[string]any{"label": fmt.Sprintf("%s-%d", session, r)}, nil); err != nil {
					errs <- err
				}
				if err := e.Cmd(commands.NameTurnStart, map[string]any{"prompt": fmt.Sprintf("%s prompt %d", session, r), "session": session}, nil); err != nil {
					errs <- err
				}
				os.WriteFile(w.Abs(fmt.Sprintf("editor%d.txt", i)), []byte(fmt.Sprintf("round %d\n", r)), 0o644)
				if err := e.Cmd(commands.NameTurnEnd, map[string]any{"session": session}, nil); err != nil {
					errs <- err
				}
			}
		}(i, e)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var l commands.ListResult
	e1.MustCmd(commands.NameList, map[string]any{"all": true}, &l)
	prompts := map[string]int{}
	numbers := map[int]bool{}
	own := map[string]string{} // prompt -> the file its session wrote
	for i, a := range agents {
		for r := 0; r < rounds; r++ {
			own[fmt.Sprintf("%s-session-%d prompt %d", a, i, r)] = fmt.Sprintf("agent%d.txt", i)
		}
	}
	for i := 0; i < 2; i++ {
		for r := 0; r < rounds; r++ {
			own[fmt.Sprintf("editor-%d prompt %d", i, r)] = fmt.Sprintf("editor%d.txt", i)
		}
	}
	for _, tt := range l.Turns {
		prompts[tt.Prompt]++
		found := false
		for _, c := range tt.Changed {
			found = found || c.Path == own[tt.Prompt]
		}
		if !found {
			t.Errorf("turn %d (%s) does not list %s, which its session wrote: %+v", tt.Turn, tt.Prompt, own[tt.Prompt], tt.Changed)
		}
		if numbers[tt.Turn] && !tt.Abandoned {
			t.Errorf("turn number %d repeats", tt.Turn)
		}
		numbers[tt.Turn] = true
		if tt.Ended == "" {
			t.Errorf("turn %d (%s) never ended", tt.Turn, tt.Prompt)
		}
		if tt.Source == journal.SourceAuto {
			t.Errorf("an automatic turn %d appeared: %+v", tt.Turn, tt.Changed)
		}
	}
	for i := range agents {
		for r := 0; r < rounds; r++ {
			for _, p := range []string{fmt.Sprintf("%s-session-%d prompt %d", agents[i], i, r)} {
				if prompts[p] != 1 {
					t.Errorf("turn %q is in the journal %d times", p, prompts[p])
				}
			}
		}
	}
	for i := 0; i < 2; i++ {
		for r := 0; r < rounds; r++ {
			if p := fmt.Sprintf("editor-%d prompt %d", i, r); prompts[p] != 1 {
				t.Errorf("turn %q is in the journal %d times", p, prompts[p])
			}
		}
	}
	labels := map[string]int{}
	for _, c := range l.Checkpoints {
		labels[c.Label]++
	}
	if len(labels) != 2*rounds {
		t.Errorf("%d checkpoints, want %d: %v", len(labels), 2*rounds, labels)
	}
	for lb, n := range labels {
		if n != 1 {
			t.Errorf("checkpoint %s recorded %d times", lb, n)
		}
	}
	if r := w.Run("", nil, "fsck"); r.Code != 0 || strings.Contains(r.Stderr, "note:") {
		t.Fatalf("fsck after everyone wrote at once: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestChangeRecordedElsewhereIsNoAutoTurn: a turn recorded by another
// process (here the command line, not forwarded) holds a change that this
// server sees late — the file is open in its editor, which reloads it, and
// the server first waits to see whether the editor saves it. By then the
// turn has ended and recorded the change: the server opens no automatic
// turn for it.
func TestChangeRecordedElsewhereIsNoAutoTurn(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "one\n")
	srv, c := testkit.StartServer(w)
	e := testkit.NewEditor(t, c, testkit.VSCodeLike)
	e.Server = srv
	e.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store, "autoTurnQuietMs": 200})
	e.Open(w.Abs("a.txt"))
	alone := []string{"REWIND_LSP_NO_SERVER=1"}
	for r := 0; r < 3; r++ {
		if res := w.Run("", alone, "turn", "start", "--prompt", fmt.Sprint("elsewhere ", r)); res.Code != 0 {
			t.Fatal(res.Stderr)
		}
		w.Write("a.txt", fmt.Sprintf("changed by turn %d\n", r))
		e.Reload(w.Abs("a.txt"))
		if res := w.Run("", alone, "turn", "end"); res.Code != 0 {
			t.Fatal(res.Stderr)
		}
		time.Sleep(1200 * time.Millisecond) // past the server's wait for a save and the quiet period
	}
	var l commands.ListResult
	e.MustCmd(commands.NameList, map[string]any{}, &l)
	for _, tt := range l.Turns {
		if tt.Source == journal.SourceAuto {
			t.Errorf("an automatic turn %d (%s) for a change another process recorded: %+v", tt.Turn, tt.Prompt, tt.Changed)
		}
	}
	if len(l.Turns) != 3 {
		t.Errorf("%d turns, want the 3 of the command line", len(l.Turns))
	}
}
