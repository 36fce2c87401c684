#!/bin/bash
# Issue 11's speed target, per program: the time from start to the end of
# cudbg-tui's live diagnosis (--batch --memcheck=never: the Python line,
# the operator and the bad value) against the program's plain run with
# CUDA_LAUNCH_BLOCKING=1 (which prints the traceback and nothing else),
# one run at a time.  PYSPEED_ALL="NAME..." also times those with
# --all-host-symbols (every library's symbols read as it loads).
# Prints "NAME plain=S live=S ratio=R [all=S ratio_all=R]" lines.
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
for n in "$@"; do
	cp "$ROOT/tests/gpu/$n.py" "$SRC/"
	cd "$SRC" || exit 2
	p=$(secs env CUDA_LAUNCH_BLOCKING=1 timeout 180 python3 "$n.py")
	l=$(secs timeout 300 "$BIN" --batch --memcheck=never python3 "$n.py")
	line="$n plain=$p live=$l ratio=$(awk -v a="$l" -v b="$p" 'BEGIN { printf "%.2f", a / b }')"
	case " ${PYSPEED_ALL-} " in *" $n "*)
		a=$(secs timeout 300 "$BIN" --batch --memcheck=never --all-host-symbols python3 "$n.py")
		line="$line all=$a ratio_all=$(awk -v a="$a" -v b="$p" 'BEGIN { printf "%.2f", a / b }')" ;;
	esac
	echo "$line"
	cd - >/dev/null || exit 2
done
