#!/bin/sh
# Peak RSS of a replay against the recording's inflated size (issue 32
# item 3: at most 0.3x), in batch and in the screen (the big_grid screen
# script), with GNU time.  Usage: sh tests/bench/replay_rss.sh [REC.gz]
set -u
BIN=${CUDBG_BIN:-build/cudbg-tui}
REC=${1:-${CUDBG_FIXTURES:-../shared/fixtures}/big_grid.mi.log.gz}
command -v /usr/bin/time >/dev/null || { echo "SKIP: GNU time not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
size=$(zcat -f "$REC" | wc -c)
rss() { # command...: peak RSS in bytes
	/usr/bin/time -f '%M' -o "$tmp/t" "$@" </dev/null >/dev/null 2>&1
	echo $(( $(tail -1 "$tmp/t") * 1024 ))
}
b=$(rss "$BIN" --batch --replay "$REC")
mkdir -p "$tmp/home"
s=$(rss env HOME="$tmp/home" CUDBG_HISTORY= TERM=xterm-256color \
	CUDBG_TEST_SCRIPT="$PWD/tests/screens/gpu_big_grid.script" \
	CUDBG_TEST_SIZE=100x30 CUDBG_TEST_DUMP_DIR="$tmp" CUDBG_TEST_WAIT=60 \
	"$BIN" --replay "$REC" -d data/examples)
awk -v z="$size" -v b="$b" -v s="$s" 'BEGIN {
	printf "inflated %.1f MB; peak RSS batch %.1f MB (%.2fx), screen %.1f MB (%.2fx)\n",
		z / 1e6, b / 1e6, b / z, s / 1e6, s / z }'
