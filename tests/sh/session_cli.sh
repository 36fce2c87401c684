#!/bin/sh
# The entry point and the session through the real binary: usage errors,
# the terminal check, --record refusing to overwrite, a truncated
# --replay, --record then --replay of a real gdb session giving the same
# records, every fixture replaying, and a recording surviving a crash.
set -u
BIN=${CUDBG_BIN:-build/cudbg-tui}
PROGS=${CUDBG_BUILD:-build}/progs
FIX=${CUDBG_FIXTURES:-tests/shared/fixtures}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
pass() { echo "PASS session_cli/$1"; }
fail() { echo "FAIL session_cli/$1: $2"; fails=$((fails + 1)); }

# usage
if "$BIN" --help >"$tmp/out" 2>&1 && grep -q -- '--replay FILE' "$tmp/out"; then
	pass help
else
	fail help "no usage text"
fi
"$BIN" --bogus >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
   grep -q "unknown option '--bogus'" "$tmp/err"; then
	pass bad_option
else
	fail bad_option "rc=$rc: $(cat "$tmp/err")"
fi
"$BIN" "$PROGS/steps" </dev/null >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q -- '--batch' "$tmp/err"; then
	pass needs_terminal
else
	fail needs_terminal "rc=$rc: $(cat "$tmp/err")"
fi

# --record never overwrites unless --force
echo keep >"$tmp/exists.mi.log"
"$BIN" --mi-log --debugger gdb --record "$tmp/exists.mi.log" "$PROGS/steps" \
	>"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'exists' "$tmp/err" &&
   [ "$(cat "$tmp/exists.mi.log")" = keep ]; then
	pass record_refuses_existing
else
	fail record_refuses_existing "rc=$rc: $(cat "$tmp/err")"
fi

# a truncated transcript
printf '   0.1 < =thread-group-added,id="i1"\n   0.2 > -gdb-version\n   0.3 < ^do' \
	>"$tmp/cut.mi.log"
"$BIN" --mi-log --replay "$tmp/cut.mi.log" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q 'cut.mi.log:3: the transcript is cut short' "$tmp/err"; then
	pass truncated_replay
else
	fail truncated_replay "rc=$rc: $(cat "$tmp/err")"
fi

# --record then --replay of a real gdb session
if command -v gdb >/dev/null 2>&1; then
	set -- --mi-exec "-break-insert square" --mi-exec "-exec-run" \
		--mi-exec "-exec-next" --mi-exec "-stack-list-locals --all-values" \
		--mi-exec "-exec-finish" --mi-exec "-exec-step" \
		--mi-exec "-stack-list-frames" --mi-exec "-exec-continue" \
		--mi-exec "-exec-continue"
	"$BIN" --mi-log --debugger gdb --record "$tmp/live.mi.log" "$@" \
		"$PROGS/steps" 'a b' '$HOME' >"$tmp/live.txt" 2>&1
	rc1=$?
	"$BIN" --mi-log --replay "$tmp/live.mi.log" "$@" >"$tmp/replay.txt" 2>&1
	rc2=$?
	grep -v '^T ' "$tmp/live.txt" >"$tmp/live.rec"
	grep -v '^T ' "$tmp/replay.txt" >"$tmp/replay.rec"
	grep '^T ' "$tmp/live.txt" | sort >"$tmp/live.t"
	grep '^T ' "$tmp/replay.txt" | sort >"$tmp/replay.t"
	if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
		fail record_replay "rc $rc1/$rc2: $(tail -3 "$tmp/replay.txt")"
	elif ! grep -q 'exit-code="07"' "$tmp/live.rec" ||
	     ! grep -q 'T arg1=\[a b\]' "$tmp/live.t" ||
	     ! grep -q 'T arg2=\[\$HOME\]' "$tmp/live.t" ||
	     ! grep -q 'func="square"' "$tmp/live.rec"; then
		fail record_replay "the live session did not go as planned"
	elif ! cmp -s "$tmp/live.rec" "$tmp/replay.rec"; then
		fail record_replay "records differ: $(diff "$tmp/live.rec" "$tmp/replay.rec" | head -5)"
	elif ! cmp -s "$tmp/live.t" "$tmp/replay.t"; then
		fail record_replay "program output differs"
	else
		pass record_replay
	fi
else
	echo "SKIP session_cli/record_replay: gdb not installed"
fi

# every fixture replays through the binary
bad=""
for f in "$FIX"/*.mi.log "$FIX"/*.mi.log.gz; do
	[ -f "$f" ] || continue
	"$BIN" --mi-log --timeout 120 --replay "$f" >"$tmp/fx.txt" 2>&1 ||
		bad="$bad $(basename "$f")"
	grep -q '^ready status=0' "$tmp/fx.txt" || bad="$bad $(basename "$f")(ready)"
done
if [ -z "$bad" ]; then pass fixtures_replay; else fail fixtures_replay "$bad"; fi

# a recording survives a crash of cudbg-tui, and leaves no debugger behind
if command -v gdb >/dev/null 2>&1; then
	# A private copy: the screens tests run sleeper beside this one, and
	# pgrep must see only ours (make test failed here once under load).
	cp "$PROGS/sleeper" "$tmp/sleeper"
	"$BIN" --mi-log --debugger gdb --timeout 60 --record "$tmp/crash.mi.log" \
		"$tmp/sleeper" >"$tmp/crash.txt" 2>&1 &
	pid=$!
	i=0
	# Up to 60 s: under a loaded valgrind the start alone took past 10 s
	# (CI killed it before the program printed, and the replay then had
	# nothing of the program to show).
	while ! grep -q '^T sleeper' "$tmp/crash.txt" && [ $i -lt 600 ]; do
		sleep 0.1; i=$((i + 1))
	done
	started=0
	grep -q '^T sleeper' "$tmp/crash.txt" && started=1
	kill -9 $pid
	wait $pid 2>/dev/null
	i=0
	while pgrep -f "$tmp/sleeper" >/dev/null && [ $i -lt 100 ]; do
		sleep 0.1; i=$((i + 1))
	done
	# The recording stops mid-run, so the replay waits out its timeout.
	"$BIN" --mi-log --timeout 3 --replay "$tmp/crash.mi.log" >"$tmp/out" 2>&1
	if [ $started -eq 0 ]; then
		fail crash_recording "the program printed nothing in 60 s: $(tail -2 "$tmp/crash.txt")"
	elif pgrep -f "$tmp/sleeper" >/dev/null; then
		fail crash_recording "gdb or the program outlived cudbg-tui"
	elif ! grep -q '^reply running' "$tmp/out" ||
	     ! grep -q '^T sleeper' "$tmp/out"; then
		fail crash_recording "the recording does not replay: $(tail -2 "$tmp/out")"
	else
		pass crash_recording
	fi
fi
exit $fails
