#!/usr/bin/env bash
# HTML export benchmarks (issue 18):
#   - export a 50 MB / 20,000-entry session (target <= 1.5 s, <= 200 MB RSS);
#   - the page's load event in headless Chromium for that export
#     (target <= 5 s) and for a 100-entry session (target <= 300 ms).
# Sessions come from the session benchmark's generator. Everything lives in
# a temp dir removed at the end.
# Usage: bench/export.sh [runs]   (RELAY_BENCH_KEEP=1 keeps the temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
runs=${1:-3}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relay-export-bench.XXXXXX")
if [ -z "${RELAY_BENCH_KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; fi

go build -o "$tmp/sessionbench" ./bench/sessionbench
go build -o "$tmp/exportbench" ./bench/exportbench
timev() { /usr/bin/time -f "    wall %e s, user %U s, sys %S s, peak RSS %M KB" "$@"; }

echo "machine: $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== generate"
"$tmp/sessionbench" gen-one "$tmp/big.jsonl"
"$tmp/sessionbench" gen-one "$tmp/small.jsonl" -mb 1 -entries 100 -compact-kb 0
ls -l "$tmp/big.jsonl" "$tmp/small.jsonl" | awk '{print "  " $5 " bytes  " $9}'
cat "$tmp/big.jsonl" > /dev/null   # warm the page cache

echo "== export, 50 MB / 20,000 entries"
for _ in $(seq "$runs"); do timev "$tmp/exportbench" export "$tmp/big.jsonl" "$tmp/big.html"; done
echo "== export, 100 entries"
timev "$tmp/exportbench" export "$tmp/small.jsonl" "$tmp/small.html"

if command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || command -v google-chrome >/dev/null 2>&1; then
  echo "== headless Chromium, 50 MB page"
  "$tmp/exportbench" load "$tmp/big.html" "$runs"
  echo "== headless Chromium, 100-entry page"
  "$tmp/exportbench" load "$tmp/small.html" "$runs"
else
  echo "(chromium not installed: page load skipped)"
fi
