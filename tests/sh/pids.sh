#!/bin/sh
# Process ids from the debugger are never signalled as they are (issue 33
# item 1): a fake debugger announces the program's pid as a hostile number
# (an overflow that atol() once turned into pid_t -1, hence kill(-1,
# SIGKILL)), as a real process it never started, or as junk.  Each case
# runs inside a PID namespace of its own (unshare --pid --fork
# --mount-proc), so the unfixed bug kills only that namespace, with a
# sentinel process beside cudbg-tui that must survive the session.
set -u
SUITE=pids EVIDENCE="res:20 err:10"
. "$(dirname "$0")/lib/harness.sh"
need_built "$HP"

if ! unshare --pid --fork --mount-proc true 2>/dev/null; then
	# no namespace: the hostile numbers would hit the real machine
	echo "SKIP pids/all: unshare --pid --fork --mount-proc is not allowed here"
	exit 0
fi

# in_namespace CASE PIDVAL JOB: cudbg-tui in batch mode in a PID
# namespace of its own, with a sentinel started first beside it; JOB
# empty: under a fake debugger that says PIDVAL ("sentinel": the
# sentinel's own pid); JOB=job: a --job whose coredump file is named after
# the sentinel.  CASE.res gets "sentinel=alive|dead" and "rc=N".
in_namespace() {
	unshare --pid --fork --mount-proc env BIN="$BIN" FAKE="$FAKE" HP="$HP" \
		PIDVAL="$2" JOB="$3" OUT="$tmp/$1" sh -c '
		sleep 300 &
		s=$!
		[ "$PIDVAL" = sentinel ] && PIDVAL=$s
		if [ "$JOB" = job ]; then
			SENTINEL=$s timeout -k 2 60 "$BIN" --batch --timeout 2 \
				--job sh -c "d=\${CUDA_COREDUMP_FILE%/*}; echo x >\"\$d/core.\$SENTINEL\"; sleep 30"
		else
			FAKE_DBG_PID=$PIDVAL timeout -k 2 60 "$BIN" --batch \
				--debugger "$FAKE" "$HP" sleep
		fi >"$OUT.out" 2>"$OUT.err" </dev/null
		rc=$?
		if kill -0 $s 2>/dev/null; then echo sentinel=alive
		else echo sentinel=dead; fi
		echo rc=$rc
		kill $s 2>/dev/null
		exit 0' >"$tmp/$1.res" 2>&1
}

check_case() { # CASE PID: the sentinel lives, the session ends normally
	in_namespace "$1" "$2" ""
	if ! grep -q '^sentinel=alive$' "$tmp/$1.res"; then
		fail "$1" "the sentinel was killed (pid \"$2\")"
	elif grep -q '^rc=124$\|^rc=137$' "$tmp/$1.res"; then
		fail "$1" "the session hung"
	else
		pass "$1"
	fi
}

check_case pid_overflow_32 4294967295
check_case pid_overflow_20_digits 99999999999999999999
check_case pid_minus_one -1
check_case pid_zero 0
check_case pid_not_a_number 12abc
check_case pid_above_pid_max 4194305
# a real, live process that the debugger did not start: not ours to kill
check_case pid_of_a_process_not_started_by_the_debugger sentinel

# A --job's coredump directory is written by the job itself: a file named
# core.PID there names a process, but only a process seen running as the
# job's descendant is ever signalled when the job is stopped (here by
# --timeout), never one a file name claims.
c=job_core_name_of_a_process_not_in_the_job
in_namespace $c '' job
if ! grep -q '^sentinel=alive$' "$tmp/$c.res"; then
	fail $c "the sentinel named by a coredump's file name was killed"
elif grep -q '^rc=124$\|^rc=137$' "$tmp/$c.res"; then
	fail $c "the job was not stopped at its --timeout"
else
	pass $c
fi

exit $fails
