#!/bin/sh
# The project's own recordings from the H200 (tests/fixtures/gpu, made by
# `make gpu-test` with --record and its collect step) replayed through
# batch mode: every recorded pass of every program in tests/gpu must give
# what tests/gpu/NAME.expect asks of that pass (the rules are in
# tests/gpu/expect.sh: PASS:, not:, not-PASS:, exit-PASS:):
#   live       NAME.mi.log
#   memcheck   NAME.memcheck.mi.log (with NAME.sanitizer.xml when saved;
#              one made before the pass's text was kept, with no
#              `sanitizer|` notes, skips the memcheck-text: rules)
#   core       NAME.core.mi.log        sancore  NAME.sancore.mi.log
#   report     NAME.mi.log with --sanitizer-report NAME.sanitizer.xml
#              (the memcheck: rules where the .expect has no report: rule)
#   TOOL       NAME.TOOL.mi.log (else NAME.mi.log) with
#              NAME.TOOL.sanitizer.xml, for racecheck, initcheck, synccheck
# Under tests/run.sh each replay runs once more with --json: its report is
# kept for the schema check (tests/sh/lib/reports.sh; report_schema.sh's
# sweep leaves these recordings to it) and its exit status must be the
# text report's.  (The ASan pass of `make test` leaves this test to the
# asan-sweep pass of `make gauntlet`: tests/check.sh says why.)
# A recording may be gzipped (NAME.mi.log.gz, over 1 MB).  A program or a
# pass with rules but no recording yet gets a SKIP line.
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
. tests/gpu/expect.sh
. tests/sh/lib/reports.sh
out=$(mktemp); jout=$(mktemp); trap 'rm -f "$out" "$jout"' EXIT

# json_too LABEL RC ARGS...: the same replay with --json, kept for the
# schema check; a FAIL line when its exit status is not RC, the text
# report's, or when it calls a CUDA program a host run ($jexp: the
# .expect that may allow it).  Only under tests/run.sh (CUDBG_JSON_REPORTS set).
json_too() {
	[ -n "${CUDBG_JSON_REPORTS:-}" ] || return 0
	jl=$1 jrc=$2; shift 2
	timeout 60 "$BIN" --json -d tests/gpu "$@" >"$jout" 2>/dev/null
	rc=$?
	keep_report "$jout"
	[ "$rc" = "$jrc" ] ||
		echo "FAIL recordings/$jl/json: exit status $rc, the text report's $jrc"
	# every program here ran CUDA code: the fact that says it made no
	# CUDA call (a host run) is false of it, unless its .expect says
	# otherwise (a failure before the first CUDA call)
	if grep -q '"no-cuda-library"' "$jout" && ! grep -q 'no-cuda-library' "${jexp:-/dev/null}"; then
		echo "FAIL recordings/$jl/no-cuda-library: a CUDA program's run called a host run"
	fi
}

# check LABEL PASS EXP ARGS...: replays, checks PASS's rules of EXP.
# The sources are in tests/gpu, as they were in the GPU run's -d
# directory: a hang's spin loops and barriers are read from them.
check() {
	label=$1 pass=$2 exp=$3; shift 3
	timeout 60 "$BIN" --batch -d tests/gpu "$@" >"$out" 2>&1
	rc=$?
	if why=$(expect_check "$exp" "$pass" "$out" "$rc"); then
		echo "PASS recordings/$label"
	else
		echo "FAIL recordings/$label: $(printf '%s' "$why" | tr '\n' ' ')"
		sed 's/^/    /' "$out" | head -30
	fi
	jexp=$exp
	json_too "$label" "$rc" "$@"
}

# rec FILE: FILE, or FILE.gz when only that is there; fails when neither.
rec() {
	if [ -f "$1" ]; then echo "$1"; elif [ -f "$1.gz" ]; then echo "$1.gz"; else return 1; fi
}

# skip_if_named LABEL EXP PASS: a SKIP line when EXP has rules for PASS.
skip_if_named() {
	expect_names_pass "$2" "$3" &&
		echo "SKIP recordings/$1: not recorded yet (make gpu-test on a GPU, then commit its collect tarball's tests/fixtures/gpu)"
	return 0
}

# has_pass_text REC: true when the recording REC holds the sanitizer's
# text output as `sanitizer|` notes (docs/transcript-format.md).
has_pass_text() {
	{ case $1 in *.gz) gzip -dc "$1" ;; *) cat "$1" ;; esac; } |
		grep -Eq '^ *[0-9.]+ # sanitizer[|+=] '
}

