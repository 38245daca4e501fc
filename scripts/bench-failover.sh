#!/usr/bin/env bash
# Runs that survive a dead machine, N times over: e2e/TestClusterRunFailover
# (three stead daemons in a cluster on loopback, a Codex run against the
# model stub) run N times, each with two failovers: the daemon running the
# run stopped with SIGSTOP past its lease mid-turn, then the machine
# running it killed with SIGKILL mid-turn (daemon, its NATS server, CLI).
# Each run checks that no prompt is lost or repeated, that an answer comes
# after each, and that the stopped worker, continued, writes nothing.
# Then e2e/TestClusterRunHandover: the daemon running a run stopped on
# purpose (SIGTERM) mid-turn lets the turn end and hands the run over.
# Prints each failover's and handover's figures and a tally.
#   scripts/bench-failover.sh [N]     (default 10: 20 failovers)
# Needs the real Claude Code and Codex (scripts/install-clis.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
pass=0 fail=0
for i in $(seq "$n"); do
	if STEAD_REQUIRE_CLIS=1 go test ./e2e -run '^TestClusterRun(Failover|Handover)$' -count=1 -v -timeout 15m >"$log" 2>&1; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		grep -E '^\s+(failover|handover|cluster)_test.go' "$log" | grep -v ' log:$' | head -20 | sed "s/^/run $i: /"
	fi
	grep -E 'stopped mid-turn|killed mid-turn' "$log" | sed -E "s/^ +(failover|handover)_test.go:[0-9]+: /run $i: /"
done
echo "$pass of $n runs passed ($((2 * pass)) failovers and $pass handovers with nothing lost, repeated or owned twice); $fail failed"
[ "$fail" -eq 0 ]
