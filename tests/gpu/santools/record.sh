#!/bin/bash
# racecheck, initcheck and synccheck on the GPU (needs nvcc and
# compute-sanitizer): builds each program here with -lineinfo, saves the
# tool's real XML report (these replace the hand-made ones in
# tests/data/santools/), then runs cudbg-tui on it, with the pass and on the
# saved report, and checks the finding's kind and hint.
#
#   race.cu   -> compute-sanitizer --tool racecheck --xml --save race.xml ./race
#   uninit.cu -> compute-sanitizer --tool initcheck --xml --save uninit.xml ./uninit
#   sync.cu   -> compute-sanitizer --tool synccheck --xml --save sync.xml ./sync
#
# Usage: tests/gpu/santools/record.sh   (results in build/gpu-results/santools)
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
GROUP=santools
# shellcheck source=tests/gpu/record-setup.sh
. "$HERE/../record-setup.sh"

for t in race:racecheck:Race:san-race uninit:initcheck:Uninitialized:san-uninit \
	 sync:synccheck:Sync:san-sync; do
	IFS=: read -r n tool kind hint <<< "$t"
	cp "$HERE/$n.cu" "$SRC/"
	(cd "$SRC" && nvcc -lineinfo -o "$n" "$n.cu") || { fail "$n" nvcc; continue; }
	(cd "$SRC" && compute-sanitizer --tool "$tool" --xml --save "$RES/$n.xml" \
		"./$n" > "$RES/$n.$tool.txt" 2>&1)
	[ -s "$RES/$n.xml" ] && pass "$n/xml" || { fail "$n/xml" "no report"; continue; }
	for how in report pass; do
		if [ $how = report ]; then
			"$BIN" --json --sanitizer-report "$RES/$n.xml" > "$RES/$n.$how.json"
		else
			"$BIN" --json --memcheck=always --sanitizer-tool="$tool" \
				-d "$SRC" "$SRC/$n" > "$RES/$n.$how.json" 2>/dev/null
		fi
		if python3 -c "import json,sys; d=json.load(open('$RES/$n.$how.json'))['diagnosis']; \
sys.exit(not (d['findings'] and d['findings'][0]['kind'] == '$kind' and \
d['hints'] and d['hints'][0]['id'] == '$hint'))"; then pass "$n/$how"
		else fail "$n/$how" "want a $kind finding and hint $hint ($RES/$n.$how.json)"; fi
	done
done
echo "santools-gpu: $passed passed, $failed failed (reports in $RES: copy"
echo "  race.xml, uninit.xml, sync.xml over tests/data/santools/*.sanitizer.xml)"
[ $failed -eq 0 ]
