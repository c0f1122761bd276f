package e2e_test

import (
	"strings"
	"testing"
)

// TestUnknownPathsAreErrors: a path that
// names no file of the plan is a bad argument, never a silent no-op: the
// rewind (and its dry run) and diff exit 2 naming the path, change nothing
// and record nothing — run alone and through a running server.
func TestUnknownPathsAreErrors(t *testing.T) {
	for _, server := range []bool{false, true} {
		name := "alone"
		if server {
			name = "server"
		}
		t.Run(name, func(t *testing.T) {
			w := newWS(t)
			w.Write("a.txt", "before\n")
			w.turn("change a", func() { w.Write("a.txt", "after\n") })
			if server {
				w.startServer()
				w.served()
			}
			for _, c := range []struct {
				args []string
				path string
			}{
				{[]string{"rewind", "1", "--paths", "nope.txt"}, "nope.txt"},
				{[]string{"rewind", "1", "--paths", "a.txt,nope.txt"}, "nope.txt"},
				{[]string{"rewind", "1", "--paths", "nope.txt", "--dry-run"}, "nope.txt"},
				{[]string{"diff", "1", "nonexistent.txt"}, "nonexistent.txt"},
				{[]string{"diff", "1", "a.txt", "sub/nonexistent.txt"}, "sub/nonexistent.txt"},
				{[]string{"--json", "diff", "1", "nonexistent.txt"}, "nonexistent.txt"},
			} {
				r := w.run(c.args...)
				if r.code != 2 || !strings.Contains(r.stderr, c.path) || r.stdout != "" {
					t.Errorf("rewind-lsp %s: exit %d, stdout %q, stderr %q; want exit 2 and an error naming %s",
						strings.Join(c.args, " "), r.code, r.stdout, r.stderr, c.path)
				}
			}
			if got := w.Read("a.txt"); got != "after\n" {
				t.Fatalf("a refused rewind changed a.txt: %q", got)
			}
			var list struct{ Rewinds []any }
			w.okJSON(&list, "log")
			if len(list.Rewinds) != 0 {
				t.Fatalf("a refused rewind was recorded: %+v", list.Rewinds)
			}
			// The paths that exist still work.
			if r := w.ok("diff", "1", "a.txt"); !strings.Contains(r.stdout, "-after") {
				t.Fatalf("diff 1 a.txt: %q", r.stdout)
			}
			w.ok("rewind", "1", "--paths", "a.txt")
			if got := w.Read("a.txt"); got != "before\n" {
				t.Fatalf("rewind 1 --paths a.txt: a.txt is %q", got)
			}
		})
	}
}
