package main

import (
	"github.com/rewind-lsp/rewind-lsp/commands"
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
	cl, err := c.client(cwd)
	if err != nil {
		return "", err
	}
	n, err := commands.Notices.Call(c.call(), cl, commands.NoticesArgs{Session: sid})
	if err != nil {
		return "", err
	}
	return n.Text, nil
}
