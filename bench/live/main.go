package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	procfs "github.com/rewind-lsp/rewind-lsp/bench/internal/proc"
	"github.com/rewind-lsp/rewind-lsp/testkit"
)

type status struct {
	WatchMode     string  `json:"watchMode"`
	LastCaptureMs float64 `json:"lastCaptureMs"`
}

// client is the language client's end: one testkit.Conn.
type client struct{ *testkit.Conn }

// call sends a request and waits for its reply; d is the time from just
// before the write to the reply's arrival.
func (c client) call(method string, params any, timeout time.Duration) (json.RawMessage, time.Duration, error) {
	t0 := time.Now()
	_, ch := c.Start(method, params)
	var raw json.RawMessage
	err := c.Wait(method, ch, &raw, timeout)
	return raw, time.Since(t0), err
}

func (c client) command(name string, arg any, timeout time.Duration) (json.RawMessage, time.Duration, error) {
	return c.call("workspace/executeCommand", map[string]any{"command": name, "arguments": []any{arg}}, timeout)
}

func (c client) status() (status, json.RawMessage, error) {
	var st status
	raw, _, err := c.command("rewind.status", map[string]any{}, time.Minute)
	if err == nil {
		err = json.Unmarshal(raw, &st)
	}
	return st, raw, err
}

// cpuTicks is utime+stime of the process from /proc/PID/stat (clock ticks).
func cpuTicks(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name, in parentheses, may hold spaces: fields count from
	// after its closing parenthesis (field 3, state, is f[0]).
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, errors.New("short /proc stat")
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	k, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, errors.New("bad /proc stat")
	}
	return u + k, nil
}

// cpuNs sums the run time of the process's threads (schedstat, ns).
func cpuNs(pid int) (int64, error) { return procfs.CPU(pid) }

func rssKB(pid int) (int64, error) { return procfs.Status(pid, "VmRSS") }

