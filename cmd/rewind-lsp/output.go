package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
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

func quoted(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + "…"
	}
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
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

// age is how long ago an RFC 3339 time was, for people (commands.Age).
func age(stamp string) string { return commands.Age(stamp) }

var changeLetter = map[string]string{"create": "A", "modify": "M", "delete": "D"}

func changeSummary(cs []commands.FileChange) string {
	if len(cs) == 0 {
		return "no files changed"
	}
	add, rem := 0, 0
	for _, c := range cs {
		add += c.Added
		rem += c.Removed
	}
	return fmt.Sprintf("%s changed (+%d -%d)", plural(len(cs), "file"), add, rem)
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
		fmt.Fprintf(w, "  %s %s  %s\n", changeLetter[c.Change], c.Path, commands.What(c.Added, c.Removed, c.Kind, c.Mode))
	}
}

// printLog prints the active branch: turns, checkpoints and rewinds in time
// order.
func printLog(w io.Writer, l *commands.ListResult) {
	type row struct {
		when string
		text string
	}
	var rows []row
	for _, t := range l.Turns {
		state := "open"
		if t.Ended != "" {
			state = changeSummary(t.Changed)
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
		rows = append(rows, row{t.Started, fmt.Sprintf("turn %-3d %-9s %s%s — %s%s", t.Turn, age(t.Started), short(t.Entry), quoted(t.Prompt), state, extra)})
	}
	for _, c := range l.Checkpoints {
		name := "(no label)"
		if c.Label != "" {
			name = "@" + c.Label
		}
		rows = append(rows, row{c.Time, fmt.Sprintf("checkpoint %-9s %s %s%s", age(c.Time), short(c.Entry), name, quoted(c.Goal))})
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
			rows = append(rows, row{r.Time, fmt.Sprintf("revert   %-9s %s of %s (later changes kept)%s", age(r.Time), short(r.Entry), r.Target, undone)})
			continue
		}
		rows = append(rows, row{r.Time, fmt.Sprintf("rewind   %-9s %s to %s, mode %s%s", age(r.Time), short(r.Entry), r.Target, r.Mode, undone)})
	}
	for _, s := range l.Summaries {
		text := fmt.Sprintf("summary  %-9s %s for %s:", age(s.Time), short(s.Entry), s.Target)
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
	text := fmt.Sprintf("rewind   %-9s %s by %s: conversation back to before turn %d%s", age(r.Time), short(r.Entry),
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

// printPlan prints a plan's files for people.
func printPlan(w io.Writer, p *commands.Plan, verb string) {
	if p == nil {
		return
	}
	prompt := quoted(p.Target.Prompt)
	target := " to " + short(p.Target.ID)
	switch {
	case p.Target.Kind == "rewind":
		target, prompt = ": back to before the rewind", ""
	case p.Target.Kind == "turnEnd":
		target = fmt.Sprintf(" to the end of turn %d", p.Target.Turn)
	case p.Target.Turn > 0:
		target = fmt.Sprintf(" to before turn %d", p.Target.Turn)
	case p.Target.Label != "":
		target = " to checkpoint @" + p.Target.Label
	}
	fmt.Fprintf(w, "%s%s%s (mode %s): %s", verb, target, prompt, p.Mode, plural(len(p.Files), "file"))
	if p.Conversation.EntriesAffected > 0 {
		fmt.Fprintf(w, ", %d conversation entries", p.Conversation.EntriesAffected)
	}
	fmt.Fprintln(w)
	for _, f := range p.Files {
		kind := f.Kind
		if kind == "" && f.Binary {
			kind = "binary" // a server older than the kind field
		}
		flags := ""
		if f.Conflict {
			flags += " CONFLICT (edited since recorded)"
		}
		fmt.Fprintf(w, "  %s %s  %s%s\n", changeLetter[f.Change], f.Path, commands.What(f.Added, f.Removed, kind, f.Mode), flags)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "  skipped %s: %s\n", s.Path, s.Reason)
	}
}
