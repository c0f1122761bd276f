package claudecode

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"sync"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// Claude Code's own rewind (Esc Esc, /rewind; the SDK's resumeSessionAt)
// writes nothing when it happens and fires no hook. It shows afterwards:
// the next prompt's user entry is a sibling of the dropped prompt's entry
// (the same parentUuid), in the same transcript and session, the old
// branch left in the file. That entry is on disk by the prompt's first
// PreToolUse or its Stop (not yet at UserPromptSubmit). Which files Claude
// Code restores it tracks per prompt: each prompt's file-history-snapshot
// line lists the files it tracks then (trackedFileBackups, their paths
// relative to the session's folder, a backupFileName of null for a file
// that did not exist), and file-history-delta lines add the files first
// tracked during a prompt (snapshotMessageId names it).
//
// A fork continues from an earlier point too, in a new session: `claude
// --resume <id> --fork-session [--resume-session-at <uuid>]` (the SDK's
// forkSession, resumeSessionAt) and the interface's /branch (then Esc Esc)
// write a new transcript beside the original that copies its entries up to
// the fork point with their uuids, sessionId rewritten (and, with
// --fork-session, every copied promptId set to the fork's first prompt's).
// The fork's new prompt then hangs where the dropped prompt hung in the
// original: the same parentUuid, in another file. Its first hook event,
// SessionStart with source "fork", names the new session and transcript;
// nothing names the original. The transcript does not exist yet at the
// fork's first UserPromptSubmit. What each writes, measured:
// docs/ARCHITECTURE.md, "An agent's own rewind".

// PromptEntry is a prompt's user entry in a transcript.
type PromptEntry struct {
	UUID, Parent, PromptID string
	Offset                 int64 // where its line starts
	// First says that no prompt entry comes before it in the file (known
	// only when the file was read from its start): the first prompt of a
	// conversation, which nothing can have dropped.
	First bool
}

// FindOwnRewind reports whether prompt cur of a Claude Code session (the
// start of its turn, as the hook recorded it: the transcript, where it
// stood when the prompt was submitted, the prompt's id) continues from an
// earlier point of its conversation than the end of the prompts before it
// (earlier, oldest first): its entry is a sibling of an earlier prompt's
// entry. The earlier prompts may be the session's own or,
// for a fork, those of the session it was forked from, in that session's
// transcript: the fork copied its entries, uuids kept. It is nil when cur
// continues from the end, or when cur's entry is not on disk yet. Only the
// parts of the transcripts after each recorded fork point are read, and
// the whole files only for the tracked files once a rewind is found.
func FindOwnRewind(cur *journal.Entry, earlier []*journal.Entry) (*agent.OwnRewind, error) {
	e, err := FindPrompt(cur.Transcript, cur.ForkBytes, cur.PromptID)
	if err != nil || e == nil || e.First || e.Parent == cur.ForkUUID && cur.ForkUUID != "" {
		return nil, err
	}
	var dropped []string
	transcripts := []string{cur.Transcript}
	found := -1
	for i, p := range earlier {
		d, err := FindPrompt(p.Transcript, p.ForkBytes, p.PromptID)
		if err != nil {
			return nil, err
		}
		if d == nil || d.UUID == e.UUID {
			continue
		}
		if found < 0 && d.Parent == e.Parent {
			sibling := d.Offset < e.Offset
			if p.Transcript != cur.Transcript {
				// Every conversation's first prompt has no parent: one
				// in another file is this one's only if the fork copied
				// it (the interface's /branch, then Esc Esc to it).
				if sibling = d.Parent != ""; !sibling {
					sibling, err = holdsUUID(cur.Transcript, d.UUID)
					if err != nil {
						return nil, err
					}
				}
			}
			if sibling {
				found = i
			}
		}
		if found >= 0 {
			dropped = append(dropped, d.UUID)
			if !slices.Contains(transcripts, p.Transcript) {
				transcripts = append(transcripts, p.Transcript)
			}
		}
	}
	if found < 0 {
		return nil, nil
	}
	// A fork copies the original's file-history snapshots of the prompts
	// it dropped too (with their deltas folded in); the original has them
	// as Claude Code wrote them. Either may lack a file the other has.
	var tracked []string
	for _, tr := range transcripts {
		t, err := TrackedFiles(tr, dropped)
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

// FindPrompt finds the user entry of a prompt in the transcript at path:
// the first entry at or after byte from that is a prompt (a user entry
// whose content is text, not a tool result; not meta, not a sidechain)
// with promptId promptID ("" takes the first prompt). Should Claude Code
// have written it before from (before the hook ran), the file is searched
// from its start. From the start (from 0: the transcript was empty when
// the prompt was submitted, as a fork's is) it is the last such entry: a
// fork made with --fork-session gives every entry it copied the promptId
// of its first prompt. It is nil when there is none yet.
func FindPrompt(path string, from int64, promptID string) (*PromptEntry, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	e, err := scanPrompt(f, from, promptID, from == 0 && promptID != "")
	if e != nil || err != nil || from == 0 || promptID == "" {
		return e, err
	}
	return scanPrompt(f, 0, promptID, false)
}

// promptReaders keep scanPrompt's buffers: a Stop hook looks for the prompt
// of every earlier turn of its session, and a buffer each was most of its
// time on a long session.
var promptReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 256<<10) }}

