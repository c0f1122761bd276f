package lsp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// maxRevertHereTurns bounds the "Revert turn N here" actions on one range,
// and the "Revert step M of turn N here" actions.
const maxRevertHereTurns = 3

// revertHereActions are the "Revert turn N here (keep later changes)"
// actions on a range of an open file: one per turn that wrote lines in the
// range (per blame) or is the latest turn that changed the file; then
// "Revert step M of turn N here" for the steps that wrote lines in the
// range. Each is offered only when reverting its hunks in the range goes
// through without a conflict and changes the file — what is offered is
// what runs.
func (s *Server) revertHereActions(ctx context.Context, f *folder, doc document, rel string, rng Range, latest int) []codeAction {
	turns := map[int]bool{}
	if latest > 0 {
		turns[latest] = true
	}
	steps := map[string]commands.BlameRange{}
	if res, err := f.svc.Blame(ctx, commands.BlameArgs{Scope: commands.Scope{URI: rel}}); err == nil {
		for _, r := range res.Ranges {
			if r.StartLine <= rng.End.Line && rng.Start.Line < r.EndLine {
				turns[r.Turn] = true
				if r.Step > 0 {
					steps[r.StepTarget] = r
				}
			}
		}
	}
	type candidate struct {
		turn, step int
		target     string
		title      string
	}
	var byTurn, byStep []candidate
	for n := range turns {
		byTurn = append(byTurn, candidate{n, 0, turnTarget(n), words.RevertHereAction(n, 0, "")})
	}
	for target, r := range steps {
		byStep = append(byStep, candidate{r.Turn, r.Step, target, words.RevertHereAction(r.Turn, r.Step, r.StepTitle)})
	}
	newestFirst := func(c []candidate) {
		sort.Slice(c, func(i, j int) bool {
			if c[i].turn != c[j].turn {
				return c[i].turn > c[j].turn
			}
			return c[i].step > c[j].step
		})
	}
	newestFirst(byTurn)
	newestFirst(byStep)
	var out []codeAction
	for _, list := range [][]candidate{byTurn, byStep} {
		offered := 0
		for _, c := range list {
			if offered == maxRevertHereTurns {
				break
			}
			ok, err := f.svc.RevertHunkApplies(rel, []byte(doc.text), true, c.target, rng.Start.Line, rng.End.Line)
			if err != nil {
				s.log.Printf("code actions for %s: %s: %v", rel, c.target, err)
				continue
			}
			if !ok {
				continue
			}
			offered++
			out = append(out, action(c.title, kindRefactorRewrite,
				commands.NameRevert, map[string]any{"root": f.svc.Root(), "target": c.target, "paths": []string{rel}, "range": rng}))
		}
	}
	return out
}

type showDocumentParams struct {
	URI       string `json:"uri"`
	External  bool   `json:"external,omitempty"`
	TakeFocus bool   `json:"takeFocus,omitempty"`
}

type showDocumentResult struct {
	Success bool `json:"success"`
}

// wantsShow reports whether a command's argument asks to show its plan
// ("show": true, set by the Preview code action and hover link).
func wantsShow(arg json.RawMessage) bool {
	var m struct {
		Show bool `json:"show"`
	}
	return json.Unmarshal(arg, &m) == nil && m.Show
}

// isDryRun reports whether a command's argument asks for a dry run (a
// revert's plan): its refusal is an answer, not a failure to show.
func isDryRun(arg json.RawMessage) bool {
	var m struct {
		DryRun bool `json:"dryRun"`
	}
	return json.Unmarshal(arg, &m) == nil && m.DryRun
}

// previewsDir is where shown previews are written, inside the store.
const previewsDir = "previews"

// showPlan opens a plan's unified diff in the editor with
// window/showDocument: a read-only file in the store, for clients that
// cannot show rewind: URIs. Previews older than a day are
// removed on the way.
func (s *Server) showPlan(ctx context.Context, f *folder, plan *commands.Plan) error {
	if plan == nil || !s.caps.showDocument {
		return nil
	}
	dir := filepath.Join(f.svc.StoreDir(), previewsDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("preview: %w", err)
	}
	if old, err := os.ReadDir(dir); err == nil {
		for _, e := range old {
			if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > 24*time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
		}
	}
	var b strings.Builder
	t := plan.Target
	switch {
	case t.Turn > 0:
		fmt.Fprintf(&b, "# rewind-lsp preview: what a rewind to before turn %d does (current → before the turn)\n", t.Turn)
	default:
		fmt.Fprintf(&b, "# rewind-lsp preview: what a rewind to %s does\n", t.ID)
	}
	if p := strings.TrimSpace(strings.SplitN(t.Prompt, "\n", 2)[0]); p != "" {
		fmt.Fprintf(&b, "# turn %d: %s\n", t.Turn, p)
	}
	if plan.DiffText() == "" {
		b.WriteString("# no file would change\n")
	}
	b.WriteString(plan.Diff)
	sum := sha256.Sum256([]byte(b.String()))
	name := fmt.Sprintf("turn-%d-%s.diff", t.Turn, hex.EncodeToString(sum[:])[:12])
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, []byte(b.String()), 0o444); err != nil {
			return fmt.Errorf("preview: %w", err)
		}
		if err := os.Rename(tmp, p); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("preview: %w", err)
		}
	}
	var res showDocumentResult
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.conn.Call(cctx, "window/showDocument", showDocumentParams{URI: uriFromPath(p), TakeFocus: true}, &res); err != nil {
		return fmt.Errorf("window/showDocument: %w", err)
	}
	if !res.Success {
		return fmt.Errorf("the editor did not open %s", p)
	}
	return nil
}
