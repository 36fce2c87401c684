#!/bin/sh
# The culprit lane of a warp-level address fault (issue 28 item 2), from
# the stopped warp's own registers (mi/ctl_culprit.c), on real H100
# recordings of GPU run 25:
#  - lane_wild_o3: lane 18, thread (146,0,0), stores through an index of
#    50000000; its address lies far from the other 31 lanes' and is named,
#    in text and JSON, though cuda-gdb had put the focus on lane 0;
#  - cupy_raw: a CuPy RawKernel, lane 13, thread (77,0,0);
#  - null_deref (-G), replayed without its source: the load wrote its
#    destination over its address register and the line cannot be read,
#    so no address is left: said, and the lane stays unknown (with the
#    source, the lvalue cases below);
#  - int_overflow, recorded before the search: said, lane unknown.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
GPU=$ROOT/tests/fixtures/gpu
fails=0
pass() { echo "PASS culprit/$1"; }
fail() { echo "FAIL culprit/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# text CASE RECORDING THREAD-LINE NOTE-TEXT
text() {
	"$BIN" --batch --replay "$GPU/$2.mi.log" >"$tmp/$1" 2>&1
	if ! grep -qF -- "$3" "$tmp/$1"; then
		fail "$1" "$(grep -m1 '^  thread ' "$tmp/$1")"
	elif ! tr -s ' \n' '  ' <"$tmp/$1" | grep -qF -- "$4"; then
		fail "$1" "no note: $4"
	elif grep -q '(lane-unknown)\|not necessarily the thread' "$tmp/$1"; then
		fail "$1" "still says the lane is unknown"
	else
		pass "$1"
	fi
}
text lane_wild_o3 lane_wild_o3 \
	'  thread     block (0,0,0) thread (146,0,0), device 0 sm 124 warp 4 lane 18' \
	"Thread (146,0,0) of block (0,0,0) (lane 18) made the faulting access: its address 0x7ffddfcbc600 lies far from the other 31 lanes' 0x7ffdd3e00400 .. 0x7ffdd3e0047c"
text cupy_raw cupy_raw \
	'  thread     block (0,0,0) thread (77,0,0), device 0 sm 124 warp 0 lane 13' \
	"Thread (77,0,0) of block (0,0,0) (lane 13) made the faulting access"

"$BIN" --batch --json --replay "$GPU/lane_wild_o3.mi.log" >"$tmp/json" 2>/dev/null
if python3 - "$tmp/json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
c = d["exception"]["culprit"]
assert c["found"] and c["lane"] == 18 and c["thread"] == [146, 0, 0], c
assert c["address"] == "0x7ffddfcbc600" and c["lanes"] == 32 and c["far"] == 1, c
assert c["instruction"] == "LDG.E R0,desc[UR4][R4.64]", c
assert d["exception"]["lane_known"] is True
assert d["focus"]["lane"] == 18 and d["focus"]["thread"] == [146, 0, 0], d["focus"]
PY
then
	pass json
else
	fail json "the JSON does not name the culprit"
fi

# unknown CASE RECORDING WHY: no culprit, the reason said, lane unknown
unknown() {
	"$BIN" --batch --replay "$GPU/$2.mi.log" >"$tmp/$1" 2>&1
	if ! tr -s ' \n' '  ' <"$tmp/$1" | grep -qF -- "$3" ||
	   ! grep -q '(lane-unknown)' "$tmp/$1"; then
		fail "$1" "$(grep -m2 'culprit\|lane-unknown' "$tmp/$1")"
	else
		pass "$1"
	fi
}
unknown clobbered null_deref \
	"The lanes' own registers name no culprit: the faulting load wrote its destination over its address register"
unknown old-recording int_overflow \
	"The lanes' own registers name no culprit: the recording was made without the culprit-lane search"

# lvalue: the -G load wrote over its address register, so the address of
# the faulting line's access is asked in every lane instead (GPU run 29,
# H100): lane_wild's out[key] names lane 18, null_deref's row[c] lane 3.
# The source must be found (-d) to read the line.
"$BIN" --batch -d "$ROOT/tests/gpu" --replay "$GPU/lane_wild.mi.log" >"$tmp/lv" 2>&1
if grep -q '^  thread     block (0,0,0) thread (146,0,0), device 0 sm 124 warp 4 lane 18$' "$tmp/lv" &&
   tr -s ' \n' '  ' <"$tmp/lv" | grep -qF "its address 0x7ffddfcbc600 (out + 200000000) lies far from the other 31 lanes' 0x7ffdd3e00400 .. 0x7ffdd3e0047c. Found from &(out[key]) of the faulting line, evaluated in every lane" &&
   ! grep -q '(lane-unknown)' "$tmp/lv"; then
	pass lvalue
else
	fail lvalue "$(grep -m2 '^  thread\|lane-unknown' "$tmp/lv")"
fi
"$BIN" --batch -d "$ROOT/tests/gpu" --replay "$GPU/null_deref.mi.log" >"$tmp/lvn0" 2>&1
if grep -q '^  thread     block (0,0,0) thread (3,0,0), device 0 sm 124 warp 0 lane 3$' "$tmp/lvn0" &&
   tr -s ' \n' '  ' <"$tmp/lvn0" | grep -qF "Found from &(row[c]) of the faulting line"; then
	pass lvalue-null
else
	fail lvalue-null "$(grep -m2 '^  thread' "$tmp/lvn0")"
fi
"$BIN" --batch --json -d "$ROOT/tests/gpu" --replay "$GPU/lane_wild.mi.log" >"$tmp/lvj" 2>/dev/null
if python3 - "$tmp/lvj" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["diagnosis"]["exception"]["culprit"]
assert c["found"] and c["lane"] == 18 and c["thread"] == [146, 0, 0], c
assert c["lvalue"] == "out[key]" and c["why_not"] is None, c
assert c["pointer"] == "out" and c["offset"] == 200000000, c
PY
then
	pass lvalue-json
else
	fail lvalue-json "the JSON does not name the culprit by the lvalue"
fi
# without the source the line cannot be read: the register search's
# reason stands, nothing else is asked
"$BIN" --batch --replay "$GPU/lane_wild.mi.log" >"$tmp/lvn" 2>&1
if grep -q '(lane-unknown)' "$tmp/lvn" &&
   tr -s ' \n' '  ' <"$tmp/lvn" | grep -qF "wrote its destination over its address register"; then
	pass lvalue-no-source
else
	fail lvalue-no-source "$(grep -m2 '^  thread' "$tmp/lvn")"
fi

# Line first: a line with one access (out[key] += 1) has it asked in
# every lane before any disassembly (cuda-gdb's first costs 0.37 s), once
# the focused lane knows its names (sizeof: no memory read).  GPU run 34
# recorded it live (below); the corpus's own recording of lane_wild was
# made before line-first, so it is given the probe's answer here (sizeof(float) = 4; the per-lane answers are
# the recorded ones); a live -O3 build answers the probe with an error,
# as lane_wild_o3's replay does above.  The replay is itself recorded to
# see which commands the search sent.
probe() { # SRC DEST [SED]: the recording with the probe answered
	awk '/> 16-cuda-info-lanes/ && !d { t = $1
		print "   " t " > 90-data-evaluate-expression \"sizeof(out[key])\""
		print "   " t " < 90^done,value=\"4\""; print "   " t " < (gdb) "; d = 1 }
	{ print }' "$1" | sed "${3:-}" >"$2"
}
probe "$GPU/lane_wild.mi.log" "$tmp/lf.mi.log"
"$BIN" --batch -d "$ROOT/tests/gpu" --record "$tmp/lf.rec" \
	--replay "$tmp/lf.mi.log" >"$tmp/lf" 2>&1
