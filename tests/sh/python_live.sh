#!/bin/sh
# The live Python stack (include/cudbg/pystack.h): at a stop of a Python
# program cudbg-tui calls into the interpreter for the stack, the script
# line and the bad value.
#  1. replay: tests/fixtures/py_crash_calls.mi.log, a real gdb recording of
#     tests/progs/py_crash.py to its SIGSEGV, completed by hand with the
#     answers a gdb that can call functions gives (see its last line).
#  2. live, real gdb and the system python3: the crash and a breakpoint.
#     GNU gdb 13 cannot call functions in a program on a CPU with AMX
#     (its XSAVE buffer is smaller than the kernel's; fixed in gdb 14):
#     there the test checks that the report says why it has no stack and
#     skips the rest with that reason.  On the GPU machine
#     tests/gpu/python-live.sh runs the same under cuda-gdb.
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
SUITE=pystack
. "$CUDBG_ROOT/tests/sh/lib/checks.sh"

timeout 60 "$BIN" --batch -d tests/progs --replay tests/fixtures/py_crash_calls.mi.log >"$out" 2>&1
check replay-line '^  python     /src/tests/progs/py_crash.py:41 in train_step: return fakeloss.nll_loss\(logits, labels\)$'
check replay-run-from '^  run from   /src/tests/progs/py_crash.py:60 in <module>: main\(\)$'
check replay-value '^  value      labels\[5\] = 4, the model has 4 classes'
check replay-folded '^  \.\.\. 1 library frame$'
check replay-hint-value '^      - The bad label: labels\[5\] = 4, the model has 4 classes'
# The live stack gave the line: no CUDA_LAUNCH_BLOCKING=1 rerun advice.
if grep -q 'CUDA_LAUNCH_BLOCKING=1 python3' "$out"; then
	echo "FAIL pystack/replay-no-rerun: advises a CUDA_LAUNCH_BLOCKING=1 rerun although the live stack named the line"
else echo "PASS pystack/replay-no-rerun"; fi
timeout 60 "$BIN" --json --replay tests/fixtures/py_crash_calls.mi.log >"$out" 2>&1
check replay-json-value '"bad_value": ?"labels\[5\] = 4, the model has 4 classes'
check replay-json-stack '"python_stack": ?\[\{"file": ?"/src/tests/progs/pylib/site-packages/fakeloss.py", ?"line": ?32, ?"function": ?"nll_loss", ?"library": ?true\}'

# A call into the interpreter that does not return (the PyRun_SimpleString
# answer of the recording made 10 s late, replayed in real time): the run
# gives up after its bound (5 s, then 3 s after the interrupt) and says so.
timeout 60 "$BIN" --batch --replay-realtime --replay tests/fixtures/py_crash_hang.mi.log >"$out" 2>&1
check hang-bounded '^  python     no live stack: the call into the interpreter did not return within 5000 ms'

# The same program under cuda-gdb on the GPU machine (calls into the
# interpreter work there), recorded by tests/gpu/python-live.sh.
rec=tests/fixtures/py_crash.cuda-gdb.mi.log
if [ -f "$rec" ]; then
	timeout 60 "$BIN" --batch -d tests/progs --replay "$rec" >"$out" 2>&1
	check cuda-gdb-line '^  python     .*tests/progs/py_crash.py:41 in train_step'
	check cuda-gdb-value '^  value      labels\[5\] = 4, the model has 4 classes'
else
	echo "SKIP pystack/cuda-gdb: $rec not recorded yet (tests/gpu/python-live.sh on the GPU machine records it)"
fi
rec=tests/fixtures/py_break.cuda-gdb.mi.log
if [ -f "$rec" ]; then
	timeout 60 "$BIN" --batch -d tests/progs --replay "$rec" >"$out" 2>&1
	check cuda-gdb-break '^  python     .*tests/progs/py_crash.py:47 in pause_here'
else
	echo "SKIP pystack/cuda-gdb-break: $rec not recorded yet (tests/gpu/python-live.sh on the GPU machine records it)"
fi

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 2>/dev/null || true)
if ! command -v gdb >/dev/null; then
	echo "SKIP pystack/live: gdb not installed"; exit 0
fi
if [ -z "$PY" ] || ! "$PY" -c 0 2>/dev/null; then
	echo "SKIP pystack/live: python3 not installed"; exit 0
