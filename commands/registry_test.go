package commands_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit/wine"
)

// The editors' protocol is exactly these commands, in this order: what a
// client written against docs/PROTOCOL.md finds advertised.
var publicCommands = []string{
	"rewind.checkpoint", "rewind.turnStart", "rewind.turnEnd", "rewind.list", "rewind.preview",
	"rewind.rewind", "rewind.undo", "rewind.fileHistory", "rewind.status", "rewind.revert", "rewind.blame",
}

func TestRegistryAdvertisesThePublicCommands(t *testing.T) {
	if !slices.Equal(commands.All, publicCommands) {
		t.Fatalf("commands.All = %v\nwant %v", commands.All, publicCommands)
	}
	var public []string
	seen := map[string]bool{}
	for _, e := range commands.Entries() {
		s := e.Info()
		if seen[s.Name] {
			t.Errorf("%s is defined twice", s.Name)
		}
		seen[s.Name] = true
		if s.Public {
			public = append(public, s.Name)
		}
		if !strings.HasPrefix(s.Name, "rewind.") || s.Doc == "" {
			t.Errorf("%s: every command is named rewind.* and says what it does (Doc %q)", s.Name, s.Doc)
		}
		arg, res := e.Types()
		if arg.Kind() != reflect.Struct || res.Kind() != reflect.Struct {
			t.Errorf("%s: argument %v and result %v must be structs (JSON objects on the wire)", s.Name, arg, res)
		}
		if got, ok := commands.Lookup(s.Name); !ok || got != e {
			t.Errorf("Lookup(%s) does not find its entry", s.Name)
		}
	}
	if !slices.Equal(public, commands.All) {
		t.Fatalf("the registry's public commands %v are not commands.All %v", public, commands.All)
	}
}

// TestEveryAdvertisedCommandIsDispatched: the language server's dispatch
// knows every advertised command, the reported ones (rewind.toolCall), and
// nothing else. A command it knows decodes its argument (and so rejects an
// array naming the argument); one it does not know is an unknown command.
func TestEveryAdvertisedCommandIsDispatched(t *testing.T) {
	svc := openService(t)
	ctx := context.Background()
	for _, e := range commands.Entries() {
		name := e.Info().Name
		_, err := commands.Dispatch(ctx, svc, name, json.RawMessage(`[]`))
		var ae *commands.ArgError
		known := errors.As(err, &ae) && strings.Contains(ae.Msg, "must be a JSON object")
		switch {
		case (e.Info().Public || e.Info().Reported) && !known:
			t.Errorf("%s is served but Dispatch answers %v", name, err)
		case !e.Info().Public && !e.Info().Reported && (err == nil || !strings.Contains(err.Error(), "unknown command")):
			t.Errorf("%s is internal but Dispatch answers %v; want unknown command", name, err)
		}
	}
	if _, err := commands.Dispatch(ctx, svc, "rewind.nope", nil); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("an unknown name: %v", err)
	}
	st, err := commands.Dispatch(ctx, svc, commands.NameStatus, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, ok := st.(*commands.StatusResult); !ok || r.Root != svc.Root() {
		t.Fatalf("rewind.status through Dispatch: %#v", st)
	}
}

// TestEveryCommandReachesTheSocket: a running server's socket serves every
// command of the registry, public and internal, with the caller's
// argument errors coming back as argument errors.
func TestEveryCommandReachesTheSocket(t *testing.T) {
	svc := openService(t)
	srv, err := commands.ServeSocket(svc)
	if err != nil || srv == nil {
		t.Fatalf("ServeSocket: %v, %v", srv, err)
	}
	defer srv.Close()
	r := commands.NewRemote(svc.StoreDir())
	for _, e := range commands.Entries() {
		name := e.Info().Name
		err := r.Call(context.Background(), name, []int{}, nil)
		var ae *commands.ArgError
		if !errors.As(err, &ae) || !strings.Contains(ae.Msg, "must be a JSON object") {
			t.Errorf("%s over the socket: %v; want the argument rejected", name, err)
		}
	}
	var st commands.StatusResult
	if err := r.Call(context.Background(), commands.NameStatus, commands.StatusArgs{}, &st); err != nil || st.Root != svc.Root() {
		t.Fatalf("rewind.status over the socket: %+v, %v", st, err)
	}
}

