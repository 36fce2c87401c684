#!/bin/bash
# Hangs on the GPU (needs nvcc and cuda-gdb): builds each program here
# with -G, runs `cudbg-tui --batch --timeout 5` on it with --record, checks
# the report against NAME.expect (each line an extended regular expression
# the text report must match), checks the exit status is 1 and that the
# JSON report has diagnosis.kind "hang", and replays the recording to
# check it gives the same report with no GPU.
#
# The recordings (RES/NAME.mi.log) replace the hand-made transcripts in
# tests/fixtures/hand/ (paths are recorded as /src/gpu/hang/... when /src
# can be written, as in the shared fixtures):
#   cp RES/hang_spin.mi.log tests/shared/fixtures/hang.mi.log
#
# Usage: tests/gpu/hang/record.sh [NAME...]   (default: all three)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
GROUP=hang
# shellcheck source=tests/gpu/record-setup.sh
. "$HERE/../record-setup.sh"

check() { # name what report
	local bad=""
	while IFS= read -r re; do
		[ -n "$re" ] && ! grep -Eq -- "$re" "$3" && bad="$bad [$re]"
	done < "$HERE/$1.expect"
	if [ -z "$bad" ]; then pass "$1/$2"; else fail "$1/$2" "missing$bad"; fi
}

names=("$@")
[ ${#names[@]} -eq 0 ] && names=(hang_spin hang_barrier hang_deadlock)
for n in "${names[@]}"; do
	cp "$HERE/$n.cu" "$SRC/"
	(cd "$SRC" && nvcc -G -g -o "$n" "$n.cu") || { fail "$n" "nvcc"; continue; }
	timeout 120 "$BIN" --batch --memcheck=never --force --timeout 5 \
		--record "$RES/$n.mi.log" -d "$SRC" "$SRC/$n" > "$RES/$n.txt" 2>&1
	rc=$?
	[ $rc -eq 1 ] && pass "$n/exit-status" || fail "$n/exit-status" "$rc, want 1"
	check "$n" live "$RES/$n.txt"
	timeout 120 "$BIN" --batch --json --memcheck=never --timeout 5 \
		-d "$SRC" "$SRC/$n" > "$RES/$n.json" 2>/dev/null
	if python3 -c "import json,sys; d=json.load(open('$RES/$n.json')); \
sys.exit(d['diagnosis']['kind'] != 'hang')"; then pass "$n/json"
	else fail "$n/json" "diagnosis.kind is not hang"; fi
	timeout 60 "$BIN" --batch -d "$SRC" --replay "$RES/$n.mi.log" \
		> "$RES/$n.replay.txt" 2>&1
	# a replay reports the recorded time, "after N s (recorded)", N the
	# seconds from the run to the interrupt (5 and the start-up)
	sed -E 's/after [0-9]+ s \(recorded\)$/after 5 s/' "$RES/$n.replay.txt" \
		> "$RES/$n.replay.cmp"
	check "$n" replay "$RES/$n.replay.cmp"
	# the process must be gone (the session kills its process group)
	if pgrep -x "$n" >/dev/null; then fail "$n/cleanup" "still running"
	else pass "$n/cleanup"; fi
done
echo "hang-gpu: $passed passed, $failed failed (results in $RES)"
[ $failed -eq 0 ]
