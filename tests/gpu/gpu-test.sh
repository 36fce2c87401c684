#!/bin/bash
# make gpu-test: the GPU end-to-end suite.  Needs an NVIDIA GPU, nvcc,
# cuda-gdb, compute-sanitizer, python3 with PyTorch (for *.py), ninja (for
# torch_extension.py) and tmux.
#
# Programs: every tests/gpu/NAME.cu, NAME.py or launch_*.sh (a launcher
# script) that has a NAME.expect
# (tests/gpu/expect.sh describes the rules).  NAME.cu is built as its
# "// build: CMD" header line says (run in the source directory), by
# default with nvcc -g -G -arch=sm_90; a "// cudbg-args: ARGS" (or
# "# cudbg-args:") line adds cudbg-tui options (the hangs: --timeout 10).
# Each program runs the passes its .expect names with "passes:", else
#   plain     the program alone (timeout 20 s for .cu, 180 s for .py);
#   live      cudbg-tui --batch --memcheck=never, recorded (NAME.mi.log);
#   memcheck  cudbg-tui --batch --memcheck=always, recorded
#             (NAME.memcheck.mi.log);
#   core      a driver coredump (CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1)
#             opened with --core, recorded (NAME.core.mi.log);
#   sancore   compute-sanitizer's coredump (--generate-coredump) opened
#             with --core, recorded (NAME.sancore.mi.log);
#   report    the live recording replayed with the XML of a bare
#             compute-sanitizer run (NAME.sanitizer.xml);
# and racecheck / initcheck / synccheck when its .expect has rules for
# them (cudbg-tui $GPU_SANTOOL_ARGS, by default --memcheck=always
# --sanitizer-tool=TOOL, recorded NAME.TOOL.mi.log, with the bare tool's
# XML NAME.TOOL.sanitizer.xml).  Every pass's report is checked against the
# .expect (PASS:, not:, not-PASS:, exit-PASS: rules).  Programs run
# GPU_JOBS at a time (default 6); GPU_PERF=1 then times plain, bare
# cuda-gdb, live, bare compute-sanitizer, memcheck and memcheck narrowed
# to the live stop's kernel (--memcheck-kernel) one program at a time for
# the ratios (perf.tsv; GPU_PASSES=plain GPU_PERF=1 for the timings alone).  At the end the recordings and XML are
# collected in tests/fixtures/gpu layout (recordings over 1 MB gzipped,
# never a coredump) with the reports and timings:
# $GPU_RESULTS/collect.tar.gz; `gpu-test.sh collect` redoes only that.
# Coredumps are deleted after use unless GPU_KEEP_CORES=1.  No program
# starts after GPU_DEADLINE_S seconds (default 420, for the 10-minute cap
# of one command on the GPU machine): one FAIL line names those left, to
# be run next by name.
#
# Other sections (GPU_SECTIONS, default "programs examples screens
# pyscreens kills perf"): the recorded examples of data/examples, the
# screen driven through tmux, 8 PyTorch faults on the screen at once,
# killing the debugger, perf.py.  For the corpus alone, in
# about 5 minutes: GPU_SECTIONS=programs tests/gpu/gpu-test.sh
#
# Prints PASS/FAIL lines and the closing "N passed, N failed" line.
# Results: $GPU_RESULTS (default build/gpu-results): reports/, rec/, xml/,
# timings.tsv, results/NAME.txt (each program's PASS/FAIL lines).
#
# Usage: tests/gpu/gpu-test.sh [NAME...]     (default: all; resumable by
#        tests/gpu/gpu-test.sh collect       naming the programs left)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
RES=${GPU_RESULTS:-$ROOT/build/gpu-results}
# shellcheck source=tests/gpu/expect.sh
. "$ROOT/tests/gpu/expect.sh"
# Sources are compiled under /src so recorded paths read /src/... as in the
# shared fixtures; elsewhere when /src cannot be written.
SRC=/src/gpu
mkdir -p "$SRC" 2>/dev/null || SRC=$RES/src
mkdir -p "$RES/rec" "$RES/reports" "$RES/xml" "$RES/core" "$RES/results" \
	"$RES/timings" "$SRC"
TIMES=$RES/timings.tsv
passed=0 failed=0

