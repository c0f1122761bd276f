package agents

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// opencode and Kilo, offline: a provider of their configuration points at
// the scripted model (chat completions through their bundled
// @ai-sdk/openai-compatible); opencode reads it from its user
// configuration, Kilo from KILO_CONFIG_CONTENT.
//
// At every start they install their plugin package (@opencode-ai/plugin,
// @kilocode/plugin) into each configuration folder with npm, and wait for
// it before loading any plugin: from the registry, which for Kilo 7.7.7
// has no such version (a run then waits about 50 s for npm to give up).
// rewind-lsp's plugin imports nothing, so the user's configuration folder
// is left as that install leaves it — a package.json and lock naming the
// package, and node_modules — and they skip it.

// openCodeModel is the provider and model of the configuration.
const openCodeModel = "mock/mock-model"

// openCodeConfig is the configuration that names the scripted model.
func openCodeConfig(e *Env) map[string]any {
	return map[string]any{
		"autoupdate": false, "share": "disabled", "model": openCodeModel, "small_model": openCodeModel,
		"provider": map[string]any{"mock": map[string]any{
			"npm": "@ai-sdk/openai-compatible", "name": "Mock",
			"options": map[string]any{"baseURL": e.Model.URL + "/v1", "apiKey": "fake"},
			"models": map[string]any{"mock-model": map[string]any{"name": "Mock Model", "tool_call": true,
				"limit": map[string]any{"context": 128000, "output": 4096}}},
		}},
	}
}

// openCodeHome writes the agent's user configuration folder.
func openCodeHome(t testing.TB, e *Env) {
	dir, pkg := filepath.Join(e.Home, ".config", "opencode"), "@opencode-ai/plugin"
	if e.Kind == Kilo {
		dir, pkg = filepath.Join(e.Home, ".config", "kilo"), "@kilocode/plugin"
	} else {
		writeJSON(t, filepath.Join(dir, "opencode.json"), openCodeConfig(e))
	}
	deps := map[string]any{pkg: "*"}
	writeJSON(t, filepath.Join(dir, "package.json"), map[string]any{"dependencies": deps})
	writeJSON(t, filepath.Join(dir, "package-lock.json"), map[string]any{"lockfileVersion": 3, "packages": map[string]any{"": map[string]any{"dependencies": deps}}})
	writeFile(t, filepath.Join(dir, "node_modules", ".keep"), "")
}

// openCodeEnv is what the agent needs in its environment to stay on
// 127.0.0.1.
func openCodeEnv(e *Env) []string {
	if e.Kind == Kilo {
		cfg, _ := json.Marshal(openCodeConfig(e))
		return []string{"KILO_CONFIG_CONTENT=" + string(cfg), "KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_MODELS_FETCH=1",
			"KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_PRESENCE=1", "KILO_DISABLE_SHARE=1", "KILO_DISABLE_LSP_DOWNLOAD=1",
			"KILO_TELEMETRY_LEVEL=off",
			// When its snapshot of the worktree takes over 10 s (a busy
			// machine), Kilo asks whether to go on with snapshots, whatever
			// the session's question rules, and a non-interactive run waits
			// 2 minutes (KILO_SNAPSHOT_TURN_TIMEOUT_MS) for an answer.
			"KILO_SNAPSHOT_TRACK_TIMEOUT_MS=300000"}
	}
	return []string{"OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_SHARE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1"}
}

// openCodeArgs is `run` of one prompt. The prompt goes as its words:
// `run` quotes a message argument that holds a space ("a b" is sent as
// "\"a b\"").
func openCodeArgs(session, prompt string) []string {
	a := []string{"run", "--format", "json"}
	if session != "" {
		a = append(a, "--session", session)
	}
	return append(append(a, "--"), strings.Fields(prompt)...)
}
