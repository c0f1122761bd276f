package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"
)

const session = "bench-steps-session"

// toolResult is what rewind.toolCall answers.
type toolResult struct {
	Entry string   `json:"entry"`
	Files []string `json:"files"`
	Step  int      `json:"step"`
}

// lspToolCall runs one phase of a tool call through the server as a
// workspace/executeCommand: its answer, wall time and the server's CPU.
func (s *server) lspToolCall(arg map[string]any) (toolResult, time.Duration, time.Duration, error) {
	var r toolResult
	raw, d, cpu, err := s.command("rewind.toolCall", arg)
	if err == nil {
		err = json.Unmarshal(raw, &r)
	}
	return r, d, time.Duration(cpu), err
}

// toolCall runs one phase of a tool call through the server's socket, as
// a hook forwards it: its answer, wall time and the server's CPU.
func (s *server) toolCall(arg map[string]any) (toolResult, time.Duration, time.Duration, error) {
	var r toolResult
	d, cpu, err := s.internal("rewind.toolCall", arg, &r)
	return r, d, time.Duration(cpu), err
}

// ---------------------------------------------------------------- goal 1 and 3

// goal1 measures step boundaries through a language server running on tree
// (a fresh store): Write steps (pre naming the file, the file changed,
// post), Bash steps (pre and post capturing), and, with growth, goal 3's
// steps of 10 files with the store's growth.
func (b *bench) goal1(tree, name string, growth bool) error {
	files, err := pool(tree)
	if err != nil {
		return err
	}
	pk := &picker{files: files}
	b.treeFiles[name] = trackedFiles(tree)
	b.trees = append(b.trees, name)
	store := filepath.Join(b.work, "store-"+name)
	if err := os.RemoveAll(store); err != nil {
		return err
	}
	prof := ""
	if b.profile {
		prof = filepath.Join(b.work, "server-"+name+".prof")
	}
	b.say("%s: starting the server (its first capture, into an empty store) …", name)
	s, err := startServer(b.bin, b.home, tree, store, filepath.Join(b.work, "server-"+name+".log"), prof)
	if err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}
	defer s.stop()
	b.s(name + " ready").Wall = []int64{s.ready.Microseconds()}
	b.info[name+" watchMode"] = s.watchMode
	if s.watchMode != "watch" {
		b.note("%s: the server's watchMode is %q, not \"watch\" (too few inotify watches?)", name, s.watchMode)
	}
	if _, _, _, err := s.command("rewind.turnStart", map[string]any{"session": session, "prompt": "the steps benchmark"}); err != nil {
		return err
	}

	// A step of one tool: pre, the change, post, from an idle server;
	// rewind.toolCall over LSP (an editor's or an agent's report), or over
	// the store's socket (a hook's).
	step := func(i int, tool string, capture, socket bool, change func(f string) error) error {
		f := pk.take()
		s.quiet()
		arg := map[string]any{"session": session, "tool": tool, "toolUse": fmt.Sprintf("toolu_%s_%s_%d", name, tool, i+2)}
		if capture {
			arg["capture"] = true
			arg["detail"] = "printf '…' >> " + f
		} else {
			arg["paths"] = []string{f}
			arg["detail"] = f
		}
		call := s.lspToolCall
		if socket {
			call = s.toolCall
		}
		arg["phase"] = "pre"
		_, preW, preC, err := call(arg)
		if err != nil {
			return err
		}
		if err := change(f); err != nil {
			return err
		}
		arg["phase"] = "post"
		off := s.logSize()
		res, postW, postC, err := call(arg)
		if err != nil {
			return err
		}
		if res.Step == 0 || !slices.Equal(res.Files, []string{f}) {
			return fmt.Errorf("%s post: step %d, files %v (want a step and [%s])", tool, res.Step, res.Files, f)
		}
		if i < 0 {
			return nil
		}
		key := name + " " + strings.ToLower(tool)
		if socket {
			key += "-socket"
		}
		b.rec(key+" pre", preW, preC)
		b.rec(key+" post", postW, postC)
		tr, _ := s.traceSince(off)
		for k, v := range tr {
			b.s(key + " post trace " + k).Wall = append(b.s(key+" post trace "+k).Wall, v)
		}
		return nil
	}
	line := func(i int) func(string) error {
		return func(f string) error {
			return appendTo(filepath.Join(tree, filepath.FromSlash(f)), fmt.Sprintf("\n// rewind-lsp steps bench: step %d\n", i))
		}
	}
	b.say("%s: %d Write steps, %d Bash steps over LSP, %d Write steps over the socket (one warm-up each) …", name, b.n+1, b.n+1, b.n+1)
	for i := -1; i < b.n; i++ {
		if err := step(i, "Write", false, false, line(i)); err != nil {
			return err
		}
		if err := step(i, "Bash", true, false, line(1000+i)); err != nil {
			return err
		}
		if err := step(i, "Write", false, true, line(2000+i)); err != nil {
			return err
		}
	}
	if growth {
		if err := b.goal3(s, tree, pk); err != nil {
			return err
		}
	}
	if _, _, _, err := s.command("rewind.turnEnd", map[string]any{"session": session}); err != nil {
		return err
	}
	s.quiet()
	b.s(name + " VmRSS").Wall = []int64{vmKB(s.pid, "VmRSS")}
	b.s(name + " VmHWM").Wall = []int64{vmKB(s.pid, "VmHWM")}
	return nil
}

