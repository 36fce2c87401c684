#!/bin/sh
# C-z and kill -TSTP suspend the screen to the shell as vim does (issue 33
# item 5): in a real terminal (tmux) under an interactive shell with job
# control, the shell reports the job stopped and its prompt is usable with
# the terminal restored (canonical mode and echo back on); `fg` brings the
# screen back whole; `q` then ends cleanly.  Waits poll capture-pane with a
# bound; no bare sleeps.  (CUDBG_REAL_GDB passes through the clean
# environment: tests/run.sh's gdb wrapper needs it.)
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
PROG=$BUILD/progs/screen_demo
if [ "${CUDBG_UNDER_VALGRIND:-0}" = 1 ]; then
	echo "SKIP suspend/all: under valgrind the re-raised SIGTSTP leaves the screen up, no stopped job (the plain and asan passes judge it)"
	exit 0
fi
for need in tmux gdb bash; do
	if ! command -v $need >/dev/null 2>&1; then
		echo "SKIP suspend/all: $need is not installed"
		exit 0
	fi
done
dir=$(mktemp -d)
SOCK="cudbg-suspend-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/home"
fails=0
pass() { echo "PASS suspend/$1"; }
fail() {
	echo "FAIL suspend/$1: $2"
	tm capture-pane -p -t "$3" 2>/dev/null | sed 's/^/    /'
	fails=$((fails + 1))
}

# wait_for SESSION TEXT: polls the screen, 0.1 s apart, at most 15 s.
wait_for() {
	n=150
	while [ "$n" -gt 0 ]; do
		tm capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2" && return 0
		n=$((n - 1))
		sleep 0.1
	done
	return 1
}
# the screen no longer shows TEXT
wait_gone() {
	n=150
	while [ "$n" -gt 0 ]; do
		tm capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2" || return 0
		n=$((n - 1))
		sleep 0.1
	done
	return 1
}

# A shell with job control in a 100x30 window; cudbg-tui started from it.
start() {
	tm new-session -d -x 100 -y 30 -s "$1" \
		"env -i PATH=$PATH CUDBG_REAL_GDB=${CUDBG_REAL_GDB:-} HOME=$dir/home TERM=xterm-256color PS1='sh\$ ' bash --norc --noprofile -i"
	wait_for "$1" 'sh$' || return 1
	tm send-keys -t "$1" "$BIN --no-run --debugger gdb $PROG" Enter
	wait_for "$1" "not started"
}

# suspend CASE HOW: HOW is ckey (C-z typed) or signal (kill -TSTP from
# outside); then the shell, its tty modes, fg, the screen back, q.
suspend_case() {
	c=$1 how=$2
	if ! start "$c"; then
		fail "$c" "the screen did not come up" "$c"
		return
	fi
	if [ "$how" = ckey ]; then
		tm send-keys -t "$c" C-z
	else
		# the shell's own child: the newest process of that command
		# line could be one cudbg-tui forked (to start gdb) and not
		# yet exec'd, which a TSTP does not stop (the ASan pass failed
		# so once)
		sh_pid=$(tm list-panes -t "$c" -F '#{pane_pid}' | head -1)
		pid=$(pgrep -P "$sh_pid" -f "^$BIN --no-run --debugger gdb $PROG")
		kill -TSTP "$pid"
	fi
	if ! wait_for "$c" "Stopped" || ! wait_gone "$c" "not started"; then
		fail "$c" "no stopped job at the shell, or the screen stayed" "$c"
		return
	fi
	tm send-keys -t "$c" "stty -a | tr ' ' '\\n' | grep -x -e icanon -e echo | tr '\\n' , > $dir/$c.stty" Enter
	n=50
	while [ $n -gt 0 ] && [ ! -s "$dir/$c.stty" ]; do n=$((n - 1)); sleep 0.1; done
	if [ "$(cat "$dir/$c.stty" 2>/dev/null)" != "icanon,echo," ]; then
		fail "$c" "the terminal was not restored while suspended: $(cat "$dir/$c.stty" 2>/dev/null)" "$c"
		return
	fi
	tm send-keys -t "$c" fg Enter
	if ! wait_for "$c" "not started"; then
		fail "$c" "fg did not bring the screen back" "$c"
		return
	fi
	# the screen takes keys again: the help overlay opens and closes
	tm send-keys -t "$c" '?'
	if ! wait_for "$c" "Global keys"; then
		fail "$c" "no keys after fg" "$c"
		return
	fi
	tm send-keys -t "$c" Escape q
	tm send-keys -t "$c" "echo status=\$?" Enter
	if ! wait_for "$c" "status=0"; then
		fail "$c" "no clean end after resuming" "$c"
		return
	fi
	pass "$c"
}

suspend_case ctrl_z ckey
suspend_case kill_tstp signal
exit $fails
