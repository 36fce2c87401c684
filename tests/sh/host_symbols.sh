#!/bin/sh
# A Python program under cuda-gdb reads the symbols of only the host
# libraries the report needs, at a stop (session_config.lazy_host_symbols,
# docs/performance.md "Host symbols of a Python program").  Real gdb under
# the name cuda-gdb and a Python program that crashes through ctypes in
# libc10.so (named in SESSION_HOST_LIBS, read first), called from
# libtorch_cuda.so (SESSION_HOST_LIBS_LATE, read after), called from
# libother.so (not named): lazily, the stack listed at the stop names the
# crash frame only, the one listed after the late read names the
# libtorch_cuda frame too, and libother's frame stays "??"; libtorch_cuda
# is read from its lean copy (include/cudbg/leansym.h: no stub names, its
# big read-only data without bytes), or by `sharedlibrary` when there is
# no symbol cache; a second program through torch's CPU and Python
# libraries too reads all three from lean copies that keep the operator
# frames' names (at::_ops, torch::autograd) and drop the rest (c10's
# dispatch wrapper: "??"), with no `sharedlibrary` of torch at all; with
# --all-host-symbols all have names, and with $CUDBG_HOST_LIBS naming
# libother, libother's too; a replay of the lazy recording reads as it
# did; a C program is never lazy.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
command -v gdb >/dev/null || { echo "SKIP host_symbols: gdb not installed"; exit 0; }
command -v cc >/dev/null || { echo "SKIP host_symbols: no C compiler"; exit 0; }
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3 2>/dev/null || true)
[ -n "$PY" ] || { echo "SKIP host_symbols: python3 not installed"; exit 0; }
PY=$("$PY" -c 'import sys; print(sys.executable)')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS host_symbols/$1"; }
fail() {
	echo "FAIL host_symbols/$1: $2"
	fails=$((fails + 1))
	[ -s "$tmp/$1.out" ] && sed 's/^/    /' "$tmp/$1.out" | head -20
	return 0
}

cat >"$tmp/c10.c" <<'EOF'
void c10_crash(void) { volatile int *p = 0; *p = 1; }
EOF
# a launch stub's name (cuda-gdb looks each one up when the library is
# read) and 2 MB of read-only data the lean copy leaves out
cat >"$tmp/torch_cuda.c" <<'EOF'
void tc_stub(void) __asm__("_Z24__device_stub__Z6kernelv");
void tc_stub(void) {}
const char tc_table[2 << 20] = { 1 };
void tc_call(void (*f)(void)) { tc_stub(); f(); }
EOF
cat >"$tmp/other.c" <<'EOF'
void other_call(void (*g)(void (*)(void)), void (*f)(void)) { g(f); }
EOF
cat >"$tmp/crash.py" <<'EOF'
import ctypes, os
d = os.path.dirname(os.path.abspath(__file__))
other = ctypes.CDLL(os.path.join(d, "libother.so"))
tc = ctypes.CDLL(os.path.join(d, "libtorch_cuda.so"))
c10 = ctypes.CDLL(os.path.join(d, "libc10.so"))
other.other_call(tc.tc_call, c10.c10_crash)
EOF
for l in c10 torch_cuda other; do
	cc -g -O0 -fno-omit-frame-pointer -shared -fPIC -o "$tmp/lib$l.so" "$tmp/$l.c" ||
		{ echo "FAIL host_symbols/build: cc lib$l.so"; exit 1; }
done
mkdir "$tmp/bin"
export CUDBG_SYMBOL_CACHE="$tmp/cache"
printf '#!/bin/sh\nexec gdb "$@"\n' >"$tmp/bin/cuda-gdb"
chmod 755 "$tmp/bin/cuda-gdb"