if ! grep -q '^  thread     block (0,0,0) thread (146,0,0), device 0 sm 124 warp 4 lane 18$' "$tmp/lf"; then
	fail line-first "$(grep -m2 '^  thread\|lane-unknown' "$tmp/lf")"
elif ! tr -s ' \n' '  ' <"$tmp/lf" | grep -qF "Found from &(out[key]), the faulting line's one access, evaluated in every lane;"; then
	fail line-first "the note does not say how: $(grep -A3 'made the faulting' "$tmp/lf")"
elif grep -q '^ *[0-9.]* > [0-9]*-data-disassemble' "$tmp/lf.rec"; then
	fail line-first "the search disassembled anyway"
elif ! grep -q '> [0-9]*-data-evaluate-expression "sizeof(out\[key\])"' "$tmp/lf.rec"; then
	fail line-first "no probe of the line's names"
else
	pass line-first
fi
# ... and when the line's access names no lane (lane 18's address made
# ordinary), the register search follows: the disassembly is asked.
probe "$GPU/lane_wild.mi.log" "$tmp/lf2.mi.log" 's/value="140728358127104"/value="140728158127176"/'
"$BIN" --batch -d "$ROOT/tests/gpu" --record "$tmp/lf2.rec" \
	--replay "$tmp/lf2.mi.log" >"$tmp/lf2" 2>&1
if grep -q '^ *[0-9.]* > [0-9]*-data-disassemble' "$tmp/lf2.rec" &&
   grep -q '(lane-unknown)' "$tmp/lf2"; then
	pass line-first-then-registers