// scanPrompt reads f from byte from for the prompt entry of promptID: the
// first one, or with last the last one.
func scanPrompt(f *os.File, from int64, promptID string, last bool) (*PromptEntry, error) {
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return nil, fmt.Errorf("transcript %s: %w", f.Name(), err)
	}
	r := promptReaders.Get().(*bufio.Reader)
	r.Reset(f)
	defer func() { r.Reset(nil); promptReaders.Put(r) }()
	off := from
	var found *PromptEntry
	prompts := 0 // prompt entries read, any prompt id
	for {
		line, err := r.ReadSlice('\n')
		n := len(line)
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer (a big tool result) is no
			// prompt entry we look for: skip the rest of it.
			for errors.Is(err, bufio.ErrBufferFull) {
				var more []byte
				more, err = r.ReadSlice('\n')
				n += len(more)
			}
			off += int64(n)
			if err != nil {
				return found, nil
			}
			continue
		}
		if err != nil {
			return found, nil // the end, or a last line still being written
		}
		body := line[:len(line)-1]
		if info, ok := conv.ReadLine(body); ok && info.Type == "user" && !info.Meta && !info.Side {
			if _, isPrompt := promptText(body); isPrompt {
				if promptID == "" || info.PromptID == promptID {
					found = &PromptEntry{UUID: info.UUID, Parent: info.Parent, PromptID: info.PromptID, Offset: off,
						First: from == 0 && prompts == 0}
					if !last {
						return found, nil
					}
				}
				prompts++
			}
		}
		off += int64(n)
	}
}

// holdsUUID reports whether the transcript at path has an entry (or a
// file-history snapshot) that names uuid.
func holdsUUID(path, uuid string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("transcript: %w", err)
	}
	return bytes.Contains(data, []byte(`"`+uuid+`"`)), nil
}

// TrackedFiles lists the absolute paths of the files Claude Code tracks
// at the prompts whose user entries are uuids: the keys of their
// file-history snapshots' trackedFileBackups and the files their
// file-history deltas add, each resolved against the folder Claude Code
// recorded for it (realParentDir), else the transcript's session folder.
func TrackedFiles(path string, uuids []string) ([]string, error) {
	want := map[string]bool{}
	for _, u := range uuids {
		want[u] = true
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	defer f.Close()
	type backup struct {
		RealParentDir string `json:"realParentDir"`
	}
	var line struct {
		Type              string `json:"type"`
		MessageID         string `json:"messageId"`
		SnapshotMessageID string `json:"snapshotMessageId"`
		TrackingPath      string `json:"trackingPath"`
		Backup            backup `json:"backup"`
		Snapshot          struct {
			TrackedFileBackups map[string]backup `json:"trackedFileBackups"`
		} `json:"snapshot"`
	}
	seen := map[string]bool{}
	var out []string
	add := func(p string, b backup, cwd string) {
		switch {
		case filepath.IsAbs(p):
		case b.RealParentDir != "":
			p = filepath.Join(b.RealParentDir, filepath.Base(p))
		case cwd != "":
			p = filepath.Join(cwd, p)
		default:
			return
		}
		if p = filepath.Clean(p); !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	cwd := ""
	r := bufio.NewReaderSize(f, 1<<20)
	for {
		raw, err := r.ReadBytes('\n')
		if len(raw) > 0 && raw[len(raw)-1] == '\n' {
			body := raw[:len(raw)-1]
			info, ok := conv.ReadLine(body)
			switch {
			case !ok:
			case info.Type == "file-history-snapshot" || info.Type == "file-history-delta":
				line.Snapshot.TrackedFileBackups = nil
				line.MessageID, line.SnapshotMessageID, line.TrackingPath, line.Backup = "", "", "", backup{}
				if json.Unmarshal(body, &line) != nil {
					break
				}
				if want[line.MessageID] && line.Type == "file-history-snapshot" {
					for p, b := range line.Snapshot.TrackedFileBackups {
						add(p, b, cwd)
					}
				}
				if want[line.SnapshotMessageID] && line.TrackingPath != "" {
					add(line.TrackingPath, line.Backup, cwd)
				}
			case cwd == "" && info.Type == "user":
				var u struct {
					Cwd string `json:"cwd"`
				}
				if json.Unmarshal(body, &u) == nil {
					cwd = u.Cwd
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				sort.Strings(out)
				return out, nil
			}
			return nil, fmt.Errorf("transcript %s: %w", path, err)
		}
	}
}

// OwnRewindShows: Claude Code's rewind is on disk by the next prompt's
// first tool event or its end, not yet at its UserPromptSubmit.
func (claude) OwnRewindShows(ev *agent.Event) bool {
	return ev.Transcript != "" && ev.Kind != agent.Prompt
}

// FindOwnRewind looks in the transcript for the open turn's prompt
// continuing from before an earlier prompt of its conversation: the
// session's own, or, should the session be a fork (Claude Code's
// --fork-session or /branch), those of the older sessions it was forked
// from (Past.Earlier, from the entry the open prompt hangs on).
func (claude) FindOwnRewind(open *journal.Entry, promptID string, past agent.Past) (*agent.OwnRewind, error) {
	cur := *open
	if cur.PromptID == "" {
		cur.PromptID = promptID
	}
	e, err := FindPrompt(cur.Transcript, cur.ForkBytes, cur.PromptID)
	if err != nil || e == nil || e.First {
		return nil, err
	}
	earlier := past.Earlier(e.Parent)
	if len(earlier) == 0 {
		return nil, nil
	}
	return FindOwnRewind(&cur, earlier)
}