# run CASE [options] PROG...: batch, recorded to CASE.mi.log
run() {
	c=$1
	shift
	timeout -k 2 60 "$BIN" --batch --memcheck=never --no-python-stack \
		--debugger "$tmp/bin/cuda-gdb" --record "$tmp/$c.mi.log" "$@" \
		>"$tmp/$c.out" 2>&1 </dev/null
}
# the first (head) or last (tail) stack listed: its three innermost
# frames' functions in order
funcs() {
	grep -o 'stack=\[frame={.*' "$tmp/$1.mi.log" | $2 -1 |
		grep -o 'func="[^"]*"' | sed 's/func="//; s/"$//' | head -3 | tr '\n' ' '
}

run lazy "$PY" "$tmp/crash.py"
f0=$(funcs lazy head)
f1=$(funcs lazy tail)
if ! grep -q '> [0-9]*-gdb-set auto-solib-add off' "$tmp/lazy.mi.log"; then
	fail lazy "no auto-solib-add off in the start sequence"
elif ! grep -q 'sharedlibrary libpython.*libc10' "$tmp/lazy.mi.log"; then
	fail lazy "no sharedlibrary of the first list at the stop"
elif ! grep -q 'sharedlibrary libtorch_cpu\\\\|libtorch_python"' "$tmp/lazy.mi.log"; then
	fail lazy "no late sharedlibrary of torch's CPU and Python libraries"
elif ! grep -q "add-symbol-file $tmp/cache/libtorch_cuda.so-[0-9.-]*ops\.lean -o 0x" "$tmp/lazy.mi.log"; then
	fail lazy "libtorch_cuda not read from its lean copy in \$CUDBG_SYMBOL_CACHE"
elif [ "$(echo "$f0" | cut -d' ' -f1-2)" != "c10_crash ??" ]; then
	fail lazy "the stack at the stop: '$f0', wanted 'c10_crash ?? ...'"
elif [ "$f1" != "c10_crash tc_call ?? " ]; then
	fail lazy "the stack after the late read: '$f1', wanted 'c10_crash tc_call ?? '"
elif ! grep -q '^stop: .*in c10_crash' "$tmp/lazy.out"; then
	fail lazy "the report does not name c10_crash"
else
	pass lazy
fi

# The lean copy: no stub name, the other names kept, the 2 MB table's
# section without bytes, smaller than the library
# names_differ COPY LIB GONE KEPT: why COPY (of LIB) does not have
# GONE's name removed and KEPT's kept (grep patterns); nothing when it
# does
names_differ() {
	if [ -z "$1" ]; then echo "no copy in $tmp/cache"
	elif readelf -sW "$1" | grep -q -- "$3"; then echo "$3 is still in the copy"
	elif ! readelf -sW "$2" | grep -q -- "$3"; then
		echo "the library has no $3 to remove (test broken)"
	elif ! readelf -sW "$1" | grep -q -- "$4"; then echo "$4 is gone from the copy"
	fi
}
lean=$(ls "$tmp"/cache/libtorch_cuda.so-*.lean 2>/dev/null | head -1)
if ! command -v readelf >/dev/null; then
	echo "SKIP host_symbols/lean_copy: readelf not installed"
elif why=$(names_differ "$lean" "$tmp/libtorch_cuda.so" __device_stub_ ' tc_call$') &&
     [ -n "$why" ]; then
	fail lean_copy "$why"
elif ! readelf -SW "$lean" | grep -q '\.rodata *NOBITS'; then
	fail lean_copy ".rodata still has its bytes"
elif [ "$(stat -c %s "$lean")" -ge "$(stat -c %s "$tmp/libtorch_cuda.so")" ]; then
	fail lean_copy "the copy is not smaller than the library"
else
	pass lean_copy
fi

