// Package fakemodel is a scripted model endpoint on 127.0.0.1 for driving
// the real coding agents offline. It speaks the four APIs they use:
//
//   - Anthropic Messages (Claude Code): POST /v1/messages, server-sent
//     events when the request streams; HEAD / (Claude Code's connectivity
//     probe) is answered 200.
//   - OpenAI Responses (Codex): POST /v1/responses, server-sent events.
//   - Gemini (Gemini CLI): POST /v1beta/models/M:streamGenerateContent?alt=sse
//     for the conversation, and :generateContent with a JSON schema for
//     its model router, answered with an instance of the schema.
//   - OpenAI chat completions (Copilot CLI with its own provider): POST
//     /v1/chat/completions, server-sent chunks.
//
// A test scripts the model per prompt (Server.On): which tool calls it
// makes, in which rounds, and the text that ends the turn. Which reply a
// request gets is read from the request itself — the latest user message
// naming a scripted prompt, and the rounds of tool results after it — so
// retries, resumed sessions and the agents' side requests get the right
// answer without any state in the server. Every request is recorded
// (Server.Requests, Server.For), parsed into one message shape for all
// APIs, so a test can assert exactly what an agent sent its model.
//
// The tool names and argument shapes of each agent are documented in
// package testkit/agents, which builds the calls. Codex offers an MCP
// server's tools only through its client-side tool search: a Call named
// ToolSearch makes that search, and "namespace/name" calls a tool it
// loaded.
package fakemodel
