#!/bin/sh
# Jobs of many processes (--job, --core-dir; docs/multiprocess.md) with
# real gdb on tests/progs/job_tree.c: a launcher forks and execs three
# workers with RANK set; the faulting ones get a core written at their
# SIGSEGV (the driver's part, played by gdb's gcore) while the others run
# on.  Checks that the report names the faulting process (pid, rank,
# command line) from the job's own table, opens that process's core (its
# frame and locals), lists every process with its outcome, and that the
# exit statuses alone find the faulting process when there is no core.
set -u
BIN=${CUDBG_BIN:?}
PROG=${CUDBG_BUILD:?}/progs/job_tree
SRC=$(cd "$(dirname "$0")/../.." && pwd)/tests/progs/job_tree.c
command -v gdb >/dev/null || { echo "SKIP job: gdb not installed"; exit 0; }
command -v python3 >/dev/null || { echo "SKIP job: python3 not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
LINE=$(grep -n 'job_tree: the null write' "$SRC" | cut -d: -f1)
export TMPDIR="$tmp"
. "$(dirname "$0")/lib/reports.sh"

pass() { echo "PASS job/$1"; }
fail() {
	echo "FAIL job/$1: $2"
	for f in "$tmp/$1.out" "$tmp/$1.err"; do
		[ -f "$f" ] && sed 's/^/    /' "$f" | head -40
	done
}

# run NAME ARGS...: the binary with a bound, stdout and stderr kept.
run() {
	name=$1; shift
	timeout 120 "$BIN" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
	echo $? >"$tmp/$name.rc"
	# a --json report is checked against the schema at the suite's end
	case " $* " in *" --json "*) keep_report "$tmp/$name.out" ;; esac
}

# JSON checks in python3: the report parses, and the job's table says
# what the test expects (argv[2:] names the check).
jcheck() {
	python3 - "$@" <<'EOF'
import json, sys
path, check = sys.argv[1], sys.argv[2]
r = json.load(open(path))
j = r["job"]
procs = j["processes"]
by_rank = {}
for p in procs:
    if p["command"] and " worker " in p["command"]:
        by_rank[p["rank"]] = p
def die(msg):
    print(msg)
    sys.exit(1)
f = [p for p in procs if p["faulting"]]
if len(f) != 1:
    die("faulting processes: %d" % len(f))
if check == "core":
    w1 = by_rank.get("1")
    if not w1 or j["faulting_pid"] != w1["pid"] or not w1["core"]:
        die("faulting_pid %s is not rank 1's worker" % j["faulting_pid"])
    if w1["rank_var"] != "RANK" or w1["local_rank"] != "1":
        die("rank variables of rank 1: %s %s" % (w1["rank_var"], w1["local_rank"]))
    if set(by_rank) != {"0", "1", "2"}:
        die("workers seen: %s" % sorted(by_rank))
    lead = [p for p in procs if p["pid"] == j["leader"]]
    if not lead or lead[0]["state"] != "exited" or lead[0]["exit_code"] != 1:
        die("the launcher's outcome: %s" % lead)
    if r["fault"] is not True or r["mode"] != "core":
        die("report fault/mode: %s %s" % (r["fault"], r["mode"]))
    if r["frame"]["function"] != "worker_fault":
        die("frame: %s" % r["frame"])
elif check == "nocore":
    w = by_rank
    if w["1"]["state"] != "signalled" or w["1"]["signal"] != "SIGSEGV":
        die("rank 1: %s" % w["1"])
    for k in ("0", "2"):
        if w[k]["state"] != "exited" or w[k]["exit_code"] != 0:
            die("rank %s: %s" % (k, w[k]))
    if j["faulting_pid"] != w["1"]["pid"] or w["1"]["core"] is not None:
        die("faulting_pid %s" % j["faulting_pid"])
    if r["fault"] is not True:
        die("fault: %s" % r["fault"])
elif check == "coredir":
    if j["source"] != "core-dir" or len(procs) != 2:
        die("source %s, %d processes" % (j["source"], len(procs)))
    first = procs[0]
    if not first["faulting"] or first["core"] is None or procs[1]["faulting"]:
        die("the first by time is not the one opened: %s" % procs)
    if r["frame"]["function"] != "worker_fault":
        die("frame: %s" % r["frame"])
    print(first["pid"])
EOF
}

# ---- a fault with a core, the others running on ------------------------
c=core
run $c --batch --job --debugger gdb "$PROG" 3 1
rc=$(cat "$tmp/$c.rc")
w1=$(grep -E '^ +>? *[0-9]+ .* job_tree worker 1 1$' "$tmp/$c.out" | awk '{print ($1 == ">") ? $2 : $1}')
if [ "$rc" != 1 ]; then
	fail $c "exit $rc, not 1"
