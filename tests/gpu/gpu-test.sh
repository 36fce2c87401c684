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
# "live: RE", "memcheck: RE", "core: RE"; "report: RE" lines are for
# tests/sh/gpu_recordings.sh, which replays the recordings with only the
# saved XML report).  Prints PASS/FAIL lines and
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

# ---- the shared examples, recorded for the replay tests (issue: MI engine) ----
examples() {
	local ex=$SRC/examples
	mkdir -p "$ex" "$RES/examples"
	cp "$ROOT"/data/examples/* "$ex"/
	cd "$ex" || return
	for p in assert_label null_write step_kernel small_oob; do
		nvcc -g -G -arch=sm_90 -o $p $p.cu || { fail "examples/$p" "nvcc failed"; continue; }
	done
	timed assert_label example-live timeout 120 "$BIN" --batch --memcheck=never --force \
		--record "$RES/examples/assert_label.mi.log" ./assert_label > "$RES/examples/assert_label.txt" 2>&1
	timed null_write example-live timeout 120 "$BIN" --batch --memcheck=never --force \
		--record "$RES/examples/null_write.mi.log" ./null_write > "$RES/examples/null_write.txt" 2>&1
	timed step_kernel example-break timeout 120 "$BIN" --batch --memcheck=never --force -b saxpy2 \
		--record "$RES/examples/step_kernel.mi.log" ./step_kernel > "$RES/examples/step_kernel.txt" 2>&1
	timed small_oob example-memcheck timeout 120 "$BIN" --batch --memcheck=always --force \
		--record "$RES/examples/small_oob.mi.log" ./small_oob > "$RES/examples/small_oob.txt" 2>&1
	for p in assert_label null_write step_kernel small_oob; do
		[ -s "$RES/examples/$p.mi.log" ] && pass "examples/$p recorded" || fail "examples/$p" "no recording"
	done
	grep -q 'Breakpoint 1 in saxpy2' "$RES/examples/step_kernel.txt" && pass examples/step_kernel-break \
		|| fail examples/step_kernel-break "no stop at saxpy2"
	cd "$ROOT" || exit 2
}

# ---- the screen, driven through tmux (issue: the debugger screen) ----
T="tmux -L cudbg-gpu-$$"
wait_screen() { # session pattern seconds
	local i
	for i in $(seq 1 $(($3 * 4))); do
		$T capture-pane -p -t "$1" 2>/dev/null | grep -Eq -- "$2" && return 0
		sleep 0.25
	done
	return 1
}
cap() { $T capture-pane -p -t "$1" > "$RES/screens/$2.txt" 2>/dev/null; }
# expect_screen NAME SESSION PATTERN SECONDS WHY: PASS screens/NAME when
# PATTERN shows within SECONDS, else FAIL with WHY.
expect_screen() {
	if wait_screen "$2" "$3" "$4"; then pass "screens/$1"; else fail "screens/$1" "$5"; fi
}
screens() {
	mkdir -p "$RES/screens"
	command -v tmux >/dev/null || { fail screens "tmux not installed"; return; }
	cp "$ROOT/data/examples/seed_repro.py" "$SRC/"
	$T new-session -d -s seed -x 120 -y 40 \
		"cd $SRC && TERM=xterm-256color $BIN --memcheck=never python3 seed_repro.py; sleep 600"
	expect_screen seed-fault seed 'Warp Assert' 150 "no Warp Assert on screen"
	sleep 2; cap seed seed-1-fault
	$T send-keys -t seed ']'; sleep 1; cap seed seed-2-map
	$T send-keys -t seed ']'; sleep 1; cap seed seed-3-kernels
	$T send-keys -t seed '?'; sleep 1; cap seed seed-4-help
	$T send-keys -t seed Escape; $T send-keys -t seed c; sleep 1; cap seed seed-5-continue-warning
	$T send-keys -t seed n; $T send-keys -t seed q; sleep 0.5; $T send-keys -t seed y; sleep 2
	cap seed seed-6-after-quit
	$T kill-session -t seed 2>/dev/null
	# 80x24 (issue 13): PyTorch's slow start shows its clock and C-c;
	# the fault stop leads with the diagnosis and its first hint, no key.
	$T new-session -d -s seed80 -x 80 -y 24 \
		"cd $SRC && TERM=xterm-256color $BIN --memcheck=never python3 seed_repro.py; sleep 600"
	expect_screen seed80-progress seed80 'running [0-9]+s \(C-c interrupts\)' 60 "no clock while PyTorch starts"
	expect_screen seed80-diagnosis seed80 'Warp Assert: A device assert\(\) failed' 150 "no diagnosis at the stop"
	expect_screen seed80-first-hint seed80 '1\. A class label is outside' 10 "no first hint at 80x24"
	sleep 2; cap seed80 seed80-1-fault
	$T send-keys -t seed80 q; sleep 0.5; $T send-keys -t seed80 q; sleep 2
	$T kill-session -t seed80 2>/dev/null
	cd "$SRC/examples" 2>/dev/null || { fail screens/step "examples not built"; return; }
	$T new-session -d -s step -x 120 -y 40 \
		"cd $SRC/examples && TERM=xterm-256color $BIN --memcheck=never -d $SRC/examples -b saxpy2 ./step_kernel; sleep 600"
	expect_screen step-break step 'reakpoint 1' 60 "no breakpoint stop"
	sleep 2; cap step step-1-break
	$T send-keys -t step n; sleep 3; cap step step-2-next
	$T send-keys -t step s; sleep 3; cap step step-3-step
	$T send-keys -t step ']'; sleep 2; cap step step-4-map
	$T send-keys -t step q; sleep 0.5; $T send-keys -t step y; sleep 2
	$T kill-session -t step 2>/dev/null
	cd "$ROOT" || exit 2
	screen_passes
}

# The memcheck pass and replay to fault from the screen (issue: diagnosis):
# off_by_one ends cleanly under cuda-gdb; M runs the pass and opens its
# coredump at the faulting thread; T reruns and stops that thread before
# the read.  api_error fails without a device stop, so the auto policy
# runs the pass by itself.
screen_passes() {
	local n
	for n in off_by_one api_error; do
		cp "$ROOT/tests/gpu/$n.cu" "$SRC/"
		[ -x "$SRC/$n" ] || nvcc -g -G -arch=sm_90 -o "$SRC/$n" "$SRC/$n.cu" ||
			{ fail "screens/passes" "nvcc $n failed"; return; }
	done
	$T new-session -d -s passes -x 120 -y 40 \
		"cd $SRC && TERM=xterm-256color $BIN -d $SRC ./off_by_one; sleep 600"
	wait_screen passes 'exited with code 0' 90 || fail screens/passes-exit "off_by_one did not end"
	sleep 1; cap passes passes-1-exited
	$T send-keys -t passes M
	expect_screen memcheck-key passes 'coredump is open at the faulting thread' 150 "no coredump opened"
	sleep 3; cap passes passes-2-core
	$T send-keys -t passes ']'; sleep 1; cap passes passes-3-core-next-tab
	$T send-keys -t passes T
	expect_screen replay-to-fault passes 'replay to fault: stopped thread \(99,0,0\)' 150 "did not stop the thread"
	sleep 3; cap passes passes-4-refault
	$T send-keys -t passes s; sleep 3; cap passes passes-5-step
	$T send-keys -t passes q; sleep 0.5; $T send-keys -t passes y; sleep 2
	$T kill-session -t passes 2>/dev/null
	$T new-session -d -s auto -x 120 -y 40 \
		"cd $SRC && TERM=xterm-256color $BIN -d $SRC ./api_error; sleep 600"
	expect_screen memcheck-auto auto 'memcheck pass: [0-9]+ errors? in' 150 "the pass did not follow the failed run"
	sleep 2; cap auto auto-1-after-pass
	$T send-keys -t auto q; sleep 0.5; $T send-keys -t auto y; sleep 2
	$T kill-session -t auto 2>/dev/null
	# A PyTorch program with --memcheck=always: the pass first, then its
	# coredump in the screen, the assertion's file:line from the pass's
	# output on the source pane.
	cp "$ROOT/tests/gpu/torch_label.py" "$SRC/"
	$T new-session -d -s pyauto -x 120 -y 40 \
		"cd $SRC && TERM=xterm-256color $BIN --memcheck=always python3 torch_label.py; sleep 600"
	# (compute-sanitizer writes its coredump after the assert ended the
	# kernel: the screen says the core has none, and the Hints tab has it all)
	expect_screen memcheck-always-python pyauto 'no kernel in its coredump \(an assert ended it first\)' 150 "no word on the coredump"
	sleep 3; cap pyauto pyauto-1-core
	$T send-keys -t pyauto Tab Tab Tab '['; sleep 1; $T send-keys -t pyauto z; sleep 1
	cap pyauto pyauto-2-hints
	$T send-keys -t pyauto q; sleep 0.5; $T send-keys -t pyauto y; sleep 2
	$T kill-session -t pyauto 2>/dev/null
}

# ---- killing the debugger from outside (issue: hardening) ----
kills() {
	mkdir -p "$RES/kills" "$RES/screens" # cap writes there (kills may run alone)
	cp "$ROOT/data/examples/seed_repro.py" "$SRC/"
	$T new-session -d -s kill -x 120 -y 40 \
		"cd $SRC && TERM=xterm-256color $BIN --memcheck=never python3 seed_repro.py; echo EXIT=\$?; sleep 600"
	sleep 6
	ps -eo pid,pgid,args | grep -E 'cuda-gdb|seed_repro' | grep -v grep > "$RES/kills/ps-before.txt"
	pkill -9 -f 'cuda-gdb' ; sleep 3
	cap kill kill-1-screen-after-kill
	mv "$RES/screens/kill-1-screen-after-kill.txt" "$RES/kills/" 2>/dev/null
	ps -eo pid,pgid,args | grep -E 'cuda-gdb|seed_repro' | grep -v grep > "$RES/kills/ps-after.txt"
	$T send-keys -t kill q; sleep 1; $T send-keys -t kill y; sleep 2
	$T capture-pane -p -t kill > "$RES/kills/kill-2-after-quit.txt"
	$T kill-session -t kill 2>/dev/null
	if grep -v -e cudbg-tui -e tmux -e 'bash -c' "$RES/kills/ps-after.txt" | grep -q seed_repro; then
		fail kills/pytorch "the program outlived its debugger"
	elif grep -q 'debugger gone' "$RES/kills/kill-1-screen-after-kill.txt"; then
		pass kills/pytorch
	else
		fail kills/pytorch "the screen does not say the debugger is gone"
	fi
	# during the memcheck pass: compute-sanitizer killed, then cuda-gdb
	# killed while it opens the coredump
	(cd "$SRC" && timeout 200 "$BIN" --batch --memcheck=always python3 seed_repro.py \
		> "$RES/kills/memcheck-san-killed.txt" 2>&1; echo "exit=$?" >> "$RES/kills/memcheck-san-killed.txt") &
	local i; for i in $(seq 1 100); do pgrep -f compute-sanitizer >/dev/null && break; sleep 0.1; done
	sleep 2; pkill -9 -f 'compute-sanitizer'; wait
	(cd "$SRC" && timeout 200 "$BIN" --batch --memcheck=always python3 seed_repro.py \
		> "$RES/kills/memcheck-gdb-killed.txt" 2>&1; echo "exit=$?" >> "$RES/kills/memcheck-gdb-killed.txt") &
	# cuda-gdb starts with the pass (it waits for the coredump): kill it
	# once the pass has ended, while it opens the core
	for i in $(seq 1 100); do pgrep -f compute-sanitizer >/dev/null && break; sleep 0.1; done
	for i in $(seq 1 800); do pgrep -f compute-sanitizer >/dev/null || break; sleep 0.05; done
	pkill -9 -f 'cuda-gdb'; wait
	# zombies (<defunct>) are not running: PID 1 of the GPU machine's VM is slow to reap them
	ps -eo pid,args | grep -E 'cuda-gdb|compute-sanitizer|seed_repro' | grep -v -e grep -e defunct > "$RES/kills/ps-after-memcheck.txt"
	[ -s "$RES/kills/ps-after-memcheck.txt" ] && fail kills/memcheck "processes left behind" || pass kills/memcheck
}

echo "== environment"
nvidia-smi -L; cuda-gdb --version | head -1; compute-sanitizer --version | tail -1
nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)'
[ -x "$BIN" ] || { echo "FAIL gpu-test: $BIN not built (run make)"; exit 2; }

# ---- performance ratios for docs/performance.md (issue: ready for users) ----
perf() {
	[ -x "$SRC/examples/assert_label" ] || examples >/dev/null
	cp "$ROOT/data/examples/seed_repro.py" "$SRC/"
	(cd "$SRC/examples" && python3 "$ROOT/tests/gpu/perf.py" "$BIN" ./assert_label) | tee -a "$RES/perf.txt"
	(cd "$SRC" && python3 "$ROOT/tests/gpu/perf.py" "$BIN" python3 seed_repro.py) | tee -a "$RES/perf.txt"
	grep -q '^measure=' "$RES/perf.txt" && pass perf || fail perf "no measures"
}

SECTIONS=${GPU_SECTIONS:-programs examples screens kills perf}
case " $SECTIONS " in *" examples "*) echo "== examples"; examples ;; esac
case " $SECTIONS " in *" screens "*) echo "== screens"; screens ;; esac
case " $SECTIONS " in *" kills "*) echo "== kills"; kills ;; esac
case " $SECTIONS " in *" perf "*) echo "== perf"; perf ;; esac
case " $SECTIONS " in *" programs "*) ;; *) set -- none ;; esac

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	for f in "$ROOT"/tests/gpu/*.cu "$ROOT"/tests/gpu/*.py; do
		[ "$(basename "$f")" = perf.py ] && continue # a tool, not a case
		[ -f "$f" ] && names+=("$(basename "${f%.*}")")
	done
fi
cp "$ROOT"/tests/gpu/*.cu "$ROOT"/tests/gpu/*.py "$SRC"/ 2>/dev/null
for n in "${names[@]}"; do
	[ "$n" = none ] && continue
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
