package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// executeCommand runs one public (or reported) command of the registry
// (docs/PROTOCOL.md, "Commands") through commands.Dispatch on the folder the argument selects.
func (s *Server) executeCommand(ctx context.Context, p json.RawMessage) (any, error) {
	var ep executeCommandParams
	if err := decodeParams(p, &ep); err != nil {
		return nil, err
	}
	if ep.Command == "" {
		return nil, invalidParams("command", "required")
	}
	if !commands.Served(ep.Command) {
		return nil, invalidParams("command", "unknown command %q; the commands are %s",
			ep.Command, strings.Join(commands.All, ", "))
	}
	var arg json.RawMessage
	switch len(ep.Arguments) {
	case 0:
	case 1:
		arg = ep.Arguments[0]
	default:
		return nil, invalidParams("arguments", "%s takes exactly one argument, a JSON object; got %d",
			ep.Command, len(ep.Arguments))
	}
	f, arg, err := s.prepareArg(arg)
	if err != nil {
		return nil, err
	}
	stop := s.startProgress(ctx, ep.WorkDoneToken, progressTitle(ep.Command))
	res, err := commands.Dispatch(ctx, f.svc, ep.Command, arg)
	stop()
	if err != nil {
		var ae *commands.ArgError
		var re *commands.RefusedError
		if !errors.As(err, &ae) && !errors.As(err, &re) && ctx.Err() == nil {
			s.showMessage(messageError, fmt.Sprintf("rewind-lsp: %s failed: %v", ep.Command, err))
		}
		return nil, err
	}
	if rr, ok := res.(*commands.RewindResult); ok && rr != nil && !rr.Applied && rr.FailureReason != "" && !isDryRun(arg) {
		s.showMessage(messageWarning, "rewind-lsp: not applied: "+rr.FailureReason)
	}
	if plan, ok := res.(*commands.Plan); ok && wantsShow(arg) {
		if err := s.showPlan(ctx, f, plan); err != nil {
			s.showMessage(messageError, "rewind-lsp: "+err.Error())
		}
	}
	return res, nil
}

// progressTitle is the title of the work-done progress of command cmd
// (commands.Spec.Progress).
func progressTitle(cmd string) string {
	if e, ok := commands.Lookup(cmd); ok && e.Info().Progress != "" {
		return e.Info().Progress
	}
	return "rewind-lsp"
}

// prepareArg selects the folder from the argument's root/uri and rewrites
// file:// URIs in `paths` to root-relative paths. An argument that is not a
// JSON object is passed on untouched for Dispatch to reject.
func (s *Server) prepareArg(arg json.RawMessage) (*folder, json.RawMessage, error) {
	var m map[string]json.RawMessage
	if len(arg) == 0 || json.Unmarshal(arg, &m) != nil || m == nil {
		f, err := s.selectFolder(commands.Scope{})
		return f, arg, err
	}
	var sc commands.Scope
	for _, field := range []struct {
		name string
		dst  *string
	}{{"root", &sc.Root}, {"uri", &sc.URI}} {
		v, ok := m[field.name]
		if !ok || string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, field.dst); err != nil {
			return nil, nil, invalidParams(field.name, "must be a string")
		}
	}
	f, err := s.selectFolder(sc)
	if err != nil {
		return nil, nil, err
	}
	changed := false
	if sc.Root != "" {
		// The service knows its root by its own name.
		m["root"], _ = json.Marshal(f.svc.Root())
		changed = true
	}
	if sc.URI != "" && filepath.Clean(f.svc.Root()) != f.path {
		// The service knows files under its own root's name: hand it a
		// root-relative path when the client names the folder differently
		// (a symlinked folder).
		if p, err := pathArg(sc.URI); err == nil {
			if rel, ok := f.rel(p); ok {
				m["uri"], _ = json.Marshal(rel)
				changed = true
			}
		}
	}
	if v, ok := m["paths"]; ok {
		var paths []string
		if json.Unmarshal(v, &paths) == nil { // else Dispatch names the field
			for i, p := range paths {
				if !strings.HasPrefix(p, "file:") {
					continue
				}
				abs, err := pathFromURI(p)
				if err != nil {
					return nil, nil, invalidParams("paths", "%v", err)
				}
				rel, ok := f.rel(abs)
				if !ok {
					return nil, nil, invalidParams("paths", "%s is outside the workspace folder %s", p, f.path)
				}
				paths[i] = rel
				changed = true
			}
			m["paths"], _ = json.Marshal(paths)
		}
	}
	if !changed {
		return f, arg, nil
	}
	out, err := json.Marshal(m)
	if err != nil {
		return nil, nil, fmt.Errorf("re-encoding the argument: %w", err)
	}
	return f, out, nil
}