elif [ -z "$w1" ] || ! grep -q "^faulting: *pid $w1, rank 1 (RANK), local rank 1$" "$tmp/$c.out"; then
	fail $c "the report does not name rank 1's worker (pid '$w1') as the faulting process"
elif ! grep -q '^  command: *job_tree worker 1 1$' "$tmp/$c.out"; then
	fail $c "no command line of the faulting process"
elif ! grep -q "^frame: *#0 worker_fault at .*job_tree.c:$LINE\$" "$tmp/$c.out"; then
	fail $c "the core's frame is not worker_fault at job_tree.c:$LINE"
elif ! grep -q '^  rank = 1$' "$tmp/$c.out"; then
	fail $c "the faulting worker's locals are not in the diagnosis"
elif ! grep -q 'worker 0 done' "$tmp/$c.err" || ! grep -q 'worker 2 done' "$tmp/$c.err"; then
	fail $c "the other workers did not run on to their end"
elif grep -q 'stopped after the grace' "$tmp/$c.out"; then
	fail $c "the workers that ended on their own were stopped"
else
	pass $c
fi

# ---- the recording of the faulting process's core says which it is ----
c=recording
run $c --batch --job --debugger gdb --record "$tmp/job.mi.log" "$PROG" 3 1
w1=$(sed -n 's/^faulting: *pid \([0-9]*\), rank 1 .*/\1/p' "$tmp/$c.out")
if [ -z "$w1" ] || ! grep -q "# job| faulting: *pid $w1, rank 1 (RANK)" "$tmp/job.mi.log"; then
	fail $c "the recording does not name the faulting process in '# job| ' notes"
else
	run $c-replay --batch --replay "$tmp/job.mi.log"
	if grep -q "^frame: *#0 worker_fault at .*job_tree.c:$LINE\$" "$tmp/$c-replay.out"; then
		pass $c
	else
		fail $c-replay "the replay of the recording is not rank 1's core"
	fi
fi

# ---- the same as JSON: every process with its outcome ------------------
c=json
run $c --json --job --debugger gdb "$PROG" 3 1
rc=$(cat "$tmp/$c.rc")
if [ "$rc" != 1 ]; then
	fail $c "exit $rc, not 1"
elif ! why=$(jcheck "$tmp/$c.out" core); then
	fail $c "$why"
else
	pass $c
fi

# ---- no core: the exit statuses name the faulting process --------------
# The launcher exits first, so its workers are orphans: their statuses go
# to the job's keeper.
c=no-core
JOB_TREE_NO_CORE=1 run $c --json --job --debugger gdb "$PROG" 3 1 orphan
rc=$(cat "$tmp/$c.rc")
if [ "$rc" != 1 ]; then
	fail $c "exit $rc, not 1"
elif ! why=$(jcheck "$tmp/$c.out" nocore); then
	fail $c "$why"
else
	pass $c
fi

# ---- the grace period: the rest are stopped after the first fault ------
c=grace
# (a mark in the environment tells this run's workers from those of a
# pass running beside it: make test runs the plain and ASan passes at once)
JOB_TEST_MARK=$tmp JOB_TREE_RUN_MS=8000 CUDBG_JOB_GRACE_MS=200 run $c --batch --job --debugger gdb "$PROG" 3 1
rc=$(cat "$tmp/$c.rc")
if [ "$rc" != 1 ]; then
	fail $c "exit $rc, not 1"
elif ! grep -q 'the rest were stopped after the grace period' "$tmp/$c.out" ||
     ! grep -qE 'stopped by us with SIG(TERM|KILL) +job_tree worker [02] 1$' "$tmp/$c.out"; then
	fail $c "the workers still running were not stopped and marked"
elif grep -q 'worker [02] done' "$tmp/$c.err"; then
	fail $c "a worker ran to its end after the grace period"
else
	pass $c
