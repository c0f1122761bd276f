// Package opencode holds the plugin rewind-lsp ships for opencode and Kilo
// (rewind-lsp.js), which `rewind-lsp setup opencode` and `setup kilo`
// install into the agent's plugin folder. The plugin only hands the agent's
// events to `rewind-lsp hook opencode|kilo` and passes the answer on; package
// agent reads those events (package agent/opencode).
package opencode

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

//go:embed rewind-lsp.js
var source string

// FileName is the plugin's file name in the agent's plugin folder.
const FileName = "rewind-lsp.js"

// Marker begins every plugin file rewind-lsp writes: a file of that name
// without it is someone else's.
const Marker = "// rewind-lsp for opencode and Kilo"

// Render is the plugin as installed for agent ("opencode" or "kilo"), calling
// rewind-lsp as command (a shell word: "rewind-lsp", or a quoted path).
func Render(command, agent string) (string, error) {
	out := source
	for _, r := range []struct{ name, value string }{{"COMMAND", command}, {"AGENT", agent}} {
		q, _ := json.Marshal(r.value)
		line := "const " + r.name + " = "
		i := strings.Index(out, "\n"+line)
		if i < 0 {
			return "", fmt.Errorf("the plugin source has no %q line", line)
		}
		start := i + 1
		end := strings.IndexByte(out[start:], '\n')
		out = out[:start] + line + string(q) + out[start+end:]
	}
	return out, nil
}
