#!/bin/sh
# What reading a big C++ library's symbols at a stop costs, the ordinary
# way (`sharedlibrary`) against its operator copy (include/cudbg/
# leansym.h, LEANSYM_OPERATORS), on this machine's gdb (issue 32 item 1).
# A stand-in for torch's CPU library: N functions with mangled C++ names
# (names and templates of torch's kinds), KEEP percent of them at::_ops
# or at::native names the copy keeps, and a C entry a Python program
# calls through ctypes to crash in.  `cudbg-tui --batch` runs it under
# gdb named cuda-gdb (so host symbols are read lazily) with
# CUDBG_TIMING=1, and its `late_symbols=` field is the read; rounds
# interleave the copy ($CUDBG_SYMBOL_CACHE set; the first run, which
# makes the copy, is not counted) and the ordinary read (no cache).
# Prints each round's two times and the median ratio copy/ordinary.  The
# GPU machine's figures for torch itself are in docs/performance.md.
# Usage: sh tests/bench/lean_symbols.sh [N] [KEEP] [ROUNDS]
set -u
N=${1:-200000}
KEEP=${2:-10}
ROUNDS=${3:-3}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
command -v gdb >/dev/null || { echo "SKIP: gdb not installed"; exit 0; }
PY=$(python3 -c 'import sys; print(sys.executable)') || { echo "SKIP: no python3"; exit 0; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
python3 - "$N" "$KEEP" >"$tmp/syms.s" <<'PY'
import sys
n, keep = int(sys.argv[1]), int(sys.argv[2])
def ident(s):
    return "%d%s" % (len(s), s)
kinds = ["wrap_kernel_functor_unboxed_", "make_boxed_from_unboxed_functor",
         "BoxedKernelWrapper", "DispatchKeyExtractor", "OperatorHandle"]
print("\t.text")
for i in range(n):
    if i % 100 < keep:
        ns = "_ZN2at4_ops" if i % 2 else "_ZN2at6native"
        name = "%s%s4callERKNS_6TensorESt8optionalIlE" % (ns, ident("op%d" % i))
    else:
        k = kinds[i % len(kinds)]
        name = "_ZN3c104impl%sINS_6detail%sIvEELb0EE4callEPNS_14OperatorKernelENS_14DispatchKeySetE" % (
            ident("%s%d" % (k, i)), ident("WrapFunctionIntoFunctor_%d" % (i % 97)))
    print("\t.globl %s\n\t.type %s, @function\n%s:\n\tret\n\t.size %s, .-%s" % (name, name, name, name, name))
print("\t.section .note.GNU-stack,\"\",@progbits\n\t.text")
print("\t.globl cpu_entry\n\t.type cpu_entry, @function\ncpu_entry:\n\tmovl $1, 0\n\tret\n\t.size cpu_entry, .-cpu_entry")
PY
cc -shared -o "$tmp/libtorch_cpu.so" "$tmp/syms.s" ||
	{ echo "FAIL: could not build the stand-in library"; exit 1; }
cat >"$tmp/crash.py" <<'EOF'
import ctypes, os
ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libtorch_cpu.so")).cpu_entry()
EOF
mkdir "$tmp/bin"
printf '#!/bin/sh\nexec gdb "$@"\n' >"$tmp/bin/cuda-gdb"
chmod 755 "$tmp/bin/cuda-gdb"
late() { # CACHE: the late read's seconds in one run
	CUDBG_SYMBOL_CACHE=$1 CUDBG_TIMING=1 timeout 300 "$BIN" --batch \
		--memcheck=never --no-python-stack --debugger "$tmp/bin/cuda-gdb" \
		"$PY" "$tmp/crash.py" 2>&1 >/dev/null </dev/null |
		sed -n 's/.*late_symbols=\([0-9.]*\).*/\1/p' | head -1
}
echo "library: $N functions, $KEEP% kept by the copy, $(du -h "$tmp/libtorch_cpu.so" | cut -f1)"
late "$tmp/cache" >/dev/null # makes the copy
echo "copy: $(du -h "$tmp"/cache/*.lean | cut -f1)"
: >"$tmp/rows"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	full=$(late "")
	lean=$(late "$tmp/cache")
	echo "round $r: sharedlibrary ${full:-?} s, operator copy ${lean:-?} s"
	[ -n "$full" ] && [ -n "$lean" ] && echo "$full $lean" >>"$tmp/rows"
	r=$((r + 1))
done
python3 - "$tmp/rows" <<'PY'
import statistics, sys
rows = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
if not rows:
    sys.exit("no round gave both times")
print("median ratio copy/ordinary: %.2fx (median %.3f s against %.3f s)"
      % (statistics.median(l / f for f, l in rows),
         statistics.median(l for f, l in rows), statistics.median(f for f, l in rows)))
PY
