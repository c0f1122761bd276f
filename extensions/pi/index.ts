// rewind-lsp's extension for pi and oh-my-pi.
//
// pi and oh-my-pi run no command hooks: this extension, loaded into the agent, hands each event
// rewind-lsp needs to `rewind-lsp hook pi|omp` (one JSON object on stdin, as Claude Code's hooks
// do), so rewind-lsp records the turns, their steps and the conversation's fork points, and the
// agent's model hears of rewinds through the message `before_agent_start` returns.
// `rewind-lsp setup pi` / `setup omp` installs it (in ~/.pi/agent/extensions/rewind-lsp/ or
// ~/.omp/agent/extensions/rewind-lsp/), writing the two constants below; README.md, "pi and
// oh-my-pi", says what it does for the person.
//
// A hook is bounded: whatever rewind-lsp does, the agent waits at most 5 s for it, and a failure
// (the binary moved, a crash) is reported and never stops the agent.

import { spawn } from "node:child_process";

/** The rewind-lsp binary (its absolute path, written by `rewind-lsp setup`). */
const REWIND_LSP = "rewind-lsp";
/** The agent this copy is installed for: "pi" or "omp" (written by `rewind-lsp setup`). */
const AGENT: string = "pi";

/** How long the agent waits for one hook at most. */
const BOUND_MS = 5000;

/** Tools that write no file: their calls are no steps, and are not handed over. */
const READ_ONLY = new Set([
	"read", "grep", "find", "ls", "glob", "ast_grep", "lsp", "ask", "todo", "todo_write", "web_search",
	"fetch", "think", "yield", "goal", "recall", "reflect", "context_notes", "new_context",
]);

type Entry = { id: string; type: string; message?: { role?: string; toolCallId?: string } };

type Ctx = {
	cwd: string;
	hasUI: boolean;
	sessionManager: {
		getSessionId(): string;
		getSessionFile(): string | undefined;
		getLeafId(): string | null;
		getBranch(fromId?: string): Entry[];
	};
	ui: {
		notify(message: string, type?: "info" | "warning" | "error"): void;
		select(title: string, options: string[]): Promise<string | undefined>;
		setEditorText(text: string): void;
	};
};

/** A command's context: it may switch the agent to another session. */
type CommandCtx = Ctx & {
	switchSession(path: string, options?: { withSession?: (ctx: Ctx) => Promise<void> }): Promise<{ cancelled: boolean }>;
};

/** A finished run of rewind-lsp: what it printed, and whether it ran to its end. */
type Run = { stdout: string; stderr: string; ok: boolean };

/** How long the person waits at most for a rewind they asked for (the command line). */
const COMMAND_MS = 120_000;

/** run runs rewind-lsp in folder cwd with args and input on stdin, for at most bound ms; it never throws. */
function run(args: string[], input: string, cwd?: string, bound = BOUND_MS): Promise<Run> {
	return new Promise((resolve) => {
		let stdout = "";
		let stderr = "";
		let settled = false;
		let timer: ReturnType<typeof setTimeout> | undefined;
		const finish = (ok: boolean) => {
			if (settled) return;
			settled = true;
			if (timer) clearTimeout(timer);
			resolve({ stdout, stderr, ok });
		};
		let child: ReturnType<typeof spawn>;
		try {
			child = spawn(REWIND_LSP, args, { stdio: ["pipe", "pipe", "pipe"], env: process.env, cwd });
		} catch (err) {
			stderr = `cannot run ${REWIND_LSP}: ${err instanceof Error ? err.message : String(err)}`;
			finish(false);
			return;
		}
		timer = setTimeout(() => {
			stderr += `\nrewind-lsp ${args.join(" ")} did not answer within ${bound / 1000} s; the agent goes on without it`;
			child.kill("SIGKILL");
			finish(false);
		}, bound);
		child.stdout?.on("data", (d) => (stdout += d));
		child.stderr?.on("data", (d) => (stderr += d));
		child.on("error", (err) => {
			stderr += `cannot run ${REWIND_LSP}: ${err.message}`;
			finish(false);
		});
		child.on("close", (code) => finish(code === 0));
		child.stdin?.on("error", () => {}); // it may exit before reading everything
		child.stdin?.end(input);
	});
}

