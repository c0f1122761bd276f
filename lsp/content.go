package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rewind-lsp/rewind-lsp/snapshot"
	"net/url"
	"strings"
)

// parseRewindURI splits rewind:/<snapshot>/<root-relative path> (also
// rewind:///<snapshot>/… and rewind://<snapshot>/…), percent-decoded.
func parseRewindURI(uri string) (snap, rel string, err error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", "", fmt.Errorf("bad URI %q: %w", uri, err)
	}
	if u.Scheme != "rewind" {
		return "", "", fmt.Errorf("%q is not a rewind: URI", uri)
	}
	p := u.Path
	if u.Host != "" {
		p = u.Host + "/" + strings.TrimPrefix(p, "/")
	}
	p = strings.TrimLeft(p, "/")
	snap, rel, ok := strings.Cut(p, "/")
	if !ok || snap == "" || rel == "" {
		return "", "", fmt.Errorf("%q: want rewind:/<snapshot>/<path>", uri)
	}
	if !snapshot.ValidPath(rel) {
		return "", "", fmt.Errorf("%q: invalid path %q: it must be relative to the root, without . or .. parts", uri, rel)
	}
	return snap, rel, nil
}

// content answers rewind/content {uri}: a file's text in a snapshot, for
// diff views. The snapshot is looked up in the folder named by the URI's
// `root` query parameter when given, else in every folder until one has it.
func (s *Server) content(_ context.Context, p json.RawMessage) (any, error) {
	var cp contentParams
	if err := decodeParams(p, &cp); err != nil {
		return nil, err
	}
	if cp.URI == "" {
		return nil, invalidParams("uri", "required")
	}
	snap, rel, err := parseRewindURI(cp.URI)
	if err != nil {
		return nil, invalidParams("uri", "%v", err)
	}
	folders := s.ws.list()
	if u, _ := url.Parse(cp.URI); u != nil && u.Query().Get("root") != "" {
		f, err := s.selectFolder(scopeRoot(u.Query().Get("root")))
		if err != nil {
			return nil, err
		}
		folders = []*folder{f}
	}
	if len(folders) == 0 {
		return nil, &rpcError{codeRequestFailed, "no workspace folder is open"}
	}
	id, err := snapshot.ParseID(snap)
	if err != nil {
		return nil, &rpcError{codeRequestFailed, fmt.Sprintf("no content for %s in snapshot %s: %v", rel, snap, err)}
	}
	var errs []error
	for _, f := range folders {
		data, kind, err := f.svc.Content(id, rel)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if kind == "symlink" {
			return contentResult{Text: string(data)}, nil
		}
		if !editableText(data) {
			return nil, &rpcError{codeRequestFailed, fmt.Sprintf("%s in snapshot %s is binary (or not UTF-8) and has no text", rel, snap)}
		}
		return contentResult{Text: string(data)}, nil
	}
	return nil, &rpcError{codeRequestFailed, fmt.Sprintf("no content for %s in snapshot %s: %v", rel, snap, errors.Join(errs...))}
}
