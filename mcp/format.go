package mcp

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// formatTurns lists turns (each with its steps beneath it) and
// checkpoints for the model, in time order, newest last.
func formatTurns(l *commands.ListResult) string {
	type row struct{ when, text string }
	var rows []row
	for _, t := range l.Turns {
		state := "open"
		if t.Ended != "" {
			state = changes(t.Changed)
		}
		who := string(t.Source)
		if t.Session != "" {
			who += ", session " + t.Session
		}
		text := fmt.Sprintf("turn %d (target %d; %s, %s): %s — %s", t.Turn, t.Turn, who, t.Started, oneLine(t.Prompt), state)
		for _, st := range t.Steps {
			// Each step, by the target of the state just before it.
			text += fmt.Sprintf("\n  %s (target %s): %s", st.Title, st.Target, changes(st.Changed))
		}
		rows = append(rows, row{t.Started, text})
	}
	for _, c := range l.Checkpoints {
		name := "checkpoint"
		target := string(c.Entry)
		if c.Label != "" {
			name, target = "checkpoint @"+c.Label, "@"+c.Label
		}
		rows = append(rows, row{c.Time, fmt.Sprintf("%s (target %s; %s): %s", name, target, c.Time, oneLine(c.Goal))})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].when < rows[j].when })
	if len(rows) == 0 {
		return "Nothing recorded yet."
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.text)
		b.WriteByte('\n')
	}
	return b.String()
}

func changes(cs []commands.FileChange) string {
	if len(cs) == 0 {
		return "no files changed"
	}
	var ps []string
	for _, c := range cs {
		ps = append(ps, string(c.Change)+" "+c.Path)
	}
	if len(ps) > 20 {
		ps = append(ps[:20], fmt.Sprintf("and %d more", len(cs)-20))
	}
	return strings.Join(ps, ", ")
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + "…"
	}
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
