#!/usr/bin/env bash
# Session store benchmarks (issue 2):
#   - open a 50 MB / 20,000-entry session and build its context (target
#     <= 250 ms, <= 150 MB peak RSS), with compactions as a long session has
#     them, and the pathological variant that never compacted;
#   - list 2,000 sessions totalling 2 GB (target <= 300 ms);
#   - append cost on the big file (constant time).
# Everything is generated in a temp dir that is removed at the end.
# Usage: bench/session.sh [runs]   (RELAY_BENCH_KEEP=1 keeps the temp dir)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/go/bin:$PATH"
runs=${1:-5}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/relay-session-bench.XXXXXX")
if [ -z "${RELAY_BENCH_KEEP:-}" ]; then trap 'rm -rf "$tmp"' EXIT; fi

go build -o "$tmp/sessionbench" ./bench/sessionbench
have_relay=1
go build -o "$tmp/relay" ./cmd/relay || { have_relay=; echo "(relay binary does not build right now: binary runs skipped)"; }
sb="$tmp/sessionbench"
timev() { /usr/bin/time -f "    wall %e s, user %U s, sys %S s, peak RSS %M KB" "$@"; }

echo "machine: $(nproc) cores, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== generate"
"$sb" gen-one "$tmp/big.jsonl"
"$sb" gen-one "$tmp/nocompact.jsonl" -compact-kb 0
"$sb" gen-many "$tmp/agent/sessions" -files 2000 -mb-total 2000
ls -l "$tmp/big.jsonl" "$tmp/nocompact.jsonl" | awk '{print "  " $5 " bytes  " $9}'
echo "  store: $(find "$tmp/agent/sessions" -name '*.jsonl' | wc -l) files, $(du -sm "$tmp/agent/sessions" | cut -f1) MB"
cat "$tmp/big.jsonl" "$tmp/nocompact.jsonl" > /dev/null   # warm the page cache

echo "== open + build context, 50 MB / 20,000 entries (compacting session)"
for _ in $(seq "$runs"); do timev "$sb" open "$tmp/big.jsonl"; done
if [ -n "$have_relay" ]; then
  echo "== same through the binary: relay sessions show --context"
  for _ in $(seq 3); do timev "$tmp/relay" sessions show "$tmp/big.jsonl" --context > /dev/null; done
fi
echo "== open + build context, never-compacted 50 MB session (all 20,000 messages decoded)"
timev "$sb" open "$tmp/nocompact.jsonl"

echo "== list 2,000 sessions / 2 GB"
export XDG_CACHE_HOME="$tmp/cache"   # the listing cache, kept out of ~/.cache
find "$tmp/agent/sessions" -name '*.jsonl' -exec cat {} + > /dev/null   # warm the page cache
echo "  first listing (no listing cache yet: every file scanned once):"
timev "$sb" list "$tmp/agent/sessions"
echo "  later listings (cache hits: stat only):"
for _ in $(seq "$runs"); do timev "$sb" list "$tmp/agent/sessions"; done
echo "  after appending to 100 sessions (only the appended bytes are scanned):"
for f in $(find "$tmp/agent/sessions" -name '*.jsonl' | head -100); do
  tail -n 3 "$f" >> "$f"
done
timev "$sb" list "$tmp/agent/sessions"
if [ -n "$have_relay" ]; then
  echo "== same through the binary: relay sessions list --all"
  for _ in $(seq 3); do RELAY_CODING_AGENT_DIR="$tmp/agent" timev "$tmp/relay" sessions list --all > /dev/null; done
fi

echo "== append (constant time)"
"$sb" append "$tmp/big.jsonl" 2000
printf '{"type":"session","version":3,"id":"small","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/p"}\n' > "$tmp/small.jsonl"
"$sb" append "$tmp/small.jsonl" 2000
