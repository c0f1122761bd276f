package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// Bounds that keep a notice whole: Claude Code passes ~10,000 characters
// of additionalContext to the model and cuts longer text to a preview;
// Codex spills more than 2,500 tokens of it to a file.
const (
	noticeFiles  = 30   // files named per entry
	noticeReport = 2500 // characters of one report
	noticeTotal  = 9000 // characters of the whole notice
)

// NoticeText words what happened since a session last heard from
// rewind-lsp (package notices): which files were restored to which
// state, so the agent re-reads them instead of trusting its memory, and
// the reports. h is the history the entries were read from. It is "" when
// there is nothing to tell.
func NoticeText(ents []*journal.Entry, h Entries) string {
	if len(ents) == 0 {
		return ""
	}
	var parts []string
	for _, e := range ents {
		var b strings.Builder
		switch e.Kind {
		case journal.KindRewind:
			if e.Agent != "" {
				fmt.Fprintf(&b, "A rewind of %s session %s to %s was completed: its own restore missed files its shell changed, "+
					"and these were restored too: %s.", e.Agent, words.SessionID(e.Session), where(e, h), fileList(e.Files))
				if len(e.Kept) > 0 {
					fmt.Fprintf(&b, " These were left as they are (changed since by someone else): %s.", fileList(e.Kept))
				}
				break
			}
			if len(e.Files) > 0 {
				fmt.Fprintf(&b, "The workspace was rewound to %s. These files were restored: %s.", where(e, h), fileList(e.Files))
			} else {
				fmt.Fprintf(&b, "A rewind to %s changed no files.", where(e, h))
			}
			if e.Report != "" {
				fmt.Fprintf(&b, " Report kept with it (what was learnt on the abandoned path): %s", clip(e.Report))
			}
		case journal.KindUndo:
			fmt.Fprintf(&b, "A rewind was undone: these files are back as they were before it: %s.", fileList(e.Files))
		case journal.KindSummary:
			fmt.Fprintf(&b, "A report was recorded about the work since %s: %s", where(e, h), clip(e.Report))
		default: // a revert
			fmt.Fprintf(&b, "The changes of %s were taken back in these files (later changes kept): %s.", where(e, h), fileList(e.Files))
		}
		parts = append(parts, b.String())
	}
	text := "rewind-lsp: since your last prompt, " + lowerFirst(strings.Join(parts, "\n"))
	if len(ents) > 0 && anyFiles(ents) {
		text += "\nRe-read these files before you rely on what you remember of them or edit them."
	}
	if r := []rune(text); len(r) > noticeTotal {
		text = string(r[:noticeTotal-1]) + "…"
	}
	return text
}

// ForkText words, for the first prompt of a conversation fork, which files
// differ on disk from its fork point target (the start or end of a turn)
// and who changed each since (by: "turn 3", "user", "rewind"…), so the
// agent re-reads them: its conversation went back, the files did not. h is
// the history target was read from. It is "" when no file differs.
func ForkText(target *journal.Entry, h Entries, files []string, by map[string][]string) string {
	if target == nil || len(files) == 0 {
		return ""
	}
	shown := files
	if len(shown) > noticeFiles {
		shown = shown[:noticeFiles]
	}
	parts := make([]string, len(shown))
	for i, p := range shown {
		parts[i] = p
		if who := by[p]; len(who) > 0 {
			parts[i] += " (changed by " + strings.Join(who, ", ") + ")"
		}
	}
	list := strings.Join(parts, ", ")
	if len(files) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(files)-len(shown))
	}
	text := fmt.Sprintf("rewind-lsp: this conversation continues from %s, but the files were not rewound with it: "+
		"these files differ on disk from that point: %s.\nRe-read them before you rely on what you remember of them or edit them.",
		where(&journal.Entry{TargetEntry: target.ID}, h), list)
	if r := []rune(text); len(r) > noticeTotal {
		text = string(r[:noticeTotal-1]) + "…"
	}
	return text
}

// JoinNotices joins notice texts (NoticeText, ForkText), leaving out empty
// ones, within the length an agent takes whole.
func JoinNotices(texts ...string) string {
	var parts []string
	for _, t := range texts {
		if t != "" {
			parts = append(parts, t)
		}
	}
	text := strings.Join(parts, "\n")
	if r := []rune(text); len(r) > noticeTotal {
		text = string(r[:noticeTotal-1]) + "…"
	}
	return text
}

// MarshalLine is v as one line of JSON (no HTML escaping), with its newline.
func MarshalLine(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return buf.Bytes()
}

func anyFiles(ents []*journal.Entry) bool {
	for _, e := range ents {
		if len(e.Files) > 0 {
			return true
		}
	}
	return false
}

// Entries finds journal entries by id (a journal.History).
type Entries interface {
	Entry(id journal.EntryID) *journal.Entry
}

// where names the state an entry went to, for the agent.
func where(e *journal.Entry, h Entries) string {
	if t := h.Entry(e.TargetEntry); t != nil {
		switch t.Kind {
		case journal.KindTurnStart:
			return fmt.Sprintf("the state before turn %d%s", t.Turn, promptOf(t.Prompt))
		case journal.KindTurnEnd:
			if s := h.Entry(t.Start); s != nil {
				return fmt.Sprintf("the end of turn %d%s", t.Turn, promptOf(s.Prompt))
			}
			return fmt.Sprintf("the end of turn %d", t.Turn)
		case journal.KindCheckpoint:
			if t.Label != "" {
				return "checkpoint @" + t.Label + promptOf(t.Goal)
			}
			return "a checkpoint" + promptOf(t.Goal)
		}
	}
	if e.Turn > 0 {
		return fmt.Sprintf("turn %d", e.Turn)
	}
	if e.Target != "" {
		return e.Target
	}
	return "an earlier state"
}

func promptOf(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	if i := strings.IndexByte(p, '\n'); i >= 0 {
		p = p[:i] + "…"
	}
	if r := []rune(p); len(r) > 80 {
		p = string(r[:79]) + "…"
	}
	return fmt.Sprintf(" (%q)", p)
}

func fileList(fs []string) string {
	if len(fs) <= noticeFiles {
		return strings.Join(fs, ", ")
	}
	return strings.Join(fs[:noticeFiles], ", ") + fmt.Sprintf(" and %d more", len(fs)-noticeFiles)
}

func clip(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > noticeReport {
		return string(r[:noticeReport-1]) + "…"
	}
	return s
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return s
	}
	return string(s[0]+'a'-'A') + s[1:]
}
