#!/bin/sh
# --batch --memcheck=always starts the debugger before the memcheck pass
# (docs/architecture.md, "The debugger started before the pass"): its
# start-up overlaps the pass, and when the pass ends only the coredump is
# left to open in it.  Real gdb (under the name cuda-gdb, which batch mode
# needs before it opens a pass's core) with a CPU core file of
# tests/progs/steps, and the fake sanitizer of the tests, which copies
# that core as the pass's coredump and waits (FAKE_SAN_WAITFOR/WAITGREP)
# until the debugger's recording shows it answered its start sequence:
# proof that the debugger was up while the pass still ran.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
PROG=${CUDBG_BUILD:-$ROOT/build}/progs/steps
FIX=${CUDBG_FIXTURES:-$ROOT/tests/shared/fixtures}
FAKESAN=$ROOT/tests/data/fake-compute-sanitizer
command -v gdb >/dev/null || { echo "SKIP prestart: gdb not installed"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
MARK="prestart$$"
pass() { echo "PASS prestart/$1"; }
fail() {
	echo "FAIL prestart/$1: $2"
	fails=$((fails + 1))
	for f in "$tmp/$1.out" "$tmp/$1.err" "$tmp/$1.san" "$tmp/$1.dbg"; do
		[ -s "$f" ] && sed 's/^/    /' "$f" | head -30
	done
	return 0
}

# A CPU core of steps, stopped in square(3).
gdb -nx -batch -ex 'break square' -ex run -ex "gcore $tmp/steps.core" \
	"$PROG" >"$tmp/gcore.log" 2>&1
if [ ! -s "$tmp/steps.core" ]; then
	echo "SKIP prestart: gdb could not write a core file (gcore)"
	exit 0
fi
mkdir "$tmp/bin"
cat >"$tmp/bin/cuda-gdb" <<'EOF'
#!/bin/sh
# gdb under cuda-gdb's name; every start is logged with its pid.
echo "start pid=$$" >>"$PRESTART_LOG"
exec gdb "$@"
EOF
chmod 755 "$tmp/bin/cuda-gdb"

# run CASE [batch options]: --batch --memcheck=always with the fake
# sanitizer and the gdb wrapper, recording to CASE.mi.log; the pass waits
# for the recording to show the answer to -gdb-version (command 2).
run() {
	c=$1
	shift
	env HARDEN_MARK="$MARK-$c" PRESTART_LOG="$tmp/$c.dbg" \
		FAKE_SAN_XML="$FIX/small_oob.sanitizer.xml" \
		FAKE_SAN_LOG="$tmp/$c.san" FAKE_SAN_WAITFOR="$tmp/$c.mi.log" \
		FAKE_SAN_WAITGREP='< 2^done' CUDBG_TIMING=1 \
		timeout -k 2 60 "$BIN" --batch --memcheck=always \
		--debugger "$tmp/bin/cuda-gdb" --sanitizer "$FAKESAN" \
		--record "$tmp/$c.mi.log" "$@" >"$tmp/$c.out" 2>"$tmp/$c.err" </dev/null
}

# line CASE PATTERN: number of the first recording line matching PATTERN
# (grep -F), or 0.
line() {
	n=$(grep -nF -- "$2" "$tmp/$1.mi.log" | head -1 | cut -d: -f1)
	echo "${n:-0}"
}

# in_order CASE P1 P2 P3...: each pattern's first line is after the one
# before.
in_order() {
	c=$1
	shift
	prev=0
	for p in "$@"; do
		n=$(line "$c" "$p")
		[ "$n" -gt "$prev" ] || return 1
		prev=$n
	done
}

# gone CASE: the debugger the case started has exited, and nothing that
# carries the case's marker is left.
gone() {
	pid=$(sed -n 's/^start pid=//p' "$tmp/$1.dbg" | head -1)
	n=50
	while [ $n -gt 0 ]; do
		left=$(grep -lzx "HARDEN_MARK=$MARK-$1" /proc/[0-9]*/environ 2>/dev/null)
		if [ -z "$left" ] && { [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; }; then
			return 0
		fi
		n=$((n - 1))
		sleep 0.1
	done
	for f in $left; do
		p=${f#/proc/}
		kill -KILL "${p%/environ}" 2>/dev/null
	done
	return 1
}

starts() { grep -c '^start pid=' "$tmp/$1.dbg" 2>/dev/null || echo 0; }

# ---- the pass writes a core: opened in the debugger started before -------

c=core_opened_in_prestarted_debugger
FAKE_SAN_CORE="$tmp/steps.core" run $c "$PROG"
rc=$?
timing=$(grep '^cudbg-tui timing:' "$tmp/$c.err")
ready=$(echo "$timing" | sed -n 's/.* debugger_ready=\([0-9.]*\).*/\1/p')
pend=$(echo "$timing" | sed -n 's/.* pass_end=\([0-9.]*\).*/\1/p')
if [ $rc -ne 1 ]; then
	fail $c "exit $rc, want 1 (the pass's finding)"
elif ! grep -q '^waitfor=seen$' "$tmp/$c.san"; then
	fail $c "the debugger had not answered its start sequence while the pass ran"
elif [ "$(starts $c)" -ne 1 ]; then
	fail $c "$(starts $c) debuggers started, want 1"
elif ! in_order $c '--args' '< 2^done' '# memcheck pass ended' \
	'-target-select core' '^connected'; then
	fail $c "the recording is not start, ready, pass end, core open"
elif grep -qF -- '-exec-run' "$tmp/$c.mi.log"; then
	fail $c "the program was run live as well"
elif ! grep -q '^mode: *core' "$tmp/$c.out" ||
     ! grep -q 'Coredump in square' "$tmp/$c.out" ||
     ! grep -q 'frame: *#0 square at .*steps.c:7' "$tmp/$c.out"; then
	fail $c "the report does not show the core"
elif [ -z "$ready" ] || [ -z "$pend" ] ||
     ! awk -v a="$ready" -v b="$pend" 'BEGIN { exit !(a < b) }' ||
     ! echo "$timing" | grep -q ' core=1$'; then
	fail $c "CUDBG_TIMING: '$timing'"
elif grep -qF -- '-cuda-info-kernels' "$tmp/$c.mi.log" ||
     [ "$(grep -cF -- '-stack-list-frames' "$tmp/$c.mi.log")" -ne 1 ]; then
	fail $c "the refresh after the core is not lean"
elif ! gone $c; then
	fail $c "the debugger or the pass was left behind"
else
	pass $c
fi

# ---- no core: the same debugger runs the program live --------------------

c=no_core_runs_live_in_same_debugger
FAKE_SAN_NOCORE=1 run $c "$PROG"
rc=$?
if [ $rc -ne 1 ]; then
	fail $c "exit $rc, want 1"
elif ! grep -q '^waitfor=seen$' "$tmp/$c.san" || [ "$(starts $c)" -ne 1 ]; then
	fail $c "not one debugger started before the pass ended"
elif ! in_order $c '< 2^done' '# memcheck pass ended' '-exec-run'; then
	fail $c "the recording is not start, pass end, run"
elif ! grep -q 'exited with code 7' "$tmp/$c.out" ||
     ! grep -q '^mode: *live' "$tmp/$c.out"; then
	fail $c "the report does not show the live run"
elif grep -qF 'target-select core' "$tmp/$c.mi.log"; then
	fail $c "a core was opened"
elif ! gone $c; then
	fail $c "the debugger or the program was left behind"
else
	pass $c
fi

# ---- a core the debugger refuses: the same debugger runs live instead ----

c=refused_core_falls_back_to_live
echo "not a core at all" >"$tmp/bad.core"
FAKE_SAN_CORE="$tmp/bad.core" run $c "$PROG"
rc=$?
if [ $rc -ne 1 ] || [ "$(starts $c)" -ne 1 ]; then
	fail $c "exit $rc, $(starts $c) debuggers"
elif ! in_order $c '# memcheck pass ended' 'target cudacore' 'Undefined target command' '-exec-run'; then
	fail $c "the recording is not pass end, refused core, run"
elif ! grep -q 'exited with code 7' "$tmp/$c.out"; then
	fail $c "the report does not show the live run"
elif ! grep -q "coredump did not open (.*cudacore.*); running the program live" \
	"$tmp/$c.err"; then
	fail $c "no word on stderr that the core did not open"
elif ! gone $c; then
	fail $c "the debugger or the program was left behind"
else
	pass $c
fi

# ---- a signal during the pass: the started debugger goes too -------------

c=signal_during_pass_ends_debugger
rm -f "$tmp/never"
env HARDEN_MARK="$MARK-$c" PRESTART_LOG="$tmp/$c.dbg" \
	FAKE_SAN_XML="$FIX/small_oob.sanitizer.xml" FAKE_SAN_LOG="$tmp/$c.san" \
	FAKE_SAN_WAITFOR="$tmp/never" \
	"$BIN" --batch --memcheck=always --debugger "$tmp/bin/cuda-gdb" \
	--sanitizer "$FAKESAN" --record "$tmp/$c.mi.log" "$PROG" \
	>"$tmp/$c.out" 2>"$tmp/$c.err" </dev/null &
pid=$!
n=100
while [ $n -gt 0 ] && ! grep -qF '< 2^done' "$tmp/$c.mi.log" 2>/dev/null; do
	sleep 0.1
	n=$((n - 1))
done
kill -TERM $pid
n=100
while kill -0 $pid 2>/dev/null && [ $n -gt 0 ]; do
	sleep 0.1
	n=$((n - 1))
done
wait $pid
rc=$?
if [ $rc -ne 2 ] || ! grep -q 'interrupted by signal 15 during the memcheck pass' \
	"$tmp/$c.err"; then
	kill -KILL $pid 2>/dev/null
	fail $c "exit $rc"
elif [ "$(starts $c)" -ne 1 ]; then
	fail $c "the debugger had not started during the pass"
elif ! gone $c; then
	fail $c "the debugger or the pass was left behind"
else
	pass $c
fi

exit $fails
