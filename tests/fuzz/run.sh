#!/bin/sh
# Runs each libFuzzer target for SECONDS over a scratch copy of its
# committed corpus (new inputs stay in tests/fuzz/corpus-work/, ignored).
# Usage: run.sh SECONDS TARGET...
set -eu
secs=$1; shift
status=0
for t in "$@"; do
	n=$(basename "$t"); n=${n#fuzz_}
	work=tests/fuzz/corpus-work/$n
	mkdir -p "$work"
	if ! "$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=4096 \
		-print_final_stats=1 "$work" "tests/fuzz/corpus/$n" 2>&1 | \
		grep -E 'stat::number_of_executed_units|ERROR|crash|SUMMARY'; then :; fi
	if ls crash-* leak-* timeout-* >/dev/null 2>&1; then
		echo "fuzz $n: finding written (crash-*/leak-*/timeout-*)"; status=1
	fi
done
exit $status
