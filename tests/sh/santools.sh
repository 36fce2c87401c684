#!/bin/sh
# --sanitizer-tool: the pass runs racecheck, initcheck or synccheck (the
# stand-in compute-sanitizer checks the command line: --xml, no coredump
# for these tools) and the diagnosis lists their findings with their
# hints.  The reports are the hand-made ones of tests/data/santools/.
set -u
BIN=${CUDBG_BIN:?}
ROOT=${CUDBG_ROOT:-.}
FAKE=$ROOT/tests/data/fake-compute-sanitizer
PROG=${CUDBG_BUILD:?}/progs/steps
out=$(mktemp); log=$(mktemp); trap 'rm -f "$out" "$log"' EXIT
pass() { echo "PASS santools/$1"; }
fail() { echo "FAIL santools/$1: $2"; sed 's/^/    /' "$out" | head -20; }
. "$ROOT/tests/sh/lib/reports.sh" # keep_report
json() { # name python-expression over d (a --json report, kept)
	keep_report "$out"
	if python3 -c "import json,sys; d=json.load(open('$out')); sys.exit(0 if ($2) else 1)" 2>/dev/null
	then pass "$1"; else fail "$1" "JSON check failed: $2"; fi
}
if ! command -v gdb >/dev/null; then
	echo "SKIP santools/pass: gdb not installed"
	exit 0
fi
run() { # tool report
	: >"$log"
	FAKE_SAN_TOOLLOG=$log FAKE_SAN_XML=$ROOT/tests/data/santools/$2 \
		timeout 60 "$BIN" --json --debugger gdb --memcheck=always \
		--sanitizer "$FAKE" --sanitizer-tool="$1" "$PROG" >"$out" 2>/dev/null
}
for t in racecheck:race:san-race:Race initcheck:initcheck:san-uninit:Uninitialized \
	 synccheck:synccheck:san-sync:Sync; do
	IFS=: read -r tool file hint kind <<-EOT
	$t
	EOT
	run "$tool" "$file.sanitizer.xml"
	if grep -qx "tool=$tool" "$log"; then pass "$tool-asked"; else
		fail "$tool-asked" "the sanitizer was not run with --tool $tool"; fi
	json "$tool-finding" "d['diagnosis']['findings'][0]['kind'] == '$kind' \
and d['diagnosis']['hints'][0]['id'] == '$hint' and d['fault']"
done
run racecheck race.sanitizer.xml
json race-pair "d['diagnosis']['findings'][0]['hazard'] == 'RAW' and \
d['diagnosis']['findings'][0]['other_access']['line'] == 11 and \
d['diagnosis']['findings'][0]['thread'] is None"
# issue 29 item 4: a tool named by the user runs with the default
# --memcheck=auto too (a program that exits 0 ran no pass before: "no
# fault found"), and the header names the tool that found it
: >"$log"
FAKE_SAN_TOOLLOG=$log FAKE_SAN_XML=$ROOT/tests/data/santools/race.sanitizer.xml \
	timeout 60 "$BIN" --batch --debugger gdb --sanitizer "$FAKE" \
	--sanitizer-tool=racecheck "$PROG" >"$out" 2>/dev/null
if grep -qx "tool=racecheck" "$log" &&
   grep -q '^cudbg-tui diagnosis: FAULT (racecheck)$' "$out"; then
	pass racecheck-named-runs
else
	fail racecheck-named-runs "no racecheck pass with --memcheck=auto, or the header does not name it"
fi
# memcheck stays the default, with its coredump
: >"$log"
FAKE_SAN_TOOLLOG=$log FAKE_SAN_XML=$ROOT/tests/shared/fixtures/small_oob.sanitizer.xml \
	timeout 60 "$BIN" --json --debugger gdb --memcheck=always --sanitizer "$FAKE" \
	"$PROG" >"$out" 2>/dev/null
keep_report "$out"
if grep -qx "tool=memcheck" "$log"; then pass default-memcheck; else
	fail default-memcheck "the default tool is not memcheck"; fi
# a tool that does not exist: a one-line error naming it
timeout 10 "$BIN" --batch --sanitizer-tool=helgrind "$PROG" >"$out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "sanitizer-tool takes memcheck, racecheck, initcheck or synccheck, not 'helgrind'" "$out"
then pass bad-tool; else fail bad-tool "exit $rc"; fi

