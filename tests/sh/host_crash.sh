#!/bin/sh
# A CPU crash that arrives in a library (real gdb on
# tests/progs/host_crash.c and host_throw.cpp): the controller selects
# the program's own frame (model_user_frame: its source is here to read;
# libc's "./nptl/pthread_kill.c" is not), so the report's location is the
# user's line and its values are that frame's, never the library's; how
# the crash came about is read from the host stack: assert(), abort()
# called by the program, a C++ exception nobody caught, a null pointer
# handed to memcpy.  The screen shows the same frame; a recording replays
# to the same report.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
command -v gdb >/dev/null 2>&1 || { echo "SKIP host_crash/all: gdb not installed"; exit 0; }
cd "$ROOT" || exit 2
out=$(mktemp); tmp=$(mktemp -d)
trap 'rm -f "$out"; rm -rf "$tmp"' EXIT
SUITE=host_crash
. "$ROOT/tests/sh/lib/checks.sh"
line_of() { grep -n "$1" "$2" | head -1 | cut -d: -f1; }
C=tests/progs/host_crash.c
CXX=tests/progs/host_throw.cpp

run() { timeout 60 "$BIN" --batch --debugger gdb "$@" >"$out" 2>&1 </dev/null; }

run "$BUILD/progs/host_crash" assert
check assert-where "^  location +tests/progs/host_crash\\.c:$(line_of MARK_ASSERT $C) \\(from the frame\\)$"
check assert-value '^  n = 21$'
check assert-hint '^\[1\] A host assert\(\) failed in check_rows  \(host-assert\)$'
check assert-stop '^stop: +SIGABRT \(Aborted\) in check_rows$'
# the frame that called it, the program's own: the line to read next
check assert-caller "^  caller +main at tests/progs/host_crash\\.c:$(line_of 'return check_rows(' $C): return check_rows\\(argc \\+ 19\\);$"
check assert-caller-evidence "^      - \\.\\.\\. called from main at tests/progs/host_crash\\.c:$(line_of 'return check_rows(' $C): return check_rows"
# frame 0's values (pthread_kill's) are not the user's
check_not assert-no-libc-values '^  (signo|tid|threadid) = '
check_not assert-no-libc-where '^  location +\./nptl/'

run "$BUILD/progs/host_crash" abort
check abort-where "^  location +tests/progs/host_crash\\.c:$(line_of MARK_ABORT $C) "
check abort-value '^  err = 700$'
check abort-hint '^\[1\] The program called abort\(\) in give_up  \(host-abort\)$'

run "$BUILD/progs/host_crash" memcpy
check memcpy-where "^  location +tests/progs/host_crash\\.c:$(line_of MARK_MEMCPY $C) "
check memcpy-null '^      - src is 0x0 there: a null pointer$'
# (the crash's address, 0, was made inside memcpy, whose frame has no
# source here: the user's line is not asked about it)
check memcpy-hint '^\[1\] The program crashed on a null pointer \(address 0x0\)  \(host-null-address\)$'
check memcpy-access '^  access +address 0x0$'

# The crash's address (si_addr) is one of the line's own dereferences:
# which one, and the pointer it went through
run "$BUILD/progs/host_crash" nullnext
check nullnext-where "^  location +tests/progs/host_crash\\.c:$(line_of MARK_NULLNEXT $C) "
check nullnext-access '^  access +n->next->val at 0x0: n->next is NULL$'
check nullnext-hint '^\[1\] A null pointer was dereferenced: n->next is NULL  \(host-null-pointer\)$'
check_not nullnext-not-generic '^\[[0-9]\] .*\(host-signal\)$'
timeout 60 "$BIN" --batch --json --debugger gdb "$BUILD/progs/host_crash" nullnext \
	>"$tmp/nn.json" 2>/dev/null </dev/null
