#!/usr/bin/env bash
# bench-search.sh: the search index's figures as a user feels them, each
# stead command a whole process: a cold build of the index, a refresh with
# nothing changed, searches (a common word, a rare word, a phrase, a
# filtered query) and session list, on a corpus of all five CLIs; then the
# same with a watcher keeping the index fresh (stead index --watch), and
# how soon a record appended to a session is found.
#
# Usage: scripts/bench-search.sh [CORPUS_DIR]
#
#   CORPUS_DIR  a corpus made by `go run ./cmd/stead-corpus -clis all`
#               (default $STEAD_BENCH_CORPUS or /tmp/stead-corpus-all;
#               generated with seed 1 when missing: FILES sessions, SIZE)
#   FILES, SIZE the corpus generated when missing (default 10000, 5G)
#   RUNS        timed runs of each search (default 20): p50 and p99
#   KEEP        when set, the index and binary are kept (their folder is
#               printed) for a closer look
set -euo pipefail

cd "$(dirname "$0")/.."
corpus=${1:-${STEAD_BENCH_CORPUS:-/tmp/stead-corpus-all}}
runs=${RUNS:-20}
work=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then
	echo "keeping $work"
else
	trap 'rm -rf "$work"' EXIT
fi

echo "building stead"
go build -o "$work/stead" ./cmd/stead
if [ ! -f "$corpus/manifest.json" ]; then
	echo "generating corpus in $corpus (seed 1, ${FILES:-10000} sessions, ${SIZE:-5G}, all five CLIs)"
	go run ./cmd/stead-corpus -out "$corpus" -seed 1 -clis all -files "${FILES:-10000}" -size "${SIZE:-5G}" >/dev/null
fi

export CLAUDE_CONFIG_DIR="$corpus/claude" CODEX_HOME="$corpus/codex" GEMINI_CLI_HOME="$corpus/gemini" \
	XDG_DATA_HOME="$corpus" KIMI_CODE_HOME="$corpus/kimi" KIMI_SHARE_DIR="$corpus/kimi-cli" \
	HOME="$work/home" XDG_CACHE_HOME="$work/cache"
mkdir -p "$HOME"
bytes=$(du -sb --exclude=manifest.json "$corpus" | cut -f1)
echo "corpus: $corpus, $bytes bytes, $(nproc) cores"
cat "$corpus"/*/*/* >/dev/null 2>&1 || true

ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

start=$(date +%s%N)
/usr/bin/time -f "%M" -o "$work/rss" "$work/stead" index --json >"$work/index.json"
took=$(ms "$start")
rss=$(cat "$work/rss")
size=$(python3 -c "import json;print(json.load(open('$work/index.json'))['index']['bytes'])")
echo "cold build: ${took} ms, $(( bytes / 1000 / (took > 0 ? took : 1) )) MB/s, peak RSS $(( rss / 1024 )) MB, index $size bytes ($(( 100 * size / bytes )) % of the corpus)"
# The build leaves its 1.3 GB in the page cache to be written out; the
# figures below are taken once it is, not beside it.
sync

for i in 1 2 3 4 5; do
	start=$(date +%s%N)
	"$work/stead" index --json >/dev/null
	echo -n "$(ms "$start") " >>"$work/fresh"
done
echo "refresh with nothing changed (whole process), 5 runs: $(cat "$work/fresh")ms"

search() { # name, then stead's arguments
	local name=$1
	shift
	: >"$work/t"
	for _ in $(seq "${N:-$runs}"); do
		start=$(date +%s%N)
		"$work/stead" "$@" >/dev/null 2>&1
		ms "$start" >>"$work/t"
	done
	sort -n "$work/t" | awk -v name="$name" '{a[NR]=$1} END {p50=a[int((NR+1)/2)]; p99=a[NR]; printf "%-28s p50 %4d ms, p99 %4d ms (%d runs)\n", name, p50, p99, NR}'
}
search "search, common word" search error
search "search, rare word" search zanzibar
search "search, phrase" search '"the tests"'
search "search, filtered" search error --cli codex --role tool_result --since 30d
search "session list" session list --json
search "session stats" session stats --json
XDG_CACHE_HOME="$work/no-index" N=3 search "session list, no index" session list --json

# The same with a watcher keeping the index fresh (stead index --watch, as
# the daemon does): each command asks it instead of looking at every file.
"$work/stead" index --watch 2>"$work/watch.log" &
watcher=$!
trap 'kill $watcher 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
until grep -q "watching" "$work/watch.log"; do
	if ! kill -0 $watcher 2>/dev/null; then
		echo "the watcher did not start: $(cat "$work/watch.log")" >&2
		exit 1
	fi
	sleep 0.1
done
echo "watcher: $(tail -1 "$work/watch.log")"
search "watched: index (freshness)" index --json
search "watched: search, common" search error
search "watched: search, rare" search zanzibar
search "watched: search, phrase" search '"the tests"'
search "watched: search, filtered" search error --cli codex --role tool_result --since 30d
search "watched: session list" session list --json
search "watched: session list (table)" session list
N=5 search "watched: session stats" session stats --json
echo "watcher: $(ps -o rss=,cputime= -p $watcher | awk '{print $1/1024 " MB RSS, CPU " $2}'), $(grep -c '^inotify' /proc/$watcher/fdinfo/* 2>/dev/null | awk -F: '{s+=$2} END {print s}') watches"

# A record appended to a session (as a live CLI writes it) → found. The
# file is cut back to its size after.
session=$(find "$CLAUDE_CONFIG_DIR/projects" -name "*.jsonl" -print -quit)
size=$(stat -c %s "$session")
sid=$(basename "$session" .jsonl)
: >"$work/t"
for i in $(seq 5); do
	word="appendedword$i$RANDOM"
	start=$(date +%s%N)
	printf '{"type":"user","uuid":"ffffffff-0000-4000-8000-00000000000%d","parentUuid":null,"sessionId":"%s","timestamp":"%s","cwd":"/bench","message":{"role":"user","content":"%s"}}\n' \
		"$i" "$sid" "$(date -u +%Y-%m-%dT%H:%M:%S.000Z)" "$word" >>"$session"
	until "$work/stead" search "$word" --json | grep -q '"entry"'; do :; done
	ms "$start" >>"$work/t"
done
truncate -s "$size" "$session"
sort -n "$work/t" | awk '{a[NR]=$1} END {printf "watched: appended record found   p50 %4d ms, max %4d ms (%d runs)\n", a[int((NR+1)/2)], a[NR], NR}'
