package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/textdiff"
)

// demo runs a guided tour in a temporary workspace and store: two simulated
// agent turns whose edits are shown as they happen, the log, a preview
// diff, a rewind, and its undo. Each command is printed as a person would
// type it, followed by its real output.
func demo(ctx context.Context, stdout, stderr io.Writer) int {
	tmp, err := os.MkdirTemp("", "rewind-demo-")
	if err != nil {
		fmt.Fprintf(stderr, "rewind-lsp demo: %v\n", err)
		return exitError
	}
	defer os.RemoveAll(tmp)
	ws := filepath.Join(tmp, "shop")
	store := filepath.Join(tmp, "store")
	d := &demoRun{ctx: ctx, ws: ws, store: store, out: stdout, errw: stderr}
	if err := d.tour(); err != nil {
		fmt.Fprintf(stderr, "rewind-lsp demo: %v\n", err)
		return exitError
	}
	return exitOK
}

type demoRun struct {
	ctx       context.Context
	ws, store string
	out, errw io.Writer
}

func (d *demoRun) say(format string, a ...any) { fmt.Fprintf(d.out, "\n# "+format+"\n", a...) }

// cmd shows and runs one rewind-lsp command line in the demo workspace.
func (d *demoRun) cmd(args ...string) error {
	shown := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, " \"'") {
			a = fmt.Sprintf("%q", a)
		}
		shown[i] = a
	}
	fmt.Fprintf(d.out, "$ rewind-lsp %s\n", strings.Join(shown, " "))
	full := append([]string{"--root", d.ws, "--store", d.store}, args...)
	var errb bytes.Buffer
	code := run(d.ctx, full, strings.NewReader(""), d.out, &errb)
	if errb.Len() > 0 {
		d.out.Write(errb.Bytes())
	}
	if code != exitOK {
		return fmt.Errorf("step `rewind-lsp %s` exited %d", strings.Join(args, " "), code)
	}
	return nil
}

// demoSession is the simulated agent's session id.
const demoSession = "demo-agent-session"

// hook shows and runs one Claude Code hook event, as the agent runs it.
func (d *demoRun) hook(ev map[string]any) error {
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	fmt.Fprintf(d.out, "$ echo '%s' | rewind-lsp hook claude-code\n", data)
	var errb bytes.Buffer
	code := run(d.ctx, []string{"--root", d.ws, "--store", d.store, "hook", "claude-code"}, bytes.NewReader(data), d.out, &errb)
	if errb.Len() > 0 {
		d.out.Write(errb.Bytes())
	}
	if code != exitOK {
		return fmt.Errorf("the hook exited %d", code)
	}
	return nil
}

