package words

import (
	"fmt"
	"strings"
)

// SessionID shortens an agent session's id so that sessions tell apart:
// its first 8 characters, or, for a time-ordered UUID (version 6 or 7, as
// Codex's are) or an opencode or Kilo session id, whose first characters
// are the time the session started and so the same for sessions started
// within minutes, "…" and its last 8 characters, which are random.
func SessionID(id string) string {
	if timeOrdered(id) || openCodeID(id) {
		return "…" + id[len(id)-8:]
	}
	if r := []rune(id); len(r) > 8 {
		return string(r[:8])
	}
	return id
}

// timeOrdered reports whether id is a UUID of version 6 or 7, which
// start with a timestamp.
func timeOrdered(id string) bool {
	if len(id) != 36 || (id[14] != '6' && id[14] != '7') {
		return false
	}
	for i, c := range id {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if c != '-' {
				return false
			}
		case !strings.ContainsRune("0123456789abcdefABCDEF", c):
			return false
		}
	}
	return true
}

// openCodeID reports whether id is an opencode (or Kilo) session id:
// "ses_", 12 hexadecimal digits of time, 14 random letters and digits.
func openCodeID(id string) bool {
	rest, ok := strings.CutPrefix(id, "ses_")
	if !ok || len(rest) != 26 {
		return false
	}
	for i, c := range rest {
		hex := strings.ContainsRune("0123456789abcdef", c)
		alnum := hex || c >= 'g' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i < 12 && !hex || !alnum {
			return false
		}
	}
	return true
}

// Session names an agent session where it is shown beside a turn, a
// rewind or a blamed line: its agent and short id ("claude-code
// 6db2232a", "codex …6c0d1a72"), "session 6db2232a" when the agent is not
// known, the agent alone without an id, "" for neither.
func Session(agent, id string) string {
	switch {
	case agent != "" && id != "":
		return agent + " " + SessionID(id)
	case id != "":
		return "session " + SessionID(id)
	}
	return agent
}

// SessionTurns names what a revert of a whole session takes back: "the
// turns of session 6db2232a".
func SessionTurns(id string) string {
	return "the turns of " + Session("", id)
}

// Checkpoint names a checkpoint where it is listed: "Checkpoint @base:
// before the refactor" (its goal's first line, at most 80 characters),
// "Checkpoint 0190a0b1-2c3d-7e4f" for one without a label or goal.
func Checkpoint(label, goal, id string) string {
	s := "Checkpoint @" + label
	if label == "" {
		s = "Checkpoint " + Short(id)
	}
	if g := Prompt(goal, 80); g != "" {
		s += ": " + g
	}
	return s
}

// Report names a kept report where it is listed, by the target of the
// rewind it was written for (named as Target does): "Report since turn 3
// (fix auth)".
func Report(target string) string {
	return "Report since " + target
}

// Rewind names a recorded rewind where it is listed, its target named as
// Target does: "Rewind to turn 3 (fix auth)", then what it moved besides
// the files or instead of them ("…, code and conversation", "…,
// conversation only"); a revert: "Revert turn 3 (fix auth), later changes
// kept"; "… — undone" once an undo took it back. By, when set, is the
// agent that rewound its own conversation: "Claude Code rewound to turn 3
// (fix auth), conversation only".
func Rewind(mode, target, by string, undone bool) string {
	var s string
	switch {
	case mode == "revert":
		s = "Revert " + target + ", later changes kept"
	case by != "":
		s = by + " rewound to " + target + modeNote(mode)
	default:
		s = "Rewind to " + target + modeNote(mode)
	}
	if undone {
		s += " — undone"
	}
	return s
}

// modeNote says what a rewind of mode moved, when it is more or other
// than the files.
func modeNote(mode string) string {
	switch mode {
	case "", "code":
		return ""
	case "both":
		return ", code and conversation"
	case "conversation":
		return ", conversation only"
	}
	return ", mode " + mode
}

// AgentRewound says, in a sentence, what an agent's own rewind of its
// conversation to target did and what rewind-lsp did about it: the files
// it restored besides the agent's own (files) and left alone (kept), or,
// when the agent restored no file, the files that still differ (offered).
// Lists longer than three end "and 2 more".
func AgentRewound(by, target string, files, kept, offered []string) string {
	switch {
	case len(offered) > 0:
		differ := "files still differ"
		if len(offered) == 1 {
			differ = "file still differs"
		}
		return fmt.Sprintf("%s rewound its conversation to %s but restored no files; %d %s: %s.",
			by, target, len(offered), differ, list(offered))
	case len(files) > 0:
		s := fmt.Sprintf("%s rewound to %s and restored its own edits; rewind-lsp restored what its shell changed too: %s.",
			by, target, list(files))
		if len(kept) > 0 {
			s += " Left as they are (changed since by someone else): " + list(kept) + "."
		}
		return s
	}
	return fmt.Sprintf("%s rewound its conversation to %s; no file needed restoring.", by, target)
}

// list joins up to three names, then says how many more there are.
func list(names []string) string {
	if len(names) > 3 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
	}
	return strings.Join(names, ", ")
}
