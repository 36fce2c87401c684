#!/bin/bash
# make gpu-test: the GPU end-to-end suite.  Needs an NVIDIA GPU, nvcc,
# cuda-gdb, compute-sanitizer, python3 with PyTorch (for *.py) and tmux.
#
# For every program in tests/gpu (NAME.cu built with nvcc -g -G, or
# NAME.py run with python3) and the recorded examples in data/examples:
#   - a plain run, timed;
#   - cudbg-tui --batch live (recorded with --record), timed, and the same
#     under bare cuda-gdb for the ratio;
#   - cudbg-tui --batch --memcheck=always (the report kept), timed, and a
#     bare compute-sanitizer pass for the ratio;
#   - a GPU coredump written with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1,
#     opened with cudbg-tui --batch --core;
# and checks each report against NAME.expect (one extended regular
# expression a line, each must match the text report of the named pass:
# "live: RE", "memcheck: RE", "core: RE").  Prints PASS/FAIL lines and
# the closing "N passed, N failed" line.  Results: $GPU_RESULTS
# (default build/gpu-results): reports, recordings, XML, timings.tsv.
#
# Usage: tests/gpu/gpu-test.sh [NAME...]     (default: all)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
RES=${GPU_RESULTS:-$ROOT/build/gpu-results}
# Sources are compiled under /src so recorded paths read /src/... as in the
# shared fixtures; elsewhere when /src cannot be written.
SRC=/src/gpu
mkdir -p "$SRC" 2>/dev/null || SRC=$RES/src
mkdir -p "$RES/rec" "$RES/reports" "$RES/xml" "$RES/core" "$SRC"
TIMES=$RES/timings.tsv
: > "$TIMES"
passed=0 failed=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# timed NAME PASS CMD... : runs CMD, appends "NAME PASS SECONDS RC".
timed() {
	local name=$1 pass=$2; shift 2
	local t0=$EPOCHREALTIME
	"$@"
	local rc=$?
	local t1=$EPOCHREALTIME
	printf '%s\t%s\t%s\t%d\n' "$name" "$pass" \
		"$(python3 -c "print(f'{$t1-$t0:.3f}')")" "$rc" >> "$TIMES"
	return $rc
}

check_expect() { # name pass report
	local name=$1 pass=$2 report=$3 exp=$ROOT/tests/gpu/$1.expect
	[ -f "$exp" ] || { pass "$name/$pass (no expectations)"; return; }
	local bad=""
	while IFS= read -r line; do
		case "$line" in "$pass: "*) ;; *) continue ;; esac
		local re=${line#"$pass: "}
		grep -Eq -- "$re" "$report" || bad="$bad [$re]"
	done < "$exp"
	if [ -z "$bad" ]; then pass "$name/$pass"; else fail "$name/$pass" "missing$bad"; fi
}

run_program() { # name kind(cu|py)
	local name=$1 kind=$2 prog
	if [ "$kind" = cu ]; then
		prog=("$SRC/$name")
	else
		prog=(python3 "$SRC/$name.py")
	fi
	cd "$SRC" || return
	timed "$name" plain timeout 300 "${prog[@]}" > "$RES/reports/$name.plain.txt" 2>&1
	timed "$name" bare-cuda-gdb timeout 300 cuda-gdb -batch -ex run --args "${prog[@]}" \
		> "$RES/reports/$name.bare-gdb.txt" 2>&1
	timed "$name" live timeout 300 "$BIN" --batch --memcheck=never --force \
		--record "$RES/rec/$name.mi.log" -d "$SRC" "${prog[@]}" \
		> "$RES/reports/$name.live.txt" 2>&1
	check_expect "$name" live "$RES/reports/$name.live.txt"
	local env=()
	[ "$kind" = py ] && env=(env PYTORCH_NO_CUDA_MEMORY_CACHING=1)
	timed "$name" bare-sanitizer timeout 300 "${env[@]}" compute-sanitizer --tool memcheck \
		--xml --save "$RES/xml/$name.sanitizer.xml" "${prog[@]}" \
		> "$RES/reports/$name.bare-sanitizer.txt" 2>&1
	timed "$name" memcheck timeout 300 "$BIN" --batch --memcheck=always --force \
		--record "$RES/rec/$name.memcheck.mi.log" -d "$SRC" "${prog[@]}" \
		> "$RES/reports/$name.memcheck.txt" 2>&1
	check_expect "$name" memcheck "$RES/reports/$name.memcheck.txt"
	rm -f "$RES/core/$name.nvcudmp"
	timed "$name" coredump-run timeout 300 env CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 \
		CUDA_COREDUMP_FILE="$RES/core/$name.nvcudmp" "${prog[@]}" \
		> "$RES/reports/$name.coredump-run.txt" 2>&1
	if [ -f "$RES/core/$name.nvcudmp" ]; then
		local exe=${prog[0]}
		[ "$kind" = py ] && exe=$(command -v python3)
		timed "$name" core timeout 300 "$BIN" --batch --force \
			--record "$RES/rec/$name.core.mi.log" -d "$SRC" \
			--core "$RES/core/$name.nvcudmp" "$exe" \
			> "$RES/reports/$name.core.txt" 2>&1
		check_expect "$name" core "$RES/reports/$name.core.txt"
	elif grep -q '^core: ' "$ROOT/tests/gpu/$name.expect" 2>/dev/null; then
		fail "$name/core" "no coredump was written"
	fi
	cd "$ROOT" || exit 2
}

echo "== environment"
nvidia-smi -L; cuda-gdb --version | head -1; compute-sanitizer --version | tail -1
nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)'
[ -x "$BIN" ] || { echo "FAIL gpu-test: $BIN not built (run make)"; exit 2; }

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$ROOT"/tests/gpu/*.cu "$ROOT"/tests/gpu/*.py; do
		[ -f "$f" ] && names+=("$(basename "${f%.*}")")
	done
fi
cp "$ROOT"/tests/gpu/*.cu "$ROOT"/tests/gpu/*.py "$SRC"/ 2>/dev/null
for n in "${names[@]}"; do
	if [ -f "$SRC/$n.cu" ]; then
		if ! nvcc -g -G -arch=sm_90 -o "$SRC/$n" "$SRC/$n.cu" 2> "$RES/reports/$n.nvcc.txt"; then
			fail "$n/build" "nvcc failed (see reports/$n.nvcc.txt)"; continue
		fi
		run_program "$n" cu
	elif [ -f "$SRC/$n.py" ]; then
		run_program "$n" py
	else
		fail "$n" "no tests/gpu/$n.cu or .py"
	fi
done

echo "== timings (name pass seconds rc)"; cat "$TIMES"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
