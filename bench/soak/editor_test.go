package soak

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// editorSide is the VS Code-like editor of the soak (testkit's fake
// editor: it applies the server's WorkspaceEdits to its buffers and saves
// them) with what a person and a long-lived editor add: the person opens
// files, types and saves; clean buffers follow the disk when an agent
// writes; buffers an edit opened are closed again after a while, as VS
// Code drops its document models.
type editorSide struct {
	e      *testkit.Editor
	root   string
	open   map[string]bool // root-relative paths with a buffer
	byUser map[string]bool // of those, the ones the person opened
	seen   int             // WorkspaceEdits already looked at
	logf   func(format string, a ...any)
}

func (s *editorSide) abs(rel string) string { return filepath.Join(s.root, filepath.FromSlash(rel)) }

func (s *editorSide) log(format string, a ...any) {
	if s.logf != nil {
		s.logf("editor: "+format, a...)
	}
}

// afterEdits looks at the WorkspaceEdits the server sent since the last
// call: the files their text edits changed (the editor saved them, as the
// VS Code extension does after a rewind) are returned, and with close the
// buffers the edits opened are closed again.
func (s *editorSide) afterEdits(close bool) (saved []string) {
	edits := s.e.Edits()
	for _, raw := range edits[s.seen:] {
		var p struct {
			Edit struct {
				Changes         map[string]json.RawMessage `json:"changes"`
				DocumentChanges []struct {
					Kind         string `json:"kind"`
					URI          string `json:"uri"`
					TextDocument struct {
						URI string `json:"uri"`
					} `json:"textDocument"`
				} `json:"documentChanges"`
			} `json:"edit"`
		}
		json.Unmarshal(raw, &p)
		var uris []string
		for u := range p.Edit.Changes {
			uris = append(uris, u)
		}
		for _, dc := range p.Edit.DocumentChanges {
			switch dc.Kind {
			case "":
				uris = append(uris, dc.TextDocument.URI)
			case "delete":
				if rel := s.rel(dc.URI); rel != "" {
					delete(s.open, rel)
					delete(s.byUser, rel)
				}
			}
		}
		for _, u := range uris {
			if rel := s.rel(u); rel != "" {
				saved = append(saved, rel)
				s.open[rel] = true
				s.log("edit %s", rel)
			}
		}
	}
	s.seen = len(edits)
	if close {
		for rel := range s.open {
			if !s.byUser[rel] {
				s.e.Close(s.abs(rel))
				delete(s.open, rel)
			}
		}
	}
	sort.Strings(saved)
	return saved
}

func (s *editorSide) rel(uri string) string {
	u, err := url.Parse(uri)
	if err != nil {
		return ""
	}
	r, err := filepath.Rel(s.root, u.Path)
	if err != nil || strings.HasPrefix(r, "..") {
		return ""
	}
	return filepath.ToSlash(r)
}

// reload makes every clean buffer follow the disk (VS Code reloads a file
// changed behind a buffer without unsaved changes); a buffer whose file is
// gone, or is no regular file any more, is closed.
func (s *editorSide) reload() {
	for rel := range s.open {
		fi, err := os.Lstat(s.abs(rel))
		if err != nil || !fi.Mode().IsRegular() {
			s.e.Close(s.abs(rel))
			delete(s.open, rel)
			delete(s.byUser, rel)
			continue
		}
		s.e.Reload(s.abs(rel))
	}
}

// userEdit is the person: rel opened (if it is not), a line typed at its
// end, saved.
func (s *editorSide) userEdit(rel, line string) error {
	p := s.abs(rel)
	if _, ok := s.e.Text(p); !ok {
		if _, err := os.Stat(p); err != nil {
			return err
		}
		s.e.Open(p)
		// The person looks at it before typing: the server has read the
		// didOpen (notifications are read in order before the answer to a
		// later request). A file opened and saved within the moment the
		// server takes to read its didOpen is another matter: see
		// bench/README.md, "soak.sh".
		s.e.Cmd(commands.NameList, map[string]any{"limit": 1}, nil)
	}
	s.open[rel], s.byUser[rel] = true, true
	text, _ := s.e.Text(p)
	end := endPosition(text)
	s.log("person types in %s and saves", rel)
	s.e.TypeText(p, testkit.Range{Start: end, End: end}, line)
	s.e.Save(p)
	return nil
}

// closeUser closes the person's buffers but the last keep.
func (s *editorSide) closeUser(keep int) {
	var open []string
	for rel := range s.byUser {
		open = append(open, rel)
	}
	sort.Strings(open)
	for len(open) > keep {
		s.e.Close(s.abs(open[0]))
		delete(s.open, open[0])
		delete(s.byUser, open[0])
		open = open[1:]
	}
}

// endPosition is the position after the last character of text (UTF-16;
// \n, \r\n and a lone \r end a line).
func endPosition(text string) testkit.Position {
	line, start := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			line, start = line+1, i+1
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				continue
			}
			line, start = line+1, i+1
		}
	}
	n := 0
	for _, r := range text[start:] {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return testkit.Position{Line: line, Character: n}
}
