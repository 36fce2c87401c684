#!/bin/sh
# Hangs: --timeout interrupts a run still going and reports where it is.
# Real gdb on a CPU program that spins (tests/progs/spin.c) for the
# interrupt and the timing; replays of the hand-made kernel transcripts
# (tests/fixtures/hand/, see make_hang.py) for the per-line summary and
# the hints.  A replay has no clock: the recorded interrupt is the timeout.
set -u
BIN=${CUDBG_BIN:?}
ROOT=${CUDBG_ROOT:-.}
SPIN=${CUDBG_BUILD:?}/progs/spin
HAND=$ROOT/tests/fixtures/hand
SRC=$ROOT/tests/gpu/hang
out=$(mktemp); trap 'rm -f "$out"' EXIT
pass() { echo "PASS hang/$1"; }
fail() { echo "FAIL hang/$1: $2"; sed 's/^/    /' "$out" | head -30; }
has() { # name pattern
	if grep -Eq -- "$2" "$out"; then pass "$1"; else
		fail "$1" "no '$2'"; fi
}
hasnt() { # name pattern
	if grep -Eq -- "$2" "$out"; then fail "$1" "'$2' should not be there"
	else pass "$1"; fi
}
first_is() { # name line
	if [ "$(head -n 1 "$out")" = "$2" ]; then pass "$1"; else
		fail "$1" "first line is not '$2'"; fi
}
rc_is() { # name want got
	if [ "$3" = "$2" ]; then pass "$1"; else
		fail "$1" "exit status $3, want $2"; fi
}
. "$ROOT/tests/sh/lib/reports.sh" # keep_report
json() { # name python-expression over d (a --json report, kept)
	keep_report "$out"
	if python3 -c "import json,sys; d=json.load(open('$out')); sys.exit(0 if ($2) else 1)" 2>/dev/null
	then pass "$1"; else fail "$1" "JSON check failed: $2"; fi
}

if command -v gdb >/dev/null; then
	t0=$(date +%s)
	timeout 60 "$BIN" --batch --memcheck=never --timeout 2 --debugger gdb \
		"$SPIN" >"$out" 2>&1
	rc=$?
	t1=$(date +%s)
	rc_is gdb-exit-status 1 "$rc"
	first_is gdb-headline "Hang: the program was still running after 2 s"
	has gdb-where 'stopped at .*spin\.c:14 in main \(spin-wait\)'
	has gdb-kind 'diagnosis: FAULT \(hang\)'
	has gdb-hint '\(hang-spin\)'
	hasnt gdb-no-timeout-error 'timed out waiting'
	if [ $((t1 - t0)) -lt 20 ]; then pass gdb-prompt; else
		fail gdb-prompt "took $((t1 - t0)) s for a 2 s timeout"; fi
	timeout 60 "$BIN" --batch --json --memcheck=never --timeout 2 \
		--debugger gdb "$SPIN" >"$out" 2>/dev/null
	json gdb-json "d['hang'].startswith('Hang: ') and d['fault'] and \
d['diagnosis']['kind'] == 'hang' and d['diagnosis']['hang']['host']['line'] == 14 \
and d['diagnosis']['hang']['spin'] and 'hang' in d['diagnosis']['facts'] \
and d['diagnosis']['hints'][0]['id'] == 'hang-spin'"
	# A wait on the host before any CUDA library was loaded: no block
	# to look at, no GPU word (the hang-running-host hint)
	timeout 60 "$BIN" --batch --memcheck=never --timeout 2 --debugger gdb \
		/bin/sleep 30 >"$out" 2>&1
	has gdb-host-hang '^\[1\] The program was still running on the host when it was interrupted  \(hang-running-host\)$'
	hasnt gdb-host-hang-no-blocks 'see where every block is'
	# a Python program's: the script's line it waits in
	PY_=$(command -v python3)
	if [ -n "$PY_" ]; then
		PY_=$("$PY_" -c 'import sys; print(sys.executable)')
		pyh_=$(mktemp --suffix=.py)
		py_hang() { # SCRIPT: run under gdb until --timeout, into $out
			printf '%b' "$1" >"$pyh_"
			timeout 60 "$BIN" --batch --memcheck=never --timeout 2 \
				--debugger gdb "$PY_" "$pyh_" >"$out" 2>&1
		}
		py_hang 'import time\ndef wait():\n    while True:\n        time.sleep(0.1)\nwait()\n'
		has gdb-host-hang-python '^      - In your Python line .*\.py:4: time\.sleep\(0\.1\)$'
		# the place is the script's line, not the libc frame the
		# interrupt landed in (which has line info, but no source here)
		has gdb-host-hang-python-where '^  stopped at .*\.py:4 in wait \(your line; the thread was in .*\)$'
		has gdb-host-hang-python-hint '^ .*\(/[^ ]*\.py:4\), before any CUDA library'
		hasnt gdb-host-hang-python-not-libc '^  stopped at .*(sysdeps|\.S:|clock_nanosleep\.c)'
		# a busy loop: the interrupt lands in the interpreter's own
		# frames (no line information), and the thread's place is
		# the innermost of them, not the outermost frame that has
		# line information (libc's start of main)
		py_hang 'def spin():\n    x = 0\n    while x >= 0:\n        x += 1\nspin()\n'
		has gdb-host-spin-python '^  stopped at .*\.py:[34] in spin \(your line; the thread was in '
		hasnt gdb-host-spin-python-inner 'the thread was in (__libc_start|main\))'
		# JSON names the same place: the script's line, not the
		# outermost frame with line information
		timeout 60 "$BIN" --batch --json --memcheck=never --timeout 2 \
			--debugger gdb "$PY_" "$pyh_" >"$out" 2>/dev/null
		json gdb-host-spin-python-json "d['diagnosis']['hang']['host']['file'] == '$pyh_' \
and d['diagnosis']['hang']['host']['line'] in (3, 4) \
and d['diagnosis']['hang']['host']['function'] == 'spin' \
and d['diagnosis']['hang']['host']['inner'] not in (None, 'main', '__libc_start_call_main')"
		rm -f "$pyh_"
	fi
	# SIGTERM while the program runs (a job's time limit, timeout(1)):
	# interrupted and reported as at --timeout, the signal named; the
	# recording keeps it, so its replay says the same.
	sig_run() { # JSON-FLAG: the spin program, SIGTERM once it runs, into $out
		timeout 60 "$BIN" --batch $1 --memcheck=never --debugger gdb \
			--record "$out.mi.log" "$SPIN" >"$out" 2>"$out.err" &
		sp_=$!
		i_=0 # (its own name: not gdb's, not cudbg-tui's)
		while ! pgrep -x "$(basename "$SPIN")" >/dev/null && [ $i_ -lt 300 ]; do
			sleep 0.1; i_=$((i_ + 1))
		done
		sleep 1
		pkill -TERM -P $sp_ 2>/dev/null # timeout(1)'s child: cudbg-tui
		wait $sp_
	}
	sig_run ""
	rc_is gdb-sigterm-exit-status 1 "$?"
	has gdb-sigterm-headline '^Interrupted by SIGTERM after [0-9]+ s: the program was still running$'
	has gdb-sigterm-where 'stopped at .*spin\.c:14 in main \(spin-wait\)'
	hasnt gdb-sigterm-no-error 'interrupted by signal'
	timeout 60 "$BIN" --batch --replay "$out.mi.log" >"$out" 2>&1
	has gdb-sigterm-replay '^Interrupted by SIGTERM after [0-9]+ s \(recorded\): the program was still running$'
	rm -f "$out.mi.log" # (--record never overwrites)
	sig_run --json
	json gdb-sigterm-json "d['diagnosis']['hang']['interrupted_by'] == 'SIGTERM' and \
d['diagnosis']['hang']['headline'].startswith('Interrupted by SIGTERM after ') and \
d['diagnosis']['kind'] == 'hang'"
	rm -f "$out.mi.log" "$out.err"
	# A program that ends within --timeout is no hang.
	timeout 60 "$BIN" --batch --memcheck=never --timeout 20 --debugger gdb \
		"${CUDBG_BUILD}/progs/steps" >"$out" 2>&1
	hasnt gdb-ended-is-no-hang '^Hang'
