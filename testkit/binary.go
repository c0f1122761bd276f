package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	_ "github.com/rewind-lsp/rewind-lsp/testkit/wine" // under wine, removals work
)

var (
	buildOnce sync.Once
	buildDir  string
	buildPath string
	buildErr  error
)

// ModuleRoot is the folder holding the module's go.mod, found upwards from
// the working folder (a test runs in its package's folder).
func ModuleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
}

// Binary is the real rewind-lsp, built from this module once per test
// process into a temporary folder (Main removes it). Three switches:
// REWIND_LSP_TEST_RACE set builds it with -race (the e2e tests then
// race-check the server too); REWIND_TEST_OVERLAY=FILE builds it with
// -overlay FILE; REWIND_LSP_TEST_BIN=PATH uses that binary, built
// already (scripts/wine.sh builds the Windows one: no Go toolchain runs
// under wine). A failed build fails the test.
func Binary(tb testing.TB) string {
	tb.Helper()
	path, err := build()
	if err != nil {
		tb.Fatal(err)
	}
	return path
}

func build() (string, error) {
	buildOnce.Do(func() {
		if p := os.Getenv("REWIND_LSP_TEST_BIN"); p != "" {
			buildPath = p
			return
		}
		root, err := ModuleRoot()
		if err != nil {
			buildErr = err
			return
		}
		if buildDir, err = os.MkdirTemp("", "rewind-lsp-bin-"); err != nil {
			buildErr = err
			return
		}
		buildPath = filepath.Join(buildDir, "rewind-lsp")
		if runtime.GOOS == "windows" {
			buildPath += ".exe"
		}
		args := []string{"build", "-o", buildPath}
		if os.Getenv("REWIND_LSP_TEST_RACE") != "" {
			args = append(args, "-race")
		}
		if ov := os.Getenv("REWIND_TEST_OVERLAY"); ov != "" {
			args = append(args, "-overlay", ov)
		}
		cmd := exec.Command("go", append(args, "./cmd/rewind-lsp")...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/rewind-lsp: %v\n%s", err, out)
		}
	})
	return buildPath, buildErr
}

// Main runs a package's tests and then removes the binary built for them;
// call it from TestMain: os.Exit(testkit.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	return code
}
