#!/bin/sh
# What the death reporter's wait wrappers (preload/death.c) add to a
# program that forks and reaps: Python forks N children that end by
# _exit(0) and reaps each with os.waitpid (a look with WNOWAIT, the
# child's /proc command line and comm, a reapexit.PID written), with the
# library and its directory as --job arms it (CUDBG_JOB_EXITS=1: every
# exit written), as the default live mode arms it (deaths only), and
# without, interleaved R rounds; prints the median microseconds per child
# of each and their ratios to the run without.
# Usage: sh tests/bench/reaper_cost.sh [N] [R]
set -u
N=${1:-500}
R=${2:-5}
LIB=$(cd "${CUDBG_BUILD:-build}" 2>/dev/null && pwd)/libcudbg-death.so
[ -r "$LIB" ] || { echo "no $LIB (make)"; exit 1; }
# the interpreter itself (a pyenv shim is a shell script with children)
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
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
	"$PY" "$tmp/forks.py" "$N" >>"$tmp/without"
	rm -rf "$tmp/job"; mkdir "$tmp/job"
	CUDBG_JOB_DIR="$tmp/job" CUDBG_JOB_EXITS=1 LD_PRELOAD="$LIB" \
		"$PY" "$tmp/forks.py" "$N" >>"$tmp/job_mode"
	rm -rf "$tmp/job"; mkdir "$tmp/job"
	CUDBG_JOB_DIR="$tmp/job" LD_PRELOAD="$LIB" "$PY" "$tmp/forks.py" "$N" >>"$tmp/live"
	i=$((i + 1))
done
med() { sort -n "$1" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
j=$(med "$tmp/job_mode"); l=$(med "$tmp/live"); wo=$(med "$tmp/without")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "measure=reaper_fork_wait_us job=$j live=$l without=$wo job_ratio=$(ratio "$j" "$wo") live_ratio=$(ratio "$l" "$wo")"