else
	echo "SKIP hang/gdb: gdb not installed"
fi

# Replays: block 3 of 8 spins.
timeout 60 "$BIN" --batch -d "$SRC" --replay "$HAND/hang_spin.mi.log" >"$out" 2>&1
rc_is spin-exit-status 1 $?
first_is spin-headline "Hang: kernel wait_flag still running after 5 s (recorded)"
has spin-block 'block \(3,0,0\): 64 threads at hang_spin\.cu:11 \(spin-wait\)'
has spin-finished '7 of 8 blocks finished or not started'
has spin-hint '\(hang-spin\)'
hasnt spin-no-barrier '\(hang-barrier\)|\(hang-deadlock\)'
hasnt spin-no-exception 'exception +Interrupt'
timeout 60 "$BIN" --batch --json -d "$SRC" --replay "$HAND/hang_spin.mi.log" \
	>"$out" 2>/dev/null
json spin-json "d['diagnosis']['hang']['places'][0]['threads'] == 64 and \
d['diagnosis']['hang']['places'][0]['block_from'] == [3,0,0] and \
d['diagnosis']['hang']['blocks_total'] == 8 and d['diagnosis']['hang']['recorded'] \
and d['diagnosis']['exit_status'] == 1"

# Warp 0 at __syncthreads(), warp 1 spinning: a barrier in divergent code.
timeout 60 "$BIN" --batch -d "$SRC" --replay "$HAND/hang_barrier.mi.log" >"$out" 2>&1
has barrier-line 'block \(0,0,0\): 32 threads at hang_barrier\.cu:13 \(barrier\)'
has barrier-divergent 'block \(0,0,0\): only 32 of 64 threads at the barrier'
has barrier-hint '^\[1\] .*\(hang-barrier\)'
has barrier-source 'The barrier line: __syncthreads\(\);'

# Two blocks waiting on each other.
timeout 60 "$BIN" --batch -d "$SRC" --replay "$HAND/hang_deadlock.mi.log" >"$out" 2>&1
has deadlock-blocks 'blocks \(0\.\.1,0,0\) \[2 blocks\]: 64 threads at hang_deadlock\.cu:12'
has deadlock-hint '^\[1\] .*\(hang-deadlock\)'

# A recording that stopped by itself is no hang.
timeout 60 "$BIN" --batch --replay "$ROOT/tests/shared/fixtures/assert_label.mi.log" \
	>"$out" 2>&1
hasnt replay-fault-is-no-hang '^Hang|hang-'
