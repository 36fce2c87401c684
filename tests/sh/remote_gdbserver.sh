#!/bin/sh
# --remote HOST:PORT with a real gdbserver (the CPU stand-in for
# cuda-gdbserver): connect, stop at a breakpoint set before the program
# continues, report; and a refused connection is a one-line error.
set -u
BIN=${CUDBG_BIN:?}
PROG=${CUDBG_BUILD:?}/progs/steps
command -v gdbserver >/dev/null || { echo "SKIP remote/gdbserver: gdbserver not installed"; exit 0; }
command -v gdb >/dev/null || { echo "SKIP remote/gdbserver: gdb not installed"; exit 0; }
tmp=$(mktemp -d)
cleanup() { [ -n "${gs:-}" ] && kill "$gs" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
for try in 1 2 3 4 5; do
	port=$((20000 + ($$ * 7 + try * 131) % 20000))
	gdbserver "127.0.0.1:$port" "$PROG" >"$tmp/gs.log" 2>&1 &
	gs=$!
	i=0
	while [ $i -lt 50 ] && ! grep -q 'Listening on port' "$tmp/gs.log"; do
		sleep 0.1; i=$((i + 1))
		kill -0 "$gs" 2>/dev/null || break
	done
	grep -q 'Listening on port' "$tmp/gs.log" && break
	gs=
done
[ -n "${gs:-}" ] || { echo "FAIL remote/gdbserver: gdbserver did not listen"; exit 0; }
timeout 60 "$BIN" --batch --debugger gdb -b square --remote "127.0.0.1:$port" "$PROG" >"$tmp/out" 2>&1
if grep -q 'mode: *remote' "$tmp/out" && grep -q 'Breakpoint 1 in square' "$tmp/out"; then
	echo "PASS remote/gdbserver-breakpoint"
else
	echo "FAIL remote/gdbserver-breakpoint:"; sed 's/^/    /' "$tmp/out" | head -20
fi
kill "$gs" 2>/dev/null; wait "$gs" 2>/dev/null; gs=
# Nothing listens there any more: a clear one-line error, exit 2.
timeout 60 "$BIN" --batch --debugger gdb --remote "127.0.0.1:$port" "$PROG" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "remote 127.0.0.1:$port" "$tmp/err"; then
	echo "PASS remote/refused"
else
	echo "FAIL remote/refused: exit $rc:"; sed 's/^/    /' "$tmp/err" | head
fi
