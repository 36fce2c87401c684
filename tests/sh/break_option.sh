#!/bin/sh
# -b/--break: batch mode stops at a breakpoint set before the run (real
# gdb on a CPU program).
set -u
BIN=${CUDBG_BIN:?}
PROG=${CUDBG_BUILD:?}/progs/steps
out=$(mktemp); trap 'rm -f "$out"' EXIT
check() { # name pattern
	if grep -Eq "$2" "$out"; then echo "PASS break/$1"; else
		echo "FAIL break/$1: no '$2' in:"; sed 's/^/    /' "$out" | head -20; fi
}
if command -v gdb >/dev/null; then
	timeout 60 "$BIN" --batch --debugger gdb -b square "$PROG" >"$out" 2>&1
	check gdb-function 'Breakpoint 1 in square'
	check gdb-line 'square at tests/progs/steps.c:7'
	timeout 60 "$BIN" --batch --debugger gdb --break steps.c:20 "$PROG" >"$out" 2>&1
	check gdb-file-line 'main at tests/progs/steps.c:20'
else
	echo "SKIP break/gdb: gdb not installed"
fi
