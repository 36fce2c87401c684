#!/bin/sh
# A coredump that cannot be opened ends batch mode with a one-line error
# and exit 2, never a wait for a stop that cannot come.
set -u
BIN=${CUDBG_BIN:?}
PROG=${CUDBG_BUILD:?}/progs/steps
command -v gdb >/dev/null || { echo "SKIP core/bad-core: gdb not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "not a core" > "$tmp/bad.core"
timeout 30 "$BIN" --batch --debugger gdb --core "$tmp/bad.core" "$PROG" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q 'did not start' "$tmp/err" && [ "$(wc -l < "$tmp/err")" -eq 1 ]; then
	echo "PASS core/bad-core"
else
	echo "FAIL core/bad-core: exit $rc, stderr:"; sed 's/^/    /' "$tmp/err"
fi
