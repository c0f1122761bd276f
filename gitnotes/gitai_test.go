package gitnotes

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestGitAIRoundTrip: a note written here parses back to the same files,
// keys, ranges and sessions, odd paths included.
func TestGitAIRoundTrip(t *testing.T) {
	au := Author{Agent: "claude-code", Tool: "claude", Session: "S1", Model: "unknown", Turn: 2, TurnID: "T2", Step: 1, StepID: "E1"}
	au2 := au
	au2.Step, au2.StepID = 2, "E2"
	a := &Attestation{Commit: "c0ffee", Time: time.Unix(0, 0), Files: []File{
		{Path: "a.go", Added: 9, Ranges: []Range{{Start: 1, End: 4, Author: au}, {Start: 6, End: 6, Author: au2}, {Start: 9, End: 9, Author: au}}},
		{Path: "dir with space/\"q\"\n.txt", Added: 1, Ranges: []Range{{Start: 1, End: 1, Author: au}}},
		{Path: "none.txt", Added: 3},
	}}
	data := GitAI(a).Marshal()
	n, err := ParseGitAI(data)
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if !strings.HasPrefix(string(data), "a.go\n  "+au.StepKey()+" 1-4,9\n  "+au2.StepKey()+" 6\n") {
		t.Errorf("the attestation section:\n%s", data)
	}
	if got := n.Paths(); !reflect.DeepEqual(got, []string{"a.go", "dir with space/\"q\"\n.txt"}) {
		t.Errorf("paths %q", got)
	}
	if got := n.Lines("a.go"); len(got) != 6 || got[6] != au2.StepKey() || got[9] != au.StepKey() {
		t.Errorf("a.go's lines %v", got)
	}
	s := n.Metadata.Sessions[au.SessionKey()]
	if s.AgentID != (GitAIAgent{Tool: "claude", ID: "S1", Model: "unknown"}) || n.Metadata.BaseCommitSHA != "c0ffee" || n.Metadata.SchemaVersion != GitAISchema {
		t.Errorf("metadata %+v", n.Metadata)
	}
}

// TestSessionKeyAsGitAI: the session key is the first 14 hex digits of
// sha256("<tool>:<session id>").
func TestSessionKeyAsGitAI(t *testing.T) {
	// printf 'claude:abc' | sha256sum
	if got := (Author{Tool: "claude", Session: "abc"}).SessionKey(); got != "s_"+hash14("claude:abc") || len(got) != 16 {
		t.Errorf("session key %q", got)
	}
	if got, want := hash14("claude:abc"), "2ce06946efc032"; got != want {
		t.Errorf("hash14 = %s, want %s", got, want)
	}
}

// TestParseGitAIHandWritten: a note as git-ai writes one (a bare prompt
// hash key, a human key, prompts with their own fields) reads; damaged or
// foreign notes are errors.
func TestParseGitAIHandWritten(t *testing.T) {
	note := "src/main.go\n  h_dca485b1adf836 3-4,7-14\n  d4a7828bfdafe456 5-6\n---\n" +
		`{"schema_version":"authorship/3.0.0","git_ai_version":"1.3.4","base_commit_sha":"ae20","prompts":{"d4a7828bfdafe456":{"agent_id":{"tool":"claude","model":"m"}}},"humans":{"h_dca485b1adf836":{"author":"Pat <pat@example.com>"}}}`
	n, err := ParseGitAI([]byte(note))
	if err != nil {
		t.Fatal(err)
	}
	l := n.Lines("src/main.go")
	if len(l) != 12 || l[3] != "h_dca485b1adf836" || l[5] != "d4a7828bfdafe456" || n.Metadata.Humans["h_dca485b1adf836"].Author != "Pat <pat@example.com>" {
		t.Errorf("lines %v, metadata %+v", l, n.Metadata)
	}
	for _, bad := range []string{
		"",
		"a.go\n  k 1\n",
		"---\n{\"schema_version\":\"authorship/2.0.0\"}",
		"a.go\n  k 3-1\n---\n{\"schema_version\":\"authorship/3.0.0\"}",
		"  k 1\n---\n{\"schema_version\":\"authorship/3.0.0\"}",
		"a.go\n  k x\n---\n{\"schema_version\":\"authorship/3.0.0\"}",
		"a.go\n---\nnot json",
	} {
		if _, err := ParseGitAI([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