// growthStep is one of goal 3's steps.
type growthStep struct {
	Files      int
	NewBytes   int64 // the changed files' new content
	Zstd       int64 // its compressed size, file by file
	ZstdGo     int64 // the same with the store's compressor (klauspost/compress, SpeedDefault)
	Growth     int64 // du -sb of the store after the step minus before
	StoreAfter int64
	// Parts is the growth of each part of the store (apparent sizes of
	// its files): journal, objects/, view/, the rest.
	Parts map[string]int64
}

// storeParts sums the sizes of the store's files by part.
func storeParts(store string) map[string]int64 {
	out := map[string]int64{}
	filepath.WalkDir(store, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		fi, err := e.Info()
		if err != nil || !fi.Mode().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(store, p)
		part, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		switch part {
		case "journal", "objects", "view":
		default:
			part = "other"
		}
		out[part] += fi.Size()
		return nil
	})
	return out
}

// settledSize is du -sb of the store once the server is idle and the
// size has not moved for 300 ms (a background seal, a merge of small
// packs).
func settledSize(s *server) (int64, error) {
	var last int64 = -1
	for i := 0; i < 20; i++ {
		s.quiet()
		n, err := duSB(s.store)
		if err != nil {
			return 0, err
		}
		if n == last {
			return n, nil
		}
		last = n
		time.Sleep(300 * time.Millisecond)
	}
	return last, nil
}

// goal3: steps that change 10 real files each (a block of another file's
// text appended to each) as a Bash call through the server; the store's
// growth against the zstd -3 size of the 10 files' new content.
func (b *bench) goal3(s *server, tree string, pk *picker) error {
	b.say("11k: %d steps of 10 files for the store's growth (one warm-up) …", b.n+1)
	for i := -1; i < b.n; i++ {
		before, err := settledSize(s)
		if err != nil {
			return err
		}
		parts0 := storeParts(s.store)
		var changed []string
		arg := map[string]any{"session": session, "tool": "Bash", "toolUse": fmt.Sprintf("toolu_growth_%d", i+2),
			"capture": true, "detail": "the growth step", "phase": "pre"}
		if _, _, _, err := s.toolCall(arg); err != nil {
			return err
		}
		for j := 0; j < 10; j++ {
			f := pk.take()
			var data []byte
			for data == nil || bytes.IndexByte(data, 0) >= 0 {
				// Text only: a block of a binary file would make f binary.
				if data, err = os.ReadFile(filepath.Join(tree, filepath.FromSlash(pk.take()))); err != nil {
					return err
				}
			}
			if err := appendTo(filepath.Join(tree, filepath.FromSlash(f)), "\n"+string(block(data))); err != nil {
				return err
			}
			changed = append(changed, f)
		}
		arg["phase"] = "post"
		res, _, _, err := s.toolCall(arg)
		if err != nil {
			return err
		}
		sort.Strings(changed)
		if res.Step == 0 || !slices.Equal(res.Files, changed) {
			return fmt.Errorf("growth step: step %d, files %v (want %v)", res.Step, res.Files, changed)
		}
		after, err := settledSize(s)
		if err != nil {
			return err
		}
		g := growthStep{Files: len(changed), Growth: after - before, StoreAfter: after, Parts: map[string]int64{}}
		for k, v := range storeParts(s.store) {
			g.Parts[k] = v - parts0[k]
		}
		for k, v := range parts0 {
			if _, ok := g.Parts[k]; !ok {
				g.Parts[k] = -v
			}
		}
		for _, f := range changed {
			data, err := os.ReadFile(filepath.Join(tree, filepath.FromSlash(f)))
			if err != nil {
				return err
			}
			g.NewBytes += int64(len(data))
			z, err := b.zstdSize(filepath.Join(tree, filepath.FromSlash(f)), data)
			if err != nil {
				return err
			}
			g.Zstd += z
			g.ZstdGo += goZstd(data)
		}
		if i >= 0 {
			b.growth = append(b.growth, g)
		}
	}
	return nil
}

