#!/bin/sh
# Every process's death is seen, or said to be unseen (issue 29 item 6):
# a worker its own parent reaps is never "healthy" in the --job report.
#  1. tests/progs/job_tree without a coredump: a C worker dies of SIGSEGV
#     and its launcher reaps it; its status never reaches us, so the
#     report says "ended unseen" and names the processes, not just
#     "0 faulted".
#  2. tests/data/job_reaped.py: a Python worker (multiprocessing) dies of
#     SIGSEGV, reaped by its parent; its fatal-error report (the job's
#     faulthandler) names the signal: the faulting process, with its line.
set -u
BIN=${CUDBG_BIN:?}
BUILD=${CUDBG_BUILD:?}
cd "${CUDBG_ROOT:?}" || exit 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
SUITE=job_deaths
. "$CUDBG_ROOT/tests/sh/lib/checks.sh"
JOB_TREE_NO_CORE=1 timeout 60 "$BIN" --batch --job "$BUILD/progs/job_tree" 3 1 >"$out" 2>&1
# The poll may catch a worker as a zombie before its parent reaps it (its
# status then seen) or not: worker 1 (the SIGSEGV) is either "killed by
# SIGSEGV" or "ended, status unseen" and then named under unseen:, never
# healthy; "0 faulted" never stands without the unseen count.
check c-worker1 '(killed by SIGSEGV|ended, status unseen) +job_tree worker 1 1$'
if grep -Eq 'ended, status unseen +job_tree worker 1 1$' "$out"; then
	check c-unseen-count '^ +4 processes, 0 faulted, [1-3] ended unseen, '
	check c-unseen-named '^  unseen: +[1-3] process(es)? ended with (its|their) status unseen .*pid [0-9]+ \(job_tree worker 1 1\)'
else
	check c-seen-faulted '^ +4 processes, 1 faulted'
fi
check_not c-not-healthy '0 faulted, [0-9.]+ s$'

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
PY=$("$PY" -c 'import sys; print(sys.executable)')
timeout 60 "$BIN" --batch --job "$PY" tests/data/job_reaped.py >"$out" 2>&1
check py-faulted '^ +[0-9]+ processes, 1 faulted'
# (its report: its parent reaped it; a poll that catches the zombie
# first sees the status itself)
check py-state '^  > [0-9]+ +[0-9-]+ +- +killed by SIGSEGV( \(its report\))?'
check py-line '^  python: +.*job_reaped\.py:12 in work'
# the leader is listed by its own command line, never by ours (it was
# read before its exec when it ended before the next poll)
check_not leader-not-us 'cudbg-tui --batch'
timeout 60 "$BIN" --json --job "$PY" tests/data/job_reaped.py >"$out" 2>&1
check py-json '"state": ?"signalled", ?"exit_code": ?null, ?"signal": ?"SIGSEGV", ?"stopped_by_us": ?false, ?"death_from_report": ?(true|false)'

# 3. A launcher that reaps its worker and names its death the way
#    torchrun's failure table does ("exitcode  : -11 (pid: N)"): the
#    worker's status went to the launcher, its death is still seen, from
#    the launcher's words on the job's stderr.
cat > "${TMPDIR:-/tmp}/job_launcher_$$.sh" <<'SHEOF'
sh -c 'sleep 0.3; kill -SEGV $$' &
p=$!
wait $p
st=$?
echo "  exitcode  : -$((st - 128)) (pid: $p)" >&2
exit 1
SHEOF
timeout 60 "$BIN" --batch --job sh "${TMPDIR:-/tmp}/job_launcher_$$.sh" >"$out" 2>&1
check launcher-named '^  > [0-9]+ +[0-9]+ +- +killed by SIGSEGV( \(its launcher.s report\))? +sh -c'
check launcher-faulted '^ +[0-9]+ processes, 1 faulted'
check_not launcher-unseen 'ended, status unseen +sh -c'
rm -f "${TMPDIR:-/tmp}/job_launcher_$$.sh"
