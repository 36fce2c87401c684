#!/bin/sh
# The project's own recordings from the H200 (tests/fixtures, made by
# `make gpu-test` with --record) replayed through batch mode: each must give
# the diagnosis tests/gpu/NAME.expect asks of the live run (NAME.mi.log),
# of the coredump (NAME.core.mi.log) and, with the saved compute-sanitizer
# report, of the memcheck pass (`report:` lines where they differ).
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
out=$(mktemp); trap 'rm -f "$out"' EXIT

check() { # label kind file [extra args]: greps KIND: lines of the .expect
	label=$1 kind=$2 exp=$3; shift 3
	timeout 60 "$BIN" --batch "$@" >"$out" 2>&1
	bad=""
	while IFS= read -r line; do
		case "$line" in "$kind: "*) ;; *) continue ;; esac
		re=${line#"$kind: "}
		grep -Eq -- "$re" "$out" || bad="$bad [$re]"
	done < "$exp"
	if [ -z "$bad" ]; then echo "PASS recordings/$label"; else
		echo "FAIL recordings/$label: missing$bad"; sed 's/^/    /' "$out" | head -30; fi
}

for exp in tests/gpu/*.expect; do
	n=$(basename "$exp" .expect)
	f=tests/fixtures/gpu/$n
	# A program added since the last GPU run has no recording yet:
	# `make gpu-test` on a GPU makes it (then commit it).
	[ -f "$f.mi.log" ] || { echo "SKIP recordings/$n: not recorded yet (make gpu-test on a GPU records tests/fixtures/gpu/$n.mi.log)"; continue; }
	check "$n/live" live "$exp" --replay "$f.mi.log"
	# pylive: the live Python stack, script line, operator and bad value
	# (tests/gpu/python-live.sh records them); a recording made before
	# cudbg-tui called into the interpreter has none of it.
	if grep -q '^pylive: ' "$exp"; then
		if grep -q 'PyRun_SimpleString' "$f.mi.log"; then
			check "$n/pylive" pylive "$exp" --replay "$f.mi.log"
		else
			echo "SKIP recordings/$n/pylive: recorded before the live Python stack (tests/gpu/python-live.sh records it)"
		fi
	fi
	[ -f "$f.core.mi.log" ] && check "$n/core" core "$exp" --replay "$f.core.mi.log"
	# The XML alone lacks the "N bytes after the nearest allocation" text
	# of the pass's output; an .expect says what a saved report gives
	# with `report:` lines where that differs.
	kind=memcheck
	grep -q '^report: ' "$exp" && kind=report
	[ -f "$f.sanitizer.xml" ] && check "$n/memcheck" $kind "$exp" \
		--replay "$f.mi.log" --sanitizer-report "$f.sanitizer.xml"
done

# The recorded examples (issue: MI engine).
ex() { # label file pattern...
	label=$1 file=$2; shift 2
	timeout 60 "$BIN" --batch --replay "$file" >"$out" 2>&1
	for p in "$@"; do
		grep -Eq -- "$p" "$out" || { echo "FAIL recordings/$label: no '$p'"; sed 's/^/    /' "$out" | head -20; return; }
	done
	echo "PASS recordings/$label"
}
ex examples/assert_label tests/fixtures/assert_label.mi.log 'Warp Assert in nll_loss' \
	'kernel at: #1 nll_loss at assert_label.cu:10' 't >= 0 && t < num_classes'
ex examples/null_write tests/fixtures/null_write.mi.log 'Warp Illegal Address in apply' \
	'exception: Warp Illegal Address at pc 0x[0-9a-f]+ in apply\(Params, float\*\) at null_write.cu:10'
ex examples/step_kernel tests/fixtures/step_kernel.mi.log 'Breakpoint 1 in saxpy2' \
	'frame: +#0 saxpy2 at step_kernel.cu:8'