func main() {
	bin := flag.String("bin", "rewind-lsp", "the rewind-lsp binary")
	root := flag.String("root", "", "the workspace root (absolute)")
	store := flag.String("store", "", "the store folder (initializationOptions.storeDir)")
	quiet := flag.Int("quiet", 3000, "autoTurnQuietMs")
	logPath := flag.String("log", "", "the server's stderr goes here (default: discarded)")
	flag.Parse()
	if *root == "" || *store == "" {
		fmt.Fprintln(os.Stderr, "usage: live -bin PATH -root DIR -store DIR [-quiet MS] [-log FILE]")
		os.Exit(2)
	}
	cmd := exec.Command(*bin)
	cmd.Dir = *root
	if *logPath != "" {
		f, err := os.Create(*logPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "live:", err)
			os.Exit(1)
		}
		defer f.Close()
		cmd.Stderr = f
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		os.Exit(1)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		os.Exit(1)
	}
	c := client{testkit.NewConn(out, in, func(err error) { fmt.Fprintln(os.Stderr, "live:", err) })}
	c.AnswerNull() // the server's requests: answer null
	c.OnNotification(func(m *testkit.Message) {
		if m.Method == "window/logMessage" || m.Method == "window/showMessage" {
			var p struct {
				Message string `json:"message"`
			}
			json.Unmarshal(m.Params, &p)
			fmt.Fprintf(os.Stderr, "live: server %s: %s\n", m.Method, p.Message)
		}
	})
	pid := cmd.Process.Pid
	uri := "file://" + *root

	reply := func(format string, a ...any) { fmt.Printf(format+"\n", a...) }
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "live:", err)
		reply("error %s", strings.ReplaceAll(err.Error(), "\n", " "))
	}
	// timed runs one command and reports its wall and the server's CPU.
	timed := func(name string, arg any) (json.RawMessage, time.Duration, int64, error) {
		c0, _ := cpuNs(pid)
		raw, d, err := c.command(name, arg, 10*time.Minute)
		c1, _ := cpuNs(pid)
		return raw, d, (c1 - c0) / 1000, err
	}

	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "init":
			t0 := time.Now()
			_, _, err := c.call("initialize", map[string]any{
				"processId":        nil,
				"rootUri":          uri,
				"workspaceFolders": []any{map[string]any{"uri": uri, "name": "t"}},
				"capabilities": map[string]any{"workspace": map[string]any{"workspaceEdit": map[string]any{
					"documentChanges": true, "resourceOperations": []string{"create", "delete"}}}},
				"initializationOptions": map[string]any{"storeDir": *store, "autoTurnQuietMs": *quiet},
			}, time.Minute)
			if err == nil {
				err = c.Notify("initialized", map[string]any{})
			}
			if err != nil {
				fail(err)
				continue
			}
			reply("ok %.1f", float64(time.Since(t0).Microseconds())/1000)
		case "ready":
			limit := 600 * time.Second
			if len(f) > 1 {
				if s, err := strconv.Atoi(f[1]); err == nil {
					limit = time.Duration(s) * time.Second
				}
			}
			t0 := time.Now()
			var st status
			var err error
			for {
				st, _, err = c.status()
				if err != nil || st.WatchMode != "starting" || time.Since(t0) > limit {
					break
				}
				time.Sleep(250 * time.Millisecond) // rewind.status walks the store: poll gently
			}
			if err != nil {
				fail(err)
				continue
			}
			reply("%s %d %.2f", st.WatchMode, time.Since(t0).Milliseconds(), st.LastCaptureMs)
		case "start":
			raw, d, cpu, err := timed("rewind.turnStart", map[string]any{"prompt": "p"})
			var r struct {
				Turn int `json:"turn"`
			}
			if err == nil {
				err = json.Unmarshal(raw, &r)
			}
			if err != nil {
				fail(err)
				continue
			}
			reply("%d %d %d", d.Microseconds(), cpu, r.Turn)
		case "end":
			raw, d, cpu, err := timed("rewind.turnEnd", map[string]any{})
			var r struct {
				Turn    int               `json:"turn"`
				Changed []json.RawMessage `json:"changed"`
			}
			if err == nil {
				err = json.Unmarshal(raw, &r)
			}
			var st status
			if err == nil {
				st, _, err = c.status()
			}
			if err != nil {
				fail(err)
				continue
			}
			reply("%d %d %d %d %.2f", d.Microseconds(), cpu, r.Turn, len(r.Changed), st.LastCaptureMs)
		case "quiet":
			t0 := time.Now()
			prev, err := cpuNs(pid)
			for err == nil && time.Since(t0) < 5*time.Second {
				time.Sleep(100 * time.Millisecond)
				var cur int64
				if cur, err = cpuNs(pid); err == nil && cur-prev < int64(time.Millisecond) {
					break
				}
				prev = cur
			}
			if err != nil {
				fail(err)
				continue
			}
			reply("%d", time.Since(t0).Milliseconds())
		case "cpu":
			t, err1 := cpuTicks(pid)
			n, err2 := cpuNs(pid)
			if err := errors.Join(err1, err2); err != nil {
				fail(err)
				continue
			}
			reply("%d %d", t, n/1000)
		case "rss":
			kb, err := rssKB(pid)
			if err != nil {
				fail(err)
				continue
			}
			reply("%d", kb)
		case "pid":
			reply("%d", pid)
		case "status":
			_, raw, err := c.status()
			if err != nil {
				fail(err)
				continue
			}
			var buf strings.Builder
			json.NewEncoder(&buf).Encode(json.RawMessage(raw))
			reply("%s", strings.TrimSpace(buf.String()))
		case "quit":
			c.call("shutdown", nil, 10*time.Second)
			c.Notify("exit", nil)
			in.Close()
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
			}
			reply("ok")
			return
		default:
			reply("error unknown command %q", f[0])
		}
	}
	// stdin closed without quit: do not leave the server behind.
	in.Close()
	cmd.Process.Kill()
	cmd.Wait()
}
