#!/bin/sh
# The config file through the real binary: found through XDG_CONFIG_HOME,
# errors as one FILE:LINE line, source directories and key bindings on the
# screen (headless), the memcheck default in batch mode and the command
# line winning over it.  Prints PASS/FAIL lines.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
BUILD=${CUDBG_BUILD:-$ROOT/build}
FIX=${CUDBG_FIXTURES:-$ROOT/tests/shared/fixtures}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset CUDBG_CONFIG CUDBG_DATADIR
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/xdg"
mkdir -p "$HOME" "$XDG_CONFIG_HOME/cudbg-tui"
cfg="$XDG_CONFIG_HOME/cudbg-tui/config"

pass() { echo "PASS config/$1"; }
fail() { echo "FAIL config/$1: $2"; }
. "$ROOT/tests/sh/lib/reports.sh" # keep_report

# screen NAME ARGS...: runs the headless script $tmp/NAME.script
screen() {
	sn=$1; shift
	if (cd "$ROOT" && CUDBG_TEST_SCRIPT="$tmp/$sn.script" CUDBG_TEST_SIZE=120x36 \
		CUDBG_HISTORY= TERM=xterm-256color timeout 60 "$BIN" "$@" \
		>"$tmp/$sn.out" 2>&1 </dev/null); then
		pass "$sn"
	else
		fail "$sn" "the script failed:"; sed 's/^/    /' "$tmp/$sn.out" | head -50
	fi
}

# 1. A bad line: one line naming the file and the line, exit 2, in every
# mode (the file is read before anything starts).
printf 'memcheck auto\n# fine so far\nbind F6 explode\n' >"$cfg"
for mode in batch screen; do
	if [ $mode = batch ]; then set -- --demo --batch seed
	else set -- --demo; fi
	CUDBG_TEST_SCRIPT=/dev/null "$BIN" "$@" >"$tmp/o" 2>"$tmp/e" </dev/null
	rc=$?
	if [ $rc -ne 2 ]; then fail "bad_line_$mode" "exit $rc"
	elif [ "$(wc -l <"$tmp/e")" -ne 1 ]; then fail "bad_line_$mode" "not one line:"; cat "$tmp/e"
	elif ! grep -qF "cudbg-tui: $cfg:3: unknown action 'explode'" "$tmp/e"; then
		fail "bad_line_$mode" "message: $(cat "$tmp/e")"
	else pass "bad_line_$mode"; fi
done
# --help and --version do not read it
if "$BIN" --version >/dev/null 2>&1; then pass version_ignores_config
else fail version_ignores_config "--version failed with a bad config"; fi
# CUDBG_CONFIG= reads no file at all
if CUDBG_CONFIG= "$BIN" --demo --batch step >/dev/null 2>&1; then pass env_disables
else fail env_disables "CUDBG_CONFIG= still read $cfg"; fi

# 2. Source directories: the null_write recording names
# /src/examples/null_write.cu; the config's directory finds it.
printf 'directory %s/data/examples\n' "$ROOT" >"$cfg"
cat >"$tmp/dirs.script" <<'EOF'
r
:wait-stop
:wait-idle
:assert-text [Source] null_write.cu:10
:assert-text     9     float *w = (i == 37) ? nullptr : p.weights;
EOF
screen dirs --replay "$ROOT/data/demo/demo_null_write.mi.log"
# and without it, no source
: >"$cfg"
cat >"$tmp/nodirs.script" <<'EOF'
r
:wait-stop
:wait-idle
:dump nodirs.txt
EOF
(cd "$tmp" && CUDBG_TEST_SCRIPT="$tmp/nodirs.script" CUDBG_TEST_SIZE=120x36 \
	timeout 60 "$BIN" --replay "$ROOT/data/demo/demo_null_write.mi.log" >/dev/null 2>&1 </dev/null)
if grep -qF "float *w = (i == 37)" "$tmp/nodirs.txt" 2>/dev/null; then
	fail no_dirs "the source was found without a directory"
elif [ -f "$tmp/nodirs.txt" ]; then pass no_dirs
else fail no_dirs "no dump"; fi

# 3. Key bindings: x does next and F6 does step on the step recording;
# in the console x is only a letter.
printf 'bind x next\nbind F6 step\nbind C-g quit\n' >"$cfg"
cat >"$tmp/keys.script" <<'EOF'
r
:wait-stop
:wait-idle
:assert-text [Source] step_kernel.cu:8
x
:wait-stop
:wait-idle
:assert-text [Source] step_kernel.cu:9
<F6>
:wait-stop
:wait-idle
:assert-text [Source] step_kernel.cu:10
i
:type print x
:wait-idle
:assert-text print x
:assert-text [Source] step_kernel.cu:10
<Esc>
<C-g>
:assert-text Quit, and kill it?
y
EOF
screen keys --replay "$ROOT/data/demo/step_kernel.mi.log" -d "$ROOT/data/examples"

