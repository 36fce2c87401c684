#!/bin/sh
# The layer check (tests/check_layers.sh, `make check-layers`) on the real
# tree, then on copies of the tree's #include lines with one planted
# violation each: every kind of violation must fail and name the file, so
# the check cannot pass by reading nothing.
# tests/run.sh: once, in the plain pass (it reads the tree, not the build).
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
CHECK="$ROOT/tests/check_layers.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if out=$(sh "$CHECK" "$ROOT" 2>&1); then
	echo "PASS check-layers"
else
	echo "FAIL check-layers:"
	printf '%s\n' "$out" | sed 's/^/    /'
fi

# A copy holding only the include lines of every source the check reads
# (every file made, empty where it includes nothing; one grep for all).
copy_tree() { # dest
	list=$(cd "$ROOT" && find base mi diag opts dap batch tui app \
		include/cudbg \( -name '*.c' -o -name '*.h' -o -name '*.def' \) \
		-type f 2>/dev/null | sort)
	mkdir -p "$1"
	# shellcheck disable=SC2086
	(cd "$1" && mkdir -p $(printf '%s\n' "$list" | sed 's#/[^/]*$##' | sort -u))
	for f in $list; do : >"$1/$f"; done
	# (grep gives each file's lines together: one open file at a time)
	# shellcheck disable=SC2086
	(cd "$ROOT" && grep -H '^[[:space:]]*#[[:space:]]*include' $list) |
		awk -v d="$1" '{ f = $0; sub(/:.*/, "", f); l = $0
			sub(/^[^:]*:/, "", l)
			if (f != last) { if (last != "") close(d "/" last); last = f }
			print l >>(d "/" f) }'
}

copy_tree "$tmp/clean"
if out=$(sh "$CHECK" "$tmp/clean" 2>&1); then
	echo "PASS check-layers/copy-clean"
else
	echo "FAIL check-layers/copy-clean: the copy of the include lines fails:"
	printf '%s\n' "$out" | sed 's/^/    /'
fi

# plant NAME FILE LINE EXPECT: FILE gets LINE; the check must fail with
# a line naming FILE and EXPECT.
plant() {
	d="$tmp/$1"
	rm -rf "$d"
	cp -R "$tmp/clean" "$d"
	if [ ! -f "$d/$2" ]; then
		echo "FAIL check-layers/$1: no $2 in the tree to plant into"
		return
	fi
	printf '%s\n' "$3" >>"$d/$2"
	out=$(sh "$CHECK" "$d" 2>&1)
	rc=$?
	if [ $rc -eq 1 ] && printf '%s\n' "$out" | grep -q "^$2:[0-9]*: .*$4"; then
		echo "PASS check-layers/$1"
	else
		echo "FAIL check-layers/$1: exit $rc, wanted 1 and a line naming $2 ($4):"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}
plant base-includes-mi base/text.c '#include "cudbg/session.h"' 'below mi/'
plant mi-includes-diag mi/model.c '#include "cudbg/diag.h"' 'below diag/'
plant diag-includes-tui diag/analyze.c '#include "tui/ui.h"' 'below tui/'
plant batch-includes-tui batch/batch.c '#include "tui/keys.h"' 'below tui/'
plant tui-includes-app tui/loop.c '#include "app/job_main.h"' 'below app/'
plant dap-includes-batch dap/server.c '#include <cudbg/batch.h>' 'side by side'
plant batch-includes-dap batch/batch_out.c '#include "dap/json.h"' 'side by side'
plant curses-in-batch batch/batch_out.c '#include <curses.h>' 'terminal libraries'
plant readline-in-app app/main.c '#include <readline/readline.h>' 'terminal libraries'
plant unmapped-header mi/model.c '#include "cudbg/unknown.h"' 'not in the layer table'

# An allow-list entry whose include is gone must be deleted: a copy of the
# check with one entry no file needs.
sed "s#^ALLOW='\$#ALLOW='\\nmi/model.c:cudbg/gone.h#" "$CHECK" >"$tmp/check_stale.sh"
out=$(sh "$tmp/check_stale.sh" "$tmp/clean" 2>&1)
if [ $? -eq 1 ] && printf '%s\n' "$out" | grep -q 'mi/model.c:cudbg/gone.h is no longer needed'; then
	echo "PASS check-layers/stale-allow-entry"
else
	echo "FAIL check-layers/stale-allow-entry: a stale allow-list entry passed:"
	printf '%s\n' "$out" | sed 's/^/    /'
fi

# The same order at link level (tests/check_symbols.sh): the build's
# libraries as they are, then copies with one planted import each (an
# object that calls up, or across, added to a lower library).
SYMS="$ROOT/tests/check_symbols.sh"
BUILDDIR=${CUDBG_BUILD:-$ROOT/build}
if out=$(sh "$SYMS" "$BUILDDIR" 2>&1); then
	echo "PASS check-layers/symbols"
else
	echo "FAIL check-layers/symbols:"
	printf '%s\n' "$out" | sed 's/^/    /'
fi
# plant_import NAME LIB SYMBOL EXPECT: LIB's copy gets an object calling
# SYMBOL; the check must fail with EXPECT.
plant_import() {
	d=$tmp/syms-$1
	mkdir -p "$d"
	cp "$BUILDDIR"/libcudbg-*.a "$d/"
	printf 'extern void %s(void);\nvoid cudbg_planted(void) { %s(); }\n' \
		"$3" "$3" >"$d/plant.c"
	if ! ${CC:-cc} -c -o "$d/plant.o" "$d/plant.c" 2>/dev/null ||
	   ! ar r "$d/libcudbg-$2.a" "$d/plant.o" 2>/dev/null; then
		echo "FAIL check-layers/symbols-$1: cannot plant"
		return
	fi
	out=$(sh "$SYMS" "$d" 2>&1)
	if [ $? -eq 1 ] && printf '%s\n' "$out" | grep -q "libcudbg-$2.a imports $3 .*$4"; then
		echo "PASS check-layers/symbols-$1"
	else
		echo "FAIL check-layers/symbols-$1: the planted import passed:"
		printf '%s\n' "$out" | sed 's/^/    /'
	fi
}
plant_import diag-calls-tui diag canvas_of 'a higher layer'
plant_import opts-calls-batch opts batch_main 'a higher layer'
plant_import dap-calls-batch dap batch_main 'side by side'
