#!/bin/sh
# What the death reporter's wait wrappers (preload/death.c) add to a
# program that forks and reaps: Python forks N children that end by
# _exit(0) and reaps each with os.waitpid (a look with WNOWAIT, the
# child's /proc command line and comm, a reapexit.PID written), with the
# library and its directory and without, interleaved R rounds; prints the
# median microseconds per child of each and their ratio.
# Usage: sh tests/bench/reaper_cost.sh [N] [R]
set -u
N=${1:-500}
R=${2:-5}
LIB=${CUDBG_BUILD:-build}/libcudbg-death.so
[ -r "$LIB" ] || { echo "no $LIB (make)"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/forks.py" <<'PY'
import os, sys, time
n = int(sys.argv[1])
t0 = time.perf_counter()
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
print("%.1f" % ((time.perf_counter() - t0) * 1e6 / n))
PY
i=0
while [ "$i" -lt "$R" ]; do
	python3 "$tmp/forks.py" "$N" >>"$tmp/without"
	rm -rf "$tmp/job"; mkdir "$tmp/job"
	CUDBG_JOB_DIR="$tmp/job" LD_PRELOAD="$LIB" python3 "$tmp/forks.py" "$N" >>"$tmp/with"
	i=$((i + 1))
done
med() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
w=$(med "$tmp/with"); wo=$(med "$tmp/without")
echo "measure=reaper_fork_wait_us with=$w without=$wo ratio=$(awk -v a="$w" -v b="$wo" 'BEGIN {printf "%.2f", a / b}')"