pass() { echo "PASS $1"; passed=$((passed + 1)); }
fail() { echo "FAIL $1: $2"; failed=$((failed + 1)); }

# timed NAME PASS CMD... : runs CMD, appends "NAME PASS SECONDS RC" to
# $TIMES.
timed() {
	local name=$1 pass=$2; shift 2
	local t0=$EPOCHREALTIME
	"$@"
	local rc=$?
	local t1=$EPOCHREALTIME
	printf '%s\t%s\t%s\t%d\n' "$name" "$pass" \
		"$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')" \
		"$rc" >> "$TIMES"
	return $rc
}

# ---- the fault corpus (issue 10) ----
DEFAULT_PASSES=${GPU_PASSES:-"plain live memcheck core sancore report"}
SANTOOL_ARGS=${GPU_SANTOOL_ARGS:---memcheck=always --sanitizer-tool=%s}
export TORCH_EXTENSIONS_DIR=$RES/torch_extensions

# check NAME PASS REPORT RC: PASS or FAIL NAME/PASS by the .expect.
check() {
	local why
	if why=$(expect_check "$EXP" "$2" "$3" "${4-}"); then
		pass "$1/$2"
	else
		fail "$1/$2" "$(printf '%s' "$why" | tr '\n' ' ') (see reports/$1.$2.txt)"
	fi
}

# build_program NAME: compiles NAME.cu in $SRC as its build line says.
build_program() {
	local name=$1 cmd
	cmd=$(sed -n 's|^// build: ||p' "$SRC/$name.cu" | head -1)
	[ -n "$cmd" ] || cmd="nvcc -g -G -arch=sm_90 -o $name $name.cu"
	(cd "$SRC" && bash -c "$cmd") > "$RES/reports/$name.nvcc.txt" 2>&1
}

# header_args FILE: the words of its "cudbg-args:" header line.
header_args() {
	sed -n -E 's@^(//|#) cudbg-args: @@p' "$1" | head -1
}

