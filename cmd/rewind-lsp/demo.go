package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rewind-lsp/rewind-lsp/agent/codex"
	"github.com/rewind-lsp/rewind-lsp/agent/pi"
	"github.com/rewind-lsp/rewind-lsp/textdiff"
)

// demo runs a guided tour in a temporary workspace and store: three simulated
// agent turns (Claude Code, pi, Codex) whose edits are shown as they happen, the log, a preview
// diff, a rewind, its undo, and a rewind to one step of a turn. Each command is printed as a person would
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
	d := &demoRun{ctx: ctx, ws: ws, store: store, home: filepath.Join(tmp, "home"), out: stdout, errw: stderr}
	if err := d.tour(); err != nil {
		fmt.Fprintf(stderr, "rewind-lsp demo: %v\n", err)
		return exitError
	}
	return exitOK
}

type demoRun struct {
	ctx             context.Context
	ws, store, home string // home: where the agents keep their sessions
	out, errw       io.Writer
	// claudePrompt and codexTurnID are the ids of the agents' current
	// prompt and turn, as their hooks send them; piLeaf is pi's
	// conversation's last entry.
	claudePrompt, codexTurnID, piLeaf string
	// sent are the hook events the demo ran, in order.
	sent []sentHook
}

// sentHook is one hook event the demo ran: the agent and its stdin.
type sentHook struct {
	agent   string
	payload []byte
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

func (d *demoRun) write(rel, text string) error {
	p := filepath.Join(d.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
}

// read returns the workspace file rel's text ("" when it does not exist).
func (d *demoRun) read(rel string) (string, error) {
	data, err := os.ReadFile(filepath.Join(d.ws, rel))
	if os.IsNotExist(err) {
		return "", nil
	}
	return string(data), err
}

// edit makes one change of an agent's turn and shows it as it happens: a
// short unified diff, made with the same line diff the previews use. text
// is the file's new content; remove deletes it instead, through the shell
// command how.
func (d *demoRun) edit(who, rel, text string, remove bool, how string) error {
	p := filepath.Join(d.ws, rel)
	old, err := os.ReadFile(p)
	existed := err == nil
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	from, to := "a/"+rel, "b/"+rel
	if !existed {
		from = "/dev/null"
	}
	if remove {
		to, text = "/dev/null", ""
		err = os.Remove(p)
	} else {
		err = d.write(rel, text)
	}
	if err != nil {
		return err
	}
	_, _, diff := textdiff.LineDiff(from, to, string(old), text)
	switch {
	case how != "":
		fmt.Fprintf(d.out, "  [%s runs `%s`]\n", who, how)
	case !existed:
		fmt.Fprintf(d.out, "  [%s creates %s]\n", who, rel)
	default:
		fmt.Fprintf(d.out, "  [%s rewrites %s]\n", who, rel)
	}
	for _, line := range strings.SplitAfter(diff, "\n") {
		if line != "" {
			fmt.Fprint(d.out, "  │ "+line)
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
			d.say("Turn 1, in Claude Code. Its hooks (rewind-lsp setup claude-code) hand rewind-lsp each event as JSON: " +
				"the prompt, what each tool call wrote, the end of the turn (members that do not matter here print as …).")
			return d.claudeTurn()
		},
		func() error {
			d.say("Turn 2, in pi (rewind-lsp setup pi). pi runs no command hooks: the extension that setup installs hands each event " +
				"to `rewind-lsp hook pi` in the same JSON, with the conversation's entry where the prompt hangs (for conversation rewinds).")
			return d.piTurn()
		},
		func() error {
			d.say("Turn 3, in Codex (rewind-lsp setup codex). It edits with apply_patch, whose files rewind-lsp reads from the patch text, " +
				"and its shell deletes the README (captured before and after). The change goes wrong.")
			return d.codexTurn()
		},
		func() error {
			d.say("What happened, turn by turn, and which agent did it:")
			if err := d.cmd("log"); err != nil {
				return err
			}
			d.say("Who wrote each line of main.go:")
			return d.cmd("blame", "main.go")
		},
		func() error {
			d.say("Preview going back to before turn 3 (current → target; nothing changes yet):")
			return d.cmd("diff", "3")
		},
		func() error {
			d.say("Rewind the files to before turn 3 (the current state is kept, so the rewind can be undone):")
			if err := d.cmd("rewind", "3"); err != nil {
				return err
			}
			d.show("README.md")
			return nil
		},
		func() error {
			d.say("Codex's next prompt: its hook hands the model this notice (a developer message), once, so it re-reads the files " +
				"instead of trusting its memory. Claude Code's session gets its own at its next prompt.")
			d.codexTurnID = "01a20f70-7e14-7b9c-a3d5-c81f2e6b9047"
			if err := d.hook(codex.Name, d.codexEvent("UserPromptSubmit", field{"prompt", "keep the old price for now", true})); err != nil {
				return err
			}
			if err := d.hook(codex.Name, d.codexEvent("Stop", field{"stop_hook_active", false, false}, field{"last_assistant_message", "Kept the old price.", false})); err != nil {
				return err
			}
			d.say("pi's next prompt: the extension hands its model the notice as a hidden message of its own, once (what before_agent_start returns).")
			d.piLeaf = "e05c1f7b"
			if err := d.hook(pi.Name, d.piEvent("UserPromptSubmit", field{"prompt", "check the README", true})); err != nil {
				return err
			}
			d.piLeaf = "9a2d64e8"
			return d.hook(pi.Name, d.piEvent("Stop"))
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
			d.say("Each tool call is a step, and a step is a restore point too: the patch to main.go was fine, " +
				"only the shell's `rm` was wrong. Rewind to just before step 2 of turn 3 — main.go keeps the patch, README.md comes back, as pi wrote it:")
			if err := d.cmd("rewind", "3.2"); err != nil {
				return err
			}
			d.show("README.md")
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
