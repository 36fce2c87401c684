# Sourced (never run) by the shell tests that drive the real binary on a
# pty or in batch mode: escapes.sh, faults.sh, files.sh.  It lives in a
# folder of its own because tests/run.sh runs every tests/sh/*.sh.
#
# Before sourcing, set SUITE (the name before the slash in PASS/FAIL
# lines) and EVIDENCE (what fail shows, below).  It gives: the paths
# (ROOT BIN BUILD FIX PTY HP FAKE FAKESAN), need_built, a private $tmp
# (removed at exit) holding the HOME the binary sees, an environment with
# none of the user's settings, HAVE_GDB, wait_for and ended, pass and fail
# with the `fails` counter.
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
FIX=${CUDBG_FIXTURES:-$ROOT/../shared/fixtures}
PTY=$BUILD/progs/ptyrun
HP=$BUILD/progs/harden_prog
FAKE=$ROOT/tests/data/fake-debugger
FAKESAN=$ROOT/tests/data/fake-compute-sanitizer

# wait_for TENTHS CMD...: runs CMD every 0.1 s until it succeeds or TENTHS
# tries have failed; the status is CMD's last.
wait_for() {
	_n=$1
	shift
	while ! "$@"; do
		_n=$((_n - 1))
		[ $_n -gt 0 ] || return 1
		sleep 0.1
	done
}
# ended PID: the process is gone (for wait_for).
ended() { ! kill -0 "$1" 2>/dev/null; }

# need_built PROG...: the suite cannot run without these (built by
# `make check-build`); one FAIL line and out.
need_built() {
	for f in "$@"; do
		if [ ! -x "$f" ]; then
			echo "FAIL $SUITE/setup: $f is not built"
			exit 1
		fi
	done
}

# The binary must behave the same whoever runs the suite: no config,
# history, colour choice or test script of the user's leaks in.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/home"
export HOME="$tmp/home" CUDBG_HISTORY= TERM=xterm-256color
unset NO_COLOR CUDBG_TEST_SCRIPT XDG_CONFIG_HOME XDG_STATE_HOME || true
export CUDBG_CONFIG=
HAVE_GDB=0
command -v gdb >/dev/null 2>&1 && HAVE_GDB=1

. "$ROOT/tests/sh/lib/reports.sh" # keep_report

fails=0
pass() { echo "PASS $SUITE/$1"; }
# fail CASE WHY: a FAIL line, counted, then the evidence the case left:
# for each SUFFIX:LINES in EVIDENCE, the first LINES of $tmp/CASE.SUFFIX.
fail() {
	echo "FAIL $SUITE/$1: $2"
	fails=$((fails + 1))
	for _ev in $EVIDENCE; do
		[ -s "$tmp/$1.${_ev%%:*}" ] &&
			sed 's/^/    /' "$tmp/$1.${_ev%%:*}" | head -"${_ev#*:}"
	done
	return 0
}
