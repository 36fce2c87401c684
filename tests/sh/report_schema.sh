#!/bin/sh
# tests/schema_check.py itself (tests/run.sh runs it over every --json
# report the suite made): it passes real reports and fails on an empty
# folder and on reports that break docs/report.schema.json the ways the
# reports once did (issue 14, item 8): a diagnosis left out, a frame's
# "addr", a finding without its race members, an unknown member.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
FIX=${CUDBG_FIXTURES:-$ROOT/tests/shared/fixtures}
CHECK="python3 $ROOT/tests/schema_check.py $ROOT/docs/report.schema.json"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass() { echo "PASS report_schema/$1"; }
fail() { echo "FAIL report_schema/$1: $2"; sed 's/^/    /' "$tmp/out" | head -8; }

if ! python3 -c 'import jsonschema' 2>/dev/null; then
	echo "SKIP report_schema: python3-jsonschema is not installed (apt-get install python3-jsonschema)"
	exit 0
fi

# verdict NAME WANT DIR [WHY]: the check's exit status on DIR is WANT (0
# or 1) and its lines say so: the count of reports validated, or a FAIL
# line (with WHY in it when given).  The check's own PASS/FAIL lines go to
# $tmp/out, not to this test's output.
verdict() {
	$CHECK "$3" >"$tmp/out" 2>&1
	rc=$?
	if [ $rc -ne "$2" ]; then
		fail "$1" "exit status $rc, want $2"
	elif [ "$2" = 0 ] && ! grep -q '^PASS schema/reports: [1-9][0-9]* reports valid$' "$tmp/out"; then
		fail "$1" "no count of the reports validated"
	elif [ "$2" = 1 ] && ! grep '^FAIL ' "$tmp/out" | grep -qF -- "${4:-}"; then
		fail "$1" "no FAIL line${4:+ saying '$4'}"
	else
		pass "$1"
	fi
}

mkdir "$tmp/empty" "$tmp/good" "$tmp/bad"
verdict empty-folder-fails 1 "$tmp/empty" "no --json report was collected"

timeout 60 "$BIN" --json --replay "$FIX/seed_py.mi.log" \
	--sanitizer-report "$FIX/seed_py.sanitizer.xml" >"$tmp/good/fault.json" 2>/dev/null
timeout 60 "$BIN" --json --replay /nonexistent/x.mi.log >"$tmp/good/error.json" 2>/dev/null
timeout 60 "$BIN" --json --sanitizer-report "$ROOT/tests/data/santools/race.sanitizer.xml" \
	>"$tmp/good/race.json" 2>/dev/null
verdict real-reports-pass 0 "$tmp/good"

# The broken reports, all in $tmp/bad, checked by one run of the check
# (a python3 start-up costs 0.3 s or more): each must have its own FAIL
# line (the check names the file), saying WHY.  The cases, one a line:
# NAME|FILE|PYTHON|WHY: FILE's report changed by PYTHON (over d).
cat >"$tmp/cases" <<'EOT'
error-without-diagnosis|error.json|del d['diagnosis']|'diagnosis' is a required property
frame-addr|fault.json|d['frame']['addr'] = d['frame'].pop('address')|frame: Additional properties are not allowed ('addr' was unexpected)
finding-without-hazard|fault.json|del d['diagnosis']['findings'][0]['hazard']|'hazard' is a required property
race-without-pair|race.json|d['diagnosis']['findings'][0]['other_access'] = None|other_access
unknown-member|fault.json|d['diagnosis']['surprise'] = 1|('surprise' was unexpected)
cluster-left-out|fault.json|del d['diagnosis']['focus']['cluster']|diagnosis/focus
wrong-type|fault.json|d['diagnosis']['exception']['code'] = '12'|diagnosis/exception
unknown-mode|error.json|d['mode'] = 'sanitizer report'|mode: 'sanitizer report' is not one of
EOT
python3 - "$tmp/cases" "$tmp/good" "$tmp/bad" <<-'PY'
import json, sys
for line in open(sys.argv[1]):
    name, src, code, why = line.rstrip("\n").split("|")
    d = json.load(open(sys.argv[2] + "/" + src))
    exec(code)
    open(sys.argv[3] + "/" + name + ".json", "w").write(json.dumps(d) + "\n")