else
	fail line-first-then-registers "$(grep -c 'data-disassemble' "$tmp/lf2.rec") disassemblies; $(grep -m1 '^  thread' "$tmp/lf2")"
fi
# The live recordings of GPU run 34 (H100, cuda-gdb 13): line first, no
# disassembly sent at all, the culprit named (lanes= 0.005-0.021 s there,
# against 0.50-0.59 s by registers in run 32)
for c in "lane_wild|^  thread     block \(0,0,0\) thread \(146,0,0\), .* lane 18$|&\(out\[key\]\)" \
	 "null_deref|^  thread     block \(0,0,0\) thread \(3,0,0\), .* lane 3$|&\(row\[c\]\)"; do
	p=${c%%|*} re=${c#*|}; what=${re#*|}; re=${re%|*}
	rec=$ROOT/tests/fixtures/gpu/run34/$p.lf1.mi.log
	"$BIN" --batch -d "$ROOT/tests/gpu" --replay "$rec" >"$tmp/r34" 2>&1
	if grep -q -- '-data-disassemble' "$rec"; then
		fail "line-first-live-$p" "the live run disassembled"
	elif ! grep -Eq "$re" "$tmp/r34"; then
		fail "line-first-live-$p" "$(grep -m1 '^  thread' "$tmp/r34")"
	elif ! tr -s ' \n' '  ' <"$tmp/r34" | grep -Eq "Found from $what, the faulting"; then
		fail "line-first-live-$p" "$(grep -A3 'made the faulting' "$tmp/r34")"
	else
		pass "line-first-live-$p"
	fi
done
# A GPU coredump holds every lane's registers: the search runs there too
# (before, a coredump's report showed lane 0's locals, key = 0, for a
# fault made by lane 18's key = 50000000).  lane_wild's core recording
# was made before that, so its answers are put in (tests/sh/lib/
# core_culprit.awk, the truth from lane_wild.cu); batch and the screen
# must name lane 18 and show its locals.
out_=$(sed -n 's/.*name="out",arg="1",type="[^"]*",value="\(0x[0-9a-f]*\)".*/\1/p' \
	"$GPU/lane_wild.core.mi.log" | head -1)
awk -v OUT="$(printf '%d' "$out_")" -f "$ROOT/tests/sh/lib/core_culprit.awk" \
	"$GPU/lane_wild.core.mi.log" >"$tmp/core.mi.log"
"$BIN" --batch -d "$ROOT/tests/gpu" --replay "$tmp/core.mi.log" >"$tmp/core" 2>&1
if ! grep -q '^  thread     block (0,0,0) thread (146,0,0), device 0 sm 124 warp 4 lane 18$' "$tmp/core"; then
	fail core-lane "$(grep -m1 '^  thread' "$tmp/core")"
elif ! grep -q '^  key = 50000000$' "$tmp/core" || grep -q '^  key = 0$' "$tmp/core"; then
	fail core-lane "the values are not lane 18's: $(grep '^  key = ' "$tmp/core")"
elif ! tr -s ' \n' '  ' <"$tmp/core" | grep -qF '(out + 200000000) lies far from the other 31 lanes'; then
	fail core-lane "no address: $(grep -A2 'made the faulting' "$tmp/core")"
else
	pass core-lane
fi
# (an old core recording, without the answers, says why no lane)
"$BIN" --batch -d "$ROOT/tests/gpu" --replay "$GPU/lane_wild.core.mi.log" >"$tmp/core0" 2>&1
if tr -s ' \n' '  ' <"$tmp/core0" | grep -qF 'the recording was made without the culprit-lane search'; then
	pass core-lane-old-recording
else
	fail core-lane-old-recording "$(grep -A1 'registers name' "$tmp/core0")"
fi
printf ':wait-idle\n:dump core.txt\nq\ny\n' >"$tmp/core.script"
mkdir -p "$tmp/home"
(cd "$tmp" && HOME="$tmp/home" CUDBG_HISTORY= TERM=xterm-256color \
	CUDBG_TEST_SCRIPT="$tmp/core.script" CUDBG_TEST_SIZE=140x30 \
	CUDBG_TEST_DUMP_DIR="$tmp" CUDBG_TEST_WAIT=30 "$BIN" -d "$ROOT/tests/gpu" \
	--replay "$tmp/core.mi.log" >/dev/null 2>"$tmp/core.err" </dev/null)
if head -1 "$tmp/core.txt" 2>/dev/null | grep -q 'thread (146,0,0) dev 0 sm124 warp 4 lane 18$' &&
   grep -q 'key  = 50000000' "$tmp/core.txt"; then
	pass core-lane-screen
else
	fail core-lane-screen "$(head -1 "$tmp/core.txt" 2>/dev/null; head -2 "$tmp/core.err")"
fi
exit $fails
