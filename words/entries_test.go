package words

import "testing"

func TestSessionTellsSessionsApart(t *testing.T) {
	// Two Codex sessions (UUIDv7) started 20 s apart share their first 8
	// characters; their labels must not.
	a := Session("codex", "019a1b2c-3d4e-7f60-8a1b-2c3d4e5f6a7b")
	b := Session("codex", "019a1b2c-8e21-7c05-9b3a-77d0e1f2a3c4")
	if a == b {
		t.Fatalf("two Codex sessions of the same minute are both %q", a)
	}
	if a != "codex …4e5f6a7b" {
		t.Errorf("a time-ordered id = %q, want its random tail", a)
	}
	for _, c := range []struct{ agent, id, want string }{
		{"claude-code", "6db2232a-b3c4-4de3-a153-6da093ca6eba", "claude-code 6db2232a"}, // UUIDv4: random from the start
		{"", "6db2232a-b3c4-4de3-a153-6da093ca6eba", "session 6db2232a"},
		{"gemini", "", "gemini"},
		{"", "abc", "session abc"},
		{"", "", ""},
		{"codex", "019a1b2c-3d4e-4f60-8a1b-2c3d4e5f6a7b", "codex 019a1b2c"},      // version 4
		{"codex", "019a1b2c-3d4e-7f60-8a1b-2c3d4e5f6a7bxx", "codex 019a1b2c"},    // not a UUID
		{"codex", "019a1b2c-3d4e-7f60-8a1b-2c3d4e5f6a7g", "codex 019a1b2c"},      // not hex
		{"copilot", "019A1B2C-3D4E-6F60-8A1B-2C3D4E5F6A7B", "copilot …4E5F6A7B"}, // version 6, upper case
		{"claude-code", "ééééééééé", "claude-code éééééééé"},                     // cut by character
		// opencode and Kilo: "ses_", time in hex, then random.
		{"opencode", "ses_ddd1d6402ffebvNvuPkEVtCpd0", "opencode …kEVtCpd0"},
		{"kilo", "ses_ddd1bda65ffe8t64PDUSKaseW9", "kilo …USKaseW9"},
		{"opencode", "ses_ddd1d6402ffebvNvuPkEVtCpd", "opencode ses_ddd1"},  // one short
		{"opencode", "ses_ddd1d6402ffgbvNvuPkEVtCpd0", "opencode ses_ddd1"}, // not hex
	} {
		if got := Session(c.agent, c.id); got != c.want {
			t.Errorf("Session(%q, %q) = %q, want %q", c.agent, c.id, got, c.want)
		}
	}
	if got := SessionTurns("019a1b2c-3d4e-7f60-8a1b-2c3d4e5f6a7b"); got != "the turns of session …4e5f6a7b" {
		t.Errorf("SessionTurns = %q", got)
	}
}

func TestEntryTitles(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Checkpoint("base", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab"), "Checkpoint @base"},
		{Checkpoint("base", "before the refactor\nand more", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab"), "Checkpoint @base: before the refactor…"},
		{Checkpoint("", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab"), "Checkpoint 0190a0b1-2c3d-7e4f"},
		{Checkpoint("", "try JWT", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab"), "Checkpoint 0190a0b1-2c3d-7e4f: try JWT"},
		{Report("turn 3 (fix auth)"), "Report since turn 3 (fix auth)"},
		{Rewind("code", "turn 3 (fix auth)", "", false), "Rewind to turn 3 (fix auth)"},
		{Rewind("", "checkpoint @base", "", true), "Rewind to checkpoint @base — undone"},
		{Rewind("both", "turn 3 (fix auth)", "", false), "Rewind to turn 3 (fix auth), code and conversation"},
		{Rewind("conversation", "the end of turn 2", "", false), "Rewind to the end of turn 2, conversation only"},
		{Rewind("revert", "turn 3 (fix auth)", "", false), "Revert turn 3 (fix auth), later changes kept"},
		{Rewind("revert", SessionTurns("6db2232a-b3c4"), "", true), "Revert the turns of session 6db2232a, later changes kept — undone"},
		{Rewind("conversation", "turn 2 (add a cache)", "Claude Code", false), "Claude Code rewound to turn 2 (add a cache), conversation only"},
		{Rewind("both", "turn 2", "Codex", true), "Codex rewound to turn 2, code and conversation — undone"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestAgentRewound(t *testing.T) {
	to := "turn 2 (add a cache…)"
	for _, c := range []struct {
		files, kept, offered []string
		want                 string
	}{
		{nil, nil, []string{"a.txt", "b.txt", "c.txt", "d.txt", "e.txt"},
			"Claude Code rewound its conversation to turn 2 (add a cache…) but restored no files; 5 files still differ: a.txt, b.txt, c.txt and 2 more."},
		{nil, nil, []string{"b.txt"},
			"Claude Code rewound its conversation to turn 2 (add a cache…) but restored no files; 1 file still differs: b.txt."},
		{[]string{"b.txt"}, []string{"c.txt"}, nil,
			"Claude Code rewound to turn 2 (add a cache…) and restored its own edits; rewind-lsp restored what its shell changed too: b.txt. Left as they are (changed since by someone else): c.txt."},
		{[]string{"b.txt", "d.txt"}, nil, nil,
			"Claude Code rewound to turn 2 (add a cache…) and restored its own edits; rewind-lsp restored what its shell changed too: b.txt, d.txt."},
		{nil, nil, nil, "Claude Code rewound its conversation to turn 2 (add a cache…); no file needed restoring."},
	} {
		if got := AgentRewound("Claude Code", to, c.files, c.kept, c.offered); got != c.want {
			t.Errorf("AgentRewound(files %v, kept %v, offered %v) =\n %q\nwant\n %q", c.files, c.kept, c.offered, got, c.want)
		}
	}
}
