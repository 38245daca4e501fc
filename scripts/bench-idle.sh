#!/usr/bin/env bash
# The daemon's CPU while nothing happens: a stead daemon of its own (state
# in a temporary folder, the example stores, a search index of them that
# it keeps fresh), first with no page open, then with the control room's
# sessions page open in headless Chromium.
# Prints the share of one core each window used, from /proc/<pid>/stat.
#   scripts/bench-idle.sh [seconds]     (default 30 s a window)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
work=$(mktemp -d)
trap 'pkill -f "user-data-dir=$work/chrome" 2>/dev/null || true; [ -x "$work/stead" ] && HOME=$work/home XDG_STATE_HOME=$work/state "$work/stead" serve stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
go build -o "$work/stead" ./cmd/stead
export HOME=$work/home XDG_STATE_HOME=$work/state XDG_CACHE_HOME=$work/cache
export CLAUDE_CONFIG_DIR=$PWD/examples/claude CODEX_HOME=$PWD/examples/codex
mkdir -p "$HOME"
"$work/stead" index >/dev/null
"$work/stead" serve >"$work/serve.log" 2>&1 &
for _ in $(seq 50); do [ -s "$XDG_STATE_HOME/stead/bus.json" ] && break; sleep 0.1; done
pid=$(sed -n 's/.*"pid":\([0-9]*\).*/\1/p' "$XDG_STATE_HOME/stead/bus.json")
hz=$(getconf CLK_TCK)
ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
window() {
	local a b
	a=$(ticks); sleep "$secs"; b=$(ticks)
	awk -v t=$((b - a)) -v hz="$hz" -v s="$secs" -v what="$1" 'BEGIN { printf "%s: %.2f %% of a core (%d ticks in %d s)\n", what, 100 * t / hz / s, t, s }'
}
sleep 3
window "the daemon, no page open"
url=$("$work/stead" ui --url)
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
	--disable-sync --no-first-run --user-data-dir="$work/chrome" --remote-debugging-port=0 "$url" >/dev/null 2>&1 &
sleep 8
window "the daemon, the sessions page open"
