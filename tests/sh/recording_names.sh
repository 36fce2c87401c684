#!/bin/sh
# One name, one recording: a file name found in more than one of the
# recording folders (data/demo, tests/fixtures, tests/shared/fixtures)
# must have the same bytes in each, so that "null_write.mi.log" means
# one session wherever a test, a doc or the demo names it.  The naming
# rule is in tests/fixtures/README.md.  Each folder's README.md describes
# that folder and is left out.  A crafted pair of folders first shows
# the check can fail.
# tests/run.sh: once, in the plain pass (it reads the tree, not the build).
set -u
ROOT=${CUDBG_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
fails=0
pass() { echo "PASS recording_names/$1"; }
fail() { echo "FAIL recording_names/$1: $2"; fails=$((fails + 1)); }

# clashes DIR...: prints "NAME: DIR1 DIR2" for each file name held by two
# of the folders with different contents; nothing when there is none.
clashes() {
	for a in "$@"; do
		for b in "$@"; do
			[ "$a" \< "$b" ] || continue
			for f in "$a"/*; do
				n=$(basename "$f")
				[ -f "$f" ] && [ "$n" != README.md ] || continue
				[ -f "$b/$n" ] || continue
				cmp -s "$f" "$b/$n" || echo "$n: $a $b"
			done
		done
	done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/a" "$tmp/b"
printf 'one\n' >"$tmp/a/x.mi.log"; printf 'two\n' >"$tmp/b/x.mi.log"
printf 'same\n' >"$tmp/a/y.mi.log"; printf 'same\n' >"$tmp/b/y.mi.log"
got=$(clashes "$tmp/a" "$tmp/b")
if [ "$got" = "x.mi.log: $tmp/a $tmp/b" ]; then
	pass check_finds_a_clash
else
	fail check_finds_a_clash "want x.mi.log only, got: $got"
fi

dirs="$ROOT/data/demo $ROOT/tests/fixtures $ROOT/tests/shared/fixtures"
for d in $dirs; do
	[ -d "$d" ] || fail missing_folder "$d"
done
# shellcheck disable=SC2086
got=$(clashes $dirs)
if [ -z "$got" ]; then
	pass one_name_one_recording
else
	fail one_name_one_recording "same name, different contents (give ours a distinct name, tests/fixtures/README.md):
$(echo "$got" | sed "s#$ROOT/##g; s/^/    /")"
fi
exit $fails
