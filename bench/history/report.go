package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
)

// row is one line of the table: a measure, how its value is read from a
// result, and whether the goal applies.
type row struct {
	key, label string
	unit       string // "ms", "MB" (memory, from kB), "info-MB", "info-KB"
	cpu        bool   // the CPU samples instead of the wall
	section    string
	short      string // the section's name in the list of misses
}

var rows = []row{
	{section: "no server (each a new process, timed from its start to its exit)", short: "no server"},
	{key: "status", label: "status", unit: "ms"},
	{key: "log", label: "log --limit 20", unit: "ms"},
	{key: "turn pair", label: "turn start + turn end (1 file changed between)", unit: "ms"},
	{key: "turn start", label: "  turn start", unit: "ms"},
	{key: "turn end", label: "  turn end", unit: "ms"},
	{key: "hook pair", label: "hook claude-code UserPromptSubmit + Stop", unit: "ms"},
	{key: "hook prompt", label: "  UserPromptSubmit", unit: "ms"},
	{key: "hook stop", label: "  Stop", unit: "ms"},
	{key: "rewind", label: "rewind N (10 files)", unit: "ms"},
	{key: "undo", label: "undo (10 files)", unit: "ms"},
	{section: "a language server runs for the root (the command line forwards to it)", short: "server"},
	{key: "server ready", label: "server start: spawn -> rewind.status not starting", unit: "ms"},
	{key: "server initialize", label: "  spawn -> initialize answered", unit: "ms"},
	{key: "srv turn pair", label: "turn start + turn end", unit: "ms"},
	{key: "srv turn start", label: "  turn start", unit: "ms"},
	{key: "srv turn end", label: "  turn end", unit: "ms"},
	{key: "srv hook pair", label: "hook UserPromptSubmit + Stop", unit: "ms"},
	{key: "srv hook prompt", label: "  UserPromptSubmit", unit: "ms"},
	{key: "srv hook stop", label: "  Stop", unit: "ms"},
	{key: "list", label: "rewind.list {limit: 50}, LSP round trip", unit: "ms"},
	{key: "didChange after turn end", label: "rewind/didChange: arrival after turn end exited", unit: "ms"},
	{key: "srv cpu per turn end", label: "server CPU per turn end, its didChange included", unit: "ms"},
	{key: "srv rewind", label: "rewind N (10 files)", unit: "ms"},
	{key: "srv undo", label: "undo (10 files)", unit: "ms"},
	{key: "VmRSS", label: "server VmRSS after the measures, MB", unit: "MB"},
	{key: "VmHWM", label: "server VmHWM (peak), MB", unit: "MB"},
	{section: "store (no goal)", short: "store"},
	{key: "journal", label: "journal, MB (before the measures)", unit: "info-MB"},
	{key: "other", label: "other store files (not objects/, not journal), KB", unit: "info-KB"},
	{key: "objects", label: "objects/, MB", unit: "info-MB"},
}

var cpuRows = []row{
	{key: "status", label: "status", cpu: true, unit: "ms"},
	{key: "log", label: "log --limit 20", cpu: true, unit: "ms"},
	{key: "turn pair", label: "turn start + turn end", cpu: true, unit: "ms"},
	{key: "hook pair", label: "hook UserPromptSubmit + Stop", cpu: true, unit: "ms"},
	{key: "rewind", label: "rewind N (10 files)", cpu: true, unit: "ms"},
	{key: "undo", label: "undo (10 files)", cpu: true, unit: "ms"},
	{key: "srv turn pair", label: "turn start + turn end, server running (cli only)", cpu: true, unit: "ms"},
	{key: "srv hook pair", label: "hook pair, server running (cli only)", cpu: true, unit: "ms"},
	{key: "list", label: "rewind.list {limit: 50}: the server's CPU", cpu: true, unit: "ms"},
}

