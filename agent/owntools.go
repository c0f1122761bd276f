package agent

import (
	"fmt"
	"strings"
)

// OwnTools is an agent with checkpoint and rewind tools of its own that
// take its conversation back and restore no file (oh-my-pi's). Its Parse
// reads a successful call of its checkpoint tool as a Checkpointed event
// (Report: the goal) and of its rewind tool as a Rewound event (Report:
// the report); rewind-lsp records the checkpoint, and at the rewind
// restores the files the session changed since, as the agent's own
// rewind. Rewound is what the hook prints then for the agent: its report
// with what rewind-lsp did, which the agent keeps in place of the report.
type OwnTools interface {
	Rewound(report, done string) []byte
}

// CheckpointRewindText words for the agent what rewind-lsp did when its
// rewind tool went back to checkpoint label: the files restored (each
// "change path"), and those left alone because someone else changed them
// since the agent last wrote them.
func CheckpointRewindText(label string, restored, kept []string) string {
	var b strings.Builder
	if len(restored) > 0 {
		fmt.Fprintf(&b, "rewind-lsp restored the files you changed since the checkpoint (%s) to their state then: %s.", label, fileList(restored))
	} else {
		fmt.Fprintf(&b, "rewind-lsp found no file you changed since the checkpoint (%s) to restore.", label)
	}
	if len(kept) > 0 {
		fmt.Fprintf(&b, " These were left as they are, changed since by someone else: %s.", fileList(kept))
	}
	if len(restored) > 0 || len(kept) > 0 {
		b.WriteString(" Re-read these files before you rely on what you remember of them or edit them.")
	}
	if len(restored) > 0 {
		b.WriteString(" The user can undo this (rewind-lsp undo).")
	}
	return b.String()
}
