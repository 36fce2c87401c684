#!/bin/sh
# Runs every test binary and shell test, each under a timeout, and prints
# the closing line "N passed, N failed, N skipped".  Exits non-zero when
# anything failed.  One pass of tests/check.sh (`make test`); alone it is
# `make quick`, `make asan` or `make valgrind`.
#   BUILD        build directory (default build)
#   CUDBG_VALGRIND=1  run the unit binaries, the fuzz corpora and the shell
#                     tests (the binary through tests/valgrind-cudbg) under
#                     valgrind
#   CUDBG_PASS=NAME   prefix every test name with NAME/ (asan, valgrind;
#                     valgrind is the default under CUDBG_VALGRIND=1), so
#                     the passes of `make test` keep apart
#   CUDBG_TEST_RESULTS=FILE    append the PASS/FAIL/SKIP lines to FILE and print no
#                     closing line (tests/check.sh sums all passes)
set -u
BUILD=${BUILD:-build}
if [ "${CUDBG_VALGRIND:-0}" = 1 ]; then
	CUDBG_PASS=${CUDBG_PASS-valgrind}
fi
P=${CUDBG_PASS:+$CUDBG_PASS/}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export CUDBG_ROOT="$ROOT"
export CUDBG_BUILD="$ROOT/$BUILD"
export CUDBG_BIN="$ROOT/$BUILD/cudbg-tui"
# No user config file leaks into the tests (tests that want one set it).
export CUDBG_CONFIG=
# The real cuda-gdb recordings are in the repository (tests/shared/, a copy
# of the project's shared fixtures) so a fresh clone tests the same; their
# sources are the examples in data/.
if [ -z "${CUDBG_FIXTURES:-}" ]; then
	export CUDBG_FIXTURES="$ROOT/tests/shared/fixtures"
fi
export CUDBG_EXAMPLES="${CUDBG_EXAMPLES:-$ROOT/data/examples}"
cd "$ROOT" || exit 2
log=$(mktemp)
# Every --json report the tests produce is kept here and checked against
# docs/report.schema.json at the end (tests/schema_check.py); not under
# valgrind, which checks memory, not reports (the plain and asan passes
# check the same reports).
CUDBG_JSON_REPORTS=
if [ "${CUDBG_VALGRIND:-0}" != 1 ]; then
	CUDBG_JSON_REPORTS=$(mktemp -d)
fi
export CUDBG_JSON_REPORTS
trap 'rm -f "$log"; [ -z "$CUDBG_JSON_REPORTS" ] || rm -rf "$CUDBG_JSON_REPORTS"' EXIT

# Each test's wall time, one line "SECONDS NAME", goes to $BUILD/test-times
# (test-times-PASS for the asan and valgrind passes; the slowest are
# printed at the end, sort -rn the file to see them all), and each unit
# test case's to $BUILD/case-times[-PASS] (tests/harness.c).
TIMES="$ROOT/$BUILD/test-times${CUDBG_PASS:+-$CUDBG_PASS}"
CUDBG_CASE_TIMES="$ROOT/$BUILD/case-times${CUDBG_PASS:+-$CUDBG_PASS}"
export CUDBG_CASE_TIMES
mkdir -p "$ROOT/$BUILD" && : >"$TIMES" && : >"$CUDBG_CASE_TIMES"

run_one() { # name timeout cmd...
	name=$1; secs=$2; shift 2
	out=$(mktemp)
	t0=$(date +%s%N)
	timeout -k 5 "$secs" "$@" >"$out" 2>&1
	rc=$?
	t1=$(date +%s%N)
	echo "$(( (t1 - t0) / 1000000 ))" "$P$name" |
		awk '{ printf "%.1f %s\n", $1 / 1000, $2 }' >>"$TIMES"
	# the test's own result lines get the pass prefix too
	sed -E "s#^(PASS|FAIL|SKIP) #\1 $P#" "$out"
	if ! grep -qE '^(PASS|FAIL|SKIP) ' "$out"; then
		if [ $rc -eq 0 ]; then echo "PASS $P$name"; else echo "FAIL $P$name: exit $rc"; fi
	elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "FAIL $P$name: timed out after ${secs}s"
	elif [ $rc -ne 0 ] && ! grep -q '^FAIL ' "$out"; then
		echo "FAIL $P$name: exit $rc with no failing test"
	fi
	rm -f "$out"
}

