#!/bin/sh
# GPU fault programs end to end (needs a GPU, nvcc, cuda-gdb,
# compute-sanitizer; python3 with CUDA PyTorch for the torch_* cases).
# Not part of `make test`.  Run from the repository root:
#
#   sh tests/gpu/run-all.sh [OUTDIR]
#
# For each program: the plain run, cudbg-tui --batch --json live (recorded
# with --record), the bare compute-sanitizer pass (its XML report kept),
# cudbg-tui with --memcheck=always, and a driver-written coredump
# (CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1) opened with --core.  Prints one
# line per run: NAME MODE EXIT SECONDS HINT.  Recordings and reports go to
# OUTDIR (default tests/fixtures/gpu) to be committed as test data.
set -u
root=$(pwd)
bin=${CUDBG_BIN:-$root/build/cudbg-tui}
out=${1:-$root/tests/fixtures/gpu}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
[ -x "$bin" ] || { echo "run-all: build cudbg-tui first (make)"; exit 2; }

now() { date +%s.%N; }
since() { echo "$(now) $1" | awk '{ printf "%.2f", $1 - $2 }'; }
hint() { python3 -c 'import json,sys
try:
    d = json.load(sys.stdin)["diagnosis"]
    print(d["hints"][0]["id"] if d["hints"] else "-")
except Exception as e:
    print("unparsed")' ; }

run() { # NAME MODE CMD...: times CMD, keeps its stdout as JSON
	name=$1; mode=$2; shift 2
	t0=$(now)
	"$@" >"$work/$name.$mode.out" 2>"$work/$name.$mode.err"
	rc=$?
	secs=$(since "$t0")
	h=-
	case $mode in cudbg*) h=$(hint <"$work/$name.$mode.out") ;; esac
	cp "$work/$name.$mode.out" "$out/$name.$mode.out"
	echo "$name $mode exit=$rc ${secs}s $h"
}

one() { # NAME PROG...
	name=$1; shift
	run "$name" plain "$@"
	run "$name" cudbg-live "$bin" --json --record "$out/$name.mi.log" --force \
		--memcheck=never -d tests/gpu "$@"
	run "$name" sanitizer compute-sanitizer --tool memcheck --xml \
		--save "$out/$name.sanitizer.xml" "$@"
	run "$name" cudbg-memcheck "$bin" --json --memcheck=always \
		-d tests/gpu "$@"
	rm -f "$work/core"
	CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 CUDA_COREDUMP_FILE="$work/core" \
		"$@" >/dev/null 2>&1
	if [ -f "$work/core" ]; then
		run "$name" cudbg-core "$bin" --json --record "$out/core_$name.mi.log" \
			--force --core "$work/core" -d tests/gpu "$1"
	else
		echo "$name cudbg-core (no coredump written)"
	fi
}

for p in device_assert null_deref misaligned off_by_one; do
	nvcc -g -G -arch=sm_90 -o "$work/$p" "tests/gpu/$p.cu" || exit 2
	one "$p" "$work/$p"
done
if python3 -c 'import torch; assert torch.cuda.is_available()' 2>/dev/null; then
	for p in torch_label torch_embedding; do
		one "$p" python3 "tests/gpu/$p.py"
	done
else
	echo "torch_*: skipped (no CUDA PyTorch)"
fi
