package main

import (
	"github.com/rewind-lsp/rewind-lsp/agent"
)

// pendingNotice is what to tell agent session sid at its prompt, "" when
// there is nothing: the rewinds, reverts, undos and reports it has not
// heard of, and at the first prompt of a conversation fork the files that
// differ on disk from its fork point. Each is told once (taking it records
// that). Every agent's hook prints it in that agent's shape.
func (c *cli) pendingNotice(cwd, sid string) (string, error) {
	if sid == "" {
		return "", nil
	}
	svc, err := c.service(cwd)
	if err != nil {
		return "", err
	}
	n, err := svc.Workspace().TakeNotices(sid)
	if err != nil || n.Empty() {
		return "", err
	}
	fork := ""
	if f := n.Fork; f != nil {
		fork = agent.ForkText(f.Target, n.History, f.Files, f.By)
	}
	return agent.JoinNotices(agent.NoticeText(n.Entries, n.History), fork), nil
}