# --sanitizer-flags and the config file's sanitizer-flags: the words reach
# compute-sanitizer in order (the file's first), before the program, with
# no shell between; a --print-limit of the user's replaces the pass's.
argv=$(mktemp); cfg=$(mktemp); scr=$(mktemp)
trap 'rm -f "$out" "$log" "$argv" "$cfg" "$scr"' EXIT
printf '# extra flags\nsanitizer-flags --check-device-heap no  --print-level=error\n' >"$cfg"
flags_ok() { # name: the argv file holds the expected words in order
	# shellcheck disable=SC2016
	want='--check-device-heap
no
--print-level=error
--kernel-name
kns=steps
--print-limit=7
--force-blocking-launches
'"$PROG"
	got=$(sed -n '/^--check-device-heap$/,$p' "$argv")
	n=$(grep -c '^--print-limit' "$argv")
	if [ "$got" = "$want" ] && [ "$n" -eq 1 ] && [ "$(head -1 "$argv")" = --tool ]
	then pass "$1"; else
		fail "$1" "the sanitizer's argv was: $(tr '\n' ' ' <"$argv")"; fi
}
: >"$argv"
CUDBG_CONFIG=$cfg FAKE_SAN_ARGV=$argv \
	FAKE_SAN_XML=$ROOT/tests/shared/fixtures/small_oob.sanitizer.xml \
	timeout 60 "$BIN" --json --debugger gdb --memcheck=always --sanitizer "$FAKE" \
	--sanitizer-flags "--kernel-name  kns=steps --print-limit=7" \
	--sanitizer-flags=--force-blocking-launches "$PROG" >"$out" 2>&1
flags_ok flags-batch
# the same through the screen's pass (tui/glue_diag.c)
printf ':wait-state exited\nq\n' >"$scr"
: >"$argv"
CUDBG_CONFIG=$cfg FAKE_SAN_ARGV=$argv HOME=$(dirname "$scr") CUDBG_HISTORY= \
	FAKE_SAN_XML=$ROOT/tests/shared/fixtures/small_oob.sanitizer.xml \
	FAKE_SAN_NOCORE=1 CUDBG_TEST_SCRIPT=$scr CUDBG_TEST_SIZE=100x30 \
	CUDBG_TEST_WAIT=60 TERM=xterm-256color \
	timeout 90 "$BIN" --debugger gdb --memcheck=always --sanitizer "$FAKE" \
	--sanitizer-flags "--kernel-name  kns=steps --print-limit=7" \
	--sanitizer-flags=--force-blocking-launches "$PROG" >"$out" 2>&1 </dev/null
flags_ok flags-screen

# a flag the pass sets itself, a quote, a first word that is no option:
# exit 2 with one line that names the flag and why
refuse() { # name expected-text flags...
	name=$1 want=$2
	shift 2
	timeout 10 "$BIN" --batch --sanitizer "$FAKE" "$@" "$PROG" >"$out" 2>&1
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$out")" -eq 1 ] && grep -qF -- "$want" "$out"
	then pass "$name"; else fail "$name" "exit $rc, want one line: $want"; fi
}
refuse refuse-xml "cudbg-tui: --sanitizer-flags: sanitizer flag '--xml' conflicts with the memcheck pass: the pass reads its own XML report" \
	--sanitizer-flags "--print-level error --xml"
refuse refuse-save "sanitizer flag '--save=/tmp/r.xml' conflicts with the memcheck pass" \
	--sanitizer-flags=--save=/tmp/r.xml
refuse refuse-coredump "sanitizer flag '--generate-coredump' conflicts" \
	--sanitizer-flags "--generate-coredump yes"
refuse refuse-tool "'--tool' conflicts with the memcheck pass: the pass sets it; choose the tool with --sanitizer-tool" \
	--sanitizer-flags "--tool racecheck"
refuse refuse-quote "without a shell: ''kns=a' holds a quote" \
	--sanitizer-flags "--kernel-name 'kns=a b'"
refuse refuse-word "must start with an option (-...), not 'kns=a'" \
	--sanitizer-flags "kns=a"
refuse refuse-empty "--sanitizer-flags: sanitizer flags are empty" \
	--sanitizer-flags " "
# the config file's line: FILE:LINE and the same reason
printf 'memcheck auto\nsanitizer-flags --xml\n' >"$cfg"
CUDBG_CONFIG=$cfg timeout 10 "$BIN" --batch --sanitizer "$FAKE" "$PROG" >"$out" 2>&1
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$out")" -eq 1 ] &&
   grep -qF "$cfg:2: sanitizer flag '--xml' conflicts with the memcheck pass" "$out"
then pass refuse-config; else fail refuse-config "exit $rc"; fi
