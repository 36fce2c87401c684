#!/bin/sh
# The layer check (`make check-layers`; tests/sh/check_layers.sh runs it in
# the test command).  Reads every #include line of the product's sources
# under ROOT (default: the repository) and fails, naming each offending
# FILE:LINE, when
#   - a layer includes a header of a higher layer, or dap/ and batch/
#     include each other (they stand side by side);
#   - anything outside tui/ (tui/panes/ included) includes a curses,
#     terminfo or readline header;
#   - a header of include/cudbg/ is not in the table below (a new public
#     header must say which layer offers it).
# The order, lowest first (docs/development.md "Layers"):
#   base < mi < diag < options < dap, batch < tui < app
# "options" is opts/ (the command line: options.c) with its headers
# include/cudbg/options.h and config.h (the config file's structs, whose
# code is app/config.c: the frontends only read them).
# Prints nothing and exits 0 when the tree keeps the order; exits 1 with
# one line per violation otherwise; 2 on a usage error.
set -u
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
if [ ! -d "$ROOT" ]; then
	echo "check_layers: no directory $ROOT" >&2
	exit 2
fi
cd "$ROOT" || exit 2

# Today's exceptions, FILE:HEADER, each with its reason.  Fix the code,
# then delete the line: the list only shrinks.
ALLOW='
'
# (None today: diag/diagrun.c took the command-line options struct until
#  it got its own struct diag_run_config, filled by opts/options.c; issue
#  14 item 5.)

files=$(find base mi diag opts dap batch tui app include/cudbg \
	\( -name '*.c' -o -name '*.h' -o -name '*.def' \) -type f \
	2>/dev/null | sort)
[ -n "$files" ] || { echo "check_layers: no sources under $ROOT" >&2; exit 2; }

# shellcheck disable=SC2086
grep -Hn '^[[:space:]]*#[[:space:]]*include' $files /dev/null |
awk -v allow="$ALLOW" '
BEGIN {
	rank["base"] = 1; rank["mi"] = 2; rank["diag"] = 3
	rank["options"] = 4; rank["dap"] = 5; rank["batch"] = 5
	rank["tui"] = 6; rank["app"] = 7
	# include/cudbg/X.h: the layer whose code offers it
	split("decode leansym mi model session transcript", h, " ")
	for (i in h) pub[h[i]] = "mi"
	split("assertline diag diagrun hang hints job memcheck procev pymem pystack " \
	      "refault report sanitizer", h, " ")
	for (i in h) pub[h[i]] = "diag"
	pub["base"] = "base"
	pub["options"] = "options"; pub["config"] = "options"
	pub["dap"] = "dap"; pub["batch"] = "batch"; pub["tui"] = "tui"
	n = split(allow, a, "\n")
	for (i = 1; i <= n; i++) if (a[i] != "") allowed[a[i]] = 1
	bad = 0
}
function layer_of_path(p,   d, b) {
	if (p ~ /^include\/cudbg\//) {
		b = p; sub(/^include\/cudbg\//, "", b); sub(/\.h$/, "", b)
		return (b in pub) ? pub[b] : "?" b
	}
	d = p; sub(/\/.*/, "", d)
	return d == "opts" ? "options" : d
}
{
	# FILE:LINE:#include X
	file = $0; sub(/:.*/, "", file)
	rest = substr($0, length(file) + 2)
	line = rest; sub(/:.*/, "", line)
	inc = substr(rest, length(line) + 2)
	sub(/^[[:space:]]*#[[:space:]]*include[[:space:]]*/, "", inc)
	angle = (substr(inc, 1, 1) == "<")
	target = inc; sub(/^[<"]/, "", target); sub(/[>"].*$/, "", target)
	from = layer_of_path(file)
	where = file ":" line
	if (angle && target ~ /^(n?curses(w)?\.h|ncursesw?\/|term\.h$|panel\.h$|menu\.h$|form\.h$|readline\/|editline\/)/) {
		if ((file ":" target) in allowed) used[file ":" target] = 1
		else if (from != "tui") {
			print where ": " target ": only tui/ may include the terminal libraries"
			bad++
		}
		next
	}
	if (target ~ /^cudbg\//) {
		b = target; sub(/^cudbg\//, "", b); sub(/\.h$/, "", b)
		if (!(b in pub)) {
			print where ": " target ": not in the layer table of tests/check_layers.sh"
			bad++
			next
		}
		to = pub[b]
	} else if (!angle && target ~ /\//) {
		to = target; sub(/\/.*/, "", to)
		if (to == "opts") to = "options"
		if (!(to in rank)) next      # tests/..., not a layer
	} else {
		next                         # libc, or a header beside the file
	}
	if (from ~ /^\?/) {
		print where ": " file ": not in the layer table of tests/check_layers.sh"
		bad++
		next
	}
	if (!(from in rank) || from == to) next
	if (rank[to] < rank[from]) next
	if ((file ":" target) in allowed) { used[file ":" target] = 1; next }
	if (rank[to] == rank[from])
		print where ": " target ": " from "/ and " to "/ stand side by side; neither includes the other"
	else
		print where ": " target ": " from "/ is below " to "/ and may not include it"
	bad++
}
END {
	for (k in allowed) if (!(k in used)) {
		print "tests/check_layers.sh: allow-list entry " k " is no longer needed: delete it"
		bad++
	}
	exit bad ? 1 : 0
}'