# torch's CPU and Python libraries from lean copies too: python ->
# other_call -> THPVariable_gather (libtorch_python) -> c10's wrapper ->
# at::_ops::gather::call (libtorch_cpu) -> tc_call (libtorch_cuda) ->
# c10_crash.  C++ names by their mangled spelling (asm labels).
cat >"$tmp/torch_cpu.c" <<'EOF'
void tc_call(void (*f)(void));
void ops_call(void (*f)(void)) __asm__("_ZN2at4_ops6gather4callEPFvvE");
void ops_call(void (*f)(void)) { tc_call(f); }
void wrap(void (*f)(void)) __asm__("_ZN3c104impl28wrap_kernel_functor_unboxed_4callEPFvvE");
void wrap(void (*f)(void)) { ops_call(f); }
EOF
cat >"$tmp/torch_python.c" <<'EOF'
void wrap(void (*f)(void)) __asm__("_ZN3c104impl28wrap_kernel_functor_unboxed_4callEPFvvE");
void py_entry(void (*f)(void)) __asm__("_ZN5torch8autograd18THPVariable_gatherEPFvvE");
void py_entry(void (*f)(void)) { wrap(f); }
EOF
cat >"$tmp/crash2.py" <<'EOF'
import ctypes, os
d = os.path.dirname(os.path.abspath(__file__))
other = ctypes.CDLL(os.path.join(d, "libother.so"))
py = ctypes.CDLL(os.path.join(d, "libtorch_python.so"))
c10 = ctypes.CDLL(os.path.join(d, "libc10.so"))
other.other_call(py["_ZN5torch8autograd18THPVariable_gatherEPFvvE"], c10.c10_crash)
EOF
# (no -g: torch's libraries have no debug info, only ELF symbols)
cc -O0 -fno-omit-frame-pointer -shared -fPIC -o "$tmp/libtorch_cpu.so" \
	"$tmp/torch_cpu.c" -L"$tmp" -ltorch_cuda -Wl,-rpath,"$tmp" &&
cc -O0 -fno-omit-frame-pointer -shared -fPIC -o "$tmp/libtorch_python.so" \
	"$tmp/torch_python.c" -L"$tmp" -ltorch_cpu -Wl,-rpath,"$tmp" ||
	{ echo "FAIL host_symbols/build: cc libtorch_cpu.so, libtorch_python.so"; exit 1; }
