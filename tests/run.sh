#!/bin/sh
# Runs every test binary, fuzz corpus and shell test, each under a
# timeout, JOBS at a time, longest first, and prints the closing line "N
# passed, N failed, N skipped".  Exits non-zero when anything failed.  One
# pass of tests/check.sh (`make test`); alone it is `make quick`, `make
# asan` or `make valgrind`.
#   BUILD        build directory (default build)
#   JOBS=N       tests at a time (default 2; 1 under valgrind); a test's
#                lines are printed whole when it ends
#   CUDBG_VALGRIND=1  run the unit binaries, the fuzz corpora and the shell
#                     tests (the binary through tests/valgrind-cudbg) under
#                     valgrind
#   CUDBG_PASS=NAME   prefix every test name with NAME/ (asan, valgrind;
#                     valgrind is the default under CUDBG_VALGRIND=1), so
#                     the passes of `make test` keep apart
#   ONLY='NAME...'   run only these tests (names as in test-times, with no
#                     pass prefix: sh/faults, test_ctl, corpus/fuzz_decode)
#   EXCEPT='NAME...' run all but these (the asan pass of `make test` leaves
#                     the two replay sweeps to `make gauntlet`, tests/check.sh)
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
# Lean symbol copies (include/cudbg/leansym.h) go to the run's own
# directory, never the user's cache.
export CUDBG_SYMBOL_CACHE="${TMPDIR:-/tmp}/cudbg-symcache-$$"
# The real cuda-gdb recordings are in the repository (tests/shared/, a copy
# of the project's shared fixtures) so a fresh clone tests the same; their
# sources are the examples in data/.
if [ -z "${CUDBG_FIXTURES:-}" ]; then
	export CUDBG_FIXTURES="$ROOT/tests/shared/fixtures"
fi
export CUDBG_EXAMPLES="${CUDBG_EXAMPLES:-$ROOT/data/examples}"
# The tests' gdb reads no separate debug information (tests/bin/gdb says
# why); a test that runs without gdb still finds none.
if g=$(command -v gdb) && [ "$g" != "$ROOT/tests/bin/gdb" ]; then
	CUDBG_REAL_GDB=$g
	export CUDBG_REAL_GDB
	PATH="$ROOT/tests/bin:$PATH"
fi
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
trap 'rm -f "$log"; rm -rf "$CUDBG_SYMBOL_CACHE"; [ -z "$CUDBG_JSON_REPORTS" ] || rm -rf "$CUDBG_JSON_REPORTS"' EXIT

# Each test's wall and CPU time and start, one line "SECONDS NAME
# CPU-SECONDS START", goes to $BUILD/test-times (test-times-PASS for the other passes; the slowest
# are printed at the end, sort -rn the file to see them all), and each unit
# test case's to $BUILD/case-times[-PASS] (tests/harness.c).  The times of
# the last run order the next one.
TIMES="$ROOT/$BUILD/test-times${CUDBG_PASS:+-$CUDBG_PASS}"
CUDBG_CASE_TIMES="$ROOT/$BUILD/case-times${CUDBG_PASS:+-$CUDBG_PASS}"
export CUDBG_CASE_TIMES
q=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$q"; [ -z "$CUDBG_JSON_REPORTS" ] || rm -rf "$CUDBG_JSON_REPORTS"' EXIT
RUN_T0=$(date +%s%N)
mkdir -p "$ROOT/$BUILD"
[ -f "$TIMES" ] && cp "$TIMES" "$q/last-times"
: >"$TIMES" && : >"$CUDBG_CASE_TIMES"

# run_one NAME TIMEOUT CMD...: runs CMD under the timeout; its result
# lines (or one made from its exit status) on stdout, NAME prefixed with
# the pass.
run_one() {
	name=$1; secs=$2; shift 2
	out=$q/out.${name_id:-last}
	t0=$(date +%s%N)
	times >"$out.cpu0" # the builtin: the CPU time of the children reaped
	timeout -k 5 "$secs" "$@" >"$out" 2>&1
	rc=$?
	times >"$out.cpu1"
	t1=$(date +%s%N)
	# "SECONDS NAME CPU-SECONDS START" (CPU: the test's processes that it
	# waited for, a daemon it left not counted; START: seconds into the run)
	cat "$out.cpu0" "$out.cpu1" | awk -v ms=$(( (t1 - t0) / 1000000 )) \
		-v at=$(( (t0 - RUN_T0) / 1000000 )) -v name="$P$name" '
		function secs(f,   m) { m = f; sub(/m.*/, "", m); sub(/^[0-9]*m/, "", f); sub(/s$/, "", f); return m * 60 + f }
		NR == 2 { c0 = secs($1) + secs($2) }
		NR == 4 { c1 = secs($1) + secs($2) }
		END { printf "%.1f %s %.1f %.1f\n", ms / 1000, name, c1 - c0, at / 1000 }' >>"$TIMES"
	rm -f "$out.cpu0" "$out.cpu1"
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

VG=
if [ "${CUDBG_VALGRIND:-0}" = 1 ]; then
	VG="valgrind -q --error-exitcode=99 --leak-check=full
	    --errors-for-leak-kinds=definite --trace-children=no"
	vglogs=$(mktemp -d)
	real=$CUDBG_BIN
	CUDBG_VALGRIND_EXE=$(command -v valgrind)
	export CUDBG_VALGRIND_EXE
fi

# run_test KIND PATH: one test of the list below.
run_test() {
	case $1 in
	unit)
		secs=900
		[ -n "$VG" ] && secs=1800
		# shellcheck disable=SC2086
		run_one "${2##*/}" $secs $VG "$2" ;;
	corpus)
		n=${2##*/}
		# shellcheck disable=SC2086
		run_one "corpus/$n" 300 $VG "$2" "tests/fuzz/corpus/${n#fuzz_}" ;;
	sh)
		n=${2##*/}
		if [ -z "$VG" ]; then
			run_one "sh/${n%.sh}" 600 sh "$2"
		else
			CUDBG_BIN="$ROOT/tests/valgrind-cudbg" CUDBG_REAL_BIN="$real" \
			CUDBG_VALGRIND_LOGS="$vglogs" CUDBG_UNDER_VALGRIND=1 \
				run_one "sh/${n%.sh}" 1800 sh "$2"
		fi ;;
	esac
}

