package agents

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// pi 0.73.1 and oh-my-pi 18.2.3 (AGENTS.md) take their model from a
// provider of their models file: here "mock", the scripted model's OpenAI
// chat completions API. With --mode json both print their session's header
// ({"type":"session","id",…}) first on stdout.

// piModels points the agent at the scripted model.
func piModels(t testing.TB, e *Env) {
	t.Helper()
	model := map[string]any{"id": "mock-model", "name": "Mock Model", "reasoning": false, "input": []string{"text"},
		"contextWindow": 128000, "maxTokens": 4096, "cost": map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}}
	provider := map[string]any{"baseUrl": e.Model.URL + "/v1", "api": "openai-completions", "apiKey": "fake",
		"compat": map[string]any{"supportsDeveloperRole": false, "supportsReasoningEffort": false}, "models": []any{model}}
	doc := map[string]any{"providers": map[string]any{"mock": provider}}
	switch e.Kind {
	case Pi:
		writeJSON(t, filepath.Join(e.Home, ".pi", "agent", "models.json"), doc)
	case Omp:
		// YAML is a superset of JSON.
		data, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(e.Home, ".omp", "agent", "models.yml"), string(data)+"\n")
	}
}

// piArgs is the command line of one prompt of pi or oh-my-pi.
func piArgs(k Kind, session, prompt string) []string {
	a := []string{"-p", "--mode", "json"}
	switch k {
	case Pi:
		a = append(a, "--provider", "mock", "--model", "mock-model")
		if session != "" {
			a = append(a, "--session", session)
		}
	case Omp:
		// No title: oh-my-pi would ask the model for one.
		a = append(a, "--model", "mock/mock-model", "--no-title")
		if session != "" {
			a = append(a, "--resume", session)
		}
	}
	return append(a, prompt)
}

// piSession is the id of the session header in the agent's JSON output.
func piSession(stdout string) string {
	sc := bufio.NewScanner(strings.NewReader(stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var v struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		}
		if json.Unmarshal(sc.Bytes(), &v) == nil && v.Type == "session" && v.ID != "" {
			return v.ID
		}
	}
	return ""
}

// PiEdit is the model's call that replaces line 1 of file path, which holds
// content, by the line new. pi's edit names the text to replace; oh-my-pi's
// (in its default "hashline" mode) is a text naming the file with a hash of
// its content, computed here by oh-my-pi's own native module.
func PiEdit(t testing.TB, e *Env, dir, path, content, new string) fakemodel.Call {
	t.Helper()
	if e.Kind == Pi {
		return EditFile(Pi, dir, path, strings.TrimSuffix(content, "\n"), new)
	}
	cli, err := filepath.EvalSymlinks(e.Cmd) // <install>/node_modules/@oh-my-pi/pi-coding-agent/dist/cli.js
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(e.Bin, "bun"), "-e",
		`import {hashlineFileHash} from "@oh-my-pi/pi-natives"; process.stdout.write(hashlineFileHash(process.argv[1]))`, content)
	cmd.Dir = filepath.Dir(filepath.Dir(cli))
	out, err := cmd.Output()
	if err != nil || len(out) != 4 {
		t.Fatalf("oh-my-pi's hash of %q: %q, %v", content, out, err)
	}
	input := "[" + rel(dir, path) + "#" + string(out) + "]\nPUT 1.=1:\n+" + new + "\n"
	return fakemodel.Call{Name: "edit", Args: map[string]any{"input": input}}
}
