package lsp

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestBinaryStrictJSONRPC drives the real binary: a message that is not
// JSON-RPC 2.0 (version "1.0", a number, or none) is an Invalid Request,
// answered and never executed; a request whose method is not a string is
// answered too, with its own id when that id is valid. The server keeps
// serving after each.
func TestBinaryStrictJSONRPC(t *testing.T) {
	w := testkit.NewSandbox(t)
	w.Write("a.txt", "a\n")
	_, e := startServer(t, w, testkit.VSCodeLike)
	c := e.Conn
	checkpoint := func(label string) string {
		return fmt.Sprintf(`"method":"workspace/executeCommand","params":{"command":%q,"arguments":[{"label":%q}]}`,
			commands.NameCheckpoint, label)
	}
	cases := []struct{ body, wantID, wantMsg string }{
		{`{"jsonrpc":"1.0","id":900001,` + checkpoint("version-1.0") + `}`, `900001`, "jsonrpc"},
		{`{"id":900002,` + checkpoint("no-version") + `}`, `900002`, "jsonrpc"},
		{`{"jsonrpc":2.0,"id":"s-3",` + checkpoint("version-number") + `}`, `"s-3"`, "jsonrpc"},
		{`{"jsonrpc":"1.0",` + checkpoint("notification") + `}`, `null`, "jsonrpc"},
		{`{"jsonrpc":"2.0","id":900005,"method":5}`, `900005`, "method"},
		{`{"jsonrpc":"2.0","id":"s-6","method":null}`, `"s-6"`, "method"},
		{`{"jsonrpc":"2.0","id":900007,"method":["x"],"params":{}}`, `900007`, "method"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":7}`, `null`, "method"},
		{`{"jsonrpc":"2.0","id":null,` + checkpoint("id-null") + `}`, `null`, "id"},
	}
	orphan := 0
	for _, tc := range cases {
		c.WriteRaw([]byte(tc.body))
		var m *testkit.Message
		if m, orphan = c.WaitOrphan(orphan, 5*time.Second); m == nil {
			t.Fatalf("no answer to %s", tc.body)
		}
		id := "null"
		if m.ID != nil {
			id = string(*m.ID)
		}
		if m.Error == nil || m.Error.Code != codeInvalidRequest || id != tc.wantID {
			t.Fatalf("answer to %s: id %s, error %v; want id %s and error %d", tc.body, id, m.Error, tc.wantID, codeInvalidRequest)
		}
		if !strings.Contains(strings.ToLower(m.Error.Message), tc.wantMsg) {
			t.Fatalf("answer to %s: %q does not name %q", tc.body, m.Error.Message, tc.wantMsg)
		}
		alive(t, c)
	}
	var list commands.ListResult
	e.MustCmd(commands.NameList, map[string]any{}, &list)
	if len(list.Checkpoints) != 0 {
		t.Fatalf("a request that is not JSON-RPC 2.0 was executed: %+v", list.Checkpoints)
	}
	// The same request as JSON-RPC 2.0 is executed.
	c.WriteRaw([]byte(`{"jsonrpc":"2.0","id":900009,` + checkpoint("good") + `}`))
	m, _ := c.WaitOrphan(orphan, 10*time.Second)
	if m == nil || m.Error != nil {
		t.Fatalf("a valid checkpoint request: %+v", m)
	}
	e.MustCmd(commands.NameList, map[string]any{}, &list)
	if len(list.Checkpoints) != 1 || list.Checkpoints[0].Label != "good" {
		t.Fatalf("checkpoints %+v; want the one labelled good", list.Checkpoints)
	}
}
