#!/bin/sh
# CPU time per `next` step (issue 32 item 5): the frontend with its gdb
# against gdb's own CLI and cgdb (in tmux), on the same small loop.  Each
# tool runs: break main, run, N nexts, quit; and the same with no next.
# The CPU of the whole tree (the tool, its gdb, the program: user +
# system, from the rusage of waited children) of the N-step run less the
# 0-step run, over N, is the cost of one step.  The frontend runs its
# headless screen (the real draw path, 100x30) from a script that waits
# for each stop; gdb runs from a command file; cgdb gets its keys from
# tmux, one next every 60 ms (the wait costs no CPU).  A second CLI run
# also asks at each stop what the screen shows (backtrace, info locals):
# the like-for-like reference.  Rounds alternate.
# Each run's CPU varies by some 50 ms (gdb's start-up): N of a few
# hundred makes that small against N steps.  cgdb reads no gdbinit of
# the user's (HOME is a temporary folder); its -nx is not passed.
# Usage: sh tests/bench/step_cpu.sh [N] [ROUNDS]
set -u
N=${1:-300}
ROUNDS=${2:-3}
BIN=${CUDBG_BIN:-build/cudbg-tui}
command -v gdb >/dev/null || { echo "SKIP: gdb not installed"; exit 0; }
tmp=$(mktemp -d); trap 'tmux -L cudbg-bench kill-server >/dev/null 2>&1; rm -rf "$tmp"' EXIT
printf 'int main(void)\n{\n\tvolatile int s = 0;\n\tfor (int i = 0; i < 100000; i++)\n\t\ts += i;\n\treturn s == 0;\n}\n' >"$tmp/loop.c"
cc -g -O0 -o "$tmp/loop" "$tmp/loop.c"
# cpu FILE CMD...: runs CMD, writes the CPU seconds of it and all it
# waited for into FILE
# (cgdb keeps the terminal: CPU_TTY=1)
cat >"$tmp/cpu.py" <<'PY'
import os, resource, subprocess, sys
io = {} if os.environ.get("CPU_TTY") else dict(
    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL)
subprocess.run(sys.argv[2:], **io)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.4f\n" % (r.ru_utime + r.ru_stime))
PY
# the frontend's gdb through a wrapper that writes its own CPU apart
mkdir "$tmp/bin"
printf '#!/bin/sh\nCPU_TTY=1 exec python3 %s/cpu.py %s/gdbcpu %s "$@"\n' \
	"$tmp" "$tmp" "$(command -v gdb)" >"$tmp/bin/gdb"
chmod +x "$tmp/bin/gdb"
script() { # steps
	printf ':wait-stop\n:wait-idle\n'
	i=0
	while [ "$i" -lt "$1" ]; do printf 'n\n:wait-stop\n:wait-idle\n'; i=$((i + 1)); done
	printf 'q\ny\n'
}
gdbcmds() { # steps [what each step also asks]
	printf 'break main\nrun\n'
	i=0
	while [ "$i" -lt "$1" ]; do printf 'next\n%b' "${2:-}"; i=$((i + 1)); done
	printf 'kill\nquit\n'
}
script "$N" >"$tmp/s.$N"; script 0 >"$tmp/s.0"
gdbcmds "$N" >"$tmp/g.$N"; gdbcmds 0 >"$tmp/g.0"
# the CLI doing what the screen shows at each stop: the stack and locals
gdbcmds "$N" 'backtrace\ninfo locals\n' >"$tmp/g.same"
front() { # steps: "TOTAL ITS_GDB"
	HOME="$tmp" CUDBG_HISTORY= TERM=xterm-256color CUDBG_TEST_SCRIPT="$tmp/s.$1" \
		CUDBG_TEST_SIZE=100x30 CUDBG_TEST_DUMP_DIR="$tmp" CUDBG_TEST_WAIT=30 \
		python3 "$tmp/cpu.py" "$tmp/out" "$BIN" --debugger "$tmp/bin/gdb" \
		--break main "$tmp/loop"
	echo "$(cat "$tmp/out") $(cat "$tmp/gdbcpu")"
}
cli() { # steps (or "same")
	python3 "$tmp/cpu.py" "$tmp/out" gdb -nx -q -batch -x "$tmp/g.$1" "$tmp/loop"
	cat "$tmp/out"
}
# cgdb in a 100x30 tmux window; its gdb console takes the keys
cg() { # steps
	command -v cgdb >/dev/null && command -v tmux >/dev/null || { echo -; return; }
	rm -f "$tmp/out"
	HOME="$tmp" tmux -L cudbg-bench new-session -d -x 100 -y 30 \
		"CPU_TTY=1 python3 $tmp/cpu.py $tmp/out cgdb -q $tmp/loop"
	sleep 1
	tmux -L cudbg-bench send-keys 'break main' Enter 'run' Enter
	sleep 0.5
	i=0
	while [ "$i" -lt "$1" ]; do
		tmux -L cudbg-bench send-keys 'next' Enter; sleep 0.06; i=$((i + 1))
	done
	tmux -L cudbg-bench send-keys 'kill' Enter y Enter 'quit' Enter
	k=0
	while [ ! -s "$tmp/out" ] && [ $k -lt 100 ]; do sleep 0.1; k=$((k + 1)); done
	tmux -L cudbg-bench kill-server >/dev/null 2>&1
	cat "$tmp/out" 2>/dev/null || echo -
}
per() { echo "$1 $2 $N" | awk '$1 == "-" || $2 == "-" { print "-"; next } { printf "%.3f", ($1 - $2) * 1000 / $3 }'; }
echo "round frontend_ms (its_gdb_ms) cli_ms cli_bt_locals_ms cgdb_ms frontend/cli frontend/cli_bt_locals frontend/cgdb  (CPU ms per step, N=$N)"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	fa=$(front "$N"); fb=$(front 0)
	ca=$(cli "$N"); cb=$(cli 0); cs=$(cli same)
	ga=$(cg "$N"); gb=$(cg 0)
	f=$(per "${fa% *}" "${fb% *}"); fg=$(per "${fa#* }" "${fb#* }")
	c=$(per "$ca" "$cb"); cl=$(per "$cs" "$cb"); g=$(per "$ga" "$gb")
	echo "$r $f ($fg) $c $cl $g $(echo "$f $c $cl $g" | awk '{ printf "%.2f %.2f %s", $1 / $2, $1 / $3, ($4 == "-" ? "-" : sprintf("%.2f", $1 / $4)) }')"
	r=$((r + 1))
done
