#!/bin/sh
# A host failure's own words in the report (issue 29 item 2): the live
# run's last 12 output lines under "Program output (last N of M lines)"
# and in JSON output_tail, escaped, for an exception and a host signal;
# no such section for a clean run.  Real gdb and python3.
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
SUITE=tail
. "$CUDBG_ROOT/tests/sh/lib/checks.sh"
command -v gdb >/dev/null || { echo "SKIP tail: gdb not installed"; exit 0; }
PY=$(command -v python3) || { echo "SKIP tail: no python3"; exit 0; }
PY=$("$PY" -c 'import sys; print(sys.executable)')
prog=tests/progs/py_host_fail.py

timeout 60 "$BIN" --batch --debugger gdb "$PY" "$prog" >"$out" 2>&1
# 1 + 30 + 1 lines, then the 4-line traceback: 36
check raise-head '^Program output \(last 12 of 36 lines\):$'
check raise-first '^  \| step 23$'
check_not raise-older '^  \| step 22$'
check raise-last "^  \\| KeyError: \"no such column: 'label_id'\"\$"
# colours go; a title sequence stays, escaped
check raise-escaped '^  \| colour red done \\x1b\]0;pwned\\x07$'
if grep -q "$(printf '\033')" "$out"; then
	echo "FAIL tail/raise-no-raw-escape: a raw ESC reached the report"
else echo "PASS tail/raise-no-raw-escape"; fi

timeout 60 "$BIN" --json --debugger gdb "$PY" "$prog" >"$out" 2>&1
check json-total '"output_tail": ?\{"lines_total": ?36, ?"last": ?\["step 23"'
check json-last "no such column: 'label_id'\\\\\"\"\\]\\}"

PY_HOST_FAIL_MODE=signal timeout 60 "$BIN" --batch --debugger gdb "$PY" "$prog" >"$out" 2>&1
check signal-kind 'FAULT \(host-signal\)'
check signal-head '^Program output \(last 12 of 32 lines\):$'
check signal-last '^  \| colour red done \\x1b\]0;pwned\\x07$'

PY_HOST_FAIL_MODE=clean timeout 60 "$BIN" --batch --debugger gdb "$PY" "$prog" >"$out" 2>&1
check clean-no-fault 'no fault found|ran cleanly'
check_not clean-no-section '^Program output'
