#!/bin/sh
# The MI parser against other parsers and a byte scan (issue 32 item 4),
# on three big records: big_grid's 10.5 MB coalesced threads table, its
# 58 MB uncoalesced one (both from the real H200 recording), and a 10 MB
# -data-read-memory-bytes answer (one long hex string; made here).  Each
# parser gets the same bytes from a file; the best of several parses
# (warm) and the first (cold: fresh memory) are printed, with our
# byte-by-byte scan of the same bytes as the reference.
#
# The peers are not part of cudbg-tui and are not in Debian: point at
# their sources when you have them (the drivers below are ours):
#   GDBWIRE_SRC=DIR        gdbwire's src/ (github.com/brasko/gdbwire;
#                          needs bison and flex)
#   GDB_MI_PARSER=FILE     gdb-mi-parser's index.js (npm gdb-mi-parser,
#                          github.com/llop/gdb-mi-parser; needs node)
# Usage: CUDBG_FIXTURES=DIR sh tests/bench/mi_peers.sh   (after make bench)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIX=${CUDBG_FIXTURES:-$ROOT/tests/shared/fixtures}
BENCH=$ROOT/build/bench/bench_parser
[ -x "$BENCH" ] || { echo "mi_peers: make bench first"; exit 2; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
. "$ROOT/tests/bench/lib/big_records.sh"
big_records "$tmp"
peer_gdbwire() { # file
	[ -n "${GDBWIRE_SRC:-}" ] || { echo "gdbwire -"; return; }
	if [ ! -x "$tmp/gdbwire" ]; then
		cp -r "$GDBWIRE_SRC" "$tmp/gw"
		(cd "$tmp/gw" && bison -o gdbwire_mi_grammar.c -d gdbwire_mi_grammar.y &&
			flex gdbwire_mi_lexer.l) >/dev/null 2>&1
		cat > "$tmp/gw_drv.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "gdbwire_mi_parser.h"
static size_t outs;
static void got(void *ctx, struct gdbwire_mi_output *o)
{
	(void)ctx;
	outs++;
	gdbwire_mi_output_free(o);
}
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc(n + 1);
	if (!b || fread(b, 1, n, f) != (size_t)n)
		return 2;
	fclose(f);
	double best = 1e9, cold = 0;
	for (int i = 0; i < atoi(argv[2]); i++) {
		struct gdbwire_mi_parser_callbacks cb = { NULL, got };
		struct gdbwire_mi_parser *p = gdbwire_mi_parser_create(cb);
		double t0 = now();
		gdbwire_mi_parser_push_data(p, b, n);
		double t = now() - t0;
		gdbwire_mi_parser_destroy(p);
		if (i == 0)
			cold = t;
		if (t < best)
			best = t;
	}
	printf("gdbwire %.0f %.0f %zu\n", n / best / 1e6, n / cold / 1e6, outs);
	return 0;
}
C
		gw=$tmp/gw
		cc -O2 -w -I"$gw" -o "$tmp/gdbwire" "$tmp/gw_drv.c" "$gw/gdbwire_logger.c" \
			"$gw/gdbwire_mi_grammar.c" "$gw/gdbwire_mi_parser.c" "$gw/gdbwire_mi_pt.c" \
			"$gw/gdbwire_mi_pt_alloc.c" "$gw/gdbwire_string.c" "$gw/gdbwire_sys.c" \
			"$gw/lex.yy.c" || { echo "gdbwire -"; return; }
	fi
	"$tmp/gdbwire" "$1" 3 | awk '{ print $1, $2 "/" $3 }'
}
peer_js() { # file
	[ -n "${GDB_MI_PARSER:-}" ] && command -v node >/dev/null || { echo "gdb-mi-parser -"; return; }
	cat > "$tmp/drv.js" <<'JS'
const fs = require('fs');
const parse = require(process.argv[2]);
const line = fs.readFileSync(process.argv[3], 'utf8');
let best = 1e9, cold = 0;
for (let i = 0; i < 3; i++) {
  const t0 = process.hrtime.bigint();
  if (!parse(line)) process.exit(1);
  const t = Number(process.hrtime.bigint() - t0) / 1e9;
  if (i === 0) cold = t;
  if (t < best) best = t;
}
const n = Buffer.byteLength(line);
console.log('gdb-mi-parser ' + (n / best / 1e6).toFixed(0) + '/' + (n / cold / 1e6).toFixed(0));
JS
	node --max-old-space-size=4096 "$tmp/drv.js" "$GDB_MI_PARSER" "$1" 2>/dev/null || echo "gdb-mi-parser -"
}
echo "input MB | ours warm/cold MB/s | byte scan MB/s | ours/scan | gdbwire warm/cold | gdb-mi-parser warm/cold | ours/best peer"
for f in threads uncoalesced memory; do
	o=$("$BENCH" --line "$tmp/$f.mi")
	warm=$(echo "$o" | sed -n 's/.* value=\([0-9]*\) .*/\1/p')
	cold=$(echo "$o" | sed -n 's/.* cold=\([0-9]*\) .*/\1/p')
	ref=$(echo "$o" | sed -n 's/.* ref=\([0-9]*\) .*/\1/p')
	ratio=$(echo "$o" | sed -n 's/.* ratio=\([0-9.]*\) .*/\1/p')
	gw=$(peer_gdbwire "$tmp/$f.mi" | cut -d' ' -f2)
	js=$(peer_js "$tmp/$f.mi" | cut -d' ' -f2)
	best=$(echo "$gw $js" | tr '/ ' '\n\n' | awk 'NR % 2 == 1 && $1 != "-" && $1 > b { b = $1 } END { print b + 0 }')
	mb=$(wc -c < "$tmp/$f.mi" | awk '{ printf "%.1f", $1 / 1e6 }')
	echo "$f $mb | $warm/$cold | $ref | $ratio | $gw | $js | $(awk -v a="$warm" -v b="$best" 'BEGIN { if (b > 0) printf "%.1fx", a / b; else print "-" }')"
done
