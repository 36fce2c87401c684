#!/bin/sh
# Launch blocking under cuda-gdb reaches the program's environment
# (mi/session_start.c): cuda-gdb's `cuda launch_blocking` misses a CUDA
# graph's launch (GPU run 25: graph_stale's host had gone on to
# cudaStreamSynchronize, and CUDA_LAUNCH_BLOCKING=1 kept it at
# cudaGraphLaunch, graph_stale.cu:29).  Real gdb under the name cuda-gdb
# runs a shell that writes what it sees: 1 by default, nothing with
# --no-launch-blocking or under plain gdb, and the user's own value kept.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
command -v gdb >/dev/null || { echo "SKIP launch_env/all: gdb not installed"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS launch_env/$1"; }
fail() { echo "FAIL launch_env/$1: $2"; fails=$((fails + 1)); }
mkdir "$tmp/bin"
printf '#!/bin/sh\nexec gdb "$@"\n' >"$tmp/bin/cuda-gdb"
chmod 755 "$tmp/bin/cuda-gdb"

# check CASE WANT DEBUGGER [options]: the program saw WANT
check() {
	c=$1 want=$2 dbg=$3
	shift 3
	rm -f "$tmp/seen"
	timeout -k 2 60 "$BIN" --batch --debugger "$dbg" "$@" sh -c \
		'printf "%s" "${CUDA_LAUNCH_BLOCKING-unset}" >"$0"' "$tmp/seen" \
		>"$tmp/$c.out" 2>&1 </dev/null
	got=$(cat "$tmp/seen" 2>/dev/null || echo "(the program did not run)")
	if [ "$got" = "$want" ]; then
		pass "$c"
	else
		fail "$c" "the program saw CUDA_LAUNCH_BLOCKING=$got, want $want"
		sed 's/^/    /' "$tmp/$c.out" | head -20
	fi
}
( unset CUDA_LAUNCH_BLOCKING
  check cuda_gdb 1 "$tmp/bin/cuda-gdb"
  check no_launch_blocking unset "$tmp/bin/cuda-gdb" --no-launch-blocking
  check plain_gdb unset gdb
  exit $fails ) || fails=$?
( export CUDA_LAUNCH_BLOCKING=0
  check users_value 0 "$tmp/bin/cuda-gdb"
  exit $fails ) || fails=$((fails + $?))
exit $fails
