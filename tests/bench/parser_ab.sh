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
zcat "$FIX/big_grid.mi.log.gz" |
	awk 'index($0, "< ^done,CoalescedInfoCudaThreadsTable") { sub(/^ *[0-9.]+ < /, ""); print > "'"$tmp"'/threads.mi" }
	     index($0, "< ^done,UncoalescedInfoCudaThreadsTable") { sub(/^ *[0-9.]+ < /, ""); print > "'"$tmp"'/uncoalesced.mi" }'
python3 - "$tmp/memory.mi" <<'PY'
import sys
hexs = "".join("%02x" % (i * 37 % 256) for i in range(5 * 1024 * 1024))
open(sys.argv[1], "w").write('^done,memory=[{begin="0x7ffdd3e00000",offset="0x0000000000000000",end="0x7ffdd4300000",contents="%s"}]\n' % hexs)
PY
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