/** report shows what rewind-lsp said on stderr: in the agent's interface, else on stderr. */
function report(ctx: Ctx | undefined, text: string) {
	text = text.trim();
	if (!text) return;
	if (ctx?.hasUI) {
		ctx.ui.notify(`rewind-lsp: ${text}`, "warning");
	} else {
		process.stderr.write(`rewind-lsp: ${text}\n`);
	}
}

/** The fields every event carries: the session, its file, the folder, and the conversation's leaf entry now. */
function base(ctx: Ctx, event: string): Record<string, unknown> {
	const sm = ctx.sessionManager;
	return {
		hook_event_name: event,
		session_id: sm.getSessionId() ?? "",
		transcript_path: sm.getSessionFile() ?? "",
		cwd: ctx.cwd,
		leaf_id: sm.getLeafId() ?? "",
	};
}

/** hook hands one event to `rewind-lsp hook <agent>` and returns what it printed on stdout. */
async function hook(ctx: Ctx, payload: Record<string, unknown>): Promise<string> {
	const r = await run(["hook", AGENT], JSON.stringify(payload));
	report(ctx, r.stderr);
	return r.stdout;
}

/** cli runs `rewind-lsp --json <args>` in the session's folder for the person, and returns its
 * answer, or undefined when it gave none (what it said is shown). */
async function cli(ctx: Ctx, args: string[]): Promise<Record<string, any> | undefined> {
	const r = await run(["--json", ...args], "", ctx.cwd, COMMAND_MS);
	const out = parse(r.stdout);
	if (!out) report(ctx, r.stderr || `rewind-lsp ${args.join(" ")} answered nothing`);
	return out;
}

/** parse reads the JSON object rewind-lsp printed, or undefined. */
function parse(out: string): Record<string, any> | undefined {
	out = out.trim();
	if (!out) return undefined;
	try {
		const v = JSON.parse(out);
		return v && typeof v === "object" ? v : undefined;
	} catch {
		return undefined;
	}
}

const FILES_TOO = "Files too";
const CONVERSATION_ONLY = "Conversation only";
const CANCEL = "Cancel";
const LEAVE = "Leave the files";
const OVERWRITE = "Overwrite them too (undo brings them back)";

/** files words a plan's files: "modify a.txt, delete b.txt". */
function files(plan: Record<string, any> | undefined): string {
	const fs: any[] = plan?.files ?? [];
	const shown = fs.slice(0, 8).map((f) => `${f.change} ${f.path}${f.conflict ? " (changed since)" : ""}`);
	if (fs.length > shown.length) shown.push(`and ${fs.length - shown.length} more`);
	return shown.join(", ");
}

/** A note for the person, said once the agent's interface is done moving the conversation. */
type Note = { message: string; type: "info" | "warning" };

/** Where a note waits while the agent moves the conversation: pi redraws its conversation after
 * /tree and starts the forked session afresh after /fork (the extension is loaded again there,
 * so the note waits on the process, not in this module). */
const NOTE = Symbol.for("rewind-lsp.note");

/** later keeps a note to say after the agent has moved the conversation. */
function later(note: Note) {
	(globalThis as any)[NOTE] = note;
}

/** sayLater says the note waiting, if any, once the agent's interface has redrawn (it shows its
 * own "Navigated to selected point" or "Forked to new session" first; the note replaces it). */
function sayLater(ctx: Ctx) {
	const note: Note | undefined = (globalThis as any)[NOTE];
	if (!note || !ctx.hasUI) return;
	delete (globalThis as any)[NOTE];
	setTimeout(() => {
		try {
			ctx.ui.notify(note.message, note.type);
		} catch {
			// the session was replaced meanwhile: the note goes unsaid
		}
	}, 300);
}

