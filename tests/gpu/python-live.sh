#!/bin/bash
# The live Python stack on the GPU machine (issue 11): records live runs of
# the PyTorch programs in tests/gpu/*.py under cuda-gdb, with launch
# blocking and the calls into the interpreter, and checks the script
# line, the operator and the bad value.  Run from the repository root with
# the binary built at build/cudbg-tui:
#
#     tests/gpu/python-live.sh [NAME...]
#
# (default: every tests/gpu/torch_*.py whose .expect has pylive: lines)
#
# For each NAME:
#   1. a plain run with CUDA_LAUNCH_BLOCKING=1, timed (the reference: how
#      long a user waits for PyTorch's own traceback);
#   2. cudbg-tui --batch --json --memcheck=never --record
#      tests/fixtures/gpu/NAME.mi.log (live, timed, CUDBG_TIMING=1);
#   3. the JSON checked: python_stack, the user's line, operator,
#      bad_value present;
#   4. the recording replayed here in text mode and checked against the
#      `live:` and `pylive:` lines of tests/gpu/NAME.expect: the report CI
#      gets from tests/sh/gpu_recordings.sh;
#   5. one line: time NAME ours=S plain_blocking=S ratio=R (target <= 1.5).
# Then tests/progs/py_crash.py (a CPU crash in a C call, and a breakpoint)
# under cuda-gdb, recorded to tests/fixtures/py_crash.cuda-gdb.mi.log and
# tests/fixtures/py_break.cuda-gdb.mi.log (tests/sh/python_live.sh
# replays them).
#
# Commit the recordings it writes (tests/fixtures/gpu/NAME.mi.log,
# tests/fixtures/py_*.cuda-gdb.mi.log).  Results and reports:
# $GPU_RESULTS/python-live (default build/gpu-results/python-live).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
RES=${GPU_RESULTS:-$ROOT/build/gpu-results}/python-live
# Sources under /src so recorded paths read /src/gpu/... (as gpu-test.sh).
SRC=/src/gpu
mkdir -p "$SRC" 2>/dev/null || SRC=$RES/src
mkdir -p "$RES" "$SRC" tests/fixtures/gpu
PY=$(python3 -c 'import sys; print(sys.executable)')
passed=0 failed=0
pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

now() { python3 -c 'import time; print(f"{time.monotonic():.3f}")'; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }

. tests/gpu/expect.sh
expect_kind() { # name pass report: the pass's rules of NAME.expect
	local name=$1 kind=$2 report=$3 why
	if why=$(expect_check "tests/gpu/$name.expect" "$kind" "$report"); then
		pass "$name/$kind"; else
		fail "$name/$kind" "$(printf '%s' "$why" | tr '\n' ' ')(see $report)"; fi
}

json_check() { # name json
	python3 - "$1" "$2" <<'EOF'
import json, sys
name, path = sys.argv[1], sys.argv[2]
try:
    r = json.load(open(path))
except Exception as e:
    print(f"FAIL {name}/json: not JSON ({e})"); sys.exit(1)
d = r.get("diagnosis") or {}
bad = []
st = d.get("python_stack")
if not st:
    bad.append("no python_stack (python_stack_missing: %r)" % d.get("python_stack_missing"))
elif not any(f.get("file", "").endswith(name + ".py") and not f.get("library") for f in st):
    bad.append("no frame of %s.py in python_stack" % name)
if not (d.get("python") or {}).get("call"):
    bad.append("no python.call")
if not d.get("operator"):
    bad.append("no operator")
bv = d.get("bad_value")
if not bv or bv.startswith("not read"):
    bad.append("bad_value: %r" % bv)
if bad:
    print(f"FAIL {name}/json: " + "; ".join(bad)); sys.exit(1)
print(f"PASS {name}/json: line {d['python']['call'].get('file')}:{d['python']['call'].get('line')}, "
      f"operator {d.get('operator')}, value {bv}")
EOF
}

