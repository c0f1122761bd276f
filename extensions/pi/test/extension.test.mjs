// The pi extension's own tests (run.sh builds index.ts and names the build in
// REWIND_LSP_PI_EXTENSION). The extension is loaded as pi loads it — its default export called
// with an object that collects its handlers and commands — and each handler is called with the
// event and context pi would give. The rewind-lsp it runs is a stand-in first on PATH, which
// records each run (its arguments, its stdin, its folder) and answers as the test scripted.
// The real agents, driven by the scripted model, are in testkit/agents (pi_test.go, pi_tui_test.go).

import { test, beforeEach } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const built = process.env.REWIND_LSP_PI_EXTENSION;
if (!built) throw new Error("REWIND_LSP_PI_EXTENSION names no built extension: run extensions/pi/test/run.sh");
const factory = (await import(built)).default;
const ompFactory = (await import(process.env.REWIND_LSP_OMP_EXTENSION ?? built)).default;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "rwpi-test-"));
const bin = path.join(dir, "bin");
const ws = path.join(dir, "project");
fs.mkdirSync(bin);
fs.mkdirSync(ws);
process.on("exit", () => fs.rmSync(dir, { recursive: true, force: true }));

// The stand-in: answers.json lists {args (a regular expression over the arguments), event (the
// hook's event, optional), stdout, stderr, exit, hang}; the first that matches answers.
fs.writeFileSync(
	path.join(bin, "rewind-lsp"),
	`#!/usr/bin/env node
const fs = require("fs"), path = require("path");
const dir = ${JSON.stringify(dir)};
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", () => {
	const args = process.argv.slice(2).join(" ");
	let event = "";
	try { event = JSON.parse(input).hook_event_name || ""; } catch {}
	fs.appendFileSync(path.join(dir, "calls.jsonl"), JSON.stringify({ args, event, stdin: input, cwd: process.cwd() }) + "\\n");
	const answers = JSON.parse(fs.readFileSync(path.join(dir, "answers.json"), "utf8"));
	const a = answers.find((a) => new RegExp(a.args).test(args) && (!a.event || a.event === event)) || {};
	if (a.hang) { setTimeout(() => {}, 60000); return; }
	process.stdout.write(a.stdout || "");
	process.stderr.write(a.stderr || "");
	process.exitCode = a.exit || 0;
});
`,
	{ mode: 0o755 },
);
const PATH = `${bin}:${process.env.PATH}`;

function answer(...answers) {
	fs.writeFileSync(path.join(dir, "answers.json"), JSON.stringify(answers));
}

/** calls are the stand-in's runs so far, each {args, event, stdin (parsed when JSON), cwd}. */
function calls() {
	const f = path.join(dir, "calls.jsonl");
	if (!fs.existsSync(f)) return [];
	return fs
		.readFileSync(f, "utf8")
		.trim()
		.split("\n")
		.map((l) => {
			const c = JSON.parse(l);
			try {
				c.stdin = JSON.parse(c.stdin);
			} catch {}
			return c;
		});
}

beforeEach(() => {
	process.env.PATH = PATH;
	fs.rmSync(path.join(dir, "calls.jsonl"), { force: true });
	answer();
});

/** load loads the extension as pi does (or oh-my-pi, its copy): its handlers by event, its
 * commands by name. */
function load(omp = false) {
	const handlers = {};
	const commands = {};
	(omp ? ompFactory : factory)({
		on: (ev, fn) => (handlers[ev] ??= []).push(fn),
		registerCommand: (name, opts) => (commands[name] = opts),
	});
	return { handlers, commands, emit: (ev, event, ctx) => handlers[ev][0](event, ctx) };
}

