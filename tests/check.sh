#!/bin/sh
# `make test`: every pass of the suite in one go, then ONE closing line
# "N passed, N failed, N skipped" over all of them; exits non-zero when
# anything failed.  The passes, in order:
#   plain     make check-build, then tests/run.sh on $BUILD (= make quick)
#   asan      make asan-build, then tests/run.sh on
#             build-asan/, ASan+UBSan                       (= make asan)
#   valgrind  tests/run.sh with CUDBG_VALGRIND=1 on $BUILD  (= make valgrind)
#   fuzz      each tests/fuzz target under libFuzzer for
#             FUZZ_TIME seconds (clang)                     (= make fuzz)
#   asan-sweep  tests/sh/report_schema.sh's sweep of every recording
#             and tests/sh/gpu_recordings.sh with its --json replays, on
#             build-asan/ (the asan pass leaves both to it)
# Test names carry the pass as a prefix (asan/..., valgrind/..., fuzz/...,
# asan-sweep/...; the plain pass has none).  A pass whose tool is missing (valgrind, or a
# compiler that cannot build with -fsanitize=fuzzer) is one SKIP line
# saying why; a pass that does not build is one FAIL line.
# Called by the Makefile, which sets:
#   BUILD MAKE CC FUZZ_CC FUZZ_TIME FUZZ_BIN, and PASSES (default: all five)
#   PARALLEL=1   run the passes side by side, each into its own log, and
#                print each log whole when all have ended (`make test` runs
#                plain and asan so: on 2 cores the two together take little
#                more than the slower one)
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
CC=${CC:-cc}
FUZZ_CC=${FUZZ_CC:-clang}
FUZZ_TIME=${FUZZ_TIME:-30}
PASSES=${PASSES:-plain asan valgrind fuzz asan-sweep}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 2
if [ -z "${FUZZ_BIN:-}" ]; then
	FUZZ_BIN=$(for f in tests/fuzz/fuzz_*.c; do
		b=${f##*/}; echo "build-fuzz/${b%.c}"; done)
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CUDBG_TEST_RESULTS=$tmp/results
: >"$CUDBG_TEST_RESULTS"
export CUDBG_TEST_RESULTS

# result LINE: one line of this script's own (a build, a skipped pass).
result() { echo "$1" | tee -a "$CUDBG_TEST_RESULTS"; }

# probe NAME CC FLAGS...: can CC build and link a program with FLAGS?
probe() {
	name=$1; cc=$2; shift 2
	printf '%s\n' \
		'#include <stddef.h>' \
		'#include <stdint.h>' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
		'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)' \
		'{ return d && n > 1000000; }' \
		'#ifndef FUZZ' 'int main(void) { return 0; }' '#endif' \
		>"$tmp/probe.c"
	# shellcheck disable=SC2086
	$cc "$@" -o "$tmp/probe-$name" "$tmp/probe.c" >"$tmp/probe-$name.log" 2>&1
}

# build NAME TARGET: make TARGET quietly; on failure one FAIL line and
# the end of the build log.
build() {
	if "$MAKE" --no-print-directory "$2" >"$tmp/build-$1.log" 2>&1; then
		return 0
	fi
	result "FAIL $1/build: 'make $2' failed (end of its output below)"
	tail -20 "$tmp/build-$1.log" | sed 's/^/    /'
	return 1
}

# why NAME CC: the first line of a failed probe that says why.
why() {
	# the compiler may be several words ("ccache clang"): its first one
	# shellcheck disable=SC2086
	set -- "$1" $2
	if ! command -v "$2" >/dev/null 2>&1; then
		echo "$2 not found in PATH"
	else
		w=$(grep -m1 -E 'error|not found|No such' "$tmp/probe-$1.log" ||
			head -1 "$tmp/probe-$1.log")
		echo "${w:-$2 failed without a message}"
	fi
}

start_all=$(date +%s)
PARALLEL=${PARALLEL:-0}

# run_pass NAME: one pass of the suite; its result lines go to
# $CUDBG_TEST_RESULTS, its timing line to $tmp/time-NAME.
run_pass() {
	pass=$1
	echo "== pass $pass"
	t0=$(date +%s)
	tb=$t0
	case $pass in
	plain)
		# `make test` leaves this build to the pass, so that it runs
		# beside the ASan one (a no-op after `make check-build`)
		if build plain check-build; then
			tb=$(date +%s)
			BUILD=$BUILD ./tests/run.sh
		fi
		;;
	asan)
		if ! probe asan "$CC" -fsanitize=address,undefined; then
			result "SKIP asan: $CC cannot build with -fsanitize=address,undefined ($(why asan "$CC"))"
		elif build asan asan-build; then
			tb=$(date +%s)
			# all but the two replay sweeps, report_schema's of
			# every recording and gpu_recordings' of the GPU ones:
			# they guard no behaviour the plain pass does not (the
			# same rules on the same replays), cost a quarter of
			# this pass (a replay under ASan is 8x a plain one), and
			# the asan-sweep pass of `make gauntlet`, which CI runs
			# after this, replays every one of them under ASan
			BUILD=build-asan CUDBG_PASS=asan \
				EXCEPT='sh/report_schema sh/gpu_recordings' \
				./tests/run.sh
		fi
		;;
	asan-sweep)
		if ! probe asan "$CC" -fsanitize=address,undefined; then
			result "SKIP asan-sweep: $CC cannot build with -fsanitize=address,undefined ($(why asan "$CC"))"
		elif build asan-sweep asan-build; then
			tb=$(date +%s)
			BUILD=build-asan CUDBG_PASS=asan-sweep \
				ONLY='sh/report_schema sh/gpu_recordings' \
				./tests/run.sh
		fi
		;;
	valgrind)
		if ! command -v valgrind >/dev/null 2>&1; then
			result "SKIP valgrind: valgrind is not installed (apt-get install valgrind)"
		else
			BUILD=$BUILD CUDBG_VALGRIND=1 ./tests/run.sh
		fi
		;;
	fuzz)
		if ! probe fuzz "$FUZZ_CC" -DFUZZ -fsanitize=fuzzer,address,undefined; then
			result "SKIP fuzz: FUZZ_CC='$FUZZ_CC' cannot build with -fsanitize=fuzzer ($(why fuzz "$FUZZ_CC")); install clang and libclang-rt-dev, or set FUZZ_CC"
		elif build fuzz fuzz-build; then
			tb=$(date +%s)
			# shellcheck disable=SC2086
			./tests/fuzz/run.sh "$FUZZ_TIME" $FUZZ_BIN
		fi
		;;
	*)
		result "FAIL $pass: no such pass (PASSES takes plain asan valgrind fuzz asan-sweep)"
		;;
	esac
	t1=$(date +%s)
	line="$pass: $(tally_pass "$pass"); $((t1 - t0)) s"
	[ "$tb" != "$t0" ] && line="$line (build $((tb - t0)) s, run $((t1 - tb)) s)"
	echo "== $line"
	echo "$line" >"$tmp/time-$pass"
}

