package mcp_test

import (
	"context"
	"slices"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/mcp"
)

// TestToolsAreTheRegistrys: the server offers exactly the tools the
// registry names (commands.Spec.Tool), so docs/PROTOCOL.md's table of
// tools, made from the registry, is what an agent finds.
func TestToolsAreTheRegistrys(t *testing.T) {
	ctx := context.Background()
	ct, st := sdk.NewInMemoryTransports()
	ss, err := mcp.New(nil, "test").MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got, want []string
	for _, tl := range tools.Tools {
		got = append(got, tl.Name)
	}
	for _, e := range commands.Entries() {
		if e.Info().Tool != "" {
			want = append(want, e.Info().Tool)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("the MCP server offers %v; the registry names %v", got, want)
	}
}
