package agents

import (
	"path/filepath"
)

// configure points droid or Cline at the scripted model:
//
//   - droid 0.215 reads models of its own ("bring your own key") from
//     customModels in ~/.factory/settings.json; one of provider
//     generic-chat-completion-api talks chat completions, and
//     `-m custom:<model>` picks it. No Factory login is needed for
//     `droid exec` (its interactive interface asks for one).
//   - Cline 3.0 keeps its provider in ~/.cline/data/settings/providers.json,
//     written by `cline auth -p openai -b URL` (an OpenAI-compatible
//     provider: chat completions).
func (e *Env) configure() {
	e.t.Helper()
	switch e.Kind {
	case Droid:
		path := filepath.Join(e.Home, ".factory", "settings.json")
		writeJSON(e.t, path, mergeJSON(e.t, path, "customModels", []any{map[string]any{
			"model": droidModel, "displayName": "Fake", "baseUrl": e.Model.URL + "/v1", "apiKey": "fake",
			"provider": "generic-chat-completion-api", "maxOutputTokens": 4096}}))
	case Cline:
		if r := e.Exec(e.Home, e.Cmd, "auth", "-p", "openai", "-k", "fake", "-m", "fake-model", "-b", e.Model.URL+"/v1"); r.Exit != 0 {
			e.t.Fatalf("cline auth: exit %d\n%s%s", r.Exit, r.Stdout, r.Stderr)
		}
	}
}

// droidModel is the model droid is given in customModels.
const droidModel = "fake-model"

// moreArgs is the command line of one non-interactive prompt of droid or
// Cline. droid exec resumes no session offline (`-s` asks Factory's
// servers): a session given here is forked (`--fork`), which continues it
// as a new session. Cline resumes a session only in its terminal
// interface: a session given here fails the test.
func (e *Env) moreArgs(session, prompt string) []string {
	switch e.Kind {
	case Droid:
		a := []string{"exec", "--auto", "high", "-m", "custom:" + droidModel, "-o", "json"}
		if session != "" {
			a = append(a, "--fork", session)
		}
		return append(a, prompt)
	case Cline:
		if session != "" {
			e.t.Fatalf("cline resumes a session (%s) only in its terminal interface", session)
		}
		return []string{"--yolo", "--timeout", "90", "--json", prompt}
	}
	panic("unknown agent " + e.Kind)
}
