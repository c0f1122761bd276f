package textdiff

import (
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLineDiffAppliesWithGit: the unified diff text of random edits applies
// with `git apply` and gives the target byte for byte; the counts match.
func TestLineDiffAppliesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	r := rand.New(rand.NewSource(3))
	lines := []string{"alpha\n", "beta\n", "gamma\r\n", "\n", "δέλτα 😀\n", "epsilon", "zeta\n"}
	gen := func() string {
		var b strings.Builder
		for i := r.Intn(40); i > 0; i-- {
			b.WriteString(lines[r.Intn(len(lines)-1)])
		}
		if r.Intn(3) == 0 {
			b.WriteString("no final newline")
		}
		return b.String()
	}
	for i := 0; i < 150; i++ {
		before, after := gen(), gen()
		if r.Intn(2) == 0 { // small edits of the same text
			after = strings.Replace(before, "beta\n", "BETA\n", 1) + "tail\n"
		}
		if before == after {
			continue
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "f"), []byte(before), 0o644)
		added, removed, text := LineDiff("a/f", "b/f", before, after)
		os.WriteFile(filepath.Join(dir, "p.diff"), []byte(text), 0o644)
		cmd := exec.Command("git", "apply", "--unsafe-paths", "--directory=", "p.diff")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("case %d: git apply: %v %s\nbefore %q\nafter %q\ndiff:\n%s", i, err, out, before, after, text)
		}
		got, _ := os.ReadFile(filepath.Join(dir, "f"))
		if string(got) != after {
			t.Fatalf("case %d: applied diff gives %q, want %q\n%s", i, got, after, text)
		}
		plus, minus := 0, 0
		for _, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "+") && !strings.HasPrefix(l, "+++") {
				plus++
			}
			if strings.HasPrefix(l, "-") && !strings.HasPrefix(l, "---") {
				minus++
			}
		}
		if plus != added || minus != removed {
			t.Fatalf("case %d: counts +%d -%d, text has +%d -%d", i, added, removed, plus, minus)
		}
	}
	_ = fmt.Sprint
}
