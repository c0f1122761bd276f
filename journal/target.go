package journal

// Resolving a rewind target ("3", "turn:3:end", "@label", "~1", an id prefix) in a History.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/journal/internal/view"
)

// Target is a resolved rewind target.
type Target struct {
	Spec     string // as written
	Entry    *Entry // the entry the target names
	Snapshot Snap   // the files' state to restore
	Turn     int    // turn number, 0 for checkpoints and ids of other entries
	Step     int    // a step's number within its turn (then Entry is the step's tool entry)
	Label    string
	Prompt   string
	// Point is the entry the conversation leaf moves back to ("" = before
	// the first entry).
	Point EntryID
}

// UnknownTargetError is a target that names nothing in the journal.
type UnknownTargetError struct {
	Spec   string
	Reason string
}

func (e *UnknownTargetError) Error() string {
	return fmt.Sprintf("unknown target %q: %s", e.Spec, e.Reason)
}

// Resolve turns a target string into a Target: "3" or "turn:3" (the state
// when turn 3 started), "turn:3:end" (when it ended), "3.2" or
// "turn:3:step:2" (the state just before step 2 of turn 3 ran), "~1" (the
// start of the latest turn; "~2" the one before), "@label" (a checkpoint),
// an entry id or a unique prefix of at least 6 characters.
func (h *History) Resolve(spec string) (*Target, error) {
	s := strings.TrimSpace(spec)
	bad := func(reason string) error { return &UnknownTargetError{Spec: spec, Reason: reason} }
	if s == "" {
		return nil, bad("empty target")
	}
	turnTarget := func(n int, end bool) (*Target, error) {
		t, ok := h.Turn(n)
		if !ok {
			return nil, bad(fmt.Sprintf("there is no turn %d on the active branch (%d turns)", n, h.TurnCount()))
		}
		if !end {
			if t.Start.Damaged {
				return nil, bad(fmt.Sprintf("the start of turn %d is a damaged journal line (fsck names it); turn:%d:end is intact", n, n))
			}
			return &Target{Spec: spec, Entry: t.Start, Snapshot: t.Start.Snapshot, Turn: n, Prompt: t.Start.Prompt, Point: t.Start.Parent}, nil
		}
		if t.End == nil {
			return nil, bad(fmt.Sprintf("turn %d has not ended", n))
		}
		return &Target{Spec: spec, Entry: t.End, Snapshot: t.End.Snapshot, Turn: n, Prompt: t.Start.Prompt, Point: t.End.ID}, nil
	}
	stepTarget := func(n, k int) (*Target, error) {
		t, ok := h.Turn(n)
		if !ok {
			return nil, bad(fmt.Sprintf("there is no turn %d on the active branch (%d turns)", n, h.TurnCount()))
		}
		if st := h.StepOf(t.Start, k); st != nil {
			if !st.StepStart.Set {
				return nil, bad(fmt.Sprintf("step %d of turn %d recorded no state before it", k, n))
			}
			return &Target{Spec: spec, Entry: st, Snapshot: st.StepStart, Turn: n, Step: k, Prompt: t.Start.Prompt, Point: t.Start.Parent}, nil
		}
		steps := h.Steps(t.Start)
		if len(steps) == 0 {
			return nil, bad(fmt.Sprintf("turn %d has no steps (no tool call of it changed files)", n))
		}
		return nil, bad(fmt.Sprintf("turn %d has no step %d (its steps: %s)", n, k, stepNumbers(steps)))
	}
	switch {
	case strings.HasPrefix(s, "~"):
		k, err := strconv.Atoi(s[1:])
		if err != nil || k < 1 {
			return nil, bad("~N needs a number of at least 1")
		}
		ts := h.Turns(k, 0)
		if k > len(ts) {
			return nil, bad(fmt.Sprintf("only %d turns on the active branch", len(ts)))
		}
		return turnTarget(ts[0].Number, false)
	case strings.HasPrefix(s, "@"):
		label := s[1:]
		if label == "" {
			return nil, bad("@ needs a checkpoint label")
		}
		var found *Entry
		for _, e := range h.Checkpoints(label) {
			if found == nil || h.OnBranch(e.ID) || !h.OnBranch(found.ID) {
				found = e
			}
		}
		if found == nil {
			return nil, bad("no checkpoint has that label")
		}
		return &Target{Spec: spec, Entry: found, Snapshot: found.Snapshot, Label: label, Point: found.ID}, nil
	case strings.HasPrefix(s, "turn:") && strings.Contains(s, ":step:"):
		var n, k int
		if _, err := fmt.Sscanf(s, "turn:%d:step:%d", &n, &k); err != nil || fmt.Sprintf("turn:%d:step:%d", n, k) != s {
			return nil, bad("turn:N:step:M needs a turn and a step number, as in turn:3:step:2")
		}
		if n < 1 || k < 1 {
			return nil, bad("turn and step numbers start at 1")
		}
		return stepTarget(n, k)
	case strings.HasPrefix(s, "turn:"):
		rest := s[len("turn:"):]
		end := strings.HasSuffix(rest, ":end")
		rest = strings.TrimSuffix(rest, ":end")
		n, err := strconv.Atoi(rest)
		if err != nil {
			return nil, bad("turn:N needs a turn number, as in turn:3 or turn:3:end")
		}
		if n < 1 {
			return nil, bad("turn numbers start at 1")
		}
		return turnTarget(n, end)
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 {
			return nil, bad("turn numbers start at 1")
		}
		return turnTarget(n, false)
	}
	if a, b, ok := strings.Cut(s, "."); ok {
		n, err1 := strconv.Atoi(a)
		k, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil {
			if n < 1 || k < 1 {
				return nil, bad("turn and step numbers start at 1")
			}
			return stepTarget(n, k)
		}
	}
	if len(s) < 6 {
		return nil, bad("an entry id prefix needs at least 6 characters")
	}
	matches := h.idsWithPrefix(s)
	if len(matches) > 1 {
		return nil, bad(ambiguous(matches))
	}
	var match *Entry
	if len(matches) == 1 {
		match = matches[0]
	}
	if match == nil {
		return nil, bad("no entry has that id")
	}
	if !match.Snapshot.Set {
		return nil, bad(fmt.Sprintf("entry %s (%s) recorded no state", match.ID, match.Kind))
	}
	t := &Target{Spec: spec, Entry: match, Snapshot: match.Snapshot, Turn: match.Turn, Prompt: match.Prompt, Label: match.Label, Point: match.ID}
	if match.Kind == KindTurnStart {
		t.Point = match.Parent
	}
	return t, nil
}