if python3 -c "
import json, sys
a = json.load(open('$tmp/nn.json'))['diagnosis']['location']['access']
assert a['expression'] == 'n->next->val' and a['pointer'] == 'n->next', a
assert a['address'] == '0x0' and a['pointer_value'] == '0x0' and a['null'], a
assert a['index'] is None and a['index_value'] is None, a
" 2>"$tmp/nn.err"; then echo "PASS $SUITE/nullnext-json"; else echo "FAIL $SUITE/nullnext-json: $(tail -1 "$tmp/nn.err")"; fi
run "$BUILD/progs/host_crash" pastend
check pastend-where "^  location +tests/progs/host_crash\\.c:$(line_of MARK_PASTEND $C) "
check pastend-access '^  access +data\[i \* step\] at 0x[0-9a-f]+ \(data = 0x[0-9a-f]+, i \* step = [0-9]+\)$'
check pastend-hint '^\[1\] data\[i \* step\] is outside the program.s memory  \(host-bad-pointer\)$'
check pastend-offset '^      - i \* step = [0-9]+ there: the access is [0-9]+ bytes past data$'
# a SIGBUS: the address is mapped, past the file's end; the access line
# says which, and no "outside the program's memory" is claimed
run "$BUILD/progs/host_crash" sigbus
check sigbus-access '^  access +map\[4096\] at 0x[0-9a-f]+ \(map = 0x[0-9a-f]+\)$'
check sigbus-hint '^\[1\] The host process crashed \(Bus error\)  \(host-signal\)$'
check_not sigbus-not-unmapped 'host-bad-pointer|host-null'
# a recording replays to the same access
timeout 60 "$BIN" --batch --debugger gdb --record "$tmp/nn.mi.log" \
	"$BUILD/progs/host_crash" nullnext >/dev/null 2>&1 </dev/null
timeout 60 "$BIN" --batch --replay "$tmp/nn.mi.log" -d "$ROOT" >"$out" 2>&1 </dev/null
check nullnext-replay '^  access +n->next->val at 0x0: n->next is NULL$'
# the same two crashes recorded under cuda-gdb 13 (GPU run 34, H100):
# its answers to the signal's address and the line's dereferences
G34=$ROOT/tests/fixtures/gpu/run34
timeout 60 "$BIN" --batch --replay "$G34/host_nullnext.mi.log" -d "$ROOT" >"$out" 2>&1 </dev/null
check cuda-gdb-nullnext '^  access +n->next->val at 0x0: n->next is NULL$'
check cuda-gdb-nullnext-hint '\(host-null-pointer\)$'
timeout 60 "$BIN" --batch --replay "$G34/host_pastend.mi.log" -d "$ROOT" >"$out" 2>&1 </dev/null
check cuda-gdb-pastend '^  access +data\[i \* step\] at 0x[0-9a-f]+ \(data = 0x[0-9a-f]+, i \* step = 34000\)$'
check cuda-gdb-pastend-hint '^\[1\] data\[i \* step\] is outside the program.s memory  \(host-bad-pointer\)$'

run "$BUILD/progs/host_crash" smash
check smash-where "^  location +tests/progs/host_crash\\.c:$(line_of MARK_SMASH $C) "
check smash-hint '^\[1\] A local array of fill_header was written past its end \(stack smashing\)  \(host-stack-smash\)$'

run "$BUILD/progs/host_crash" twice
check twice-where "^  location +tests/progs/host_crash\\.c:$(line_of MARK_TWICE $C) "
check twice-hint '^\[1\] The allocator found the heap corrupt in release \(a double free or an overrun\)  \(host-heap-corrupt\)$'
check twice-caller "^  caller +main at tests/progs/host_crash\\.c:$(line_of 'release(malloc(32))' $C): release\\(malloc\\(32\\)\\);$"

