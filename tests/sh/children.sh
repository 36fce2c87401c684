#!/bin/sh
# A process the program started that dies of a fatal signal is seen in
# the default live mode (issue 29 item 6): real gdb on
# tests/progs/silent_reap.c, whose parent reaps its workers without a
# word.  The death reporter (preload/death.c) in the program's
# environment writes each death; the report names the worker (pid,
# command, signal), first among the hints, in the text and the JSON; the
# program itself is no child of its own; a clean run names none; and
# past the reporter (a static parent, the raw wait4) the kernel's process
# events name the worker.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
PROG=${CUDBG_BUILD:-$ROOT/build}/progs/silent_reap
command -v gdb >/dev/null 2>&1 || { echo "SKIP children/all: gdb not installed"; exit 0; }
# (under make valgrind BIN is a wrapper; the binary is CUDBG_REAL_BIN)
REAL=${CUDBG_REAL_BIN:-$BIN}
[ -r "$(dirname "$REAL")/libcudbg-death.so" ] ||
	{ echo "FAIL children/all: no libcudbg-death.so beside $REAL (make)"; exit 1; }
fails=0
pass() { echo "PASS children/$1"; }
fail() { echo "FAIL children/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# worker MODE HINT-TITLE NOTE-VERB NOT-ID: the run's first hint, the
# note that names the worker, and a hint it must not have.
worker() {
	timeout 60 "$BIN" --batch --debugger gdb "$PROG" "$1" \
		>"$tmp/$1.txt" 2>&1 </dev/null
	if ! grep -q "^\[1\] $2" "$tmp/$1.txt"; then
		fail "$1-hint" "not first: $2: $(grep -m1 '^\[1\]' "$tmp/$1.txt")"
	elif ! grep -q "^  - A process the program started $3: pid [0-9]*" "$tmp/$1.txt"; then
		fail "$1-note" "the worker is not named: $(grep 'A process the' "$tmp/$1.txt")"
	elif grep -q "($4)" "$tmp/$1.txt"; then
		fail "$1-other" "$4 too: $(grep "($4)" "$tmp/$1.txt")"
	else
		pass "$1"
	fi
}
for mode in fork exec; do
	worker $mode 'A process the program started died of SIGSEGV.*(job-child-died)$' \
		'died of SIGSEGV' job-child-killed
done
# A worker killed by SIGKILL (the OOM killer's signal) runs no handler:
# the parent's wait writes its death, and the hint is the kill's own
# (the kernel's log), not a fault's.
for mode in kill exec-kill system-kill; do
	worker $mode 'A process the program started was killed by SIGKILL: look for the out-of-memory killer  (job-child-killed)$' \
		'was killed by SIGKILL' job-child-died
done
# A parent that waits for ever once a worker died (a Pool waiting for
# the lost result, a collective whose rank is gone): at the hang the
# death is the first hint, the wait's own hint after it.  (A worker
# killed by SIGKILL is named by its parent's wait: its comm, or its
# command line where that was still readable.)
hang_worker() { # MODE ID
	timeout 60 "$BIN" --batch --timeout 3 --debugger gdb "$PROG" "$1" wait \
		>"$tmp/$1-wait.txt" 2>&1 </dev/null
	if ! grep -q "^\[1\] The program waits, and a process it started .*($2)\$" "$tmp/$1-wait.txt"; then
		fail "$1-wait" "not first: $2: $(grep -m1 '^\[1\]' "$tmp/$1-wait.txt")"
	elif ! grep -q '^\[2\] .*(hang-running-host)$' "$tmp/$1-wait.txt"; then
		fail "$1-wait-hang" "the hang's hint is not second: $(grep '^\[2\]' "$tmp/$1-wait.txt")"
	elif ! tr -s ' \n' '  ' <"$tmp/$1-wait.txt" |
		grep -q "had not ended, and process [0-9]* ([^)]*silent_reap\( $1 wait\)\?), which it started, had"; then
		fail "$1-wait-worker" "the worker is not named: $(grep -A2 '^\[1\]' "$tmp/$1-wait.txt")"
	else
		pass "$1-wait"
	fi
}
hang_worker fork hang-child-died
hang_worker kill hang-child-killed
# the exec'ed shell is named as what it became (its comm, or its whole
# command line when read after the exec), never as the parent it was
# ([$][$]: a "$" before "\)" would anchor, not match the text)
if ! grep -q 'killed by SIGKILL: pid [0-9]* (sh\( -c kill -KILL [$][$]\)\?)' "$tmp/exec-kill.txt"; then
	fail exec-kill-command "$(grep 'killed by SIGKILL: pid' "$tmp/exec-kill.txt")"
else
	pass exec-kill-command
fi
# system()'s shell: named by the command system() was given
if ! grep -q 'killed by SIGKILL: pid [0-9]* (sh -c kill -KILL [$][$])' "$tmp/system-kill.txt"; then
	fail system-kill-command "$(grep 'killed by SIGKILL: pid' "$tmp/system-kill.txt")"
else
	pass system-kill-command
fi
timeout 60 "$BIN" --batch --json --debugger gdb "$PROG" fork >"$tmp/j" 2>/dev/null </dev/null
timeout 60 "$BIN" --batch --json --debugger gdb "$PROG" clean >"$tmp/c" 2>/dev/null </dev/null
if python3 - "$tmp/j" "$tmp/c" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
c = d["child_deaths"]
assert len(c) == 1 and c[0]["signal"] == "SIGSEGV", c
assert c[0]["command"].endswith("silent_reap fork"), c
assert "child-died" in d["facts"], d["facts"]
clean = json.load(open(sys.argv[2]))["diagnosis"]
assert clean["child_deaths"] == [] and "child-died" not in clean["facts"], clean["child_deaths"]
PY
then
	pass json
else
	fail json "the JSON's child_deaths is not right"
fi
# The recording holds the death (a "childdeath|" note): its replay names
# the same worker, pid and all, in the same report, as the live run did.
timeout 60 "$BIN" --batch --debugger gdb --record "$tmp/r.mi.log" "$PROG" fork \
	>"$tmp/live.txt" 2>&1 </dev/null
timeout 60 "$BIN" --batch --replay "$tmp/r.mi.log" >"$tmp/replay.txt" 2>&1 </dev/null
# (the whole report but its mode and program lines: the recording holds
# the user's command line too, "program|" notes, which the run step names)
grep -v '^ *mode \|^mode:\|^program:' "$tmp/live.txt" >"$tmp/live.hints"
grep -v '^ *mode \|^mode:\|^program:' "$tmp/replay.txt" >"$tmp/replay.hints"
if ! grep -q '# childdeath| [0-9]* 11 .*silent_reap fork$' "$tmp/r.mi.log"; then
	fail replay "no childdeath note in the recording: $(grep -c '^#' "$tmp/r.mi.log") notes"
elif ! grep -q '(job-child-died)$' "$tmp/replay.hints"; then
	fail replay "the replay names no dead child: $(grep -m1 '^\[1\]' "$tmp/replay.txt")"
elif ! cmp -s "$tmp/live.hints" "$tmp/replay.hints"; then
	fail replay "the replay's report differs: $(diff "$tmp/live.hints" "$tmp/replay.hints" | head -4)"
else
	pass replay
fi
# A parent no reporter can be loaded into (static), or one that reaps by
# the raw wait4: its worker's death is the kernel's process events' to
# see (diag/procev.c), where this machine lets us listen; without them
# (CUDBG_NO_PROC_EVENTS=1, as a user without CAP_NET_ADMIN) nothing is
# claimed.  Each is named with its command line (a fork's is its
# parent's; an exec'ed shell's is what /proc held, if it lived so long).
STATIC=${CUDBG_BUILD:-$ROOT/build}/progs/silent_reap_static
# first_hint NAME FILE PATTERN: the report's first hint matches PATTERN
first_hint() {
	if grep -q "^\[1\] $3" "$2"; then
		pass "$1"
	else
		fail "$1" "$(grep -m1 '^\[1\]' "$2")"
	fi
}
timeout 60 "$BIN" --batch --debugger gdb "$STATIC" fork >"$tmp/sfork.txt" 2>&1 </dev/null
timeout 60 "$BIN" --batch --debugger gdb "$STATIC" kill >"$tmp/skill.txt" 2>&1 </dev/null
timeout 60 "$BIN" --batch --debugger gdb "$PROG" exec raw >"$tmp/raw.txt" 2>&1 </dev/null
CUDBG_NO_PROC_EVENTS=1 timeout 60 "$BIN" --batch --debugger gdb \
	--record "$tmp/soff.mi.log" "$STATIC" fork >"$tmp/soff.txt" 2>&1 </dev/null
if ! timeout 60 "$BIN" --batch --job "$STATIC" kill 2>&1 | grep -q '^  not heard: '; then
	if ! grep -q '^\[1\] A process the program started died of SIGSEGV.*(job-child-died)$' "$tmp/sfork.txt" ||
	   ! tr '\n' ' ' <"$tmp/sfork.txt" | grep -q 'died of SIGSEGV: pid [0-9]* *(.*/progs/silent_reap_static fork)'; then
		fail static-fork "$(grep -m1 -A1 'A process the program' "$tmp/sfork.txt")"
	else
		pass static-fork
	fi
	first_hint static-kill "$tmp/skill.txt" \
		'A process the program started was killed by SIGKILL.*(job-child-killed)$'
	timeout 60 "$BIN" --batch --debugger gdb "$STATIC" thread >"$tmp/sthread.txt" 2>&1 </dev/null
	# (its main() called pthread_exit: the thread left dies of SIGSEGV)
	first_hint static-thread "$tmp/sthread.txt" \
		'A process the program started died of SIGSEGV.*(job-child-died)$'
	first_hint raw-wait "$tmp/raw.txt" \
		'A process the program started died of SIGSEGV.*(job-child-died)$'
else
	echo "note: the kernel's process events are not heard here: the static and raw cases are checked without them only"
fi
if grep -q 'A process the program started\|(job-child-' "$tmp/soff.txt"; then
	fail static-unheard "a death claimed without the events: $(grep -m1 'A process' "$tmp/soff.txt")"
else
	pass static-unheard
fi
# ... but it says that a death could have gone unseen, and why (a
# program that forked and failed), in its replay too: after the failure
# itself, being a possibility, not a finding
if grep -q '^\[1\] The program failed without a device error  (exit-failed)$' "$tmp/soff.txt" &&
   grep -q '^\[2\] The program started other processes, and a death among them may be unseen: .*(job-children-unheard)$' "$tmp/soff.txt"; then
	pass static-unheard-said
else
	fail static-unheard-said "$(grep '^\[[0-9]\]' "$tmp/soff.txt" | head -3)"
fi
if grep -q 'not heard here (turned off by CUDBG_NO_PROC_EVENTS=1)' "$tmp/soff.txt"; then
	pass static-unheard-why
else
	fail static-unheard-why "$(grep -m1 -A3 'What happened' "$tmp/soff.txt")"
fi
timeout 60 "$BIN" --batch --json --replay "$tmp/soff.mi.log" >"$tmp/soff.json" 2>&1 </dev/null
if python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['diagnosis']
assert d['child_events_off'] == 'turned off by CUDBG_NO_PROC_EVENTS=1', d['child_events_off']
assert 'children-unheard' in d['facts'] and [h['id'] for h in d['hints']][:2] == ['exit-failed', 'job-children-unheard'], d['hints']
" "$tmp/soff.json" 2>"$tmp/soff.err"; then
	pass static-unheard-replay
else
	fail static-unheard-replay "$(tail -1 "$tmp/soff.err")"
fi
# a program that started nothing says nothing of it
CUDBG_NO_PROC_EVENTS=1 timeout 60 "$BIN" --batch --debugger gdb --json \
	/bin/false >"$tmp/false.json" 2>&1 </dev/null
if python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))['diagnosis']
assert d['child_events_off'] is None and 'children-unheard' not in d['facts'], d['facts']
" "$tmp/false.json" 2>"$tmp/false.err"; then
	pass unheard-not-without-fork
else
	fail unheard-not-without-fork "$(tail -1 "$tmp/false.err")"
fi
exit $fails
