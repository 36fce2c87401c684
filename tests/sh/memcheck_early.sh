#!/bin/sh
# The memcheck pass and the sanitizer's coredump (diag/memcheck.c,
# stop_in_core): a precise finding's coredump that takes too long
# (int_overflow's 2 GB: 17 s on the H200) is stopped, its findings read
# from the text (the XML is written only when the sanitizer exits), and
# the live run follows; an imprecise first finding's coredump (a device
# assert: cuda-gdb finds no CUDA focus in it) is waited for, not opened,
# and batch mode reports the findings without a live run.  Real gdb,
# build/progs/steps as the program.
set -u
BIN=${CUDBG_BIN:?}
ROOT=${CUDBG_ROOT:?}
PROG=${CUDBG_BUILD:?}/progs/steps
FAKESAN=$ROOT/tests/data/fake-compute-sanitizer
command -v gdb >/dev/null || { echo "SKIP memcheck-early: gdb not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0
ok() { echo "PASS memcheck-early/$1"; }
bad() {
	echo "FAIL memcheck-early/$1: $2"; fails=$((fails + 1))
	for f in "$tmp/$1.out" "$tmp/$1.err"; do
		[ -s "$f" ] && sed 's/^/    /' "$f" | head -40
	done
	return 0
}

# The H200's text of assert_2d's pass (tests/fixtures/gpu/
# assert_2d.memcheck.mi.log): the program's assertion line, then the
# finding.
ASSERT_TEXT='assert_2d.cu:19: void class_weights(const unsigned char *, const float *, int, int, int, float *): block: [32,18,0], thread: [5,12,0] Assertion `cls < nclasses` failed.
========= Warp assert
=========     at __assertfail+0x19a0
=========     by thread (5,12,0) in block (32,18,0)
=========         Device Frame: __assertfail+0x1930
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: class_weights(unsigned char const*, float const*, int, int, int, float*) in assert_2d.cu:14 [0x915d] in assert_2d
=========         Host Frame: main in assert_2d.cu:36 [0x8df9] in assert_2d
=========
'
# int_overflow's (run 17), whose coredump took 17 s.
OVERFLOW_TEXT='========= Invalid __global__ write of size 1 bytes
=========     at stamp_records(unsigned char *, int, unsigned char)+0x390 in int_overflow.cu:20
=========     by thread (0,0,0) in block (2048,0,0)
=========     Access to 0x7fac54000000 is out of bounds
=========     and is 2,147,483,648 bytes before the nearest allocation at 0x7facd4000000 of size 2,147,487,744 bytes
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main in int_overflow.cu:28 [0x8d55] in int_overflow
=========
'

# run CASE TEXT SLEEP [options]: batch --memcheck=always with the fake
# sanitizer (its coredump takes SLEEP s), recorded to CASE.mi.log.
run() {
	c=$1 text=$2 sleep=$3; shift 3
	FAKE_SAN_XML=$ROOT/tests/fixtures/gpu/${XML:-assert_2d}.sanitizer.xml \
	FAKE_SAN_TEXT=$text FAKE_SAN_CORE_SLEEP=$sleep \
	FAKE_SAN_NOCORE=${NOCORE:-} FAKE_SAN_EXIT=${SANEXIT:-} \
		timeout -k 2 30 "$BIN" --batch --memcheck=always --debugger gdb \
		--force --record "$tmp/$c.mi.log" --sanitizer "$FAKESAN" "$@" \
		"$PROG" >"$tmp/$c.out" 2>"$tmp/$c.err" </dev/null
	echo $? >"$tmp/$c.rc"
}

# An imprecise first finding whose text names its line and its kernel
# (the assertion's function, confirmed by the wrapper's host frame of the
# same name): the sanitizer is stopped as its coredump begins (a coredump
# of 60 s here: waited for, the run's 30 s timeout would end it), the
# findings come from the text, and there is no live run (the recording
# sends no -exec-run).
run assert "$ASSERT_TEXT" 60
o=$tmp/assert.out
if [ "$(cat "$tmp/assert.rc")" = 1 ] &&
   grep -q 'memcheck   ran in .*; stopped as its coredump began: its first error was' "$o" &&
   grep -q 'stopped as its coredump began: its first error was imprecise (a coredump of it holds no CUDA focus) and its text names the line and the kernel; no live run$' "$tmp/assert.mi.log" &&
   grep -q '^state: *report' "$o" &&
   grep -q '^  kernel     class_weights$' "$o" &&
   grep -q 'Imprecise: Warp assert; thread (5,12,0) block (32,18,0)' "$o" &&
   grep -q 'assert_2d.cu:19 class_weights: `cls < nclasses`' "$o" &&
   grep -q '^\[1\] .*(label-range-assert)$' "$o" &&
   ! grep -q '(unknown)' "$o" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/assert.mi.log"; then
	ok imprecise-stopped-as-its-coredump-began
else
	bad assert "exit $(cat "$tmp/assert.rc"); recording: $(grep -c '> [0-9]*-exec-run' "$tmp/assert.mi.log") -exec-run"
fi

# Its replay (no XML was written) reads the same text: the same report.
timeout 30 "$BIN" --batch --replay "$tmp/assert.mi.log" \
	>"$tmp/assert-replay.out" 2>&1
if [ "$(sed -n '/^  kernel/p; /^Sanitizer findings/,$p' "$o")" = \
     "$(sed -n '/^  kernel/p; /^Sanitizer findings/,$p' "$tmp/assert-replay.out")" ] &&
   grep -q '^state: *report' "$tmp/assert-replay.out"; then
	ok imprecise-replays-the-same
else
	bad assert-replay "the replay differs"
	diff "$o" "$tmp/assert-replay.out" | head -30 | sed 's/^/    /'
fi

# The same in JSON: memcheck.stopped says it.
run assert-json "$ASSERT_TEXT" 60 --json
if grep -q '"stopped":"stopped as its coredump began: its first error was imprecise' "$tmp/assert-json.out" &&
   grep -q '"kernel":{"name":"class_weights"' "$tmp/assert-json.out"; then
	ok imprecise-json
else
	bad assert-json "no memcheck.stopped"
fi

# A trap (trap's text, run 20): the kernel is the device frame under
# __trap, and the text says so; a device lambda's assert (lambda_assert's
# text): the kernel is the launch wrapper's template, "transform".
TRAP_TEXT='========= Trace/breakpoint trap
=========     at __trap+0x10
=========     by thread (136,0,0) in block (19,0,0)
=========         Device Frame: check_weights(const float *, int, float *)+0x440 in trap.cu:16
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main in trap.cu:30 [0x8da8] in trap
=========
'
LAMBDA_TEXT='lambda_assert.cu:24: lambda [](float)->auto::operator()(float)->auto: block: [11,0,0], thread: [184,0,0] Assertion `v > 0.0f` failed.
========= Warp assert
=========     at __assertfail+0x19a0
=========     by thread (184,0,0) in block (11,0,0)
=========         Device Frame: __assertfail+0x1930
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: void transform<__nv_dl_wrapper_t<__nv_dl_tag<cudaError (*)(float*, int), &(log_in_place(float*, int)), 1u>> >(float*, int, __nv_dl_wrapper_t<__nv_dl_tag<cudaError (*)(float*, int), &(log_in_place(float*, int)), 1u>>) in lambda_assert.cu:16 [0x91c3] in lambda_assert
=========         Host Frame: log_in_place(float*, int) in lambda_assert.cu:27 [0x8d27] in lambda_assert
=========         Host Frame: main in lambda_assert.cu:39 [0x8df7] in lambda_assert
=========
'
run trap "$TRAP_TEXT" 60
run lambda "$LAMBDA_TEXT" 60
if grep -q '^  kernel     check_weights$' "$tmp/trap.out" &&
   grep -q '^  location   trap.cu:16' "$tmp/trap.out" &&
   grep -q 'stopped as its coredump began' "$tmp/trap.out" &&
   grep -q '^  kernel     transform$' "$tmp/lambda.out" &&
   grep -q 'stopped as its coredump began' "$tmp/lambda.out" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/trap.mi.log" "$tmp/lambda.mi.log"; then
	ok trap-and-lambda-kernels-from-the-text
else
	bad trap "trap exit $(cat "$tmp/trap.rc"), lambda exit $(cat "$tmp/lambda.rc")"
	sed 's/^/    /' "$tmp/lambda.out" | head -20
fi

# A release build's assert (release_device_assert's text, run 20): no
# host frame of the wrapper confirms that the assertion's function is
# the kernel (it may be a device function the kernel called), and steps
# holds no launch stub of it (diag/kmangle.c), so the pass waits for the
# XML, whose launch stub names it; with --keep-temp the files are what
# the user asked for, and the pass waits too.
RELEASE_TEXT='device_assert.cu:15: void histogram(const int *, int, int *, int, int): block: [2,0,0], thread: [188,0,0] Assertion `bin >= 0 && bin < nbins` failed.
========= Warp assert
=========     at __assertfail+0x19a0
=========     by thread (188,0,0) in block (2,0,0)
=========         Device Frame: __assertfail+0x1930
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main [0x8c44] in release_device_assert
=========
'
XML=release_device_assert run release "$RELEASE_TEXT" 1
XML=
mkdir "$tmp/kept"
TMPDIR=$tmp/kept; export TMPDIR
run keep "$ASSERT_TEXT" 1 --keep-temp
unset TMPDIR
if grep -q 'its first error was imprecise: its coredump holds no CUDA focus and was not opened; no live run$' "$tmp/release.mi.log" &&
   grep -q 'its first error was imprecise: its coredump holds no CUDA focus and was not opened; no live run$' "$tmp/keep.mi.log" &&
   grep -q '^  kernel     histogram$' "$tmp/release.out" &&
   ! grep -q 'stopped as its coredump began' "$tmp/release.out" "$tmp/keep.out"; then
	ok imprecise-waits-where-the-text-is-not-enough
else
	bad release "release exit $(cat "$tmp/release.rc"), keep exit $(cat "$tmp/keep.rc")"
	grep 'memcheck pass ended' "$tmp/release.mi.log" "$tmp/keep.mi.log" | sed 's/^/    /'
fi

# The same text with a program whose binary holds nvcc's launch stub of
# the assertion's signature (diag/kmangle.c; release_stub stands in for
# the release build): the stub confirms the kernel, so the text is
# enough and the pass stops as the coredump begins.
steps=$PROG
PROG=$CUDBG_BUILD/progs/release_stub
run release-stub "$RELEASE_TEXT" 60
PROG=$steps
o=$tmp/release-stub.out
if grep -q 'stopped as its coredump began: its first error was imprecise (a coredump of it holds no CUDA focus) and its text names the line and the kernel; no live run$' "$tmp/release-stub.mi.log" &&
   grep -q '^  kernel     histogram$' "$o" &&
   grep -q 'device_assert.cu:15 histogram: `bin >= 0 && bin < nbins`' "$o" &&
   grep -q '^\[1\] .*(device-assert)$' "$o" &&
   [ "$(cat "$tmp/release-stub.rc")" = 1 ] &&
   ! grep -q '(unknown)' "$o" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/release-stub.mi.log"; then
	ok release-assert-kernel-from-the-launch-stub
else
	bad release-stub "exit $(cat "$tmp/release-stub.rc")"
fi

# A pass that found failing CUDA calls only (api_error's, run 20: the
# call, its error and the user's line are in the findings) or nothing at
# all with a clean exit, or with a Python traceback: the findings are
# the report, and no live run repeats the program (cuda-gdb would not
# stop at a failing call or a Python exception).  Any other failing exit
# with no finding still runs live: the debugger may stop where it fails.
API_TEXT='========= Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API call to cudaLaunchKernel.
=========     Saved host backtrace up to driver entry point at error
=========         Host Frame: fill(float*, float) in api_error.cu:13 [0x8fd4] in api_error
=========         Host Frame: main in api_error.cu:20 [0x8d17] in api_error
=========
========= Target application returned an error
'
XML=api_error NOCORE=1 SANEXIT=1 run api "$API_TEXT" ""
XML=race_shared NOCORE=1 SANEXIT=0 run clean "" ""
XML=race_shared NOCORE=1 SANEXIT=3 run cleanfail "" ""
PYTB='Traceback (most recent call last):
  File "/src/gpu/torch_dtype.py", line 12, in <module>
RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::Half
========= Target application returned an error
'
XML=race_shared NOCORE=1 SANEXIT=1 run pyfail "$PYTB" ""
if [ "$(cat "$tmp/api.rc")" = 1 ] &&
   grep -q '# memcheck pass ended after [0-9.]* s; no live run$' "$tmp/api.mi.log" &&
   grep -q '^\[1\] .*(san-api-error)$' "$tmp/api.out" &&
   grep -q 'api_error.cu:20' "$tmp/api.out" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/api.mi.log" &&
   [ "$(cat "$tmp/clean.rc")" = 0 ] &&
   grep -q '# memcheck pass ended after [0-9.]* s; no live run$' "$tmp/clean.mi.log" &&
   grep -q '^\[1\] .*(san-clean)$' "$tmp/clean.out" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/clean.mi.log" &&
   grep -q '# memcheck pass ended after [0-9.]* s; no live run$' "$tmp/pyfail.mi.log" &&
   grep -q '^\[1\] .*(dtype-mismatch)$' "$tmp/pyfail.out" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/pyfail.mi.log" &&
   grep -q '# memcheck pass ended after [0-9.]* s$' "$tmp/cleanfail.mi.log" &&
   grep -q '> [0-9]*-exec-run' "$tmp/cleanfail.mi.log"; then
	ok no-device-error-no-live-run
else
	bad api "exits $(cat "$tmp/api.rc") $(cat "$tmp/clean.rc") $(cat "$tmp/cleanfail.rc")"
	grep -h 'memcheck pass ended\|exec-run' "$tmp/api.mi.log" "$tmp/clean.mi.log" "$tmp/cleanfail.mi.log" | sed 's/^/    /'
	sed 's/^/    /' "$tmp/clean.out" | head -20
fi

# Its replay ends where the pass did (it waited for a live run that the
# recording does not hold, until killed: run 21's api_error).
timeout 20 "$BIN" --batch --replay "$tmp/api.mi.log" >"$tmp/api-replay.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q '^state: *report' "$tmp/api-replay.out" &&
   grep -q '(san-api-error)' "$tmp/api-replay.out"; then
	ok no-device-error-replays
else
	bad api-replay "exit $rc"
	sed 's/^/    /' "$tmp/api-replay.out" | head -10
fi

# The Python traceback's pass (pyfail above) was the whole run and its
# program failed: the report is the failing exit, with the exception and
# the traceback's line (python-host-error), not "no fault found" and
# exit 0 (torch_dtype's pass, run 24).  The recording notes the status,
# and its replay reports the same.
timeout 20 "$BIN" --batch --replay "$tmp/pyfail.mi.log" >"$tmp/pyfail-replay.out" 2>&1
echo $? >"$tmp/pyfail-replay.rc"
pyfail_ok=1
for c in pyfail pyfail-replay; do
	o=$tmp/$c.out
	[ "$(cat "$tmp/$c.rc")" = 1 ] &&
	grep -q '^cudbg-tui diagnosis: FAULT (exit)$' "$o" &&
	grep -q '^  exit       status 1$' "$o" &&
	grep -q '^  raised     RuntimeError: expected mat1 and mat2 to have the same dtype, but got:' "$o" &&
	grep -q '^\[2\] .*(python-host-error)$' "$o" &&
	! grep -q '(san-clean)\|no fault found' "$o" || pyfail_ok=0
done
if [ $pyfail_ok = 1 ] &&
   grep -q '# memcheck pass: the program exited with status 1$' "$tmp/pyfail.mi.log"; then
	ok python-exception-pass-reports-the-failing-exit
else
	bad pyfail "exits $(cat "$tmp/pyfail.rc") $(cat "$tmp/pyfail-replay.rc")"
	sed 's/^/    /' "$tmp/pyfail-replay.out" | head -20
fi

# A precise finding whose coredump takes longer than CUDBG_PASS_CORE_WAIT
# (a 4 KiB allocation here: the allocation alone would be quick): stopped
# after the wait, its finding (and the allocation sentence) from the
# text, and the live run follows (steps runs to its end under gdb).
SMALL_TEXT="$(printf '%s\n' "$OVERFLOW_TEXT" | sed 's/2,147,483,648 bytes before/4,096 bytes before/; s/of size 2,147,487,744 bytes/of size 4,096 bytes/')
"
CUDBG_PASS_CORE_WAIT=0.5 run overflow "$SMALL_TEXT" 60
o=$tmp/overflow.out
if grep -q 'stopped in its coredump after [0-9.]* s' "$o" &&
   grep -q 'Precise: Invalid __global__ write of size 1 bytes is out of bounds; thread (0,0,0) block (2048,0,0)' "$o" &&
   grep -q '4096 bytes before an allocation of 4096 bytes' "$o" &&
   grep -q '> [0-9]*-exec-run' "$tmp/overflow.mi.log" &&
   ! grep -q '> [0-9]*-interpreter-exec console "target cudacore' "$tmp/overflow.mi.log"; then
	ok slow-core-stopped-then-live
else
	bad overflow "exit $(cat "$tmp/overflow.rc")"
fi

# Its replay has no XML to read (there was none): the findings come from
# the recorded text, as in the run.
timeout 30 "$BIN" --batch --replay "$tmp/overflow.mi.log" >"$tmp/overflow-replay.out" 2>&1
if [ "$(sed -n '/^Sanitizer findings/,/^Hints/p' "$o")" = \
     "$(sed -n '/^Sanitizer findings/,/^Hints/p' "$tmp/overflow-replay.out")" ] &&
   grep -q 'stopped in its coredump after' "$tmp/overflow-replay.out"; then
	ok slow-core-replays-the-same
else
	bad overflow-replay "the replay differs"
	diff "$o" "$tmp/overflow-replay.out" | head -30 | sed 's/^/    /'
fi

# int_overflow's 2 GiB allocation would take seconds to dump whatever the
# wait (about 8 s a GiB, run 16): the pass stops as the coredump begins,
# with the default wait.  Its address is 2^32 bytes below a byte inside
# that allocation: a wrapped 32-bit index (diag_san_index_wrap), which
# the text alone shows, so there is no live run (release_int_overflow's
# did not even fault) and the top hint is the wrap's, with the value.
run big "$OVERFLOW_TEXT" 60
o=$tmp/big.out
if grep -q 'stopped as its coredump began (the bad access.s allocation alone is 2.0 GiB, seconds to dump); its address shows a wrapped 32-bit index; no live run$' "$tmp/big.mi.log" &&
   grep -q '2147483648 bytes before an allocation of 2147487744 bytes' "$o" &&
   grep -q '^\[1\] A 32-bit index wrapped past 2147483647: integer overflow  (index-overflow-wrap)$' "$o" &&
   tr '\n' ' ' <"$o" | tr -s ' ' | grep -q 'at element 2147483648: an index that should have been 2147483648 was computed in 32 bits and wrapped to -2147483648\.' &&
   grep -q '^state: *report' "$o" &&
   grep -q '^  kernel     stamp_records$' "$o" &&
   [ "$(cat "$tmp/big.rc")" = 1 ] &&
   ! grep -q '(unknown)' "$o" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/big.mi.log"; then
	ok big-allocation-wrap-is-the-whole-run
else
	bad big "exit $(cat "$tmp/big.rc")"
fi
timeout 30 "$BIN" --batch --replay "$tmp/big.mi.log" >"$tmp/big-replay.out" 2>&1
if [ "$(sed -n '/^  kernel/p; /^Sanitizer findings/,$p' "$o")" = \
     "$(sed -n '/^  kernel/p; /^Sanitizer findings/,$p' "$tmp/big-replay.out")" ] &&
   grep -q '^state: *report' "$tmp/big-replay.out"; then
	ok big-allocation-wrap-replays-the-same
else
	bad big-replay "the replay differs"
	diff "$o" "$tmp/big-replay.out" | head -30 | sed 's/^/    /'
fi
# 1 GiB before the same allocation is no wrap (2^32 bytes on lies past
# its end): the pass stops as the coredump begins and the live run
# follows for the frame's values.
FAR_TEXT="$(printf '%s\n' "$OVERFLOW_TEXT" | sed 's/2,147,483,648 bytes before/1,073,741,824 bytes before/; s/Access to 0x7fac54000000/Access to 0x7fac94000000/')
"
run far "$FAR_TEXT" 60
if grep -q 'stopped as its coredump began (the bad access.s allocation alone is 2.0 GiB, seconds to dump); the live run took its place' "$tmp/far.mi.log" &&
   grep -q '1073741824 bytes before an allocation of 2147487744 bytes' "$tmp/far.out" &&
   ! grep -q 'index-overflow-wrap' "$tmp/far.out" &&
   grep -q '> [0-9]*-exec-run' "$tmp/far.mi.log"; then
	ok big-allocation-no-wrap-runs-live
else
	bad far "exit $(cat "$tmp/far.rc")"
fi
# ... and waits as asked when told never to stop (below), or when the
# wait is long enough for it: 20 s at 256 MiB/s dumps 5 GiB.
CUDBG_PASS_CORE_WAIT=20 run bigwait "$OVERFLOW_TEXT" 1
if grep -q 'memcheck pass ended after [0-9.]* s; it wrote a coredump$' "$tmp/bigwait.mi.log"; then
	ok big-allocation-within-a-long-wait-is-kept
else
	bad bigwait "exit $(cat "$tmp/bigwait.rc")"
fi

# An imprecise first error whose text names no source line (trap's text,
# run 20, without its Device Frame line: the frame that gives trap.cu:16):
# its coredump is not opened, and the live run follows for the line.
NOLINE_TEXT='========= Trace/breakpoint trap
=========     at __trap+0x10
=========     by thread (136,0,0) in block (19,0,0)
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: main in trap.cu:30 [0x8da8] in trap
=========
'
run noline "$NOLINE_TEXT" 1
o=$tmp/noline.out
if grep -q 'not opened; it named no source line, so the live run took its place' "$tmp/noline.mi.log" &&
   grep -q '^  memcheck   ran in' "$o" &&
   grep -q '> [0-9]*-exec-run' "$tmp/noline.mi.log" &&
   ! grep -q '> [0-9]*-interpreter-exec console "target cudacore' "$tmp/noline.mi.log" &&
   ! grep -q 'no live run' "$tmp/noline.mi.log" &&
   ! grep -q '^state: *report' "$o"; then
	ok imprecise-without-a-line-runs-live
else
	bad noline "exit $(cat "$tmp/noline.rc")"
fi

# A precise first error with no source line (shared_oob's text, run 20:
# an atomic on __shared__ names only __iAtomicAdd, and its coredump
# unwinds to "??"): the coredump is not opened, the live run gives the
# line, and the finding still names the thread.
NOLINE_PRECISE='========= Invalid __shared__ atomic of size 4 bytes
=========     at __iAtomicAdd+0x90
=========     by thread (9,0,0) in block (3,0,0)
=========     Access to 0x4400 is out of bounds
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: block_histogram(int const*, int, int*) in shared_oob.cu:13 [0x90c6] in shared_oob
=========         Host Frame: main in shared_oob.cu:33 [0x8ded] in shared_oob
=========
'
run preciseline "$NOLINE_PRECISE" 0
if grep -q 'its first error named no source line: its coredump (which has none either) was not opened; the live run took its place' "$tmp/preciseline.mi.log" &&
   grep -q '> [0-9]*-exec-run' "$tmp/preciseline.mi.log" &&
   ! grep -q '> [0-9]*-interpreter-exec console "target cudacore' "$tmp/preciseline.mi.log"; then
	ok precise-without-a-line-runs-live
else
	bad preciseline "exit $(cat "$tmp/preciseline.rc")"
fi

# A finding with its line (int_overflow's) keeps its coredump for the
# debugger (gdb here opens none: the pass note says nothing against it).
run precisecore "$SMALL_TEXT" 0
if grep -q 'memcheck pass ended after [0-9.]* s; it wrote a coredump$' "$tmp/precisecore.mi.log"; then
	ok precise-with-a-line-keeps-its-coredump
else
	bad precisecore "exit $(cat "$tmp/precisecore.rc")"
fi

# A Python program's imprecise first error: its text names the Python
# files by base name only, so the pass waits for the XML (full paths; the
# coredump takes 1 s here), then neither opens the coredump nor runs the
# program: the user's line comes from the XML.
PY_TEXT='/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.
========= Warp assert
=========     at __assertfail+0x19a0
=========     by thread (3,0,0) in block (0,0,0)
=========         Device Frame: __assertfail+0x1930
=========     Saved host backtrace up to driver entry point at kernel launch time
=========         Host Frame: cross_entropy in functional.py:3504
=========         Host Frame: train_step in torch_label.py:12
=========
'
FAKE_SAN_XML=$ROOT/tests/fixtures/gpu/torch_label.sanitizer.xml \
FAKE_SAN_TEXT=$PY_TEXT FAKE_SAN_CORE_SLEEP=1 \
	timeout -k 2 30 "$BIN" --batch --memcheck=always --debugger gdb \
	--force --record "$tmp/py.mi.log" --sanitizer "$FAKESAN" \
	"$PROG" >"$tmp/py.out" 2>"$tmp/py.err" </dev/null
o=$tmp/py.out
if grep -q 'its first error was imprecise: its coredump holds no' "$o" &&
   grep -q '^  python     .*torch_label.py:12 in train_step' "$o" &&
   grep -q '^state: *report' "$o" &&
   ! grep -q '> [0-9]*-exec-run' "$tmp/py.mi.log" &&
   grep -q 'no live run' "$tmp/py.mi.log"; then
	ok python-imprecise-waits-for-the-xml
else
	bad py "see the report"
fi

# CUDBG_PASS_CORE_WAIT=never waits for the coredump (a short one here).
FAKE_SAN_XML=$ROOT/tests/fixtures/gpu/int_overflow.sanitizer.xml \
FAKE_SAN_TEXT=$OVERFLOW_TEXT FAKE_SAN_CORE_SLEEP=1 CUDBG_PASS_CORE_WAIT=never \
	timeout -k 2 30 "$BIN" --batch --memcheck=always --debugger gdb \
	--sanitizer "$FAKESAN" "$PROG" >"$tmp/never.out" 2>"$tmp/never.err" </dev/null
if grep -q 'memcheck   ran in' "$tmp/never.out" &&
   ! grep -q 'stopped' "$tmp/never.out"; then
	ok wait-never-keeps-the-coredump
else
	bad never "the pass was stopped"
fi
# A value that is not a number of seconds is refused at start, in one
# line naming it, before anything runs.
CUDBG_PASS_CORE_WAIT=5s timeout -k 2 30 "$BIN" --batch --memcheck=always \
	--debugger gdb --sanitizer "$FAKESAN" "$PROG" >"$tmp/badwait.out" \
	2>"$tmp/badwait.err" </dev/null
rc=$?
if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/badwait.err")" = 1 ] &&
   grep -q "CUDBG_PASS_CORE_WAIT='5s' is not a number of seconds" "$tmp/badwait.err" &&
   [ ! -s "$tmp/badwait.out" ]; then
	ok bad-wait-is-refused
else
	bad badwait "exit $rc, not one clear line"
fi
exit 0
