package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: history states|gen|key|measure|report|uptimes ... (see doc.go)")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "states":
		err = statesMain(os.Args[2:])
	case "gen":
		err = genMain(os.Args[2:])
	case "measure":
		err = measureMain(os.Args[2:])
	case "report":
		err = reportMain(os.Args[2:])
	case "key":
		err = keyMain(os.Args[2:])
	case "uptimes":
		err = uptimesMain(os.Args[2:])
	default:
		err = fmt.Errorf("unknown subcommand %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "history:", err)
		os.Exit(1)
	}
}

// proc runs the binary under test with a clean environment: a home of its
// own (no agent's settings, no agent session inherited from whoever runs
// the benchmark) and the store named on its command line.
type proc struct {
	bin, home string
}

func (p proc) env() []string {
	env := []string{"HOME=" + p.home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	if t := os.Getenv("TMPDIR"); t != "" {
		env = append(env, "TMPDIR="+t)
	}
	return env
}

// ran is one finished process: its wall time (from just before it was
// started to just after it was reaped), its CPU (user + system) and its
// output.
type ran struct {
	wall, cpu      time.Duration
	stdout, stderr []byte
	cut            bool // a hook that gave up at its time limit
	noTurn         bool // a hook's Stop that found no open turn
}

// run runs the binary in dir with args, stdin as its input; a non-zero
// exit is an error naming its output.
func (p proc) run(dir, stdin string, args ...string) (ran, error) {
	cmd := exec.Command(p.bin, args...)
	cmd.Dir = dir
	cmd.Env = p.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	t0 := time.Now()
	err := cmd.Run()
	r := ran{wall: time.Since(t0), stdout: out.Bytes(), stderr: errb.Bytes()}
	if cmd.ProcessState != nil {
		r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return r, fmt.Errorf("rewind-lsp %s: %v\n%s%s", strings.Join(args, " "), err, out.Bytes(), errb.Bytes())
	}
	return r, nil
}

// cli runs a verb on root with store.
func (p proc) cli(root, store string, args ...string) (ran, error) {
	return p.run(root, "", append([]string{"--root", root, "--store", store}, args...)...)
}

// copyTree copies folder src to dst (which must not exist) with cp -a:
// modes and times kept.
func copyTree(src, dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", src, dst, err, out)
	}
	return nil
}

func removeTree(dir string) error {
	exec.Command("chmod", "-R", "u+w", dir).Run()
	return os.RemoveAll(dir)
}
