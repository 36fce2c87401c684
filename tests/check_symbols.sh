#!/bin/sh
# The layer check at link level (issue 30 item 4): every library of the
# build imports (nm's undefined symbols) only from itself, from libraries
# of lower layers, or from outside ours (libc, curses...).  The order,
# lowest first, as tests/check_layers.sh's for #include lines:
#   base < mi < diag < opts < dap, batch < tui < app
# (dap and batch stand side by side: neither imports from the other).
# Usage: check_symbols.sh [BUILD]  (default: build).  Prints nothing and
# exits 0 when the order holds; one line per import against it and exit
# 1 otherwise; 2 when a library is missing.
set -u
B=${1:-build}
LIBS="base mi diag opts dap batch tui app"
for l in $LIBS; do
	[ -f "$B/libcudbg-$l.a" ] || { echo "check_symbols: no $B/libcudbg-$l.a (make first)" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One nm for all (each start costs 0.2 s of CPU here, its LTO plugin):
# "LIB:MEMBER:ADDR T SYM" for a definition, "LIB:MEMBER: U SYM" (no
# address) for a use.
libs=
for l in $LIBS; do libs="$libs $B/libcudbg-$l.a"; done
# shellcheck disable=SC2086
nm -g -A $libs 2>/dev/null | awk -v defs="$tmp/defs" -v uses="$tmp/uses" '
NF == 3 {
	lib = $1; sub(/\.a:.*/, "", lib); sub(/.*libcudbg-/, "", lib)
	if ($1 ~ /:$/) print $3, lib >uses; else print $3, lib >defs
}'
: >>"$tmp/defs"
: >>"$tmp/uses"
awk '
BEGIN {
	rank["base"] = 1; rank["mi"] = 2; rank["diag"] = 3; rank["opts"] = 4
	rank["dap"] = 5; rank["batch"] = 5; rank["tui"] = 6; rank["app"] = 7
	bad = 0
}
FNR == NR { if (!($1 in def)) def[$1] = $2; next }
{
	sym = $1; from = $2
	if (!(sym in def)) next          # outside our libraries
	to = def[sym]
	if (to == from || seen[from " " sym]++) next
	if (rank[to] > rank[from]) {
		print "libcudbg-" from ".a imports " sym " from libcudbg-" to \
		      ".a, a higher layer"
		bad++
	} else if (rank[to] == rank[from]) {
		print "libcudbg-" from ".a imports " sym " from libcudbg-" to \
		      ".a: they stand side by side"
		bad++
	}
}
END { exit bad ? 1 : 0 }
' "$tmp/defs" "$tmp/uses"
