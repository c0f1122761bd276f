package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/words"
)

// Agent blame in any LSP client: textDocument/hover on a line
// an agent turn wrote shows the turn and links to its preview and revert.

type hoverParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

type markupContent struct {
	Kind  string `json:"kind"` // "markdown" or "plaintext"
	Value string `json:"value"`
}

type hoverResult struct {
	Contents markupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// blameHover reports whether hover shows agent blame
// (initializationOptions.blameHover, default true).
func (s *Server) blameHover() bool {
	return s.opts.BlameHover == nil || *s.opts.BlameHover
}

// hover answers textDocument/hover: on a line an agent turn wrote and
// nobody changed since, that turn (number, prompt, age, session) with
// command links to preview its changes to the file and to revert them
// here; elsewhere null.
func (s *Server) hover(ctx context.Context, p json.RawMessage) (any, error) {
	var hp hoverParams
	if err := decodeParams(p, &hp); err != nil {
		return nil, err
	}
	if hp.TextDocument.URI == "" {
		return nil, invalidParams("textDocument.uri", "required")
	}
	if !s.blameHover() {
		return nil, nil
	}
	path, err := pathFromURI(hp.TextDocument.URI)
	if err != nil {
		return nil, nil // not a file: nothing rewind-lsp knows
	}
	f := folderOf(s.ws.list(), path)
	if f == nil {
		return nil, nil
	}
	rel, _ := f.rel(path)
	res, err := f.svc.Blame(ctx, commands.BlameArgs{Scope: commands.Scope{URI: rel}})
	if err != nil {
		s.log.Printf("hover on %s: %v", rel, err)
		return nil, nil
	}
	line := hp.Position.Line
	for _, r := range res.Ranges {
		if line < r.StartLine || line >= r.EndLine {
			continue
		}
		return hoverResult{
			Contents: s.blameMarkup(f, rel, r),
			Range:    &Range{Start: Position{Line: r.StartLine}, End: Position{Line: r.EndLine}},
		}, nil
	}
	return nil, nil
}

// blameMarkup describes the turn of a blame range, with command links
// where the client renders markdown.
func (s *Server) blameMarkup(f *folder, rel string, r commands.BlameRange) markupContent {
	prompt := words.Prompt(r.Prompt, 200)
	who := []string{}
	if r.SessionLabel != "" {
		who = append(who, r.SessionLabel)
	}
	if r.Source != "" {
		who = append(who, "via "+string(r.Source))
	}
	// The step that wrote the lines when one did ("turn 3, step 2: Edit
	// a.go"), else the turn.
	heading, target, what := words.Turn(r.Turn), turnTarget(r.Turn), words.Turn(r.Turn)
	if r.Step > 0 {
		heading, target, what = r.StepTitle, r.StepTarget, words.StepName(r.Turn, r.Step, "", "")
	}
	if !s.caps.hoverMarkdown {
		text := fmt.Sprintf("Agent %s (%s)", heading, r.Age)
		if prompt != "" {
			text += ": " + prompt
		}
		if len(who) > 0 {
			text += "\n" + strings.Join(who, " · ")
		}
		return markupContent{Kind: "plaintext", Value: text}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "**Agent %s** · %s", markdownEscape(heading), r.Age)
	if prompt != "" {
		fmt.Fprintf(&b, "\n\n> %s", markdownEscape(prompt))
	}
	if len(who) > 0 {
		fmt.Fprintf(&b, "\n\n%s", markdownEscape(strings.Join(who, " · ")))
	}
	root := f.svc.Root()
	preview := commandLink(commands.NamePreview, map[string]any{"root": root, "target": target, "paths": []string{rel}, "show": true})
	revert := commandLink(commands.NameRevert, map[string]any{"root": root, "target": target, "paths": []string{rel}})
	fmt.Fprintf(&b, "\n\n[Preview](%s) · [Revert %s in this file](%s)", preview, what, revert)
	return markupContent{Kind: "markdown", Value: b.String()}
}

// commandLink is a markdown link that runs a server command with one
// argument (VS Code's command: URIs).
func commandLink(cmd string, arg map[string]any) string {
	js, _ := json.Marshal([]any{arg})
	return "command:" + cmd + "?" + url.QueryEscape(string(js))
}

// markdownEscape keeps a prompt from being read as markdown.
func markdownEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_{}[]()#+-.!|<>", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// warmBlame computes the blame of a document the editor just opened, in the
// background, so the first hover or blame request on it finds the file's
// turns already walked (blame is incremental from then on: a turn costs a
// diff). Warm-ups run one at a time.
func (s *Server) warmBlame(uri string) {
	path, err := pathFromURI(uri)
	if err != nil {
		return
	}
	s.disp.wg.Add(1) // waited for at exit, like requests
	go func() {
		defer s.disp.wg.Done()
		s.blameWarm.Lock()
		defer s.blameWarm.Unlock()
		if s.baseCtx.Err() != nil {
			return
		}
		if _, open := s.docs.byPath(path); !open {
			return
		}
		f := folderOf(s.ws.list(), path)
		if f == nil {
			return
		}
		rel, _ := f.rel(path)
		if _, err := f.svc.Blame(s.baseCtx, commands.BlameArgs{Scope: commands.Scope{URI: rel}}); err != nil {
			s.log.Printf("blame of %s: %v", rel, err)
		}
	}()
}
