#!/usr/bin/env bash
# Runs every fuzz target of the module for SECONDS each (default 10), one
# target at a time on two workers, and prints how many inputs each ran.
#
#   scripts/fuzz.sh [SECONDS] [PATTERN]
#
# PATTERN, a regular expression, picks the targets whose "package.Target"
# it matches (scripts/fuzz.sh 30 'cusf|FuzzParseRequest').
#
# It fails when a target finds a failure (go test writes the input to the
# package's testdata/fuzz/<Target>/, where it stays a test case) or runs
# fewer than STEAD_FUZZ_MIN_EXECS inputs (default 100 a second: 1000 in
# the default 10 s): a target that barely runs tests nothing, whatever it
# reports.
#
# Minimising an input that reached new code is bounded by
# STEAD_FUZZ_MINIMIZE (default 100x: 100 runs of the target). Go's default,
# 60 s per input, let minimising take a target's whole time: four targets
# ran 7 to 44 inputs in 45 s. The bound applies to a failing input too,
# which is then smaller but not minimal.
#
# Each run starts from the seeds and testdata/fuzz: the inputs a run finds
# go to a temporary corpus, not to the one go test keeps in GOCACHE, which
# only grows and which every run would first re-run ("gathering baseline
# coverage"), out of its SECONDS. STEAD_FUZZ_CACHE=DIR keeps the corpus in
# DIR from run to run instead.
set -euo pipefail
cd "$(dirname "$0")/.."

secs=${1:-10}
pattern=${2:-.}
case $secs in
'' | *[!0-9]* | 0)
	echo "usage: scripts/fuzz.sh [SECONDS] [PATTERN] (SECONDS a whole number)" >&2
	exit 2
	;;
esac
min_execs=${STEAD_FUZZ_MIN_EXECS:-$((100 * secs))}
minimize=${STEAD_FUZZ_MINIMIZE:-100x}

# The targets, as "dir name", from the test files (go test -list would
# build every test binary first).
targets=$(find . -name '*_test.go' -not -path '*/testdata/*' -not -path './.*' -print0 |
	xargs -0 grep -H -o -E '^func Fuzz[A-Za-z0-9_]*\(' |
	sed -E 's|^\./(.*)/[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|\1 \2|; s|^\./[^/]*_test\.go:func (Fuzz[A-Za-z0-9_]*)\($|. \1|' |
	sort -u)

log=$(mktemp)
cache=${STEAD_FUZZ_CACHE:-}
if [ -z "$cache" ]; then
	cache=$(mktemp -d)
	trap 'rm -rf "$log" "$cache"' EXIT
else
	trap 'rm -f "$log"' EXIT
fi
failed=0
slow=0
ran=0
start=$(date +%s)
printf '%-28s %-24s %10s %9s  %s\n' package target execs execs/s result
while read -r dir name; do
	[ -n "$name" ] || continue
	echo "$dir.$name" | grep -q -E -- "$pattern" || continue
	ran=$((ran + 1))
	status=0
	# -test.fuzzcachedir is the flag go test passes the test binary to
	# name the corpus; the one given after -args wins.
	go test -run '^$' -fuzz "^$name\$" -fuzztime "${secs}s" -fuzzminimizetime "$minimize" \
		-parallel 2 "./$dir" -args -test.fuzzcachedir="$cache/$dir" >"$log" 2>&1 || status=$?
	# The last progress line: "fuzz: elapsed: 10s, execs: 12345 (1234/sec), ...".
	last=$(grep -E '^fuzz: elapsed: [0-9]+s, execs: [0-9]+ ' "$log" | tail -n 1 || true)
	execs=$(echo "$last" | sed -n -E 's/.*execs: ([0-9]+) .*/\1/p')
	elapsed=$(echo "$last" | sed -n -E 's/^fuzz: elapsed: ([0-9]+)s.*/\1/p')
	execs=${execs:-0}
	elapsed=${elapsed:-0}
	rate=$((execs / (elapsed > 0 ? elapsed : 1)))
	result=ok
	if [ "$status" -ne 0 ] && grep -q -x -E '[[:space:]]*context deadline exceeded' "$log" &&
		! grep -q -E 'Failing input written|panic:' "$log"; then
		# Go 1.26's fuzzing can report the end of -fuzztime as this
		# error, with no failing input (golang/go#75804, fixed in 1.27).
		status=0
		result="ok (the fuzztime deadline race, golang/go#75804)"
	fi
	if [ "$status" -ne 0 ]; then
		result=FAIL
		failed=$((failed + 1))
	elif [ "$execs" -lt "$min_execs" ]; then
		result="too few inputs (under $min_execs)"
		slow=$((slow + 1))
	fi
	printf '%-28s %-24s %10s %9s  %s\n' "$dir" "$name" "$execs" "$rate" "$result"
	if [ "$status" -ne 0 ] || [ "$execs" -lt "$min_execs" ]; then
		grep -v -E '^fuzz: elapsed: ' "$log" | sed 's/^/    /'
	fi
done <<<"$targets"

echo "fuzzed $ran targets for ${secs} s each in $(($(date +%s) - start)) s"
if [ "$ran" -eq 0 ]; then
	echo "no fuzz target matches $pattern" >&2
	exit 1
fi
if [ "$failed" -gt 0 ] || [ "$slow" -gt 0 ]; then
	echo "$failed targets failed, $slow ran too few inputs" >&2
	exit 1
fi
