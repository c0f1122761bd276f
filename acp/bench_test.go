package acp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/testkit"
)

// TestOverhead measures what the proxy adds to each message, on the real
// binary in front of the fake agent against the fake agent run directly
// (bench/acp.sh runs it; REWIND_LSP_BENCH must be set): the median round
// trip of a request the agent answers (two messages), and the time per
// message of a stream of 5,000 session/update notifications. It only
// reports; the numbers are in bench/README.md.
func TestOverhead(t *testing.T) {
	if os.Getenv("REWIND_LSP_BENCH") == "" {
		t.Skip("a measurement: run bench/acp.sh (REWIND_LSP_BENCH=1)")
	}
	agent := []string{os.Args[0], "-test.run=^$"}
	env := append(os.Environ(), fakeAgentEnv+"=1", "REWIND_LSP_HOME="+filepath.Join(t.TempDir(), "store"))
	proxy := append([]string{testkit.Binary(t), "acp", "--"}, agent...)
	const pings, stream = 2000, 5000
	var direct, through measure
	for round := 0; round < 3; round++ { // interleaved, on a shared machine
		direct.add(run(t, agent, env, t.TempDir(), pings, stream))
		through.add(run(t, proxy, env, t.TempDir(), pings, stream))
	}
	rd, rp := median(direct.rtt), median(through.rtt)
	sd, sp := median(direct.perMsg), median(through.perMsg)
	t.Logf("round trip (2 messages), median of %d: direct %v, through the proxy %v: %.2fx, %v added per message",
		3*pings, rd, rp, float64(rp)/float64(rd), (rp-rd)/2)
	t.Logf("stream of %d updates, time per message (median of 3 runs): direct %v, through the proxy %v: %.2fx",
		stream, sd, sp, float64(sp)/float64(sd))
}

type measure struct{ rtt, perMsg []time.Duration }

func (m *measure) add(o measure) {
	m.rtt = append(m.rtt, o.rtt...)
	m.perMsg = append(m.perMsg, o.perMsg...)
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// run starts argv, opens a session in dir, then measures pings round
// trips and one stream.
func run(t *testing.T, argv, env []string, dir string, pings, stream int) measure {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir, cmd.Stderr = env, dir, io.Discard
	in, _ := cmd.StdinPipe()
	outPipe, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	out := bufio.NewReader(outPipe)
	until := func(id string) {
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: %v", argv[0], err)
			}
			if bytes.Contains(line, []byte(`"id":`+id)) && !bytes.Contains(line, []byte(`"method"`)) {
				return
			}
		}
	}
	fmt.Fprintf(in, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`+"\n")
	until("1")
	fmt.Fprintf(in, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`+"\n", dir)
	until("2")
	var m measure
	for i := 0; i < pings; i++ {
		id := fmt.Sprint(100 + i)
		start := time.Now()
		fmt.Fprintf(in, `{"jsonrpc":"2.0","id":%s,"method":"x/ping","params":{}}`+"\n", id)
		until(id)
		m.rtt = append(m.rtt, time.Since(start))
	}
	fmt.Fprintf(in, `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"stream %d"}]}}`+"\n", stream)
	var first time.Time
	for n := 0; ; {
		line, err := out.ReadBytes('\n')
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(line, []byte("agent_message_chunk")) {
			if n == 0 {
				first = time.Now()
			}
			n++
			if n == stream {
				m.perMsg = append(m.perMsg, time.Since(first)/time.Duration(stream-1))
				break
			}
		}
	}
	until("3")
	return m
}