fi
sleep 0.2
# marked_workers MARK: the job_tree workers whose environment holds MARK
marked_workers() {
	for e in /proc/[0-9]*/environ; do
		p=${e#/proc/}; p=${p%/environ}
		{ tr '\0' '\n' <"$e"; } 2>/dev/null | grep -qxF "JOB_TEST_MARK=$1" ||
			continue
		{ tr '\0' ' ' <"/proc/$p/cmdline"; } 2>/dev/null |
			grep -q "job_tree worker" && echo "$p"
	done
}
if [ -n "$(marked_workers "$tmp")" ]; then
	echo "FAIL job/grace-leftovers: job_tree workers left running"
else
	pass grace-leftovers
fi

# ---- --core-dir: two workers' cores, the first by time opens -----------
c=core-dir
mkdir -p "$tmp/cores"
JOB_TREE_STAGGER_MS=2000 CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 \
	CUDA_COREDUMP_FILE="$tmp/cores/core.%p" \
	timeout 60 "$PROG" 3 1,2 >"$tmp/$c.prog" 2>&1
ncores=$(ls "$tmp/cores" | wc -l)
oldest=$(ls -1tr "$tmp/cores" | head -1)
run $c --json --core-dir "$tmp/cores" --debugger gdb "$PROG"
rc=$(cat "$tmp/$c.rc")
if [ "$ncores" != 2 ]; then
	fail $c "the job wrote $ncores cores, not 2"
elif [ "$rc" != 1 ]; then
	fail $c "exit $rc, not 1"
elif ! first=$(jcheck "$tmp/$c.out" coredir); then
	fail $c "$first"
elif [ "core.$first" != "$oldest" ]; then
	fail $c "opened core.$first, but the oldest is $oldest"
else
	# the first by time is rank 1's (it faulted 600 ms before rank 2)
	run $c-text --batch --core-dir "$tmp/cores" --debugger gdb "$PROG"
	if grep -q "^faulting: *pid $first, no rank variable" "$tmp/$c-text.out" &&
	   grep -q '^  rank = 1$' "$tmp/$c-text.out" &&
	   grep -q '^core-dir: .*(2 coredumps)$' "$tmp/$c-text.out"; then
		pass $c
	else
		fail $c-text "the text report does not open rank 1's core first and list both"
	fi
fi

# ---- --core-dir with the job's saved log beside the cores --------------
# (NAME.log/.err/.out): what NCCL said of the collective and what the
# launcher said of each worker's end, as --job reads its live stderr.
c=core-dir-log
if [ -n "${first:-}" ]; then
	{
		echo "[rank0]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out."
		echo "  exitcode  : -11 (pid: $first)"
		echo "  exitcode  : -15 (pid: 4194301)"
	} >"$tmp/cores/job.log"
	run $c --batch --core-dir "$tmp/cores" --debugger gdb "$PROG"
	if grep -q "^    rank 0, NCCL: ALLREDUCE (SeqNum 808) timed out after 600020 ms" "$tmp/$c.out" &&
	   grep -Eq "^  > $first +- +- +killed by SIGSEGV \(its launcher's report\) +core" "$tmp/$c.out" &&
	   grep -Eq "^    4194301 +- +- +killed by SIGTERM \(its launcher's report\) " "$tmp/$c.out" &&
	   grep -q '^core-dir: .*(2 coredumps)$' "$tmp/$c.out"; then
		pass $c
	else
		fail $c "the job's log beside the cores was not read"
	fi
	rm -f "$tmp/cores/job.log"
fi

# ---- Python: each process's own stack when it dies of a fatal signal ----
# tests/data/job_py.py: worker 1 aborts in fault() (as the driver aborts
# a process after its GPU coredump); the report gives its Python line from
# the stack it printed (our sitecustomize.py points faulthandler at a file
# per process).  "fork": a forked child's stack lands in its own file.
PY=$(cd "$(dirname "$0")/../.." && pwd)/tests/data/job_py.py
PYLINE=$(grep -n 'job_py: the abort' "$PY" | cut -d: -f1)
c=python
run $c --batch --job python3 "$PY"
if [ "$(cat "$tmp/$c.rc")" != 1 ]; then
	fail $c "exit $(cat "$tmp/$c.rc"), not 1"
elif ! grep -q '^faulting: *pid [0-9]*, rank 1 (RANK)$' "$tmp/$c.out" ||
     ! grep -q '^  command: .*job_py.py worker 1$' "$tmp/$c.out"; then
	fail $c "the report does not name worker 1"
elif ! grep -q "^  python: *.*job_py.py:$PYLINE in fault (your line" "$tmp/$c.out"; then
	fail $c "no Python line job_py.py:$PYLINE of the faulting process"
elif ! grep -q 'worker 0 done' "$tmp/$c.err"; then
	fail $c "worker 0 did not run on"
else
	pass $c
fi
c=python-fork
run $c --json --job python3 "$PY" fork
if ! python3 - "$tmp/$c.out" "$PYLINE" <<'EOF2'
import json, sys
r = json.load(open(sys.argv[1]))
procs = r["job"]["processes"]
f = [p for p in procs if p["faulting"]]
assert len(f) == 1, f
f = f[0]
assert f["signal"] == "SIGABRT", f
assert f["python_line"]["function"] == "fault", f["python_line"]
assert f["python_line"]["line"] == int(sys.argv[2]), f["python_line"]
# the launcher (the command) left no stack: the child's went to its own file
others = [p for p in procs if p is not f and p["python_stack"] is not None]
assert not others, others
EOF2
then
	fail $c "the forked child's Python stack is not its own"
else
	pass $c
fi

# ---- Python with a core: the core opens, the Python line beside it -----
c=python-core
JOB_PY_CORE=1 run $c --batch --job --keep-temp --debugger gdb --record "$tmp/$c.mi.log" python3 "$PY"
if [ "$(cat "$tmp/$c.rc")" != 1 ]; then
	fail $c "exit $(cat "$tmp/$c.rc"), not 1"
elif ! grep -q '^mode: *core$' "$tmp/$c.out" ||
     ! grep -q '^  coredump: .*/core\.[0-9]*\.nvcudmp$' "$tmp/$c.out" ||
     ! grep -q 'Aborted (SIGABRT)' "$tmp/$c.out"; then
	fail $c "worker 1's core did not open"
elif ! grep -q "^  python: *.*job_py.py:$PYLINE in fault (your line" "$tmp/$c.out"; then
	fail $c "no Python line beside the core"
elif ! grep -q "^  python  *.*job_py.py:$PYLINE in fault" "$tmp/$c.out"; then
	fail $c "the core's diagnosis has no Python line (the stack the process printed)"
elif ! grep -q "# pystack| F	.*job_py.py	$PYLINE	fault	" "$tmp/$c.mi.log"; then
	fail $c "the recording has no pystack note"
else
	pass $c
	# its recording replays with the same Python line
	run $c-replay --batch --replay "$tmp/$c.mi.log"
	if grep -q "^  python  *.*job_py.py:$PYLINE in fault" "$tmp/$c-replay.out"; then
		pass $c-replay
	else
		fail $c-replay "the replay's diagnosis lost the Python line"
	fi
	# the kept directory opens again with --core-dir, Python stack and all
	kept=$(sed -n "s/^cudbg-tui: kept the job's core directory \(.*\) (--keep-temp)$/\1/p" "$tmp/$c.err")
	run $c-dir --batch --core-dir "$kept" --debugger gdb python3
	if grep -q '^core-dir: .*(1 coredump)$' "$tmp/$c-dir.out" &&
	   grep -q "^  python: *.*job_py.py:$PYLINE in fault" "$tmp/$c-dir.out"; then
		pass $c-dir
	else
		fail $c-dir "--core-dir on the kept directory lost the core or its Python stack"
	fi
	[ -n "$kept" ] && rm -rf "$kept"
fi

# ---- a live run (no --job) follows only the parent: the hint says --job,
# naming the worker that died (its own report, preload/death.c) ----
c=live-hint
run $c --batch --memcheck=never --debugger gdb "$PROG" 3 1
if [ "$(cat "$tmp/$c.rc")" != 1 ]; then
	fail $c "exit $(cat "$tmp/$c.rc"), not 1"
elif ! grep -q '^\[1\] A process the program started died of SIGSEGV.*(job-child-died)$' "$tmp/$c.out" ||
     ! grep -q "run: cudbg-tui --job $PROG 3 1\$" "$tmp/$c.out"; then
	fail $c "no job-child-died hint with the command line"
else
	pass $c
fi

# ---- bad input: one line, exit 2 ---------------------------------------
c=core-dir-empty
mkdir -p "$tmp/empty"
run $c --batch --core-dir "$tmp/empty" --debugger gdb "$PROG"
if [ "$(cat "$tmp/$c.rc")" = 2 ] && grep -q 'no coredumps in' "$tmp/$c.err" &&
   [ "$(wc -l < "$tmp/$c.err")" -eq 1 ]; then
	pass $c
else
	fail $c "exit $(cat "$tmp/$c.rc")"
fi
c=core-dir-missing
run $c --batch --core-dir "$tmp/nonexistent" --debugger gdb
if [ "$(cat "$tmp/$c.rc")" = 2 ] && grep -q 'cannot open the core directory' "$tmp/$c.err"; then
	pass $c
else
	fail $c "exit $(cat "$tmp/$c.rc")"
fi
c=job-not-found
run $c --batch --job /nonexistent/prog
if [ "$(cat "$tmp/$c.rc")" = 2 ] && grep -q 'cannot run /nonexistent/prog' "$tmp/$c.err"; then
	pass $c
else
	fail $c "exit $(cat "$tmp/$c.rc")"
fi
c=job-not-found-json
run $c --json --job /nonexistent/prog
if [ "$(cat "$tmp/$c.rc")" = 2 ] && python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(0 if r["error"].startswith("cannot run /nonexistent/prog") and r["fault"] is None else 1)' "$tmp/$c.out"; then
	pass $c
else
	fail $c "exit $(cat "$tmp/$c.rc"), or no JSON error report"
fi
c=job-usage
run $c --batch --job --pid 1
if [ "$(cat "$tmp/$c.rc")" = 2 ] && grep -q -- '--job needs a command' "$tmp/$c.err"; then
	pass $c
else
	fail $c "exit $(cat "$tmp/$c.rc")"
fi
