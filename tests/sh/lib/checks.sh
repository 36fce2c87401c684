# Sourced by shell tests that check a report file against patterns:
# python_live.sh, python_memory.sh, output_tail.sh, job_deaths.sh.  Set
# SUITE (the name before the slash in PASS/FAIL lines) and `out` (the
# file checked) first.  check NAME PATTERN passes when grep -E finds
# PATTERN in $out; check_not NAME PATTERN when it does not; a failure
# shows the file's first 40 lines.
check() {
	if grep -Eq -- "$2" "$out"; then echo "PASS $SUITE/$1"; else
		echo "FAIL $SUITE/$1: no '$2' in:"; sed 's/^/    /' "$out" | head -40; fi
}
check_not() {
	if grep -Eq -- "$2" "$out"; then
		echo "FAIL $SUITE/$1: '$2' in:"; sed 's/^/    /' "$out" | head -40
	else echo "PASS $SUITE/$1"; fi
}
