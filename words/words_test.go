package words

import (
	"strings"
	"testing"
	"time"
)

func TestAge(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	for ago, want := range map[time.Duration]string{
		-time.Minute:                    "0s ago", // a clock a little ahead
		0:                               "0s ago",
		42 * time.Second:                "42s ago",
		time.Minute:                     "1m ago",
		59*time.Minute + 59*time.Second: "59m ago",
		time.Hour:                       "1h ago",
		47 * time.Hour:                  "47h ago",
		48 * time.Hour:                  "2d ago",
		400 * 24 * time.Hour:            "400d ago",
	} {
		if got := Age(now.Add(-ago), now); got != want {
			t.Errorf("Age(now-%v) = %q, want %q", ago, got, want)
		}
	}
}

func TestPromptAndTitle(t *testing.T) {
	for _, c := range []struct{ prompt, title string }{
		{"refactor auth to JWT", "Turn 3: refactor auth to JWT"},
		{"  refactor auth\r\nthen the tests", "Turn 3: refactor auth…"},
		{"", "Turn 3"},
		{" \n ", "Turn 3"},
		{repeat("é", 101), "Turn 3: " + repeat("é", 79) + "…"},
	} {
		if got := Title(3, c.prompt); got != c.title {
			t.Errorf("Title(3, %q) = %q, want %q", c.prompt, got, c.title)
		}
	}
	if got := Prompt("a goal that is long", 7); got != "a goal…" {
		t.Errorf("Prompt cut at 7 = %q", got)
	}
}

func repeat(s string, n int) string {
	out := ""
	for i := 0; i < n; i++ {
		out += s
	}
	return out
}

func TestTarget(t *testing.T) {
	for _, c := range []struct {
		kind, label, prompt, id string
		turn                    int
		want                    string
	}{
		{"turnStart", "", "add a greeting\nplease", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 1, "turn 1 (add a greeting…)"},
		{"turnStart", "", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 2, "turn 2"},
		{"turnEnd", "", "add a greeting", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 1, "the end of turn 1 (add a greeting)"},
		{"checkpoint", "base", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 0, "checkpoint @base"},
		{"checkpoint", "", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 0, "checkpoint 0190a0b1-2c3d-7e4f"},
		{"rewind", "", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 1, "before the rewind"},
		{"revert", "", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 3, "before the revert"},
		{"", "", "", "0190a0b1-2c3d-7e4f-8a9b-0123456789ab", 0, "entry 0190a0b1-2c3d-7e4f"},
	} {
		if got := Target(c.kind, c.turn, c.label, c.prompt, c.id); got != c.want {
			t.Errorf("Target(%q, %d, %q, %q) = %q, want %q", c.kind, c.turn, c.label, c.prompt, got, c.want)
		}
	}
}

func TestWhatChangesAndLines(t *testing.T) {
	for _, c := range []struct {
		added, removed int
		kind, mode     string
		want           string
	}{
		{3, 1, "", "", "+3 -1"},
		{0, 0, "", "", "+0 -0"}, // an emptied file's counts are still counts
		{0, 0, "binary", "", "binary"},
		{0, 0, "symlink", "", "symlink"},
		{0, 0, "", "+x", "mode +x"},
		{2, 1, "", "-x", "+2 -1 mode -x"},
	} {
		if got := What(c.added, c.removed, c.kind, c.mode); got != c.want {
			t.Errorf("What(%d, %d, %q, %q) = %q, want %q", c.added, c.removed, c.kind, c.mode, got, c.want)
		}
	}
	if got := Changes(0, 0, 0); got != "no files changed" {
		t.Errorf("Changes(0) = %q", got)
	}
	if got := Changes(1, 0, 2); got != "1 file changed (+0 -2)" {
		t.Errorf("Changes(1) = %q", got)
	}
	if got := Changes(3, 4, 1); got != "3 files changed (+4 -1)" {
		t.Errorf("Changes(3) = %q", got)
	}
	if got := Changes(2, 0, 0); got != "2 files changed" {
		t.Errorf("Changes of a binary file and a link = %q, want no line counts", got)
	}
	for _, c := range []struct{ change, path, what, note, want string }{
		{"create", "logo.png", "binary", OnDisk, "A logo.png  binary  (written on disk)"},
		{"modify", "src/auth.go", "+12 -30", "", "M src/auth.go  +12 -30"},
		{"create", "logo.png", "binary", "", "A logo.png  binary"},
		{"delete", "old.txt", "+0 -2", Conflict(nil), "D old.txt  +0 -2  (conflict: changed since recorded)"},
		{"modify", "a.go", "", Conflict([]string{"turn 4", "user"}), "M a.go  (conflict: changed since by turn 4, user)"},
		{"rename", "x", "", "", "? x"},
	} {
		if got := Line(c.change, c.path, c.what, c.note); got != c.want {
			t.Errorf("Line(%q, %q, %q, %q) = %q, want %q", c.change, c.path, c.what, c.note, got, c.want)
		}
	}
	if got := Line("modify", "a", "+1 -1", Conflict(nil), "", OnDisk); got != "M a  +1 -1  (conflict: changed since recorded; written on disk)" {
		t.Errorf("a line with two notes = %q", got)
	}
}

func TestStepWords(t *testing.T) {
	for _, c := range []struct {
		turn, step   int
		tool, detail string
		want, target string
	}{
		{3, 2, "Bash", "npm test", `turn 3, step 2: Bash "npm test"`, `before step 2 of turn 3 (Bash "npm test")`},
		{3, 1, "Edit", "src/auth.go", `turn 3, step 1: Edit src/auth.go`, `before step 1 of turn 3 (Edit src/auth.go)`},
		{3, 4, "Bash", "", `turn 3, step 4: Bash`, `before step 4 of turn 3 (Bash)`},
		{3, 4, "", "", `turn 3, step 4`, `before step 4 of turn 3`},
		{1, 1, "Bash", "make\nall the things", `turn 1, step 1: Bash "make…"`, `before step 1 of turn 1 (Bash "make…")`},
	} {
		if got := Step(c.turn, c.step, c.tool, c.detail); got != c.want {
			t.Errorf("Step(%d, %d, %q, %q) = %q, want %q", c.turn, c.step, c.tool, c.detail, got, c.want)
		}
		if got := StepTarget(c.turn, c.step, c.tool, c.detail); got != c.target {
			t.Errorf("StepTarget(%d, %d, %q, %q) = %q, want %q", c.turn, c.step, c.tool, c.detail, got, c.target)
		}
		if got, want := StepName(c.turn, c.step, c.tool, c.detail), strings.TrimPrefix(c.target, "before "); got != want {
			t.Errorf("StepName(%d, %d, %q, %q) = %q, want %q", c.turn, c.step, c.tool, c.detail, got, want)
		}
	}
}
