#!/bin/sh
# A recording is the whole session (issue 29 item 7): a memcheck pass's
# XML report is kept in the recording ("sanxml" notes beside the text's
# "sanitizer" notes, diag/pass_text.c), so the replay of that one file
# prints the live report byte for byte apart from the mode and program
# lines; before, a Python program's script line (in the XML only) was
# lost unless --sanitizer-report gave the XML again.  The stand-in
# sanitizer reports the seed PyTorch case's real XML.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
HP=${CUDBG_BUILD:-$ROOT/build}/progs/harden_prog
FIX=${CUDBG_FIXTURES:-$ROOT/../shared/fixtures}
fails=0
pass() { echo "PASS recording_whole/$1"; }
fail() { echo "FAIL recording_whole/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for fmt in text json; do
	j=; [ $fmt = json ] && j=--json
	FAKE_SAN_XML=$FIX/seed_py.sanitizer.xml timeout 60 "$BIN" --batch $j \
		--memcheck=always --debugger "$ROOT/tests/data/fake-debugger" \
		--sanitizer "$ROOT/tests/data/fake-compute-sanitizer" \
		--record "$tmp/r.$fmt.mi.log" "$HP" exit 0 >"$tmp/live.$fmt" 2>/dev/null </dev/null
	timeout 60 "$BIN" --batch $j --replay "$tmp/r.$fmt.mi.log" \
		>"$tmp/replay.$fmt" 2>/dev/null </dev/null
done
if ! grep -q '^  python     /src/examples/seed_repro.py:9 in test_case' "$tmp/replay.text"; then
	fail script-line "the replay lost the script line"
elif grep -v '^mode:\|^program:\|^  mode ' "$tmp/live.text" >"$tmp/a" &&
     grep -v '^mode:\|^program:\|^  mode ' "$tmp/replay.text" >"$tmp/b" &&
     ! diff "$tmp/a" "$tmp/b" >"$tmp/diff" 2>&1; then
	fail text "the replay's report differs: $(head -5 "$tmp/diff" | tr '\n' ' ')"
else
	pass text
fi
if python3 - "$tmp/live.json" "$tmp/replay.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("mode"); d.pop("program"); d["diagnosis"].pop("mode")
assert a == b, [k for k in a["diagnosis"] if a["diagnosis"][k] != b["diagnosis"].get(k)]
PY
then
	pass json
else
	fail json "the replay's JSON differs from the live one"
fi

# Every memcheck recording of the GPU corpus whose pass read an XML
# report holds it.  Those recorded before it was kept got it from the
# file the same run wrote beside them (tests/tools/embed_xml): the tool
# gives each back from its XML-less lines, and replayed alone each gives
# the report it gives with that file beside it, byte for byte apart from
# the mode and program lines.  (A recording made since holds its pass's
# own XML; the file beside it is another run's.)
EMBED=${CUDBG_BUILD:-$ROOT/build}/tools/embed_xml
[ -x "$EMBED" ] || fail embed-xml "$EMBED not built (make test-build)"
n=0 same=0
for rec in "$ROOT"/tests/fixtures/gpu/*.memcheck.mi.log; do
	grep -q ' # sanxml' "$rec" || continue
	xml=${rec%.memcheck.mi.log}.sanitizer.xml
	[ -f "$xml" ] && [ -x "$EMBED" ] || continue
	grep -v ' # sanxml' "$rec" >"$tmp/bare"
	"$EMBED" "$tmp/bare" "$xml" >"$tmp/again" 2>/dev/null &&
		cmp -s "$tmp/again" "$rec" || continue
	n=$((n + 1))
	timeout 60 "$BIN" --batch --replay "$rec" 2>/dev/null </dev/null |
		grep -v '^mode:\|^program:\|^  mode ' >"$tmp/alone"
	timeout 60 "$BIN" --batch --replay "$rec" --sanitizer-report "$xml" \
		2>/dev/null </dev/null |
		grep -v '^mode:\|^program:\|^  mode ' >"$tmp/beside"
	if cmp -s "$tmp/alone" "$tmp/beside"; then
		same=$((same + 1))
	else
		fail gpu-self-contained "${rec##*/}: alone and with its XML differ: $(diff "$tmp/alone" "$tmp/beside" | head -4 | tr '\n' ' ')"
	fi
done
if [ "$n" -lt 30 ]; then
	fail gpu-self-contained "only $n recordings hold the XML of the file beside them (tests/tools/embed_xml)"
elif [ "$same" = "$n" ]; then
	pass "gpu-self-contained ($n recordings given their XML by embed_xml)"
fi
exit $fails