# a runaway recursion: the stack ran out; its function, its depth, and
# the line where it began (across the frames gdb does not list)
run "$BUILD/progs/host_crash" recurse
check recurse-hint '^\[1\] The host stack overflowed: walk called itself [0-9]{4,} frames deep  \(host-stack-overflow\)$'
check recurse-caller "^  caller +main at tests/progs/host_crash\\.c:$(line_of MARK_RECURSE $C): return walk\\(0, buf\\);"
check recurse-began "^      - The recursion began at main at tests/progs/host_crash\\.c:$(line_of MARK_RECURSE $C): "
# glibc's abort is under free, not the program's own call
check_not twice-not-abort '\(host-abort\)'

F=tests/progs/host_fortify.c
run "$BUILD/progs/host_fortify"
# (strcpy's inline wrapper in a system header is not the user's frame)
check fortify-where "^  location +tests/progs/host_fortify\\.c:$(line_of MARK_FORTIFY $F) "
check fortify-hint '^\[1\] A copy longer than its destination in set_name \(_FORTIFY_SOURCE\)  \(host-fortify\)$'

run "$BUILD/progs/host_throw"
check throw-where "^  location +tests/progs/host_throw\\.cpp:$(line_of MARK_THROW $CXX) "
check throw-value '^  i = 7$'
check throw-hint '^\[1\] A C\+\+ exception nobody caught ended the program in pick  \(host-uncaught-exception\)$'

# A Python program that crashes in libc through ctypes: no C frame is
# the user's (the interpreter's and libc's sources are not theirs), so
# the location is the Python line, never libc's "../sysdeps/..." nor the
# interpreter's own C file
printf 'import ctypes\ndef read_header():\n    return ctypes.string_at(0)  # MARK_PY\nread_header()\n' >"$tmp/py_null.py"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
run "$PY" "$tmp/py_null.py"
check python-line '^  python +.*py_null\.py:3 in read_header'
# (address 0: a null pointer, in the C library the line called)
check python-null '^\[1\] The program crashed on a null pointer \(address 0x0\)  \(host-null-address\)$'
check python-null-line '^      - In your Python line .*py_null\.py:3: return ctypes\.string_at\(0\)'
check python-access '^  access +address 0x0$'
check_not python-no-c-location '^  location '

# A Python exception raised in a worker process (multiprocessing's Pool,
# concurrent.futures): the worker's line and exception, not the line
# that re-raised it, with the program's own line that asked for it
cat >"$tmp/pool.py" <<'PYEOF'
import multiprocessing as mp
def square_label(row):
    return row["label"] ** 2  # MARK_WORKER
if __name__ == "__main__":
    with mp.get_context("fork").Pool(1) as p:
        print(p.map(square_label, [{"x": 1}]))  # MARK_MAP
PYEOF
run "$PY" "$tmp/pool.py"
check pool-worker-line '^  python +.*pool\.py:3 in square_label'
check pool-asked-from '^  run from +.*pool\.py:6 in <module>'
check pool-raised "^  raised +KeyError: 'label'$"
cat >"$tmp/fut.py" <<'PYEOF'
from concurrent.futures import ProcessPoolExecutor
def parse(s):
    return int(s)
if __name__ == "__main__":
    with ProcessPoolExecutor(1) as ex:
        print(list(ex.map(parse, ["12", "x3"])))
PYEOF
run "$PY" "$tmp/fut.py"
check futures-worker-line '^  python +.*fut\.py:3 in parse'
check futures-raised "^  raised +ValueError: invalid literal for int"

# A test that failed under a real pytest (python3-pytest), which colours
# its output for the debugger's terminal: read from pytest's own failure
# format, colours stripped; the first failing test stands
if "$PY" -c 'import pytest' 2>/dev/null; then
	cat >"$tmp/test_labels.py" <<'PYEOF'
def square_label(row):
    return row["label"] ** 2  # MARK_PYTEST


def test_parse_labels():
    assert square_label({"x": 1}) == 1


def test_square():
    assert 3 * 3 == 10
