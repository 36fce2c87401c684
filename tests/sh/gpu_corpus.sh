#!/bin/sh
# The GPU fault corpus (tests/gpu) is well formed, on a machine with no
# GPU: each NAME.expect has its program (NAME.cu or NAME.py) with a header
# comment (the truth it pins); each rule has a known form and pass (tests/gpu/expect.sh)
# and a regular expression grep -E accepts; each FILE.cu:N or FILE.py:N an
# .expect pins points at the line marked "// fault" (or "# fault") in
# that file, so a line moved by an edit fails here, not on the GPU.
set -u
cd "${CUDBG_ROOT:?}" || exit 2
# pylive: the live Python stack's report (tests/gpu/python-live.sh)
PASSES="plain live memcheck core sancore report racecheck initcheck synccheck pylive"

known_pass() {
	case " $PASSES " in *" $1 "*) return 0 ;; esac
	return 1
}

# rule_problem LINE: why LINE is not a rule, or nothing.
rule_problem() {
	case $1 in
	'' | '#'*) return ;;
	'passes: '*)
		for p in ${1#passes: }; do
			known_pass "$p" || echo "unknown pass '$p'"
		done
		return ;;
	'not: '*) re=${1#not: } ;;
	*': '*)
		head=${1%%: *} re=${1#*: }
		p=${head#not-}
		p=${p#exit-}
		p=${p%-text} # PASS-text: a rule needing the pass's text output
		known_pass "$p" || { echo "unknown pass in '$head:'"; return; } ;;
	*) echo "not a rule: $1"; return ;;
	esac
	echo | grep -Eq -- "$re" 2>/dev/null
	[ $? -le 1 ] || echo "bad regular expression: $re"
}

# line_problems EXP: each FILE.cu:N / FILE.py:N in EXP that is not a
# marked fault line of tests/gpu/FILE (files with no marker are not held
# to it: the first programs predate the markers).
line_problems() {
	grep -v '^#' "$1" | grep -oE '[A-Za-z0-9_]+\\?\.(cu|py):[0-9]+' | sort -u |
	while IFS= read -r ref; do
		file=$(printf '%s' "${ref%:*}" | tr -d '\\')
		n=${ref##*:}
		src=tests/gpu/$file
		[ -f "$src" ] || { echo "$ref: no tests/gpu/$file"; continue; }
		grep -Eq '(//|#) fault$' "$src" || continue
		sed -n "${n}p" "$src" | grep -Eq '(//|#) fault$' ||
			echo "$ref: line $n of $file is not its '// fault' line"
	done
}

for exp in tests/gpu/*.expect; do
	n=$(basename "$exp" .expect)
	why=""
	if [ -f "tests/gpu/$n.cu" ]; then src=tests/gpu/$n.cu
	elif [ -f "tests/gpu/$n.py" ]; then src=tests/gpu/$n.py
	else echo "FAIL gpu_corpus/$n: no tests/gpu/$n.cu or $n.py"; continue; fi
	hdr=$(awk '/^(\/\/|#)/ { n++; next } { exit } END { print n + 0 }' "$src")
	[ "$hdr" -ge 5 ] ||
		why="$why; $src has no header comment saying what it does and the truth"
	while IFS= read -r line || [ -n "$line" ]; do
		p=$(rule_problem "$line")
		[ -n "$p" ] && why="$why; $p"
	done < "$exp"
	p=$(line_problems "$exp" | tr '\n' ';')
	[ -n "$p" ] && why="$why; $p"
	if [ -z "$why" ]; then echo "PASS gpu_corpus/$n"; else echo "FAIL gpu_corpus/$n:${why#;}"; fi
done