PY
# and three the check must refuse before the schema
printf '{"mode":' >"$tmp/bad/truncated-report.json"
tr -d '\n' <"$tmp/good/fault.json" >"$tmp/bad/no-line-end.json"
sed 's/^{/{"mode":"live",/' "$tmp/good/fault.json" >"$tmp/bad/member-twice.json"
cat >>"$tmp/cases" <<'EOT'
truncated-report|||not UTF-8 JSON
no-line-end|||not one line
member-twice|||member 'mode' written twice
EOT
$CHECK "$tmp/bad" >"$tmp/out" 2>&1
rc=$?
while IFS='|' read -r name src code why; do
	if [ $rc -ne 1 ]; then
		fail "$name" "exit status $rc, want 1"
	elif [ ! -f "$tmp/bad/$name.json" ]; then
		fail "$name" "the broken report was not made"
	elif ! grep "^FAIL schema/$name.json: " "$tmp/out" | grep -qF -- "$why"; then
		fail "$name" "no FAIL line for $name.json saying '$why'"
	else
		pass "$name"
	fi
done <"$tmp/cases"

# Every committed recording (the shared ones, tests/fixtures with its GPU
# runs and hand-made hangs) replayed once with --json, and once with each
# of its sanitizer reports, and every report alone: the schema must take
# them all.  The top folder of tests/fixtures/gpu is left to
# gpu_recordings.sh, which replays each of its recordings with --json in
# the same pass (every pass its replays are checked in: they go to the
# same schema check); this covers the rest (tests/fixtures/gpu/run1, ...).
# (Some 400 replays: not under valgrind, where each takes seconds.  The
# ASan pass of `make test` leaves this test to the asan-sweep pass of
# `make gauntlet`: tests/check.sh says why.)
if [ "${CUDBG_UNDER_VALGRIND:-0}" = 1 ]; then
	echo "SKIP report_schema/all-recordings: not under valgrind (the plain and asan-sweep passes replay them)"
	exit 0
fi
GPU_TOP=$ROOT/tests/fixtures/gpu
mkdir "$tmp/all"
# The replays to make, one a line: N|RECORDING|REPORT (either may be
# empty); then made two at a time (one test of a pass that runs others
# beside it, but the longest).
: >"$tmp/jobs"
n=0
for f in "$FIX"/*.mi.log* "$ROOT"/tests/fixtures/*.mi.log* \
	 "$GPU_TOP"/*/*.mi.log* "$ROOT"/tests/fixtures/hand/*.mi.log*; do
	[ -f "$f" ] || continue
	base=${f%.gz}; base=${base%.mi.log}
	for pass in core sancore memcheck racecheck initcheck synccheck; do
		base=${base%.$pass}
	done
	n=$((n + 1))
	echo "$n|$f|" >>"$tmp/jobs"
	for x in "$base".sanitizer.xml "$base".*.sanitizer.xml; do
		[ -f "$x" ] || continue
		n=$((n + 1))
		echo "$n|$f|$x" >>"$tmp/jobs"
	done
done
for x in "$FIX"/*.sanitizer.xml "$GPU_TOP"/*/*.xml \
	 "$ROOT"/tests/data/santools/*.xml; do
	[ -f "$x" ] || continue
	n=$((n + 1))
	echo "$n||$x" >>"$tmp/jobs"
done
# run_jobs K: every second line of the list from the K-th
run_jobs() {
	awk -v k="$1" 'NR % 2 == k' "$tmp/jobs" | while IFS='|' read -r j f x; do
		if [ -n "$f" ] && [ -n "$x" ]; then
			timeout 60 "$BIN" --json --replay "$f" --sanitizer-report "$x"
		elif [ -n "$f" ]; then
			timeout 60 "$BIN" --json --replay "$f"
		else
			timeout 60 "$BIN" --json --sanitizer-report "$x"
		fi >"$tmp/all/$j.json" 2>/dev/null </dev/null
	done
}
run_jobs 0 &
run_jobs 1
wait
made=$(find "$tmp/all" -name '*.json' | wc -l)
if [ "$made" -ne "$n" ]; then
	echo "FAIL report_schema/all-recordings-made: $made reports for $n replays"
fi
verdict all-recordings 0 "$tmp/all"
