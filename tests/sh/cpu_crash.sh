#!/bin/sh
# A CPU crash says at least what `gdb -batch -ex run -ex bt` says (issue
# 31 item 4): real gdb on tests/progs/model_segv.c, which writes through
# a NULL pointer in poke().  The report has the faulting line and its
# text, the frame's values (where = 0x0), and the hint names the null
# pointer the line's `*where` went through (host-null-pointer, from the
# crash's address); no GPU wording (the device's null-pointer hint, "the
# GPU stopped") for a host crash.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
PROG=${CUDBG_BUILD:-$ROOT/build}/progs/model_segv
command -v gdb >/dev/null 2>&1 || { echo "SKIP cpu_crash/all: gdb not installed"; exit 0; }
fails=0
pass() { echo "PASS cpu_crash/$1"; }
fail() { echo "FAIL cpu_crash/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$ROOT" && timeout 60 "$BIN" --batch --debugger gdb "$PROG") >"$tmp/text" 2>&1 </dev/null
if ! grep -q '^  location   tests/progs/model_segv\.c:6 (from the frame)$' "$tmp/text" ||
   ! grep -q '^  source     \*where = value; /\* MARK_POKE \*/$' "$tmp/text"; then
	fail text-line "no faulting line and text: $(grep -m2 'location\|source' "$tmp/text")"
elif ! grep -q '^  where = 0x0$' "$tmp/text" || ! grep -q '^  value = 42$' "$tmp/text"; then
	fail text-values "the frame's values are missing"
elif ! grep -q '^\[1\] A null pointer was dereferenced: where is NULL  (host-null-pointer)$' "$tmp/text" ||
     ! grep -q '^  access     \*where at 0x0: where is NULL$' "$tmp/text"; then
	fail text-hint "the hint does not name the null pointer"
elif grep -q 'GPU stopped\|(ptr-null-local)' "$tmp/text"; then
	fail text-gpu "a host crash described as a GPU one"
else
	pass text
fi
(cd "$ROOT" && timeout 60 "$BIN" --batch --json --debugger gdb "$PROG") >"$tmp/json" 2>/dev/null </dev/null
if python3 - "$tmp/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
l = d["location"]
assert l["line"] == 6 and l["text"].startswith("*where = value;"), l
assert d["values"]["where"] == "0x0", d["values"]
PY
then
	pass json
else
	fail json "no line text or values in the JSON"
fi
exit $fails
