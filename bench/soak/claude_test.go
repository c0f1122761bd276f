package soak

import (
	"fmt"
	"os"

	"github.com/rewind-lsp/rewind-lsp/commands"
)

// Notices a Claude Code session's next prompt must (or may) print.
const (
	noticeNone = iota
	noticeDue
	noticeMaybe
)

// claudeTurn is one prompt of the Claude Code session: UserPromptSubmit,
// each change between PreToolUse and PostToolUse (Write for text, Bash for
// the rest), perhaps an MCP checkpoint and rewind of its own, then Stop.
// inner, if set, is another session's turn run inside this one.
func (d *driver) claudeTurn(inner func()) {
	cc := d.cc
	tag := fmt.Sprintf("claude turn %d", d.turns+1)
	var forkBytes int64
	if fi, err := os.Stat(cc.transcript); err == nil {
		forkBytes = fi.Size()
	}
	r, err := d.hook(cc, "UserPromptSubmit", map[string]any{"prompt": tag})
	if err != nil {
		d.fail("%v", err)
	}
	switch {
	case d.notice == noticeDue && r.stdout == "":
		d.fail("the prompt after a rewind that changed files printed no notice")
	case d.notice == noticeNone && r.stdout != "":
		d.fail("a prompt printed a notice with no rewind since the last prompt: %q", r.stdout)
	}
	d.notice = noticeNone
	d.recorded()
	start := d.m.cur.clone()
	cc.appendLine("user", tag)
	if d.rng.Intn(8) == 0 {
		d.mcpCheckpoint(tag)
	}
	for k := 1 + d.rng.Intn(4); k > 0; k-- {
		c := d.nextChange(tag)
		tool, input := "Write", map[string]any{"file_path": d.abs(c.rel), "content": "…"}
		if c.shell {
			tool, input = "Bash", map[string]any{"command": "sh -c 'change " + c.rel + "'"}
		}
		id := fmt.Sprintf("toolu_%d_%d", d.step, k)
		ev := map[string]any{"tool_name": tool, "tool_input": input, "tool_use_id": id}
		if _, err := d.hook(cc, "PreToolUse", ev); err != nil {
			d.fail("%v", err)
		}
		d.apply(c)
		ev["tool_response"] = map[string]any{"success": true}
		if _, err := d.hook(cc, "PostToolUse", ev); err != nil {
			d.fail("%v", err)
		}
		cc.appendLine("assistant", "changed "+c.rel)
		if d.mcpCP != nil && d.rng.Intn(10) == 0 && !d.leave["mcp-rewind"] {
			d.mcpRewind(tag)
		}
	}
	if inner != nil {
		inner()
	}
	d.ed.reload()
	r, err = d.hook(cc, "Stop", map[string]any{"stop_hook_active": false})
	if err != nil {
		d.fail("%v", err)
		return
	}
	d.recorded()
	var l commands.ListResult
	if err := d.cmd(commands.NameList, map[string]any{"limit": 3}, &l); err != nil {
		d.fail("rewind.list: %v", err)
		return
	}
	var t *commands.TurnInfo
	for i := range l.Turns {
		if l.Turns[i].Prompt == tag {
			t = &l.Turns[i]
		}
	}
	if t == nil || t.Ended == "" || t.Session != cc.session || t.Agent != "claude-code" {
		d.fail("the Claude Code turn %q is not listed as ended (session %s): %+v", tag, cc.session, t)
		return
	}
	d.checkChanged(fmt.Sprintf("turn %d (claude code)", t.Turn), start, d.m.cur, changedSet(t.Changed))
	d.targets = append(d.targets, &target{spec: d.pick(string(t.Entry), fmt.Sprint(t.Turn), t.Turn), st: start, epoch: d.epoch, step: d.step})
	end := d.record(fmt.Sprintf("turn:%d:end", t.Turn), false)
	d.turnRecs(turnRec{num: t.Turn, kind: "claude", start: start, end: end.st, epoch: d.epoch, interleaved: inner != nil,
		forkBytes: forkBytes, session: cc.session, transcript: cc.transcript})
	d.endTurn("claude", r.took)
}

// agentTurn is a turn of another agent's hooks (Codex, Gemini CLI), with
// their own event names; its changes go through the shell tool.
func (d *driver) agentTurn(agent string) {
	tag := fmt.Sprintf("%s turn %d", agent, d.turns+1)
	session := "soak-" + agent
	names := map[string][4]string{
		"codex":  {"UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"},
		"gemini": {"BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent"},
	}[agent]
	send := func(event string, extra map[string]any) (proc, error) {
		ev := map[string]any{"hook_event_name": event, "session_id": session, "cwd": d.root,
			"transcript_path": d.home + "/" + agent + "-" + session + ".jsonl", "turn_id": fmt.Sprint("t", d.step)}
		for k, v := range extra {
			ev[k] = v
		}
		b, _ := jsonMarshal(ev)
		r := d.run(string(b), "hook", agent)
		if r.code != 0 {
			return r, fmt.Errorf("hook %s %s: exit %d: %s", agent, event, r.code, r.stderr)
		}
		return r, nil
	}
	if _, err := send(names[0], map[string]any{"prompt": tag}); err != nil {
		d.fail("%v", err)
		return
	}
	d.recorded()
	start := d.m.cur.clone()
	for k := 1 + d.rng.Intn(3); k > 0; k-- {
		c := d.nextChange(tag)
		tool := map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "change " + c.rel}}
		if agent == "gemini" {
			tool = map[string]any{"tool_name": "run_shell_command", "tool_input": map[string]any{"command": "change " + c.rel}}
			if !c.shell {
				tool = map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": d.abs(c.rel)}}
			}
		}
		send(names[1], tool)
		d.apply(c)
		send(names[2], tool)
	}
	d.ed.reload()
	r, err := send(names[3], nil)
	if err != nil {
		d.fail("%v", err)
		return
	}
	d.recorded()
	var l commands.ListResult
	if err := d.cmd(commands.NameList, map[string]any{"limit": 3}, &l); err != nil {
		d.fail("rewind.list: %v", err)
		return
	}
	var t *commands.TurnInfo
	for i := range l.Turns {
		if l.Turns[i].Prompt == tag {
			t = &l.Turns[i]
		}
	}
	if t == nil || t.Ended == "" {
		d.fail("the %s turn %q is not listed as ended: %+v", agent, tag, t)
		return
	}
	d.checkChanged(fmt.Sprintf("turn %d (%s)", t.Turn, agent), start, d.m.cur, changedSet(t.Changed))
	d.targets = append(d.targets, &target{spec: string(t.Entry), st: start, epoch: d.epoch, step: d.step})
	end := d.record(fmt.Sprintf("turn:%d:end", t.Turn), false)
	d.turnRecs(turnRec{num: t.Turn, kind: agent, start: start, end: end.st, epoch: d.epoch})
	d.endTurn(agent, r.took)
}