# program_job NAME: builds NAME, runs its passes, checks each; prints
# PASS/FAIL lines (the caller sends them to results/NAME.txt).
program_job() {
	local name=$1 rc passes tplain tdbg exe R=$RES/reports/$1
	local prog=() cargs=() senv=()
	EXP=$ROOT/tests/gpu/$name.expect
	TIMES=$RES/timings/$name.tsv
	: > "$TIMES"
	cd "$SRC" || return
	if [ -f "$SRC/$name.cu" ]; then
		build_program "$name" ||
			{ fail "$name/build" "nvcc failed (see reports/$name.nvcc.txt)"; return; }
		prog=("$SRC/$name") exe=$SRC/$name tplain=20 tdbg=90
		read -r -a cargs <<< "$(header_args "$SRC/$name.cu")"
	elif [ -f "$SRC/$name.sh" ]; then
		# a launcher (launch_*.sh): not python by its name; it execs
		# the interpreter on a Python program of the corpus
		chmod +x "$SRC/$name.sh"
		prog=("$SRC/$name.sh") exe=/bin/sh tplain=180 tdbg=150
		senv=(env PYTORCH_NO_CUDA_MEMORY_CACHING=1)
		read -r -a cargs <<< "$(header_args "$SRC/$name.sh")"
	else
		prog=(python3 "$SRC/$name.py") exe=$(command -v python3) tplain=180 tdbg=150
		senv=(env PYTORCH_NO_CUDA_MEMORY_CACHING=1)
		read -r -a cargs <<< "$(header_args "$SRC/$name.py")"
	fi
	# A program that may hang (it asks for --timeout) gets a minute a pass
	# (a sanitizer run has no timeout of its own).
	case " ${cargs[*]} " in *" --timeout "*) tdbg=60 ;; esac
	passes=" $(expect_passes "$EXP" $DEFAULT_PASSES) "
	want() { case $passes in *" $1 "*) return 0 ;; esac; return 1; }

	# plain first: it also builds what a program builds at run time (the
	# torch extension), and names what is missing ("MISSING: ...").
	timed "$name" plain timeout "$tplain" "${prog[@]}" > "$R.plain.txt" 2>&1
	rc=$?
	if grep -q '^MISSING: ' "$R.plain.txt"; then
		fail "$name" "$(grep -m1 '^MISSING: ' "$R.plain.txt" | cut -c10-) (every pass needs it)"
		return
	fi
	want plain && check "$name" plain "$R.plain.txt" $rc

	if want live || want report; then
		timed "$name" live timeout "$tdbg" "$BIN" --batch --memcheck=never --force \
			"${cargs[@]}" --record "$RES/rec/$name.mi.log" -d "$SRC" "${prog[@]}" \
			> "$R.live.txt" 2>&1
		rc=$?
		want live && check "$name" live "$R.live.txt" $rc
	fi
	if want memcheck; then
		timed "$name" memcheck timeout "$tdbg" "$BIN" --batch --memcheck=always --force \
			"${cargs[@]}" --record "$RES/rec/$name.memcheck.mi.log" -d "$SRC" \
			"${prog[@]}" > "$R.memcheck.txt" 2>&1
		rc=$?
		check "$name" memcheck "$R.memcheck.txt" $rc
	fi
	if want report; then
		# the bare sanitizer's XML, for the report pass and the fixtures
		timed "$name" xml timeout "$tdbg" "${senv[@]}" compute-sanitizer --tool memcheck \
			--xml --save "$RES/xml/$name.sanitizer.xml" "${prog[@]}" \
			> "$R.xml-run.txt" 2>&1
		if [ -s "$RES/xml/$name.sanitizer.xml" ] && [ -s "$RES/rec/$name.mi.log" ]; then
			timed "$name" report timeout 60 "$BIN" --batch \
				--replay "$RES/rec/$name.mi.log" \
				--sanitizer-report "$RES/xml/$name.sanitizer.xml" > "$R.report.txt" 2>&1
			rc=$?
			check "$name" report "$R.report.txt" $rc
		elif expect_names_pass "$EXP" report; then
			fail "$name/report" "no XML report or no live recording"
		fi
	fi
	if want core; then
		rm -f "$RES/core/$name.nvcudmp"
		timed "$name" coredump-run timeout "$tdbg" env CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1 \
			CUDA_COREDUMP_FILE="$RES/core/$name.nvcudmp" "${prog[@]}" \
			> "$R.coredump-run.txt" 2>&1
		if [ -f "$RES/core/$name.nvcudmp" ]; then
			timed "$name" core timeout "$tdbg" "$BIN" --batch --force \
				--record "$RES/rec/$name.core.mi.log" -d "$SRC" \
				--core "$RES/core/$name.nvcudmp" "$exe" > "$R.core.txt" 2>&1
			rc=$?
			check "$name" core "$R.core.txt" $rc
		elif grep -q '^coredump-run: ' "$EXP"; then
			# no coredump: the .expect says what the run printed then
			check "$name" coredump-run "$R.coredump-run.txt"
		elif expect_names_pass "$EXP" core; then
			fail "$name/core" "no coredump was written"
		fi
	fi
	if want sancore; then
		rm -f "$RES/core/$name.san.nvcudmp"
		timed "$name" sancore-run timeout "$tdbg" "${senv[@]}" compute-sanitizer \
			--tool memcheck --generate-coredump \
			--coredump-name "$RES/core/$name.san.nvcudmp" "${prog[@]}" \
			> "$R.sancore-run.txt" 2>&1
		if [ -f "$RES/core/$name.san.nvcudmp" ]; then
			timed "$name" sancore timeout "$tdbg" "$BIN" --batch --force \
				--record "$RES/rec/$name.sancore.mi.log" -d "$SRC" \
				--core "$RES/core/$name.san.nvcudmp" "$exe" > "$R.sancore.txt" 2>&1
			rc=$?
			check "$name" sancore "$R.sancore.txt" $rc
		elif expect_names_pass "$EXP" sancore; then
			fail "$name/sancore" "compute-sanitizer wrote no coredump"
		fi
	fi
	[ "${GPU_KEEP_CORES:-0}" = 1 ] || rm -f "$RES/core/$name.nvcudmp" "$RES/core/$name.san.nvcudmp"
	local tool targs
	for tool in racecheck initcheck synccheck; do
		want $tool || continue
		timed "$name" "$tool-xml" timeout "$tdbg" "${senv[@]}" compute-sanitizer \
			--tool "$tool" --xml --save "$RES/xml/$name.$tool.sanitizer.xml" \
			"${prog[@]}" > "$R.$tool-xml-run.txt" 2>&1
		# shellcheck disable=SC2059 # the format is ours
		read -r -a targs <<< "$(printf -- "$SANTOOL_ARGS" "$tool")"
		timed "$name" "$tool" timeout "$tdbg" "$BIN" --batch "${targs[@]}" --force \
			"${cargs[@]}" --record "$RES/rec/$name.$tool.mi.log" -d "$SRC" \
			"${prog[@]}" > "$R.$tool.txt" 2>&1
		rc=$?
		check "$name" "$tool" "$R.$tool.txt" $rc
	done
	cd "$ROOT" || exit 2
}

