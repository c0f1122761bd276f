package opencode

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/rewind-lsp/rewind-lsp/agent"
	"github.com/rewind-lsp/rewind-lsp/agent/internal/conv"
)

// ocServerTimeout bounds one conversation with `opencode serve`: it starts
// in a few seconds on an idle machine, more on a busy one.
const ocServerTimeout = 90 * time.Second

// ocServer is a running `opencode serve` (or `kilo serve`): its HTTP API on
// 127.0.0.1, behind a password of the moment.
type ocServer struct {
	ctx       context.Context
	base      string
	dir       string
	user, pwd string
}

// ocNotFound is the server's 404.
type ocNotFound struct{ path string }

func (e *ocNotFound) Error() string { return e.path + ": not found" }

// withServer starts the agent's server on database db (--pure: without
// external plugins, rewind-lsp's among them), for the project folder dir,
// runs fn, and stops it. The agent missing from PATH is a *Refusal. The
// server reads none of the person's configuration (serverConfig), which a
// fork needs nothing of.
func (a openCode) withServer(db, dir string, fn func(s *ocServer) error) error {
	bin, err := exec.LookPath(a.bin)
	if err != nil {
		return agent.Refusef("%s is not on PATH: it forks its own sessions", a.bin)
	}
	ctx, cancel := context.WithTimeout(context.Background(), ocServerTimeout)
	defer cancel()
	var pw [16]byte
	rand.Read(pw[:])
	s := &ocServer{ctx: ctx, dir: dir, user: "rewind-lsp", pwd: hex.EncodeToString(pw[:])}
	config, err := a.serverConfig()
	if err != nil {
		return err
	}
	defer os.RemoveAll(config)
	cmd := exec.CommandContext(ctx, bin, "serve", "--pure", "--port", "0", "--hostname", "127.0.0.1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PWD="+dir, "XDG_CONFIG_HOME="+config, a.env+"_DISABLE_PROJECT_CONFIG=1",
		a.env+"_DB="+db, a.env+"_SERVER_USERNAME="+s.user, a.env+"_SERVER_PASSWORD="+s.pwd,
		a.env+"_DISABLE_AUTOUPDATE=1", a.env+"_DISABLE_MODELS_FETCH=1", a.env+"_DISABLE_LSP_DOWNLOAD=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s serve: %w", a.bin, err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	// It says where it listens on its first lines.
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if i := strings.Index(sc.Text(), "http://"); i >= 0 && !sent {
				found <- strings.Fields(sc.Text()[i:])[0]
				sent = true
			}
		}
		if !sent {
			close(found)
		}
	}()
	select {
	case u, ok := <-found:
		if !ok {
			return fmt.Errorf("%s serve exited without listening: %s", a.bin, conv.LastLine(strings.TrimSpace(stderr.String())))
		}
		s.base = strings.TrimSuffix(u, "/")
	case <-ctx.Done():
		return fmt.Errorf("%s serve did not start within %v", a.bin, ocServerTimeout)
	}
	return fn(s)
}

// call sends one request (body as JSON, unless nil) and decodes the answer
// into result (may be nil). A 404 is an *ocNotFound.
func (s *ocServer) call(method, path string, body, result any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(s.ctx, method, s.base+path+"?directory="+url.QueryEscape(s.dir), rd)
	if err != nil {
		return err
	}
	req.SetBasicAuth(s.user, s.pwd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return &ocNotFound{path: path}
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, conv.LastLine(strings.TrimSpace(string(data))))
	case result == nil:
		return nil
	}
	if err := json.Unmarshal(data, result); err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	return nil
}

// serverConfig makes an empty configuration folder for the server
// (XDG_CONFIG_HOME): at start the agent installs its plugin package into
// its configuration folder with npm, in the background, unless the folder
// says it is installed. Stopping the server during that install could
// leave the person's folder half-installed; this one says it is installed
// (the server loads no plugin), and is removed afterwards.
func (a openCode) serverConfig() (string, error) {
	dir, err := os.MkdirTemp("", "rewind-lsp-"+a.bin+"-")
	if err != nil {
		return "", err
	}
	pkg := "@opencode-ai/plugin"
	if a.name == KiloName {
		pkg = "@kilocode/plugin"
	}
	deps := map[string]any{"dependencies": map[string]string{pkg: "*"}}
	lock := map[string]any{"lockfileVersion": 3, "packages": map[string]any{"": deps}}
	cfg := filepath.Join(dir, a.dir)
	err = os.MkdirAll(filepath.Join(cfg, "node_modules"), 0o700)
	for name, v := range map[string]any{"package.json": deps, "package-lock.json": lock} {
		data, _ := json.Marshal(v)
		if err == nil {
			err = os.WriteFile(filepath.Join(cfg, name), data, 0o600)
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("a configuration folder for %s serve: %w", a.bin, err)
	}
	return dir, nil
}
