package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/textdiff"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// Code action kinds: rewinding a file to before a turn and previewing that
// (source actions), and reverting a hunk (a rewrite of the range).
const (
	kindRewindFile      = "source.rewind.file"
	kindRewindPreview   = "source.rewind.preview"
	kindRefactorRewrite = "refactor.rewrite"
)

// maxFileActionTurns is how many of the latest turns that changed a file get
// file-level actions.
const maxFileActionTurns = 3

func scopeRoot(root string) commands.Scope { return commands.Scope{Root: root} }

// codeAction offers, on an open file that turns changed: "Rewind file to
// before turn N" and "Preview turn N changes to this file" for the latest
// turns, and "Revert this hunk to before turn N" when the range touches a
// hunk that differs from the state before the latest such turn.
func (s *Server) codeAction(ctx context.Context, p json.RawMessage) (any, error) {
	var cp codeActionParams
	if err := decodeParams(p, &cp); err != nil {
		return nil, err
	}
	if cp.TextDocument.URI == "" {
		return nil, invalidParams("textDocument.uri", "required")
	}
	actions := []codeAction{}
	doc, open := s.docs.get(cp.TextDocument.URI)
	if !open || doc.path == "" {
		return actions, nil
	}
	f := folderOf(s.ws.list(), doc.path)
	if f == nil {
		return actions, nil
	}
	rel, _ := f.rel(doc.path)
	hist, err := f.svc.FileHistory(ctx, commands.FileHistoryArgs{Scope: commands.Scope{URI: rel}})
	if err != nil {
		s.log.Printf("code actions for %s: %v", rel, err)
		return actions, nil
	}
	if hist == nil || len(hist.History) == 0 {
		return actions, nil
	}
	items := hist.History
	latest := items[len(items)-1]
	root := f.svc.Root()

	if wants(cp.Context.Only, kindRefactorRewrite) {
		// A file the turn created has no earlier text, so no hunk to revert.
		before, kind, err := f.svc.Content(latest.Snapshot.ID, rel)
		if err == nil && kind != "symlink" && editableText(before) &&
			textdiff.RevertsAny([]byte(doc.text), before, cp.Range.Start.Line, cp.Range.End.Line) {
			actions = append(actions, action(
				words.RevertHunkAction(latest.Turn), kindRefactorRewrite,
				commands.NameRewind, map[string]any{
					"root": root, "target": turnTarget(latest.Turn), "paths": []string{rel}, "range": cp.Range,
				}))
		}
	}
	if wants(cp.Context.Only, kindRefactorRewrite) {
		actions = append(actions, s.revertHereActions(ctx, f, doc, rel, cp.Range, latest.Turn)...)
	}
	for i := len(items) - 1; i >= 0 && i >= len(items)-maxFileActionTurns; i-- {
		it := items[i]
		args := map[string]any{"root": root, "target": turnTarget(it.Turn), "paths": []string{rel}}
		if wants(cp.Context.Only, kindRewindFile) {
			actions = append(actions, action(words.RewindFileAction(it.Turn, it.Prompt),
				kindRewindFile, commands.NameRewind, args))
		}
		if wants(cp.Context.Only, kindRewindPreview) {
			pargs := args
			if s.caps.showDocument {
				// The plan's diff opens as a document: a client
				// that drops the command's result still shows something.
				pargs = map[string]any{"root": root, "target": turnTarget(it.Turn), "paths": []string{rel}, "show": true}
			}
			actions = append(actions, action(words.PreviewFileAction(it.Turn),
				kindRewindPreview, commands.NamePreview, pargs))
		}
	}
	return actions, nil
}

func turnTarget(n int) string { return fmt.Sprintf("turn:%d", n) }

func action(title, kind, cmd string, arg map[string]any) codeAction {
	return codeAction{Title: title, Kind: kind, Command: &lspCommand{Title: title, Command: cmd, Arguments: []any{arg}}}
}

// wants reports whether kind passes the client's `only` filter: a listed
// kind matches itself and every kind below it ("source" matches
// "source.rewind.file").
func wants(only []string, kind string) bool {
	if len(only) == 0 {
		return true
	}
	for _, o := range only {
		if kind == o || strings.HasPrefix(kind, o+".") {
			return true
		}
	}
	return false
}
