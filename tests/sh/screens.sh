#!/bin/sh
# Headless screen tests through the real binary, in the style of tig's:
# each tests/screens/NAME.script is run with CUDBG_TEST_SCRIPT, and every
# screen it dumps is compared with tests/screens/<dump name>.  A script's
# dumps are named NAME.txt or NAME-K.txt (K says which screen, words
# joined by '_'); tests/unit/test_X.c's are unit_X-K.txt.  The names are
# checked first (screens/dump_names): a dump named otherwise, or a
# tests/screens/*.txt that no test compares, fails.
# Header lines of a script:
#   # args: ARGS...     the command line (may use $CUDBG_BUILD,
#                       $CUDBG_FIXTURES, $CUDBG_EXAMPLES, $CUDBG_ROOT)
#   # size: COLSxROWS   the screen (default 100x30)
#   # needs: PROG       skipped when PROG is not installed
#   # env: VAR=VALUE... environment for the run (same expansions as args)
#   # covers: TEXT      TEXT must be in the script's first dump: what the
#                       script's name says it exercises (a layout change
#                       that sends its keys elsewhere fails it)
# CUDBG_UPDATE_SCREENS=1 rewrites the expected files (review the diff).
# SCREENS=NAME runs only that script.
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
export CUDBG_ROOT=$ROOT
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
export CUDBG_BUILD=${CUDBG_BUILD:-$ROOT/build}
export CUDBG_FIXTURES=${CUDBG_FIXTURES:-$ROOT/tests/shared/fixtures}
export CUDBG_EXAMPLES=${CUDBG_EXAMPLES:-$ROOT/data/examples}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

header() { # script key
	sed -n "s/^# $2: //p" "$1" | head -1
}

run_script() { # script
	s=$1
	name=$(basename "$s" .script)
	need=$(header "$s" needs)
	if [ -n "$need" ] && ! command -v "$need" >/dev/null 2>&1; then
		echo "SKIP screens/$name: $need is not installed"
		return
	fi
	args=$(header "$s" args)
	envs=$(header "$s" env)
	size=$(header "$s" size)
	dir="$tmp/$name"
	mkdir -p "$dir/home"
	eval "set -- $args"
	eval "set -- $envs \"\$BIN\" \"\$@\""
	# A private HOME and no history file: nothing of the user's leaks in.
	if ! (cd "$ROOT" && HOME="$dir/home" CUDBG_HISTORY= TERM=xterm-256color \
		CUDBG_TEST_SCRIPT="$ROOT/$s" CUDBG_TEST_SIZE="${size:-100x30}" \
		CUDBG_TEST_DUMP_DIR="$dir" CUDBG_TEST_WAIT="${CUDBG_TEST_WAIT:-60}" \
		env "$@" >"$dir/stdout" 2>"$dir/stderr" </dev/null); then
		echo "FAIL screens/$name: cudbg-tui failed:"
		sed 's/^/    /' "$dir/stderr" | head -60
		return
	fi
	bad=0
	for dump in $(sed -n 's/^:dump \(.*\)$/\1/p' "$s"); do
		want="$ROOT/tests/screens/$dump"
		if [ "${CUDBG_UPDATE_SCREENS:-0}" = 1 ]; then
			cp "$dir/$dump" "$want"
		fi
		if [ ! -f "$dir/$dump" ]; then
			echo "FAIL screens/$name: no dump $dump"
			bad=1
		elif ! cmp -s "$dir/$dump" "$want"; then
			echo "FAIL screens/$name: $dump differs from tests/screens/$dump:"
			diff -u "$want" "$dir/$dump" | head -40 | sed 's/^/    /'
			bad=1
		fi
	done
	covers=$(header "$s" covers)
	first=$(sed -n 's/^:dump \(.*\)$/\1/p' "$s" | head -1)
	if [ -n "$covers" ] && [ -n "$first" ] &&
	   ! grep -qF -- "$covers" "$dir/$first" 2>/dev/null; then
		echo "FAIL screens/$name: its first dump $first does not show \"$covers\" (# covers:): the script no longer exercises what its name says"
		bad=1
	fi
	[ $bad -eq 0 ] && echo "PASS screens/$name"
}

# dump_names: prints one line for each dump of a script not named
# NAME.txt or NAME-K.txt, and for each tests/screens/*.txt that neither a
# script dumps nor tests/unit/test_X.c names (unit_X-K.txt).
dump_names() {
	for s in tests/screens/*.script; do
		n=$(basename "$s" .script)
		for d in $(sed -n 's/^:dump \(.*\)$/\1/p' "$s"); do
			case $d in
			"$n.txt" | "$n"-*.txt) ;;
			*) echo "$s dumps $d: name it $n.txt or $n-K.txt" ;;
			esac
		done
	done
	for f in tests/screens/*.txt; do
		[ -f "$f" ] || continue
		d=$(basename "$f")
		case $d in
		unit_*-*.txt)
			u=${d#unit_}; u=tests/unit/test_${u%%-*}.c
			grep -qF "\"$d\"" "$u" 2>/dev/null ||
				echo "$f: $u does not compare it" ;;
		*)
			grep -qxF ":dump $d" "tests/screens/${d%%[-.]*}.script" 2>/dev/null ||
				echo "$f: tests/screens/${d%%[-.]*}.script does not dump it" ;;
		esac
	done
}

cd "$ROOT" || exit 2
if [ -z "${SCREENS:-}" ]; then
	bad=$(dump_names)
	if [ -z "$bad" ]; then
		echo "PASS screens/dump_names"
	else
		echo "FAIL screens/dump_names:"
		echo "$bad" | sed 's/^/    /'
	fi
fi
for s in tests/screens/*.script; do
	[ -f "$s" ] || continue
	case "${SCREENS:-}" in
	"" | "$(basename "$s" .script)") run_script "$s" ;;
	esac
done