// block is the first 60 lines of a file, at most 4 KiB, whole lines.
func block(data []byte) []byte {
	if len(data) > 4096 {
		data = data[:4096]
		if k := bytes.LastIndexByte(data, '\n'); k > 0 {
			data = data[:k+1]
		}
	}
	n := 0
	for k, c := range data {
		if c == '\n' {
			n++
			if n == 60 {
				return data[:k+1]
			}
		}
	}
	return data
}

var zenc *zstd.Encoder

// goZstd is the size of data compressed by klauspost/compress at
// SpeedDefault (its level 3, what the store uses outside a first capture),
// without a checksum, as the store writes it.
func goZstd(data []byte) int64 {
	if zenc == nil {
		zenc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderCRC(false))
	}
	return int64(len(zenc.EncodeAll(data, nil)))
}

// zstdSize is the size of data compressed by zstd at level 3: the C tool
// when there is one (-zstd), else klauspost/compress at SpeedDefault.
func (b *bench) zstdSize(path string, data []byte) (int64, error) {
	if b.zstdCLI != "" {
		out, err := exec.Command(b.zstdCLI, "-q", "-3", "-c", path).Output()
		if err != nil {
			return 0, fmt.Errorf("zstd -3 %s: %v", path, err)
		}
		return int64(len(out)), nil
	}
	return goZstd(data), nil
}

// ---------------------------------------------------------------- goal 2

// side is one binary's server and Claude Code session for the hook pairs.
type side struct {
	name, bin, tree, store string
	s                      *server
	transcript             string
	last                   string // the transcript's last uuid
	entries                int
	pk                     *picker
}

func (sd *side) hook(b *bench, event string, extra map[string]any) (ran, error) {
	ev := map[string]any{"session_id": session, "transcript_path": sd.transcript, "cwd": sd.tree,
		"permission_mode": "acceptEdits", "hook_event_name": event}
	for k, v := range extra {
		ev[k] = v
	}
	data, _ := json.Marshal(ev)
	r, err := run(sd.bin, b.home, sd.tree, string(data), "--store", sd.store, "hook", "claude-code")
	if err == nil && len(bytes.TrimSpace(r.stderr)) > 0 {
		err = fmt.Errorf("%s: hook %s: %s", sd.name, event, bytes.TrimSpace(r.stderr))
	}
	return r, err
}

