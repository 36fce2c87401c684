#!/bin/bash
# What the memcheck pass's coredump costs, and what can be left out of it
# (issue 10, section 3; docs/performance.md, "The memcheck pass's
# coredump").  On the GPU machine:
#
#   OUT=DIR ROUNDS=3 bash tests/gpu/corespeed.sh NAME...
#
# For each NAME (tests/gpu/NAME.cu, built as gpu-test.sh builds it, or
# NAME.py) and each variant below, ROUNDS runs of compute-sanitizer,
# timed; then each variant's coredump (of the first round) opened by
# `cudbg-tui --batch --core`, its report kept, so that a variant that
# loses something the diagnosis reads shows in the diff against "pass".
#
#   bare      compute-sanitizer --tool memcheck PROG
#   pass      what the pass ran before: --xml --save --generate-coredump
#             --coredump-name --print-limit 100
#   exit      pass + --coredump-behavior exit (no CPU coredump after it)
#   noglobal  pass + CUDA_COREDUMP_GENERATION_FLAGS=skip_global_memory
#   both      exit + noglobal
#   light     exit + every skip_* flag of the driver's lightweight set
#
# Writes $OUT/corespeed.tsv (name variant round seconds exit core_bytes)
# and $OUT/reports/NAME.VARIANT.txt.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
OUT=${OUT:-$ROOT/build/corespeed}
ROUNDS=${ROUNDS:-3}
SRC=/src/gpu
mkdir -p "$SRC" "$OUT/reports" "$OUT/work"
TSV=$OUT/corespeed.tsv
[ -f "$TSV" ] || printf 'name\tvariant\tround\tseconds\texit\tcore_bytes\n' > "$TSV"
LIGHT=skip_global_memory,skip_shared_memory,skip_local_memory,skip_nonrelocated_elf_images,skip_constbank_memory

{
	echo "ulimit -c: $(ulimit -c)"
	echo "core_pattern: $(cat /proc/sys/kernel/core_pattern 2>&1)"
	compute-sanitizer --version | tail -1
} > "$OUT/system.txt" 2>&1

build() { # NAME: PROG words on stdout
	local n=$1 cmd
	if [ -f "$ROOT/tests/gpu/$n.py" ]; then
		cp "$ROOT/tests/gpu/$n.py" "$SRC/"
		echo "python3 $SRC/$n.py"
		return
	fi
	cp "$ROOT/tests/gpu/"*.cu "$SRC/" 2>/dev/null
	cmd=$(sed -n 's|^// build: ||p' "$SRC/$n.cu" | head -1)
	[ -n "$cmd" ] || cmd="nvcc -g -G -arch=sm_90 -o $n $n.cu"
	(cd "$SRC" && bash -c "$cmd") > "$OUT/work/$n.nvcc.txt" 2>&1 || return 1
	echo "$SRC/$n"
}

variant() { # VARIANT CORE XML PROG...: runs it, prints "seconds exit"
	local v=$1 core=$2 xml=$3; shift 3
	local env=() opts=() t0 t1 rc
	case $v in
	bare) ;;
	pass) opts=(--xml --save "$xml" --generate-coredump --coredump-name "$core" --print-limit 100) ;;
	exit) opts=(--xml --save "$xml" --generate-coredump --coredump-name "$core" --print-limit 100 --coredump-behavior exit) ;;
	noglobal) env=(CUDA_COREDUMP_GENERATION_FLAGS=skip_global_memory)
		opts=(--xml --save "$xml" --generate-coredump --coredump-name "$core" --print-limit 100) ;;
	both) env=(CUDA_COREDUMP_GENERATION_FLAGS=skip_global_memory)
		opts=(--xml --save "$xml" --generate-coredump --coredump-name "$core" --print-limit 100 --coredump-behavior exit) ;;
	light) env=(CUDA_COREDUMP_GENERATION_FLAGS=$LIGHT)
		opts=(--xml --save "$xml" --generate-coredump --coredump-name "$core" --print-limit 100 --coredump-behavior exit) ;;
	esac
	t0=$(date +%s.%N)
	env "${env[@]}" PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 120 \
		compute-sanitizer --tool memcheck "${opts[@]}" "$@" > /dev/null 2>&1
	rc=$?
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" -v rc="$rc" 'BEGIN { printf "%.3f %s\n", b - a, rc }'
}

for n in "$@"; do
	read -r -a prog <<< "$(build "$n")" || { echo "FAIL $n: build"; continue; }
	[ ${#prog[@]} -gt 0 ] || { echo "FAIL $n: build"; continue; }
	exe=${prog[0]}
	[ "$exe" = python3 ] && exe=$(command -v python3)
	for v in bare pass exit noglobal both light; do
		for r in $(seq 1 "$ROUNDS"); do
			core=$OUT/work/$n.$v.$r.nvcudmp
			rm -f "$core"
			read -r secs rc <<< "$(cd "$SRC" && variant $v "$core" "$OUT/work/$n.$v.xml" "${prog[@]}")"
			bytes=$(stat -c %s "$core" 2>/dev/null || echo -)
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$n" "$v" "$r" "$secs" "$rc" "$bytes" | tee -a "$TSV"
			[ "$r" = 1 ] || rm -f "$core"
		done
		core=$OUT/work/$n.$v.1.nvcudmp
		if [ -f "$core" ]; then
			(cd "$SRC" && timeout 120 "$BIN" --batch -d "$SRC" --core "$core" "$exe") \
				> "$OUT/reports/$n.$v.txt" 2>&1
			echo "core-exit=$?" >> "$OUT/reports/$n.$v.txt"
			rm -f "$core"
		fi
	done
	for v in exit noglobal both light; do
		[ -f "$OUT/reports/$n.$v.txt" ] || continue
		if diff <(grep -v coredump "$OUT/reports/$n.pass.txt") \
			<(grep -v coredump "$OUT/reports/$n.$v.txt") > "$OUT/reports/$n.$v.diff"; then
			echo "SAME $n $v"
		else
			echo "DIFF $n $v ($(wc -l < "$OUT/reports/$n.$v.diff") lines)"
		fi
	done
done