func openService(t *testing.T) *commands.Service {
	t.Helper()
	svc, err := commands.Open(commands.Options{Root: t.TempDir(), StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// TestSocketLongStorePath: a store whose path is too long for a socket
// address (104 bytes on macOS, 108 on Linux) still serves the command line.
func TestSocketLongStorePath(t *testing.T) {
	wine.Skip(t, "AF_UNIX sockets (WSAEAFNOSUPPORT)")
	store := t.TempDir()
	for len(store) < 150 {
		store = filepath.Join(store, "a-long-folder-name-for-the-store")
	}
	if err := os.MkdirAll(store, 0o700); err != nil {
		t.Fatal(err)
	}
	svc, err := commands.Open(commands.Options{Root: t.TempDir(), StoreDir: store})
	if err != nil {
		t.Fatal(err)
	}
	srv, err := commands.ServeSocket(svc)
	if err != nil || srv == nil {
		t.Fatalf("ServeSocket: %v, %v", srv, err)
	}
	defer srv.Close()
	var st commands.StatusResult
	if err := commands.NewRemote(store).Call(context.Background(), commands.NameStatus, commands.StatusArgs{}, &st); err != nil || st.Root != svc.Root() {
		t.Fatalf("rewind.status over the socket of a long store path: %+v, %v", st, err)
	}
}

// TestAutoForwardsTheInternalCommands: with a server serving the root, the
// command line's own commands (a hook's session and notices, tool calls,
// gc, fsck) run in the server: the client here cannot open the root at
// all.
func TestAutoForwardsTheInternalCommands(t *testing.T) {
	svc := openService(t)
	srv, err := commands.ServeSocket(svc)
	if err != nil || srv == nil {
		t.Fatalf("ServeSocket: %v, %v", srv, err)
	}
	defer srv.Close()
	auto := commands.NewAuto(svc.StoreDir(), func() (*commands.Service, error) {
		return nil, errors.New("the command ran in the client instead of the server")
	})
	ctx := commands.WithCall(context.Background(), commands.Call{Actor: "hook", Source: journal.SourceHook})
	if r, err := commands.RecordSession.Call(ctx, auto, commands.RecordSessionArgs{Session: "S", Agent: "claude-code"}); err != nil || r.Entry == "" {
		t.Fatalf("recordSession: %+v, %v", r, err)
	}
	if r, err := commands.ToolCall.Call(ctx, auto, commands.ToolCallArgs{Session: "S", Tool: "Write", Phase: "post", Paths: []string{"a.txt"}}); err != nil {
		t.Fatalf("toolCall: %+v, %v", r, err)
	}
	if r, err := commands.Notices.Call(ctx, auto, commands.NoticesArgs{Session: "S"}); err != nil || r.Text != "" {
		t.Fatalf("notices with nothing to tell: %+v, %v", r, err)
	}
	if r, err := commands.GC.Call(ctx, auto, commands.GCArgs{}); err != nil || r.SnapshotsKept != 0 {
		t.Fatalf("gc: %+v, %v", r, err)
	}
	if r, err := commands.Fsck.Call(ctx, auto, commands.FsckArgs{}); err != nil || r.Store != svc.StoreDir() || len(r.Problems) != 0 {
		t.Fatalf("fsck: %+v, %v", r, err)
	}
	if _, err := commands.GC.Call(ctx, auto, commands.GCArgs{MaxAgeDays: -1}); err == nil || !strings.Contains(err.Error(), "maxAgeDays") {
		t.Fatalf("gc with a negative age: %v; want an error naming maxAgeDays", err)
	}
}
