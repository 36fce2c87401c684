#!/bin/sh
# --demo through the real binary: every demo's batch report, the errors,
# no arguments with and without a GPU, and an installed copy finding its
# data.  Prints PASS/FAIL lines.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export CUDBG_CONFIG=
unset CUDBG_DATADIR

pass() { echo "PASS demo/$1"; }
fail() { echo "FAIL demo/$1: $2"; }
. "$ROOT/tests/sh/lib/reports.sh" # keep_report

# has NAME FILE TEXT...: every TEXT is in FILE
has() {
	hn=$1 hf=$2; shift 2
	for t in "$@"; do
		if ! grep -qF -- "$t" "$hf"; then
			fail "$hn" "no '$t' in:"; sed 's/^/    /' "$hf" | head -40
			return 1
		fi
	done
	return 0
}

# batch NAME WANT_RC TEXT...
batch() {
	n=$1 want=$2; shift 2
	timeout 60 "$BIN" --demo --batch "$n" >"$tmp/$n.out" 2>"$tmp/$n.err" </dev/null
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "batch_$n" "exit $rc, want $want"; cat "$tmp/$n.err"; return
	fi
	has "batch_$n" "$tmp/$n.out" "$@" && pass "batch_$n"
}

batch seed 1 "Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d" \
	"thread (23,0,0)" "Loss.cu:245" "seed_repro.py:9" "(pytorch-class-index)"
batch assert 1 "Warp Assert in nll_loss" "assert_label.cu:10" \
	"block (1,0,0) thread (5,0,0)" "(device-assert)"
batch null 1 "Warp Illegal Address" "null_write.cu:10"
batch oob 1 "thread (99,0,0)" "small_oob.cu:7" \
	"Invalid __global__ read of size 4 bytes"
batch quiet 1 "exited normally" "FAULT (memcheck)" "small_oob.cu:7"
batch step 0 "Breakpoint 1 in saxpy2"

# JSON too (--json implies --batch)
timeout 60 "$BIN" --demo --json null >"$tmp/j.out" 2>"$tmp/j.err" </dev/null
rc=$?
keep_report "$tmp/j.out"
if [ $rc -eq 1 ] && head -c1 "$tmp/j.out" | grep -q '{' &&
   has json "$tmp/j.out" '"exception":{"name":"Warp Illegal Address"' \
	'"signal":"CUDA_EXCEPTION_14"'; then
	pass json
elif [ $rc -ne 1 ]; then fail json "exit $rc"; fi

# errors: one line, exit 2
err_case() { # name want_text args...
	n=$1 want=$2; shift 2
	"$@" >"$tmp/e.out" 2>"$tmp/e.err" </dev/null
	rc=$?
	lines=$(wc -l <"$tmp/e.err")
	if [ $rc -ne 2 ]; then fail "$n" "exit $rc, want 2"
	elif [ "$lines" -ne 1 ]; then fail "$n" "$lines lines on stderr"; cat "$tmp/e.err"
	else has "$n" "$tmp/e.err" "$want" && pass "$n"; fi
}
err_case batch_needs_a_name "needs a demo name: seed, assert, null, oob" \
	"$BIN" --demo --batch
err_case unknown_name "no demo named 'nope'; the demos are seed" \
	"$BIN" --demo --batch nope
err_case two_names "--demo takes one demo name at most" "$BIN" --demo a b
err_case with_replay "choose one of" "$BIN" --demo --replay x
err_case bad_datadir "CUDBG_DATADIR=/nonexistent" \
	env CUDBG_DATADIR=/nonexistent "$BIN" --demo --batch seed
err_case screen_unknown_name "no demo named 'nope'" \
	env CUDBG_TEST_SCRIPT=/dev/null "$BIN" --demo nope

# A copy of the binary away from the tree, with no data installed.
mkdir -p "$tmp/away/bin"
# (the binary itself: under `make valgrind` $BIN is a wrapper script)
cp "${CUDBG_REAL_BIN:-$BIN}" "$tmp/away/bin/cudbg-tui"
if [ -f /usr/local/share/cudbg-tui/demo/README.md ]; then
	echo "SKIP demo/not_installed: a demo is installed in /usr/local/share"
else
	err_case not_installed "the demo recordings are not installed" \
		"$tmp/away/bin/cudbg-tui" --demo --batch seed
fi

