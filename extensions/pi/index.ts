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
const AGENT = "pi";

/** How long the agent waits for one hook at most. */
const BOUND_MS = 5000;

/** Tools that write no file: their calls are no steps, and are not handed over. */
const READ_ONLY = new Set([
	"read", "grep", "find", "ls", "glob", "ast_grep", "lsp", "ask", "todo", "todo_write", "web_search",
	"fetch", "think", "yield", "goal", "recall", "reflect", "context_notes", "new_context",
]);

type Ctx = {
	cwd: string;
	hasUI: boolean;
	sessionManager: {
		getSessionId(): string;
		getSessionFile(): string | undefined;
		getLeafId(): string | null;
	};
	ui: { notify(message: string, type?: "info" | "warning" | "error"): void };
};

/** A finished run of rewind-lsp: what it printed, and whether it ran to its end. */
type Run = { stdout: string; stderr: string; ok: boolean };

/** run runs rewind-lsp with args and input on stdin, for at most BOUND_MS; it never throws. */
function run(args: string[], input: string, bound = BOUND_MS): Promise<Run> {
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
			child = spawn(REWIND_LSP, args, { stdio: ["pipe", "pipe", "pipe"], env: process.env });
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

export default function (pi: any) {
	pi.on("session_start", async (event: any, ctx: Ctx) => {
		// The agent's shell inherits this: `rewind-lsp` run from it knows its session.
		const id = ctx.sessionManager.getSessionId();
		if (id) process.env.REWIND_LSP_SESSION = id;
		await hook(ctx, {
			...base(ctx, "SessionStart"),
			source: event?.reason ?? "startup",
			previous_session_file: event?.previousSessionFile ?? "",
		});
	});

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

	pi.on("session_shutdown", async (event: any, ctx: Ctx) => {
		await hook(ctx, { ...base(ctx, "SessionEnd"), reason: event?.reason ?? "" });
	});
}
