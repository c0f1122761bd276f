// rewind-lsp for opencode and Kilo: hands each event of the agent to
// `rewind-lsp hook <agent>` (one JSON object on its stdin) and passes its
// answer on. Installed by `rewind-lsp setup opencode` or `setup kilo` into the
// agent's plugin folder, which sets COMMAND and AGENT below; every decision is
// rewind-lsp's (docs/ARCHITECTURE.md, "opencode and Kilo").
//
//   chat.message          a turn opens: the prompt, its message id and the id
//                         of the session's last message before it (the fork
//                         point). A notice rewind-lsp prints is added to the
//                         prompt as a synthetic text part.
//   tool.execute.before   a tool call is about to run (its state is captured
//   tool.execute.after    before and after: a step of the turn).
//   session.idle          the turn ends, with the session's last message id.
//   session.created       a session starts.
//
// A subagent's session (the task tool's, a child of the person's) opens and
// ends no turn: its tool calls are steps of its root session's turn.
//   shell.env             names the session to the agent's shell
//                         (REWIND_LSP_SESSION), so `rewind-lsp` run there knows
//                         whose turn it is in.
//
// Each call is bounded (BOUND_MS, then the process is ended) and never fails
// the agent: whatever happens, the event goes on without rewind-lsp. Calls run
// one after another in the order of the events; the plugin's dispose waits for
// the last one, so `opencode run` does not exit before its turn is recorded.

import { spawn } from "node:child_process"

const COMMAND = "rewind-lsp"
const AGENT = "opencode"

// BOUND_MS bounds one hook call: rewind-lsp answers within 5 s whatever happens.
const BOUND_MS = 6000
const windows = process.platform === "win32"
// READ_MS bounds reading the session's last messages from the agent.
const READ_MS = 2000

/**
 * runHook runs `COMMAND hook AGENT` with payload as JSON on its stdin and
 * resolves to its stdout ("" when it failed, or ran past BOUND_MS).
 * @param {object} payload
 * @returns {Promise<string>}
 */
function runHook(payload) {
  return new Promise((resolve) => {
    let out = ""
    let done = false
    const finish = () => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve(out)
    }
    let child
    try {
      // Its own process group (not on Windows), so that a bound ends the
      // shell and what it started.
      child = spawn(`${COMMAND} hook ${AGENT}`, { shell: true, stdio: ["pipe", "pipe", "ignore"], windowsHide: true, detached: !windows })
    } catch {
      resolve("")
      return
    }
    const timer = setTimeout(() => {
      out = ""
      try {
        if (windows) child.kill()
        else process.kill(-child.pid, "SIGKILL")
      } catch {}
      finish()
    }, BOUND_MS)
    child.on("error", () => {
      out = ""
      finish()
    })
    child.stdout.on("data", (d) => {
      out += d
    })
    child.on("close", finish)
    child.stdin.on("error", () => {})
    child.stdin.end(JSON.stringify(payload))
  })
}

/**
 * within resolves to what promise resolves to, or to fallback after ms.
 */
function within(promise, ms, fallback) {
  return Promise.race([promise.catch(() => fallback), new Promise((r) => setTimeout(() => r(fallback), ms))])
}

/**
 * partID makes a part id that sorts after every id in ids, in the shape of the
 * agent's own ("prt_" and an ascending time), so a part added to a message
 * comes after the prompt's own parts.
 * @param {string[]} ids
 */
function partID(ids) {
  const hex = (BigInt(Date.now()) * 0x1000n).toString(16).padStart(12, "0").slice(-12)
  let id = "prt_" + hex + "rewindlsp" + Math.random().toString(36).slice(2, 7).padEnd(5, "0")
  for (const other of ids) if (other && other >= id) id = other + "z"
  return id
}

