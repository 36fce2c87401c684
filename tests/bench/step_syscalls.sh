#!/bin/sh
# File system calls the frontend makes per step (issue 32 item 5: nothing
# that cannot change during a session looked up at every stop), counted
# with strace -c on cudbg-tui alone (not its gdb): opens, stats and
# access checks in a headless screen script of N `n` keys on a small loop,
# less the same run with no step, over N.  (All system calls are too
# noisy to compare: reads and polls follow the pipe's timing.)
# Usage: sh tests/bench/step_syscalls.sh [N]
set -u
N=${1:-40}
BIN=${CUDBG_BIN:-build/cudbg-tui}
command -v strace >/dev/null || { echo "SKIP: strace not installed"; exit 0; }
command -v gdb >/dev/null || { echo "SKIP: gdb not installed"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf 'int main(void)\n{\n\tvolatile int s = 0;\n\tfor (int i = 0; i < 100000; i++)\n\t\ts += i;\n\treturn s == 0;\n}\n' >"$tmp/loop.c"
cc -g -O0 -o "$tmp/loop" "$tmp/loop.c"
{ printf ':wait-stop\n:wait-idle\n'; i=0
  while [ $i -lt "$N" ]; do printf 'n\n:wait-stop\n:wait-idle\n'; i=$((i + 1)); done
  printf 'q\ny\n'; } >"$tmp/steps.script"
printf ':wait-stop\n:wait-idle\nq\ny\n' >"$tmp/zero.script"
count() { # script
	HOME="$tmp" CUDBG_HISTORY= TERM=xterm-256color CUDBG_TEST_SCRIPT="$1" \
		CUDBG_TEST_SIZE=100x30 CUDBG_TEST_DUMP_DIR="$tmp" CUDBG_TEST_WAIT=30 \
		strace -c -e trace=openat,access,newfstatat,statx,stat -o "$tmp/c" "$BIN" --debugger gdb --break main "$tmp/loop" \
		</dev/null >/dev/null 2>&1
	awk '$NF == "total" { print $4 }' "$tmp/c"
}
a=$(count "$tmp/steps.script"); b=$(count "$tmp/zero.script")
echo "frontend file system calls: $a with $N steps, $b with none: $(echo "$a $b $N" | awk '{printf "%.1f", ($1 - $2) / $3}') per step"
