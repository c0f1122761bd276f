#!/usr/bin/env bash
# What `rewind-lsp acp` adds to each message: the real binary in front of a scripted ACP agent
# (the acp package's test binary acting as one) against that agent run directly — the median
# round trip of a request the agent answers (two messages), and the time per message of a stream
# of 5,000 session/update notifications (acp/bench_test.go, TestOverhead).
set -euo pipefail
cd "$(dirname "$0")/.."
REWIND_LSP_BENCH=1 go test ./acp -run '^TestOverhead$' -count=1 -v | grep -E 'round trip|stream of'
