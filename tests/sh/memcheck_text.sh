#!/bin/sh
# The memcheck pass's text output carries the program's own terminal
# output: a PyTorch assertion line there names the expression and file:line
# that a coredump lacks, and picks the specific hint (seen on the H200:
# torch_label under --memcheck=always got only the generic assert hint).
set -u
BIN=${CUDBG_BIN:?}
ROOT=${CUDBG_ROOT:?}
command -v gdb >/dev/null || { echo "SKIP memcheck-text: gdb not installed"; exit 0; }
out=$(mktemp); trap 'rm -f "$out"' EXIT
FAKE_SAN_XML=$ROOT/tests/fixtures/gpu/torch_label.sanitizer.xml \
FAKE_SAN_TEXT='/pytorch/aten/src/ATen/native/cuda/Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: [3,0,0] Assertion `t >= 0 && t < n_classes` failed.\n' \
	timeout 60 "$BIN" --batch --memcheck=always --debugger gdb \
	--sanitizer "$ROOT/tests/data/fake-compute-sanitizer" "${CUDBG_BUILD:?}/progs/steps" >"$out" 2>&1
if grep -q 'Assertions (1 lines)' "$out" && grep -q '^\[1\].*(pytorch-class-index)' "$out"; then
	echo "PASS memcheck-text/assertion-from-pass-output"
else
	echo "FAIL memcheck-text/assertion-from-pass-output:"; sed 's/^/    /' "$out" | head -30
fi