PYEOF
	(cd "$tmp" && timeout 60 "$BIN" --batch --debugger gdb "$PY" -m pytest -q \
		-p no:cacheprovider test_labels.py >"$out" 2>&1 </dev/null)
	check pytest-line '^  python +test_labels\.py:2 in square_label'
	check pytest-run-from '^  run from +test_labels\.py:6 in test_parse_labels'
	check pytest-raised "^  raised +KeyError: 'label'$"
	check pytest-hint '\(python-host-error\)$'
	check_not pytest-no-colours '\\x1b\['
else
	echo "SKIP host_crash/pytest: no pytest for $PY (apt-get install python3-pytest)"
fi

# Python ran none of the script: a module -m cannot find (pytest missing
# from the interpreter that ran), a path it cannot open.  A host failure
# before any GPU work, said in the interpreter's one line: never "failed
# without a device error" with a memcheck pass to run.  A script that
# does not compile prints no "Traceback" head: its error's line is the
# report's, raised SyntaxError; the same for a module it imports.
run "$PY" -m cudbg_no_such_module_x
check not-started-line "^  not run +No module named cudbg_no_such_module_x$"
check not-started-hint '^\[1\] Python could not start the script: No module named cudbg_no_such_module_x  \(python-not-started\)$'
check_not not-started-no-memcheck '\[memcheck\]|exit-failed|san-clean'
run "$PY" "$tmp/no_such_script.py"
# (the line wraps at the report's width: its head only)
check not-opened-line "^  not run +can't open file '[^']*no_such_script\.py': \[Errno 2\]"
printf 'import os\n\ndef f(:\n    pass\n' >"$tmp/syn.py"
run "$PY" "$tmp/syn.py"
check syntax-line '^  python +.*syn\.py:3 in <module>: def f\(:$'
check syntax-raised '^  raised +SyntaxError: '
check syntax-hint '\(python-host-error\)$'
printf 'import syn\n' >"$tmp/imports_syn.py"
run "$PY" "$tmp/imports_syn.py"
check syntax-import-line '^  python +.*syn\.py:3 in <module>: def f\(:$'
check syntax-import-from '^  run from +.*imports_syn\.py:1 in <module>: import syn$'
timeout 60 "$BIN" --batch --json --debugger gdb "$PY" -m cudbg_no_such_module_x \
	>"$tmp/j" 2>/dev/null </dev/null
if python3 - "$tmp/j" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
assert d["python_start_error"] == "No module named cudbg_no_such_module_x", d["python_start_error"]
assert "python-not-started" in d["facts"], d["facts"]
PY
then echo "PASS host_crash/not-started-json"; else echo "FAIL host_crash/not-started-json"; fi

# A Python recursion's frames at one line: three shown, then their count
# (as CPython's own "[Previous line repeated N more times]")
cat >"$tmp/deep.py" <<'PYEOF'
import os, signal
def f(n):
    if n == 0:
        os.kill(os.getpid(), signal.SIGSEGV)
    return f(n - 1)
f(20)
PYEOF
run "$PY" "$tmp/deep.py"
check pyrec-first '^  .*deep\.py:4 in f$'
check pyrec-three "^  .*deep\\.py:5 in f$" # (grep -c below)
if [ "$(grep -c '^  .*deep\.py:5 in f$' "$out")" -eq 3 ]; then
	echo "PASS host_crash/pyrec-three-shown"
else
	echo "FAIL host_crash/pyrec-three-shown: $(grep -c '^  .*deep\.py:5 in f$' "$out") lines of deep.py:5"
fi
check pyrec-folded '^  \.\.\. the line above 17 more times$'
check pyrec-outer '^  .*deep\.py:6 in <module>$'

# JSON: the facts and the location
timeout 60 "$BIN" --batch --json --debugger gdb "$BUILD/progs/host_crash" assert \
	>"$tmp/j" 2>/dev/null </dev/null
if python3 - "$tmp/j" "$(line_of MARK_ASSERT $C)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
assert "host-assert" in d["facts"] and "host-abort" not in d["facts"], d["facts"]
assert d["location"]["line"] == int(sys.argv[2]), d["location"]
c = d["location"]["called_from"]
assert c["function"] == "main" and c["text"].startswith("return check_rows("), c
PY
then echo "PASS host_crash/json"; else echo "FAIL host_crash/json: facts or location"; fi

