// A fake `rewind-lsp hook`: records its arguments and the JSON on its stdin
// as a line of REWIND_TEST_LOG, and answers as REWIND_TEST_MODE says
// (rewind-lsp.test.mjs).
import { appendFileSync } from "node:fs"

let input = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (d) => (input += d))
process.stdin.on("end", async () => {
  const start = Date.now()
  const mode = process.env.REWIND_TEST_MODE || ""
  if (mode === "slow") await new Promise((r) => setTimeout(r, 300))
  if (mode === "hang") await new Promise((r) => setTimeout(r, 60000))
  appendFileSync(process.env.REWIND_TEST_LOG, JSON.stringify({ args: process.argv.slice(2), payload: JSON.parse(input), start, end: Date.now() }) + "\n")
  switch (mode) {
    case "notice":
      process.stdout.write(JSON.stringify({ additionalContext: "rewind-lsp: since your last prompt, the workspace was rewound." }) + "\n")
      break
    case "garbage":
      process.stdout.write("not JSON\n")
      break
    case "fail":
      process.exit(3)
  }
})
