#!/bin/sh
# Two builds of bench_parser side by side on the big records, rounds
# interleaved (this machine is noisy): the best MB/s of each, the best
# byte scan of the same run, and every round's ratio.
# Usage: CUDBG_FIXTURES=DIR sh tests/bench/parser_ab.sh OLD_BIN NEW_BIN [ROUNDS]
#   (build OLD_BIN from an earlier commit's tree with `make bench`)
set -u
[ $# -ge 2 ] || { echo "usage: parser_ab.sh OLD_BIN NEW_BIN [ROUNDS]" >&2; exit 2; }
old=$1 new=$2 rounds=${3:-4}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX=${CUDBG_FIXTURES:-$ROOT/tests/shared/fixtures}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tests/bench/lib/big_records.sh"
big_records "$tmp"
for input in "threads --stream" "uncoalesced --stream" "threads --line" \
	     "uncoalesced --line" "memory --line"; do
	set -- $input
	echo "== $1 $2"
	for r in $(seq "$rounds"); do
		echo "old $("$old" "$2" "$tmp/$1.mi")"
		echo "new $("$new" "$2" "$tmp/$1.mi")"
	done | awk '{ for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		     if (v["value"] > best[$1]) best[$1] = v["value"]
		     if (v["ref"] > scan[$1]) scan[$1] = v["ref"]
		     rs[$1] = rs[$1] " " v["ratio"] }
		   END { for (k in best) printf "%s best %d MB/s, scan %d MB/s, %.2fx; rounds:%s\n",
				k, best[k], scan[k], best[k] / scan[k], rs[k] }'
done