// idsWithPrefix lists the entries whose id starts with prefix, in journal
// order (stand-ins for damaged lines aside; an id written twice, twice).
func (h *History) idsWithPrefix(prefix string) []*Entry {
	var out []*Entry
	for _, p := range h.v.FindPrefix(view.ByIDText, []byte(prefix)) {
		if h.v.Rec(p).Flags&view.FlagStandIn != 0 {
			continue
		}
		if e := h.at(p); e != nil && strings.HasPrefix(string(e.ID), prefix) {
			out = append(out, e)
		}
	}
	return out
}

// stepNumbers names a turn's steps: "1–4", or "1, 3".
func stepNumbers(steps []*Entry) string {
	var ns []string
	contiguous := true
	for i, st := range steps {
		ns = append(ns, strconv.Itoa(st.Step))
		contiguous = contiguous && st.Step == steps[0].Step+i
	}
	if contiguous && len(ns) > 2 {
		return ns[0] + "–" + ns[len(ns)-1]
	}
	return strings.Join(ns, ", ")
}

// ambiguous says which entries an id prefix matches, so that the user can
// pick one: "the id prefix is ambiguous: it matches 3 entries: 0190… (turn 2,
// turnStart), …; give more characters".
func ambiguous(matches []*Entry) string {
	const show = 5
	var b strings.Builder
	fmt.Fprintf(&b, "the id prefix is ambiguous: it matches %d entries:", len(matches))
	for i, e := range matches {
		if i == show {
			fmt.Fprintf(&b, " and %d more", len(matches)-show)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		what := string(e.Kind)
		if e.Turn > 0 {
			what = fmt.Sprintf("turn %d, %s", e.Turn, e.Kind)
		}
		fmt.Fprintf(&b, " %s (%s)", e.ID, what)
	}
	b.WriteString("; give more characters")
	return b.String()
}
