#!/bin/bash
# Issue 11's speed target, per program: the time from start to the end of
# cudbg-tui's live diagnosis (--batch --memcheck=never: the Python line,
# the operator and the bad value) against the program's plain run with
# CUDA_LAUNCH_BLOCKING=1 (which prints the traceback and nothing else),
# one run at a time; and in the screen (tmux, 120x40), the time until
# the Hints pane shows the Python line (screen_line) and the operator
# (screen_op): the screen reads torch's CUDA library after the line.
# PYSPEED_ALL="NAME..." also times those with --all-host-symbols (every
# library's symbols read as it loads).  Prints "NAME plain=S live=S
# ratio=R screen_line=S ratio_line=R screen_op=S [all=S ratio_all=R]".
# Usage (on the GPU machine, repository root):
#   bash tests/gpu/pyspeed-table.sh torch_label torch_embedding ...
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
SRC=${SRC:-/src/gpu}
mkdir -p "$SRC"
secs() { # CMD...: wall seconds of CMD, its output dropped
	local t0=$EPOCHREALTIME
	"$@" >/dev/null 2>&1
	awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}
T="tmux -L pyspeed-$$"
# screen_times NAME: "LINE OP", seconds from start until the screen shows
# the Python line and the op row ("-" if not within about 60 s)
screen_times() {
	local n=$1 t0=$EPOCHREALTIME line=- op=- now i
	$T new-session -d -s s -x 120 -y 40 \
		"TERM=xterm-256color $BIN --memcheck=never python3 $n.py; sleep 600"
	for i in $(seq 1 600); do
		now=$($T capture-pane -p -t s 2>/dev/null)
		if [ "$line" = - ] && grep -q "python  $n\.py:" <<<"$now"; then
			line=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
		fi
		if [ "$op" = - ] && grep -q "^ op      " <<<"$now"; then
			op=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
		fi
		[ "$line" != - ] && [ "$op" != - ] && break
		sleep 0.1
	done
	$T kill-server 2>/dev/null
	pkill -9 -f "python3 $n.py" 2>/dev/null
	echo "$line $op"
}
for n in "$@"; do
	cp "$ROOT/tests/gpu/$n.py" "$SRC/"
	cd "$SRC" || exit 2
	p=$(secs env CUDA_LAUNCH_BLOCKING=1 timeout 180 python3 "$n.py")
	l=$(secs sh -c 'timeout 300 "$0" --batch --memcheck=never python3 "$1" > "$2"' \
		"$BIN" "$n.py" "/tmp/pyspeed-$n.txt")
	# what the timed report said: the operator and the Python line
	op=$(sed -n 's/^  operator   \([A-Za-z_]*\).*/\1/p' "/tmp/pyspeed-$n.txt" | head -1)
	py=$(sed -n "s/^  python     .*\($n\.py:[0-9]*\).*/\1/p" "/tmp/pyspeed-$n.txt" | head -1)
	line="$n plain=$p live=$l ratio=$(awk -v a="$l" -v b="$p" 'BEGIN { printf "%.2f", a / b }') op=${op:--} py=${py:--}"
	if command -v tmux >/dev/null; then
		read -r sl so <<<"$(screen_times "$n")"
		line="$line screen_line=$sl ratio_line=$(awk -v a="$sl" -v b="$p" 'BEGIN { if (a == "-") print "-"; else printf "%.2f", a / b }') screen_op=$so"
	fi
	case " ${PYSPEED_ALL-} " in *" $n "*)
		a=$(secs timeout 300 "$BIN" --batch --memcheck=never --all-host-symbols python3 "$n.py")
		line="$line all=$a ratio_all=$(awk -v a="$a" -v b="$p" 'BEGIN { printf "%.2f", a / b }')" ;;
	esac
	echo "$line"
	cd - >/dev/null || exit 2
done