func (d *demoRun) write(rel, text string) error {
	p := filepath.Join(d.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

// agentEdit is one change the simulated agent makes: new content for a
// file, or its removal (remove, through a shell command).
type agentEdit struct {
	rel    string
	text   string
	remove bool
	how    string // what the agent ran, e.g. "rm README.md" (shell edits)
}

// agent makes a turn's edits and shows each one as it happens: a short
// unified diff per file, made with the same line diff the previews use.
func (d *demoRun) agent(edits ...agentEdit) error {
	for _, e := range edits {
		p := filepath.Join(d.ws, e.rel)
		old, err := os.ReadFile(p)
		existed := err == nil
		if err != nil && !os.IsNotExist(err) {
			return err
		}
		from, to := "a/"+e.rel, "b/"+e.rel
		if !existed {
			from = "/dev/null"
		}
		var diff string
		if e.remove {
			to = "/dev/null"
			if err := os.Remove(p); err != nil {
				return err
			}
			_, _, diff = textdiff.LineDiff(from, to, string(old), "")
		} else {
			if err := d.write(e.rel, e.text); err != nil {
				return err
			}
			_, _, diff = textdiff.LineDiff(from, to, string(old), e.text)
		}
		verb := "edits"
		switch {
		case e.how != "":
			verb = "runs `" + e.how + "`:"
		case e.remove:
			verb = "deletes"
		case !existed:
			verb = "creates"
		}
		if e.how != "" {
			fmt.Fprintf(d.out, "  [agent %s]\n", verb)
		} else {
			fmt.Fprintf(d.out, "  [agent %s %s]\n", verb, e.rel)
		}
		for _, line := range strings.SplitAfter(diff, "\n") {
			if line != "" {
				fmt.Fprint(d.out, "  │ "+line)
			}
		}
	}
	return nil
}

func (d *demoRun) show(rel string) {
	data, err := os.ReadFile(filepath.Join(d.ws, rel))
	if err != nil {
		fmt.Fprintf(d.out, "$ cat %s\ncat: %s: no such file\n", rel, rel)
		return
	}
	fmt.Fprintf(d.out, "$ cat %s\n%s", rel, data)
}

const demoMain = `package main

import "fmt"

func main() {
	fmt.Println("total:", price(3))
}

func price(n int) int { return n * 100 }
`

const demoMain1 = `package main

import "fmt"

func main() {
	fmt.Println(greet("shop"))
	fmt.Println("total:", price(3))
}

func price(n int) int { return n * 100 }
`

const demoMain2 = `package main

import "fmt"

func main() {
	fmt.Println(greet("shop"))
	fmt.Println("total:", price(3, 0.2))
}

func price(n int, discount float64) int { return int(float64(n*100) * (1 - discount)) }
`

const demoGreet = "package main\n\nfunc greet(name string) string { return \"welcome to \" + name }\n"

func (d *demoRun) tour() error {
	steps := []func() error{
		func() error {
			fmt.Fprintf(d.out, "rewind-lsp demo — a workspace in %s, its store in %s\n", d.ws, d.store)
			d.say("A small project before the agent starts: main.go, README.md, and build/ (ignored by .gitignore).")
			for rel, text := range map[string]string{
				"main.go":        demoMain,
				"README.md":      "# shop\n",
				".gitignore":     "build/\n",
				"build/shop.bin": "ignored build output: never captured, never deleted\n",
			} {
				if err := d.write(rel, text); err != nil {
					return err
				}
			}
			return nil
		},
		func() error {
			d.say("Turn 1: the agent's hook opens a turn, the agent edits, the hook ends it.")
			if err := d.cmd("turn", "start", "--prompt", "greet the customer", "--session", demoSession); err != nil {
				return err
			}
			if err := d.agent(agentEdit{rel: "main.go", text: demoMain1}, agentEdit{rel: "greet.go", text: demoGreet}); err != nil {
				return err
			}
			return d.cmd("turn", "end", "--summary", "added greet.go", "--session", demoSession)
		},
		func() error {
			d.say("Turn 2: a change that goes wrong — the agent breaks price() and a shell command deletes the README.")
			if err := d.cmd("turn", "start", "--prompt", "add a 20% discount", "--session", demoSession); err != nil {
				return err
			}
			if err := d.agent(agentEdit{rel: "main.go", text: demoMain2}, agentEdit{rel: "README.md", remove: true, how: "rm README.md"}); err != nil {
				return err
			}
			return d.cmd("turn", "end", "--session", demoSession)
		},
		func() error {
			d.say("What happened, turn by turn:")
			return d.cmd("log")
		},
		func() error {
			d.say("Preview going back to before turn 2 (current → target; nothing changes yet):")
			return d.cmd("diff", "2")
		},
		func() error {
			d.say("Rewind the files to before turn 2 (the current state is kept, so the rewind can be undone):")
			if err := d.cmd("rewind", "2"); err != nil {
				return err
			}
			d.show("README.md")
			return nil
		},
		func() error {
			d.say("The agent's next prompt: its UserPromptSubmit hook hands it this notice, once, so it re-reads the files instead of trusting its memory:")
			if err := d.hook(map[string]any{"hook_event_name": "UserPromptSubmit", "session_id": demoSession,
				"cwd": d.ws, "prompt": "keep the old price for now"}); err != nil {
				return err
			}
			return d.cmd("turn", "end", "--session", demoSession)
		},
		func() error {
			d.say("Changed your mind? Every rewind can be undone:")
			if err := d.cmd("undo"); err != nil {
				return err
			}
			d.show("README.md")
			d.say("Ignored files were never touched:")
			d.show("build/shop.bin")
			return nil
		},
		func() error {
			d.say("Everything is in the store, outside the workspace:")
			return d.cmd("status")
		},
	}
	for _, s := range steps {
		if err := s(); err != nil {
			return err
		}
	}
	fmt.Fprintln(d.out, "\nDone. In an editor, the same commands run through the language server: `rewind-lsp` on stdio.")
	return nil
}