# perf_program NAME: the serial timings for the ratios (GPU_PERF=1).
perf_program() {
	local name=$1 prog=() passes
	EXP=$ROOT/tests/gpu/$name.expect
	# (the .expect's passes, whatever GPU_PASSES ran: GPU_PASSES=plain
	# GPU_PERF=1 builds the programs and times them all)
	passes=" $(expect_passes "$EXP" plain live memcheck core sancore report) "
	if [ -x "$SRC/$name" ]; then prog=("$SRC/$name"); else prog=(python3 "$SRC/$name.py"); fi
	cd "$SRC" || return
	local P=$RES/reports/$name.perf
	timed "$name" perf-plain timeout 300 "${prog[@]}" > "$P-plain.txt" 2>&1
	timed "$name" perf-bare-cuda-gdb timeout 300 cuda-gdb -batch -ex run --args \
		"${prog[@]}" > "$P-bare-gdb.txt" 2>&1
	timed "$name" perf-live timeout 300 "$BIN" --batch --memcheck=never \
		-d "$SRC" "${prog[@]}" > "$P-live.txt" 2>&1
	case $passes in *" memcheck "*) ;; *) cd "$ROOT" || exit 2; return ;; esac
	timed "$name" perf-bare-sanitizer timeout 300 compute-sanitizer --tool memcheck \
		"${prog[@]}" > "$P-bare-sanitizer.txt" 2>&1
	timed "$name" perf-memcheck timeout 300 "$BIN" --batch --memcheck=always \
		-d "$SRC" "${prog[@]}" > "$P-memcheck.txt" 2>&1
	# The pass narrowed to the kernel the live run stopped in (what the
	# screen's M does after a stop), against the bare sanitizer.
	local kernel
	kernel=$(sed -n 's/^kernel: *\([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$P-live.txt" | head -1)
	[ -n "$kernel" ] && timed "$name" perf-memcheck-kernel timeout 300 "$BIN" --batch \
		--memcheck=always --memcheck-kernel "$kernel" \
		-d "$SRC" "${prog[@]}" > "$P-memcheck-kernel.txt" 2>&1
	cd "$ROOT" || exit 2
}

