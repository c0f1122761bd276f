package soak

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
)

func jsonMarshal(v any) ([]byte, error)   { return json.Marshal(v) }
func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// finish checks what only the end can show (every turn recorded once,
// fsck with the server running and after it stopped), stops the server
// and prints the table. The exit status is 1 when a promise was broken.
func (d *driver) finish(took time.Duration, turns int) {
	var all commands.ListResult
	if err := d.cmd(commands.NameList, map[string]any{"all": true}, &all); err != nil {
		d.fail("rewind.list all: %v", err)
	} else if len(all.Turns) != d.turns {
		var auto []string
		for _, t := range all.Turns {
			if t.Source == journal.SourceAuto && d.leave["auto"] {
				auto = append(auto, fmt.Sprintf("turn %d %q %v", t.Turn, t.Prompt, changedSet(t.Changed)))
			}
		}
		d.fail("the journal holds %d turns, the driver made %d (an automatic turn too many, or a turn lost) %v", len(all.Turns), d.turns, auto)
	}
	var st commands.StatusResult
	if err := d.cmd(commands.NameStatus, map[string]any{}, &st); err != nil {
		d.fail("rewind.status: %v", err)
	}
	live := d.run("", "--root", d.root, "fsck")
	d.ed.e.Conn.Call("shutdown", nil, nil)
	d.ed.e.Conn.Notify("exit", nil)
	select {
	case code := <-d.srv.Exit:
		if code != 0 {
			d.fail("the server exited with %d after shutdown", code)
		}
	case <-time.After(time.Minute):
		d.fail("the server did not exit after shutdown")
		d.srv.Proc.Kill()
	}
	stopped := d.run("", "--root", d.root, "fsck")
	if live.code != 0 {
		d.fail("fsck with the server running: exit %d: %s", live.code, live.stderr)
	}
	if stopped.code != 0 {
		d.fail("fsck after the server stopped: exit %d: %s", stopped.code, stopped.stderr)
	}
	storeDir := st.Store
	if storeDir == "" {
		storeDir = filepath.Join(d.home, "state")
	}

	p := func(f string, a ...any) { fmt.Printf(f+"\n", a...) }
	p("rewind-lsp soak — %s, %s in all", time.Now().UTC().Format("2006-01-02 15:04 UTC"), took.Round(time.Second))
	p("tree:     %d files (%d of them changed by the agents, plus the files they create under soak/)", len(d.m.initial), len(d.pool))
	var kinds []string
	total := map[string]int{}
	for _, w := range d.wins {
		for k, n := range w.counts {
			total[k] += n
		}
	}
	for k := range total {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var parts []string
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%s %d", k, total[k]))
	}
	p("turns:    %d (%s)", d.turns, strings.Join(parts, ", "))
	var ops []string
	var names []string
	for k := range d.counts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ops = append(ops, fmt.Sprintf("%s %d", k, d.counts[k]))
	}
	p("also:     %s", strings.Join(ops, ", "))
	p("          every rewind, undo and revert checked against the state the driver recorded for its target")
	p("          (changed files byte for byte, every other file by its stat, nothing missing or extra)")
	p("")
	head := fmt.Sprintf("%-13s %6s %16s %16s %16s %15s %9s %5s", "turns", "min", "lsp end p50/p99", "hook Stop p50/99", "shell end p50/99", "rss MB (median)", "store MB", "fails")
	p("%s", head)
	for _, w := range d.wins {
		pp := func(k string) string {
			return msText(percentile(w.ends[k], 0.5)) + " / " + msText(percentile(w.ends[k], 0.99))
		}
		p("%-13s %6.1f %16s %16s %16s %15s %9s %5d", fmt.Sprintf("%d–%d", w.from, w.to), w.took.Minutes(),
			pp("lsp"), pp("claude"), pp("shell"), mb(w.rss*1024)+" ("+mb(medianKB(w.rssSeen)*1024)+")", mb(w.store), w.failures)
	}
	p("(turn end in ms: lsp = rewind.turnEnd request to reply; hook Stop and shell end = the whole")
	p(" `rewind-lsp hook claude-code` / `rewind-lsp turn end` process, forwarded to the server)")
	p("")
	first, last := d.rssAt[1000], d.rssAt[turns]
	if first > 0 && last > 0 && turns > 1000 {
		// One sample swings with the Go heap's collections (a rewind of a
		// hundred files is a peak): the goal compares the medians of the
		// samples taken every tenth step in the first and the last window.
		m1, mn := medianKB(d.wins[0].rssSeen), medianKB(d.wins[len(d.wins)-1].rssSeen)
		ratio := float64(mn) / float64(m1)
		verdict := "ok"
		if ratio > 1.2 {
			verdict = "MISSED"
		}
		p("memory:   server VmRSS, median of turns %d–%d %s MB, of turns %d–%d %s MB: × %.2f (goal ≤ 1.2) %s; single samples at turn 1000 %s MB, at turn %d %s MB",
			d.wins[0].from, d.wins[0].to, mb(m1*1024), d.wins[len(d.wins)-1].from, d.wins[len(d.wins)-1].to, mb(mn*1024), ratio, verdict,
			mb(first*1024), turns, mb(last*1024))
	} else {
		p("memory:   server VmRSS at the end %s MB (the goal compares turn 1000 with turn 10000)", mb(last*1024))
	}
	// The budget bounds the objects (retention drops unpinned snapshots'
	// content); the journal and its view are the record, never dropped.
	objects := duBytes(filepath.Join(storeDir, "objects"))
	verdict := "within"
	if objects > d.budget {
		verdict = "OVER"
		if grace := gcGrace(); took < 5*grace {
			// Retention never drops what is younger than its grace: in a
			// run a few graces long most objects are.
			verdict = fmt.Sprintf("over, as it must be in a run of %s: retention leaves objects younger than its grace (REWIND_LSP_GC_GRACE, %s) alone",
				took.Round(time.Second), grace)
		} else if objects <= d.budget+d.budget/10 {
			// Retention brings the objects to three quarters of the budget,
			// but what is younger than its grace stays.
			verdict = fmt.Sprintf("over by less than a tenth: what is younger than retention's grace (%s) stays", gcGrace())
		}
	}
	p("store:    %s MB of objects against a budget of %s MB: %s (the whole store %s MB: journal %s MB, its view %s MB; %d labeled checkpoints, pinned; %d agent checkpoints, pinned while active)",
		mb(objects), mb(d.budget), verdict, mb(duBytes(storeDir)), mb(duBytes(filepath.Join(storeDir, "journal"))),
		mb(duBytes(filepath.Join(storeDir, "view"))), 1, d.counts["mcp checkpoints"])
	p("fsck:     with the server running: exit %d; after it stopped: exit %d%s", live.code, stopped.code, indent(stopped.stderr))
	if len(d.fails) == 0 {
		p("result:   PASS — no broken promise")
		return
	}
	p("result:   FAIL — %d broken promises:", len(d.fails))
	for i, f := range d.fails {
		if i == 30 {
			p("  … and %d more (soak.log)", len(d.fails)-30)
			break
		}
		p("  %s", f)
	}
	d.t.Fail()
}

func indent(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	return "\n          " + strings.ReplaceAll(s, "\n", "\n          ")
}

// gcGrace is the age below which retention leaves objects alone, as the
// server reads it (REWIND_LSP_GC_GRACE seconds; ten minutes without it).
func gcGrace() time.Duration {
	if v, err := strconv.ParseFloat(os.Getenv("REWIND_LSP_GC_GRACE"), 64); err == nil && v >= 0 {
		return time.Duration(v * float64(time.Second))
	}
	return 10 * time.Minute
}
