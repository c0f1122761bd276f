package claudecode

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// ReadForkPoint reads the fork point of the Claude Code transcript at
// path now. A transcript that does not exist yet (a session's first
// prompt) is at the zero point. Only the transcript's tail is read.
func ReadForkPoint(path string) (journal.ForkPoint, error) {
	return conv.ReadPoint(path, func(line []byte) string {
		info, _ := conv.ReadLine(line)
		return info.UUID
	})
}

// lineRec is what Fork remembers of each line it copied.
type lineRec struct {
	in, out int64 // where the line starts in the original and in the copy
	end     int64 // where it ends in the copy, its '\n' included
	size    int   // its length in the original, without '\n'
	typ     string
	meta    bool
	side    bool
}

// ForkClaude writes a new Claude Code transcript beside the one at path:
// the original's lines before the fork point, in order, each with
// `sessionId` set to a new session id, nothing else changed. Should the
// transcript at the fork point already end with the turn's own prompt (a
// user entry holding prompt, perhaps followed by hook progress), that tail
// is left out too: the fork ends before the prompt. The original is never
// modified. A transcript that is missing, shorter than the fork point, or
// whose last entry before it is no longer point.ForkUUID gives a *Refusal.
func ForkClaude(path string, point journal.ForkPoint, prompt string) (*agent.Forked, error) {
	return forkClaude(path, point, prompt, false)
}

// forkClaude is ForkClaude; with end the point is a turn's end, and the
// fork also keeps the lines after it that still belong to the turn (up to
// the next prompt, turnTail).
func forkClaude(path string, point journal.ForkPoint, prompt string, end bool) (*agent.Forked, error) {
	f, fi, err := conv.OpenAt(path, point)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	id := uuid.NewString()
	dir := filepath.Dir(path)
	err = conv.WriteNew(dir, id+".jsonl", fi.Mode().Perm(), func(tmp *os.File) error {
		recs, last, err := copyLines(tmp, io.NewSectionReader(f, 0, point.ForkBytes), []byte(id), nil)
		if err != nil {
			return fmt.Errorf("fork transcript %s: %w", path, err)
		}
		if point.ForkBytes > 0 && len(recs) == 0 || last != point.ForkUUID {
			return agent.Refusef("the transcript %s changed under the fork point: its last entry before byte %d is %q, not %q as recorded",
				path, point.ForkBytes, last, point.ForkUUID)
		}
		if end {
			// What Claude Code wrote of the turn after its Stop hook read
			// the point (it can write the turn's last entries later).
			var in, out int64
			if n := len(recs); n > 0 {
				in, out = recs[n-1].in+int64(recs[n-1].size)+1, recs[n-1].end
			}
			tail, _, err := copyLines(tmp, io.NewSectionReader(f, point.ForkBytes, fi.Size()-point.ForkBytes), []byte(id), turnTail)
			if err != nil {
				return fmt.Errorf("fork transcript %s: %w", path, err)
			}
			for _, r := range tail {
				r.in, r.out, r.end = r.in+in, r.out+out, r.end+out
				recs = append(recs, r)
			}
		}
		cut := len(recs)
		if i := promptTail(f, recs, prompt); i >= 0 {
			cut = i
		}
		talk := false
		for _, r := range recs[:cut] {
			talk = talk || (r.typ == "user" || r.typ == "assistant") && !r.side
		}
		if !talk {
			return agent.FirstTurn
		}
		if cut < len(recs) {
			return tmp.Truncate(recs[cut].out)
		}
		return nil
	})
	var r *agent.Refusal
	if errors.As(err, &r) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("write forked transcript: %w", err)
	}
	dst := filepath.Join(dir, id+".jsonl")
	return &agent.Forked{Session: id, Transcript: dst, Resume: "claude --resume " + id}, nil
}

// copyLines copies the complete lines of src to dst with each top-level
// sessionId set to id, up to the first line stop reports (nil: none), and
// returns what it saw of each line copied and the uuid of the last line
// that has one.
func copyLines(dst io.Writer, src io.Reader, id []byte, stop func(conv.LineInfo, []byte) bool) ([]lineRec, string, error) {
	r := bufio.NewReaderSize(src, 1<<20)
	w := bufio.NewWriterSize(dst, 1<<20)
	quoted, _ := json.Marshal(string(id))
	var recs []lineRec
	var in, out int64
	last := ""
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			body := line[:len(line)-1]
			rec := lineRec{in: in, out: out, size: len(body)}
			info, ok := conv.ReadLine(body)
			if stop != nil && stop(info, body) {
				break
			}
			if ok {
				rec.typ, rec.meta, rec.side = info.Type, info.Meta, info.Side
				if info.UUID != "" {
					last = info.UUID
				}
			}
			k := 0
			if ok && info.HasSession {
				k, err = writeAll(w, body[:info.SessionAt[0]], quoted, body[info.SessionAt[1]:], []byte{'\n'})
			} else {
				k, err = writeAll(w, line)
			}
			if err != nil {
				return nil, "", err
			}
			in += int64(len(line))
			out += int64(k)
			rec.end = out
			recs = append(recs, rec)
			continue
		}
		if errors.Is(err, io.EOF) {
			// The fork point always ends a line; bytes past the last
			// newline are not copied.
			break
		}
		if err != nil {
			return nil, "", err
		}
	}
	return recs, last, w.Flush()
}

// turnTail stops the copy of a turn's late lines at the next prompt: a
// queue operation (Claude Code queues each prompt before its entry), a
// user entry that is a prompt (not meta, not a sidechain, not a tool
// result), or a compaction's summary.
func turnTail(info conv.LineInfo, line []byte) bool {
	switch info.Type {
	case "queue-operation", "summary":
		return true
	case "user":
		_, prompt := promptText(line)
		return prompt && !info.Meta && !info.Side
	}
	return false
}

func writeAll(w io.Writer, parts ...[]byte) (int, error) {
	n := 0
	for _, p := range parts {
		k, err := w.Write(p)
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// promptTail returns the index of the line where the transcript's tail
// holds the turn's own prompt — the last user or assistant line is a user
// prompt (not meta, not a sidechain, not a tool result) with prompt's text
// — or -1 when it does not.
func promptTail(f io.ReaderAt, recs []lineRec, prompt string) int {
	p := strings.TrimSpace(prompt)
	if p == "" {
		return -1
	}
	for i := len(recs) - 1; i >= 0; i-- {
		r := recs[i]
		if r.typ != "user" && r.typ != "assistant" || r.side || r.meta {
			continue
		}
		if r.typ != "user" {
			return -1
		}
		line := make([]byte, r.size)
		if _, err := f.ReadAt(line, r.in); err != nil && !errors.Is(err, io.EOF) {
			return -1
		}
		text, ok := promptText(line)
		if ok && (text == p || strings.Contains(text, p)) {
			return i
		}
		return -1
	}
	return -1
}

// promptText is the text of a user line that is a prompt: its
// message.content string, or the text blocks of a content list without
// tool results.
func promptText(line []byte) (string, bool) {
	var l struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &l) != nil {
		return "", false
	}
	var s string
	if json.Unmarshal(l.Message.Content, &s) == nil {
		return strings.TrimSpace(s), true
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return "", false
	}
	var texts []string
	for _, b := range blocks {
		switch b.Type {
		case "tool_result":
			return "", false
		case "text":
			texts = append(texts, b.Text)
		}
	}
	return strings.TrimSpace(strings.Join(texts, "\n")), len(texts) > 0
}
