#!/bin/sh
# Smoke tests in a real terminal through tmux (private socket): key
# decoding (F-keys, arrows, PgDn), readline editing and history, the help
# overlay, resizing, NO_COLOR, and the terminal restored on quit and on a
# crash.  Waits poll capture-pane with a bound; no bare sleeps.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
PROG=$BUILD/progs/screen_demo
for need in tmux gdb; do
	if ! command -v $need >/dev/null 2>&1; then
		echo "SKIP tmux/smoke: $need is not installed"
		exit 0
	fi
done
if [ ! -x "$PROG" ]; then
	echo "FAIL tmux/smoke: $PROG is not built"
	exit 1
fi
dir=$(mktemp -d)
SOCK="cudbg-smoke-$$"
tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/home"
fails=0

pass() { echo "PASS tmux/$1"; }
fail() {
	echo "FAIL tmux/$1: $2"
	echo "--- screen of $3 ---"
	tm capture-pane -p -t "$3" 2>/dev/null | sed 's/^/    /'
	fails=$((fails + 1))
}

# wait_for SESSION TEXT [TRIES]: polls the screen, 0.1 s apart, bounded.
wait_for() {
	n=${3:-150}
	while [ "$n" -gt 0 ]; do
		if tm capture-pane -p -t "$1" 2>/dev/null | grep -qF -- "$2"; then
			return 0
		fi
		n=$((n - 1))
		sleep 0.1
	done
	return 1
}

# wait_file FILE: until the file exists (the pane's shell wrote it).
wait_file() {
	n=150
	while [ "$n" -gt 0 ] && [ ! -s "$1" ]; do
		n=$((n - 1))
		sleep 0.1
	done
	[ -s "$1" ]
}

# start NAME ENV...: cudbg-tui on the demo program in a 100x30 window;
# after it exits the shell records its status and the tty modes.
start() {
	name=$1
	shift
	tm new-session -d -x 100 -y 30 -s "$name" \
		"env HOME=$dir/home CUDBG_HISTORY=$dir/history-$name $* \
		 $BIN --no-run --debugger gdb $PROG; echo \$? > $dir/status-$name; \
		 stty -a > $dir/stty-$name; cat"
	tm set-option -t "$name" remain-on-exit on >/dev/null
}

keys() { # session keys...
	s=$1
	shift
	tm send-keys -t "$s" "$@"
}

# ---- stepping with F-keys, arrows, PgDn ----
start main
if ! wait_for main "not started"; then
	fail keys "the screen did not come up" main
else
	keys main : 'break main' Enter
	wait_for main "Breakpoint 1 at" || fail keys "break main in the console" main
	keys main Escape r
	if wait_for main "▶ 13"; then pass run-to-breakpoint; else fail run-to-breakpoint "no stop at line 13" main; fi
	keys main F10
	wait_for main "▶ 14" || fail keys "F10 (next)" main
	keys main F10
	wait_for main "▶ 16" || fail keys "F10 again" main
	keys main F10
	wait_for main "▶ 17" || fail keys "F10 to 17" main
	keys main F11
	if wait_for main "▶  7"; then pass f-keys; else fail f-keys "F11 (step) into square" main; fi
	keys main Up Up
	if wait_for main "screen_demo.c:5"; then pass arrows; else fail arrows "Up moved no cursor" main; fi
	keys main End
	wait_for main "screen_demo.c:22" || fail arrows "End" main
	keys main F1
	if wait_for main "Global keys"; then pass help-overlay; else fail help-overlay "F1 shows no help" main; fi
	keys main Escape
	keys main Up F9
	if wait_for main "●  21"; then pass f9-breakpoint; else fail f9-breakpoint "F9 set no breakpoint on line 21" main; fi
	keys main F5
	if wait_for main "●▶ 21"; then pass f5-continue; else fail f5-continue "F5 did not run to line 21" main; fi
fi

# ---- readline editing and history in the console ----
keys main :
keys main 'rint 6*7' Home p End Enter
if wait_for main '= 42'; then pass readline-home-end; else fail readline-home-end "print 6*7 gave no 42" main; fi
keys main 'print 21' Left '*2' Enter
if wait_for main 'print 2*21' && wait_for main '$2 = 42'; then
	pass readline-left
else
	fail readline-left "print 2*21 gave no \$2 = 42" main
fi
keys main Up Up Enter
if wait_for main '$3 = 42'; then pass readline-history; else fail readline-history "Up Up Enter did not rerun" main; fi
keys main C-r '6*' Enter
if wait_for main '$4 = 42'; then pass readline-search; else fail readline-search "C-r did not find print 6*7" main; fi
keys main Escape

