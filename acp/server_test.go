package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
	"github.com/rewind-lsp/rewind-lsp/testkit/acpclient"
)

// TestThroughRunningServer: with a language server running for the root,
// the real binary's proxy records through the server's socket, as the
// command line does — the editor over LSP lists the ACP session's turns —
// and a rewind is the server's: it writes the disk itself, asking the ACP
// editor for nothing.
func TestThroughRunningServer(t *testing.T) {
	w := testkit.NewSandbox(t)
	srv, conn := testkit.StartServer(w)
	lspEditor := testkit.NewEditor(t, conn, testkit.PlainClient)
	lspEditor.Server = srv
	lspEditor.Initialize([]string{w.Root}, map[string]any{"storeDir": w.Store})

	cmd := w.Command([]string{"--store", w.Store, "acp", "--", os.Args[0], "-test.run=^$"}, fakeAgentEnv+"=1")
	cmd.Dir = w.Root
	c := acpclient.Start(t, cmd)
	c.Timeout = 30 * time.Second
	c.Initialize()
	sid := c.NewSession(w.Root)
	a := filepath.Join(w.Root, "a.txt")
	c.Prompt(sid, "write "+a+" one")
	c.Prompt(sid, "write "+a+" two")

	var l commands.ListResult
	deadline := time.Now().Add(20 * time.Second)
	for {
		lspEditor.MustCmd("rewind.list", map[string]any{}, &l)
		if len(l.Turns) == 2 && l.Turns[1].Ended != "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(l.Turns) != 2 || l.Turns[0].Source != journal.SourceACP || l.Turns[1].Session != sid || len(l.Turns[1].Steps) != 1 {
		t.Fatalf("the server lists %+v", l.Turns)
	}
	r := c.Prompt(sid, "/rewind 2")
	if !strings.Contains(r.Text, "rewound to turn 2") {
		t.Fatalf("/rewind 2 answered %q", r.Text)
	}
	if got := w.Read("a.txt"); got != "one\n" {
		t.Errorf("a.txt = %q after /rewind 2", got)
	}
	if ws := c.Writes(); len(ws) != 0 {
		t.Errorf("the server's rewind asked the ACP editor to write %+v", ws)
	}
}
