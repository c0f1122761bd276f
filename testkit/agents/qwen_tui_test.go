//go:build unix

package agents

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-lsp/rewind-lsp/commands"
	"github.com/rewind-lsp/rewind-lsp/testkit/fakemodel"
)

// Qwen Code's own rewind lives in its interactive interface only: these
// tests type at it under tmux, as a person does.

// qwenTUI is Qwen Code's interactive interface in a tmux session of its
// own.
type qwenTUI struct {
	t     *testing.T
	e     *Env
	sock  string
	close func()
}

var qwenTUIs int

// startQwenTUI starts Qwen Code's interface in folder dir, in yolo mode,
// with args (--resume <id>), and waits until it takes a prompt.
func startQwenTUI(t *testing.T, e *Env, dir string, qwenArgs ...string) *qwenTUI {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatalf("Qwen Code's interface is driven in tmux, which is not installed (apt-get install tmux): %v", err)
	}
	qwenTUIs++
	u := &qwenTUI{t: t, e: e, sock: fmt.Sprintf("rwqwen-%d-%d", os.Getpid(), qwenTUIs)}
	var env []string
	for _, kv := range e.environ() {
		if !strings.HasPrefix(kv, "TERM=") {
			env = append(env, kv)
		}
	}
	args := []string{"-L", u.sock, "new-session", "-d", "-x", "160", "-y", "50", "-c", dir, "env", "-i", "TERM=xterm-256color"}
	args = append(append(append(args, env...), e.Cmd, "--auth-type", "openai", "-m", "gpt-5", "--yolo"), qwenArgs...)
	if out, err := exec.Command("tmux", args...).CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v\n%s", err, out)
	}
	// The pane runs env, which becomes Qwen Code.
	out, _ := exec.Command("tmux", "-L", u.sock, "list-panes", "-F", "#{pane_pid}").Output()
	pid, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	closed := false
	u.close = func() {
		if closed {
			return
		}
		closed = true
		if t.Failed() {
			t.Logf("Qwen Code's screen:\n%s", u.screen())
		}
		// Qwen Code writes to its home until it is gone: Ctrl+C twice
		// quits; the end of its terminal, else a kill, ends it otherwise.
		u.send("C-c")
		u.send("C-c")
		for i := 0; i < 50 && exec.Command("tmux", "-L", u.sock, "has-session").Run() == nil; i++ {
			time.Sleep(100 * time.Millisecond)
		}
		exec.Command("tmux", "-L", u.sock, "kill-server").Run()
		os.Remove(filepath.Join(os.TempDir(), fmt.Sprintf("tmux-%d", os.Getuid()), u.sock))
		for i := 0; pid > 0 && syscall.Kill(pid, 0) == nil; i++ {
			if i == 50 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	t.Cleanup(u.close)
	u.waitFor("Type your message")
	return u
}

// screen is what the terminal shows now.
func (u *qwenTUI) screen() string {
	out, _ := exec.Command("tmux", "-L", u.sock, "capture-pane", "-p").Output()
	return string(out)
}

// send sends tmux key names (Enter, Escape, Down…), or text with "-l".
func (u *qwenTUI) send(keys ...string) {
	exec.Command("tmux", append([]string{"-L", u.sock, "send-keys"}, keys...)...).Run()
	time.Sleep(300 * time.Millisecond)
}

// waitFor waits until the screen shows text.
func (u *qwenTUI) waitFor(text string) {
	u.t.Helper()
	end := time.Now().Add(90 * time.Second)
	for time.Now().Before(end) {
		if strings.Contains(u.screen(), text) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	u.t.Fatalf("the screen never showed %q", text)
}

// prompt types a prompt and waits until its turn is over: the model's last
// reply on the screen and the Stop hook finished.
func (u *qwenTUI) prompt(text, reply string) {
	u.t.Helper()
	stops := u.stops()
	u.send("-l", text)
	u.send("Enter")
	u.waitFor(reply)
	end := time.Now().Add(60 * time.Second)
	for u.stops() == stops {
		if time.Now().After(end) {
			u.t.Fatalf("the Stop hook of %q never finished", text)
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
}

// rewindSelector presses Esc twice, as a person opens Qwen Code's rewind
// selector, until the screen shows title: the two presses must come
// within 800 ms, which a loaded machine may miss.
func (u *qwenTUI) rewindSelector(title string) {
	u.t.Helper()
	for i := 0; i < 5; i++ {
		exec.Command("tmux", "-L", u.sock, "send-keys", "Escape").Run()
		time.Sleep(150 * time.Millisecond)
		exec.Command("tmux", "-L", u.sock, "send-keys", "Escape").Run()
		for end := time.Now().Add(3 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
			if strings.Contains(u.screen(), title) {
				return
			}
		}
	}
	u.t.Fatalf("Esc Esc never opened the rewind selector %q", title)
}

// stops counts the Stop hook runs that finished.
func (u *qwenTUI) stops() int {
	n := 0
	for _, h := range u.e.HookRuns() {
		if h.Event() == "Stop" && h.Exit != -1 {
			n++
		}
	}
	return n
}

// TestQwenTUIRewind: Qwen Code's own rewind, typed in its interface as a
// person does — Esc Esc, prompt two (the latest, chosen already), then
// "Restore code and conversation" or "Restore conversation only" — and a
// new prompt. Qwen Code restores only what its file tools wrote (a.txt,
// edited by prompt two); with its code restored, rewind-lsp restores what
// its shell wrote in prompt two (b.txt) at the new prompt's
// UserPromptSubmit, before the model runs, and leaves c.txt, which the
// person changed since; with only the conversation restored, no file
// changes and the files are offered. Either way the rewind is recorded as
// Qwen Code's, of its session, to turn 2, and the new prompt is turn 2.
// "in a fork" does it in a conversation fork rewind-lsp made at turn 2's
// end (`rewind turn:2:end --mode conversation`), resumed in the interface
// (`qwen --resume <fork>`): resumed, Qwen Code offers only "Restore
// conversation only" for the turns before (its file history knows them by
// prompt ids the resumed turns do not carry), and the rewind is the
// fork's, its dropped turn the original session's.
func TestQwenTUIRewind(t *testing.T) {
	for _, restore := range []bool{true, false} {
		name := map[bool]string{true: "restore code and conversation", false: "restore conversation only"}[restore]
		t.Run(name, func(t *testing.T) { qwenTUIRewind(t, restore, false) })
	}
	t.Run("in a fork, restore conversation only", func(t *testing.T) { qwenTUIRewind(t, false, true) })
}

func qwenTUIRewind(t *testing.T, restore, fork bool) {
	model := startModel(t)
	e := New(t, Qwen, model)
	ws, cli := qwenSetup(t, e)
	a := filepath.Join(ws, "a.txt")
	model.On("prompt one", fakemodel.Tools(WriteFile(Qwen, ws, a, "one\n")), fakemodel.Tools(Shell(Qwen, "echo b1 > b.txt")), fakemodel.Say("ok one done"))
	model.On("prompt two", fakemodel.Tools(ReadFile(Qwen, a)), fakemodel.Tools(EditFile(Qwen, ws, a, "one", "two")),
		fakemodel.Tools(Shell(Qwen, "echo c2 > c.txt; echo b2 > b.txt")), fakemodel.Say("ok two done"))
	model.On("prompt three", fakemodel.Tools(Shell(Qwen, "echo d3 > d.txt")), fakemodel.Say("ok three done"))

	u := startQwenTUI(t, e, ws)
	u.prompt("prompt one", "ok one done")
	u.prompt("prompt two", "ok two done")
	writeFile(t, filepath.Join(ws, "c.txt"), "the person's\n")
	session := e.HookRuns()[0].Field("session_id")
	if fork {
		u.close()
		var rw commands.RewindResult
		e.cli(t, ws, cli, &rw, "rewind", "turn:2:end", "--mode", "conversation")
		if rw.Conversation == nil || rw.Conversation.Session == "" {
			t.Fatalf("no fork at turn 2's end: %+v", rw.Conversation)
		}
		session = rw.Conversation.Session
		u = startQwenTUI(t, e, ws, "--resume", session)
	}

	u.rewindSelector("Rewind Conversation (2 turns)")
	u.send("Enter") // prompt two, the latest, is chosen already
	switch {
	case fork:
		// Resumed, Qwen Code keeps no prompt id of the turns before:
		// their files cannot be restored.
		u.waitFor("File restore is unavailable for this turn")
	case restore:
		u.waitFor("Restore code and conversation")
	default:
		u.waitFor("Restore code and conversation")
		u.send("Down") // "Restore conversation only"
	}
	u.send("Enter")
	u.waitFor("Conversation rewound")
	if restore {
		u.waitFor("Restored 1 file(s).")
	}
	// What Qwen Code did by itself: a.txt back with its code, nothing else.
	files := map[bool]map[string]string{
		true:  {"a.txt": "one\n", "b.txt": "b2\n", "c.txt": "the person's\n"},
		false: {"a.txt": "two\n", "b.txt": "b2\n", "c.txt": "the person's\n"}}[restore]
	wantFiles(t, ws, files)
	u.send("C-u") // the rewound prompt is put back in the input box
	u.prompt("prompt three", "ok three done")

	var log commands.ListResult
	e.cli(t, ws, cli, &log, "log", "--all")
	rw := log.Rewinds
	if fork { // the conversation rewind that made the fork, first
		if len(rw) != 2 || rw[0].Mode != "conversation" || rw[0].Agent != "" {
			t.Fatalf("the rewinds: %+v, want the fork's, then Qwen Code's", rw)
		}
		rw = rw[1:]
	}
	if len(rw) != 1 || rw[0].Agent != "qwen" || rw[0].Turn != 2 || rw[0].Session != session || !rw[0].Applied {
		t.Fatalf("Qwen Code's rewind: %+v, want one of session %s to turn 2", rw, session)
	}
	t.Logf("recorded: %s: %s", rw[0].Title, rw[0].Message)
	if restore {
		wantFiles(t, ws, map[string]string{"a.txt": "one\n", "b.txt": "b1\n", "c.txt": "the person's\n", "d.txt": "d3\n"})
		if rw[0].Mode != "both" || strings.Join(rw[0].Files, ",") != "b.txt" || strings.Join(rw[0].Kept, ",") != "c.txt" {
			t.Errorf("the completed rewind: %+v, want mode both, b.txt restored, c.txt kept", rw[0])
		}
	} else {
		wantFiles(t, ws, map[string]string{"a.txt": "two\n", "b.txt": "b2\n", "c.txt": "the person's\n", "d.txt": "d3\n"})
		if rw[0].Mode != "conversation" || len(rw[0].Files) != 0 || strings.Join(rw[0].Offered, ",") != "a.txt,b.txt,c.txt" {
			t.Errorf("the recorded rewind: %+v, want mode conversation, a.txt, b.txt and c.txt offered", rw[0])
		}
	}
	e.cli(t, ws, cli, &log, "log")
	var turns []string
	for _, tn := range log.Turns {
		var changed []string
		for _, c := range tn.Changed {
			changed = append(changed, c.Path)
		}
		turns = append(turns, fmt.Sprintf("%d %s %s [%s]", tn.Turn, tn.Prompt, tn.Session, strings.Join(changed, ",")))
	}
	first := e.HookRuns()[0].Field("session_id")
	if want := []string{"1 prompt one " + first + " [a.txt,b.txt]", "2 prompt three " + session + " [d.txt]"}; strings.Join(turns, "\n") != strings.Join(want, "\n") {
		t.Errorf("turns on the branch:\n%s\nwant\n%s", strings.Join(turns, "\n"), strings.Join(want, "\n"))
	}
	// The model is told at once what rewind-lsp restored besides (nothing
	// when it restored nothing), in the prompt that follows the rewind.
	told := ""
	for _, h := range byEvent(e.HookRuns(), "UserPromptSubmit") {
		if h.Field("prompt") == "prompt three" {
			told = h.Stdout
		}
	}
	if restore != (strings.Contains(told, notice) && strings.Contains(told, "b.txt")) || !restore && told != "" {
		t.Errorf("prompt three's hook printed %q", told)
	}
	if q := model.For("prompt three"); len(q) == 0 || restore != (q[0].Count(notice) == 1) {
		t.Errorf("the model was told of the completed rewind with prompt three: %v", q != nil && q[0].Mentions(notice))
	}
	for _, h := range e.HookRuns() {
		if h.Exit != 0 || h.Took() > 5*time.Second || h.Stderr != "" {
			t.Errorf("hook %s: exit %d after %v\n%s", h.Event(), h.Exit, h.Took(), h.Stderr)
		}
	}
	logHookTimes(t, e.HookRuns())
	if *update && restore && !fork {
		saveQwenRewind(t, e, ws, session)
	}
}

// saveQwenRewind keeps, in agent/testdata/qwen-rewind/, the hook payloads
// and the transcript of a session rewound by Qwen Code itself.
func saveQwenRewind(t *testing.T, e *Env, ws, session string) {
	dir := filepath.Join("..", "..", "agent", "testdata", "qwen-rewind")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	norm := normalizer(e.Dir(), e.Home, ws)
	var lines []string
	for _, h := range e.HookRuns() {
		lines = append(lines, `{"event":"`+h.Event()+`","payload":`+strings.TrimSpace(norm(string(h.Payload)))+`}`)
	}
	writeFile(t, filepath.Join(dir, "hooks.jsonl"), strings.Join(lines, "\n")+"\n")
	writeFile(t, filepath.Join(dir, "transcript.jsonl"), norm(qwenTranscript(t, e, session)))
	t.Logf("wrote %s", dir)
}
