package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// The idempotency property of every mutating command: a call whose answer
// was lost at any point — before an append, after it, after the files were
// written (workspace.Fault, at each such point of the call in turn), or
// after it finished — and that is made again under the same key appends
// nothing twice and answers what one call that was never cut answers: the
// same journal, the same files, the same result. The MCP tools (checkpoint,
// rewind) and the ACP proxy's commands (turnStart, turnEnd, toolCall,
// notices, rewind, undo, revert) are these registry commands; the socket's
// lost answers are lostanswer_test.go's.

var errLost = errors.New("the answer was lost here")

// retryFix is one root with a history: two turns of opencode session A
// (ForkUUIDs m1 and m3), each a step of a shell command.
type retryFix struct {
	t           *testing.T
	root, store string
	svc         *commands.Service
}

func newRetryFix(t *testing.T) *retryFix {
	t.Helper()
	f := &retryFix{t: t, root: t.TempDir(), store: t.TempDir()}
	f.write("a.txt", "a0\n")
	f.write("b.txt", "b0\n")
	svc, err := commands.Open(commands.Options{Root: f.root, StoreDir: f.store, Actor: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	f.svc = svc
	f.turn("one", "m1", "a.txt", "a1\n")
	f.turn("two", "m3", "b.txt", "b1\n")
	return f
}

func (f *retryFix) write(rel, s string) {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.root, rel), []byte(s), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// ctx is a call of session (may be "") under key ("" for a fresh one).
func (f *retryFix) ctx(session, key string) context.Context {
	if key == "" {
		key = commands.NewKey()
	}
	return commands.WithCall(context.Background(), commands.Call{Key: key, Actor: "cli", Source: "cli", Session: session})
}

func (f *retryFix) must(_ any, err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *retryFix) start(session, prompt, agent, fork string) {
	f.t.Helper()
	f.must(commands.TurnStart.Call(f.ctx(session, ""), f.svc, commands.TurnStartArgs{Prompt: prompt, Session: session,
		Agent: agent, Transcript: "db", ForkPoint: journal.ForkPoint{ForkUUID: fork}}))
}

func (f *retryFix) turn(prompt, fork, rel, content string) {
	f.t.Helper()
	f.start("A", prompt, "opencode", fork)
	f.must(commands.ToolCall.Call(f.ctx("A", ""), f.svc, commands.ToolCallArgs{Session: "A", Tool: "Bash", Phase: "pre", Capture: true}))
	f.write(rel, content)
	f.must(commands.ToolCall.Call(f.ctx("A", ""), f.svc, commands.ToolCallArgs{Session: "A", Tool: "Bash", Phase: "post", Capture: true}))
	f.must(commands.TurnEnd.Call(f.ctx("A", ""), f.svc, commands.TurnEndArgs{Session: "A"}))
}

// retryCase is one mutating command: what comes before it, and the call.
type retryCase struct {
	name    string
	session string // the caller's agent session
	setup   func(f *retryFix)
	call    func(ctx context.Context, cl commands.Client) (any, error)
}

var retryCases = []retryCase{
	{name: "turnStart", setup: func(f *retryFix) { f.start("A", "three", "", ""); f.write("a.txt", "a2\n") },
		call: func(ctx context.Context, cl commands.Client) (any, error) {
			return commands.TurnStart.Call(ctx, cl, commands.TurnStartArgs{Prompt: "four", Session: "A"})
		}},
	{name: "turnEnd", setup: func(f *retryFix) { f.start("A", "three", "", ""); f.write("a.txt", "a2\n") },
		call: func(ctx context.Context, cl commands.Client) (any, error) {
			return commands.TurnEnd.Call(ctx, cl, commands.TurnEndArgs{Session: "A", Summary: "done"})
		}},
	{name: "toolCall", setup: func(f *retryFix) { f.start("A", "three", "", ""); f.write("a.txt", "a2\n") },
		call: func(ctx context.Context, cl commands.Client) (any, error) {
			return commands.ToolCall.Call(ctx, cl, commands.ToolCallArgs{Session: "A", Tool: "Bash", Phase: "post", Capture: true, Detail: "sed"})
		}},
	{name: "checkpoint", call: func(ctx context.Context, cl commands.Client) (any, error) {
		return commands.Checkpoint.Call(ctx, cl, commands.CheckpointArgs{Label: "c", Goal: "g"})
	}},
	{name: "recordSession", call: func(ctx context.Context, cl commands.Client) (any, error) {
		return commands.RecordSession.Call(ctx, cl, commands.RecordSessionArgs{Session: "S", Agent: "claude-code", Source: "startup"})
	}},
	{name: "rewind", setup: func(f *retryFix) { f.start("B", "open", "", ""); f.write("c.txt", "c\n") },
		call: func(ctx context.Context, cl commands.Client) (any, error) {
			return commands.Rewind.Call(ctx, cl, commands.RewindArgs{Target: "1", Report: "went back"})
		}},
	{name: "rewind in the agent's own turn", session: "B", setup: func(f *retryFix) {
		f.start("B", "open", "", "")
		f.write("c.txt", "c\n")
		f.must(commands.ToolCall.Call(f.ctx("B", ""), f.svc, commands.ToolCallArgs{Session: "B", Tool: "Write", Phase: "post", Paths: []string{"c.txt"}}))
	},
		call: func(ctx context.Context, cl commands.Client) (any, error) {
			return commands.Rewind.Call(ctx, cl, commands.RewindArgs{Target: "2"})
		}},
	{name: "undo", setup: func(f *retryFix) {
		f.must(commands.Rewind.Call(f.ctx("", ""), f.svc, commands.RewindArgs{Target: "1"}))
	}, call: func(ctx context.Context, cl commands.Client) (any, error) {
		return commands.Undo.Call(ctx, cl, commands.UndoArgs{})
	}},
	{name: "revert", call: func(ctx context.Context, cl commands.Client) (any, error) {
		return commands.Revert.Call(ctx, cl, commands.RevertArgs{Target: "2"})
	}},
	{name: "notices", setup: func(f *retryFix) {
		f.must(commands.Rewind.Call(f.ctx("", ""), f.svc, commands.RewindArgs{Target: "1"}))
	}, call: func(ctx context.Context, cl commands.Client) (any, error) {
		return commands.Notices.Call(ctx, cl, commands.NoticesArgs{Session: "A"})
	}},
	{name: "agent's own undo", setup: func(f *retryFix) { f.start("A", "again", "opencode", "m2") },
		call: func(ctx context.Context, cl commands.Client) (any, error) {
			return commands.AgentRewind.Call(ctx, cl, commands.AgentRewindArgs{Agent: "opencode", Session: "A"})
		}},
	{name: "agent's rewind tool", session: "P", setup: func(f *retryFix) {
		f.start("P", "try", "", "")
		f.must(commands.Checkpoint.Call(f.ctx("P", ""), f.svc, commands.CheckpointArgs{Agent: true, Goal: "try"}))
		f.write("c.txt", "c\n")
		f.must(commands.ToolCall.Call(f.ctx("P", ""), f.svc, commands.ToolCallArgs{Session: "P", Tool: "Write", Phase: "post", Paths: []string{"c.txt"}}))
	}, call: func(ctx context.Context, cl commands.Client) (any, error) {
		return commands.AgentRewind.Call(ctx, cl, commands.AgentRewindArgs{Agent: "oh-my-pi", Session: "P", Report: "wrong way"})
	}},
}

// run is one call of c on a new fixture under key, with workspace.Fault
// failing at the k-th time the call reaches point (k 0: never); then,
// when it failed, the call again under the same key. It returns the
// answer, the fixture, and how often the first call reached each point.
func (c retryCase) run(t *testing.T, point string, k int) (any, *retryFix, map[string]int) {
	t.Helper()
	f := newRetryFix(t)
	if c.setup != nil {
		c.setup(f)
	}
	key := commands.NewKey()
	seen := map[string]int{}
	workspace.Fault = func(p string, _ *journal.Entry) error {
		if seen[p]++; p == point && seen[p] == k {
			return errLost
		}
		return nil
	}
	r, err := c.call(f.ctx(c.session, key), f.svc)
	workspace.Fault = nil
	switch {
	case k > 0 && !errors.Is(err, errLost):
		t.Fatalf("%s, lost at %s %d: the call answered (%v): the fault was never reached", c.name, point, k, err)
	case k == 0 && err != nil:
		t.Fatal(err)
	case k > 0:
		if r, err = c.call(f.ctx(c.session, key), f.svc); err != nil {
			t.Fatalf("%s, lost at %s %d: the call again: %v", c.name, point, k, err)
		}
	}
	return r, f, seen
}

// journalOf is the fixture's journal as kinds in order (recovery's done
// entries are done entries like any), and a name for each entry id that
// does not depend on the ids drawn: its kind and place.
func journalOf(t *testing.T, f *retryFix) ([]string, map[string]string) {
	t.Helper()
	h, err := journal.Open(f.store).History()
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	names := map[string]string{}
	h.Scan(func(e *journal.Entry) bool {
		names[string(e.ID)] = fmt.Sprintf("%s#%d", e.Kind, len(kinds))
		kinds = append(kinds, string(e.Kind))
		return true
	})
	return kinds, names
}

// answer is a result as JSON with every entry id named by journalOf and
// the words of time left out.
func answer(t *testing.T, r any, names map[string]string) string {
	t.Helper()
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	json.Unmarshal(data, &v)
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "age" || k == "time" {
					delete(x, k)
					continue
				}
				x[k] = walk(e)
			}
		case []any:
			for i := range x {
				x[i] = walk(x[i])
			}
		case string:
			if n, ok := names[x]; ok {
				return n
			}
		}
		return v
	}
	out, _ := json.Marshal(walk(v))
	return string(out)
}

