package agent

import (
	"errors"
	"strings"
)

// A transcript line is read only as far as its top-level keys: nested
// values (messages, tool results of several MB) are skipped without being
// decoded, and the line's bytes stay as they are.

var errNotObject = errors.New("not a JSON object")

// topField is one top-level member of a JSON object line: the raw key
// (without quotes) and the value's byte range in the line.
type topField struct {
	key        []byte
	start, end int
}

// topFields calls fn for each top-level member of the JSON object in line,
// in order, until fn returns false. It fails on a line that is not one
// well-formed JSON object (such a line is copied untouched, never edited).
func topFields(line []byte, fn func(f topField) bool) error {
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
		if !fn(topField{key: key, start: i, end: vend}) {
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

// lineInfo is what a transcript line says about itself.
type lineInfo struct {
	uuid      string
	parent    string // parentUuid ("" for null)
	promptID  string // promptId: the prompt a user entry belongs to
	typ       string
	meta      bool // isMeta: true
	side      bool // isSidechain: true (a subagent's line)
	sessionAt [2]int
	hasSess   bool
}

// readLine reads the top-level fields rewind-lsp uses. ok is false for a
// line that is not a JSON object.
func readLine(line []byte) (info lineInfo, ok bool) {
	err := topFields(line, func(f topField) bool {
		v := line[f.start:f.end]
		switch string(f.key) {
		case "uuid":
			info.uuid = plainString(v)
		case "parentUuid":
			info.parent = plainString(v)
		case "promptId":
			info.promptID = plainString(v)
		case "type":
			info.typ = plainString(v)
		case "isMeta":
			info.meta = string(v) == "true"
		case "isSidechain":
			info.side = string(v) == "true"
		case "sessionId":
			if len(v) > 0 && v[0] == '"' {
				info.sessionAt, info.hasSess = [2]int{f.start, f.end}, true
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

// topString is the plain string value of the top-level member key of a
// JSON object line ("" when there is none).
func topString(line []byte, key string) string {
	s := ""
	topFields(line, func(f topField) bool {
		if string(f.key) == key {
			s = plainString(line[f.start:f.end])
			return false
		}
		return true
	})
	return s
}

// quote is s as a JSON string, as JavaScript's JSON.stringify writes it
// (no HTML escapes).
func quote(s string) string {
	return strings.TrimSuffix(string(marshalLine(s)), "\n")
}
