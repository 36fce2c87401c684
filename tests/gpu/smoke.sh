#!/bin/bash
# First contact with the GPU machine: tools present, examples build, batch
# mode and --record with real cuda-gdb.  Results under $OUT (or ./gpu-out).
set -u
OUT=${OUT:-$PWD/gpu-out}; mkdir -p "$OUT/rec"
BIN=$PWD/build/cudbg-tui
log=$OUT/smoke.log
exec > >(tee "$log") 2>&1
t() { local s=$(date +%s.%N); "$@"; local rc=$?; echo "[time] $(echo "$(date +%s.%N) - $s" | bc) s rc=$rc: $*"; return $rc; }
echo "== env"; nvidia-smi -L; which cuda-gdb compute-sanitizer nvcc tmux python3
cuda-gdb --version | head -1; compute-sanitizer --version | tail -1; nvcc --version | tail -1
ldd "$BIN" | grep -E 'not found|ncurses|readline|expat'
echo "== build"; mkdir -p /src/examples; cp data/examples/* /src/examples/
cd /src/examples
for p in assert_label null_write step_kernel small_oob; do
	t nvcc -g -G -arch=sm_90 -o $p $p.cu || echo "BUILD FAIL $p"
done
echo "== plain runs"; for p in assert_label null_write step_kernel small_oob; do t ./$p; done
echo "== batch"
for p in assert_label null_write step_kernel small_oob; do
	t timeout 120 "$BIN" --batch --record "$OUT/rec/$p.mi.log" --force ./$p
done
t timeout 120 "$BIN" --batch --json ./null_write
echo "== bare cuda-gdb"; t timeout 120 cuda-gdb -batch -ex run ./assert_label | tail -5
echo "== done"
