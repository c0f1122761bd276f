// Package env is a test environment in the manner of gopls' integration
// tests: a sandbox, something that runs the command set on its root — any
// commands.Client (the command set in this process, or forwarded to a
// running server through the root's socket), or a fake editor over LSP
// (workspace/executeCommand) — and actions that fail the test on error, so
// a test body reads as what a person or an agent does and what they then
// find: play a turn, rewind, undo, revert, want files.
//
// It is apart from testkit because it imports commands, which the domain
// packages' own tests (beside workspace's code, say) cannot.
package env

import (
	"context"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// Env is a sandbox and what runs the command set on its root.
type Env struct {
	*testkit.Sandbox
	T   testing.TB
	Ctx context.Context
	// Client runs the commands, unless Editor is set.
	Client commands.Client
	// Editor, when set, runs the commands over LSP, and a turn's files are
	// reloaded in its open buffers as an editor reloads files that change
	// on disk.
	Editor *testkit.Editor
}

// New is an Env running the commands of sb's root through c.
func New(t testing.TB, sb *testkit.Sandbox, c commands.Client) *Env {
	return &Env{Sandbox: sb, T: t, Ctx: context.Background(), Client: c}
}

// Local is an Env over a new sandbox whose commands run in this process
// (a commands.Service opened on its root and store).
func Local(t testing.TB) *Env {
	t.Helper()
	sb := testkit.NewSandbox(t)
	svc, err := commands.Open(commands.Options{Root: sb.Root, StoreDir: sb.Store, Actor: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { svc.Close() })
	return New(t, sb, svc)
}

// OverEditor is an Env running the commands of sb's root through editor e
// (workspace/executeCommand).
func OverEditor(t testing.TB, sb *testkit.Sandbox, e *testkit.Editor) *Env {
	return &Env{Sandbox: sb, T: t, Ctx: context.Background(), Editor: e}
}

// Call runs cmd with a through the environment's client or editor, failing
// the test on an error.
func Call[A, R any](e *Env, cmd *commands.Command[A, R], a A) *R {
	e.T.Helper()
	if e.Editor != nil {
		var r R
		if err := e.Editor.Cmd(cmd.Info().Name, a, &r); err != nil {
			e.T.Fatalf("%s: %v", cmd.Info().Name, err)
		}
		return &r
	}
	r, err := cmd.Call(e.Ctx, e.Client, a)
	if err != nil {
		e.T.Fatalf("%s: %v", cmd.Info().Name, err)
	}
	return r
}

// Turn plays one agent turn asked prompt: it opens the turn, writes files
// (root-relative path to content) on disk as the agent would, and ends it.
func (e *Env) Turn(prompt string, files map[string]string) *commands.TurnEndResult {
	e.T.Helper()
	Call(e, commands.TurnStart, commands.TurnStartArgs{Prompt: prompt})
	for rel, text := range files {
		e.Write(rel, text)
		if e.Editor != nil {
			e.Editor.Reload(e.Abs(rel))
		}
	}
	return Call(e, commands.TurnEnd, commands.TurnEndArgs{})
}

// TurnOf plays one turn opened with start that runs edit, and ends it in
// the same session.
func (e *Env) TurnOf(start commands.TurnStartArgs, edit func()) *commands.TurnEndResult {
	e.T.Helper()
	Call(e, commands.TurnStart, start)
	edit()
	e.reloadAll()
	return Call(e, commands.TurnEnd, commands.TurnEndArgs{Session: start.Session})
}

// reloadAll reloads the editor's buffers of the files that changed on
// disk.
func (e *Env) reloadAll() {
	if e.Editor == nil {
		return
	}
	for rel := range e.State() {
		e.Editor.Reload(e.Abs(rel))
	}
}

// Rewind rewinds the files to target (mode code), and fails the test
// unless it was applied.
func (e *Env) Rewind(target string) *commands.RewindResult {
	e.T.Helper()
	return e.applied("rewind "+target, Call(e, commands.Rewind, commands.RewindArgs{Target: target}))
}

// Undo undoes the latest rewind or revert, and fails the test unless it
// was applied.
func (e *Env) Undo() *commands.RewindResult {
	e.T.Helper()
	return e.applied("undo", Call(e, commands.Undo, commands.UndoArgs{}))
}

// Revert takes back turn target keeping what came after, and fails the
// test unless it was applied.
func (e *Env) Revert(target string) *commands.RewindResult {
	e.T.Helper()
	return e.applied("revert "+target, Call(e, commands.Revert, commands.RevertArgs{Target: target}))
}

func (e *Env) applied(what string, r *commands.RewindResult) *commands.RewindResult {
	e.T.Helper()
	if !r.Applied {
		e.T.Fatalf("%s was not applied: %s", what, r.FailureReason)
	}
	return r
}

// WantFiles fails the test, naming every difference, unless the root holds
// exactly the regular files of want (root-relative path to content).
func (e *Env) WantFiles(want map[string]string, when string) {
	e.T.Helper()
	st := map[string]testkit.File{}
	for rel, text := range want {
		st[rel] = testkit.File{Data: text, Kind: "file"}
	}
	e.WantState(st, when)
}