func median(v []int64) (float64, bool) {
	if len(v) == 0 {
		return 0, false
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 1 {
		return float64(s[len(s)/2]), true
	}
	return float64(s[len(s)/2-1]+s[len(s)/2]) / 2, true
}

// value is the row's median in its unit.
func value(r *Result, w row) (float64, int, bool) {
	switch w.key {
	case "journal":
		return float64(r.JournalBytes) / 1e6, 0, true
	case "other":
		return float64(r.OtherBytes) / 1e3, 0, true
	case "objects":
		return float64(r.ObjectsBytes) / 1e6, 0, true
	}
	s := r.Series[w.key]
	if s == nil {
		return 0, 0, false
	}
	v := s.Wall
	if w.cpu {
		v = s.CPU
	}
	m, ok := median(v)
	if !ok {
		return 0, 0, false
	}
	if w.unit == "MB" {
		return m / 1024, len(v), true
	}
	return m / 1000, len(v), true // µs → ms
}

func format(v float64, unit string) string {
	switch {
	case unit == "MB" || unit == "info-MB" && v >= 100:
		return fmt.Sprintf("%.0f", v)
	case unit == "info-MB" || unit == "info-KB":
		return fmt.Sprintf("%.1f", v)
	case math.Abs(v) < 10:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.1f", v)
	}
}

// judge says whether long against short meets the goal: at most 1.2
// times, or within 3 ms (16 MB for memory).
func judge(short, long float64, unit string) (string, bool) {
	slack := 3.0
	if unit == "MB" {
		slack = 16
	}
	ratio := "-"
	if short > 0 {
		ratio = fmt.Sprintf("%.2f", long/short)
		if long/short >= 100 {
			ratio = fmt.Sprintf("%.0f", long/short)
		} else if long/short >= 10 {
			ratio = fmt.Sprintf("%.1f", long/short)
		}
	}
	ok := long-short <= slack || short > 0 && long/short <= 1.2
	return ratio, ok
}

func turnsName(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func reportMain(files []string) error {
	rs, err := readResults(files)
	if err != nil {
		return err
	}
	out := &bytes.Buffer{}
	defer func() {
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			fmt.Println(strings.TrimRight(l, " "))
		}
	}()
	base := rs[0]
	const lw = 54
	header := func(title string, ratios bool) {
		fmt.Fprintf(out, "%-*s", lw, title)
		for _, r := range rs {
			fmt.Fprintf(out, " %9s", turnsName(r.Turns))
		}
		if ratios {
			for _, r := range rs[1:] {
				fmt.Fprintf(out, " %-14s", " "+turnsName(r.Turns)+"/"+turnsName(base.Turns))
			}
		}
		fmt.Fprintln(out)
	}
	type miss struct {
		label       string
		ratio       string
		short, long float64
		unit        string
	}
	var missed []miss
	var cuts []string
	section := ""
	header("median (ms unless said), turns:", len(rs) > 1)
	for _, w := range rows {
		if w.section != "" {
			section = w.short
			fmt.Fprintln(out, w.section)
			continue
		}
		fmt.Fprintf(out, "  %-*s", lw-2, w.label)
		vals := make([]float64, len(rs))
		have := make([]bool, len(rs))
		for i, r := range rs {
			v, _, ok := value(r, w)
			vals[i], have[i] = v, ok
			cell := "-"
			if ok {
				cell = format(v, w.unit)
				if s := r.Series[w.key]; s != nil && s.Cut > 0 {
					cell = ">" + cell // a floor: a hook gave up at its time limit
					cuts = append(cuts, fmt.Sprintf("%s, %s turns: %d of %d runs ended at the hook's time limit (4.5 s: \"gave up\", the event may not be recorded)",
						strings.TrimSpace(w.label), turnsName(r.Turns), s.Cut, len(s.Wall)))
				}
			}
			fmt.Fprintf(out, " %9s", cell)
		}
		for i := 1; i < len(rs); i++ {
			if !have[0] || !have[i] {
				fmt.Fprintf(out, " %7s %-6s", "-", "")
				continue
			}
			ratio, ok := judge(vals[0], vals[i], w.unit)
			if strings.HasPrefix(w.unit, "info") {
				fmt.Fprintf(out, " %7s %-6s", ratio, "")
				continue
			}
			flag := "ok"
			if !ok {
				flag = "MISSED"
			}
			fmt.Fprintf(out, " %7s %-6s", ratio, flag)
			if !ok && i == len(rs)-1 {
				missed = append(missed, miss{label: section + ": " + strings.TrimSpace(w.label), ratio: ratio,
					short: vals[0], long: vals[i], unit: w.unit})
			}
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	header("CPU of the process(es), median ms:", false)
	for _, w := range cpuRows {
		fmt.Fprintf(out, "  %-*s", lw-2, w.label)
		for _, r := range rs {
			cell := "-"
			if v, _, ok := value(r, w); ok {
				cell = format(v, w.unit)
			}
			fmt.Fprintf(out, " %9s", cell)
		}
		fmt.Fprintln(out)
	}
	fmt.Fprintln(out)
	runs := []string{}
	for _, r := range rs {
		lo, hi := 0, 0
		for k, s := range r.Series {
			switch k {
			case "server ready", "server initialize", "VmRSS", "VmHWM":
				continue // one sample each
			}
			if lo == 0 || len(s.Wall) < lo {
				lo = len(s.Wall)
			}
			hi = max(hi, len(s.Wall))
		}
		runs = append(runs, fmt.Sprintf("%s: %d–%d", turnsName(r.Turns), lo, hi))
	}
	fmt.Fprintf(out, "runs per measure (fewest–most; server start and memory: one): %s\n", strings.Join(runs, ", "))
	if len(rs) > 1 {
		last := rs[len(rs)-1]
		fmt.Fprintf(out, "goal: every measure at %s turns within 1.2x of %s turns, or within 3 ms (memory: 16 MB)\n",
			turnsName(last.Turns), turnsName(base.Turns))
		if len(missed) == 0 {
			fmt.Fprintln(out, "result: every measure meets it")
		} else {
			fmt.Fprintf(out, "result: %d measures miss it at %s turns:\n", len(missed), turnsName(last.Turns))
			for _, m := range missed {
				u := "ms"
				if m.unit == "MB" {
					u = "MB"
				}
				fmt.Fprintf(out, "  %-64s %s -> %s %s (x%s)\n", m.label, format(m.short, m.unit), format(m.long, m.unit), u, m.ratio)
			}
		}
	}
	if len(cuts) > 0 {
		fmt.Fprintln(out, "> a floor: some runs of the measure were cut short by the hook's own time limit:")
		for _, c := range cuts {
			fmt.Fprintln(out, "  "+c)
		}
	}
	for _, r := range rs {
		for _, n := range r.Notes {
			fmt.Fprintf(out, "note (%s turns): %s\n", turnsName(r.Turns), n)
		}
		if len(r.OtherFiles) > 0 {
			fmt.Fprintf(out, "other store files (%s turns): %s\n", turnsName(r.Turns), strings.Join(r.OtherFiles, ", "))
		}
	}
	return nil
}

func readResults(files []string) ([]*Result, error) {
	var rs []*Result
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var r Result
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		rs = append(rs, &r)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("no results")
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Turns < rs[j].Turns })
	return rs, nil
}

// uptimesMain prints the load before and after each length's measures.
func uptimesMain(files []string) error {
	rs, err := readResults(files)
	if err != nil {
		return err
	}
	for _, r := range rs {
		name := turnsName(r.Turns)
		fmt.Printf("uptime %s: before: %s\n", name, r.Uptime[0])
		fmt.Printf("%*s  after:  %s   (%.0f s of measures)\n", len("uptime "+name), "", r.Uptime[1], r.Seconds)
	}
	return nil
}
