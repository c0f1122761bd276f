package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// demo runs a guided tour in a temporary workspace and store: two simulated
// agent turns, the log, a preview diff, a rewind, and its undo. Each step
// is printed as a person would type it, followed by its real output.
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

func (d *demoRun) write(rel, text string) error {
	p := filepath.Join(d.ws, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(text), 0o644)
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

func (d *demoRun) tour() error {
	steps := []func() error{
		func() error {
			fmt.Fprintf(d.out, "rewind-lsp demo — a workspace in %s, its store in %s\n", d.ws, d.store)
			d.say("A small project before the agent starts.")
			if err := d.write("main.go", demoMain); err != nil {
				return err
			}
			if err := d.write("README.md", "# shop\n"); err != nil {
				return err
			}
			if err := d.write(".gitignore", "build/\n"); err != nil {
				return err
			}
			return d.write("build/shop.bin", "ignored build output: never captured, never deleted\n")
		},
		func() error {
			d.say("Turn 1: the agent's hook opens a turn, the agent edits, the hook ends it.")
			if err := d.cmd("turn", "start", "--prompt", "greet the customer"); err != nil {
				return err
			}
			if err := d.write("main.go", demoMain1); err != nil {
				return err
			}
			if err := d.write("greet.go", "package main\n\nfunc greet(name string) string { return \"welcome to \" + name }\n"); err != nil {
				return err
			}
			return d.cmd("turn", "end", "--summary", "added greet.go")
		},
		func() error {
			d.say("Turn 2: a change that goes wrong (a shell command deletes the README).")
			if err := d.cmd("turn", "start", "--prompt", "add a 20% discount"); err != nil {
				return err
			}
			if err := d.write("main.go", demoMain2); err != nil {
				return err
			}
			if err := os.Remove(filepath.Join(d.ws, "README.md")); err != nil {
				return err
			}
			return d.cmd("turn", "end")
		},
		func() error {
			d.say("What happened, turn by turn:")
			return d.cmd("log")
		},
		func() error {
			d.say("Preview going back to before turn 2:")
			return d.cmd("diff", "2")
		},
		func() error {
			d.say("Rewind the files to before turn 2 (the current state is kept as an undo snapshot):")
			if err := d.cmd("rewind", "2"); err != nil {
				return err
			}
			d.show("README.md")
			return nil
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