# the recording replays to the same report (the frame selection is the
# controller's, so the replay asks what the live run asked)
timeout 60 "$BIN" --batch --debugger gdb --record "$tmp/r.mi.log" \
	"$BUILD/progs/host_crash" assert >"$tmp/live.txt" 2>&1 </dev/null
timeout 60 "$BIN" --batch --replay "$tmp/r.mi.log" >"$tmp/replay.txt" 2>&1 </dev/null
grep -v '^ *mode \|^mode:\|^program:' "$tmp/live.txt" >"$tmp/live.r"
grep -v '^ *mode \|^mode:\|^program:' "$tmp/replay.txt" >"$tmp/replay.r"
if ! grep -q 'host-assert' "$tmp/replay.r"; then
	echo "FAIL host_crash/replay: no host-assert hint: $(grep -m1 '^\[1\]' "$tmp/replay.txt")"
elif ! cmp -s "$tmp/live.r" "$tmp/replay.r"; then
	echo "FAIL host_crash/replay: the report differs: $(diff "$tmp/live.r" "$tmp/replay.r" | head -4)"
else
	echo "PASS host_crash/replay"
fi

# the same crash in a host coredump (gcore at the SIGABRT): a CPU crash,
# never a device stop ("the host had moved on from the launch" was said
# of it), with the program's own frame and values
gdb -nx -batch -ex run -ex "gcore $tmp/core.hc" \
	--args "$BUILD/progs/host_crash" assert >/dev/null 2>&1 </dev/null
timeout 60 "$BIN" --batch --debugger gdb --core "$tmp/core.hc" \
	"$BUILD/progs/host_crash" >"$out" 2>&1 </dev/null
check core-kind '^cudbg-tui diagnosis: FAULT \(host-signal\)$'
check core-hint '^\[1\] A host assert\(\) failed in check_rows  \(host-assert\)$'
check core-value '^  n = 21$'
check_not core-no-launch 'moved on from the launch'
# ...and a NULL dereference's: the coredump's siginfo names the address,
# its frame 0 the line whose dereference it is
gdb -nx -batch -ex run -ex "gcore $tmp/core.nn" \
	--args "$BUILD/progs/host_crash" nullnext >/dev/null 2>&1 </dev/null
timeout 60 "$BIN" --batch --debugger gdb --core "$tmp/core.nn" \
	"$BUILD/progs/host_crash" >"$out" 2>&1 </dev/null
check core-access '^  access +n->next->val at 0x0: n->next is NULL$'
check core-null-hint '^\[1\] A null pointer was dereferenced: n->next is NULL  \(host-null-pointer\)$'

# a replay where the program's sources are not (another machine, CI):
# the frame the live controller chose is in the recording ("userframe|"
# note), so the replay selects it too and names the same assert, line
# and value
mkdir "$tmp/src"
cp "$C" "$tmp/src/host_crash.c"
(cd "$tmp/src" && cc -O0 -g -o hc host_crash.c)
timeout 60 "$BIN" --batch --debugger gdb --record "$tmp/moved.mi.log" \
	"$tmp/src/hc" assert >/dev/null 2>&1 </dev/null
rm -f "$tmp/src/host_crash.c"
timeout 60 "$BIN" --batch --replay "$tmp/moved.mi.log" >"$out" 2>&1 </dev/null
check moved-note '^  location +.*host_crash\.c:'"$(line_of MARK_ASSERT $C)"' '
check moved-hint '^\[1\] A host assert\(\) failed in check_rows  \(host-assert\)$'
check moved-value '^  n = 21$'
if grep -q '# userframe| [0-9]' "$tmp/moved.mi.log"; then
	echo "PASS host_crash/moved-recorded"
else
	echo "FAIL host_crash/moved-recorded: no userframe note in the recording"
fi
exit 0