# tally_pass NAME: the counts of one pass's result lines, told apart by
# their prefix (the plain pass has none), so passes may run side by side.
tally_pass() {
	case $1 in
	plain) grep -vE '^(PASS|FAIL|SKIP) (asan|valgrind|fuzz|asan-sweep)[/:]' "$CUDBG_TEST_RESULTS" >"$tmp/pass-$1" ;;
	*) grep -E "^(PASS|FAIL|SKIP) $1[/:]" "$CUDBG_TEST_RESULTS" >"$tmp/pass-$1" ;;
	esac
	echo "$(grep -c '^PASS ' "$tmp/pass-$1") PASS, $(grep -c '^FAIL ' "$tmp/pass-$1") FAIL, $(grep -c '^SKIP ' "$tmp/pass-$1") SKIP"
}

if [ "$PARALLEL" = 1 ]; then
	for pass in $PASSES; do
		run_pass "$pass" >"$tmp/out-$pass" 2>&1 &
	done
	wait
	for pass in $PASSES; do cat "$tmp/out-$pass"; done
else
	for pass in $PASSES; do run_pass "$pass"; done
fi
times=$(for pass in $PASSES; do cat "$tmp/time-$pass" 2>/dev/null; done)
times="$times
"
echo "== all passes, $(($(date +%s) - start_all)) s:"
printf '%s' "$times" | sed 's/^/   /'
p=$(grep -c '^PASS ' "$CUDBG_TEST_RESULTS")
f=$(grep -c '^FAIL ' "$CUDBG_TEST_RESULTS")
s=$(grep -c '^SKIP ' "$CUDBG_TEST_RESULTS")
if [ "$f" -gt 0 ]; then
	echo "failed:"
	grep '^FAIL ' "$CUDBG_TEST_RESULTS" | sed 's/^/   /'
fi
echo "$p passed, $f failed, $s skipped"
# a run where nothing reported at all is a failure too
[ "$f" -eq 0 ] && [ $((p + s)) -gt 0 ]
