#!/bin/sh
# Processes and files (issue 5 item 3):
#   - the user's arguments reach the program word for word (spaces,
#     quotes, $(...), backquotes, ;, globs, an empty word, a newline) and
#     nothing in them runs: under gdb (batch and screen) and under the
#     memcheck pass (a fake compute-sanitizer that runs "$@");
#   - the memcheck pass keeps its files in a private mkdtemp directory
#     (mode 0700, under $TMPDIR) that is gone at exit, or kept and named
#     with --keep-temp;
#   - --record never replaces a file (nor a symlink) unless --force, in
#     every mode; the console history is appended to, never replaced.
set -u
SUITE=files EVIDENCE="err:15 res:15"
. "$(dirname "$0")/lib/harness.sh"
need_built "$PTY" "$HP"
# the memcheck pass's private directories go here, to be counted
mkdir -p "$tmp/t"
export TMPDIR="$tmp/t"

# ---- arguments ------------------------------------------------------------

# Each word must arrive as itself; the two touch commands must never run.
NL='
'
set -- args 'two words' "\$(touch $tmp/pwned1)" "\`touch $tmp/pwned2\`" \
	'a;b' '"dq"' "it's" '' '*' "~" '>redir' "tab	x" "new${NL}line" '$HOME' \
	'\back'
printf '%s\n' 'arg1=[two words]' "arg2=[\$(touch $tmp/pwned1)]" \
	"arg3=[\`touch $tmp/pwned2\`]" 'arg4=[a;b]' 'arg5=["dq"]' "arg6=[it's]" \
	'arg7=[]' 'arg8=[*]' 'arg9=[~]' 'arg10=[>redir]' 'arg11=[tab	x]' \
	'arg12=[new' 'line]' 'arg13=[$HOME]' 'arg14=[\back]' 'argc=14' \
	>"$tmp/want.args"

# same_args CASE: the program wrote exactly the words given, and nothing
# in them ran.
same_args() {
	if [ -e "$tmp/pwned1" ] || [ -e "$tmp/pwned2" ] || [ -e ">redir" ]; then
		fail "$1" "an argument was run by a shell"
	elif ! cmp -s "$tmp/want.args" "$tmp/$1.args"; then
		fail "$1" "the words changed: $(diff "$tmp/want.args" "$tmp/$1.args" 2>&1 | head -6)"
	else
		pass "$1"
	fi
	rm -f "$tmp/pwned1" "$tmp/pwned2"
}

if [ $HAVE_GDB = 1 ]; then
	c=args_gdb_batch
	HARDEN_ARGS_OUT="$tmp/$c.args" "$BIN" --batch --debugger gdb "$HP" "$@" \
		>"$tmp/$c.res" 2>"$tmp/$c.err" </dev/null
	same_args $c
	c=args_gdb_screen
	HARDEN_ARGS_OUT="$tmp/$c.args" "$PTY" -o "$tmp/$c.out" -e "$tmp/$c.err" \
		-s 100x30 -t 30 -a 'wait=not started' -a send=r -a 'wait=exited with code 0' \
		-a send=q -- "$BIN" --no-run --debugger gdb "$HP" "$@" >"$tmp/$c.res" 2>&1
	same_args $c
else
	echo "SKIP files/args: gdb is not installed"
fi
# The memcheck pass runs the program itself (the fake debugger does not
# run it, so only the pass writes the words).
c=args_memcheck
HARDEN_ARGS_OUT="$tmp/$c.args" FAKE_SAN_XML="$FIX/small_oob.sanitizer.xml" \
	"$BIN" --batch --debugger "$FAKE" --memcheck=always --sanitizer "$FAKESAN" \
	"$HP" "$@" >"$tmp/$c.res" 2>"$tmp/$c.err" </dev/null
same_args $c

# ---- the private temporary directory ---------------------------------------

c=temp_dir_private_and_removed
FAKE_SAN_XML="$FIX/small_oob.sanitizer.xml" FAKE_SAN_LOG="$tmp/$c.log" \
	"$BIN" --batch --debugger "$FAKE" --memcheck=always --sanitizer "$FAKESAN" \
	"$HP" exit 0 >"$tmp/$c.res" 2>"$tmp/$c.err" </dev/null
dir=$(sed -n 's/^dir=\([^ ]*\) .*/\1/p' "$tmp/$c.log" 2>/dev/null)
case $dir in
"$tmp/t"/cudbg-memcheck-??????) ;;
*) dir= ;;
esac
if [ -z "$dir" ] || ! grep -q ' mode=700$' "$tmp/$c.log"; then
	fail $c "the pass did not run in a private directory: $(cat "$tmp/$c.log" 2>&1)"
elif [ -e "$dir" ] || [ -n "$(ls "$tmp/t")" ]; then
	fail $c "$dir was left behind"
else
	pass $c
