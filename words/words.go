package words

import (
	"fmt"
	"strings"
	"time"
)

// Age says how long before now t was: "42s ago", "5m ago", "3h ago" (up
// to two days), "2d ago". A time after now is "0s ago".
func Age(t, now time.Time) string {
	d := now.Sub(t)
	switch {
	case d < 0:
		return "0s ago"
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return fmt.Sprintf("%dd ago", int(d.Hours()/24))
}

// Prompt shortens a prompt (or a goal) to its first line, trimmed, of at
// most max characters; "…" marks what was left out, the rest of the line
// or the lines after it.
func Prompt(p string, max int) string {
	p = strings.TrimSpace(p)
	cut := false
	if i := strings.IndexByte(p, '\n'); i >= 0 {
		p, cut = strings.TrimSpace(p[:i]), true
	}
	if r := []rune(p); len(r) > max {
		p, cut = strings.TrimSpace(string(r[:max-1])), true
	}
	if cut {
		p += "…"
	}
	return p
}

// Title names a turn where it is listed (a row, a pick, a note): "Turn 3:
// refactor auth to JWT", or "Turn 3" for a turn without a prompt.
func Title(turn int, prompt string) string {
	if p := Prompt(prompt, 80); p != "" {
		return fmt.Sprintf("Turn %d: %s", turn, p)
	}
	return fmt.Sprintf("Turn %d", turn)
}

// Target names the state a rewind goes to, inside a sentence ("Rewind to
// …?"): "turn 3 (refactor auth)" (the state before turn 3), "the end of
// turn 3 (refactor auth)", "checkpoint @base", "checkpoint 0190a0b1-2c3d-7e4f",
// "before the rewind" (an undo's), or "entry 0190a0b1-2c3d-7e4f". Kind is
// the kind of the target's journal entry; id is the entry's.
func Target(kind string, turn int, label, prompt, id string) string {
	with := func(s string) string {
		if p := Prompt(prompt, 60); p != "" {
			return s + " (" + p + ")"
		}
		return s
	}
	switch {
	case kind == "turnEnd" && turn > 0:
		return with(fmt.Sprintf("the end of turn %d", turn))
	case kind == "rewind" || kind == "revert" || kind == "undo":
		return "before the " + kind
	case turn > 0:
		return with(fmt.Sprintf("turn %d", turn))
	case label != "":
		return "checkpoint @" + label
	case kind == "checkpoint":
		return "checkpoint " + Short(id)
	}
	return "entry " + Short(id)
}

// Short abbreviates an entry or snapshot id so that ids tell apart and the
// short form still names the entry wherever an id prefix is taken: a
// UUID's first 18 characters ("0190a0b1-2c3d-7e4f": the millisecond it was
// made, its version and three random digits — entry ids are time-ordered
// UUIDs, whose first 8 characters are the same for a minute), another id's
// first 12.
func Short(id string) string {
	n := 12
	if strings.Count(id, "-") == 4 {
		n = 18
	}
	if len(id) > n {
		return id[:n]
	}
	return id
}

// What says one file's change: its line counts ("+3 -1"), or its kind
// where line counts do not apply ("binary", "symlink"), and a change of
// its executable bit ("mode +x", "+2 -1 mode -x").
func What(added, removed int, kind, mode string) string {
	s := kind
	if s == "" && (added != 0 || removed != 0 || mode == "") {
		s = fmt.Sprintf("+%d -%d", added, removed)
	}
	if mode != "" {
		if s != "" {
			s += " "
		}
		s += "mode " + mode
	}
	return s
}

// Changes says what a turn changed in all: "3 files changed (+4 -1)",
// "1 file changed (+0 -2)", "no files changed", and "2 files changed" when
// no line changed (binary files, links, modes).
func Changes(files, added, removed int) string {
	s := fmt.Sprintf("%d files changed", files)
	switch files {
	case 0:
		return "no files changed"
	case 1:
		s = "1 file changed"
	}
	if added == 0 && removed == 0 {
		return s
	}
	return fmt.Sprintf("%s (+%d -%d)", s, added, removed)
}

// letters mark a file's change in a line: modified, added, deleted.
var letters = map[string]string{"modify": "M", "create": "A", "delete": "D"}

// Line is one file of a change, as lists show it: "M src/auth.go  +12 -30",
// "A logo.png  binary", then its notes in parentheses, when it has any
// ("M a.txt  +1 -2  (conflict: changed since recorded; written on disk)").
func Line(change, path, what string, notes ...string) string {
	l, ok := letters[change]
	if !ok {
		l = "?"
	}
	s := l + " " + path
	if what != "" {
		s += "  " + what
	}
	var ns []string
	for _, n := range notes {
		if n != "" {
			ns = append(ns, n)
		}
	}
	if len(ns) > 0 {
		s += "  (" + strings.Join(ns, "; ") + ")"
	}
	return s
}

// OnDisk is a plan file's note, in a plan made for an editor, when the
// server writes the file itself rather than in the editor's edit.
const OnDisk = "written on disk"

// Conflict is a plan file's note when it is in conflict: who changed it
// since, in a revert's plan ("conflict: changed since by turn 4, user"),
// or that it changed since it was recorded.
func Conflict(overlaps []string) string {
	if len(overlaps) > 0 {
		return "conflict: changed since by " + strings.Join(overlaps, ", ")
	}
	return "conflict: changed since recorded"
}

// Step names a step of a turn where it is listed: `turn 3, step 2: Bash
// "npm test"` (a tool and its command), `turn 3, step 1: Edit
// src/auth.go` (a tool and the file it wrote), `turn 3, step 4: Bash`, or
// `turn 3, step 4` for a burst of changes of an automatic turn.
func Step(turn, step int, tool, detail string) string {
	s := fmt.Sprintf("turn %d, step %d", turn, step)
	if tool == "" {
		return s
	}
	s += ": " + tool
	if d := Prompt(detail, 60); d != "" {
		if strings.ContainsAny(d, " \t") || !strings.ContainsAny(d, "/.") {
			d = `"` + d + `"`
		}
		s += " " + d
	}
	return s
}

// StepName names a step inside a sentence ("Revert …?"): `step 2 of
// turn 3 (Bash "npm test")`.
func StepName(turn, step int, tool, detail string) string {
	s := fmt.Sprintf("step %d of turn %d", step, turn)
	if tool == "" {
		return s
	}
	full := Step(turn, step, tool, detail)
	return s + " (" + full[strings.Index(full, ": ")+2:] + ")"
}

// StepTarget names the state before a step, inside a sentence ("Rewind to
// …?"): `before step 2 of turn 3 (Bash "npm test")`.
func StepTarget(turn, step int, tool, detail string) string {
	return "before " + StepName(turn, step, tool, detail)
}
