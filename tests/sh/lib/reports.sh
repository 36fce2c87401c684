# Sourced (never run) by the shell tests that make --json reports:
# keep_report FILE keeps a copy of the report in FILE in
# $CUDBG_JSON_REPORTS, where tests/run.sh checks every report the suite
# made against docs/report.schema.json (tests/schema_check.py).  Nothing
# happens when that is unset (a test run alone) or FILE is empty (a run
# that printed no report, e.g. its output went to /dev/full).
keep_report() {
	[ -n "${CUDBG_JSON_REPORTS:-}" ] && [ -s "$1" ] || return 0
	_kept=$((${_kept:-0} + 1))
	_test=${0##*/} # no basename process: some tests keep hundreds
	cp "$1" "$CUDBG_JSON_REPORTS/sh-${_test%.sh}-$$-$_kept.json"
}
