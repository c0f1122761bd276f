package commands

import (
	"context"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"github.com/rewind-lsp/rewind-lsp/words"
	"github.com/rewind-lsp/rewind-lsp/workspace"
)

// RevertArgs is the argument of rewind.revert: one turn (Target) or every
// turn of one agent session (Session).
type RevertArgs struct {
	Scope
	// Target is the turn to take back (3, turn:3, ~1).
	Target string `json:"target,omitempty"`
	// Session takes back every turn of that agent session instead.
	Session string `json:"session,omitempty"`
	// Paths limit the revert to these files.
	Paths []string `json:"paths,omitempty"`
	// Range, with exactly one path, limits it to the turn's hunks it overlaps.
	Range *Range `json:"range,omitempty"`
	// DryRun changes nothing; the plan says what would change.
	DryRun bool `json:"dryRun,omitempty"`
}

// Revert takes back the changes of one turn, or of one session's turns,
// keeping everything after them. The result is a RewindResult:
// a refused revert has applied false and a failureReason naming each
// conflicting file and who overlapped it; its plan lists those files with
// conflict true and their overlaps. With dryRun nothing changes and the
// plan says what would.
func (s *Service) Revert(ctx context.Context, a RevertArgs) (*RewindResult, error) {
	target, sess := strings.TrimSpace(a.Target), strings.TrimSpace(a.Session)
	switch {
	case target == "" && sess == "":
		return nil, &ArgError{Field: "target", Msg: "is required (a turn: 3, turn:3, ~1), unless session is given"}
	case target != "" && sess != "":
		return nil, &ArgError{Field: "session", Msg: "give either target or session, not both"}
	}
	req := workspace.RevertRequest{Target: target, Session: sess, DryRun: a.DryRun, Caller: s.caller(ctx)}
	if a.DryRun {
		req.Key = "" // a dry run records nothing
	}
	for _, p := range a.Paths {
		rel, err := s.RelPath(p)
		if err != nil {
			return nil, &ArgError{Field: "paths", Msg: err.Error()}
		}
		req.Paths = append(req.Paths, rel)
	}
	if a.Range != nil {
		if len(req.Paths) != 1 {
			return nil, &ArgError{Field: "range", Msg: "needs exactly one entry in paths"}
		}
		if a.Range.Start.Line < 0 || a.Range.End.Line < a.Range.Start.Line {
			return nil, &ArgError{Field: "range", Msg: "end must not be before start"}
		}
		req.Lines = &[2]int{a.Range.Start.Line, a.Range.End.Line}
	}
	out, err := s.ws.Revert(ctx, req, s.overlay(), s.applyFunc())
	if err != nil {
		return nil, err
	}
	r := s.result(&out.Outcome)
	for _, c := range out.Conflicts {
		r.Plan.Files = append(r.Plan.Files, PlanFile{Path: c.Path, Change: c.Change, Conflict: true, Via: snapshot.ViaEdit, Overlaps: c.Overlaps})
	}
	sort.SliceStable(r.Plan.Files, func(i, j int) bool { return r.Plan.Files[i].Path < r.Plan.Files[j].Path })
	if sess != "" {
		r.Plan.Target.Title = words.SessionTurns(sess)
	}
	r.Plan.fillWords(s.opts.Applier != nil)
	return r, nil
}
