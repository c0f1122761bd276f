package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Series are the samples of one measure: wall times and, beside each, a
// CPU time (µs), or plain numbers (bytes).
type Series struct {
	Wall []int64
	CPU  []int64
}

type bench struct {
	bin, base     string
	home          string
	work          string
	goroot        string
	n             int
	profile       bool
	zstdCLI       string // the zstd command, "" to use klauspost/compress
	series        map[string]*Series
	info          map[string]string
	notes         []string
	uptimes       []string
	growth        []growthStep
	t0            time.Time
	trees         []string // the trees measured for goal 1, in order
	treeFiles     map[string]int
	treeWhat      map[string]string
	stepsS        []int // the turn lengths of goal 4
	historyFiles  int
	historyChange int
}

func (b *bench) s(name string) *Series {
	s := b.series[name]
	if s == nil {
		s = &Series{}
		b.series[name] = s
	}
	return s
}

func (b *bench) rec(name string, wall, cpu time.Duration) {
	s := b.s(name)
	s.Wall = append(s.Wall, wall.Microseconds())
	s.CPU = append(s.CPU, cpu.Microseconds())
}

func (b *bench) say(format string, a ...any) {
	fmt.Fprintf(os.Stderr, "steps: [%s] %s\n", time.Since(b.t0).Round(time.Second), fmt.Sprintf(format, a...))
}

// note keeps a remark for the report, once however often it is made.
func (b *bench) note(format string, a ...any) {
	msg := fmt.Sprintf(format, a...)
	for _, n := range b.notes {
		if n == msg {
			return
		}
	}
	b.notes = append(b.notes, msg)
	fmt.Fprintln(os.Stderr, "steps: note:", msg)
}

func (b *bench) uptime(what string) {
	b.uptimes = append(b.uptimes, fmt.Sprintf("%-34s %s", what+":", uptime()))
}

func uptime() string {
	if out, err := exec.Command("uptime").Output(); err == nil {
		return strings.TrimSpace(string(out))
	}
	data, _ := os.ReadFile("/proc/loadavg")
	return "load average: " + strings.Join(strings.Fields(string(data))[:3], ", ")
}

func main() {
	var b bench
	small := flag.String("small", "", "the ~11k-file tree (a git repository): goals 1, 2, 3")
	big := flag.String("big", "", "the 500k-file tree (a git repository): goal 1")
	bigWhat := flag.String("big-what", "", "how the big tree was made, for the report")
	cmdline := flag.String("cmd", "bench/steps.sh", "the command that ran the benchmark, for the report")
	binWhat := flag.String("bin-what", "", "what the binary is, for the report")
	baseWhat := flag.String("base-what", "", "what the base binary is, for the report")
	history := flag.Bool("history", true, "goal 4: turns of 10 and 1,000 steps")
	flag.StringVar(&b.bin, "bin", "", "the rewind-lsp binary measured")
	flag.StringVar(&b.base, "base", "", "the base binary goal 2 compares with (\"\": goal 2 is skipped)")
	flag.StringVar(&b.work, "work", "", "a temporary folder (stores, logs, goal 4's roots)")
	flag.StringVar(&b.goroot, "goroot", "", "$(go env GOROOT): goal 4's roots take their text from its src")
	flag.IntVar(&b.n, "n", 7, "runs of each measure after one warm-up")
	flag.BoolVar(&b.profile, "profile", false, "the servers write CPU profiles (REWIND_LSP_CPUPROFILE) into -work")
	flag.StringVar(&b.zstdCLI, "zstd", "", "the zstd command for goal 3 (\"\": klauspost/compress at SpeedDefault)")
	flag.Parse()
	if b.bin == "" || b.work == "" || (*small == "" && *big == "") {
		fmt.Fprintln(os.Stderr, "usage: steps -bin B -work DIR [-base B] [-small TREE] [-big TREE] [-n N] … (see doc.go)")
		os.Exit(2)
	}
	for _, p := range []*string{&b.bin, &b.base, &b.work, small, big} {
		if *p != "" {
			abs, err := filepath.Abs(*p)
			if err != nil {
				fmt.Fprintln(os.Stderr, "steps:", err)
				os.Exit(2)
			}
			*p = abs
		}
	}
	b.t0 = time.Now()
	b.series = map[string]*Series{}
	b.info = map[string]string{}
	b.treeFiles = map[string]int{}
	b.treeWhat = map[string]string{"11k": "copy of " + filepath.Join(b.goroot, "src"), "500k": *bigWhat}
	b.home = filepath.Join(b.work, "home")
	os.MkdirAll(b.home, 0o755)
	if v, err := run(b.bin, b.home, b.work, "", "version"); err == nil {
		b.info["version"] = strings.TrimSpace(string(v.stdout))
	}
	if b.base != "" {
		if v, err := run(b.base, b.home, b.work, "", "version"); err == nil {
			b.info["base version"] = strings.TrimSpace(string(v.stdout))
		}
	}
	err := b.all(*small, *big, *history)
	if err != nil {
		fmt.Fprintln(os.Stderr, "steps:", err)
	}
	b.report(os.Stdout, *cmdline, *binWhat, *baseWhat)
	if err != nil {
		os.Exit(1)
	}
}

func (b *bench) all(small, big string, history bool) error {
	if small != "" {
		b.uptime("before the 11k tree")
		if err := b.goal1(small, "11k", true); err != nil {
			return fmt.Errorf("11k tree: %w", err)
		}
		if b.base != "" {
			if err := b.goal2(small); err != nil {
				return fmt.Errorf("hook pairs: %w", err)
			}
		}
		if history {
			if err := b.goal4(); err != nil {
				return fmt.Errorf("long turns: %w", err)
			}
		}
		b.uptime("after the 11k tree")
	}
	if big != "" {
		b.uptime("before the 500k tree")
		if err := b.goal1(big, "500k", false); err != nil {
			return fmt.Errorf("500k tree: %w", err)
		}
		b.uptime("after the 500k tree")
	}
	return nil
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