func TestRetriedCallsAppendNothingTwice(t *testing.T) {
	t.Setenv("REWIND_LSP_NO_SERVER", "1")
	for _, c := range retryCases {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			first, f, seen := c.run(t, "", 0)
			kinds, names := journalOf(t, f)
			want := answer(t, first, names)
			files := readState(t, f.root)
			if seen["append"] == 0 {
				t.Fatalf("%s appended nothing: the test tests nothing", c.name)
			}

			// The answer lost after the call finished: the call again
			// answers the same and appends nothing.
			key := commands.NewKey()
			ctx := f.ctx(c.session, key)
			r1, err := c.call(ctx, f.svc)
			if err != nil {
				t.Fatal(err)
			}
			kinds1, names1 := journalOf(t, f)
			r2, err := c.call(ctx, f.svc)
			if err != nil {
				t.Fatal(err)
			}
			if kinds2, _ := journalOf(t, f); !reflect.DeepEqual(kinds1, kinds2) {
				t.Errorf("retried after its answer: the journal went from %v to %v", kinds1, kinds2)
			}
			if a, b := answer(t, r1, names1), answer(t, r2, names1); a != b {
				t.Errorf("retried after its answer: it answered\n%s\nthe first call answered\n%s", b, a)
			}

			// Lost at every point the call reaches, in turn.
			for _, point := range []string{"append", "appended", "applied"} {
				for k := 1; k <= seen[point]; k++ {
					r, g, _ := c.run(t, point, k)
					gk, gnames := journalOf(t, g)
					if !reflect.DeepEqual(gk, kinds) {
						t.Errorf("lost at %s %d, then retried: the journal holds\n%v\nwant (one call)\n%v", point, k, gk, kinds)
						continue
					}
					if got := answer(t, r, gnames); got != want {
						t.Errorf("lost at %s %d, then retried: it answered\n%s\none call answers\n%s", point, k, got, want)
					}
					if d := diffStates(files, readState(t, g.root)); d != "" {
						t.Errorf("lost at %s %d, then retried: the files differ from one call's:\n%s", point, k, d)
					}
				}
			}
		})
	}
}

