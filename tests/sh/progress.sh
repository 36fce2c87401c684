#!/bin/sh
# Long waits show progress: batch mode writes what is running, its clock
# and the key that stops it on stderr when stderr is a terminal (and
# nothing when it is a file).  Real gdb on a program that sleeps.
SUITE=progress
EVIDENCE="out:20 err:20"
. "$(dirname "$0")/lib/harness.sh"
need_built "$PTY" "$BUILD/progs/sleeper"
if [ "$HAVE_GDB" != 1 ]; then
	echo "SKIP progress/batch-tty: gdb is not installed"
	exit 0
fi

c=batch-tty
"$PTY" -o "$tmp/$c.out" -s 120x40 -t 40 \
	-a "wait=running the program to its fault... 2s (Ctrl-C stops it)" \
	-a kill=INT -- "$BIN" --batch --debugger gdb "$BUILD/progs/sleeper" \
	>"$tmp/$c.res" 2>&1
if grep -q "status=exit" "$tmp/$c.res" && grep -qF "Ctrl-C stops it" "$tmp/$c.out"; then
	pass $c
else
	fail $c "no progress line on the terminal: $(cat "$tmp/$c.res")"
fi

c=batch-file
"$BIN" --batch --timeout 2 --debugger gdb "$BUILD/progs/sleeper" \
	>"$tmp/$c.out" 2>"$tmp/$c.err" </dev/null
# --timeout interrupts the run and reports where it was (a hang, exit 1)
rc=$?
if ! grep -q "running the program" "$tmp/$c.err" && [ $rc -eq 1 ] &&
   grep -q "Hang: the program was still running after 2 s" "$tmp/$c.out"; then
	pass $c
else
	fail $c "progress written to a file, or no timeout"
fi
# The memcheck pass in batch mode (--memcheck=always): its clock on the
# terminal as the debugger run's is (issue 13, item 4), then erased; the
# report still comes.  A stand-in sanitizer that takes 3 s.
c=batch-pass-tty
FAKE_SAN_SLEEP=3 FAKE_SAN_XML=$ROOT/tests/shared/fixtures/small_oob.sanitizer.xml \
FAKE_SAN_NOCORE=1 "$PTY" -o "$tmp/$c.out" -s 120x40 -t 60 \
	-a "wait=running the memcheck pass... 2s (Ctrl-C stops it)" \
	-- "$BIN" --batch --debugger gdb --memcheck=always --sanitizer "$FAKESAN" \
	"$BUILD/progs/steps" >"$tmp/$c.res" 2>&1
if grep -q "status=exit" "$tmp/$c.res" &&
   grep -qF "running the memcheck pass... 2s (Ctrl-C stops it)" "$tmp/$c.out" &&
   grep -q "Sanitizer findings" "$tmp/$c.out"; then
	pass $c
else
	fail $c "no clock of the memcheck pass on the terminal: $(cat "$tmp/$c.res")"
fi
# and nothing of it when stderr is a file
c=batch-pass-file
FAKE_SAN_SLEEP=2 FAKE_SAN_XML=$ROOT/tests/shared/fixtures/small_oob.sanitizer.xml \
FAKE_SAN_NOCORE=1 "$BIN" --batch --debugger gdb --memcheck=always \
	--sanitizer "$FAKESAN" "$BUILD/progs/steps" >"$tmp/$c.out" 2>"$tmp/$c.err" </dev/null
if ! grep -q "running the memcheck pass" "$tmp/$c.err" &&
   grep -q "Sanitizer findings" "$tmp/$c.out"; then
	pass $c
else
	fail $c "the pass's clock went to a file, or no report"
fi
[ $fails -eq 0 ]
