package gitnotes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Hooks are the git hooks `setup git` installs, each running
// `rewind-lsp hook git NAME` with git's arguments (and its input, for a
// hook git gives one).
var Hooks = []string{"post-commit", "post-rewrite"}

// hookInput lists the hooks git writes input to.
var hookInput = map[string]bool{"post-rewrite": true, "pre-push": true, "reference-transaction": true}

// hookMarker is the line that marks a hook rewind-lsp wrote.
const hookMarker = "# rewind-lsp: git notes of provenance (rewind-lsp setup git)"

// savedSuffix names the hook that was there before, which rewind-lsp's
// hook runs first and --remove puts back.
const savedSuffix = ".rewind-lsp-saved"

// HookResult is what InstallHooks or RemoveHooks did to one hook.
type HookResult struct {
	// Name is the hook ("post-commit") and Hook its file.
	Name, Hook string
	// Changed is false when there was nothing to do.
	Changed bool
	// Saved is where a hook that was there before now is ("" if none).
	Saved string
	// Line is the command that hook runs: what to add to a hook manager's
	// hook of that name.
	Line string
}

// Setup is what InstallHooks or RemoveHooks did.
type Setup struct {
	Hooks []HookResult
	// Manager is the hook manager that owns the repository's hooks
	// ("husky", "lefthook", "pre-commit"), when one does: then nothing was
	// changed, and each hook's Line is what to add to it.
	Manager string
}

// Changed reports whether any hook changed.
func (s Setup) Changed() bool {
	for _, h := range s.Hooks {
		if h.Changed {
			return true
		}
	}
	return false
}

// HooksDir is the folder git runs r's hooks from (core.hooksPath honoured).
func (r Repo) HooksDir(ctx context.Context) (string, error) {
	p, err := r.line(ctx, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.Dir, p)
	}
	return p, nil
}

// HookLine is the shell line hook name runs: command (rewind-lsp as a
// shell word, with any global flags), "hook git" and the hook's name.
func HookLine(command, name string) string { return command + " hook git " + name }

// InstallHooks makes git run command's Hooks in r. A hook that was there
// keeps running, first, and its exit status stays the hook's; a hook
// rewind-lsp wrote already is left as it is; a hook manager's hooks are left
// alone (Manager and each Line say what to add).
func InstallHooks(ctx context.Context, r Repo, command string) (Setup, error) {
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return Setup{}, err
	}
	var s Setup
	olds := map[string][]byte{}
	for _, name := range Hooks {
		h := HookResult{Name: name, Hook: filepath.Join(dir, name), Line: HookLine(command, name)}
		old, err := os.ReadFile(h.Hook)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return s, err
		}
		olds[name] = old
		if m := r.manager(ctx, dir, old); m != "" && s.Manager == "" {
			s.Manager = m
		}
		s.Hooks = append(s.Hooks, h)
	}
	if s.Manager != "" {
		return s, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return s, err
	}
	for i := range s.Hooks {
		h := &s.Hooks[i]
		old := olds[h.Name]
		if strings.Contains(string(old), hookMarker) {
			continue
		}
		if old != nil {
			h.Saved = h.Hook + savedSuffix
			if _, err := os.Lstat(h.Saved); err == nil {
				return s, fmt.Errorf("%s exists already; move it away and run setup git again", h.Saved)
			}
			if err := os.Rename(h.Hook, h.Saved); err != nil {
				return s, err
			}
		}
		if err := os.WriteFile(h.Hook, []byte(hookScript(command, h.Name)), 0o755); err != nil {
			return s, err
		}
		h.Changed = true
	}
	return s, nil
}

// hookScript is hook name: the saved hook first (its exit status is the
// hook's), then rewind-lsp, which never fails what git does. A hook git
// gives input to hands both the same input.
func hookScript(command, name string) string {
	var b strings.Builder
	b.WriteString("#!/bin/sh\n" + hookMarker + "\n")
	b.WriteString("# `rewind-lsp setup git --remove` takes this hook out and puts back the one that was here.\n")
	b.WriteString("status=0\nsaved=\"$0" + savedSuffix + "\"\n")
	if hookInput[name] {
		b.WriteString("input=$(cat; echo .)\ninput=${input%.}\n")
		b.WriteString("if [ -x \"$saved\" ]; then printf '%s' \"$input\" | \"$saved\" \"$@\"; status=$?; fi\n")
		b.WriteString("printf '%s' \"$input\" | " + HookLine(command, name) + " \"$@\" >/dev/null || true\n")
	} else {
		b.WriteString("if [ -x \"$saved\" ]; then \"$saved\" \"$@\"; status=$?; fi\n")
		b.WriteString(HookLine(command, name) + " \"$@\" </dev/null >/dev/null || true\n")
	}
	b.WriteString("exit $status\n")
	return b.String()
}

// manager names the hook manager that owns the hooks in dir, if any (hook
// is one hook's content there).
func (r Repo) manager(ctx context.Context, dir string, hook []byte) string {
	if strings.Contains(filepath.ToSlash(dir), "/.husky") {
		return "husky"
	}
	h := string(hook)
	switch {
	case strings.Contains(h, "lefthook"):
		return "lefthook"
	case strings.Contains(h, "pre-commit") && strings.Contains(h, "generated"):
		return "pre-commit"
	}
	top, err := r.line(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return ""
	}
	for _, f := range []string{"lefthook.yml", ".lefthook.yml", "lefthook.yaml", ".lefthook.yaml"} {
		if _, err := os.Stat(filepath.Join(top, f)); err == nil {
			return "lefthook"
		}
	}
	return ""
}

// RemoveHooks takes out exactly what InstallHooks added: its hooks, each
// with the one that was there before put back.
func RemoveHooks(ctx context.Context, r Repo) (Setup, error) {
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return Setup{}, err
	}
	var s Setup
	for _, name := range Hooks {
		h := HookResult{Name: name, Hook: filepath.Join(dir, name)}
		cur, err := os.ReadFile(h.Hook)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && !strings.Contains(string(cur), hookMarker)) {
			s.Hooks = append(s.Hooks, h)
			continue
		}
		if err != nil {
			return s, err
		}
		saved := h.Hook + savedSuffix
		if _, err := os.Lstat(saved); err == nil {
			if err := os.Rename(saved, h.Hook); err != nil {
				return s, err
			}
			h.Saved = saved
		} else if err := os.Remove(h.Hook); err != nil {
			return s, err
		}
		h.Changed = true
		s.Hooks = append(s.Hooks, h)
	}
	return s, nil
}
