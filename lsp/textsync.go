package lsp

import (
	"context"
	"encoding/json"
	"fmt"
)

// The text synchronization notifications keep the document store equal to
// the editor's buffers. They run inline, in arrival order.

func (s *Server) didOpen(_ context.Context, p json.RawMessage) error {
	var dp didOpenParams
	if err := decodeParams(p, &dp); err != nil {
		return err
	}
	if dp.TextDocument.URI == "" {
		return fmt.Errorf("didOpen without textDocument.uri")
	}
	s.docs.open(dp.TextDocument.URI, dp.TextDocument.Version, dp.TextDocument.Text)
	s.warmBlame(dp.TextDocument.URI)
	return nil
}

func (s *Server) didChange(_ context.Context, p json.RawMessage) error {
	var dp didChangeParams
	if err := decodeParams(p, &dp); err != nil {
		return err
	}
	return s.docs.change(dp.TextDocument.URI, dp.TextDocument.Version, dp.ContentChanges, s.caps.enc)
}

func (s *Server) didSave(_ context.Context, p json.RawMessage) error {
	var dp didSaveParams
	if err := decodeParams(p, &dp); err != nil {
		return err
	}
	s.docs.save(dp.TextDocument.URI, dp.Text)
	if dp.Text == nil {
		s.docs.saved(dp.TextDocument.URI)
	}
	// A file a rewind gave the editor to apply is at its target once saved.
	if d, ok := s.docs.get(dp.TextDocument.URI); ok && d.path != "" {
		if f := folderOf(s.ws.list(), d.path); f != nil {
			if rel, _, ok := f.match(d.path); ok {
				f.svc.EditorSaved(rel, s.docs.content(&d))
			}
		}
	}
	return nil
}

func (s *Server) didClose(_ context.Context, p json.RawMessage) error {
	var dp didCloseParams
	if err := decodeParams(p, &dp); err != nil {
		return err
	}
	s.docs.close(dp.TextDocument.URI)
	return nil
}

// debugDocument answers rewind/debugDocument {uri} with the server's view of
// an open document, so tests (and curious users) can compare it with the
// editor's buffer.
func (s *Server) debugDocument(_ context.Context, p json.RawMessage) (any, error) {
	var cp contentParams
	if err := decodeParams(p, &cp); err != nil {
		return nil, err
	}
	if cp.URI == "" {
		return nil, invalidParams("uri", "required")
	}
	d, ok := s.docs.get(cp.URI)
	if !ok {
		return nil, &rpcError{codeRequestFailed, fmt.Sprintf("%s is not open", cp.URI)}
	}
	return debugDocumentResult{URI: d.uri, Version: d.version, Text: d.text}, nil
}
