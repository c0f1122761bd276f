package main

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// git runs git in dir with the benchmark's configuration (no system or
// user configuration, a fixed identity, no background gc).
func git(dir string, args ...string) ([]byte, error) {
	a := append([]string{"-c", "user.name=rewind-bench", "-c", "user.email=bench@rewind-lsp.invalid",
		"-c", "gc.auto=0", "-c", "maintenance.auto=false", "-C", dir}, args...)
	cmd := exec.Command("git", a...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		return out, fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, errb.Bytes())
	}
	return out, nil
}

// pool lists the tracked regular files of tree of 200 B – 256 KiB in a
// fixed pseudo-random order: the files the measures change (as the other
// benchmarks choose them).
func pool(tree string) ([]string, error) {
	out, err := git(tree, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		mode, path, ok := strings.Cut(string(rec), "\t")
		if !ok || !(strings.HasPrefix(mode, "100644 ") || strings.HasPrefix(mode, "100755 ")) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(tree, filepath.FromSlash(path)))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() < 200 || fi.Size() > 256<<10 {
			continue
		}
		files = append(files, path)
	}
	sort.Strings(files)
	rand.New(rand.NewSource(42)).Shuffle(len(files), func(i, j int) { files[i], files[j] = files[j], files[i] })
	if len(files) < 100 {
		return nil, fmt.Errorf("%s: only %d files to change", tree, len(files))
	}
	return files, nil
}

// picker hands out the files of a pool in turn, so every change is to a
// file no earlier change touched (while the pool lasts).
type picker struct {
	files []string
	next  int
}

func (p *picker) take() string {
	f := p.files[p.next%len(p.files)]
	p.next++
	return f
}

func appendTo(path string, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}

func trackedFiles(tree string) int {
	out, err := git(tree, "ls-files", "-z")
	if err != nil {
		return 0
	}
	return bytes.Count(out, []byte{0})
}

// duSB is `du -sb DIR`: the apparent size of everything in it, folders
// included.
func duSB(dir string) (int64, error) {
	out, err := exec.Command("du", "-sb", dir).Output()
	if err != nil {
		return 0, fmt.Errorf("du -sb %s: %v", dir, err)
	}
	var n int64
	_, err = fmt.Sscan(string(out), &n)
	return n, err
}

func copyTree(src, dst string) error {
	if out, err := exec.Command("cp", "-a", src, dst).CombinedOutput(); err != nil {
		return fmt.Errorf("cp -a %s %s: %v: %s", src, dst, err, out)
	}
	return nil
}
