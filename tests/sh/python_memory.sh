#!/bin/sh
# The Python stack read from the stopped process's memory
# (include/cudbg/pymem.h): no call into the interpreter, so it works in a
# coredump and at a hardware exception.  tests/progs/py_deep.py crashes
# in C three calls deep, in the main thread or in a second thread.
#  1. replays: tests/fixtures/pymem/py3N-MODE.core.mi.log, real gdb 13
#     sessions on gcore coredumps of CPython 3.10.13, 3.12.1 and 3.13.0
#     (pyenv builds), so CI checks every layout without those Pythons.
#  2. live: the system python3 (3.11 on Debian 12) and every pyenv
#     3.10-3.13 present: a coredump made with gdb's gcore at the crash,
#     opened with --core, main thread and thread mode.
#  3. a launcher script that execs python (tests/progs/py_launcher.sh):
#     found Python by its memory alone.
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
SUITE=pymem
. "$CUDBG_ROOT/tests/sh/lib/checks.sh"
# The report of a coredump of py_deep.py in MODE (main or thread).
check_report() { # name mode
	check "$1-line" '^  python     .*py_deep\.py:14 in crash'
	check "$1-from-memory" '^Python stack \(innermost first, read from memory\):$'
	check "$1-recursion" "^  .*py_deep\\.py:15 in crash\$"
	if [ "$2" = thread ]; then
		# the thread that crashed, not the main thread in join()
		check "$1-run-from" '^  run from   .*py_deep\.py:19 in worker'
		check_not "$1-not-main" 'py_deep\.py:[0-9]+ in (outer|<module>)'
		[ "$(grep -c 'py_deep\.py:15 in crash$' "$out")" = 2 ] &&
			echo "PASS pymem/$1-depth" ||
			echo "FAIL pymem/$1-depth: not 2 recursive crash frames"
	else
		check "$1-run-from" '^  run from   .*py_deep\.py:31 in <module>'
		check "$1-outer" '^  .*py_deep\.py:28 in outer$'
		[ "$(grep -c 'py_deep\.py:15 in crash$' "$out")" = 3 ] &&
			echo "PASS pymem/$1-depth" ||
			echo "FAIL pymem/$1-depth: not 3 recursive crash frames"
	fi
	check_not "$1-no-why" 'no live stack'
}

for rec in tests/fixtures/pymem/*.core.mi.log; do
	n=$(basename "$rec" .core.mi.log)
	timeout 60 "$BIN" --batch -d tests/progs --replay "$rec" >"$out" 2>&1
	check_report "replay-$n" "${n#*-}"
done
# The JSON report carries the same frames.
timeout 60 "$BIN" --json --replay tests/fixtures/pymem/py312-main.core.mi.log >"$out" 2>&1
check replay-json-stack '"python_stack": ?\[\{"file": ?"[^"]*threading[^"]*|"python_stack": ?\[\{"file": ?"[^"]*ctypes/__init__\.py"'
check replay-json-from '"python_stack_from": ?"memory"'

if ! command -v gdb >/dev/null; then
	echo "SKIP pymem/live: gdb not installed"; exit 0
fi
pythons=
for p in /usr/bin/python3 /root/.pyenv/versions/3.1[0-3].*/bin/python3.1[0-3] \
	"${PYENV_ROOT:-/nonexistent}"/versions/3.1[0-3].*/bin/python3.1[0-3]; do
	[ -x "$p" ] && pythons="$pythons $p"
done
[ -n "$pythons" ] || { echo "SKIP pymem/live: no python3 binary"; exit 0; }
for py in $pythons; do
	v=$("$py" -c 'import sys; print("%d%d" % sys.version_info[:2])') || continue
	for mode in main thread; do
		core=$tmp/py$v-$mode.core
		PY_DEEP_MODE=$mode timeout 60 gdb -nx -batch -ex run \
			-ex "gcore $core" --args "$py" tests/progs/py_deep.py \
			>/dev/null 2>&1
		if [ ! -s "$core" ]; then
			echo "FAIL pymem/live-py$v-$mode: gdb wrote no coredump"
			continue
		fi
		timeout 60 "$BIN" --batch --debugger gdb --core "$core" "$py" \
			>"$out" 2>&1
		check_report "live-py$v-$mode" "$mode"
		rm -f "$core"
	done
done

# A launcher script (not python by its name) that execs python: the
# stopped process's memory says it is Python and gives the script line.
PY_LAUNCH_PYTHON=/usr/bin/python3 timeout 60 "$BIN" --batch --debugger gdb \
	tests/progs/py_launcher.sh >"$out" 2>&1
check launcher-line '^  python     .*py_deep\.py:14 in crash'
check launcher-from-memory '^Python stack \(innermost first, read from memory\):$'
# --no-python-stack: not read
PY_LAUNCH_PYTHON=/usr/bin/python3 timeout 60 "$BIN" --batch --debugger gdb \
	--no-python-stack tests/progs/py_launcher.sh >"$out" 2>&1
check_not launcher-off '^Python stack'
# a C program at a signal: one question, no Python words
timeout 60 "$BIN" --batch --debugger gdb "${CUDBG_BUILD:-build}/progs/model_segv" >"$out" 2>&1
check_not c-program-quiet 'Python|python '
