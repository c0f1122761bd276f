package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"
)

// med is the median of a measure in ms: wall, CPU, and whether there
// were samples.
func (b *bench) med(key string) (wall, cpu float64, ok bool) {
	s := b.series[key]
	if s == nil {
		return 0, 0, false
	}
	w, ok := median(s.Wall)
	c, _ := median(s.CPU)
	return w / 1000, c / 1000, ok
}

func f2(v float64) string { return fmt.Sprintf("%.2f", v) }

// wc is "wall (cpu)" of a measure, "-" without samples.
func (b *bench) wc(key string) string {
	w, c, ok := b.med(key)
	if !ok {
		return "-"
	}
	if len(b.series[key].CPU) == 0 {
		return f2(w)
	}
	return fmt.Sprintf("%s (%s)", f2(w), f2(c))
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

type goalRow struct {
	goal, tree, value, limit, result, ref string
}

// judge is "ok", or "MISSED by N%".
func judge(v, limit float64) string {
	if v <= limit {
		return "ok"
	}
	return fmt.Sprintf("MISSED by %.0f%%", (v/limit-1)*100)
}

func (b *bench) report(w io.Writer, cmdline, binWhat, baseWhat string) {
	p := func(format string, a ...any) { fmt.Fprintf(w, format+"\n", a...) }
	host, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	p("")
	p("rewind-lsp steps benchmark — %s", time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	p("command:  %s", cmdline)
	p("binary:   %s, %s", b.info["version"], binWhat)
	if b.base != "" {
		p("base:     %s, %s", b.info["base version"], baseWhat)
	}
	p("machine:  %d cores, Linux %s, %s", runtime.NumCPU(), strings.TrimSpace(string(host)), runtime.Version())
	for _, t := range b.trees {
		p("tree %-4s %s — %d tracked files in a git repository (committed, packed)", t+":", b.treeWhat[t], b.treeFiles[t])
	}
	for _, u := range b.uptimes {
		p("uptime    %s", u)
	}
	el := time.Since(b.t0)
	p("run:      %d min %d s in all (the driver; builds and trees before it not counted)", int(el.Minutes()), int(el.Seconds())%60)
	p("runs:     median of %d after one warm-up", b.n)
	var goals []goalRow

	// (1)
	if len(b.trees) > 0 {
		p("")
		p("(1) a step through a running server, a turn of one session open (rewind.turnStart), each step from an")
		p("    idle server: rewind.toolCall pre, the file changed, rewind.toolCall post, as a workspace/executeCommand")
		p("    over LSP (as an editor or an agent reports its calls), or over the store's socket as a hook forwards")
		p("    it (commands.Remote, the command line's own client: a connection per call); wall: request -> answer;")
		p("    cpu: the server's, all its threads (schedstat)")
		hdr := fmt.Sprintf("%-58s", "median, ms")
		for _, t := range b.trees {
			hdr += fmt.Sprintf(" %20s", t+" wall (cpu)")
		}
		p("%s", hdr)
		row := func(label string, val func(t string) string) {
			line := fmt.Sprintf("%-58s", label)
			for _, t := range b.trees {
				line += fmt.Sprintf(" %20s", val(t))
			}
			p("%s", line)
		}
		row("server ready: first capture, empty store, s", func(t string) string {
			w, _, ok := b.med(t + " ready")
			if !ok {
				return "-"
			}
			return fmt.Sprintf("%.1f (%s)", w/1000, b.info[t+" watchMode"])
		})
		for _, tool := range []string{"write", "bash", "write-socket"} {
			what := map[string]string{"write": "Write step, LSP: pre {paths: [f]}", "bash": "Bash step, LSP: pre {capture: true}",
				"write-socket": "Write step, the socket: pre {paths: [f]}"}[tool]
			row(what, func(t string) string { return b.wc(t + " " + tool + " pre") })
			row("  post: the step recorded", func(t string) string { return b.wc(t + " " + tool + " post") })
			var traces []string
			for k := range b.series {
				for _, t := range b.trees {
					if name, ok := strings.CutPrefix(k, t+" "+tool+" post trace "); ok && !contains(traces, name) {
						traces = append(traces, name)
					}
				}
			}
			sort.Strings(traces)
			for _, name := range traces {
				row("    server trace of the post: "+name, func(t string) string {
					w, _, ok := b.med(t + " " + tool + " post trace " + name)
					if !ok {
						return "-"
					}
					return f2(w)
				})
			}
		}
		row("server VmRSS / VmHWM after, MB", func(t string) string {
			r, _, ok1 := b.med(t + " VmRSS")
			h, _, ok2 := b.med(t + " VmHWM")
			if !ok1 || !ok2 {
				return "-"
			}
			return fmt.Sprintf("%.0f / %.0f", r*1000/1024, h*1000/1024)
		})
		for _, t := range b.trees {
			limit := map[string]float64{"11k": 2, "500k": 5}[t]
			for _, k := range []struct{ key, label string }{
				{"write post", "Write step's post through the server, ms"},
				{"write pre", "Write step's pre through the server, ms"},
				{"bash post", "Bash step's post through the server, ms"},
				{"bash pre", "Bash step's pre through the server, ms"},
				{"write-socket post", "the same Write post over the socket, ms"},
				{"write-socket pre", "the same Write pre over the socket, ms"},
			} {
				w, c, ok := b.med(t + " " + k.key)
				if !ok {
					continue
				}
				goals = append(goals, goalRow{k.label, t, f2(w), fmt.Sprintf("<= %.0f", limit), judge(w, limit),
					fmt.Sprintf("(1) wall; server cpu %s", f2(c))})
			}
		}
	}

	// (2)
	if _, _, ok := b.med("hook bin write pair"); ok {
		p("")
		p("(2) rewind-lsp hook claude-code: a tool call's PreToolUse + PostToolUse, a server running on the root (each")
		p("    binary its own copy of the tree, a fresh store, its own server; the two alternate); each from an idle server;")
		p("    wall: the hook process, start to exit; cpu: the process's (rusage) + the server's over its life (schedstat)")
		p("%-44s %20s %20s %14s", "median, ms", "this binary", "base", "ratio")
		for _, tool := range []string{"write", "bash"} {
			T := map[string]string{"write": "Write", "bash": "Bash"}[tool]
			for _, k := range []struct{ key, label string }{
				{"pre", T + ": PreToolUse"}, {"post", T + ": PostToolUse"}, {"pair", T + ": the pair"},
				{"pair cli", "  cpu of the pair: the hook processes"}, {"pair srv", "  cpu of the pair: the server"},
			} {
				a, ac, _ := b.med("hook bin " + tool + " " + k.key)
				z, zc, _ := b.med("hook base " + tool + " " + k.key)
				switch k.key {
				case "pair cli", "pair srv":
					p("%-44s %20s %20s %14s", k.label, f2(ac), f2(zc), ratio(ac, zc))
				default:
					p("%-44s %20s %20s %14s", k.label, fmt.Sprintf("%s (%s)", f2(a), f2(ac)), fmt.Sprintf("%s (%s)", f2(z), f2(zc)),
						fmt.Sprintf("%s (%s)", ratio(a, z), ratio(ac, zc)))
				}
			}
			a, ac, _ := b.med("hook bin " + tool + " pair")
			z, zc, _ := b.med("hook base " + tool + " pair")
			goals = append(goals, goalRow{T + " hook pair / the base binary's", "11k", ratio(a, z), "<= 1.2", judge(a/z, 1.2),
				fmt.Sprintf("(2) wall; cpu %s", ratio(ac, zc))})
		}
		p("    the base binary installs no PreToolUse hook for Claude Code's file tools; its Write PreToolUse is what the")
		p("    same event costs it when it does run (it asks the server about the session's own rewind, records nothing)")
	}

	// (3)
	if len(b.growth) > 0 {
		p("")
		zwhat := "zstd -3 (the C tool, " + b.zstdCLI + "), file by file"
		if b.zstdCLI == "" {
			zwhat = "klauspost/compress zstd SpeedDefault (level 3), file by file"
		}
		p("(3) store growth per step: a Bash step through the server (pre and post capture) that appends a block")
		p("    (60 lines, <= 4 KiB) of another file's text to 10 files; du -sb of the store before and after, the")
		p("    server idle and the size still for 300 ms; against %s of the 10 files' new content", zwhat)
		p("    (go zstd: the same with the store's own compressor, klauspost/compress at SpeedDefault, no checksum;")
		p("    the growth's parts: the files' sizes, without folders, in journal, objects/, view/ and the rest)")
		p("%-6s %6s %12s %11s %9s %10s %7s %9s %10s %8s %8s %12s", "step", "files", "new content", "compressed", "go zstd", "growth", "ratio",
			"journal", "objects", "view", "rest", "store after")
		var ratios []int64
		for i, g := range b.growth {
			r := float64(g.Growth) / float64(g.Zstd)
			ratios = append(ratios, int64(r*1e6))
			p("%-6d %6d %12d %11d %9d %10d %7.2f %9d %10d %8d %8d %12d", i+1, g.Files, g.NewBytes, g.Zstd, g.ZstdGo, g.Growth, r,
				g.Parts["journal"], g.Parts["objects"], g.Parts["view"], g.Parts["other"], g.StoreAfter)
		}
		m, _ := median(ratios)
		var gs, zs []int64
		for _, g := range b.growth {
			gs = append(gs, g.Growth)
			zs = append(zs, g.Zstd)
		}
		mg, _ := median(gs)
		mz, _ := median(zs)
		med := func(part string) float64 {
			var v []int64
			for _, g := range b.growth {
				v = append(v, g.Parts[part])
			}
			x, _ := median(v)
			return x
		}
		var gz []int64
		for _, g := range b.growth {
			gz = append(gz, g.ZstdGo)
		}
		mgz, _ := median(gz)
		p("%-6s %6s %12s %11.0f %9.0f %10.0f %7.2f %9.0f %10.0f %8.0f %8.0f", "median", "", "", mz, mgz, mg, m/1e6,
			med("journal"), med("objects"), med("view"), med("other"))
		p("       (bytes; the ratio's median is of the steps' ratios)")
		goals = append(goals, goalRow{"store growth per step / zstd of what it changed", "11k", fmt.Sprintf("%.2f", m/1e6), "<= 1.2",
			judge(m/1e6, 1.2), "(3) median of the steps' ratios"})
	}

	// (4)
	if len(b.stepsS) == 2 {
		a, z := b.stepsS[0], b.stepsS[1]
		p("")
		p("(4) one turn of %d steps against one of %d, each on a root of %d files (a git repository), recorded through", a, z, b.historyFiles)
		p("    a server (then stopped); step k rewrites line %d of hot/h(k%%5).txt (%d lines), the middle step S/2", counter+1, hotLines)
		p("    line %d instead: whatever S, T.(S/2) differs from the end in the same 6 lines of %d files, and a", apart+1, b.historyChange)
		p("    revert of step S/2 is one line of one file; the command line, no server, each a new process, timed")
		p("    from its start to its exit; cpu: rusage; the roots alternate")
		p("%-40s %20s %20s %16s", "median, ms", fmt.Sprintf("S=%d wall (cpu)", a), fmt.Sprintf("S=%d wall (cpu)", z), fmt.Sprintf("%d/%d wall (cpu)", z, a))
		for _, m := range []struct{ key, label string }{
			{"log", "log --json --limit 50"},
			{"rewind", "rewind T.(S/2)"},
			{"rewind undo", "  undo of it"},
			{"revert", "revert T.(S/2)"},
			{"revert undo", "  undo of it"},
			{"diff", "diff T.(S/2)"},
		} {
			x, xc, _ := b.med(fmt.Sprintf("cli %d %s", a, m.key))
			y, yc, _ := b.med(fmt.Sprintf("cli %d %s", z, m.key))
			p("%-40s %20s %20s %16s", m.label, b.wc(fmt.Sprintf("cli %d %s", a, m.key)), b.wc(fmt.Sprintf("cli %d %s", z, m.key)),
				fmt.Sprintf("%s (%s)", ratio(y, x), ratio(yc, xc)))
			res := "ok"
			if y/x > 1.2 && y-x > 3 {
				res = fmt.Sprintf("MISSED by %.0f%% (+%.1f ms)", (y/x/1.2-1)*100, y-x)
			} else if y/x > 1.2 {
				res = fmt.Sprintf("ok (+%.1f ms)", y-x)
			}
			goals = append(goals, goalRow{fmt.Sprintf("%d-step turn / %d-step: %s", z, a, m.label), fmt.Sprintf("%df", b.historyFiles), ratio(y, x), "<= 1.2|3ms", res,
				fmt.Sprintf("(4) wall; cpu %s", ratio(yc, xc))})
		}
		p("%-40s %20s %20s", "log --json output, bytes", b.info[fmt.Sprintf("log bytes %d", a)], b.info[fmt.Sprintf("log bytes %d", z)])
		ra, _, _ := b.med(fmt.Sprintf("record %d", a))
		rz, _, _ := b.med(fmt.Sprintf("record %d", z))
		pa, _, _ := b.med(fmt.Sprintf("record %d post", a))
		pz, _, _ := b.med(fmt.Sprintf("record %d post", z))
		p("%-40s %20s %20s", "recording the turn over LSP, s", fmt.Sprintf("%.2f", ra/1000), fmt.Sprintf("%.2f", rz/1000))
		qa, _, _ := b.med(fmt.Sprintf("record %d pre", a))
		qz, _, _ := b.med(fmt.Sprintf("record %d pre", z))
		p("%-40s %20s %20s", "  its pres, median ms (back to back)", f2(qa), f2(qz))
		p("%-40s %20s %20s", "  its posts, median ms (back to back)", f2(pa), f2(pz))
		for _, ph := range []string{"pre", "post"} {
			if s := b.series[fmt.Sprintf("record %d %s", z, ph)]; s != nil && len(s.Wall) >= 200 {
				first, _ := median(s.Wall[:100])
				last, _ := median(s.Wall[len(s.Wall)-100:])
				p("%-40s %20s %20s", "  "+ph+"s 1-100 / the last 100, median ms", "", fmt.Sprintf("%s / %s", f2(first/1000), f2(last/1000)))
			}
		}
	}

	p("")
	p("%-52s %-5s %8s  %-11s %-28s %s", "goal", "tree", "value", "limit", "result", "reference")
	for _, g := range goals {
		p("%-52s %-5s %8s  %-11s %-28s %s", g.goal, g.tree, g.value, g.limit, g.result, g.ref)
	}
	// Every sample of the step and hook measures: how noisy the machine was.
	var keys []string
	for k := range b.series {
		if (strings.HasSuffix(k, " pre") || strings.HasSuffix(k, " post") || strings.HasSuffix(k, " pair")) && !strings.HasPrefix(k, "record ") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		p("")
		p("samples, wall ms (cpu ms), in the order taken:")
		for _, k := range keys {
			s := b.series[k]
			var parts []string
			for i := range s.Wall {
				parts = append(parts, fmt.Sprintf("%.1f (%.1f)", float64(s.Wall[i])/1000, float64(s.CPU[i])/1000))
			}
			p("  %-28s %s", k+":", strings.Join(parts, " "))
		}
	}
	if len(b.notes) > 0 {
		p("")
		for _, n := range b.notes {
			p("note: %s", n)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
