#!/usr/bin/env bash
# Times relay's grep/find/bash tools against ripgrep, fd and a bare shell.
#
#   bench/tools.sh [GREP_MB] [FIND_FILES]     (defaults: 1024 MB, 500000 files)
#
# Generates the trees under a temporary directory in /tmp and deletes them on
# exit. Needs ripgrep and fd (Debian: apt-get install -y ripgrep fd-find);
# without them only relay's own figures are printed. Not run by go test.
set -euo pipefail

MB=${1:-1024}
FILES=${2:-500000}
RUNS=${RUNS:-5}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/relay-tools-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

go build -o "$work/toolsgen" "$here/bench/toolsgen"
go build -o "$work/toolsrun" "$here/bench/toolsrun"
FD=$(command -v fd || command -v fdfind || true)
RG=$(command -v rg || true)

echo "generating ${MB} MB source tree and ${FILES}-file tree under $work ..."
"$work/toolsgen" -src "$work/src" -mb "$MB"
"$work/toolsgen" -many "$work/many" -files "$FILES"
sync # let writeback of the new trees finish before timing

# "WALL CPU": median wall seconds and median user+sys CPU seconds of RUNS
# runs of "$@" (output discarded). CPU time is the steadier figure on a
# shared machine.
median() {
	local walls=() cpus=() out
	for _ in $(seq "$RUNS"); do
		/usr/bin/time -f '%e %U %S' -o "$work/time.out" "$@" >/dev/null 2>&1 || true
		out=$(tail -1 "$work/time.out")
		walls+=("$(echo "$out" | awk '{print $1}')")
		cpus+=("$(echo "$out" | awk '{print $2 + $3}')")
	done
	printf '%s %s\n' \
		"$(printf '%s\n' "${walls[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')" \
		"$(printf '%s\n' "${cpus[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
}

compare() { # label "relay-wall relay-cpu" "other-wall other-cpu" other-name
	local rw rc ow oc
	read -r rw rc <<<"$2"
	printf '%-36s relay wall %6.2fs cpu %6.2fs' "$1" "$rw" "$rc"
	if [ -n "$3" ]; then
		read -r ow oc <<<"$3"
		printf ' | %s wall %6.2fs cpu %6.2fs | ratio wall %.2f cpu %.2f' "$4" "$ow" "$oc" \
			"$(echo "$rw / $ow" | bc -l)" "$(echo "$rc / $oc" | bc -l)"
	fi
	echo
}

json_escape() { printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g'; }

cd "$work/src"
# warm the page cache
"$work/toolsrun" grep '{"pattern":"RELAYNEEDLE","limit":1000000}' >/dev/null
[ -n "$RG" ] && "$RG" --hidden RELAYNEEDLE . >/dev/null
for pat in 'RELAYNEEDLE' 'RELAY[A-Z]+ marker' 'RELAYNEEDLE|encode999 decode' 'cache\d+ (token|stream)\d+' '[a-z]+\d{3} [a-z]+\d{3} [a-z]+\d{3} [a-z]+\d{3} [a-z]+\d{3}'; do
	lit=false
	[ "$pat" = RELAYNEEDLE ] && lit=true
	args="{\"pattern\":\"$(json_escape "$pat")\",\"literal\":$lit,\"limit\":100000000}"
	r=$(median "$work/toolsrun" grep "$args")
	o=""
	if [ -n "$RG" ]; then
		if $lit; then o=$(median "$RG" --json --line-number --color=never --hidden --fixed-strings -- "$pat" .)
		else o=$(median "$RG" --json --line-number --color=never --hidden -- "$pat" .); fi
	fi
	compare "grep $pat" "$r" "$o" rg
done

cd "$work/many"
for pat in '*.go' 'a1*/b0*/*.md'; do
	args="{\"pattern\":\"$(json_escape "$pat")\",\"limit\":100000000}"
	r=$(median "$work/toolsrun" find "$args")
	o=""
	if [ -n "$FD" ]; then
		if [[ $pat == */* ]]; then o=$(median "$FD" --glob --color=never --hidden --full-path --max-results 100000000 -- "**/$pat" .)
		else o=$(median "$FD" --glob --color=never --hidden --max-results 100000000 -- "$pat" .); fi
	fi
	compare "find $pat ($FILES files)" "$r" "$o" fd
done

cd "$here"
echo "bash tool overhead per call (go test -bench BenchmarkBash):"
go test -run '^$' -bench 'BenchmarkBash' -benchtime 200x ./internal/tool/builtin/ | grep Benchmark
