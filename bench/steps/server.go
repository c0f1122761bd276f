package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	procfs "github.com/rewind-lsp/rewind-lsp/bench/internal/proc"
	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/journal"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// env is the environment of every rewind-lsp process the benchmark runs:
// a home of its own (no agent's settings, no agent session inherited from
// whoever runs the benchmark), the store always named on the command line
// or in initializationOptions.
func env(home string, extra ...string) []string {
	e := []string{"HOME=" + home, "LANG=C.UTF-8", "PATH=" + os.Getenv("PATH")}
	if t := os.Getenv("TMPDIR"); t != "" {
		e = append(e, "TMPDIR="+t)
	}
	return append(e, extra...)
}

// ran is one finished process: its wall time (from just before it was
// started to just after it was reaped), its CPU (user + system, rusage)
// and its output.
type ran struct {
	wall, cpu      time.Duration
	stdout, stderr []byte
}

// run runs bin in dir with args and stdin; a non-zero exit is an error
// naming its output.
func run(bin, home, dir, stdin string, args ...string) (ran, error) {
	return runEnv(nil, bin, home, dir, stdin, args...)
}

// runEnv is run with more environment variables.
func runEnv(extra []string, bin, home, dir, stdin string, args ...string) (ran, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = env(home, extra...)
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
		return r, fmt.Errorf("%s %s: %v\n%s%s", filepath.Base(bin), strings.Join(args, " "), err, out.Bytes(), errb.Bytes())
	}
	return r, nil
}

// cpuNs sums the run time of a process's threads (schedstat, ns).
func cpuNs(pid int) int64 { n, _ := procfs.CPU(pid); return n }

// vmKB reads a "Vm…:  N kB" line of /proc/PID/status (0 when it cannot).
func vmKB(pid int, key string) int64 { n, _ := procfs.Status(pid, key); return n }

// server is a rewind-lsp language server on stdio, driven through
// testkit.Conn, the client the tests use.
type server struct {
	bin, root, store, log string
	cmd                   *exec.Cmd
	conn                  *testkit.Conn
	remote                *commands.Remote // the store's socket
	pid                   int
	ready                 time.Duration // spawn -> rewind.status no longer "starting"
	watchMode             string
}

// startServer starts bin on root (its stderr, with REWIND_LSP_TRACE=1, in
// logPath), initializes it with storeDir and waits until its first capture
// is done. profile, when set, is where the server writes a CPU profile of
// its whole run (REWIND_LSP_CPUPROFILE; written when it exits).
func startServer(bin, home, root, store, logPath, profile string) (*server, error) {
	s := &server{bin: bin, root: root, store: store, log: logPath}
	cmd := exec.Command(bin)
	cmd.Dir = root
	extra := []string{"REWIND_LSP_TRACE=1"}
	if profile != "" {
		extra = append(extra, "REWIND_LSP_CPUPROFILE="+profile)
	}
	cmd.Env = env(home, extra...)
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stderr = logf
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	logf.Close()
	s.cmd, s.pid = cmd, cmd.Process.Pid
	s.conn = testkit.NewConn(out, in, func(err error) { fmt.Fprintln(os.Stderr, "steps: server:", err) })
	s.conn.AnswerNull()
	uri := "file://" + root
	_, ch := s.conn.Start("initialize", map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          uri,
		"workspaceFolders": []any{map[string]any{"uri": uri, "name": "root"}},
		"capabilities": map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{
			"documentChanges": true, "resourceOperations": []string{"create", "delete"}}}},
		"initializationOptions": map[string]any{"storeDir": store},
	})
	if err := s.conn.Wait("initialize", ch, nil, 30*time.Minute); err != nil {
		s.kill()
		return nil, err
	}
	if err := s.conn.Notify("initialized", map[string]any{}); err != nil {
		s.kill()
		return nil, err
	}
	for {
		raw, _, _, err := s.command("rewind.status", map[string]any{})
		if err != nil {
			s.kill()
			return nil, err
		}
		var st struct {
			WatchMode string `json:"watchMode"`
		}
		if err := json.Unmarshal(raw, &st); err != nil {
			s.kill()
			return nil, err
		}
		if st.WatchMode != "starting" {
			s.watchMode = st.WatchMode
			break
		}
		if time.Since(t0) > 60*time.Minute {
			s.kill()
			return nil, errors.New("the server was not ready after an hour")
		}
		time.Sleep(250 * time.Millisecond) // rewind.status walks the store: poll gently
	}
	s.ready = time.Since(t0)
	s.remote = commands.NewRemote(store)
	s.quiet()
	return s, nil
}