/** The opencode (or Kilo) plugin. */
export const RewindLsp = async ({ client, directory }) => {
  let queue = Promise.resolve()
  // enqueue runs fn after every call queued before it.
  const enqueue = (fn) => {
    const p = queue.then(fn, fn)
    queue = p.catch(() => {})
    return p
  }

  // lastMessage resolves to the id of the session's last message whose id
  // sorts before `before` ("" when there is none), or undefined when the
  // messages cannot be read. Message ids ascend with time.
  const lastMessage = (sessionID, before) =>
    within(
      (async () => {
        const r = await client.session.messages({ path: { id: sessionID }, query: { limit: 5 } })
        if (!r || r.error || !Array.isArray(r.data)) return undefined
        let last = ""
        for (const m of r.data) {
          const id = m && m.info && m.info.id
          if (typeof id === "string" && (!before || id < before) && id > last) last = id
        }
        return last
      })(),
      READ_MS,
      undefined,
    )

  const base = (name, sessionID) => ({ hook_event_name: name, session_id: sessionID, cwd: directory })

  // A subagent (the task tool) runs in a session of its own, a child of
  // the person's: its prompts and ends are no turns, and its tool calls
  // are steps of the turn of the session at the root. parents maps a
  // session to its parent ("" for none), from session.created or read once.
  const parents = new Map()
  const parentOf = async (sessionID) => {
    if (!parents.has(sessionID)) {
      const parent = await within(
        (async () => {
          const r = await client.session.get({ path: { id: sessionID } })
          return r && r.data ? r.data.parentID || "" : undefined
        })(),
        READ_MS,
        undefined,
      )
      if (parent === undefined) return ""
      parents.set(sessionID, parent)
    }
    return parents.get(sessionID)
  }
  const rootOf = async (sessionID) => {
    for (let i = 0; i < 16; i++) {
      const parent = await parentOf(sessionID)
      if (!parent) break
      sessionID = parent
    }
    return sessionID
  }

  return {
    "chat.message": async (input, output) => {
      const sessionID = input.sessionID
      if ((await rootOf(sessionID)) !== sessionID) return
      const message = output.message || {}
      const messageID = message.id || input.messageID || ""
      const prompt = (output.parts || [])
        .filter((p) => p && p.type === "text" && !p.synthetic && typeof p.text === "string")
        .map((p) => p.text)
        .join("\n")
      const leaf = await lastMessage(sessionID, messageID)
      const payload = { ...base("chat.message", sessionID), prompt, message_id: messageID }
      if (leaf !== undefined) payload.leaf_id = leaf
      const out = await enqueue(() => runHook(payload))
      let text = ""
      try {
        text = JSON.parse(out).additionalContext || ""
      } catch {}
      if (typeof text === "string" && text !== "") {
        output.parts.push({
          id: partID(output.parts.map((p) => p && p.id)),
          sessionID,
          messageID,
          type: "text",
          text,
          synthetic: true,
        })
      }
    },

    "tool.execute.before": async (input, output) => {
      const sessionID = await rootOf(input.sessionID)
      const payload = { ...base("tool.execute.before", sessionID), tool_name: input.tool, tool_use_id: input.callID, tool_input: output.args }
      await enqueue(() => runHook(payload))
    },

    "tool.execute.after": async (input) => {
      const sessionID = await rootOf(input.sessionID)
      const payload = { ...base("tool.execute.after", sessionID), tool_name: input.tool, tool_use_id: input.callID, tool_input: input.args }
      await enqueue(() => runHook(payload))
    },

    "shell.env": async (input, output) => {
      if (input.sessionID && output.env) output.env.REWIND_LSP_SESSION = await rootOf(input.sessionID)
    },

    event: async ({ event }) => {
      const props = (event && event.properties) || {}
      switch (event && event.type) {
        case "session.idle": {
          const sessionID = props.sessionID
          if (!sessionID || (await rootOf(sessionID)) !== sessionID) return
          // The turn's end is read as it is queued, before a later prompt
          // adds messages.
          const p = enqueue(async () => {
            const leaf = await lastMessage(sessionID, "")
            const payload = base("session.idle", sessionID)
            if (leaf !== undefined) payload.leaf_id = leaf
            return runHook(payload)
          })
          await p
          return
        }
        case "session.created": {
          const info = props.info || {}
          if (!info.id) return
          parents.set(info.id, info.parentID || "")
          if (info.parentID) return
          const payload = { ...base("session.created", info.id), source: "startup" }
          await enqueue(() => runHook(payload))
          return
        }
      }
    },

    dispose: async () => {
      await within(queue, 2 * BOUND_MS, undefined)
    },
  }
}