for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] || continue
	if [ "${CUDBG_VALGRIND:-0}" = 1 ]; then
		run_one "$(basename "$t")" 1800 valgrind -q --error-exitcode=99 \
			--leak-check=full --errors-for-leak-kinds=definite \
			--trace-children=no "$t"
	else
		run_one "$(basename "$t")" 900 "$t"
	fi
done | tee -a "$log"

VG=
if [ "${CUDBG_VALGRIND:-0}" = 1 ]; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full
	    --errors-for-leak-kinds=definite --trace-children=no"
fi
for f in "$BUILD"/fuzz-replay/fuzz_*; do
	[ -x "$f" ] || continue
	n=$(basename "$f")
	# shellcheck disable=SC2086
	run_one "corpus/$n" 300 $VG "$f" "tests/fuzz/corpus/${n#fuzz_}"
done | tee -a "$log"

# once S: true for a shell test marked to run in the plain pass only (a
# check of the tree, the same in every pass).
once() { grep -q '^# tests/run.sh: once' "$1"; }

if [ "${CUDBG_VALGRIND:-0}" != 1 ]; then
	for s in tests/sh/*.sh; do
		[ -f "$s" ] || continue
		[ -n "$P" ] && once "$s" && continue
		run_one "sh/$(basename "$s" .sh)" 600 sh "$s"
	done | tee -a "$log"
else
	# The shell tests with the binary under valgrind (tests/valgrind-cudbg);
	# tmux_smoke finds the program by its process name, which valgrind
	# changes, so it runs only in the normal suite.
	vglogs=$(mktemp -d)
	real=$CUDBG_BIN
	CUDBG_VALGRIND_EXE=$(command -v valgrind)
	export CUDBG_VALGRIND_EXE
	for s in tests/sh/*.sh; do
		[ -f "$s" ] || continue
		case $s in */tmux_smoke.sh) continue ;; esac
		once "$s" && continue
		CUDBG_BIN="$ROOT/tests/valgrind-cudbg" CUDBG_REAL_BIN="$real" \
		CUDBG_VALGRIND_LOGS="$vglogs" CUDBG_UNDER_VALGRIND=1 \
			run_one "sh/$(basename "$s" .sh)" 1800 sh "$s"
	done | tee -a "$log"
	for l in "$vglogs"/vg.*; do
		[ -s "$l" ] || continue
		echo "FAIL ${P}$(basename "$l"): valgrind found errors:"
		head -40 "$l" | sed 's/^/    /'
	done | tee -a "$log"
	n=$(ls "$vglogs" | wc -l)
	echo "valgrind: $n cudbg-tui processes checked"
	rm -rf "$vglogs"
fi

if [ -n "$CUDBG_JSON_REPORTS" ]; then
	run_one schema/reports 300 python3 tests/schema_check.py \
		docs/report.schema.json "$CUDBG_JSON_REPORTS" | tee -a "$log"
fi

echo "slowest (seconds; all in $TIMES):"
sort -rn "$TIMES" | head -8 | sed 's/^/    /'
p=$(grep -c '^PASS ' "$log")
f=$(grep -c '^FAIL ' "$log")
s=$(grep -c '^SKIP ' "$log")
if [ -n "${CUDBG_TEST_RESULTS:-}" ]; then
	grep -E '^(PASS|FAIL|SKIP) ' "$log" >>"$CUDBG_TEST_RESULTS"
else
	echo "$p passed, $f failed, $s skipped"
fi
[ "$f" -eq 0 ] && [ "$p" -gt 0 ]
