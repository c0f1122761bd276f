package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestRewindRaceWithSymlinkSwap: while the
// command line's rewinds and undos write, another process keeps swapping
// the folder they write into for a symbolic link to a folder outside the
// root. Whatever each run then does (it may fail, or restore the link a
// capture saw), nothing outside the root is written, created or removed.
func TestRewindRaceWithSymlinkSwap(t *testing.T) {
	w := newWS(t)
	outside := t.TempDir()
	const files = 20
	name := func(i int) string { return fmt.Sprintf("f%02d.txt", i) }
	for i := 0; i < files; i++ {
		w.Write("dir/"+name(i), fmt.Sprintf("before %d\n", i))
		// Files of the same names outside: what a followed link overwrites.
		if err := os.WriteFile(filepath.Join(outside, name(i)), []byte("outside\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w.turn("change dir", func() {
		for i := 0; i < files; i++ {
			w.Write("dir/"+name(i), fmt.Sprintf("after %d\n", i))
		}
		w.Write("dir/new.txt", "created by the agent\n")
	})

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // dir: a folder, then a link outside, then a folder…
		defer wg.Done()
		d := filepath.Join(w.Root, "dir")
		for !stop.Load() {
			os.RemoveAll(d)
			os.Mkdir(d, 0o755)
			os.RemoveAll(d)
			os.Symlink(outside, d)
		}
	}()
	tries := 150
	if testing.Short() {
		tries = 40
	}
	codes := map[int]int{}
	for try := 0; try < tries; try++ {
		args := []string{"rewind", "1", "--force"}
		if try%2 == 1 {
			args = []string{"undo", "--force"}
		}
		codes[w.run(args...).code]++
	}
	stop.Store(true)
	wg.Wait()
	t.Logf("exit statuses of %d runs: %v", tries, codes)

	ents, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	var problems []string
	for _, e := range ents {
		data, _ := os.ReadFile(filepath.Join(outside, e.Name()))
		if !strings.HasPrefix(e.Name(), "f") || len(e.Name()) != len("f00.txt") {
			problems = append(problems, "written outside the root: "+e.Name())
		} else if string(data) != "outside\n" {
			problems = append(problems, fmt.Sprintf("changed outside the root: %s = %q", e.Name(), data))
		}
	}
	if len(ents) < files {
		problems = append(problems, fmt.Sprintf("%d of the %d files outside the root were removed", files-len(ents), files))
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Fatalf("%d problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}
