// Tests of the plugin under Node's test runner, run by plugin_test.go: it
// renders the plugin (as setup does) with a fake rewind-lsp, fake-hook.mjs,
// whose command line is REWIND_TEST_COMMAND, and names the rendered file in
// REWIND_TEST_PLUGIN. The fake records each call (its arguments and the
// JSON on its stdin) as a line of REWIND_TEST_LOG and answers as
// REWIND_TEST_MODE says.

import { test } from "node:test"
import assert from "node:assert/strict"
import { readFileSync, writeFileSync, existsSync } from "node:fs"

const { RewindLsp } = await import(process.env.REWIND_TEST_PLUGIN)
const LOG = process.env.REWIND_TEST_LOG

function calls() {
  if (!existsSync(LOG)) return []
  return readFileSync(LOG, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
}

function reset(mode) {
  writeFileSync(LOG, "")
  process.env.REWIND_TEST_MODE = mode || ""
}

// client answers session.messages with the given message ids (or throws),
// and session.get with the parent parents names.
function client(ids, parents = {}) {
  return {
    session: {
      messages: async () => {
        if (ids instanceof Error) throw ids
        return { data: ids.map((id) => ({ info: { id }, parts: [] })) }
      },
      get: async ({ path }) => ({ data: { id: path.id, parentID: parents[path.id] } }),
    },
  }
}

test("the module exports the plugin alone (opencode calls every exported function as a plugin)", async () => {
  const mod = await import(process.env.REWIND_TEST_PLUGIN)
  assert.deepEqual(Object.keys(mod), ["RewindLsp"])
})

test("chat.message: the prompt, its message id and the leaf go to the hook; the notice becomes a synthetic part after the prompt's", async () => {
  reset("notice")
  const hooks = await RewindLsp({ client: client(["msg_001", "msg_002", "msg_005"]), directory: "/work/project" })
  const output = {
    message: { id: "msg_003", sessionID: "ses_1", role: "user" },
    parts: [
      { id: "prt_0000000000a1", type: "text", text: "Fix the bug." },
      { id: "prt_0000000000a2", type: "text", text: "an attachment", synthetic: true },
    ],
  }
  await hooks["chat.message"]({ sessionID: "ses_1" }, output)
  const [c] = calls()
  assert.deepEqual(c.args, ["hook", "opencode"])
  assert.deepEqual(c.payload, {
    hook_event_name: "chat.message",
    session_id: "ses_1",
    cwd: "/work/project",
    prompt: "Fix the bug.",
    message_id: "msg_003",
    leaf_id: "msg_002",
  })
  assert.equal(output.parts.length, 3)
  const part = output.parts[2]
  assert.equal(part.type, "text")
  assert.equal(part.synthetic, true)
  assert.equal(part.text, "rewind-lsp: since your last prompt, the workspace was rewound.")
  assert.equal(part.sessionID, "ses_1")
  assert.equal(part.messageID, "msg_003")
  assert.ok(part.id.startsWith("prt_"))
  assert.ok(part.id > "prt_0000000000a2", part.id)
})

test("chat.message: the first prompt has an empty leaf; a leaf that cannot be read is left out", async () => {
  reset("")
  let hooks = await RewindLsp({ client: client([]), directory: "/p" })
  const output = { message: { id: "msg_001" }, parts: [{ id: "prt_1", type: "text", text: "Hi" }] }
  await hooks["chat.message"]({ sessionID: "ses_1" }, output)
  hooks = await RewindLsp({ client: client(new Error("no server")), directory: "/p" })
  await hooks["chat.message"]({ sessionID: "ses_1" }, { message: { id: "msg_009" }, parts: [] })
  const [first, unread] = calls()
  assert.equal(first.payload.leaf_id, "")
  assert.equal("leaf_id" in unread.payload, false)
  assert.equal(output.parts.length, 1, "no notice, no part")
})

test("tool calls go to the hook before and after they run, with their arguments", async () => {
  reset("")
  const hooks = await RewindLsp({ client: client([]), directory: "/p" })
  await hooks["tool.execute.before"]({ tool: "write", sessionID: "ses_1", callID: "call_1" }, { args: { filePath: "/p/a.txt", content: "x" } })
  await hooks["tool.execute.after"](
    { tool: "write", sessionID: "ses_1", callID: "call_1", args: { filePath: "/p/a.txt", content: "x" } },
    { title: "", output: "", metadata: {} },
  )
  assert.deepEqual(
    calls().map((c) => c.payload),
    [
      { hook_event_name: "tool.execute.before", session_id: "ses_1", cwd: "/p", tool_name: "write", tool_use_id: "call_1", tool_input: { filePath: "/p/a.txt", content: "x" } },
      { hook_event_name: "tool.execute.after", session_id: "ses_1", cwd: "/p", tool_name: "write", tool_use_id: "call_1", tool_input: { filePath: "/p/a.txt", content: "x" } },
    ],
  )
})

test("shell.env names the session to the shell, and runs no hook", async () => {
  reset("")
  const hooks = await RewindLsp({ client: client([]), directory: "/p" })
  const output = { env: { KEEP: "1" } }
  await hooks["shell.env"]({ cwd: "/p", sessionID: "ses_7", callID: "c" }, output)
  assert.deepEqual(output.env, { KEEP: "1", REWIND_LSP_SESSION: "ses_7" })
  assert.equal(calls().length, 0)
})

test("session.idle ends the turn with the last message; session.created starts one; other events run nothing", async () => {
  reset("")
  const hooks = await RewindLsp({ client: client(["msg_001", "msg_004"]), directory: "/p" })
  await hooks.event({ event: { type: "session.created", properties: { sessionID: "ses_1", info: { id: "ses_1" } } } })
  await hooks.event({ event: { type: "message.updated", properties: { sessionID: "ses_1", info: { id: "msg_004" } } } })
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } })
  assert.deepEqual(
    calls().map((c) => c.payload),
    [
      { hook_event_name: "session.created", session_id: "ses_1", cwd: "/p", source: "startup" },
      { hook_event_name: "session.idle", session_id: "ses_1", cwd: "/p", leaf_id: "msg_004" },
    ],
  )
})