# collect [DEST]: the recordings and XML in tests/fixtures/gpu layout
# (the examples' h200_NAME.mi.log in tests/fixtures),
# the reports and timings beside them, in $RES/collect.tar.gz (recordings
# over 1 MB gzipped; coredumps never).
collect() {
	local dest=${1:-$RES/collect} f
	rm -rf "$dest"
	mkdir -p "$dest/tests/fixtures/gpu" "$dest/run"
	for f in "$RES"/rec/*.mi.log "$RES"/xml/*.xml; do
		[ -s "$f" ] || continue
		if [ "$(stat -c %s "$f")" -gt 1048576 ]; then
			gzip -9c "$f" > "$dest/tests/fixtures/gpu/$(basename "$f").gz"
		else
			cp "$f" "$dest/tests/fixtures/gpu/"
		fi
	done
	for f in "$RES"/examples/h200_*.mi.log; do
		[ -s "$f" ] && cp "$f" "$dest/tests/fixtures/"
	done
	cp -r "$RES/reports" "$RES/results" "$dest/run/" 2>/dev/null
	cp -r "$RES"/timings "$RES"/timings.tsv "$RES"/perf.tsv "$dest/run/" 2>/dev/null
	find "$dest" -name '*.nvcudmp*' -delete
	tar -C "$dest" -czf "$RES/collect.tar.gz" .
	echo "collected: $RES/collect.tar.gz ($(du -h "$RES/collect.tar.gz" | cut -f1))"
}

# corpus NAME...: every program in parallel, GPU_JOBS at a time.
corpus() {
	local jobs=${GPU_JOBS:-6} n running=0 start=$SECONDS late=()
	local deadline=${GPU_DEADLINE_S:-420}
	cp "$ROOT"/tests/gpu/*.cu "$ROOT"/tests/gpu/*.py "$ROOT"/tests/gpu/launch_*.sh \
		"$SRC"/ 2>/dev/null
	for n in "$@"; do
		if [ $((SECONDS - start)) -ge "$deadline" ]; then
			# under the 10-minute cap of one command: what is left is
			# named, to be run by name in the next command
			late+=("$n"); rm -f "$RES/results/$n.txt"; continue
		elif [ ! -f "$ROOT/tests/gpu/$n.expect" ]; then
			fail "$n" "no tests/gpu/$n.expect"; continue
		elif [ ! -f "$SRC/$n.cu" ] && [ ! -f "$SRC/$n.py" ] &&
		     [ ! -f "$SRC/$n.sh" ]; then
			fail "$n" "no tests/gpu/$n.cu, .py or .sh"; continue
		fi
		while [ "$running" -ge "$jobs" ]; do wait -n; running=$((running - 1)); done
		( program_job "$n" > "$RES/results/$n.txt" 2>&1 ) &
		running=$((running + 1))
	done
	wait
	if [ ${#late[@]} -gt 0 ]; then
		fail "programs" "${#late[@]} not started within GPU_DEADLINE_S=${deadline}s; run them next: tests/gpu/gpu-test.sh ${late[*]}"
	fi
	for n in "$@"; do
		[ -f "$RES/results/$n.txt" ] || continue
		cat "$RES/results/$n.txt"
		passed=$((passed + $(grep -c '^PASS ' "$RES/results/$n.txt")))
		failed=$((failed + $(grep -c '^FAIL ' "$RES/results/$n.txt")))
		cat "$RES/timings/$n.tsv" >> "$TIMES" 2>/dev/null
	done
	if [ "${GPU_PERF:-0}" = 1 ]; then
		TIMES=$RES/perf.tsv
		: > "$TIMES"
		for n in "$@"; do
			[ -f "$RES/results/$n.txt" ] && perf_program "$n"
		done
		TIMES=$RES/timings.tsv
		echo "== perf (name pass seconds rc, serial)"; cat "$RES/perf.tsv"
	fi
}

# ---- the shared examples, recorded for the replay tests (issue: MI engine) ----
# Recorded as h200_NAME.mi.log, the name they have in tests/fixtures
# (tests/fixtures/README.md: the shared fixtures hold other recordings
# under NAME.mi.log); collect copies them there.
examples() {
	local ex=$SRC/examples
	mkdir -p "$ex" "$RES/examples"
	cp "$ROOT"/data/examples/* "$ex"/
	cd "$ex" || return
	for p in assert_label null_write step_kernel small_oob; do
		nvcc -g -G -arch=sm_90 -o $p $p.cu || { fail "examples/$p" "nvcc failed"; continue; }
	done
	timed assert_label example-live timeout 120 "$BIN" --batch --memcheck=never --force \
		--record "$RES/examples/h200_assert_label.mi.log" ./assert_label > "$RES/examples/assert_label.txt" 2>&1
	timed null_write example-live timeout 120 "$BIN" --batch --memcheck=never --force \
		--record "$RES/examples/h200_null_write.mi.log" ./null_write > "$RES/examples/null_write.txt" 2>&1
	timed step_kernel example-break timeout 120 "$BIN" --batch --memcheck=never --force -b saxpy2 \
		--record "$RES/examples/h200_step_kernel.mi.log" ./step_kernel > "$RES/examples/step_kernel.txt" 2>&1
	timed small_oob example-memcheck timeout 120 "$BIN" --batch --memcheck=always --force \
		--record "$RES/examples/h200_small_oob.mi.log" ./small_oob > "$RES/examples/small_oob.txt" 2>&1
	for p in assert_label null_write step_kernel small_oob; do
		[ -s "$RES/examples/h200_$p.mi.log" ] && pass "examples/$p recorded" || fail "examples/$p" "no recording"
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
	stepscreen
	screen_passes
}

# A breakpoint in a kernel, then next, step and the GPU map (GPU_SECTIONS
# stepscreen runs it alone).
stepscreen() {
	mkdir -p "$RES/screens"
	# (the examples section builds it; alone, screens builds it here)
	if [ ! -x "$SRC/examples/step_kernel" ]; then
		mkdir -p "$SRC/examples" && cp "$ROOT"/data/examples/step_kernel.cu "$SRC/examples/" &&
			nvcc -g -G -arch=sm_90 -o "$SRC/examples/step_kernel" "$SRC/examples/step_kernel.cu" ||
			{ fail screens/step "nvcc step_kernel failed"; return; }
	fi
	cd "$SRC/examples" || return
	$T new-session -d -s step -x 120 -y 40 \
		"cd $SRC/examples && TERM=xterm-256color $BIN --memcheck=never -d $SRC/examples -b saxpy2 ./step_kernel; sleep 600"
	expect_screen step-break step 'reakpoint 1' 60 "no breakpoint stop"
	sleep 2; cap step step-1-break
	$T send-keys -t step n; sleep 3; cap step step-2-next
	$T send-keys -t step s; sleep 3; cap step step-3-step
	$T send-keys -t step ']'; sleep 2; cap step step-4-map
	# each step moved the stop: the screens differ, and none says error
	local S=$RES/screens
	if ! cmp -s "$S/step-1-break.txt" "$S/step-2-next.txt" &&
	   ! cmp -s "$S/step-2-next.txt" "$S/step-3-step.txt" &&
	   ! grep -qi 'error' "$S/step-2-next.txt" "$S/step-3-step.txt"; then
		pass screens/step-moves
	else
		fail screens/step-moves "n or s did not move the stop (or an error showed)"
	fi
	$T send-keys -t step q; sleep 0.5; $T send-keys -t step y; sleep 2
	$T kill-session -t step 2>/dev/null
	cd "$ROOT" || exit 2
}

# screen_programs LABEL NAME...: the corpus programs a screen section
# drives, copied to $SRC and built as the corpus builds them
# (build_program), unless already built; FAIL LABEL when one fails.
screen_programs() {
	local label=$1 n; shift
	for n in "$@"; do
		cp "$ROOT/tests/gpu/$n.cu" "$SRC/"
		[ -x "$SRC/$n" ] || build_program "$n" ||
			{ fail "$label" "nvcc $n failed (see reports/$n.nvcc.txt)"; return 1; }
	done
}

# The memcheck pass and replay to fault from the screen (issue: diagnosis):
# off_by_one ends cleanly under cuda-gdb; M runs the pass and opens its
# coredump at the faulting thread; T reruns and stops that thread before
# the read.  api_error fails without a device stop, so the auto policy
# runs the pass by itself.
screen_passes() {
	screen_programs screens/passes off_by_one api_error || return
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
	screen_groups
}

# Issue 13, items 5, 6 and 8 on the H200: misaligned's warp-wide findings
# grouped in the diagnosis (one [+] row, Enter opens it), with extra
# compute-sanitizer flags passed to the pass; a hang's blocks listed in
# the Hints pane (hang_barrier, --timeout).
screen_groups() {
	screen_programs screens/groups misaligned hang_barrier || return
	$T new-session -d -s groups -x 120 -y 50 \
		"cd $SRC && TERM=xterm-256color $BIN --memcheck=always --sanitizer-flags '--print-level warn' -d $SRC ./misaligned; sleep 600"
	wait_screen groups 'coredump is open at the faulting thread' 150 ||
		fail screens/groups-core "the pass's coredump did not open"
	sleep 2; $T send-keys -t groups z; sleep 1
	expect_screen findings-grouped groups '\[\+\] 1\. ' 10 "no group row of the findings"
	expect_screen findings-count groups '[0-9]+ findings' 10 "no count on the group row"
	$T send-keys -t groups '/' '[+] 1.' Enter Escape Enter; sleep 2
	expect_screen findings-group-open groups '\[-\] 1\. ' 10 "Enter did not open the group"
	cap groups groups-1-open
	$T send-keys -t groups z q; sleep 0.5; $T send-keys -t groups y; sleep 2
	$T kill-session -t groups 2>/dev/null
	$T new-session -d -s hangs -x 120 -y 40 \
		"cd $SRC && TERM=xterm-256color $BIN --timeout 10 -d $SRC ./hang_barrier; sleep 600"
	expect_screen hang-stop hangs 'Hang: kernel stage_rows' 90 "no hang at the timeout"
	$T send-keys -t hangs "'" h i n Enter; sleep 2
	expect_screen hang-blocks hangs 'Where the blocks are' 10 "no blocks in the Hints pane"
	cap hangs hangs-1-blocks
	$T send-keys -t hangs q; sleep 0.5; $T send-keys -t hangs y; sleep 2
	$T kill-session -t hangs 2>/dev/null
}

# ---- PyTorch faults on the screen (issue 11, item 6) ----
# Each PyTorch program of the corpus that names a value, live in the
# screen at 120x40, all at once: the capture at the fault stop must show
# the user's script line, the operator and the bad value
# (screens/py-NAME-fault.txt), as the batch report does.
PY_SCREENS="torch_label torch_embedding torch_embedding_module torch_adv_index
	torch_bce torch_multinomial torch_nll_ignore torch_dataloader"
# py_screen_rules NAME CAPTURE: the screen at the fault stop says what
# NAME.expect pins for the live batch report: the script line (the
# Hints pane's "python" row), the operator ("op" row) and the bad value
# (the hint line at the bottom).
py_screen_rules() {
	local n=$1 f=$2 e="$ROOT/tests/gpu/$1.expect" line op val
	line=$(sed -n "s/^live: ^  python     .*$n\\\.py:\([0-9]*\) .*/\1/p" "$e" | head -1)
	op=$(sed -n 's/^live: ^  operator   \([A-Za-z_]*\).*/\1/p' "$e" | head -1)
	val=$(sed -n 's/^live: ^  value      //p' "$e" | head -1)
	if [ -n "$line" ] && grep -q "python  $n\.py:$line " "$f"; then pass "pyscreens/$n-line"
	else fail "pyscreens/$n-line" "no python  $n.py:${line:-?} on the screen"; fi
	if [ -n "$op" ] && grep -q "op      $op" "$f"; then pass "pyscreens/$n-operator"
	else fail "pyscreens/$n-operator" "no op row naming ${op:-?}"; fi
	if [ -n "$val" ] && grep -Eq "the bad value: $val" "$f"; then pass "pyscreens/$n-value"
	else fail "pyscreens/$n-value" "no bad value matching ${val:-?}"; fi
}

