#!/bin/sh
# Keys typed ahead in a real terminal (tmux, private socket), with real
# gdb on a CPU program: 200 `n` sent in one burst complete 200 steps
# (they were refused while a step was in flight: 23-34 completed), each
# step is echoed as "(gdb) next" in the console.  Waits poll
# capture-pane with a bound; no bare sleeps.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
PROG=$BUILD/progs/typeahead
for need in tmux gdb; do
	if ! command -v $need >/dev/null 2>&1; then
		echo "SKIP typeahead/burst: $need is not installed"
		exit 0
	fi
done
if [ ! -x "$PROG" ]; then
	echo "FAIL typeahead/setup: $PROG is not built"
	exit 1
fi
dir=$(mktemp -d)
SOCK="cudbg-typeahead-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/home"
fails=0

pass() { echo "PASS typeahead/$1"; }
fail() {
	echo "FAIL typeahead/$1: $2"
	echo "--- screen ---"
	tm capture-pane -p -t main 2>/dev/null | sed 's/^/    /'
	fails=$((fails + 1))
}

# wait_for TEXT [TRIES]: polls the screen, 0.1 s apart, bounded.
wait_for() {
	n=${2:-300}
	while [ "$n" -gt 0 ]; do
		if tm capture-pane -p -t main 2>/dev/null | grep -qF -- "$1"; then
			return 0
		fi
		n=$((n - 1))
		sleep 0.1
	done
	return 1
}

tm new-session -d -x 120 -y 40 -s main \
	"env HOME=$dir/home CUDBG_HISTORY= CUDBG_CONFIG= $BIN -b main --debugger gdb $PROG; cat"
if ! wait_for "stopped: Breakpoint 1 in main"; then
	fail setup "no stop at main"
	exit 1
fi
# 200 n in one write to the terminal.
burst=$(printf '%200s' '' | tr ' ' n)
tm send-keys -t main -l "$burst"
# From `int sum = 0;` the 2k-th next is in the loop body with i = k - 1:
# the 200th stops at `sum += i;` with i = 99 and sum = 0+...+98 = 4851.
if ! wait_for "= 4851" 600; then
	fail burst-200-next "the Locals pane never shows sum = 4851"
fi
tm send-keys -t main : 'print i * 100000 + sum' Enter
if wait_for "= 9904851" 100; then
	pass burst-200-next
else
	fail burst-200-next "after 200 n, i * 100000 + sum is not 9904851"
fi
if tm capture-pane -p -t main | grep -qF "(gdb) next"; then
	pass echo-next
else
	fail echo-next "no (gdb) next in the console"
fi
tm send-keys -t main Escape q y
[ $fails -eq 0 ]