test("calls run in the order of the events, one at a time, and dispose waits for the last", async () => {
  reset("slow")
  const hooks = await RewindLsp({ client: client(["msg_001"]), directory: "/p" })
  // opencode does not wait for its event handlers: the end of a turn is
  // only queued when `run` exits, and dispose is what it waits for.
  hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_1" } } })
  const before = hooks["tool.execute.before"]({ tool: "bash", sessionID: "ses_2", callID: "c" }, { args: { command: "ls" } })
  await hooks.dispose()
  await before
  const got = calls()
  assert.deepEqual(
    got.map((c) => c.payload.hook_event_name),
    ["session.idle", "tool.execute.before"],
  )
  assert.ok(got[1].start >= got[0].end, "the second call started before the first ended")
})

test("a hook that does not answer within the bound is ended, and the prompt goes on without a notice", async () => {
  reset("hang")
  const hooks = await RewindLsp({ client: client([]), directory: "/p" })
  const output = { message: { id: "msg_001" }, parts: [{ id: "prt_1", type: "text", text: "Hi" }] }
  const start = Date.now()
  await hooks["chat.message"]({ sessionID: "ses_1" }, output)
  const took = Date.now() - start
  assert.ok(took < 9000, `took ${took} ms`)
  assert.equal(output.parts.length, 1)
})

test("a hook that fails or prints something else adds nothing", async () => {
  for (const mode of ["fail", "garbage"]) {
    reset(mode)
    const hooks = await RewindLsp({ client: client([]), directory: "/p" })
    const output = { message: { id: "msg_001" }, parts: [{ id: "prt_1", type: "text", text: "Hi" }] }
    await hooks["chat.message"]({ sessionID: "ses_1" }, output)
    assert.equal(output.parts.length, 1, mode)
    assert.equal(calls().length, 1, mode)
  }
})

test("a subagent's session opens and ends no turn; its tool calls and shell go to the root session", async () => {
  reset("")
  const hooks = await RewindLsp({ client: client(["msg_001"], { ses_grandchild: "ses_child" }), directory: "/p" })
  await hooks.event({ event: { type: "session.created", properties: { info: { id: "ses_child", parentID: "ses_root" } } } })
  await hooks["chat.message"]({ sessionID: "ses_child" }, { message: { id: "msg_002" }, parts: [{ id: "prt_1", type: "text", text: "sub" }] })
  await hooks["tool.execute.before"]({ tool: "edit", sessionID: "ses_grandchild", callID: "c" }, { args: { filePath: "/p/a" } })
  const output = { env: {} }
  await hooks["shell.env"]({ cwd: "/p", sessionID: "ses_child" }, output)
  await hooks.event({ event: { type: "session.idle", properties: { sessionID: "ses_child" } } })
  assert.deepEqual(
    calls().map((c) => [c.payload.hook_event_name, c.payload.session_id]),
    [["tool.execute.before", "ses_root"]],
  )
  assert.equal(output.env.REWIND_LSP_SESSION, "ses_root")
})
