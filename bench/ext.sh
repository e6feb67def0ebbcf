#!/usr/bin/env bash
# Extensions (issue 12): launch to first model request with none and with
# five extensions, against the fake provider. The tool_call round trip and
# the extension tool overhead are Go benchmarks:
#   go test -run XXX -bench . ./internal/ext
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/relay" ./cmd/relay
go run ./bench/extbench -relay "$out/relay" "$@"
