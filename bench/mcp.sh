#!/usr/bin/env bash
# MCP, codemode and tool_search figures (issue 13):
#   - launch to first request with 0 and with 20 MCP servers configured
#     (none used; servers that never answer, the worst case);
#   - an MCP tool call over stdio through relay vs the same call straight
#     through the SDK session (the difference is relay's overhead, ≤ 2 ms);
#   - a codemode script's start (≤ 5 ms) and 100 nested calls (≤ 100 ms of
#     overhead), alone and as the model's call in the agent loop (events,
#     hooks with the harness gate, the nestedCalls record);
#   - tool_search over 1,000 tools (≤ 5 ms).
#
#   bench/mcp.sh            (BENCHTIME=1s by default)
#
# Not run by go test. Benchmarks print ns/op; on a shared machine compare
# the pairs, which run back to back.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-1s}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== start-up (agentbench -only mcp)"
go build -o "$out/relay" ./cmd/relay
go run ./bench/agentbench -relay "$out/relay" -only mcp

echo
echo "== MCP stdio tool call: relay (Tool.Execute) vs raw SDK session"
go test -run '^$' -bench 'BenchmarkStdio(ToolCall|RawSDKCall)$' -benchtime "$BENCHTIME" ./internal/mcp | grep -E '^Benchmark'

echo
echo "== codemode: empty script, 100 nested calls (alone and through the agent loop)"
go test -run '^$' -bench 'Benchmark(EmptyScript|HundredCalls|EmptyScriptThroughTheLoop|HundredCallsThroughTheLoop)$' -benchtime "$BENCHTIME" ./internal/codemode | grep -E '^Benchmark'

echo
echo "== tool_search over 1,000 tools (index built once, then each query)"
go test -run '^$' -bench 'Benchmark(Search|Index)1000$' -benchtime "$BENCHTIME" ./internal/toolsearch | grep -E '^Benchmark'
