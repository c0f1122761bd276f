package agents

import (
	"fmt"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/rootpath"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// The tools each agent offers its model, as its real binary sent them to
// the scripted model (the tools list of its first request) and as its hooks
// then reported the calls (tool name and input in the Pre/Post events):
//
//   - Claude Code 2.1.328 (Anthropic Messages): Write {file_path, content},
//     Edit {file_path, old_string, new_string, replace_all?}, Bash {command,
//     description?, timeout?, run_in_background?}, Read {file_path}. Hooks
//     see the same names and inputs.
//   - Codex 0.169.0 (Responses) with a catalogued model such as gpt-5.5:
//     apply_patch is a free-form ("custom") tool whose input is the patch
//     text ("*** Begin Patch" … "*** End Patch", with "*** Add File: p",
//     "*** Update File: p", "*** Delete File: p", "*** Move to: p"); the
//     shell is exec_command {cmd, workdir?, …} (the "unified exec" shell;
//     write_stdin feeds a running one). Hooks name them apply_patch with
//     tool_input {command: <patch text>} and Bash with {command}. A model
//     Codex does not know gets no apply_patch tool at all.
//   - Gemini CLI 0.61.0 (Gemini API): write_file {file_path, content},
//     replace {file_path, instruction, old_string, new_string,
//     allow_multiple?}, run_shell_command {command, description?,
//     dir_path?, is_background?}, read_file {file_path}. Hooks see the same
//     names and inputs.
//   - Copilot CLI 1.0.102 (chat completions): create {path, file_text},
//     edit {path, old_str, new_str}, bash {command, description, mode?,
//     …}, view {path}. Hooks see toolName and toolArgs with the same names.
//   - Qwen Code 0.24.4 (chat completions): write_file {file_path (absolute),
//     content}, edit {file_path, old_string, new_string} (only of a file
//     read_file read in the same process), run_shell_command {command,
//     description?, is_background?}, read_file {file_path}. Hooks see the
//     same names and inputs.
//   - opencode 1.18.33 and Kilo 7.7.7 (chat completions): write {filePath,
//     content}, edit {filePath, oldString, newString, replaceAll?}, bash
//     {command, description, timeout?}, read {filePath}. The plugin's
//     tool.execute events see the same names and arguments.

// WriteFile is the model's call that creates file path (absolute, inside
// dir for Codex, whose patches name paths relative to the session's
// folder) with content.
func WriteFile(k Kind, dir, path, content string) fakemodel.Call {
	switch k {
	case Claude:
		return fakemodel.Call{Name: "Write", Args: map[string]any{"file_path": path, "content": content}}
	case Codex:
		return fakemodel.Call{Name: "apply_patch", Args: "*** Begin Patch\n*** Add File: " + rel(dir, path) + "\n" + plusLines(content) + "*** End Patch\n"}
	case Gemini:
		return fakemodel.Call{Name: "write_file", Args: map[string]any{"file_path": path, "content": content}}
	case Copilot:
		return fakemodel.Call{Name: "create", Args: map[string]any{"path": path, "file_text": content}}
	case Qwen:
		return fakemodel.Call{Name: "write_file", Args: map[string]any{"file_path": path, "content": content}}
	case Pi, Omp:
		return fakemodel.Call{Name: "write", Args: map[string]any{"path": path, "content": content}}
	case OpenCode, Kilo:
		return fakemodel.Call{Name: "write", Args: map[string]any{"filePath": path, "content": content}}
	}
	panic("unknown agent " + k)
}

// EditFile is the model's call that replaces the line old by the line new
// in file path (old and new without their newline).
func EditFile(k Kind, dir, path, old, new string) fakemodel.Call {
	switch k {
	case Claude:
		return fakemodel.Call{Name: "Edit", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
	case Codex:
		return fakemodel.Call{Name: "apply_patch", Args: "*** Begin Patch\n*** Update File: " + rel(dir, path) + "\n@@\n-" + old + "\n+" + new + "\n*** End Patch\n"}
	case Gemini:
		return fakemodel.Call{Name: "replace", Args: map[string]any{"file_path": path, "instruction": "change the line", "old_string": old, "new_string": new}}
	case Copilot:
		return fakemodel.Call{Name: "edit", Args: map[string]any{"path": path, "old_str": old, "new_str": new}}
	case Qwen:
		return fakemodel.Call{Name: "edit", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
	case Pi:
		return fakemodel.Call{Name: "edit", Args: map[string]any{"path": path, "edits": []any{map[string]any{"oldText": old, "newText": new}}}}
	case OpenCode, Kilo:
		return fakemodel.Call{Name: "edit", Args: map[string]any{"filePath": path, "oldString": old, "newString": new}}
	}
	panic("unknown agent " + k)
}

// Shell is the model's call that runs command in the session's folder.
func Shell(k Kind, command string) fakemodel.Call {
	switch k {
	case Claude:
		return fakemodel.Call{Name: "Bash", Args: map[string]any{"command": command, "description": "run a command"}}
	case Codex:
		return fakemodel.Call{Name: "exec_command", Args: map[string]any{"cmd": command}}
	case Gemini:
		return fakemodel.Call{Name: "run_shell_command", Args: map[string]any{"command": command, "description": "run a command"}}
	case Copilot, OpenCode, Kilo:
		return fakemodel.Call{Name: "bash", Args: map[string]any{"command": command, "description": "run a command"}}
	case Qwen:
		return fakemodel.Call{Name: "run_shell_command", Args: map[string]any{"command": command, "description": "run a command", "is_background": false}}
	case Pi, Omp:
		return fakemodel.Call{Name: "bash", Args: map[string]any{"command": command}}
	}
	panic("unknown agent " + k)
}

// ReadFile is the model's call that reads file path: Qwen Code edits only
// files it read in the same process.
func ReadFile(k Kind, path string) fakemodel.Call {
	switch k {
	case Qwen:
		return fakemodel.Call{Name: "read_file", Args: map[string]any{"file_path": path}}
	}
	panic("no read call scripted for " + k)
}

// ToolName is the name an agent's hooks give a call made with WriteFile,
// EditFile or Shell (what the model was sent, except Codex's shell).
func ToolName(k Kind, c fakemodel.Call) string {
	if k == Codex && c.Name == "exec_command" {
		return "Bash"
	}
	return c.Name
}

func rel(dir, path string) string {
	if r, ok := rootpath.Rel(dir, path); ok {
		return r
	}
	panic(fmt.Sprintf("%s is not inside %s", path, dir))
}

// plusLines is content as the added lines of a patch.
func plusLines(content string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimSuffix(content, "\n"), "\n") {
		b.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

// MCPTool is the model's call of tool of the MCP server named server, as
// each agent names it: Claude Code mcp__<server>__<tool>, Codex the tool
// of the namespace mcp__<server> (loaded by LoadMCPTools first), Gemini
// CLI mcp_<server>_<tool>, Copilot CLI <server>-<tool>, Qwen Code
// mcp__<server>__<tool>.
func MCPTool(k Kind, server, tool string, args map[string]any) fakemodel.Call {
	switch k {
	case Claude:
		return fakemodel.Call{Name: "mcp__" + server + "__" + tool, Args: args}
	case Codex:
		return fakemodel.Call{Name: "mcp__" + server + "/" + tool, Args: args}
	case Gemini:
		return fakemodel.Call{Name: "mcp_" + server + "_" + tool, Args: args}
	case Copilot:
		return fakemodel.Call{Name: server + "-" + tool, Args: args}
	case Qwen:
		return fakemodel.Call{Name: "mcp__" + server + "__" + tool, Args: args}
	}
	panic("no MCP tool names known for " + k)
}

// LoadMCPTools is the model's call that makes the agent offer the MCP
// server's tools, for the agents that defer them: Claude Code's ToolSearch
// ("select:" the tools' names) and Codex's tool search. Gemini CLI offers
// them from the start (ok false).
func LoadMCPTools(k Kind, server string, tools ...string) (c fakemodel.Call, ok bool) {
	switch k {
	case Claude:
		var names []string
		for _, t := range tools {
			names = append(names, MCPTool(k, server, t, nil).Name)
		}
		return fakemodel.Call{Name: "ToolSearch", Args: map[string]any{"query": "select:" + strings.Join(names, ",")}}, true
	case Codex:
		return fakemodel.Call{Name: fakemodel.ToolSearch, Args: map[string]any{"query": server + " " + strings.Join(tools, " ")}}, true
	}
	return fakemodel.Call{}, false
}
