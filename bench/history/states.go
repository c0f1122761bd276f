package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/fileop"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

// States are the real states a seed root went through: State[0] before
// its first turn, State[i] at the end of turn i. A file only ever grows by
// whole lines (or appears, or goes), so what a file holds in one state is
// its line count there, and two states differ in a file exactly when its
// count differs.
type States struct {
	Seed   uint64  `json:"seed"`
	Files  int     `json:"files"`
	States []State `json:"states"`
	// Scratch are files the seed turns never change: the measurements
	// change them.
	Scratch []string `json:"scratch"`
}

// State is one recorded state: its snapshot and each file's line count.
type State struct {
	Snap  string         `json:"snap"`
	Files map[string]int `json:"files"`
}

// diff lists the files that differ from a to b, as a turn's changes
// (sorted by path).
func diff(a, b State) []journal.Change {
	var out []journal.Change
	for p, n := range b.Files {
		m, ok := a.Files[p]
		switch {
		case !ok:
			out = append(out, journal.Change{Path: p, Change: "add", Added: n})
		case m != n:
			out = append(out, journal.Change{Path: p, Change: fileop.Modify, Added: max(n-m, 0), Removed: max(m-n, 0)})
		}
	}
	for p, m := range a.Files {
		if _, ok := b.Files[p]; !ok {
			out = append(out, journal.Change{Path: p, Change: fileop.Delete, Removed: m})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

func paths(cs []journal.Change) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Path
	}
	return out
}

var words = strings.Fields(`the of a to in is that for it as with was on be by at this from or
an are which but not have has one all were when there can more if out so what up its about into
than them only other new some could time these two may then do first any my now such like our
over man me even most made after also did many before must through back years where much your way
well down should because each just those people how too little state good very make world still own
see men work long get here between both life being under never day same another know while last
might us great old year off come since against go came right used take three states himself few
house use during without again place around however home small found thought went say part once
general high upon school every don does got united left number course war until always away something
fact though water less public put think almost hand enough far took head yet government system
buffer cache index journal parser writer reader handler request response client server config`)

// line is line j of path's base text (the seed's content, fixed by path).
func line(rng *rand.Rand, p string, j int) string {
	n := 4 + rng.IntN(9)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = words[rng.IntN(len(words))]
	}
	return fmt.Sprintf("// %s:%d %s", path.Base(p), j+1, strings.Join(ws, " "))
}

// edit is the k-th line a seed turn appended to p (k from 1).
func edit(p string, k int) string { return fmt.Sprintf("// edit %d of %s by a seed turn", k, p) }