/** restore rewinds the files to target, asking the person before it overwrites files changed since
 * rewind-lsp recorded them, and returns what to tell them; undefined when they cancelled.
 * withConversation says the conversation goes back anyway (the agent's own /tree or /fork): then
 * the person may also keep the files as they are. */
async function restore(ctx: Ctx, target: string, title: string, withConversation: boolean): Promise<Note | undefined> {
	let r = await cli(ctx, ["rewind", target, "--mode", "code"]);
	if (r && !r.applied && (r.plan?.files ?? []).some((f: any) => f.conflict)) {
		const options = withConversation ? [OVERWRITE, CONVERSATION_ONLY, CANCEL] : [OVERWRITE, CANCEL];
		const choice = await ctx.ui.select(`rewind-lsp: ${r.failureReason}`, options);
		if (choice === undefined || choice === CANCEL) return undefined;
		if (choice === CONVERSATION_ONLY) return { message: "rewind-lsp left the files as they are", type: "info" };
		r = await cli(ctx, ["rewind", target, "--mode", "code", "--force"]);
	}
	if (r?.applied) {
		const n = (r.plan?.files ?? []).length;
		return { message: `rewind-lsp restored ${n} file${n === 1 ? "" : "s"} to ${title}; \`rewind-lsp undo\` takes it back`, type: "info" };
	}
	return { message: `rewind-lsp restored no file: ${r?.failureReason ?? "rewind-lsp did not answer"}`, type: "warning" };
}

/** filesToo asks, where the person takes the conversation back to entry id in the agent's own
 * interface, whether the files go back too, and takes them back if so. rewind-lsp says which
 * recorded state goes with that entry; nothing is asked when there is none, or when no file
 * would change. Asked before the agent moves (moved false), it returns {cancel: true} when the
 * person cancelled, and what was done is said once the agent has moved; asked after (oh-my-pi),
 * the person may only take the files back or leave them, and hears at once. */
async function filesToo(ctx: Ctx, id: string, moved = false): Promise<{ cancel: true } | undefined> {
	if (!ctx.hasUI || !id) return;
	delete (globalThis as any)[NOTE];
	const path = ctx.sessionManager.getBranch(id).map((e) => ({
		id: e.id,
		type: e.type,
		role: e.message?.role ?? "",
		toolCallId: e.message?.toolCallId ?? "",
	}));
	const found = parse(await hook(ctx, { ...base(ctx, "GoBack"), path }));
	if (!found?.target) return;
	const plan = await cli(ctx, ["rewind", found.target, "--mode", "code", "--dry-run"]);
	if (!plan || (plan.files ?? []).length === 0) return;
	const choice = moved
		? await ctx.ui.select(`rewind-lsp: the conversation went back; the files too, to ${found.title}? ${files(plan)}`, [FILES_TOO, LEAVE])
		: await ctx.ui.select(`rewind-lsp: take the files back too, to ${found.title}? ${files(plan)}`, [FILES_TOO, CONVERSATION_ONLY, CANCEL]);
	if (moved) {
		if (choice !== FILES_TOO) return;
		const note = await restore(ctx, found.target, found.title, true);
		if (note) ctx.ui.notify(note.message, note.type);
		return;
	}
	if (choice === undefined || choice === CANCEL) return { cancel: true };
	if (choice !== FILES_TOO) return;
	const note = await restore(ctx, found.target, found.title, true);
	if (!note) return { cancel: true };
	later(note);
}

/** Where oh-my-pi's /tree or /branch goes, kept until it has moved (see session_before_tree). */
const MOVING = Symbol.for("rewind-lsp.moving");

/** The command that lists the turns and rewinds (oh-my-pi's /rewind is its own /branch). */
const COMMAND = AGENT === "omp" ? "rewind-lsp" : "rewind";

const BOTH = "Code and conversation";
const CODE = "Code only";
const CONVERSATION = "Conversation only";

/** turnName names a turn of `rewind-lsp log` as rewind-lsp does: "turn 2 (fix the tests)". */
function turnName(t: Record<string, any>): string {
	let p = String(t.prompt ?? "").replace(/\s+/g, " ").trim();
	if (p.length > 60) p = p.slice(0, 59) + "…";
	return p ? `turn ${t.turn} (${p})` : `turn ${t.turn}`;
}

