#!/bin/sh
# The culprit lane of a warp-level address fault (issue 28 item 2), from
# the stopped warp's own registers (mi/ctl_culprit.c): a replay of
# tests/fixtures/culprit_null_deref.mi.log (CRAFTED from the real
# null_deref recording by tests/fixtures/hand/make_culprit.py: thread 3's
# row pointer is NULL) names thread (3,0,0), lane 3, its address 0x0 and
# its own values (r = 3, row = 0x0), in text and JSON; a recording made
# before the search says why no culprit is named and keeps the lane
# unknown.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
fails=0
pass() { echo "PASS culprit/$1"; }
fail() { echo "FAIL culprit/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
REC=$ROOT/tests/fixtures/culprit_null_deref.mi.log

"$BIN" --batch --replay "$REC" >"$tmp/text" 2>&1
if ! grep -q '^  thread     block (0,0,0) thread (3,0,0), device 0 sm 124 warp 0 lane 3$' "$tmp/text"; then
	fail text-thread "$(grep -m1 '^  thread ' "$tmp/text")"
elif ! tr -s ' \n' '  ' <"$tmp/text" | grep -q 'Thread (3,0,0) of block (0,0,0) (lane 3) made the faulting access: its address 0x0 cannot be read, while the other 7 lanes'; then
	fail text-note "no note naming the culprit"
elif ! grep -q '^  r = 3$' "$tmp/text" || ! grep -q '^  row = 0x0$' "$tmp/text"; then
	fail text-values "the values are not the culprit lane's"
elif grep -q '(lane-unknown)\|not necessarily the thread' "$tmp/text"; then
	fail text-unknown "still says the lane is unknown"
else
	pass text
fi
"$BIN" --batch --json --replay "$REC" >"$tmp/json" 2>/dev/null
if python3 - "$tmp/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
c = d["exception"]["culprit"]
assert c["found"] and c["lane"] == 3 and c["thread"] == [3, 0, 0], c
assert c["address"] == "0x0" and c["lanes"] == 8 and c["unreadable"] == 1, c
assert c["instruction"] == "LD.E R6,desc[UR4][R6.64]", c
assert d["exception"]["lane_known"] is True
assert d["focus"]["lane"] == 3 and d["focus"]["thread"] == [3, 0, 0], d["focus"]
assert d["values"]["r"] == "3", d["values"]
PY
then
	pass json
else
	fail json "the JSON does not name the culprit"
fi
# the real recording, made before the search: said, and the lane stays
# unknown (nothing made up)
"$BIN" --batch --replay "$ROOT/tests/fixtures/gpu/null_deref.mi.log" >"$tmp/old" 2>&1
if ! tr -s ' \n' '  ' <"$tmp/old" | grep -q "The lanes' own registers name no culprit: the recording was made without the culprit-lane search" ||
   ! grep -q '(lane-unknown)' "$tmp/old"; then
	fail old-recording "$(grep -m2 'culprit\|lane-unknown' "$tmp/old")"
else
	pass old-recording
fi
exit $fails
