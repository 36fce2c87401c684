#!/bin/sh
# What the other ranks were doing (issue 34): tests/data/job_ranks.py's
# rank 1 dies of SIGSEGV while rank 0 waits for it in a collective that
# never completes.  After the grace period --job stops the rest with
# SIGTERM; the job's sitecustomize makes each Python process print its
# stack at SIGTERM, and the report names where rank 0 waited and its
# user's line.  Rank 0 also prints a communication library's words about
# the collective (NCCL's watchdog, then gloo's timeout, from real logs):
# the report's collectives section reads them from the job's stderr,
# which still reaches ours.
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
out=$(mktemp); err=$(mktemp); trap 'rm -f "$out" "$err"' EXIT
SUITE=job_others
. "$CUDBG_ROOT/tests/sh/lib/checks.sh"
. "$CUDBG_ROOT/tests/sh/lib/reports.sh"
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
PY=$("$PY" -c 'import sys; print(sys.executable)')
export CUDBG_JOB_GRACE_MS=300
WD='[rank0]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.'
COLLECTIVE_TEXT=$WD timeout 60 "$BIN" --batch --job "$PY" tests/data/job_ranks.py >"$out" 2>"$err"
check faulting '^faulting: +pid [0-9]+, rank 1 \(RANK\)$'
check rank0-state '^ +[0-9]+ +[0-9]+ +0 +stopped by us with SIGTERM'
check others-head '^others \(where each was as it ended\):$'
WL=$(grep -n "job_ranks: the wait" tests/data/job_ranks.py | cut -d: -f1)
check rank0-where "^    pid [0-9]+ rank 0, stopped by us with SIGTERM( \\(its report\\))?: at your line .*job_ranks\\.py:$WL in wait_for_peers \\(at SIGTERM\\)\$"
LL=$(grep -n "job_ranks: the launcher's loop" tests/data/job_ranks.py | cut -d: -f1)
check launcher-where "^    pid [0-9]+, stopped by us with SIGTERM( \\(its report\\))?: at your line .*job_ranks\\.py:$LL in <module> \\(at SIGTERM\\)$"
check watchdog '^    rank 0, NCCL: ALLREDUCE \(SeqNum 808\) timed out after 600020 ms \(its timeout 600000 ms\): a rank it waits for never joined$'
# the faulting rank is not among the others
check_not faulting-not-other '^    pid [0-9]+ rank 1,'
# the job's stderr still reaches ours, whole
out=$err
check stderr-passed "Watchdog caught collective operation timeout: WorkNCCL\\(SeqNum=808"
out=$(mktemp)
GL='RuntimeError: [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 30000ms for recv operation to complete'
# and rank 0's own traceback as GPU run 29's DDP job printed it (its
# "[rank0]: " lines, tests/fixtures/gpu/multiproc/mp_ddp.job.err)
TB=$(sed -n '/^\[rank0\]: Traceback/,/^\[rank0\]: RuntimeError/p' tests/fixtures/gpu/multiproc/mp_ddp.job.err)
COLLECTIVE_TEXT="$GL
$TB" timeout 60 "$BIN" --json --job "$PY" tests/data/job_ranks.py >"$out" 2>/dev/null
if python3 - "$out" "$WL" <<'PYEOF'
import json, sys
j = json.load(open(sys.argv[1]))["job"]
c = j["collectives"]
assert c[0] == {"backend": "gloo", "kind": "timeout", "rank": None, "op": "recv",
                "seq": None, "timeout_ms": 30000, "ran_ms": None,
                "text": "Timed out waiting 30000ms for recv operation to complete"}, c
assert len(c) == 2 and c[1]["kind"] == "peer-gone" and c[1]["rank"] == 0, c
r0 = [p for p in j["processes"] if p["rank"] == "0"][0]
assert r0["python_stack_at"] == "sigterm", r0
assert r0["python_line"]["line"] == int(sys.argv[2]) and r0["python_line"]["function"] == "wait_for_peers", r0
t = r0["stderr_traceback"]
assert t["line"] == 21 and t["function"] == "train_step" and t["file"].endswith("/mp_ddp.py"), t
assert t["exception"].startswith("RuntimeError: ") and "Connection closed by peer" in t["exception"], t
r1 = [p for p in j["processes"] if p["rank"] == "1"][0]
assert r1["python_stack_at"] == "fatal-signal" and r1["faulting"], r1
PYEOF
then echo "PASS $SUITE/json"; else echo "FAIL $SUITE/json"; fi
keep_report "$out"
rm -f "$out"
# A Python program that handles SIGTERM itself keeps its handler: it
# still runs, and no stack is taken at SIGTERM.  (Its exit status is the
# program's race: our SIGTERM to the process and then to its group can
# find it finalizing, with the default action back.)
prog=$(mktemp --suffix=.py)
cat > "$prog" <<'PYEOF'
import os, signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: (print("own handler ran", flush=True), sys.exit(3)))
if os.fork() == 0:
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGSEGV)
while True:
    time.sleep(0.05)
PYEOF
out=$(mktemp)
timeout 60 "$BIN" --batch --job "$PY" "$prog" >"$out" 2>&1
check own-handler 'own handler ran'
check_not own-handler-no-stack '^others '
rm -f "$out" "$prog"
