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
json() { # name python-expression over d
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
# memcheck stays the default, with its coredump
: >"$log"
FAKE_SAN_TOOLLOG=$log FAKE_SAN_XML=$ROOT/tests/shared/fixtures/small_oob.sanitizer.xml \
	timeout 60 "$BIN" --json --debugger gdb --memcheck=always --sanitizer "$FAKE" \
	"$PROG" >"$out" 2>/dev/null
if grep -qx "tool=memcheck" "$log"; then pass default-memcheck; else
	fail default-memcheck "the default tool is not memcheck"; fi
# a tool that does not exist: a one-line error naming it
timeout 10 "$BIN" --batch --sanitizer-tool=helgrind "$PROG" >"$out" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "sanitizer-tool takes memcheck, racecheck, initcheck or synccheck, not 'helgrind'" "$out"
then pass bad-tool; else fail bad-tool "exit $rc"; fi