# 3b. keys cgdb: cgdb's function keys (F8 next, F10 step) on the same
# recording, which holds a next and then a step (a next there would be
# answered "no step further").
printf 'keys cgdb\n' >"$cfg"
cat >"$tmp/cgdb.script" <<'EOF'
:wait-stop
:wait-idle
:assert-text [Source] step_kernel.cu:8
<F8>
:wait-stop
:wait-idle
:assert-text [Source] step_kernel.cu:9
<F10>
:wait-stop
:wait-idle
:assert-text [Source] step_kernel.cu:10
q
y
EOF
screen cgdb --replay "$ROOT/data/demo/step_kernel.mi.log" -d "$ROOT/data/examples"

# 4. memcheck default from the file, and --memcheck on the command line
# winning (real gdb on a CPU program, the fake sanitizer of the tests).
if ! command -v gdb >/dev/null 2>&1; then
	echo "SKIP config/memcheck: gdb is not installed"
elif [ ! -f "$FIX/small_oob.sanitizer.xml" ]; then
	echo "SKIP config/memcheck: no fixtures at $FIX"
else
	printf 'memcheck always\n' >"$cfg"
	fake="$ROOT/tests/data/fake-compute-sanitizer"
	prog="$BUILD/progs/model_prog"
	FAKE_SAN_XML="$FIX/small_oob.sanitizer.xml" timeout 90 "$BIN" --json \
		--debugger gdb --sanitizer "$fake" "$prog" 2 >"$tmp/m1" \
		2>"$tmp/m1.err" </dev/null
	rc=$?
	keep_report "$tmp/m1"
	if [ $rc -eq 1 ] && grep -qF '"kind":"memcheck"' "$tmp/m1"; then
		pass memcheck_from_file
	else fail memcheck_from_file "exit $rc:"; head -c 2000 "$tmp/m1" "$tmp/m1.err"; echo; fi
	FAKE_SAN_XML="$FIX/small_oob.sanitizer.xml" timeout 90 "$BIN" --batch \
		--memcheck=never --debugger gdb --sanitizer "$fake" "$prog" 2 \
		>"$tmp/m2" 2>&1 </dev/null
	rc=$?
	if [ $rc -eq 0 ] && grep -qF "no fault found" "$tmp/m2"; then
		pass command_line_wins
	else fail command_line_wins "exit $rc:"; head -40 "$tmp/m2"; fi
fi

# 5. ~/.gdbinit: ignored by default (the debugger runs with --nx), sourced
# with `gdbinit yes` before the run (real gdb: its breakpoint in square
# stops the program there).
if command -v gdb >/dev/null 2>&1; then
	printf 'break square\n' >"$HOME/.gdbinit"
	: >"$cfg"
	timeout 60 "$BIN" --batch --debugger gdb "$BUILD/progs/steps" \
		>"$tmp/g0" 2>&1 </dev/null
	if grep -q "square" "$tmp/g0" && grep -q "stop:.*Breakpoint" "$tmp/g0"; then
		fail gdbinit_ignored "~/.gdbinit was read without 'gdbinit yes':"
		head -20 "$tmp/g0"
	else pass gdbinit_ignored; fi
	printf 'gdbinit yes\n' >"$cfg"
	timeout 60 "$BIN" --batch --debugger gdb "$BUILD/progs/steps" \
		>"$tmp/g1" 2>&1 </dev/null
	if grep -q "stop: *Breakpoint 1 in square" "$tmp/g1"; then
		pass gdbinit_yes
	else fail gdbinit_yes "no stop in square:"; head -20 "$tmp/g1"; fi
	# gdb 13's own place comes first (issue 31 item 6): with both,
	# ~/.config/gdb/gdbinit is the one read
	mkdir -p "$HOME/.config/gdb"
	printf 'break main\n' >"$HOME/.config/gdb/gdbinit"
	timeout 60 "$BIN" --batch --debugger gdb "$BUILD/progs/steps" \
		>"$tmp/g2" 2>&1 </dev/null
	if grep -q "stop: *Breakpoint 1 in main" "$tmp/g2"; then
		pass gdbinit_xdg_first
	else fail gdbinit_xdg_first "~/.config/gdb/gdbinit not read first:"; head -20 "$tmp/g2"; fi
	rm -rf "$HOME/.gdbinit" "$HOME/.config/gdb"
	: >"$cfg"
fi