/** rewindCommand lists the turns rewind-lsp recorded and rewinds to the start of the one the
 * person picks: the files, the conversation (a fork of it, which the agent switches to), or both. */
async function rewindCommand(ctx: CommandCtx) {
	if (!ctx.hasUI) return;
	const log = await cli(ctx, ["log"]);
	const turns: any[] = log?.turns ?? [];
	if (turns.length === 0) {
		ctx.ui.notify("rewind-lsp has recorded no turn in this folder", "info");
		return;
	}
	const sid = ctx.sessionManager.getSessionId();
	const label = (t: any) =>
		`${t.title} — ${t.what || "open"}${t.session === sid ? "" : t.sessionLabel ? ` (${t.sessionLabel})` : ""}`;
	const items = turns.slice().reverse().map(label);
	const picked = await ctx.ui.select("rewind-lsp: go back to the state before which turn?", items);
	if (picked === undefined) return;
	const turn = turns[turns.length - 1 - items.indexOf(picked)];
	const ours = turn.agent === AGENT;
	const modes = ours ? [BOTH, CODE, CONVERSATION, CANCEL] : [CODE, CANCEL];
	const name = turnName(turn);
	const mode = await ctx.ui.select(`rewind-lsp: what goes back to the state before ${name}?`, modes);
	if (mode === undefined || mode === CANCEL) return;
	const target = String(turn.entry);
	if (mode === CODE) {
		const note = await restore(ctx, target, `the state before ${name}`, false);
		if (note) ctx.ui.notify(note.message, note.type);
		return;
	}
	const m = mode === BOTH ? "both" : "conversation";
	let r = await cli(ctx, ["rewind", target, "--mode", m]);
	if (r && !r.applied && (r.plan?.files ?? []).some((f: any) => f.conflict)) {
		const choice = await ctx.ui.select(`rewind-lsp: ${r.failureReason}`, [OVERWRITE, CANCEL]);
		if (choice !== OVERWRITE) return;
		r = await cli(ctx, ["rewind", target, "--mode", m, "--force"]);
	}
	if (!r) return;
	if (!r.applied) {
		ctx.ui.notify(`rewind-lsp: nothing was rewound: ${r.failureReason}`, "warning");
		return;
	}
	const conv = r.conversation;
	if (!conv?.transcript) {
		ctx.ui.notify(`rewind-lsp rewound the files; the conversation stays: ${conv?.reason ?? "no fork was made"}`, "warning");
		return;
	}
	const prompt = String(turn.prompt ?? "");
	const n = m === "both" ? (r.plan?.files ?? []).length : 0;
	const restored = n > 0 ? `rewind-lsp restored ${n} file${n === 1 ? "" : "s"}; ` : "rewind-lsp: ";
	// The note is said by the forked session's session_start, once pi has shown it.
	later({ message: `${restored}this conversation continues from before ${name} (a fork: \`${conv.resume}\`)`, type: "info" });
	let edited = false;
	const switched = await ctx.switchSession(conv.transcript, {
		withSession: async (next) => {
			next.ui.setEditorText(prompt);
			edited = true;
		},
	});
	if (switched.cancelled) {
		delete (globalThis as any)[NOTE];
	} else if (!edited) {
		// oh-my-pi's switchSession takes no withSession; its context goes on.
		try {
			ctx.ui.setEditorText(prompt);
		} catch {
			// a context pi calls stale: the prompt is in the fork's conversation all the same
		}
	}
}

