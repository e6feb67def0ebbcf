#!/usr/bin/env bash
# End-to-end performance of relay against the fake provider (issue 5):
# start-up, first request, 20 tool turns, resume of a 50 MB session, and a
# 2 MB answer streamed in JSON mode.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/relay" ./cmd/relay
go run ./bench/agentbench -relay "$out/relay"