# make install puts the data, the example config and the man page in
# place; the installed binary finds the data through CUDBG_DATADIR.
# (-o: the binary and the reporter as they are, never rebuilt here: in
# the ASan pass a rebuild with the default flags would relink the pass's
# own binary while other tests run it; CI lost 140 tests to that once)
if make -s -C "$ROOT" BUILD="$BUILD" DESTDIR="$tmp/inst" \
	-o "$BUILD/cudbg-tui" -o "$BUILD/libcudbg-death.so" install \
	>"$tmp/inst.log" 2>&1; then
	share="$tmp/inst/usr/local/share/cudbg-tui"
	missing=""
	for f in "$share/demo/README.md" "$share/demo/seed_py.mi.log" \
		"$share/examples/seed_repro.py" "$share/config.example" \
		"$share/hints.rules" "$tmp/inst/usr/local/share/man/man1/cudbg-tui.1"; do
		[ -f "$f" ] || missing="$missing $f"
	done
	if [ -n "$missing" ]; then fail install "missing:$missing"
	else
		CUDBG_DATADIR=$share timeout 60 \
			"$tmp/inst/usr/local/bin/cudbg-tui" --demo --batch assert \
			>"$tmp/i.out" 2>&1 </dev/null
		rc=$?
		if [ $rc -ne 1 ]; then fail install "installed demo: exit $rc"; cat "$tmp/i.out"
		else has install "$tmp/i.out" "$share/demo/demo_assert_label.mi.log" \
			"assert_label.cu:10" && pass install; fi
	fi
else
	fail install "make install failed:"; cat "$tmp/inst.log"
fi

# An installed tree moved elsewhere (as `make install PREFIX=X` after a
# build made for another prefix leaves it): the binary finds its data
# beside its bin/ with no CUDBG_DATADIR, and the docs are installed.
if [ -d "$tmp/inst/usr/local/bin" ]; then
	cp -R "$tmp/inst/usr/local" "$tmp/moved"
	env -u CUDBG_DATADIR -u CUDBG_HINTS timeout 60 \
		"$tmp/moved/bin/cudbg-tui" --demo --batch assert \
		>"$tmp/p.out" 2>&1 </dev/null
	rc=$?
	if [ $rc -ne 1 ]; then fail install_moved "exit $rc"; cat "$tmp/p.out"
	elif [ ! -f "$tmp/moved/share/doc/cudbg-tui/user-guide.md" ]; then
		fail install_moved "no docs in share/doc/cudbg-tui"
	else has install_moved "$tmp/p.out" "$tmp/moved/share/cudbg-tui/demo/demo_assert_label.mi.log" \
		"(device-assert)" && pass install_moved; fi
fi

# No arguments: the demo where there is no GPU, the usage where there is.
if [ -e /dev/nvidia0 ]; then
	echo "SKIP demo/no_arguments: this machine has a GPU"
else
	mkdir -p "$tmp/nogpu"
	for t in sh cat; do ln -s "$(command -v $t)" "$tmp/nogpu/$t"; done
	printf ':wait-text Choose one\n:dump %s/noargs.txt\nq\n' "$tmp" >"$tmp/noargs.script"
	timeout 30 env -u CUDA_HOME PATH="$tmp/nogpu" \
		CUDBG_TEST_SCRIPT="$tmp/noargs.script" CUDBG_TEST_SIZE=100x30 "$BIN" \
		>"$tmp/na.out" 2>"$tmp/na.err" </dev/null
	rc=$?
	if [ $rc -ne 0 ]; then fail no_arguments "exit $rc"; cat "$tmp/na.err"
	elif [ "$(wc -l <"$tmp/na.err")" -ne 1 ]; then
		fail no_arguments "want one line on stderr:"; cat "$tmp/na.err"
	elif has no_arguments "$tmp/na.err" "no GPU or cuda-gdb on this machine: starting the demo" &&
	     has no_arguments "$tmp/noargs.txt" "cudbg-tui demo" "1  seed"; then
		pass no_arguments
	fi
	# no terminal and no script: the demo's screen refuses, pointing at --batch
	timeout 30 env -u CUDA_HOME PATH="$tmp/nogpu" CUDBG_TEST_SCRIPT= "$BIN" \
		>"$tmp/nt.out" 2>"$tmp/nt.err" </dev/null
	rc=$?
	if [ $rc -eq 2 ] && has no_arguments_no_tty "$tmp/nt.err" "starting the demo" "--batch"; then
		pass no_arguments_no_tty
	elif [ $rc -ne 2 ]; then fail no_arguments_no_tty "exit $rc"; fi
	# a GPU's signs: the usage, exit 2
	printf '#!/bin/sh\nexit 0\n' >"$tmp/nogpu/nvidia-smi"
	chmod 755 "$tmp/nogpu/nvidia-smi"
	timeout 30 env -u CUDA_HOME PATH="$tmp/nogpu" "$BIN" \
		>"$tmp/g.out" 2>"$tmp/g.err" </dev/null
	rc=$?
	if [ $rc -eq 2 ] && has usage_with_gpu "$tmp/g.err" "usage: cudbg-tui" "--demo [NAME]"; then
		if grep -q "starting the demo" "$tmp/g.err"; then
			fail usage_with_gpu "started the demo"
		else pass usage_with_gpu; fi
	elif [ $rc -ne 2 ]; then fail usage_with_gpu "exit $rc"; fi
fi
