package qwen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/claudecode"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Qwen Code's own rewind (/rewind, Esc Esc; its interactive interface
// only) fires no hook. It writes at once, in the same transcript, a system
// entry of subtype "rewind" whose parentUuid is the parent of the dropped
// prompt's user entry (the chain goes on from there: the dropped entries
// stay in the file on a dead branch), followed by a session_model entry
// and a file_history_snapshot entry that lists the snapshots kept. So the
// next prompt's UserPromptSubmit, which opens the next turn, already sees
// it: the rewind entry lies between the previous prompt's fork point and
// this one's.
//
// "Restore code and conversation" also restores the files its file tools
// (write_file, edit) wrote, from its file history: per prompt, a
// file_history_snapshot entry names the prompt (promptId, its hooks'
// prompt_id) and the files it tracks then (trackedFileBackups, their paths
// relative to the session's folder; backupFileName null for a file that
// did not exist); a file first written during a prompt is added by another
// snapshot entry of that prompt. File history is on in the interactive
// interface only (not with -p). "Restore conversation only" writes the
// same entries and restores nothing; "Restore code only" writes no rewind
// entry (the conversation is unchanged) and is no conversation rewind.

// qwenLine is what rewind-lsp reads of a transcript entry.
type qwenLine struct {
	Type       string  `json:"type"`
	Subtype    string  `json:"subtype"`
	UUID       string  `json:"uuid"`
	ParentUUID *string `json:"parentUuid"`
	Cwd        string  `json:"cwd"`
	Message    struct {
		Parts []struct {
			Text             *string         `json:"text"`
			FunctionResponse json.RawMessage `json:"functionResponse"`
		} `json:"parts"`
	} `json:"message"`
	SystemPayload struct {
		Snapshots []struct {
			PromptID           string                     `json:"promptId"`
			TrackedFileBackups map[string]json.RawMessage `json:"trackedFileBackups"`
		} `json:"snapshots"`
	} `json:"systemPayload"`
}

// qwenTurnlessUser are the subtypes of user entries that are no prompt of
// the person's (Qwen Code counts no turn for them).
var qwenTurnlessUser = []string{"goal_runtime", "notification", "cron", "mid_turn_user_message", "realtime_message"}

// qwenPromptText is the text of a user entry that is a prompt: its text
// parts (not a tool's response).
func qwenPromptText(line []byte) (string, bool) {
	if conv.TopString(bytes.TrimSuffix(line, []byte("\n")), "type") != "user" {
		return "", false
	}
	var l qwenLine
	if json.Unmarshal(line, &l) != nil || slices.Contains(qwenTurnlessUser, l.Subtype) {
		return "", false
	}
	var texts []string
	for _, p := range l.Message.Parts {
		if len(p.FunctionResponse) > 0 {
			return "", false
		}
		if p.Text != nil {
			texts = append(texts, *p.Text)
		}
	}
	return strings.TrimSpace(strings.Join(texts, "\n")), len(texts) > 0
}

// qwenPrompt reports whether a transcript line is a prompt's user entry.
func qwenPrompt(line []byte) bool {
	_, ok := qwenPromptText(line)
	return ok
}

// qwenRewound reports whether a transcript line is the entry of a
// conversation rewind.
func qwenRewound(line []byte) bool {
	l := bytes.TrimSuffix(line, []byte("\n"))
	return conv.TopString(l, "type") == "system" && conv.TopString(l, "subtype") == "rewind"
}

// eachFileLine calls eachLine on the file at path, from byte from up to
// byte to (to < 0: the end). A file that does not exist has no lines.
func eachFileLine(path string, from, to int64, fn func(line []byte, off int64) bool) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	if to < 0 {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("transcript %s: %w", path, err)
		}
		to = fi.Size()
	}
	if err := conv.EachLine(f, from, to, fn); err != nil {
		return fmt.Errorf("transcript %s: %w", path, err)
	}
	return nil
}

// FindQwenRewind reports whether Qwen Code's transcript at path holds the
// entry of a conversation rewind between bytes from and to (where the
// previous prompt and the current one were submitted): the parent of the
// prompt entry the rewind dropped ("" for the conversation's first), from
// the latest such entry.
func FindQwenRewind(path string, from, to int64) (parent string, found bool, err error) {
	if to <= from {
		return "", false, nil
	}
	err = eachFileLine(path, from, to, func(line []byte, _ int64) bool {
		if !qwenRewound(line) {
			return true
		}
		var l qwenLine
		if json.Unmarshal(line, &l) == nil {
			parent, found = "", true
			if l.ParentUUID != nil {
				parent = *l.ParentUUID
			}
		}
		return true
	})
	return parent, found, err
}