# once S: true for a shell test marked to run in the plain pass only (a
# check of the tree, the same in every pass).
once() { grep -q '^# tests/run.sh: once' "$1"; }

# The tests, one line each: "KIND PATH NAME" (NAME as in test-times).
for t in "$BUILD"/tests/test_*; do
	[ -x "$t" ] && echo "unit $t ${t##*/}"
done >"$q/tests"
for f in "$BUILD"/fuzz-replay/fuzz_*; do
	[ -x "$f" ] && echo "corpus $f corpus/${f##*/}"
done >>"$q/tests"
for s in tests/sh/*.sh; do
	[ -f "$s" ] || continue
	# tmux_smoke finds the program by its process name, which valgrind
	# changes: it runs only in the normal suite.
	[ -n "$VG" ] && case $s in */tmux_smoke.sh) continue ;; esac
	[ -n "$P" ] && once "$s" && continue
	n=${s##*/}
	echo "sh $s sh/${n%.sh}"
done >>"$q/tests"

if [ -n "${ONLY:-}" ]; then
	awk -v want=" $ONLY " 'index(want, " " $3 " ")' "$q/tests" >"$q/wanted"
	mv "$q/wanted" "$q/tests"
fi
if [ -n "${EXCEPT:-}" ]; then
	awk -v but=" $EXCEPT " '!index(but, " " $3 " ")' "$q/tests" >"$q/wanted"
	mv "$q/wanted" "$q/tests"
fi

# The order: longest first, by the last run's times (test-times), else by
# these rough ones (plain pass, 2 cores; sh tests 5 s, unit tests 1 s when
# not named), so the slow tests start early and the short ones fill in.
ROUGH='sh/faults 50
sh/report_schema 30
sh/screens 28
sh/gpu_recordings 20
sh/job 20
sh/remote_gdbserver 13
sh/python_live 12
sh/hang 12
sh/progress 10
sh/session_cli 7
test_session_gdb 7
test_parser 5
test_ctl 5'
{
	printf '%s\n' "$ROUGH" | sed "s#^#rough $P#"
	[ -f "$q/last-times" ] && sed 's/^\([^ ]*\) \(.*\)/last \2 \1/' "$q/last-times"
	sed 's/^/test /' "$q/tests"
} | awk -v p="$P" '
	$1 == "rough" { rough[$2] = $3; next }
	$1 == "last" { last[$2] = $3; next }
	{
		name = p $4
		if (name in last) t = last[name]
		else if (name in rough) t = rough[name]
		else t = $2 == "sh" ? 5 : 1
		printf "%s %s %s\n", t, $2, $3
	}' | sort -k1,1 -rn -s | cut -d' ' -f2- >"$q/order"

# JOBS tests at a time (default 2; 1 under valgrind): JOBS workers walk
# the same ordered list and each takes the next test no one has taken
# (taken: a file created with noclobber, which only one can create).  A
# test's lines are printed whole when it ends, one test at a time.
JOBS=${JOBS:-$([ -n "$VG" ] && echo 1 || echo 2)}
take() {
	set -C
	{ true >"$q/taken.$1"; } 2>/dev/null
	_r=$?
	set +C
	return $_r
}
# On a terminal, stderr also says how far the run is after each test
# ("[37/162] sh/faults"): some 3,000 PASS lines scroll by otherwise.  Not
# in the log, not on a file or pipe.
total=$(wc -l <"$q/order")
progress() { # name
	[ -t 2 ] || return 0
	: >"$q/done.$name_id"
	printf '%s[%d/%d] %s\n' "$P" "$(ls "$q" | grep -c '^done\.')" \
		"$total" "$1" >&2
}
worker() {
	i=0
	while read -r kind path; do
		i=$((i + 1))
		take "$i" || continue
		name_id=$i
		run_test "$kind" "$path" >"$q/block.$i"
		until take lock; do sleep 0.05; done
		cat "$q/block.$i"
		progress "${path##* }"
		rm -f "$q/taken.lock" "$q/block.$i"
	done <"$q/order"
}
w=0
while [ $w -lt "$JOBS" ]; do
	worker &
	w=$((w + 1))
done | tee -a "$log"
wait

if [ -n "$VG" ]; then
	for l in "$vglogs"/vg.*; do
		[ -s "$l" ] || continue
		echo "FAIL ${P}$(basename "$l"): valgrind found errors:"
		head -40 "$l" | sed 's/^/    /'
	done | tee -a "$log"
	n=$(ls "$vglogs" | wc -l)
	echo "valgrind: $n cudbg-tui processes checked"
	rm -rf "$vglogs"
fi

# (With ONLY, only when they kept a report: a test chosen may keep none.)
if [ -n "$CUDBG_JSON_REPORTS" ] && { [ -z "${ONLY:-}" ] ||
   ls "$CUDBG_JSON_REPORTS"/*.json >/dev/null 2>&1; }; then
	run_one schema/reports 300 python3 tests/schema_check.py \
		docs/report.schema.json "$CUDBG_JSON_REPORTS" | tee -a "$log"
fi

echo "slowest (seconds, CPU seconds; all in $TIMES):"
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