# memcheck_replay NAME EXP REC XML: the memcheck pass's recording with its
# XML.  The pass's diagnosis also reads compute-sanitizer's text output
# ("N bytes after the nearest allocation", a PyTorch assert's message),
# which a recording made before the pass kept it (as `sanitizer|` notes)
# lacks: that one is checked without the memcheck-text: rules, and a SKIP
# line names them.  (report: rules do not fit it: they describe the live
# recording, which holds the program's output, and its stop, not the
# coredump's.)
memcheck_replay() {
	# A pass that stopped the sanitizer (as its coredump began, or in
	# it) never had an XML: it diagnosed from its text, and so does its
	# replay.  NAME.sanitizer.xml is another run's (a bare sanitizer
	# run, gpu-test.sh), whose addresses are not this run's.
	if { case $3 in *.gz) gzip -dc "$3" ;; *) cat "$3" ;; esac; } |
		grep -Eq '^ *[0-9.]+ # memcheck pass ended after [0-9.]+ s; stopped '; then
		check "$1/memcheck" memcheck "$2" --replay "$3"
		return
	fi
	if has_pass_text "$3"; then
		check "$1/memcheck" memcheck "$2" --replay "$3" --sanitizer-report "$4"
		return
	fi
	EXPECT_NO_TEXT=1
	check "$1/memcheck" memcheck "$2" --replay "$3" --sanitizer-report "$4"
	EXPECT_NO_TEXT=0
	left=$(grep -E '^memcheck-text: ' "$2" | while IFS= read -r l; do
		printf ' [%s]' "${l#memcheck-text: }"; done)
	[ -z "$left" ] ||
		echo "SKIP recordings/$1/memcheck-text: recorded before the pass text was kept; make gpu-test re-records; unchecked:$left"
}

