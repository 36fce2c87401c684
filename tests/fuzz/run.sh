#!/bin/sh
# Runs each libFuzzer target for SECONDS over a scratch copy of its
# committed corpus (new inputs stay in tests/fuzz/corpus-work/, ignored)
# and prints one line per target: "PASS fuzz/NAME: ..." or "FAIL fuzz/NAME:
# why", with the path of the finding (crash-*, leak-*, timeout-*, oom-*)
# kept under tests/fuzz/findings/ (ignored).  Then the closing line
# "N passed, N failed, N skipped", or, with CUDBG_TEST_RESULTS=FILE, the result
# lines appended to FILE instead (tests/check.sh sums all passes).
# Exits non-zero when a target failed.
# Usage: run.sh SECONDS TARGET...
set -u
secs=$1; shift
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# fuzz_one TARGET: one libFuzzer run, one result line.
fuzz_one() {
	n=$(basename "$1"); n=${n#fuzz_}
	work=tests/fuzz/corpus-work/$n
	mkdir -p "$work" tests/fuzz/findings
	# a directory of its own per run, so an older finding never fails
	# (or hides) this one; removed again when the run finds nothing
	found=$(mktemp -d "tests/fuzz/findings/$n.XXXXXX") || {
		echo "FAIL fuzz/$n: cannot make a directory in tests/fuzz/findings"
		return
	}
	out=$found/fuzzer.log
	# -max_total_time is checked between inputs; -timeout=10 bounds one
	# input, and the outer timeout a fuzzer that hangs outside both.
	timeout -k 5 $((secs + 120)) "$1" -max_total_time="$secs" \
		-timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
		-artifact_prefix="$found/" "$work" "tests/fuzz/corpus/$n" \
		>"$out" 2>&1
	rc=$?
	art=$(find "$found" -maxdepth 1 -type f \( -name 'crash-*' -o \
		-name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | head -1)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -1)
	if [ $rc -eq 0 ] && [ -z "$art" ] && [ -n "$execs" ]; then
		echo "PASS fuzz/$n: $execs inputs in ${secs}s, no finding"
		rm -rf "$found"
		return
	fi
	if [ -n "$art" ]; then
		kind=$(basename "$art"); kind=${kind%%-*}
		echo "FAIL fuzz/$n: $kind, finding $art (reproduce: $1 $art)"
	elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "FAIL fuzz/$n: did not end within $((secs + 120))s; log $out"
	elif [ $rc -eq 0 ]; then
		echo "FAIL fuzz/$n: no final stats from the fuzzer; log $out"
	else
		echo "FAIL fuzz/$n: exit $rc; log $out"
	fi
	grep -E '^==[0-9]+==ERROR|^SUMMARY|#[0-2] ' "$out" |
		head -8 | sed 's/^/    /'
}

for t in "$@"; do
	fuzz_one "$t"
done | tee "$log"

p=$(grep -c '^PASS ' "$log")
f=$(grep -c '^FAIL ' "$log")
if [ -n "${CUDBG_TEST_RESULTS:-}" ]; then
	grep -E '^(PASS|FAIL|SKIP) ' "$log" >>"$CUDBG_TEST_RESULTS"
else
	echo "$p passed, $f failed, 0 skipped"
fi
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
