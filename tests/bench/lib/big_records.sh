# Sourced by tests/bench/mi_peers.sh and parser_ab.sh: writes the three
# big records they parse into the folder $1 (threads.mi and
# uncoalesced.mi, big_grid's 10.5 MB and 58 MB threads tables from the
# real H200 recording under $FIX; memory.mi, a 10 MB
# -data-read-memory-bytes answer made here).
big_records() { # dir
	zcat "$FIX/big_grid.mi.log.gz" |
		awk 'index($0, "< ^done,CoalescedInfoCudaThreadsTable") { sub(/^ *[0-9.]+ < /, ""); print > "'"$1"'/threads.mi" }
		     index($0, "< ^done,UncoalescedInfoCudaThreadsTable") { sub(/^ *[0-9.]+ < /, ""); print > "'"$1"'/uncoalesced.mi" }'
	python3 - "$1/memory.mi" <<'PY'
import sys
hexs = "".join("%02x" % (i * 37 % 256) for i in range(5 * 1024 * 1024))
open(sys.argv[1], "w").write('^done,memory=[{begin="0x7ffdd3e00000",offset="0x0000000000000000",end="0x7ffdd4300000",contents="%s"}]\n' % hexs)
PY
}