pyscreens() {
	mkdir -p "$RES/screens"
	command -v tmux >/dev/null || { fail pyscreens "tmux not installed"; return; }
	local n
	for n in $PY_SCREENS; do
		cp "$ROOT/tests/gpu/$n.py" "$SRC/"
		$T new-session -d -s "py-$n" -x 120 -y 40 \
			"cd $SRC && TERM=xterm-256color $BIN --memcheck=never --record $RES/screens/py-$n.mi.log python3 $n.py; sleep 600"
	done
	for n in $PY_SCREENS; do
		# the Python line comes with the stack taken at the stop, after
		# the host symbols were read (run 8 caught two screens before)
		if wait_screen "py-$n" "python  $n\\.py:" 170; then
			# the op row follows once torch's CUDA library is read
			# (docs/python.md, "Host symbols")
			wait_screen "py-$n" "^ op      " 40
			sleep 1; cap "py-$n" "py-$n-fault"
			py_screen_rules "$n" "$RES/screens/py-$n-fault.txt"
		else
			fail "pyscreens/$n" "no diagnosis on the screen"
			cap "py-$n" "py-$n-fault"
		fi
		$T send-keys -t "py-$n" q; sleep 0.3; $T send-keys -t "py-$n" y
	done
	sleep 2
	for n in $PY_SCREENS; do $T kill-session -t "py-$n" 2>/dev/null; done
}