run_one() { # name
	local name=$1 rec=tests/fixtures/gpu/$1.mi.log
	cp "tests/gpu/$name.py" "$SRC/$name.py" || { fail "$name" "no tests/gpu/$name.py"; return; }
	local t0 t1 t2
	t0=$(now)
	(cd "$SRC" && CUDA_LAUNCH_BLOCKING=1 timeout 600 "$PY" "$name.py") \
		> "$RES/$name.plain.txt" 2>&1
	t1=$(now)
	(cd "$SRC" && CUDBG_TIMING=1 timeout 600 "$BIN" --batch --json --memcheck=never \
		--force --record "$ROOT/$rec" -d "$SRC" "$PY" "$SRC/$name.py") \
		> "$RES/$name.json" 2> "$RES/$name.stderr"
	t2=$(now)
	if json_check "$name" "$RES/$name.json"; then passed=$((passed + 1)); else
		failed=$((failed + 1)); fi
	# the start sequence set launch blocking and cuda-gdb took it
	local tok
	tok=$(sed -n 's/^ *[0-9.]* > \([0-9]*\)-gdb-set cuda launch_blocking on$/\1/p' "$rec" | head -1)
	if [ -n "$tok" ] && grep -q "^ *[0-9.]* < ${tok}^done" "$rec"; then
		pass "$name/launch-blocking"; else
		fail "$name/launch-blocking" "no answered -gdb-set cuda launch_blocking on in $rec"; fi
	timeout 120 "$BIN" --batch --replay "$rec" > "$RES/$name.replay.txt" 2>&1
	expect_kind "$name" live "$RES/$name.replay.txt"
	expect_kind "$name" pylive "$RES/$name.replay.txt"
	local ours plain
	ours=$(secs "$t1" "$t2")
	plain=$(secs "$t0" "$t1")
	echo "time $name ours=${ours}s plain_blocking=${plain}s ratio=$(python3 -c "print(f'{$ours / max($plain, 0.001):.2f}')") (target <= 1.5)"
	grep '^cudbg-tui timing:' "$RES/$name.stderr" | sed "s/^/  $name /"
	# as gpu-test.sh's collect step: a recording over 1 MB is gzipped
	# (replays read NAME.mi.log.gz); the older copy of the other form goes
	if [ "$(stat -c %s "$rec")" -gt 1048576 ]; then
		gzip -f "$rec"
	else
		rm -f "$rec.gz"
	fi
}

cpu_one() { # label mode-env break-args... (tests/progs/py_crash.py under cuda-gdb)
	local label=$1 envv=$2; shift 2
	local rec=tests/fixtures/$label.cuda-gdb.mi.log
	env $envv timeout 300 "$BIN" --batch --debugger cuda-gdb --force --record "$rec" \
		-d tests/progs "$@" "$PY" tests/progs/py_crash.py > "$RES/$label.txt" 2>&1
	timeout 120 "$BIN" --batch -d tests/progs --replay "$rec" > "$RES/$label.replay.txt" 2>&1
}

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	# the programs that stop on the device (their .expect has pylive: lines)
	for f in tests/gpu/torch_*.py; do
		n=$(basename "$f" .py)
		grep -q '^pylive: ' "tests/gpu/$n.expect" 2>/dev/null && names+=("$n")
	done
fi
for n in "${names[@]}"; do run_one "$n"; done

cpu_one py_crash ""
for re in 'py_crash.py:41 in train_step' 'py_crash.py:60 in <module>' \
	'^  value      labels\[5\] = 4, the model has 4 classes'; do
	if grep -Eq -- "$re" "$RES/py_crash.txt" && grep -Eq -- "$re" "$RES/py_crash.replay.txt"; then
		pass "py_crash/cuda-gdb [$re]"; else fail "py_crash/cuda-gdb" "no '$re' (see $RES/py_crash.txt)"; fi
done
cpu_one py_break PY_CRASH_MODE=break --break labs
if grep -q 'py_crash.py:47 in pause_here' "$RES/py_break.txt"; then
	pass "py_break/cuda-gdb"; else fail "py_break/cuda-gdb" "no py_crash.py:47 (see $RES/py_break.txt)"; fi

echo "$passed passed, $failed failed"
echo "recordings: tests/fixtures/gpu/{$(IFS=,; echo "${names[*]}")}.mi.log[.gz] tests/fixtures/py_crash.cuda-gdb.mi.log tests/fixtures/py_break.cuda-gdb.mi.log (commit them)"
[ "$failed" -eq 0 ]
