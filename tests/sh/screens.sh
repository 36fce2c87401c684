#!/bin/sh
# Headless screen tests through the real binary, in the style of tig's:
# each tests/screens/NAME.script is run with CUDBG_TEST_SCRIPT, and every
# screen it dumps is compared with tests/data/screens/<dump name>.
# Header lines of a script:
#   # args: ARGS...     the command line (may use $CUDBG_BUILD,
#                       $CUDBG_FIXTURES, $CUDBG_EXAMPLES, $CUDBG_ROOT)
#   # size: COLSxROWS   the screen (default 100x30)
#   # needs: PROG       skipped when PROG is not installed
#   # env: VAR=VALUE... environment for the run (same expansions as args)
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
		want="$ROOT/tests/data/screens/$dump"
		if [ "${CUDBG_UPDATE_SCREENS:-0}" = 1 ]; then
			cp "$dir/$dump" "$want"
		fi
		if [ ! -f "$dir/$dump" ]; then
			echo "FAIL screens/$name: no dump $dump"
			bad=1
		elif ! cmp -s "$dir/$dump" "$want"; then
			echo "FAIL screens/$name: $dump differs from tests/data/screens/$dump:"
			diff -u "$want" "$dir/$dump" | head -40 | sed 's/^/    /'
			bad=1
		fi
	done
	[ $bad -eq 0 ] && echo "PASS screens/$name"
}

cd "$ROOT" || exit 2
for s in tests/screens/*.script; do
	[ -f "$s" ] || continue
	case "${SCREENS:-}" in
	"" | "$(basename "$s" .script)") run_script "$s" ;;
	esac
done