// line appends one entry to the session's transcript, as Claude Code
// writes it, threaded to the last one.
func (sd *side) line(kind string, message any, extra map[string]any) error {
	sd.entries++
	uuid := fmt.Sprintf("bench-%s-%d", sd.name, sd.entries)
	e := map[string]any{"type": kind, "uuid": uuid, "sessionId": session, "promptId": "bench-prompt-1",
		"cwd": sd.tree, "message": message}
	if sd.last != "" {
		e["parentUuid"] = sd.last
	} else {
		e["parentUuid"] = nil
	}
	for k, v := range extra {
		e[k] = v
	}
	data, _ := json.Marshal(e)
	sd.last = uuid
	f, err := os.OpenFile(sd.transcript, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if err2 := f.Close(); err == nil {
		err = err2
	}
	return err
}

// pair is one tool call of the session through the hook: the assistant's
// tool_use in the transcript, PreToolUse, the change, the tool_result,
// PostToolUse. Each hook's time is the process's, its CPU the process's
// (rusage) plus the server's over the process's life (schedstat).
func (sd *side) pair(b *bench, i int, tool string) error {
	f := sd.pk.take()
	abs := filepath.Join(sd.tree, filepath.FromSlash(f))
	id := fmt.Sprintf("toolu_bench_%s_%d", tool, i+2)
	old, err := os.ReadFile(abs)
	if err != nil {
		return err
	}
	content := string(old) + fmt.Sprintf("\n// rewind-lsp steps bench: hook pair %d\n", i)
	var input map[string]any
	var change func() error
	var response any
	switch tool {
	case "Write":
		input = map[string]any{"file_path": abs, "content": content}
		change = func() error { return os.WriteFile(abs, []byte(content), 0o644) }
		response = map[string]any{"type": "update", "filePath": abs, "content": content}
	default:
		cmd := fmt.Sprintf("printf '\\n// rewind-lsp steps bench: hook pair %d\\n' >> %s", i, f)
		input = map[string]any{"command": cmd, "description": "append a line"}
		change = func() error {
			c := exec.Command("sh", "-c", cmd)
			c.Dir = sd.tree
			return c.Run()
		}
		response = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
	}
	if err := sd.line("assistant", map[string]any{"role": "assistant", "content": []any{
		map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}}}, nil); err != nil {
		return err
	}
	sd.s.quiet()
	ev := map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": id}
	c0 := cpuNs(sd.s.pid)
	pre, err := sd.hook(b, "PreToolUse", ev)
	c1 := cpuNs(sd.s.pid)
	if err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	if err := sd.line("user", map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": "ok"}}}, map[string]any{"toolUseResult": response}); err != nil {
		return err
	}
	ev["tool_response"] = response
	c2 := cpuNs(sd.s.pid)
	post, err := sd.hook(b, "PostToolUse", ev)
	c3 := cpuNs(sd.s.pid)
	if err != nil {
		return err
	}
	if i < 0 {
		return nil
	}
	key := "hook " + sd.name + " " + strings.ToLower(tool)
	preSrv, postSrv := time.Duration(c1-c0), time.Duration(c3-c2)
	b.rec(key+" pre", pre.wall, pre.cpu+preSrv)
	b.rec(key+" post", post.wall, post.cpu+postSrv)
	b.rec(key+" pair", pre.wall+post.wall, pre.cpu+post.cpu+preSrv+postSrv)
	b.rec(key+" pair cli", pre.wall+post.wall, pre.cpu+post.cpu)
	b.rec(key+" pair srv", pre.wall+post.wall, preSrv+postSrv)
	return nil
}

