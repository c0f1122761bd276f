// Package text writes the results of the commands for people to read: a
// plan, the log of turns and steps, what a conversation rewind did. The
// command line prints it and the ACP proxy answers prompts with it, so a
// rewind reads the same wherever it was asked for; the words inside come
// from the results themselves (package words).
package text

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// Quoted is a prompt or a goal after a colon, shortened to its first line
// and quoted: `: "add a greeting"`; "" for none.
func Quoted(s string) string {
	s = words.Prompt(s, 60)
	if s == "" {
		return ""
	}
	return fmt.Sprintf(": %q", s)
}

// Plural writes "1 file", "2 files".
func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// Changes prints a turn's changed files, one line each.
func Changes(w io.Writer, cs []commands.FileChange) {
	for _, c := range cs {
		fmt.Fprintf(w, "  %s\n", c.Line)
	}
}

// Log prints the active branch: turns, checkpoints, rewinds and
// reports in time order, each as its age, its entry and the title the
// server made, then the turn's changes and session, an agent's rewind's
// sentence, a report's text.
func Log(w io.Writer, l *commands.ListResult) {
	type row struct {
		when string
		text string
	}
	var rows []row
	add := func(when, age string, entry journal.EntryID, text string) {
		rows = append(rows, row{when, fmt.Sprintf("%-9s %-18s %s", age, words.Short(string(entry)), text)})
	}
	for _, t := range l.Turns {
		text := t.Title + " — open"
		if t.Ended != "" {
			text = t.Title + " — " + t.What
		}
		if t.Abandoned {
			text += " [abandoned]"
		}
		if t.Source != "" {
			text += " [" + string(t.Source) + "]"
		}
		if t.SessionLabel != "" {
			text += " [" + t.SessionLabel + "]"
		}
		for _, st := range t.Steps {
			// Each step under its turn, by the target that rewinds to
			// just before it.
			what := st.Title
			if i := strings.Index(what, ", step "); i >= 0 {
				what = what[i+2:]
			}
			text += fmt.Sprintf("\n    %-8s %s — %s", st.Target, what, st.What)
		}
		add(t.Started, t.Age, t.Entry, text)
	}
	for _, c := range l.Checkpoints {
		add(c.Time, c.Age, c.Entry, c.Title)
	}
	for _, r := range l.Rewinds {
		text := r.Title
		if r.Message != "" {
			text += "\n    " + r.Message
		}
		if len(r.Offered) > 0 {
			text += fmt.Sprintf("\n    rewind-lsp rewind %s --paths %s restores them", words.Short(r.Target), strings.Join(r.Offered, ","))
		}
		add(r.Time, r.Age, r.Entry, text)
	}
	for _, s := range l.Summaries {
		text := s.Title + ":"
		for _, line := range strings.Split(strings.TrimRight(s.Report, "\n"), "\n") {
			text += "\n    " + line
		}
		add(s.Time, s.Age, s.Entry, text)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].when < rows[j].when })
	if len(rows) == 0 {
		fmt.Fprintln(w, "nothing recorded yet: run `rewind-lsp turn start`, or hook your agent (see README)")
		return
	}
	if l.More && len(l.Turns) > 0 {
		fmt.Fprintf(w, "older turns: rewind-lsp log --limit %d --before %d\n", len(l.Turns), l.Turns[0].Turn)
	}
	for _, r := range rows {
		fmt.Fprintln(w, r.text)
	}
}

// Conversation says what a conversation rewind did to the agent's
// own conversation.
func Conversation(w io.Writer, c *commands.ConversationResult) {
	switch {
	case c == nil:
	case c.Agent != "":
		fmt.Fprintf(w, "conversation: %s session forked to %s\nresume it with: %s\n", c.Agent, c.Transcript, c.Resume)
	default:
		fmt.Fprintf(w, "conversation: %s\n", c.Reason)
	}
}

// Plan prints a plan for people: its target and its files' lines, as
// the server wrote them.
func Plan(w io.Writer, p *commands.Plan, verb string) {
	if p == nil {
		return
	}
	target := " to " + p.Target.Title
	if p.Target.Kind == "rewind" || p.Target.Kind == "revert" || p.Target.Kind == "undo" {
		target = ": back to " + p.Target.Title
	}
	fmt.Fprintf(w, "%s%s, mode %s: %s", verb, target, p.Mode, Plural(len(p.Files), "file"))
	if p.Conversation.EntriesAffected > 0 {
		fmt.Fprintf(w, ", %d conversation entries", p.Conversation.EntriesAffected)
	}
	fmt.Fprintln(w)
	for _, f := range p.Files {
		fmt.Fprintf(w, "  %s\n", f.Line)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
	}
}

// RevertPlan prints what a revert does (or would do) to each file,
// and who overlapped the files in conflict.
func RevertPlan(w io.Writer, p *commands.Plan, verb string) {
	if p == nil {
		return
	}
	fmt.Fprintf(w, "%s %s: %s\n", verb, p.Target.Title, Plural(len(p.Files), "file"))
	for _, f := range p.Files {
		fmt.Fprintf(w, "  %s\n", f.Line)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
	}
}
