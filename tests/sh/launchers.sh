#!/bin/sh
# A script as the program (issue 29 item 3): gdb and cuda-gdb cannot load
# a script ("No executable file specified"), yet training jobs start from
# `./train.sh`, and pyenv's `python3` on PATH is a bash script.  The
# debugger runs the script's interpreter and follows its exec to the real
# program (mi/spawn.c spawn_resolve_scripts), with real gdb here: a sh
# script that execs a program dying of SIGSEGV, a chain of two (`#!/usr/
# bin/env sh`, as pyenv's shims are), the chain found through PATH, and
# an executable script with no #! line (run by /bin/sh, as execvp does);
# and a CUDA error from a child the launcher did not exec.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
PROG=${CUDBG_BUILD:-$ROOT/build}/progs/model_segv
command -v gdb >/dev/null 2>&1 || { echo "SKIP launchers/all: gdb not installed"; exit 0; }
fails=0
pass() { echo "PASS launchers/$1"; }
fail() { echo "FAIL launchers/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
printf '#!/bin/sh\n# a launcher\nexec "%s" "$@"\n' "$(cd "$(dirname "$PROG")" && pwd)/model_segv" >"$tmp/train.sh"
printf '#!/usr/bin/env sh\nexec "%s" "$@"\n' "$tmp/train.sh" >"$tmp/bin/shim"
# no #! line: execvp() and every shell hand it to /bin/sh
printf 'exec "%s" "$@"\n' "$(cd "$(dirname "$PROG")" && pwd)/model_segv" >"$tmp/plain.sh"
chmod +x "$tmp/train.sh" "$tmp/bin/shim" "$tmp/plain.sh"

check() { # CASE DIR ARGS...: the fault of the program behind the script
	c=$1 dir=$2
	shift 2
	(cd "$dir" && timeout 60 "$BIN" --batch --debugger gdb "$@") \
		>"$tmp/$c.out" 2>&1 </dev/null
	rc=$?
	if grep -q 'No executable file specified\|did not start' "$tmp/$c.out"; then
		fail $c "the script did not start: $(grep -m1 'did not start\|No exec' "$tmp/$c.out")"
	elif [ $rc -ne 1 ] || ! grep -q '^stop: *SIGSEGV (Segmentation fault) in poke$' "$tmp/$c.out"; then
		fail $c "rc=$rc, no SIGSEGV in poke: $(head -3 "$tmp/$c.out" | tr '\n' ' ')"
	else
		pass $c
	fi
}
check sh_script "$tmp" ./train.sh
check env_sh_chain "$tmp" "$tmp/bin/shim"
PATH="$tmp/bin:$PATH" check chain_from_path "$tmp" shim
check no_shebang "$tmp" ./plain.sh
# A launcher that runs the GPU work in a child it does not exec (a
# script's `python train.py`, make, uv run): the CUDA error comes from a
# process the debugger let go, and the report says so (the followed
# process loaded no CUDA library and forked), not "no device stop" alone.
printf '#!/bin/sh\n( echo "RuntimeError: CUDA error: device-side assert triggered" >&2; exit 1 )\nexit 1\n' >"$tmp/gpu.sh"
chmod +x "$tmp/gpu.sh"
(cd "$tmp" && timeout 60 "$BIN" --batch --debugger gdb --memcheck=never ./gpu.sh) \
	>"$tmp/gpu.out" 2>&1 </dev/null
if ! grep -q '^\[1\] A CUDA error from a process the program started: .*(cuda-error-in-child)$' "$tmp/gpu.out"; then
	fail cuda_error_in_child "$(grep -m2 '^\[' "$tmp/gpu.out")"
elif grep -q '(cuda-error-no-stop)' "$tmp/gpu.out" || ! grep -q 'run: cudbg-tui --job ./gpu.sh$' "$tmp/gpu.out"; then
	fail cuda_error_in_child "$(grep '(cuda-error-no-stop)\|run: ' "$tmp/gpu.out")"
else
	pass cuda_error_in_child
fi
exit $fails
