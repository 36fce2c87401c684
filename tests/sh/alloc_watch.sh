#!/bin/sh
# The allocation watch and the freed-memory lookup (issue 28 item 5):
# real gdb on tests/data/alloc_watch/uaf.c, whose cudaMalloc and cudaFree
# come from a stand-in library without debug info (built twice: with a
# frame pointer, where gdb's breakpoint lands after "push %rbp; mov
# %rsp,%rbp", and without).  A use after free names the allocation and
# the free with their lines, in the text, the hint and the JSON, and the
# same from a replay of the session's recording; a wild pointer or a
# session without the watch claims nothing; and through a runtime's
# layers (a typed C++ wrapper, the runtime, the driver) the program's own
# call is named.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
D=$ROOT/tests/data/alloc_watch
command -v gdb >/dev/null 2>&1 || { echo "SKIP alloc_watch/all: gdb not installed"; exit 0; }
fails=0
pass() { echo "PASS alloc_watch/$1"; }
fail() { echo "FAIL alloc_watch/$1: $2"; fails=$((fails + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CC=${CC:-cc}
for v in fp nofp; do
	flags="-O2 -fomit-frame-pointer"
	[ $v = fp ] && flags="-O0 -fno-omit-frame-pointer"
	mkdir -p "$tmp/$v"
	# shellcheck disable=SC2086
	$CC $flags -fPIC -shared -o "$tmp/$v/libcudart_stub.so" "$D/fake_cudart.c" &&
		$CC -O0 -g -o "$tmp/$v/uaf" "$D/uaf.c" -L"$tmp/$v" -lcudart_stub \
			-Wl,-rpath,"$tmp/$v" ||
		{ fail build "$v: the test program did not build"; exit 1; }
done
alloc_line=$(grep -n MARK_ALLOC "$D/uaf.c" | cut -d: -f1)
free_line=$(grep -n MARK_FREE "$D/uaf.c" | cut -d: -f1)

# 1. a use after free, both ways the library starts its functions
for v in fp nofp; do
	(cd "$tmp" && timeout 60 "$BIN" --batch --debugger gdb --alloc-watch \
		"$v/uaf") >"$tmp/$v.txt" 2>&1 </dev/null
	if ! grep -q '^\[1\] .*(ptr-freed)$' "$tmp/$v.txt"; then
		fail "$v-hint" "no ptr-freed hint first: $(grep -m1 '^\[1\]' "$tmp/$v.txt")"
	elif ! grep -q "^      - Allocated: $D/uaf\.c:$alloc_line (cudaMalloc), 1048576 bytes" "$tmp/$v.txt" ||
	     ! grep -q "^      - Freed: $D/uaf\.c:$free_line (cudaFree)$" "$tmp/$v.txt"; then
		fail "$v-sites" "the allocation's or the free's line is not named: $(grep 'Allocated\|Freed' "$tmp/$v.txt")"
	elif ! grep -q "^  - 0x[0-9a-f]* is 68 bytes inside the 1 MiB that uaf\.c:$alloc_line (cudaMalloc) allocated" "$tmp/$v.txt"; then
		fail "$v-note" "no note with the offset: $(grep -A1 '^Notes' "$tmp/$v.txt")"
	elif grep -q 'cudbg-alloc' "$tmp/$v.txt"; then
		fail "$v-leak" "the watch's own lines reached the report"
	else
		pass "$v-text"
	fi
done

# 2. the JSON, and the schema's check of it
(cd "$tmp" && timeout 60 "$BIN" --batch --json --debugger gdb --alloc-watch \
	fp/uaf) >"$tmp/fp.json" 2>/dev/null </dev/null
if python3 - "$tmp/fp.json" "$alloc_line" "$free_line" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
f = d["allocation"]
assert f and f["size"] == 1048576, f
assert int(f["address"], 16) - int(f["base"], 16) == 68, f
assert f["allocated"]["api"] == "cudaMalloc" and f["allocated"]["line"] == int(sys.argv[2]), f
assert f["freed"]["api"] == "cudaFree" and f["freed"]["line"] == int(sys.argv[3]), f
assert f["freed"]["function"] == "main" and f["freed"]["file"].endswith("uaf.c"), f
assert "freed-memory" in d["facts"], d["facts"]
assert d["hints"][0]["id"] == "ptr-freed", d["hints"][0]["id"]
PY
then
	pass json
else
	fail json "the JSON's freed member is not right"
fi

# 3. the recording holds the lookup: its replay says the same
(cd "$tmp" && timeout 60 "$BIN" --batch --debugger gdb --alloc-watch \
	--record "$tmp/uaf.mi.log" fp/uaf) >/dev/null 2>&1 </dev/null
(cd "$tmp" && timeout 60 "$BIN" --batch --replay "$tmp/uaf.mi.log") \
	>"$tmp/replay.txt" 2>&1 </dev/null
if grep -q '^\[1\] .*(ptr-freed)$' "$tmp/replay.txt" &&
   grep -q "^      - Freed: $D/uaf\.c:$free_line (cudaFree)$" "$tmp/replay.txt"; then
	pass replay
else
	fail replay "the replay lost the freed memory: $(grep -m1 '^\[1\]' "$tmp/replay.txt")"
fi

# 4. nothing claimed: a wild pointer, and a session without the watch
(cd "$tmp" && timeout 60 "$BIN" --batch --debugger gdb --alloc-watch \
	fp/uaf wild) >"$tmp/wild.txt" 2>&1 </dev/null
(cd "$tmp" && timeout 60 "$BIN" --batch --debugger gdb fp/uaf) \
	>"$tmp/off.txt" 2>&1 </dev/null
if ! grep -q '(host-signal)$' "$tmp/wild.txt" || ! grep -q '(host-signal)$' "$tmp/off.txt"; then
	fail no-claim "the crash itself is not reported: $(grep -m1 '^\[1\]' "$tmp/wild.txt" "$tmp/off.txt")"
elif grep -q 'ptr-freed\|use after free' "$tmp/wild.txt" "$tmp/off.txt"; then
	fail no-claim "a use after free claimed without the evidence"
else
	pass no-claim
fi
# 5. host code on a live device buffer: named with its allocation
(cd "$tmp" && timeout 60 "$BIN" --batch --json --debugger gdb --alloc-watch \
	fp/uaf host) >"$tmp/host.json" 2>/dev/null </dev/null
if python3 - "$tmp/host.json" "$alloc_line" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["diagnosis"]
a = d["allocation"]
assert a and a["freed"] is None and a["allocated"]["line"] == int(sys.argv[2]), a
assert int(a["address"], 16) - int(a["base"], 16) == 20, a
assert "device-memory-on-host" in d["facts"] and "freed-memory" not in d["facts"], d["facts"]
assert d["hints"][0]["id"] == "host-touched-device-memory", d["hints"][0]["id"]
PY
then
	pass host-touch
else
	fail host-touch "host code on a live device buffer is not named"
fi

# 6. the budget: past 2048 calls the watch deletes its dprintfs while the
#    program runs, and the program ends as it would
(cd "$tmp" && timeout 120 "$BIN" --batch --debugger gdb --alloc-watch \
	--record "$tmp/churn.mi.log" fp/uaf churn 3000) >"$tmp/churn.txt" 2>&1 </dev/null
if ! grep -q 'exited with code 0\|exited normally\|exit code 0' "$tmp/churn.txt"; then
	fail budget "the program did not end cleanly: $(grep -m2 'stop\|state' "$tmp/churn.txt")"
elif ! grep -q -- '-break-delete [0-9]' "$tmp/churn.mi.log"; then
	fail budget "the watch's dprintfs were not deleted past its budget"
elif [ "$(grep -c '~"cudbg-alloc ' "$tmp/churn.mi.log")" -gt 2100 ]; then
	fail budget "calls were still watched past the budget"
else
	pass budget
fi
# ...and a use after free past the budget claims nothing, and says why
(cd "$tmp" && timeout 120 "$BIN" --batch --debugger gdb --alloc-watch \
	fp/uaf late 1100) >"$tmp/late.txt" 2>&1 </dev/null
if grep -q 'ptr-freed\|use after free:' "$tmp/late.txt"; then
	fail budget-claim "a free the watch could not see was claimed"
elif ! grep -q 'allocation watch stopped after its' "$tmp/late.txt"; then
	fail budget-claim "no word that the watch was cut: $(grep -m1 '^\[1\]' "$tmp/late.txt")"
else
	pass budget-claim
fi
# 7. The layers of a real runtime: C++'s typed cudaMalloc<T> wrapper
#    (line info, -O0: gdb enters it past its whole prologue) over the
#    runtime's cudaMalloc over its internal function over the driver's
#    cuMemAlloc_v2.  Each is watched; the sites named are the program's
#    own calls (the outermost), at its lines, live and in the replay.
CXX=${CXX:-c++}
mkdir -p "$tmp/layered"
if $CC -O2 -fomit-frame-pointer -DLAYERED -fPIC -shared \
	-o "$tmp/layered/libcudart_stub.so" "$D/fake_cudart.c" &&
   $CXX -O0 -g -o "$tmp/layered/uaf_tmpl" "$D/uaf_tmpl.cpp" \
	-L"$tmp/layered" -lcudart_stub -Wl,-rpath,"$tmp/layered"; then
	t_alloc=$(grep -n MARK_ALLOC "$D/uaf_tmpl.cpp" | cut -d: -f1)
	t_free=$(grep -n MARK_FREE "$D/uaf_tmpl.cpp" | cut -d: -f1)
	(cd "$tmp" && timeout 60 "$BIN" --batch --debugger gdb --alloc-watch \
		--record "$tmp/layered.mi.log" layered/uaf_tmpl) \
		>"$tmp/layered.txt" 2>&1 </dev/null
	(cd "$tmp" && timeout 60 "$BIN" --batch --replay "$tmp/layered.mi.log") \
		>"$tmp/layered.replay.txt" 2>&1 </dev/null
	for f in layered layered.replay; do
		# The batch report wraps at 100 columns, and $D's length is the
		# checkout's: join each continuation line to the line it continues.
		awk '/^        [^ -]/ { sub(/^ +/, " "); printf "%s", $0; next }
		     NR > 1 { print "" } { printf "%s", $0 } END { print "" }' \
			"$tmp/$f.txt" >"$tmp/$f.joined"
		if grep -q "^      - Allocated: $D/uaf_tmpl\.cpp:$t_alloc (cudaMalloc), 1048576 bytes" "$tmp/$f.joined" &&
		   grep -q "^      - Freed: $D/uaf_tmpl\.cpp:$t_free (cudaFree)$" "$tmp/$f.joined"; then
			pass "$f-outermost"
		else
			fail "$f-outermost" "not the program's own calls: $(grep 'Allocated\|Freed' "$tmp/$f.txt")"
		fi
	done
else
	fail layered-build "the layered test program did not build"
fi
exit $fails