/** fakeCtx is the context pi hands a handler; ui.select answers from picks, in order. */
function fakeCtx({ picks = [], branch = [], hasUI = true } = {}) {
	const ui = {
		selects: [],
		notes: [],
		editor: "",
		select: async (title, options) => {
			ui.selects.push({ title, options });
			return picks.shift();
		},
		notify: (message, type) => ui.notes.push({ message, type }),
		setEditorText: (text) => (ui.editor = text),
	};
	const ctx = {
		cwd: ws,
		hasUI,
		ui,
		sessionManager: {
			getSessionId: () => "01a2-session",
			getSessionFile: () => "/sessions/01a2-session.jsonl",
			getLeafId: () => "leaf0001",
			getBranch: () => branch,
		},
		switched: undefined,
		switchSession: async (file, options) => {
			ctx.switched = file;
			await options?.withSession?.(ctx);
			return { cancelled: false };
		},
	};
	return ctx;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

test("session_start names the session for the agent's shell and hands SessionStart over", async () => {
	const { emit } = load();
	delete process.env.REWIND_LSP_SESSION;
	await emit("session_start", { reason: "fork", previousSessionFile: "/sessions/old.jsonl" }, fakeCtx());
	assert.equal(process.env.REWIND_LSP_SESSION, "01a2-session");
	const [c] = calls();
	assert.equal(c.args, "hook pi");
	assert.deepEqual(c.stdin, {
		hook_event_name: "SessionStart",
		session_id: "01a2-session",
		transcript_path: "/sessions/01a2-session.jsonl",
		cwd: ws,
		leaf_id: "leaf0001",
		source: "fork",
		previous_session_file: "/sessions/old.jsonl",
	});
});

test("before_agent_start hands the prompt over, and returns the notice rewind-lsp printed as the message", async () => {
	const { emit } = load();
	const message = { customType: "rewind-lsp", content: "rewind-lsp: since your last prompt…", display: false };
	answer({ args: "^hook pi$", stdout: JSON.stringify({ message }) });
	assert.deepEqual(await emit("before_agent_start", { prompt: "fix it" }, fakeCtx()), { message });
	assert.equal(calls()[0].stdin.prompt, "fix it");
	assert.equal(calls()[0].stdin.hook_event_name, "UserPromptSubmit");
	answer();
	assert.equal(await emit("before_agent_start", { prompt: "again" }, fakeCtx()), undefined);
});

test("read-only tools are no steps; a write hands PreToolUse and PostToolUse over with its call", async () => {
	const { emit } = load();
	const ctx = fakeCtx();
	await emit("tool_call", { toolName: "read", toolCallId: "c1", input: { path: "a.txt" } }, ctx);
	await emit("tool_result", { toolName: "grep", toolCallId: "c2", input: {} }, ctx);
	assert.equal(calls().length, 0);
	const input = { path: path.join(ws, "a.txt"), content: "a\n" };
	await emit("tool_call", { toolName: "write", toolCallId: "c3", input }, ctx);
	await emit("tool_result", { toolName: "write", toolCallId: "c3", input, isError: false, details: null }, ctx);
	const got = calls().map((c) => [c.stdin.hook_event_name, c.stdin.tool_name, c.stdin.tool_use_id, c.stdin.tool_input.path]);
	assert.deepEqual(got, [
		["PreToolUse", "write", "c3", input.path],
		["PostToolUse", "write", "c3", input.path],
	]);
	assert.equal(calls()[1].stdin.is_error, false);
});

test("oh-my-pi's rewind tool: the report rewind-lsp printed joins the tool's details", async () => {
	const { emit } = load();
	answer({ args: "^hook pi$", event: "PostToolUse", stdout: JSON.stringify({ report: "back; rewind-lsp restored d.txt" }) });
	const out = await emit("tool_result", { toolName: "rewind", toolCallId: "c9", input: { report: "back" }, details: { a: 1 } }, fakeCtx());
	assert.deepEqual(out, { details: { a: 1, report: "back; rewind-lsp restored d.txt" } });
});

test("an agent_end oh-my-pi goes on from (willContinue) ends no turn; the last one does", async () => {
	const { emit } = load();
	await emit("agent_end", { willContinue: true }, fakeCtx());
	assert.equal(calls().length, 0);
	await emit("agent_end", {}, fakeCtx());
	assert.equal(calls()[0].stdin.hook_event_name, "Stop");
});

test("a rewind-lsp that never answers is given up after 5 s, said, and the agent goes on", async () => {
	const { emit } = load();
	answer({ args: "^hook pi$", hang: true });
	const ctx = fakeCtx();
	const start = Date.now();
	assert.equal(await emit("before_agent_start", { prompt: "p" }, ctx), undefined);
	const took = Date.now() - start;
	assert.ok(took >= 4900 && took < 8000, `the hook took ${took} ms`);
	assert.match(ctx.ui.notes[0].message, /did not answer within 5 s; the agent goes on without it/);
	assert.equal(ctx.ui.notes[0].type, "warning");
});

test("a rewind-lsp that is not there is said, on stderr without an interface, and never throws", async () => {
	const { emit } = load();
	process.env.PATH = path.join(dir, "nowhere");
	const ctx = fakeCtx({ hasUI: false });
	const written = [];
	const write = process.stderr.write;
	process.stderr.write = (s) => (written.push(String(s)), true);
	try {
		await emit("agent_end", {}, ctx);
	} finally {
		process.stderr.write = write;
	}
	assert.match(written.join(""), /rewind-lsp: cannot run rewind-lsp/);
});

// A branch as pi's getBranch gives it: prompt one, its answer, prompt two (a write), its answer.
const branch = [
	{ id: "u1", type: "message", message: { role: "user" } },
	{ id: "a1", type: "message", message: { role: "assistant" } },
	{ id: "u2", type: "message", message: { role: "user" } },
	{ id: "a2", type: "message", message: { role: "assistant" } },
	{ id: "t2", type: "message", message: { role: "toolResult", toolCallId: "call_2" } },
];
const plan = { files: [{ path: "a.txt", change: "modify" }, { path: "b.txt", change: "delete" }] };

test("/tree: asks whether the files go back too, restores them, and says so once pi has moved", async () => {
	const { emit } = load();
	answer(
		{ args: "^hook pi$", event: "GoBack", stdout: JSON.stringify({ target: "E2", title: "the state before turn 2 (prompt two)" }) },
		{ args: "--dry-run", stdout: JSON.stringify(plan) },
		{ args: "^--json rewind E2 --mode code$", stdout: JSON.stringify({ applied: true, plan }) },
	);
	const ctx = fakeCtx({ picks: ["Files too"], branch: branch.slice(0, 3) });
	const out = await emit("session_before_tree", { preparation: { targetId: "u2", oldLeafId: "t2" } }, ctx);
	assert.equal(out, undefined); // pi goes on moving
	const [goBack, dry, rw] = calls();
	assert.deepEqual(goBack.stdin.path, [
		{ id: "u1", type: "message", role: "user", toolCallId: "" },
		{ id: "a1", type: "message", role: "assistant", toolCallId: "" },
		{ id: "u2", type: "message", role: "user", toolCallId: "" },
	]);
	assert.equal(dry.args, "--json rewind E2 --mode code --dry-run");
	assert.equal(dry.cwd, ws);
	assert.equal(rw.args, "--json rewind E2 --mode code");
	assert.deepEqual(ctx.ui.selects, [
		{
			title: "rewind-lsp: take the files back too, to the state before turn 2 (prompt two)? modify a.txt, delete b.txt",
			options: ["Files too", "Conversation only", "Cancel"],
		},
	]);
	assert.equal(ctx.ui.notes.length, 0); // pi redraws its conversation first
	await emit("session_tree", {}, ctx);
	await sleep(400);
	assert.deepEqual(ctx.ui.notes, [
		{ message: "rewind-lsp restored 2 files to the state before turn 2 (prompt two); `rewind-lsp undo` takes it back", type: "info" },
	]);
});

test("/tree: Cancel cancels pi's move, and Conversation only leaves the files", async () => {
	const { emit } = load();
	answer(
		{ args: "^hook pi$", event: "GoBack", stdout: JSON.stringify({ target: "E2", title: "t" }) },
		{ args: "--dry-run", stdout: JSON.stringify(plan) },
	);
	const ev = { preparation: { targetId: "u2", oldLeafId: "t2" } };
	assert.deepEqual(await emit("session_before_tree", ev, fakeCtx({ picks: ["Cancel"], branch })), { cancel: true });
	assert.deepEqual(await emit("session_before_tree", ev, fakeCtx({ picks: [undefined], branch })), { cancel: true });
	assert.equal(await emit("session_before_tree", ev, fakeCtx({ picks: ["Conversation only"], branch })), undefined);
	assert.ok(calls().every((c) => c.args === "hook pi" || c.args.endsWith("--dry-run")), "a rewind ran");
});

test("/tree: nothing is asked where rewind-lsp recorded no state, no file would change, or pi does not move", async () => {
	const { emit } = load();
	answer({ args: "^hook pi$", event: "GoBack", stdout: JSON.stringify({ target: "", title: "" }) });
	const ctx = fakeCtx({ branch });
	assert.equal(await emit("session_before_tree", { preparation: { targetId: "u2", oldLeafId: "t2" } }, ctx), undefined);
	answer(
		{ args: "^hook pi$", event: "GoBack", stdout: JSON.stringify({ target: "E2", title: "t" }) },
		{ args: "--dry-run", stdout: JSON.stringify({ files: [] }) },
	);
	assert.equal(await emit("session_before_tree", { preparation: { targetId: "u2", oldLeafId: "t2" } }, ctx), undefined);
	assert.equal(await emit("session_before_tree", { preparation: { targetId: "t2", oldLeafId: "t2" } }, ctx), undefined);
	assert.equal(await emit("session_before_fork", { entryId: "u2", position: "at" }, ctx), undefined); // /clone
	assert.equal(ctx.ui.selects.length, 0);
	assert.equal(calls().filter((c) => c.event === "GoBack").length, 2);
});

test("/fork and /tree: files changed since are overwritten only when the person says so", async () => {
	const { emit } = load();
	const conflict = { applied: false, failureReason: "conflict: 1 file was edited since", plan: { files: [{ path: "a.txt", change: "modify", conflict: true }] } };
	answer(
		{ args: "^hook pi$", event: "GoBack", stdout: JSON.stringify({ target: "E2", title: "the state before turn 2" }) },
		{ args: "--dry-run", stdout: JSON.stringify(conflict.plan) },
		{ args: "--force", stdout: JSON.stringify({ applied: true, plan: conflict.plan }) },
		{ args: "^--json rewind E2 --mode code$", stdout: JSON.stringify(conflict), exit: 3 },
	);
	let ctx = fakeCtx({ picks: ["Files too", "Cancel"], branch });
	assert.deepEqual(await emit("session_before_fork", { entryId: "u2", position: "before" }, ctx), { cancel: true });
	assert.equal(ctx.ui.selects[0].title, "rewind-lsp: take the files back too, to the state before turn 2? modify a.txt (changed since)");
	assert.deepEqual(ctx.ui.selects[1], {
		title: "rewind-lsp: conflict: 1 file was edited since",
		options: ["Overwrite them too (undo brings them back)", "Conversation only", "Cancel"],
	});
	assert.ok(!calls().some((c) => c.args.includes("--force")));
	ctx = fakeCtx({ picks: ["Files too", "Overwrite them too (undo brings them back)"], branch });
	assert.equal(await emit("session_before_fork", { entryId: "u2", position: "before" }, ctx), undefined);
	assert.ok(calls().some((c) => c.args === "--json rewind E2 --mode code --force"));
	// The forked session's session_start says it.
	await emit("session_start", { reason: "fork" }, ctx);
	await sleep(400);
	assert.match(ctx.ui.notes.at(-1).message, /^rewind-lsp restored 1 file to the state before turn 2/);
});

const log = {
	turns: [
		{ turn: 1, entry: "E1", title: "Turn 1: prompt one", what: "1 file changed", prompt: "prompt one", session: "01a2-session", agent: "pi" },
		{ turn: 2, entry: "E2", title: "Turn 2: prompt two", what: "2 files changed", prompt: "prompt two", session: "01a2-session", agent: "pi" },
		{ turn: 3, entry: "E3", title: "Turn 3: elsewhere", what: "", prompt: "elsewhere", session: "other", sessionLabel: "codex …1234", agent: "codex" },
	],
};

test("/rewind lists the turns, the latest first; another agent's turn offers its code only", async () => {
	const { commands } = load();
	assert.ok(commands.rewind, "no /rewind command");
	answer({ args: "^--json log$", stdout: JSON.stringify(log) }, { args: "^--json rewind E3 --mode code$", stdout: JSON.stringify({ applied: true, plan }) });
	const ctx = fakeCtx({ picks: ["Turn 3: elsewhere — open (codex …1234)", "Code only"] });
	await commands.rewind.handler("", ctx);
	assert.deepEqual(ctx.ui.selects[0].options, [
		"Turn 3: elsewhere — open (codex …1234)",
		"Turn 2: prompt two — 2 files changed",
		"Turn 1: prompt one — 1 file changed",
	]);
	assert.deepEqual(ctx.ui.selects[1], { title: "rewind-lsp: what goes back to the state before turn 3 (elsewhere)?", options: ["Code only", "Cancel"] });
	assert.equal(ctx.ui.notes.at(-1).message, "rewind-lsp restored 2 files to the state before turn 3 (elsewhere); `rewind-lsp undo` takes it back");
});

test("/rewind, code and conversation: the files back, and pi switches to the fork with the prompt to send again", async () => {
	const { commands, emit } = load();
	const forked = { applied: true, plan, conversation: { agent: "pi", session: "01a3-fork", transcript: "/sessions/fork.jsonl", resume: "pi --session 01a3-fork" } };
	answer({ args: "^--json log$", stdout: JSON.stringify(log) }, { args: "^--json rewind E2 --mode both$", stdout: JSON.stringify(forked) });
	const ctx = fakeCtx({ picks: ["Turn 2: prompt two — 2 files changed", "Code and conversation"] });
	await commands.rewind.handler("", ctx);
	assert.deepEqual(ctx.ui.selects[1].options, ["Code and conversation", "Code only", "Conversation only", "Cancel"]);
	assert.equal(ctx.switched, "/sessions/fork.jsonl");
	assert.equal(ctx.ui.editor, "prompt two");
	await emit("session_start", { reason: "resume" }, ctx);
	await sleep(400);
	assert.equal(
		ctx.ui.notes.at(-1).message,
		"rewind-lsp restored 2 files; this conversation continues from before turn 2 (prompt two) (a fork: `pi --session 01a3-fork`)",
	);
});

test("/rewind, conversation only, where rewind-lsp could make no fork: says why, switches nowhere", async () => {
	const { commands } = load();
	answer(
		{ args: "^--json log$", stdout: JSON.stringify(log) },
		{ args: "^--json rewind E1 --mode conversation$", stdout: JSON.stringify({ applied: true, conversation: { reason: "turn 1 is the conversation's first" } }) },
	);
	const ctx = fakeCtx({ picks: ["Turn 1: prompt one — 1 file changed", "Conversation only"] });
	await commands.rewind.handler("", ctx);
	assert.equal(ctx.switched, undefined);
	assert.match(ctx.ui.notes.at(-1).message, /the conversation stays: turn 1 is the conversation's first/);
});

test("oh-my-pi: its command is /rewind-lsp (its own /rewind is /branch), and a session it switches to starts one", async () => {
	const { commands, emit } = load(true);
	assert.deepEqual(Object.keys(commands), ["rewind-lsp"]);
	await emit("session_switch", { reason: "resume", previousSessionFile: "/sessions/old.jsonl" }, fakeCtx());
	await emit("session_branch", { previousSessionFile: "/sessions/old.jsonl" }, fakeCtx());
	assert.deepEqual(
		calls().map((c) => [c.args, c.stdin.hook_event_name, c.stdin.source, c.stdin.previous_session_file]),
		[
			["hook omp", "SessionStart", "resume", "/sessions/old.jsonl"],
			["hook omp", "SessionStart", "fork", "/sessions/old.jsonl"],
		],
	);
});

test("oh-my-pi's /branch and /tree: asked once it has moved (its picker hides everything before), files too or left", async () => {
	const { emit } = load(true);
	answer(
		{ args: "^hook omp$", event: "GoBack", stdout: JSON.stringify({ target: "E2", title: "the state before turn 2 (prompt two)" }) },
		{ args: "--dry-run", stdout: JSON.stringify(plan) },
		{ args: "^--json rewind E2 --mode code$", stdout: JSON.stringify({ applied: true, plan }) },
	);
	let ctx = fakeCtx({ picks: ["Files too"], branch: branch.slice(0, 3) });
	assert.equal(await emit("session_before_tree", { preparation: { targetId: "u2", oldLeafId: "t2" } }, ctx), undefined);
	assert.equal(calls().length, 0);
	await emit("session_tree", {}, ctx);
	await sleep(1500);
	assert.deepEqual(ctx.ui.selects, [
		{
			title: "rewind-lsp: the conversation went back; the files too, to the state before turn 2 (prompt two)? modify a.txt, delete b.txt",
			options: ["Files too", "Leave the files"],
		},
	]);
	assert.equal(calls().at(-1).args, "--json rewind E2 --mode code");
	assert.match(ctx.ui.notes.at(-1).message, /^rewind-lsp restored 2 files to the state before turn 2/);

	fs.rmSync(path.join(dir, "calls.jsonl"), { force: true });
	ctx = fakeCtx({ picks: ["Leave the files"], branch });
	await emit("session_before_tree", { preparation: { targetId: "u2", oldLeafId: "t2" } }, ctx);
	await emit("session_tree", {}, ctx);
	await sleep(1500);
	assert.ok(!calls().some((c) => c.args === "--json rewind E2 --mode code"), "the files were rewound");
});
