#!/bin/sh
# What reading the Python stack from memory adds to a stop (issue 28:
# at most 0.2 s): a gcore coredump of tests/progs/py_deep.py opened with
# --batch --core, with the read and with --no-python-stack, interleaved
# N times; prints the median stop-to-diagnosis time of each (CUDBG_TIMING)
# and the difference.  Usage: sh tests/bench/pymem_cost.sh [N] [PYTHON]
set -u
N=${1:-10}
PY=${2:-/usr/bin/python3}
BIN=${CUDBG_BIN:-build/cudbg-tui}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
gdb -nx -batch -ex run -ex "gcore $tmp/core" --args "$PY" \
	tests/progs/py_deep.py >/dev/null 2>&1 || { echo "no coredump"; exit 1; }
ms() { # options...: stop to diagnosis, in ms
	CUDBG_TIMING=1 "$BIN" --batch --debugger gdb "$@" --core "$tmp/core" "$PY" 2>&1 |
		sed -n 's/.* stop=\([0-9.]*\) diagnosis=\([0-9.]*\).*/\1 \2/p' |
		awk '{printf "%.1f\n", ($2 - $1) * 1000}'
}
i=0
while [ $i -lt "$N" ]; do
	ms >>"$tmp/with"
	ms --no-python-stack >>"$tmp/without"
	i=$((i + 1))
done
med() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
w=$(med "$tmp/with"); wo=$(med "$tmp/without")
echo "stop to diagnosis, median of $N: with the memory read $w ms, without $wo ms, added $(echo "$w $wo" | awk '{printf "%.1f", $1 - $2}') ms"
