package agents

import (
	"context"
	"fmt"
	"os"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpWriterArg makes the test binary an MCP server on stdio with one tool,
// write {path, content}, that writes a file: another MCP server an agent
// changes files through, as a person's own would.
const mcpWriterArg = "mcp-writer"

type writeIn struct {
	Path    string `json:"path" jsonschema:"the file to write, absolute"`
	Content string `json:"content" jsonschema:"what to write"`
}

func serveMCPWriter() int {
	srv := sdk.NewServer(&sdk.Implementation{Name: "writer", Version: "1"}, nil)
	sdk.AddTool(srv, &sdk.Tool{Name: "write", Description: "Write a file."},
		func(ctx context.Context, _ *sdk.CallToolRequest, in writeIn) (*sdk.CallToolResult, any, error) {
			if err := os.WriteFile(in.Path, []byte(in.Content), 0o644); err != nil {
				return nil, nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "wrote " + in.Path}}}, nil, nil
		})
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
