#!/bin/sh
# Replays the first H200 run's recordings (tests/fixtures/gpu/run1) for
# the engine defect classes found there (docs/gpu-corpus-results.md):
#  - the user's frame: a fault inside atomicAdd stops in the toolkit's
#    __iAtomicAdd (frame #0, no source) under atomicAdd in
#    device_atomic_functions.hpp (frame #1); the stop summary, the
#    location and the hint must name the user's frame (#2,
#    block_histogram at shared_oob.cu:18) and the stack must stay whole;
#    a sanitizer coredump that unwinds to "??" must not make "??" the
#    kernel.
#  - __shared__ / __local__ addresses are window offsets: memcheck's
#    "Invalid __shared__ ... address 0x4400" is no null pointer; and a
#    record with no line says where it is from the fault, not "(unknown)".
#  - memcheck's <kind>StackOverflow</kind> record is a fault with the
#    stack-overflow hint, not "no fault found" or the API error after it.
#  - PyTorch 2.11 checks torch.multinomial's weights with a device assert
#    (_assert_async_cuda_kernel): the multinomial hint keys on its text,
#    and the host-side hint does not claim a host error.
#  - a failing CUDA call (memcheck Api record) is located at the user's
#    launch line on the host stack, past the toolkit's launch helper,
#    nvcc's stub file and the kernel's host wrapper.
#  - memcheck's Imprecise "Trace/breakpoint trap" record of __trap() is a trap.
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
R=tests/fixtures/gpu/run1
out=$(mktemp); trap 'rm -f "$out"' EXIT

# t NAME ARGS... -- checks: each check is +RE (must match) or -RE (must not).
t() {
	name=$1; shift
	args=""
	while [ "$1" != "--" ]; do args="$args $1"; shift; done
	shift
	# shellcheck disable=SC2086
	timeout 60 "$BIN" --batch $args >"$out" 2>&1
	why=""
	for c in "$@"; do
		re=${c#?}
		case $c in
		+*) grep -Eq -- "$re" "$out" || why="$why missing [$re]" ;;
		-*) grep -Eq -- "$re" "$out" && why="$why unwanted [$re]" ;;
		esac
	done
	if [ -z "$why" ]; then
		echo "PASS gpu-run1/$name"
	else
		echo "FAIL gpu-run1/$name:$why"; sed 's/^/    /' "$out" | head -40
	fi
}

t shared_oob-live-user-frame --replay $R/shared_oob.mi.log -- \
	'+^stop: +Warp Out-of-range Address in block_histogram$' \
	'+^  stop +Warp Out-of-range Address in block_histogram$' \
	'+^  location +shared_oob\.cu:18 \(from the frame\)' \
	'+^      at shared_oob\.cu:18\.$' \
	'+^      - Warp Out-of-range Address at shared_oob\.cu:18$' \
	'+^kernel at: #2 block_histogram at shared_oob\.cu:18' \
	'+^  #0  __iAtomicAdd' \
	'+^  #1  .*atomicAdd at .*/include/device_atomic_functions\.hpp:107' \
	'+^  #2  block_histogram at shared_oob\.cu:18' \
	'-location .*device_atomic_functions' \
	'-^ *stop:? .*__iAtomicAdd' \
	'-^ {6,}(- Warp .* at |at )?/usr/local/cuda.*device_atomic_functions\.hpp:107\.?$'
t shared_oob-core-user-frame --replay $R/shared_oob.core.mi.log -- \
	'+^stop: +Coredump in block_histogram$' \
	'+^kernel: +block_histogram$'
t shared_oob-memcheck-kernel --replay $R/shared_oob.memcheck.mi.log \
	--sanitizer-report $R/shared_oob.sanitizer.xml -- \
	'+^  kernel +block_histogram$' \
	'+^\[1\] .*\(san-oob\)$' \
	'-^  kernel +\?\?' '-\(san-null\)'
t shared_oob-report-not-null --replay $R/shared_oob.mi.log \
	--sanitizer-report $R/shared_oob.sanitizer.xml -- \
	'+Invalid __shared__ atomic' '-\(san-null\)'
t dyn_shared-memcheck-not-null --replay $R/dyn_shared.memcheck.mi.log \
	--sanitizer-report $R/dyn_shared.sanitizer.xml -- \
	'+Invalid __shared__ write of size 4' \
	'+^\[1\] .*\(san-oob\)$' '-\(san-null\)'
# A real null pointer stays one (global space, address near zero).
t null_deref-memcheck-still-null --replay $R/null_deref.memcheck.mi.log \
	--sanitizer-report $R/null_deref.sanitizer.xml -- \
	'+\(san-null\)'
t shared_oob-report-location --replay $R/shared_oob.mi.log \
	--sanitizer-report $R/shared_oob.sanitizer.xml -- \
	'+^      shared_oob\.cu:18\.$' '-\(unknown\)\.$'
t stack_overflow-memcheck --replay $R/stack_overflow.memcheck.mi.log \
	--sanitizer-report $R/stack_overflow.sanitizer.xml -- \
	'+^cudbg-tui diagnosis: FAULT \(memcheck\)$' \
	'+^  kernel +tree_depths$' \
	'+^\[1\] Device stack overflow in tree_depths  \(exc-stack-overflow\)$' \
	'-no fault found' '-^\[1\] .*\(san-api-error\)'
t torch_multinomial-live --replay $R/torch_multinomial.mi.log -- \
	'+^  stop +Warp Assert in _assert_async_cuda_kernel$' \
	'+^\[1\] .*\(pytorch-multinomial\)$' \
	'-\(pytorch-multinomial-host\)'
t smem_config-api-location --replay $R/smem_config.memcheck.mi.log \
	--sanitizer-report $R/smem_config.sanitizer.xml -- \
	'+^  location +/src/gpu/smem_config\.cu:25 \(from the sanitizer\)$' \
	'-smem_config\.cu:12\b' '-device_functions\.h' '-stub\.c'
t api_error-api-location --replay $R/api_error.mi.log \
	--sanitizer-report $R/api_error.sanitizer.xml -- \
	'+^  location +/src/gpu/api_error\.cu:20 \(from the sanitizer\)$'
# memcheck's record of __trap() (Imprecise, "Trace/breakpoint trap") is
# a trap, not a generic memcheck fault.
t trap-memcheck --replay $R/trap.memcheck.mi.log \
	--sanitizer-report $R/trap.sanitizer.xml -- \
	'+^cudbg-tui diagnosis: FAULT \(trap\)$' \
	'+^\[1\] .*\(device-trap\)$'