func writeFile(root, p string, lines []string) error {
	full := filepath.Join(root, filepath.FromSlash(p))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return err
	}
	return os.WriteFile(full, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func statesMain(args []string) error {
	fs := flag.NewFlagSet("states", flag.ExitOnError)
	bin := fs.String("bin", "", "the rewind-lsp binary")
	dir := fs.String("dir", "", "the folder to create (root, store, states.json)")
	nfiles := fs.Int("files", 300, "files in the root")
	turns := fs.Int("turns", 20, "real turns (each a new state)")
	seed := fs.Uint64("seed", 1, "seed of the files and the changes")
	fs.Parse(args)
	if *bin == "" || *dir == "" {
		return fmt.Errorf("states: -bin and -dir are required")
	}
	d, err := filepath.Abs(*dir)
	if err != nil {
		return err
	}
	root, storeDir := filepath.Join(d, "root"), filepath.Join(d, "store")
	if err := removeTree(d); err != nil {
		return err
	}
	p := proc{bin: *bin, home: filepath.Join(d, "home")}
	for _, f := range []string{root, storeDir, p.home} {
		if err := os.MkdirAll(f, 0o755); err != nil {
			return err
		}
	}
	if out, err := exec.Command("git", "-C", root, "init", "-q").CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	rng := rand.New(rand.NewPCG(*seed, 0x5eed))

	// The files: 30 folders of a few languages; the last folder is the
	// scratch the measurements change.
	exts := []string{".go", ".ts", ".py", ".md", ".rs", ".java"}
	lines := map[string]int{} // the current state
	base := map[string]int{}
	var changeable, scratch []string
	for i := 0; i < *nfiles; i++ {
		folder := i % 30
		p := fmt.Sprintf("pkg%02d/sub%d/file%03d%s", folder, i%3, i, exts[i%len(exts)])
		if folder == 29 {
			p = fmt.Sprintf("scratch/file%03d.txt", i)
		}
		n := 20 + rng.IntN(100)
		text := make([]string, n)
		for j := range text {
			text[j] = line(rng, p, j)
		}
		if err := writeFile(root, p, text); err != nil {
			return err
		}
		lines[p], base[p] = n, n
		if folder == 29 {
			scratch = append(scratch, p)
		} else {
			changeable = append(changeable, p)
		}
	}
	if len(scratch) < 10 {
		return fmt.Errorf("states: %d files leave %d scratch files; at least 300 are needed", *nfiles, len(scratch))
	}
	appendLine := func(p string) error {
		f, err := os.OpenFile(filepath.Join(root, filepath.FromSlash(p)), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		lines[p]++
		_, err = fmt.Fprintln(f, edit(p, lines[p]-base[p]))
		return err
	}

	snapshotOf := func() map[string]int {
		m := make(map[string]int, len(lines))
		for k, v := range lines {
			m[k] = v
		}
		return m
	}
	counts := []map[string]int{snapshotOf()}
	for t := 1; t <= *turns; t++ {
		if _, err := p.cli(root, storeDir, "turn", "start", "--prompt", fmt.Sprintf("seed turn %d", t)); err != nil {
			return err
		}
		// 2 to 4 files get a line; sometimes a file appears or goes.
		for k := 2 + rng.IntN(3); k > 0; k-- {
			if err := appendLine(changeable[rng.IntN(len(changeable))]); err != nil {
				return err
			}
		}
		if rng.IntN(5) == 0 {
			p := fmt.Sprintf("pkg%02d/added_by_turn_%d.go", rng.IntN(29), t)
			n := 10 + rng.IntN(30)
			text := make([]string, n)
			for j := range text {
				text[j] = line(rng, p, j)
			}
			if err := writeFile(root, p, text); err != nil {
				return err
			}
			lines[p], base[p] = n, n
		}
		if rng.IntN(7) == 0 {
			i := rng.IntN(len(changeable))
			p := changeable[i]
			if err := os.Remove(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				return err
			}
			delete(lines, p)
			changeable = append(changeable[:i], changeable[i+1:]...)
		}
		if _, err := p.cli(root, storeDir, "turn", "end"); err != nil {
			return err
		}
		counts = append(counts, snapshotOf())
	}

	// The states, from the journal: turn 1's start, then each turn's end
	// (the next turn's start, as nothing changed between turns).
	ents, bad, err := journal.Open(storeDir).ReadAll()
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("states: the journal has %d damaged lines", len(bad))
	}
	var snaps []string
	for _, e := range ents {
		switch e.Kind {
		case journal.KindTurnStart:
			if len(snaps) == 0 {
				snaps = append(snaps, e.Snapshot.String())
			} else if e.Snapshot.String() != snaps[len(snaps)-1] {
				return fmt.Errorf("states: turn %d starts at %s, the turn before ended at %s", e.Turn, e.Snapshot, snaps[len(snaps)-1])
			}
		case journal.KindTurnEnd:
			snaps = append(snaps, e.Snapshot.String())
		}
	}
	if len(snaps) != *turns+1 {
		return fmt.Errorf("states: %d states recorded, want %d", len(snaps), *turns+1)
	}
	st := make([]State, len(snaps))
	for i := range snaps {
		st[i] = State{Snap: snaps[i], Files: counts[i]}
	}
	for i := 1; i < len(st); i++ {
		if len(diff(st[i-1], st[i])) == 0 {
			return fmt.Errorf("states: turn %d changed nothing", i)
		}
	}
	sort.Strings(scratch)
	out := States{Seed: *seed, Files: *nfiles, States: st, Scratch: scratch}
	b, err := json.MarshalIndent(out, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(d, "states.json"), b, 0o644)
}