fi
c=temp_dir_kept_on_request
FAKE_SAN_XML="$FIX/small_oob.sanitizer.xml" FAKE_SAN_LOG="$tmp/$c.log" \
	"$BIN" --batch --keep-temp --debugger "$FAKE" --memcheck=always \
	--sanitizer "$FAKESAN" "$HP" exit 0 >"$tmp/$c.res" 2>"$tmp/$c.err" </dev/null
dir=$(sed -n 's/^dir=\([^ ]*\) .*/\1/p' "$tmp/$c.log" 2>/dev/null)
if [ -z "$dir" ] || [ ! -f "$dir/report.xml" ]; then
	fail $c "--keep-temp did not keep the report"
elif ! grep -qF "kept the temporary directory $dir" "$tmp/$c.err"; then
	fail $c "--keep-temp did not say where"
else
	pass $c
fi
rm -rf "$tmp/t"/*

# ---- --record never replaces a file unless asked ----------------------------

echo keep >"$tmp/exists.mi.log"
ln -s "$tmp/target" "$tmp/link.mi.log"
echo untouched >"$tmp/target"
for how in batch json mi-log screen; do
	for f in exists link; do
		c=record_refuses_${f}_$how
		rec="$tmp/$f.mi.log"
		case $how in
		screen)
			"$PTY" -o "$tmp/$c.out" -e "$tmp/$c.err" -s 100x30 -t 20 -- \
				"$BIN" --debugger "$FAKE" --record "$rec" "$HP" sleep \
				>"$tmp/$c.res" 2>&1
			grep -q '^status=exit:2' "$tmp/$c.res"
			rc=$? ;;
		*)
			"$BIN" --$how --debugger "$FAKE" --record "$rec" "$HP" sleep \
				>"$tmp/$c.res" 2>"$tmp/$c.err" </dev/null
			[ $? -eq 2 ]
			rc=$?
			[ $how = json ] && keep_report "$tmp/$c.res" ;;
		esac
		if [ $rc -ne 0 ] || ! grep -q "exists; choose another file for --record, or add --force" "$tmp/$c.err"; then
			fail $c "not refused"
		elif [ "$(cat "$tmp/exists.mi.log")" != keep ] ||
		     [ "$(cat "$tmp/target")" != untouched ]; then
			fail $c "the file was changed"
		else
			pass $c
		fi
	done
done
c=record_force_replaces
"$BIN" --batch --debugger "$FAKE" --record "$tmp/exists.mi.log" --force "$HP" sleep \
	>"$tmp/$c.res" 2>"$tmp/$c.err" </dev/null
if grep -q '^keep$' "$tmp/exists.mi.log" || ! grep -q -- '-gdb-version' "$tmp/exists.mi.log"; then
	fail $c "--force did not replace the file with the recording"
else
	pass $c
fi

# ---- the console history is appended to, not replaced -----------------------

c=history_appended
mkdir -p "$tmp/state/cudbg-tui"
printf 'old command one\nold command two\n' >"$tmp/state/cudbg-tui/history"
env -u CUDBG_HISTORY XDG_STATE_HOME="$tmp/state" "$PTY" -o "$tmp/$c.out" \
	-e "$tmp/$c.err" -s 100x30 -t 30 -a 'wait=not started' -a send=: \
	-a 'send=print 6*7\r' -a 'wait== 42' -a 'send=\e' -a send=q -- \
	"$BIN" --no-run --debugger "$FAKE" "$HP" sleep >"$tmp/$c.res" 2>&1
if ! grep -q '^old command one$' "$tmp/state/cudbg-tui/history" ||
   ! grep -q '^old command two$' "$tmp/state/cudbg-tui/history" ||
   ! grep -q '^print 6\*7$' "$tmp/state/cudbg-tui/history"; then
	fail $c "history now: $(tr '\n' '|' <"$tmp/state/cudbg-tui/history")"
else
	pass $c
fi
c=history_dir_private
rm -rf "$tmp/state2"
env -u CUDBG_HISTORY XDG_STATE_HOME="$tmp/state2" "$PTY" -o "$tmp/$c.out" \
	-e "$tmp/$c.err" -s 100x30 -t 30 -a 'wait=not started' -a send=: \
	-a 'send=print 1\r' -a 'wait== 42' -a 'send=\e' -a send=q -- \
	"$BIN" --no-run --debugger "$FAKE" "$HP" sleep >"$tmp/$c.res" 2>&1
if [ "$(stat -c %a "$tmp/state2/cudbg-tui" 2>&1)" != 700 ] ||
   [ "$(stat -c %a "$tmp/state2/cudbg-tui/history" 2>&1)" != 600 ]; then
	fail $c "modes $(stat -c %a "$tmp/state2/cudbg-tui" "$tmp/state2/cudbg-tui/history" 2>&1 | tr '\n' ' ')"
else
	pass $c
fi
exit $fails