// internal runs one of the server's internal commands (rewind.toolCall:
// the language server does not take it as a workspace/executeCommand)
// over the store's socket, as a hook's process forwards it, with
// commands.Remote, the command line's own client: a connection per call,
// one request line, one answer line. It returns the time from just before
// the dial to the answer read, and the server's CPU over that window.
func (s *server) internal(name string, args, out any) (time.Duration, int64, error) {
	ctx := commands.WithCall(context.Background(), commands.Call{Key: commands.NewKey(), Actor: "hook", Source: journal.SourceHook})
	c0 := cpuNs(s.pid)
	t0 := time.Now()
	err := s.remote.Call(ctx, name, args, out)
	d := time.Since(t0)
	c1 := cpuNs(s.pid)
	if err != nil {
		return d, c1 - c0, fmt.Errorf("%s: %w", name, err)
	}
	return d, c1 - c0, nil
}

// command runs one workspace/executeCommand: its result, the time from
// just before the request is written to the reply read, and the server's
// CPU over that window (schedstat of all its threads, ns).
func (s *server) command(name string, arg any) (json.RawMessage, time.Duration, int64, error) {
	c0 := cpuNs(s.pid)
	t0 := time.Now()
	_, ch := s.conn.Start("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}})
	var raw json.RawMessage
	err := s.conn.Wait(name, ch, &raw, 30*time.Minute)
	d := time.Since(t0)
	c1 := cpuNs(s.pid)
	if err != nil {
		return nil, d, c1 - c0, fmt.Errorf("%s: %w", name, err)
	}
	return raw, d, c1 - c0, nil
}

// quiet waits (10 s at most) until the server used under 1 ms of CPU in
// 150 ms: what the last call left running (a background seal, a merge of
// small packs, the GC) is over.
func (s *server) quiet() {
	t0 := time.Now()
	prev := cpuNs(s.pid)
	for time.Since(t0) < 10*time.Second {
		time.Sleep(150 * time.Millisecond)
		c := cpuNs(s.pid)
		if c-prev < 1e6 {
			return
		}
		prev = c
	}
}

// logSize is the length of the server's stderr so far: traceSince reads
// what it logged after it.
func (s *server) logSize() int64 {
	fi, err := os.Stat(s.log)
	if err != nil {
		return 0
	}
	return fi.Size()
}

var traceLine = regexp.MustCompile(`rewind-lsp trace: ([a-z ]+?) ([0-9.]+)ms`)

// traceSince returns the total of each traced operation the server logged
// after offset (REWIND_LSP_TRACE lines "rewind-lsp trace: NAME Tms: …"),
// in µs, summed when one was logged more than once, and the lines.
func (s *server) traceSince(off int64) (map[string]int64, []string) {
	f, err := os.Open(s.log)
	if err != nil {
		return nil, nil
	}
	defer f.Close()
	if _, err := f.Seek(off, 0); err != nil {
		return nil, nil
	}
	var buf bytes.Buffer
	buf.ReadFrom(f)
	out := map[string]int64{}
	var lines []string
	for _, line := range strings.Split(buf.String(), "\n") {
		m := traceLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, _ := strconv.ParseFloat(m[2], 64)
		out[m[1]] += int64(v * 1000)
		lines = append(lines, strings.TrimSpace(line))
	}
	return out, lines
}

func (s *server) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
	}
}

// stop shuts the server down (shutdown, exit) and waits for it, killing
// it after 30 s.
func (s *server) stop() {
	if s == nil || s.cmd == nil {
		return
	}
	_, ch := s.conn.Start("shutdown", nil)
	s.conn.Wait("shutdown", ch, nil, 30*time.Second)
	s.conn.Notify("exit", nil)
	done := make(chan struct{})
	go func() { s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
	s.cmd = nil
}
