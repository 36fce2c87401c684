#!/bin/sh
# Escape safety (issue 5 item 2): text from the program or the debugger
# holding ESC, CSI, OSC, DCS, C1 controls, bidirectional overrides and
# invalid UTF-8 never reaches the terminal raw.  The real binary runs on a
# pty (tests/progs/ptyrun.c) and every byte it wrote is judged by
# tests/progs/ttycheck.c: only the sequences curses itself writes, valid
# UTF-8, no C1 or bidi code points, each planted tag drawn on the screen
# and none of the planted sequences intact.  Batch mode (text and JSON)
# and --mi-log must carry no ESC at all.
set -u
SUITE=escapes EVIDENCE="check:25 res:10"
. "$(dirname "$0")/lib/harness.sh"
CHECK=$BUILD/progs/ttycheck
need_built "$PTY" "$CHECK" "$HP"
ESC=$(printf '\033')

# The attacks harden_prog prints, as ttycheck arguments: each tag must be
# drawn, each raw sequence must not pass.
PROG_CHECKS='+RED-TAG +OSC-TAG +CLIP-TAG +DSR-TAG +DCS-TAG +C1CSI-TAG
 +C1UTF-TAG +BIDI-TAG +ISO-TAG +BADUTF-TAG +ALTSCR-TAG +CLEAR-TAG
 +CTRL-TAG +RESET-TAG +HOSTILE-END
 -\e[31mRED-TAG -\e]0;PWNED-TITLE -\e]52;c; -\e[6nDSR -\eP1$qm
 -\x9b1;1HC1CSI -\xc2\x9b2J -\xe2\x80\xaeBIDI -\xe2\x81\xa6ISO
 -\xff\xfe\xc0\xafBADUTF -\e[?1049lALTSCR -\e[2J\e[HCLEAR -\ecRESET
 -\e]0;ASSERT-TITLE'

if command -v gdb >/dev/null 2>&1; then
	c=screen_program_output
	"$PTY" -o "$tmp/$c.out" -e "$tmp/$c.err" -s 120x40 -t 40 \
		-a 'wait=not started' -a send=r -a wait=HOSTILE-END -a idle=300 \
		-a send=q -a wait=Quit -a send=y -- \
		"$BIN" --no-run --debugger gdb "$HP" hostile >"$tmp/$c.res" 2>&1
	# shellcheck disable=SC2086
	if ! grep -q '^restored=1' "$tmp/$c.res"; then
		fail $c "the screen did not end cleanly"
	elif ! "$CHECK" "$tmp/$c.out" $PROG_CHECKS >"$tmp/$c.check"; then
		fail $c "hostile program output reached the terminal"
	else
		pass $c
	fi
else
	echo "SKIP escapes/screen_program_output: gdb is not installed"
fi

# A debugger whose every string attacks: the version and console streams,
# log and target streams, frame names and files (status line, source,
# stack), locals, console command output and errors.  The program's own
# name carries an escape too.
cp "$HP" "$tmp/evil${ESC}]0;NAME-TITLE$(printf '\007')prog"
c=screen_debugger_text
FAKE_DBG_MODE=hostile "$PTY" -o "$tmp/$c.out" -e "$tmp/$c.err" -s 160x50 -t 40 \
	-a 'wait=not started' -a send=r -a wait=OSC-TAG -a idle=300 \
	-a 'send=]' -a idle=200 -a send=: -a 'send=info frame\r' -a 'wait=out ' \
	-a 'send=print nope\r' -a wait=RED-TAG -a idle=300 -a 'send=\e' \
	-a send=q -a wait=Quit -a send=y -- \
	"$BIN" --no-run --debugger "$FAKE" "$tmp/evil${ESC}]0;NAME-TITLE$(printf '\007')prog" \
	>"$tmp/$c.res" 2>&1
if ! grep -q '^restored=1' "$tmp/$c.res"; then
	fail $c "the screen did not end cleanly"
elif ! "$CHECK" "$tmp/$c.out" +OSC-TAG +RED-TAG +NAME-TITLE \
	'-\e]0;PWNED-TITLE' '-\e[31mRED-TAG' '-\e]0;NAME-TITLE' \
	'-\xe2\x80\xaeBIDI' '-\xc2\x9b2J' '-\x9b1;1H' >"$tmp/$c.check"; then
	fail $c "hostile debugger text reached the terminal"
else
	pass $c
fi

# A source file with the same attacks, shown in the source pane (the
# frame of the fake debugger points at it).
printf '%b' 'int x;\n/* \033[31mSRC-RED \033]0;SRC-TITLE\007 */\nint y; /* \342\200\256SRC-BIDI \302\233SRC-C1 \377SRC-BAD */\nint z;\n' \
	>"$tmp/evil.c"
c=screen_source_file
FAKE_DBG_MODE=plain FAKE_DBG_SOURCE="$tmp/evil.c" "$PTY" -o "$tmp/$c.out" \
	-e "$tmp/$c.err" -s 160x50 -t 40 -a 'wait=SRC-BAD' -a idle=300 -a send=q \
	-a wait=Quit -a send=y -- "$BIN" --debugger "$FAKE" "$HP" sleep \
	>"$tmp/$c.res" 2>&1
if ! grep -q '^restored=1' "$tmp/$c.res"; then
	fail $c "the screen did not end cleanly"
elif ! "$CHECK" "$tmp/$c.out" +SRC-RED +SRC-TITLE +SRC-BIDI +SRC-C1 +SRC-BAD \
	'-\e[31mSRC-RED' '-\e]0;SRC-TITLE' '-\xe2\x80\xaeSRC-BIDI' \
	'-\xc2\x9bSRC-C1' >"$tmp/$c.check"; then
	fail $c "a hostile source file reached the terminal"
else
	pass $c
fi

# Batch mode and --mi-log: no ESC byte at all, and the rest as above.
plain() { # case file: no ESC, valid UTF-8, no C1, no bidi
	if grep -q "$ESC" "$2"; then
		echo "an ESC byte in the output" >"$tmp/$1.check"
		return 1
	fi
	"$CHECK" "$2" >"$tmp/$1.check"
}
for fmt in batch json; do
	c=${fmt}_debugger_text
	FAKE_DBG_MODE=hostile "$BIN" --$fmt --debugger "$FAKE" "$HP" sleep \
		>"$tmp/$c.out" 2>"$tmp/$c.err"
	[ $fmt = json ] && keep_report "$tmp/$c.out"
	if ! grep -q 'OSC-TAG' "$tmp/$c.out"; then
		fail $c "the planted text is not in the report"
	elif ! plain $c "$tmp/$c.out" || ! plain $c "$tmp/$c.err"; then
		fail $c "raw bytes in the report"
	else
		pass $c
	fi
	if command -v gdb >/dev/null 2>&1; then
		c=${fmt}_program_output
		"$BIN" --$fmt --debugger gdb "$HP" hostile exit \
			>"$tmp/$c.out" 2>"$tmp/$c.err"
		[ $fmt = json ] && keep_report "$tmp/$c.out"
		if ! grep -q 'ASSERT-TITLE' "$tmp/$c.out"; then
			fail $c "the assertion is not in the report"
		elif ! plain $c "$tmp/$c.out" || ! plain $c "$tmp/$c.err"; then
			fail $c "raw bytes in the report"
		else
			pass $c
		fi
	fi
done
c=mi_log_debugger_text
FAKE_DBG_MODE=hostile "$BIN" --mi-log --timeout 20 --debugger "$FAKE" "$HP" sleep \
	>"$tmp/$c.out" 2>"$tmp/$c.err"
if ! grep -q 'OSC-TAG' "$tmp/$c.out"; then
	fail $c "the planted text is not in the log"
elif ! plain $c "$tmp/$c.out" || ! plain $c "$tmp/$c.err"; then
	fail $c "raw bytes in the log"
else
	pass $c
fi
# A one-line error naming hostile input (a path with OSC and CSI in it):
# written through base's text_write_line, so stderr carries no ESC either.
# error_line CASE PATTERN WHAT: CASE's stderr names the input (PATTERN)
# and carries no raw escape bytes.
error_line() {
	if ! grep -q "$2" "$tmp/$1.err"; then
		fail "$1" "$3 is not named: $(cat "$tmp/$1.err")"
	elif ! plain "$1" "$tmp/$1.err"; then
		fail "$1" "raw bytes in the error line"
	else
		pass "$1"
	fi
}
c=error_names_hostile_path
"$BIN" --batch --replay "$tmp/no${ESC}]0;ERR-TITLE$(printf '\007')x.mi.log" \
	>"$tmp/$c.out" 2>"$tmp/$c.err"
error_line $c 'ERR-TITLE' "the path"
# The same for the other messages that name the user's input:
# --sanitizer-report without a program.
c=error_names_hostile_report
"$BIN" --sanitizer-report "$tmp/r${ESC}[31mRED.xml" >"$tmp/$c.out" 2>"$tmp/$c.err"
error_line $c 'RED.xml without a program' "the report"
exit $fails