// goal2: the hook pair of a Write and of a Bash call, with a server
// running, for this binary and the base one, each on its own copy of the
// tree with a fresh store, alternating.
func (b *bench) goal2(tree string) error {
	files, err := pool(tree)
	if err != nil {
		return err
	}
	baseTree := filepath.Join(b.work, "tree-base")
	b.say("hooks: copying the tree for the base binary …")
	os.RemoveAll(baseTree)
	if err := copyTree(tree, baseTree); err != nil {
		return err
	}
	defer os.RemoveAll(baseTree)
	sides := []*side{
		{name: "bin", bin: b.bin, tree: tree},
		{name: "base", bin: b.base, tree: baseTree},
	}
	for _, sd := range sides {
		sd.store = filepath.Join(b.work, "store-hook-"+sd.name)
		os.RemoveAll(sd.store)
		sd.transcript = filepath.Join(b.work, "claude-"+sd.name, session+".jsonl")
		os.MkdirAll(filepath.Dir(sd.transcript), 0o755)
		os.Remove(sd.transcript)
		sd.pk = &picker{files: files, next: len(files) / 2} // files goal 1 did not change
		prof := ""
		if b.profile {
			prof = filepath.Join(b.work, "server-hook-"+sd.name+".prof")
		}
		b.say("hooks: starting the %s binary's server …", sd.name)
		s, err := startServer(sd.bin, b.home, sd.tree, sd.store, filepath.Join(b.work, "server-hook-"+sd.name+".log"), prof)
		if err != nil {
			return fmt.Errorf("%s: starting the server: %w", sd.name, err)
		}
		sd.s = s
		defer s.stop()
		// The prompt: UserPromptSubmit (the transcript as it is then), then
		// the prompt's entry, as Claude Code writes them.
		if err := os.WriteFile(sd.transcript, nil, 0o644); err != nil {
			return err
		}
		if _, err := sd.hook(b, "UserPromptSubmit", map[string]any{"prompt": "the steps benchmark", "prompt_id": "bench-prompt-1"}); err != nil {
			return err
		}
		if err := sd.line("user", map[string]any{"role": "user", "content": "the steps benchmark"}, nil); err != nil {
			return err
		}
	}
	b.say("hooks: %d Write and Bash pairs with each binary, alternating (one warm-up) …", b.n+1)
	for i := -1; i < b.n; i++ {
		order := sides
		if i%2 != 0 {
			order = []*side{sides[1], sides[0]}
		}
		for _, tool := range []string{"Write", "Bash"} {
			for _, sd := range order {
				if err := sd.pair(b, i, tool); err != nil {
					return err
				}
			}
		}
	}
	// The steps this binary recorded: one per call.
	bin := sides[0]
	raw, _, _, err := bin.s.command("rewind.list", map[string]any{"limit": 1})
	if err != nil {
		return err
	}
	var l struct {
		Turns []struct {
			Steps []json.RawMessage `json:"steps"`
		} `json:"turns"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		return err
	}
	if len(l.Turns) != 1 || len(l.Turns[0].Steps) != 2*(b.n+1) {
		got := -1
		if len(l.Turns) == 1 {
			got = len(l.Turns[0].Steps)
		}
		return fmt.Errorf("the hook pairs recorded %d steps, want %d", got, 2*(b.n+1))
	}
	for _, sd := range sides {
		sd.line("assistant", map[string]any{"role": "assistant", "content": "done"}, nil)
		if _, err := sd.hook(b, "Stop", map[string]any{"stop_hook_active": false}); err != nil {
			return err
		}
	}
	return nil
}

// ---------------------------------------------------------------- goal 4

const (
	hotFiles = 5    // every step changes one of them, in turn
	hotLines = 2100 // lines of each
	counter  = 3    // the line every step but one rewrites
	apart    = 1000 // the line the middle step changes instead
)

// historyRoot makes dir/root: a git repository of ~300 text files cut from
// GOROOT/src, hot/h0.txt … h4.txt among them.
func (b *bench) historyRoot(dir string) (string, error) {
	root := filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "hot"), 0o755); err != nil {
		return "", err
	}
	src := filepath.Join(b.goroot, "src")
	var text []string
	n := 0
	for _, pkg := range []string{"strings", "bytes", "bufio", "strconv", "sort", "unicode/utf8", "path", "errors", "container/list",
		"text/tabwriter", "text/template", "encoding/json", "encoding/csv", "flag", "fmt", "io", "os/exec", "regexp", "time"} {
		ents, err := os.ReadDir(filepath.Join(src, pkg))
		if err != nil {
			continue
		}
		for _, e := range ents {
			if n >= 300-hotFiles || !e.Type().IsRegular() {
				continue
			}
			data, err := os.ReadFile(filepath.Join(src, pkg, e.Name()))
			if err != nil || len(data) > 64<<10 {
				continue
			}
			dst := filepath.Join(root, "src", pkg, e.Name())
			os.MkdirAll(filepath.Dir(dst), 0o755)
			if err := os.WriteFile(dst, data, 0o644); err != nil {
				return "", err
			}
			if len(text) < hotFiles*hotLines {
				text = append(text, strings.Split(strings.TrimRight(string(data), "\n"), "\n")...)
			}
			n++
		}
	}
	if n < 200 || len(text) < hotFiles*hotLines {
		return "", fmt.Errorf("%s: too little text for the roots (%d files, %d lines)", src, n, len(text))
	}
	for h := 0; h < hotFiles; h++ {
		lines := text[h*hotLines : (h+1)*hotLines]
		if err := os.WriteFile(filepath.Join(root, "hot", fmt.Sprintf("h%d.txt", h)), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			return "", err
		}
	}
	b.historyFiles = n + hotFiles
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "--no-verify", "-m", "root"}} {
		if _, err := git(root, args...); err != nil {
			return "", err
		}
	}
	return root, nil
}

// hotEdit makes step k (from 0) of a turn of steps steps: it rewrites line
// counter of hot file k%5 to name the step, except the middle step (the
// one the measures rewind to and revert), which changes line apart of its
// file instead, a line no other step touches. However long the turn, the
// state before the middle step then differs from the end in the same 6
// lines of the 5 files (the counters, the middle step's line), and a revert
// of the middle step is a clean three-way merge of one line.
func hotEdit(root string, k, steps int) error {
	rel := fmt.Sprintf("hot/h%d.txt", k%hotFiles)
	p := filepath.Join(root, filepath.FromSlash(rel))
	data, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	if k+1 == steps/2 {
		lines[apart] = fmt.Sprintf("// the middle step (%d) changed this line", k+1)
	} else {
		lines[counter] = fmt.Sprintf("// step %d of the benchmark turn", k+1)
	}
	return os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644)
}

// historyTurn records, through a server over LSP, one turn of steps steps
// on a fresh root; it returns the root, the store and the turn.
func (b *bench) historyTurn(steps int) (root, store string, turn int, err error) {
	dir := filepath.Join(b.work, fmt.Sprintf("turn-%d", steps))
	os.RemoveAll(dir)
	if root, err = b.historyRoot(dir); err != nil {
		return
	}
	store = filepath.Join(dir, "store")
	prof := ""
	if b.profile {
		prof = filepath.Join(b.work, fmt.Sprintf("server-turn-%d.prof", steps))
	}
	s, err := startServer(b.bin, b.home, root, store, filepath.Join(dir, "server.log"), prof)
	if err != nil {
		return
	}
	defer s.stop()
	raw, _, _, err := s.command("rewind.turnStart", map[string]any{"session": session, "prompt": fmt.Sprintf("a turn of %d steps", steps)})
	if err != nil {
		return
	}
	var st struct {
		Turn int `json:"turn"`
	}
	if err = json.Unmarshal(raw, &st); err != nil {
		return
	}
	turn = st.Turn
	t0 := time.Now()
	var pre, post []int64
	for k := 0; k < steps; k++ {
		rel := fmt.Sprintf("hot/h%d.txt", k%hotFiles)
		arg := map[string]any{"session": session, "tool": "Write", "toolUse": fmt.Sprintf("toolu_%d", k+1), "phase": "pre",
			"paths": []string{rel}, "detail": rel}
		var d time.Duration
		if _, d, _, err = s.lspToolCall(arg); err != nil {
			return
		}
		pre = append(pre, d.Microseconds())
		if err = hotEdit(root, k, steps); err != nil {
			return
		}
		arg["phase"] = "post"
		var res toolResult
		if res, d, _, err = s.lspToolCall(arg); err != nil {
			return
		}
		if res.Step != k+1 {
			err = fmt.Errorf("step %d was recorded as step %d", k+1, res.Step)
			return
		}
		post = append(post, d.Microseconds())
	}
	b.s(fmt.Sprintf("record %d", steps)).Wall = []int64{time.Since(t0).Microseconds()}
	b.s(fmt.Sprintf("record %d post", steps)).Wall = post
	b.s(fmt.Sprintf("record %d pre", steps)).Wall = pre
	if _, _, _, err = s.command("rewind.turnEnd", map[string]any{"session": session}); err != nil {
		return
	}
	s.quiet()
	return
}

// goal4: a turn of 10 steps and one of 1,000, each on its own root; log,
// rewind and undo, revert and undo, diff from the command line with no
// server, alternating the roots.
func (b *bench) goal4() error {
	b.stepsS = []int{10, 1000}
	type root struct {
		steps       int
		root, store string
		turn        int
	}
	var roots []root
	for _, S := range b.stepsS {
		b.say("long turns: recording a turn of %d steps through a server …", S)
		r, st, t, err := b.historyTurn(S)
		if err != nil {
			return fmt.Errorf("a turn of %d steps: %w", S, err)
		}
		roots = append(roots, root{S, r, st, t})
	}
	b.historyChange = hotFiles
	var cliEnv []string
	cli := func(r root, args ...string) (ran, error) {
		return runEnv(cliEnv, b.bin, b.home, r.root, "", append([]string{"--root", r.root, "--store", r.store}, args...)...)
	}
	type applied struct {
		Applied bool `json:"applied"`
		Plan    struct {
			Files []json.RawMessage `json:"files"`
		} `json:"plan"`
	}
	check := func(r ran, what string, files int) error {
		var a applied
		if err := json.Unmarshal(r.stdout, &a); err != nil {
			return fmt.Errorf("%s answered %.300s: %w", what, r.stdout, err)
		}
		if !a.Applied || len(a.Plan.Files) != files {
			return fmt.Errorf("%s: applied %v, %d files (want %d): %.500s", what, a.Applied, len(a.Plan.Files), files, r.stdout)
		}
		return nil
	}
	measures := []struct {
		name string
		do   func(r root, target string) (ran, error)
	}{
		{"log", func(r root, _ string) (ran, error) {
			x, err := cli(r, "--json", "log", "--limit", "50")
			if err != nil {
				return x, err
			}
			var l struct {
				Turns []struct {
					Steps []json.RawMessage `json:"steps"`
				} `json:"turns"`
			}
			if err := json.Unmarshal(x.stdout, &l); err != nil {
				return x, fmt.Errorf("log --json: %w", err)
			}
			if len(l.Turns) == 0 || len(l.Turns[len(l.Turns)-1].Steps) != r.steps {
				return x, fmt.Errorf("log --json of the %d-step turn lists %d turns", r.steps, len(l.Turns))
			}
			b.info[fmt.Sprintf("log bytes %d", r.steps)] = fmt.Sprint(len(x.stdout))
			return x, nil
		}},
		{"rewind", func(r root, target string) (ran, error) {
			x, err := cli(r, "--json", "rewind", target)
			if err == nil {
				err = check(x, "rewind "+target, hotFiles)
			}
			return x, err
		}},
		{"rewind undo", func(r root, _ string) (ran, error) {
			x, err := cli(r, "--json", "undo")
			if err == nil {
				err = check(x, "undo of the rewind", hotFiles)
			}
			return x, err
		}},
		{"revert", func(r root, target string) (ran, error) {
			x, err := cli(r, "--json", "revert", target)
			if err == nil {
				err = check(x, "revert "+target, 1)
			}
			return x, err
		}},
		{"revert undo", func(r root, _ string) (ran, error) {
			x, err := cli(r, "--json", "undo")
			if err == nil {
				err = check(x, "undo of the revert", 1)
			}
			return x, err
		}},
		{"diff", func(r root, target string) (ran, error) {
			x, err := cli(r, "diff", target)
			if err == nil && bytes.Count(x.stdout, []byte("\n+++ ")) < 1 {
				err = fmt.Errorf("diff %s printed no file: %.300s", target, x.stdout)
			}
			return x, err
		}},
	}
	b.say("long turns: log, rewind + undo, revert + undo, diff with the command line (no server), %d runs after a warm-up …", b.n)
	for i := -1; i < b.n; i++ {
		order := roots
		if i%2 != 0 {
			order = []root{roots[1], roots[0]}
		}
		for _, r := range order {
			target := fmt.Sprintf("%d.%d", r.turn, r.steps/2)
			for _, m := range measures {
				x, err := m.do(r, target)
				if err != nil {
					return err
				}
				if i >= 0 {
					b.rec(fmt.Sprintf("cli %d %s", r.steps, m.name), x.wall, x.cpu)
				}
			}
		}
	}
	if b.profile {
		// One more round on the longest turn, each command writing a CPU
		// profile (not timed).
		r := roots[len(roots)-1]
		target := fmt.Sprintf("%d.%d", r.turn, r.steps/2)
		for _, m := range measures {
			cliEnv = []string{"REWIND_LSP_CPUPROFILE=" + filepath.Join(b.work, fmt.Sprintf("cli-%d-%s.prof", r.steps, strings.ReplaceAll(m.name, " ", "-")))}
			if _, err := m.do(r, target); err != nil {
				return err
			}
		}
		cliEnv = nil
	}
	return nil
}
