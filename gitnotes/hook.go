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

// hookMarker is the line that marks a hook rewind-lsp wrote.
const hookMarker = "# rewind-lsp: git notes of provenance (rewind-lsp setup git)"

// savedSuffix names the hook that was there before, which rewind-lsp's
// hook runs first and --remove puts back.
const savedSuffix = ".rewind-lsp-saved"

// HookResult is what InstallHook or RemoveHook did.
type HookResult struct {
	// Hook is the hook file.
	Hook string
	// Changed is false when there was nothing to do.
	Changed bool
	// Saved is where a hook that was there before now is ("" if none).
	Saved string
	// Manager is the hook manager that owns the repository's hooks
	// ("husky", "lefthook", "pre-commit"), when one does: then nothing was
	// changed and Line is the command to add to its post-commit hook.
	Manager, Line string
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

// HookLine is the shell line a post-commit hook runs: command (rewind-lsp as
// a shell word, with any global flags) with "hook git post-commit".
func HookLine(command string) string { return command + " hook git post-commit" }

// InstallHook makes git run command's post-commit hook in r. A hook that
// was there keeps running, first, and its exit status stays the hook's; a
// hook rewind-lsp wrote already is left as it is; a hook manager's hooks are
// left alone (Manager and Line say what to add).
func InstallHook(ctx context.Context, r Repo, command string) (HookResult, error) {
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return HookResult{}, err
	}
	res := HookResult{Hook: filepath.Join(dir, "post-commit"), Line: HookLine(command)}
	old, err := os.ReadFile(res.Hook)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	if strings.Contains(string(old), hookMarker) {
		return res, nil
	}
	if m := r.manager(ctx, dir, old); m != "" {
		res.Manager = m
		return res, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	if old != nil {
		res.Saved = res.Hook + savedSuffix
		if _, err := os.Lstat(res.Saved); err == nil {
			return res, fmt.Errorf("%s exists already; move it away and run setup git again", res.Saved)
		}
		if err := os.Rename(res.Hook, res.Saved); err != nil {
			return res, err
		}
	}
	if err := os.WriteFile(res.Hook, []byte(hookScript(command)), 0o755); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}

// hookScript is the post-commit hook: the saved hook first (its exit
// status is the hook's), then rewind-lsp, which never fails the commit.
func hookScript(command string) string {
	return "#!/bin/sh\n" + hookMarker + "\n" +
		"# `rewind-lsp setup git --remove` takes this hook out and puts back the one that was here.\n" +
		"status=0\n" +
		"saved=\"$0" + savedSuffix + "\"\n" +
		"if [ -x \"$saved\" ]; then \"$saved\" \"$@\"; status=$?; fi\n" +
		HookLine(command) + " \"$@\" </dev/null >/dev/null || true\n" +
		"exit $status\n"
}

// manager names the hook manager that owns the hooks in dir, if any.
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

// RemoveHook takes out exactly what InstallHook added: its hook, with the
// one that was there before put back.
func RemoveHook(ctx context.Context, r Repo) (HookResult, error) {
	dir, err := r.HooksDir(ctx)
	if err != nil {
		return HookResult{}, err
	}
	res := HookResult{Hook: filepath.Join(dir, "post-commit")}
	cur, err := os.ReadFile(res.Hook)
	if errors.Is(err, fs.ErrNotExist) || (err == nil && !strings.Contains(string(cur), hookMarker)) {
		return res, nil
	}
	if err != nil {
		return res, err
	}
	saved := res.Hook + savedSuffix
	if _, err := os.Lstat(saved); err == nil {
		if err := os.Rename(saved, res.Hook); err != nil {
			return res, err
		}
		res.Saved = saved
	} else if err := os.Remove(res.Hook); err != nil {
		return res, err
	}
	res.Changed = true
	return res, nil
}
