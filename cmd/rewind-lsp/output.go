package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// short abbreviates a snapshot id (hex) or an entry id (a UUIDv7, whose
// first 13 characters are a millisecond time, so more are shown).
func short(id string) string {
	n := 12
	if strings.Count(id, "-") == 4 {
		n = 18
	}
	if len(id) > n {
		return id[:n]
	}
	return id
}

// shortSnap is short for a snapshot ("" for none).
func shortSnap(s journal.Snap) string { return short(s.String()) }

// quoted is a prompt or a goal after a colon, shortened to its first line
// and quoted: `: "add a greeting"`; "" for none.
func quoted(s string) string {
	s = words.Prompt(s, 60)
	if s == "" {
		return ""
	}
	return fmt.Sprintf(": %q", s)
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// plural writes "1 file", "2 files".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func printChanges(w io.Writer, cs []commands.FileChange) {
	for _, c := range cs {
		fmt.Fprintf(w, "  %s\n", c.Line)
	}
}

// printLog prints the active branch: turns, checkpoints and rewinds in time
// order, with the words the server made (their ages, each turn's changes).
func printLog(w io.Writer, l *commands.ListResult) {
	type row struct {
		when string
		text string
	}
	var rows []row
	for _, t := range l.Turns {
		state := "open"
		if t.Ended != "" {
			state = t.What
		}
		extra := ""
		if t.Abandoned {
			extra = " [abandoned]"
		}
		if t.Source != "" {
			extra += " [" + t.Source + "]"
		}
		if who := sessionLabel(t.Agent, t.Session); who != "" {
			extra += " [" + who + "]"
		}
		rows = append(rows, row{t.Started, fmt.Sprintf("turn %-3d %-9s %s%s — %s%s", t.Turn, t.Age, short(t.Entry), quoted(t.Prompt), state, extra)})
	}
	for _, c := range l.Checkpoints {
		name := "(no label)"
		if c.Label != "" {
			name = "@" + c.Label
		}
		rows = append(rows, row{c.Time, fmt.Sprintf("checkpoint %-9s %s %s%s", c.Age, short(c.Entry), name, quoted(c.Goal))})
	}
	for _, r := range l.Rewinds {
		undone := ""
		if r.Undone {
			undone = " (undone)"
		}
		if r.Agent != "" {
			rows = append(rows, row{r.Time, agentRewindLine(r, undone)})
			continue
		}
		if r.Mode == "revert" {
			rows = append(rows, row{r.Time, fmt.Sprintf("revert   %-9s %s of %s (later changes kept)%s", r.Age, short(r.Entry), r.Target, undone)})
			continue
		}
		rows = append(rows, row{r.Time, fmt.Sprintf("rewind   %-9s %s to %s, mode %s%s", r.Age, short(r.Entry), r.Target, r.Mode, undone)})
	}
	for _, s := range l.Summaries {
		text := fmt.Sprintf("summary  %-9s %s for %s:", s.Age, short(s.Entry), s.Target)
		for _, line := range strings.Split(strings.TrimRight(s.Report, "\n"), "\n") {
			text += "\n    " + line
		}
		rows = append(rows, row{s.Time, text})
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].when < rows[j].when })
	if len(rows) == 0 {
		fmt.Fprintln(w, "nothing recorded yet: run `rewind-lsp turn start`, or hook your agent (see README)")
		return
	}
	for _, r := range rows {
		fmt.Fprintln(w, r.text)
	}
}

// agentRewindLine is the log line of an agent's own rewind: what it did
// to its conversation, what rewind-lsp restored and left, or what it
// offers to restore.
func agentRewindLine(r commands.RewindInfo, undone string) string {
	text := fmt.Sprintf("rewind   %-9s %s by %s: conversation back to before turn %d%s", r.Age, short(r.Entry),
		sessionLabel(r.Agent, r.Session), r.Turn, quoted(r.Prompt))
	if len(r.Files) > 0 {
		text += "; restored " + strings.Join(r.Files, ", ")
	}
	if len(r.Kept) > 0 {
		text += "; left " + strings.Join(r.Kept, ", ") + " (changed since by someone else)"
	}
	if len(r.Offered) > 0 {
		text += fmt.Sprintf("; files not restored: %s (rewind-lsp rewind %s --paths %s)", strings.Join(r.Offered, ", "),
			short(r.Target), strings.Join(r.Offered, ","))
	}
	return text + undone
}

// printConversation says what a conversation rewind did to the agent's
// own conversation.
func printConversation(w io.Writer, c *commands.ConversationResult) {
	switch {
	case c == nil:
	case c.Agent != "":
		fmt.Fprintf(w, "conversation: %s session forked to %s\nresume it with: %s\n", c.Agent, c.Transcript, c.Resume)
	default:
		fmt.Fprintf(w, "conversation: %s\n", c.Reason)
	}
}

// sessionLabel names an agent session for people: its agent and the
// start of its id.
func sessionLabel(agent, session string) string {
	if len(session) > 8 {
		session = session[:8]
	}
	switch {
	case agent != "" && session != "":
		return agent + " " + session
	case session != "":
		return "session " + session
	}
	return agent
}

// printPlan prints a plan for people: its target and its files' lines, as
// the server wrote them.
func printPlan(w io.Writer, p *commands.Plan, verb string) {
	if p == nil {
		return
	}
	target := " to " + p.Target.Title
	if p.Target.Kind == "rewind" || p.Target.Kind == "revert" || p.Target.Kind == "undo" {
		target = ": back to " + p.Target.Title
	}
	fmt.Fprintf(w, "%s%s, mode %s: %s", verb, target, p.Mode, plural(len(p.Files), "file"))
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