fi
# pyenv and similar put a shell script first in PATH; gdb needs the
# interpreter binary.
PY=$("$PY" -c 'import sys; print(sys.executable)')
timeout 90 "$BIN" --batch --debugger gdb "$PY" tests/progs/py_crash.py >"$out" 2>&1
# gdb 13 cannot call functions in a program on a CPU with AMX: the
# stack then comes from memory, and the value's place says why.
if tr '\n' ' ' <"$out" | grep -q "could not call into the program (Couldn't write  *extended"; then
	check live-line '^  python     .*tests/progs/py_crash.py:41 in train_step'
	check live-stack-memory '^Python stack \(innermost first, read from memory\):$'
	check live-says-why '^  value      not read: the debugger could not call into the program'
	echo "SKIP pystack/live-calls: this gdb cannot call functions in a program on this CPU (gdb 13 and AMX: Couldn't write extended state status); tests/gpu/python-live.sh runs them under cuda-gdb"
	exit 0
fi
check live-line '^  python     .*tests/progs/py_crash.py:41 in train_step'
# Fewer calls into the program (each costs cuda-gdb ~35 ms): whether the
# interpreter runs is read from _PyRuntime's flag, not asked with
# Py_IsInitialized(); the script is written into the buffer and run from
# there (a literal costs gdb a call to malloc); and batch, whose session
# ends after the report, leaves the buffer to the program's end (no
# PyMem_RawFree);
# the recording replays to the same line.  With each pyenv python of
# 3.10 to 3.13 too, where there is one (their layouts differ).
rec_=$(mktemp -u)
for py_ in "$PY" /root/.pyenv/versions/3.1[0-3].*/bin/python3; do
	[ -x "$py_" ] || continue
	v_=$("$py_" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
	[ "$py_" = "$PY" ] && v_=system
	rm -f "$rec_"
	timeout 90 "$BIN" --batch --debugger gdb --record "$rec_" "$py_" \
		tests/progs/py_crash.py >"$out" 2>&1 </dev/null
	if ! grep -q '^  python     .*tests/progs/py_crash.py:41 in train_step' "$out"; then
		echo "FAIL pystack/fewer-calls-$v_: no script line: $(grep -m1 '^  python' "$out")"
	elif grep -q 'Py_IsInitialized()\|PyMem_RawFree' "$rec_"; then
		echo "FAIL pystack/fewer-calls-$v_: $(grep -o 'Py_IsInitialized()\|PyMem_RawFree' "$rec_" | head -2 | tr '\n' ' ')called"
	elif ! grep -q '"(long)&_PyRuntime"' "$rec_"; then
		echo "FAIL pystack/fewer-calls-$v_: _PyRuntime not read"
	elif ! grep -q 'PyRun_SimpleString((const char \*)[0-9]*)"$' "$rec_"; then
		echo "FAIL pystack/fewer-calls-$v_: the script passed as a literal (gdb calls malloc for it)"
	else
		timeout 60 "$BIN" --batch --replay "$rec_" >"$out" 2>&1 </dev/null
		if grep -q '^  python     .*tests/progs/py_crash.py:41 in train_step' "$out"; then
			echo "PASS pystack/fewer-calls-$v_"
		else
			echo "FAIL pystack/fewer-calls-$v_: the replay has no script line"
		fi
	fi
done
rm -f "$rec_"
timeout 90 "$BIN" --batch --debugger gdb "$PY" tests/progs/py_crash.py >"$out" 2>&1
check live-run-from '^  run from   .*tests/progs/py_crash.py:60 in <module>'
check live-value '^  value      labels\[5\] = 4, the model has 4 classes'
check live-stack '^Python stack \(innermost first\):$'
# The program's terminal got nothing from the script.
check live-terminal-clean '^fault:     yes$'
if grep -q "_cudbg_tui_pystack\|Traceback" "$out"; then
	echo "FAIL pystack/live-quiet: the script wrote to the program's terminal"; else
	echo "PASS pystack/live-quiet"; fi
PY_CRASH_MODE=break timeout 90 "$BIN" --batch --debugger gdb --break labs "$PY" tests/progs/py_crash.py >"$out" 2>&1
check live-break-stop 'Breakpoint 1'
check live-break-line '^  python     .*tests/progs/py_crash.py:47 in pause_here'