// FindQwenOwnRewind finds, among the earlier prompts of a Qwen Code
// session (oldest first, each with the transcript and where it stood when
// the prompt was submitted), the one a rewind whose entry names parent
// dropped: the first whose user entry — the first prompt entry at or after
// its fork point — hangs on parent. Tracked are the absolute paths of the
// files Qwen Code's file history tracks at that prompt and the later ones:
// the ones its rewind restores. It is nil when no earlier prompt hangs
// there.
func FindQwenOwnRewind(parent string, earlier []*journal.Entry) (*agent.OwnRewind, error) {
	found := -1
	for i, p := range earlier {
		e, err := qwenPromptAt(p.Transcript, p.ForkBytes)
		if err != nil {
			return nil, err
		}
		if e != nil && e.Parent == parent {
			found = i
			break
		}
	}
	if found < 0 {
		return nil, nil
	}
	byFile := map[string][]string{}
	var files []string
	for _, p := range earlier[found:] {
		if p.PromptID == "" {
			continue
		}
		if _, ok := byFile[p.Transcript]; !ok {
			files = append(files, p.Transcript)
		}
		byFile[p.Transcript] = append(byFile[p.Transcript], p.PromptID)
	}
	var tracked []string
	for _, tr := range files {
		t, err := QwenTrackedFiles(tr, byFile[tr])
		if err != nil {
			return nil, err
		}
		for _, p := range t {
			if !slices.Contains(tracked, p) {
				tracked = append(tracked, p)
			}
		}
	}
	sort.Strings(tracked)
	return &agent.OwnRewind{Dropped: earlier[found], Tracked: tracked}, nil
}

// qwenPromptAt is the first prompt entry of the transcript at path at or
// after byte from, or nil when there is none (yet).
func qwenPromptAt(path string, from int64) (*claudecode.PromptEntry, error) {
	var e *claudecode.PromptEntry
	err := eachFileLine(path, from, -1, func(line []byte, off int64) bool {
		if !qwenPrompt(line) {
			return true
		}
		info, _ := conv.ReadLine(bytes.TrimSuffix(line, []byte("\n")))
		e = &claudecode.PromptEntry{UUID: info.UUID, Parent: info.Parent, Offset: off}
		return false
	})
	return e, err
}

// QwenTrackedFiles lists the absolute paths of the files Qwen Code's file
// history tracks at the prompts promptIDs of the transcript at path: the
// keys of the trackedFileBackups of their file_history_snapshot entries,
// resolved against the entry's folder (cwd).
func QwenTrackedFiles(path string, promptIDs []string) ([]string, error) {
	seen := map[string]bool{}
	var out []string
	err := eachFileLine(path, 0, -1, func(line []byte, _ int64) bool {
		l := bytes.TrimSuffix(line, []byte("\n"))
		if conv.TopString(l, "type") != "system" || conv.TopString(l, "subtype") != "file_history_snapshot" {
			return true
		}
		var rec qwenLine
		if json.Unmarshal(l, &rec) != nil {
			return true
		}
		for _, s := range rec.SystemPayload.Snapshots {
			if !slices.Contains(promptIDs, s.PromptID) {
				continue
			}
			for p := range s.TrackedFileBackups {
				if !filepath.IsAbs(p) {
					if rec.Cwd == "" {
						continue
					}
					p = filepath.Join(rec.Cwd, p)
				}
				if p = filepath.Clean(p); !seen[p] {
					seen[p] = true
					out = append(out, p)
				}
			}
		}
		return true
	})
	sort.Strings(out)
	return out, err
}

// OwnRewindShows: Qwen Code's rewind is in its transcript by the next
// prompt, which asks at once; its Stop asks again, should that have
// failed.
func (qwen) OwnRewindShows(ev *agent.Event) bool {
	return ev.Transcript != "" && (ev.Kind == agent.Prompt || ev.Kind == agent.Stop)
}

// FindOwnRewind looks in the transcript, between the previous prompt of
// the session and the open turn's, for the entry its /rewind writes, and
// finds the turn whose prompt it dropped among Past.Earlier: the
// session's own, or, in a fork (rewind-lsp's, Qwen Code's --fork-session
// or /branch, which keep the entries' uuids), those of the session it was
// forked from.
func (qwen) FindOwnRewind(open *journal.Entry, _ string, past agent.Past) (*agent.OwnRewind, error) {
	from := int64(0)
	for _, t := range past.Session() {
		if t.Transcript == open.Transcript && t.ForkBytes < open.ForkBytes {
			from = max(from, t.ForkBytes)
		}
	}
	parent, found, err := FindQwenRewind(open.Transcript, from, open.ForkBytes)
	if err != nil || !found {
		return nil, err
	}
	return FindQwenOwnRewind(parent, past.Earlier(parent))
}