# every function of the last stack listed, one a line
allfuncs() {
	grep -o 'stack=\[frame={.*' "$tmp/$1.mi.log" | tail -1 |
		grep -o 'frame={[^}]*}' | sed 's/.*func="\([^"]*\)".*/\1/; /^frame=/s/.*/??/'
}
run ops "$PY" "$tmp/crash2.py"
allfuncs ops >"$tmp/ops.funcs"
if grep -q 'sharedlibrary [^"]*libtorch' "$tmp/ops.mi.log"; then
	fail ops "torch read by sharedlibrary: $(grep -o 'sharedlibrary [^"]*libtorch[^"]*' "$tmp/ops.mi.log" | head -1)"
elif [ "$(grep -c "add-symbol-file $tmp/cache/libtorch_\(cuda\|cpu\|python\)\.so-[0-9.-]*ops\.lean -o 0x" "$tmp/ops.mi.log")" != 3 ]; then
	fail ops "not all three of torch's libraries from operator copies"
elif [ "$(sed -n 1,6p "$tmp/ops.funcs" | tr '\n' '|')" != "c10_crash|tc_call|at::_ops::gather::call(void (*)())|??|torch::autograd::THPVariable_gather(void (*)())|??|" ]; then
	fail ops "the stack after the late read: $(tr '\n' '|' <"$tmp/ops.funcs")"
else
	pass ops
fi
cpu=$(ls "$tmp"/cache/libtorch_cpu.so-*ops.lean 2>/dev/null | head -1)
if ! command -v readelf >/dev/null; then
	echo "SKIP host_symbols/ops_copy: readelf not installed"
elif why=$(names_differ "$cpu" "$tmp/libtorch_cpu.so" \
	       wrap_kernel_functor_unboxed_ '_ZN2at4_ops6gather4callEPFvvE$') &&
     [ -n "$why" ]; then
	fail ops_copy "$why"
else
	pass ops_copy
fi
# its replay asks the same three add-symbol-files and lists the same stack
timeout -k 2 60 "$BIN" --batch --replay "$tmp/ops.mi.log" --record "$tmp/opsagain.mi.log" \
	>"$tmp/opsagain.out" 2>&1 </dev/null
allfuncs opsagain >"$tmp/opsagain.funcs"
if [ "$(grep -c '> [0-9]*-interpreter-exec console "add-symbol-file' "$tmp/opsagain.mi.log")" != 3 ]; then
	fail ops-replay "the replay's lean reads differ from the recording's"
elif ! cmp -s "$tmp/ops.funcs" "$tmp/opsagain.funcs"; then
	fail ops-replay "the replay's last stack: $(tr '\n' '|' <"$tmp/opsagain.funcs")"
else
	pass ops-replay
fi

# Without a symbol cache, the late read names torch's CUDA library
CUDBG_SYMBOL_CACHE= run nocache "$PY" "$tmp/crash.py"
if ! grep -q 'sharedlibrary libtorch_cpu\\\\|libtorch_python\\\\|libtorch_cuda"' "$tmp/nocache.mi.log"; then
	fail nocache "the late read does not name libtorch_cuda"
elif grep -q 'add-symbol-file' "$tmp/nocache.mi.log"; then
	fail nocache "a lean copy without a cache"
elif [ "$(funcs nocache tail)" != "c10_crash tc_call ?? " ]; then
	fail nocache "the stack after the late read: '$(funcs nocache tail)'"
else
	pass nocache
fi

# A replay asks what its recording asked: both reads, from the recording
timeout -k 2 60 "$BIN" --batch --replay "$tmp/lazy.mi.log" --record "$tmp/again.mi.log" \
	>"$tmp/again.out" 2>&1 </dev/null
if [ "$(grep -c '> [0-9]*-interpreter-exec console "\(sharedlibrary\|add-symbol-file\)' "$tmp/again.mi.log")" != "$(grep -c '> [0-9]*-interpreter-exec console "\(sharedlibrary\|add-symbol-file\)' "$tmp/lazy.mi.log")" ]; then
	fail replay "the replay's symbol commands differ from the recording's"
elif [ "$(funcs again tail)" != "c10_crash tc_call ?? " ]; then
	fail replay "the replay's last stack: '$(funcs again tail)'"
else
	pass replay
fi

run all --all-host-symbols "$PY" "$tmp/crash.py"
f=$(funcs all head)
if grep -q 'auto-solib-add\|sharedlibrary' "$tmp/all.mi.log"; then
	fail all "--all-host-symbols still reads lazily"
elif [ "$f" != "c10_crash tc_call other_call " ]; then
	fail all "frames 0 to 2: '$f', wanted 'c10_crash tc_call other_call '"
else
	pass all
fi

# $CUDBG_HOST_LIBS names another first list (the developers' knob)
CUDBG_HOST_LIBS='libc10\|libother' run knob "$PY" "$tmp/crash.py"
f=$(funcs knob tail)
if ! grep -q 'sharedlibrary libc10\\\\|libother"' "$tmp/knob.mi.log"; then
	fail knob "the stop did not read \$CUDBG_HOST_LIBS's list"
elif [ "$f" != "c10_crash tc_call other_call " ]; then
	fail knob "frames 0 to 2: '$f', wanted 'c10_crash tc_call other_call '"
else
	pass knob
fi

# a C program: gdb's own way
PROG=${CUDBG_BUILD:-$ROOT/build}/progs/model_segv
if [ -x "$PROG" ]; then
	run cprog "$PROG"
	if grep -q 'auto-solib-add\|sharedlibrary' "$tmp/cprog.mi.log"; then
		fail cprog "a C program read lazily"
	else
		pass cprog
	fi
else
	fail cprog "$PROG not built"
fi
[ "$fails" -eq 0 ]
