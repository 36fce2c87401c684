#!/bin/sh
# What the allocation watch costs (issue 28 item 5) on this machine's
# gdb: a program that makes N cudaMalloc/cudaFree pairs through the
# stand-in library of tests/data/alloc_watch (no GPU; 2N calls, within
# the watch's budget of 2048 by default), run to its end
# by `cudbg-tui --batch --debugger gdb` with --alloc-watch and without,
# rounds interleaved.  Prints each round's wall seconds, the median
# ratio watched/unwatched, and the cost of one watched call (the
# difference over 2N calls).  The GPU machine's figures for cuda-gdb are
# in docs/performance.md ("The allocation watch").
# Usage: sh tests/bench/alloc_watch.sh [N] [ROUNDS]
set -u
N=${1:-1000}
ROUNDS=${2:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
command -v gdb >/dev/null || { echo "SKIP: gdb not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/churn.c" <<'C'
#include <stdlib.h>
#include <stddef.h>
int cudaMalloc(void **out, size_t n);
int cudaFree(void *p);
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	for (int i = 0; i < n; i++) {
		float *p;
		cudaMalloc((void **)&p, 1 << 20);
		cudaFree(p);
	}
	return 0;
}
C
cc -O2 -fPIC -shared -o "$tmp/libcudart_stub.so" "$ROOT/tests/data/alloc_watch/fake_cudart.c"
cc -O0 -g -o "$tmp/churn" "$tmp/churn.c" -L"$tmp" -lcudart_stub -Wl,-rpath,"$tmp"
secs() { # ARGS...: wall seconds of one batch run
	python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("%.3f" % (time.monotonic() - t))
PY
}
: >"$tmp/rows"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	off=$(secs "$BIN" --batch --debugger gdb "$tmp/churn" "$N")
	on=$(secs "$BIN" --batch --debugger gdb --alloc-watch "$tmp/churn" "$N")
	echo "round $r: without $off s, watched $on s"
	echo "$off $on" >>"$tmp/rows"
	r=$((r + 1))
done
python3 - "$tmp/rows" "$N" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
n = int(sys.argv[2])
ratio = statistics.median(on / off for off, on in rows)
per = statistics.median((on - off) / (2 * n) for off, on in rows)
print("median ratio watched/unwatched: %.2fx; per watched call: %.0f us (%d calls)"
      % (ratio, per * 1e6, 2 * n))
PY
