#!/usr/bin/env bash
# bench-scan.sh: time `stead session stats` and `stead session list` against
# `cat` and, when installed, ccusage 20.0.24 on the same corpus, and compare
# the token totals.
#
# Usage: scripts/bench-scan.sh [CORPUS_DIR]
#
#   CORPUS_DIR  a corpus made by `go run ./cmd/stead-corpus` (default
#               $STEAD_BENCH_CORPUS or /tmp/stead-corpus; generated with
#               seed 1 when missing: 3,000 files, 1.5 GB)
#   RUNS        timed runs per command (default 5); the best and median are
#               reported
#   CCUSAGE     path of the ccusage binary (default: found on PATH or in
#               node_modules; `npm install ccusage@20.0.24` installs it)
#
# Every command runs with the files in the page cache (a warm-up pass reads
# them first), with HOME pointing at an empty folder so that no other data
# is read.
set -euo pipefail

cd "$(dirname "$0")/.."
corpus=${1:-${STEAD_BENCH_CORPUS:-/tmp/stead-corpus}}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "building stead"
go build -o "$work/stead" ./cmd/stead

if [ ! -f "$corpus/manifest.json" ]; then
	echo "generating corpus in $corpus (seed 1, 3000 files, 1.5 GB)"
	go run ./cmd/stead-corpus -out "$corpus" -seed 1
fi

export CLAUDE_CONFIG_DIR="$corpus/claude" CODEX_HOME="$corpus/codex" HOME="$work/home"
mkdir -p "$HOME"

files=$(find "$corpus/claude" "$corpus/codex" -name '*.jsonl' | wc -l)
bytes=$(find "$corpus/claude" "$corpus/codex" -name '*.jsonl' -print0 | xargs -0 cat | wc -c)
echo "corpus: $corpus, $files files, $bytes bytes, $(nproc) cores"
find "$corpus/claude" "$corpus/codex" -name '*.jsonl' -print0 | xargs -0 cat >/dev/null # warm the page cache

# measure NAME CMD...: run CMD $runs times, print best and median wall time
# and the largest peak RSS, keep the last run's stdout in $work/NAME.out.
measure() {
	local name=$1
	shift
	local times=() rss=0
	for _ in $(seq "$runs"); do
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
			echo "$name failed:"
			cat "$work/$name.err"
			return 1
		}
		read -r t m <"$work/time"
		times+=("$t")
		[ "$m" -gt "$rss" ] && rss=$m
	done
	local sorted
	sorted=$(printf '%s\n' "${times[@]}" | sort -n)
	local best median
	best=$(echo "$sorted" | head -1)
	median=$(echo "$sorted" | sed -n "$(((runs + 1) / 2))p")
	local mbps
	mbps=$(awk -v b="$bytes" -v t="$median" 'BEGIN { if (t > 0) printf "%.0f", b / t / 1e6; else print "-" }')
	printf '%-26s best %5.2f s  median %5.2f s  %6s MB/s  peak RSS %4d MB\n' "$name" "$best" "$median" "$mbps" $((rss / 1024))
}

catall() { find "$corpus/claude" "$corpus/codex" -name '*.jsonl' -print0 | xargs -0 cat >/dev/null; }
export -f catall
export corpus

echo
measure cat bash -c catall
measure "stead session stats" "$work/stead" session stats --json
measure "stead session list" "$work/stead" session list --json

ccusage=${CCUSAGE:-}
if [ -z "$ccusage" ]; then
	for c in "$(command -v ccusage || true)" node_modules/.bin/ccusage "$HOME/../node_modules/.bin/ccusage"; do
		if [ -n "$c" ] && [ -x "$c" ]; then ccusage=$c; break; fi
	done
fi
if [ -n "$ccusage" ]; then
	# The npm package is a Node launcher for a native binary; time the
	# binary itself when it can be found, as the launcher only adds Node's
	# start-up.
	native=$(dirname "$(readlink -f "$ccusage")")/../../@ccusage/ccusage-linux-x64/bin/ccusage
	[ -x "$native" ] && ccusage=$native
	echo "ccusage: $("$ccusage" --version 2>/dev/null || echo '?') ($ccusage)"
	measure "ccusage session --offline" "$ccusage" session --json --offline
else
	echo "ccusage not found: npm install ccusage@20.0.24, or set CCUSAGE"
fi

echo
echo "token totals (input, output, cache read, cache write):"
python3 - "$corpus/manifest.json" "$work/stead session stats.out" "$work/ccusage session --offline.out" <<'PY'
import json, os, sys
def show(name, t):
    print(f"  {name:<22} {t[0]:>15,} {t[1]:>13,} {t[2]:>16,} {t[3]:>14,}")
    return t
m = json.load(open(sys.argv[1]))["tokens"]["total"]
want = show("corpus manifest", (m["input"], m["output"], m["cacheRead"], m["cacheWrite"]))
s = json.load(open(sys.argv[2]))["totals"]["tokens"]
got = show("stead session stats", (s["input"], s["output"], s["cacheRead"], s["cacheWrite"]))
ok = got == want
if os.path.exists(sys.argv[3]) and os.path.getsize(sys.argv[3]) > 0:
    c = json.load(open(sys.argv[3]))["totals"]
    cc = show("ccusage", (c["inputTokens"], c["outputTokens"], c["cacheReadTokens"], c["cacheCreationTokens"]))
    ok = ok and cc == want
print("totals agree" if ok else "TOTALS DIFFER")
sys.exit(0 if ok else 1)
PY