for exp in tests/gpu/*.expect; do
	n=$(basename "$exp" .expect)
	f=tests/fixtures/gpu/$n
	xml=$f.sanitizer.xml
	# A program added since the last GPU run has no recording yet.
	live=$(rec "$f.mi.log") || {
		echo "SKIP recordings/$n: not recorded yet (make gpu-test on a GPU records tests/fixtures/gpu/$n.mi.log)"
		continue
	}
	check "$n/live" live "$exp" --replay "$live"
	# pylive: the live Python stack, script line, operator and bad value
	# (tests/gpu/python-live.sh records them); a recording made before
	# cudbg-tui called into the interpreter has none of it.
	if expect_names_pass "$exp" pylive; then
		if { case $live in *.gz) gzip -dc "$live" ;; *) cat "$live" ;; esac; } |
			grep -q 'PyRun_SimpleString'; then
			check "$n/pylive" pylive "$exp" --replay "$live"
		else
			echo "SKIP recordings/$n/pylive: recorded before the live Python stack (tests/gpu/python-live.sh records it)"
		fi
	fi
	for p in memcheck core sancore; do
		if r=$(rec "$f.$p.mi.log"); then
			if [ $p = memcheck ] && [ -f "$xml" ]; then
				memcheck_replay "$n" "$exp" "$r" "$xml"
			else
				check "$n/$p" $p "$exp" --replay "$r"
			fi
		elif [ $p = core ] && grep -q '^coredump-run: ' "$exp" &&
		     [ -f "$f.coredump-run.txt" ]; then
			# no driver coredump: the program did not fault with
			# coredumps on; what it printed then is checked
			if why=$(expect_check "$exp" coredump-run "$f.coredump-run.txt"); then
				echo "PASS recordings/$n/coredump-run"
			else
				echo "FAIL recordings/$n/coredump-run: $(printf '%s' "$why" | tr '\n' ' ')"
			fi
		else
			skip_if_named "$n/$p" "$exp" $p
		fi
	done
	# The XML alone lacks the "N bytes after the nearest allocation" text
	# of the pass's output; an .expect says what a saved report gives
	# with report: rules where that differs.
	kind=memcheck
	expect_names_pass "$exp" report && kind=report
	if [ -f "$xml" ]; then
		check "$n/report" $kind "$exp" --replay "$live" --sanitizer-report "$xml"
	else
		skip_if_named "$n/report" "$exp" report
	fi
	# The sanitizer tools: their own recording when there is one, else
	# the live recording, with the tool's XML either way.
	for t in racecheck initcheck synccheck; do
		r=$(rec "$f.$t.mi.log") || r=$live
		if [ -f "$f.$t.sanitizer.xml" ]; then
			check "$n/$t" $t "$exp" --replay "$r" --sanitizer-report "$f.$t.sanitizer.xml"
		elif [ "$r" != "$live" ]; then
			check "$n/$t" $t "$exp" --replay "$r"
		else
			skip_if_named "$n/$t" "$exp" $t
		fi
	done
done

# A memcheck pass whose findings were the report (an imprecise first
# error: no live run) replayed without its XML, as a user replays a
# recording that travelled alone: the findings come from the recorded
# text, and the report names the thread and says nothing unknown
# (before, "Focus: block (unknown), thread (unknown)").
for r in tests/fixtures/gpu/*.memcheck.mi.log; do
	# (a pass of failing CUDA calls only, or a clean one, has no thread
	# to name: its note gives no reason before "no live run")
	grep -q '^ *[0-9.]* # memcheck pass ended .*; no live run' "$r" || continue
	grep -Eq '^ *[0-9.]* # memcheck pass ended after [0-9.]* s; no live run$' "$r" && continue
	n=$(basename "$r" .memcheck.mi.log)
	timeout 60 "$BIN" --batch --replay "$r" >"$out" 2>&1
	if grep -Eq '^  thread +block \([0-9]+,[0-9]+,[0-9]+\) thread' "$out" &&
	   ! grep -Eq '\(unknown\)|no fault found' "$out"; then
		echo "PASS recordings/$n/memcheck-without-xml"
	else
		echo "FAIL recordings/$n/memcheck-without-xml: no thread, or something unknown"
		sed 's/^/    /' "$out" | head -20
	fi
done

# The recorded examples (issue: MI engine).
ex() { # label file pattern...
	label=$1 file=$2; shift 2
	timeout 60 "$BIN" --batch --replay "$file" >"$out" 2>&1
	jrc=$? jexp=
	json_too "$label" $jrc --replay "$file"
	for p in "$@"; do
		grep -Eq -- "$p" "$out" || { echo "FAIL recordings/$label: no '$p'"; sed 's/^/    /' "$out" | head -20; return; }
	done
	echo "PASS recordings/$label"
}
ex examples/assert_label tests/fixtures/h200_assert_label.mi.log 'Warp Assert in nll_loss' \
	'kernel at: #1 nll_loss at assert_label.cu:10' 't >= 0 && t < num_classes'
ex examples/null_write tests/fixtures/h200_null_write.mi.log 'Warp Illegal Address in apply' \
	'exception: Warp Illegal Address at pc 0x[0-9a-f]+ in apply\(Params, float\*\) at null_write.cu:10'
ex examples/step_kernel tests/fixtures/h200_step_kernel.mi.log 'Breakpoint 1 in saxpy2' \
	'frame: +#0 saxpy2 at step_kernel.cu:8'
# Crafted from null_deref.mi.log (its header says how): a 32-bit index
# near INT_MIN at an illegal address (issue 10, item 8).
ex crafted/int_overflow tests/fixtures/int_overflow.mi.log \
	'^\[1\] .*\(index-overflow\)' 'c = -2147483520 \(int\) in the faulting frame'

# The bad value of gather, scatter, index_select and index_add_ with the
# dim read from the call on the line (issue 11, item 3) is in their live
# recordings since run 7 (tests/fixtures/gpu/run7): their .expect pins it
# and the replays above check it; the crafted recordings that stood for
# it before are gone.

# A replay does not wait for late program output (issue 10, section 3):
# from the debugger's readiness to the stop shown took a fixed 0.25 s
# before; now well under it (skipped under valgrind, which is slow).
if [ "${CUDBG_VALGRIND:-0}" != 1 ]; then
	t=$(CUDBG_TIMING=1 timeout 60 "$BIN" --batch --replay tests/fixtures/gpu/null_deref.mi.log 2>&1 >/dev/null |
		sed -n 's/.* debugger_ready=\([0-9.]*\) stop=\([0-9.]*\) .*/\1 \2/p')
	if [ -n "$t" ] && echo "$t" | awk '{ exit !($2 - $1 < 0.2) }'; then
		echo "PASS recordings/replay-does-not-wait"
	else
		echo "FAIL recordings/replay-does-not-wait: ready/stop at '$t' s"
	fi
fi
