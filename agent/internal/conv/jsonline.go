package conv

import (
	"errors"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent"
)

// A transcript line is read only as far as its top-level keys: nested
// values (messages, tool results of several MB) are skipped without being
// decoded, and the line's bytes stay as they are.

var errNotObject = errors.New("not a JSON object")

// TopField is one top-level member of a JSON object line: the raw key
// (without quotes) and the value's byte range in the line.
type TopField struct {
	Key        []byte
	Start, End int
}

// TopFields calls fn for each top-level member of the JSON object in line,
// in order, until fn returns false. It fails on a line that is not one
// well-formed JSON object (such a line is copied untouched, never edited).
func TopFields(line []byte, fn func(f TopField) bool) error {
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return errNotObject
	}
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return trailing(line, i+1)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return errNotObject
		}
		kend, err := skipString(line, i)
		if err != nil {
			return err
		}
		key := line[i+1 : kend-1]
		i = skipSpace(line, kend)
		if i >= len(line) || line[i] != ':' {
			return errNotObject
		}
		i = skipSpace(line, i+1)
		vend, err := skipValue(line, i)
		if err != nil {
			return err
		}
		if !fn(TopField{Key: key, Start: i, End: vend}) {
			return nil
		}
		i = skipSpace(line, vend)
		if i >= len(line) {
			return errNotObject
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return trailing(line, i+1)
		default:
			return errNotObject
		}
	}
}

func trailing(line []byte, i int) error {
	if skipSpace(line, i) != len(line) {
		return errNotObject
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] == '"'.
func skipString(b []byte, i int) (int, error) {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errNotObject
}

// skipValue returns the index after the JSON value starting at b[i].
func skipValue(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errNotObject
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := skipString(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errNotObject
	}
	// A number, true, false or null: up to the next delimiter.
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' && b[j] != '\n' {
		j++
	}
	if j == i {
		return 0, errNotObject
	}
	return j, nil
}

// LineInfo is what a transcript line says about itself.
type LineInfo struct {
	UUID       string
	Parent     string // parentUuid ("" for null)
	PromptID   string // promptId: the prompt a user entry belongs to
	Type       string
	Meta       bool // isMeta: true
	Side       bool // isSidechain: true (a subagent's line)
	SessionAt  [2]int
	HasSession bool
}

// ReadLine reads the top-level fields rewind-lsp uses. ok is false for a
// line that is not a JSON object.
func ReadLine(line []byte) (info LineInfo, ok bool) {
	err := TopFields(line, func(f TopField) bool {
		v := line[f.Start:f.End]
		switch string(f.Key) {
		case "uuid":
			info.UUID = plainString(v)
		case "parentUuid":
			info.Parent = plainString(v)
		case "promptId":
			info.PromptID = plainString(v)
		case "type":
			info.Type = plainString(v)
		case "isMeta":
			info.Meta = string(v) == "true"
		case "isSidechain":
			info.Side = string(v) == "true"
		case "sessionId":
			if len(v) > 0 && v[0] == '"' {
				info.SessionAt, info.HasSession = [2]int{f.Start, f.End}, true
			}
		}
		return true
	})
	return info, err == nil
}

// plainString is the content of a JSON string without escapes (ids, type
// names), or "" for anything else.
func plainString(v []byte) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return ""
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' {
			return ""
		}
	}
	return string(v[1 : len(v)-1])
}

// TopString is the plain string value of the top-level member key of a
// JSON object line ("" when there is none).
func TopString(line []byte, key string) string {
	s := ""
	TopFields(line, func(f TopField) bool {
		if string(f.Key) == key {
			s = plainString(line[f.Start:f.End])
			return false
		}
		return true
	})
	return s
}

// Quote is s as a JSON string, as JavaScript's JSON.stringify writes it
// (no HTML escapes).
func Quote(s string) string {
	return strings.TrimSuffix(string(agent.MarshalLine(s)), "\n")
}