export default function (pi: any) {
	// A session starts: pi's session_start (also after its /fork, /new, /resume); oh-my-pi's
	// session_switch and session_branch, where it goes on in another session in the same process.
	const started = async (ctx: Ctx, source: string, previous: string | undefined) => {
		// The agent's shell inherits this: `rewind-lsp` run from it knows its session.
		const id = ctx.sessionManager.getSessionId();
		if (id) process.env.REWIND_LSP_SESSION = id;
		await hook(ctx, { ...base(ctx, "SessionStart"), source, previous_session_file: previous ?? "" });
		sayLater(ctx);
	};
	pi.on("session_start", async (event: any, ctx: Ctx) => started(ctx, event?.reason ?? "startup", event?.previousSessionFile));
	pi.on("session_switch", async (event: any, ctx: Ctx) => started(ctx, event?.reason ?? "resume", event?.previousSessionFile));
	pi.on("session_branch", async (event: any, ctx: Ctx) => started(ctx, "fork", event?.previousSessionFile));

	// The turn opens; the leaf entry now is where the prompt will hang: the conversation's fork
	// point. A notice comes back as the message to hand the model with the prompt.
	pi.on("before_agent_start", async (event: any, ctx: Ctx) => {
		const out = parse(await hook(ctx, { ...base(ctx, "UserPromptSubmit"), prompt: event?.prompt ?? "" }));
		if (out?.message) return { message: out.message };
	});

	pi.on("tool_call", async (event: any, ctx: Ctx) => {
		if (READ_ONLY.has(event.toolName)) return;
		await hook(ctx, {
			...base(ctx, "PreToolUse"),
			tool_name: event.toolName,
			tool_input: event.input ?? {},
			tool_use_id: event.toolCallId ?? "",
		});
	});

	pi.on("tool_result", async (event: any, ctx: Ctx) => {
		if (READ_ONLY.has(event.toolName)) return;
		const out = parse(await hook(ctx, {
			...base(ctx, "PostToolUse"),
			tool_name: event.toolName,
			tool_input: event.input ?? {},
			tool_use_id: event.toolCallId ?? "",
			is_error: !!event.isError,
			details: event.details ?? null,
		}));
		// oh-my-pi's rewind: what rewind-lsp restored joins the report the agent keeps.
		if (out?.report && typeof out.report === "string") {
			return { details: { ...(event.details ?? {}), report: out.report } };
		}
	});

	pi.on("agent_end", async (event: any, ctx: Ctx) => {
		if (event?.willContinue) return; // oh-my-pi goes on with the same prompt
		await hook(ctx, base(ctx, "Stop"));
	});

	// Where the person goes back in the agent's own interface: the files too? pi's /tree and /fork
	// (not /clone) ask after pi's own question and before it moves (Cancel stays where it is);
	// oh-my-pi's /branch and /tree, once it has moved.
	pi.on("session_before_tree", async (event: any, ctx: Ctx) => {
		const target = event?.preparation?.targetId;
		if (!target || target === event?.preparation?.oldLeafId) return;
		// oh-my-pi's /branch keeps its full-screen picker over everything until it has moved, so a
		// question asked now would be hidden: it is asked once oh-my-pi has moved.
		if (AGENT === "omp") (globalThis as any)[MOVING] = target;
		else return filesToo(ctx, target);
	});
	pi.on("session_before_fork", async (event: any, ctx: Ctx) => {
		if (event?.position !== "at") return filesToo(ctx, event?.entryId);
	});
	pi.on("session_before_branch", async (event: any, ctx: Ctx) => filesToo(ctx, event?.entryId));
	// Once the agent has moved: what rewind-lsp did with the files (a fork's note, where the
	// forked session starts).
	pi.on("session_tree", async (_event: any, ctx: Ctx) => {
		const target = (globalThis as any)[MOVING];
		delete (globalThis as any)[MOVING];
		if (target) setTimeout(() => void filesToo(ctx, target, true).catch((err) => report(ctx, String(err))), 300);
		else sayLater(ctx);
	});

	pi.registerCommand(COMMAND, {
		description: "rewind-lsp: go back to before an earlier turn — the code, the conversation, or both",
		handler: async (_args: string, ctx: CommandCtx) => rewindCommand(ctx),
	});

	pi.on("session_shutdown", async (event: any, ctx: Ctx) => {
		await hook(ctx, { ...base(ctx, "SessionEnd"), reason: event?.reason ?? "" });
	});
}