# ---- resizing ----
tm resize-window -t main -x 60 -y 16
if wait_for main "▶[Source]" && ! tm capture-pane -p -t main | grep -q "Program output"; then
	pass resize-small
else
	fail resize-small "60x16 does not show one area" main
fi
tm resize-window -t main -x 30 -y 8
if wait_for main "too small"; then pass resize-too-small; else fail resize-too-small "no message at 30x8" main; fi
tm resize-window -t main -x 100 -y 30
if wait_for main "Program output"; then pass resize-back; else fail resize-back "100x30 did not come back" main; fi

# ---- colours ----
if tm capture-pane -e -p -t main | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m"; then
	pass colours
else
	fail colours "no colour in the default run" main
fi

# ---- quit asks, and the terminal comes back ----
keys main q
wait_for main "Quit, and kill it?" || fail quit "q did not ask" main
keys main y
if wait_file "$dir/stty-main" && grep -q ' icanon' "$dir/stty-main" &&
	grep -q ' echo ' "$dir/stty-main" && [ "$(cat "$dir/status-main")" = 0 ]; then
	pass quit-restores-terminal
else
	fail quit-restores-terminal "status $(cat "$dir/status-main" 2>/dev/null), tty: $(grep -o -- '-\?icanon\|-\?echo ' "$dir/stty-main" 2>/dev/null | tr '\n' ' ')" main
fi
if grep -q 'print 6\*7' "$dir/history-main" 2>/dev/null; then
	pass history-file
else
	fail history-file "the console history was not written" main
fi

# ---- NO_COLOR ----
start mono NO_COLOR=1
if wait_for mono "not started" && ! tm capture-pane -e -p -t mono | grep -q "$(printf '\033')\[[0-9;]*3[0-7]m"; then
	pass no-color
else
	fail no-color "colour codes under NO_COLOR" mono
fi

# ---- a crash restores the terminal too ----
pid=$(tm list-panes -t mono -F '#{pane_pid}')
tui=$(pgrep -P "$pid" -x cudbg-tui | head -1)
# It dies of the signal (139; an ASan build reports and exits 1) with the
# terminal back in its normal modes.
if [ -n "$tui" ] && kill -SEGV "$tui" && wait_file "$dir/stty-mono" &&
	grep -q ' icanon' "$dir/stty-mono" && [ "$(cat "$dir/status-mono")" != 0 ]; then
	pass crash-restores-terminal
else
	fail crash-restores-terminal "status $(cat "$dir/status-mono" 2>/dev/null)" mono
fi

# ---- C-l repaints a terminal something else wrote over (issue 13, item 8):
# bytes written to the pane's tty stay until C-l, which draws it all again
start redraw
if ! wait_for redraw "not started"; then
	fail redraw "the screen did not come up" redraw
else
	tty=$(tm display-message -p -t redraw '#{pane_tty}')
	printf '\033[5;5HSTRAY-WRITE-XYZ' >"$tty"
	if ! wait_for redraw "STRAY-WRITE-XYZ" 30; then
		fail redraw "the stray text never showed" redraw
	else
		keys redraw C-l
		n=50
		while [ $n -gt 0 ] && tm capture-pane -p -t redraw | grep -qF STRAY-WRITE-XYZ; do
			n=$((n - 1))
			sleep 0.1
		done
		if [ $n -gt 0 ] && wait_for redraw "not started"; then
			pass redraw
		else
			fail redraw "C-l left the stray text" redraw
		fi
	fi
	keys redraw q
fi

# ---- the debugger killed: the screen says so; SIGTERM ends it cleanly ----
start term
if wait_for term "not started"; then
	pid=$(tm list-panes -t term -F '#{pane_pid}')
	tui=$(pgrep -P "$pid" -x cudbg-tui | head -1)
	dbg=$(pgrep -P "$tui" | head -1)
	if [ -n "$dbg" ] && kill -KILL "$dbg" && wait_for term "debugger gone"; then
		pass debugger-gone
	else
		fail debugger-gone "no 'debugger gone' on the status line" term
	fi
	if kill -TERM "$tui" && wait_file "$dir/stty-term" && grep -q ' icanon' "$dir/stty-term" &&
		[ "$(cat "$dir/status-term")" = 143 ]; then
		pass sigterm-restores-terminal
	else
		fail sigterm-restores-terminal "status $(cat "$dir/status-term" 2>/dev/null)" term
	fi
else
	fail debugger-gone "the screen did not come up" term
fi

[ $fails -eq 0 ]