# ---- M after a live stop narrows the pass to the stop's kernel ----
# null_deref stops live at a Warp Illegal Address in row_sums; M runs
# compute-sanitizer on row_sums alone (--kernel-name regex=row_sums) and
# opens its coredump at the faulting thread.
narrowscreen() {
	mkdir -p "$RES/screens"
	screen_programs screens/narrow null_deref || return
	$T new-session -d -s narrow -x 120 -y 40 \
		"cd $SRC && TERM=xterm-256color $BIN --memcheck=never -d $SRC ./null_deref; sleep 600"
	expect_screen narrow-stop narrow 'Illegal Address' 90 "no live stop"
	# (a live program is given up only with a yes: M asks first; run 6
	# sent M alone and waited on the question)
	sleep 2; $T send-keys -t narrow M; sleep 0.5; $T send-keys -t narrow y
	expect_screen narrow-kernel narrow 'checking kernel row_sums only' 20 "M did not narrow to row_sums"
	cap narrow narrow-1-running
	expect_screen narrow-core narrow 'coredump is open at the faulting thread' 120 "no coredump opened"
	sleep 2; cap narrow narrow-2-core
	$T send-keys -t narrow q; sleep 0.5; $T send-keys -t narrow y; sleep 2
	$T kill-session -t narrow 2>/dev/null
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

# ---- performance ratios for docs/performance.md (issue: ready for users) ----
perf() {
	[ -x "$SRC/examples/assert_label" ] || examples >/dev/null
	cp "$ROOT/data/examples/seed_repro.py" "$SRC/"
	(cd "$SRC/examples" && python3 "$ROOT/tests/gpu/perf.py" "$BIN" ./assert_label) | tee -a "$RES/perf.txt"
	(cd "$SRC" && python3 "$ROOT/tests/gpu/perf.py" "$BIN" python3 seed_repro.py) | tee -a "$RES/perf.txt"
	grep -q '^measure=' "$RES/perf.txt" && pass perf || fail perf "no measures"
}


if [ "${1-}" = collect ]; then
	shift
	collect "$@"
	exit 0
fi

echo "== environment"
nvidia-smi -L; cuda-gdb --version | head -1; compute-sanitizer --version | tail -1
nvcc --version | tail -1; python3 -c 'import torch; print("torch", torch.__version__)'
[ -x "$BIN" ] || { echo "FAIL gpu-test: $BIN not built (run make)"; exit 2; }
: > "$TIMES"

SECTIONS=${GPU_SECTIONS:-programs examples screens pyscreens narrowscreen kills perf}
case " $SECTIONS " in *" examples "*) echo "== examples"; examples ;; esac
case " $SECTIONS " in *" screens "*) echo "== screens"; screens ;; esac
case " $SECTIONS " in *" pyscreens "*) echo "== pyscreens"; pyscreens ;; esac
case " $SECTIONS " in *" stepscreen "*) echo "== stepscreen"; stepscreen ;; esac
case " $SECTIONS " in *" narrowscreen "*) echo "== narrowscreen"; narrowscreen ;; esac
case " $SECTIONS " in *" groupscreen "*) echo "== groupscreen"; mkdir -p "$RES/screens"; screen_groups ;; esac
case " $SECTIONS " in *" kills "*) echo "== kills"; kills ;; esac
case " $SECTIONS " in *" perf "*) echo "== perf"; perf ;; esac
case " $SECTIONS " in *" programs "*) ;; *) set -- none ;; esac

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	# The slow ones first (PyTorch, the extension's build first of all),
	# so the parallel run does not end on a long tail.
	[ -f "$ROOT/tests/gpu/torch_extension.expect" ] && names+=(torch_extension)
	for f in "$ROOT"/tests/gpu/*.expect; do
		n=$(basename "$f" .expect)
		[ "$n" != torch_extension ] && [ -f "$ROOT/tests/gpu/$n.py" ] && names+=("$n")
	done
	for f in "$ROOT"/tests/gpu/*.expect; do
		n=$(basename "$f" .expect)
		[ -f "$ROOT/tests/gpu/$n.cu" ] && names+=("$n")
	done
fi
if [ "${names[0]}" != none ]; then
	echo "== programs (${#names[@]}, ${GPU_JOBS:-6} at a time)"
	corpus "${names[@]}"
	collect
fi

echo "== timings (name pass seconds rc)"; cat "$TIMES"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
