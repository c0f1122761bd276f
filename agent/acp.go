package agent

import (
	"os"
	"path/filepath"
)

// ACPAgent is an agent that also runs behind ACP (rewind-lsp acp) and
// whose ACP sessions rewind-lsp finds on disk: the proxy records a turn
// with this agent's name and the position of the session's conversation
// file, so that a conversation rewind forks it. The ACP session id is the
// agent's own. claude-code-acp is none: its Claude Code writes a prompt's
// entries to the transcript only after the prompt's answer, so no fork
// point can be read at the next prompt (docs/ACP.md).
type ACPAgent interface {
	Agent
	// ACPName is the name its ACP server gives in its initialize answer
	// (agentInfo.name).
	ACPName() string
	// ACPTranscript is the conversation file of ACP session id now, ""
	// when none is found.
	ACPTranscript(id string) string
}

// acpGlob is the conversation file of an ACP session: of the files
// pattern(home, id) matches, the largest (a resume in a later minute
// starts a header-only Gemini CLI file of the same session: the
// conversation is in the largest). It is "" for an id that is no plain
// file name of at least eight characters.
func acpGlob(id string, pattern func(home, id string) string) string {
	home, err := os.UserHomeDir()
	if err != nil || len(id) < 8 || filepath.Base(id) != id {
		return ""
	}
	files, _ := filepath.Glob(pattern(home, id))
	best, size := "", int64(-1)
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > size {
			best, size = f, fi.Size()
		}
	}
	return best
}
