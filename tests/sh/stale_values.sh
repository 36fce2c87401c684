#!/bin/sh
# Values that may be stale are never reported as values (issue 28 item
# 3): a device assert replayed (tests/fixtures/gpu/device_assert.mi.log)
# stops in __assert_fail with the kernel's frame above it, where cuda-gdb
# 13 reads the register-held locals i and bin as 0.  The text report and
# the JSON name them in a note and give no value; the kernel's parameters
# (@parameter) are reported.  (The screen: tests/screens/stale_locals;
# DAP: tests/dap/dap_test.js replay_device_assert_stale_values.)
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
REC=$ROOT/tests/fixtures/gpu/device_assert.mi.log
fails=0
pass() { echo "PASS stale/$1"; }
fail() { echo "FAIL stale/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$BIN" --batch --replay "$REC" >"$tmp/text" 2>/dev/null
if ! grep -q '^  - Not shown: i, bin\.' "$tmp/text"; then
	fail text "no note naming i and bin"
elif grep -Eq '^  (i|bin) = ' "$tmp/text"; then
	fail text "a stale value is reported: $(grep -E '^  (i|bin) = ' "$tmp/text")"
elif ! grep -q '^  nbins = 16$' "$tmp/text"; then
	fail text "the kernel's parameter nbins is missing"
else
	pass text
fi
"$BIN" --batch --json --replay "$REC" >"$tmp/json" 2>/dev/null
if python3 - "$tmp/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
v = d["values"]
assert "i" not in v and "bin" not in v, v
assert v.get("nbins") == "16", v
assert any(n.startswith("Not shown: i, bin.") for n in d["notes"]), d["notes"]
PY
then
	pass json
else
	fail json "stale values in the JSON, or no note"
fi
exit $fails