// TestNoticesOfTwoSessionsUnderOneKey: a hook tells the event's session and
// the one it was forked from under the call's one key; each is told, and
// each again when the call is made again.
func TestNoticesOfTwoSessionsUnderOneKey(t *testing.T) {
	f := newRetryFix(t)
	f.start("C", "c", "", "")
	f.must(commands.TurnEnd.Call(f.ctx("C", ""), f.svc, commands.TurnEndArgs{Session: "C"}))
	f.must(commands.Rewind.Call(f.ctx("", ""), f.svc, commands.RewindArgs{Target: "1"}))
	ctx := f.ctx("", commands.NewKey())
	take := func() (a, c string) {
		t.Helper()
		for _, s := range []*string{&a, &c} {
			sid := map[*string]string{&a: "A", &c: "C"}[s]
			n, err := commands.Notices.Call(ctx, f.svc, commands.NoticesArgs{Session: sid})
			if err != nil {
				t.Fatal(err)
			}
			*s = n.Text
		}
		return a, c
	}
	a, c := take()
	if a == "" || c == "" {
		t.Fatalf("under one key, A was told %q and C %q: want both told of the rewind", a, c)
	}
	if a2, c2 := take(); a2 != a || c2 != c {
		t.Fatalf("the call made again told A %q and C %q; want what it told first: %q, %q", a2, c2, a, c)
	}
	for _, sid := range []string{"A", "C"} {
		if n, err := commands.Notices.Call(f.ctx("", ""), f.svc, commands.NoticesArgs{Session: sid}); err != nil || n.Text != "" {
			t.Fatalf("the next call told %s %q (%v): it was told already", sid, n.Text, err)
		}
	}
}
