#!/bin/sh
# The GPU fault corpus (tests/gpu) is well formed, on a machine with no
# GPU: each NAME.expect has its program (NAME.cu, NAME.py or a launcher
# NAME.sh) with a header
# comment (the truth it pins); each rule has a known form and pass (tests/gpu/expect.sh)
# and a regular expression grep -E accepts; each FILE.cu:N or FILE.py:N an
# .expect pins points at the line marked "// fault" (or "# fault"; or
# "// launch", the launch a live pass names) in
# that file, so a line moved by an edit fails here, not on the GPU.
# A few processes for the whole corpus, not a few per rule: a thousand
# rule lines took 20 s of forks that way on a 2-core machine.
# tests/run.sh: once, in the plain pass (it reads the tree, not the build).
set -u
cd "${CUDBG_ROOT:?}" || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# pylive: the live Python stack's report (tests/gpu/python-live.sh)
PASSES="plain live memcheck core coredump-run sancore report racecheck initcheck synccheck pylive"

known_pass() {
	case " $PASSES " in *" $1 "*) return 0 ;; esac
	return 1
}

# rule_problem LINE: why LINE is not a rule, in $prob (empty when it is
# one); a rule's regular expression is added to $tmp/re (checked below).
rule_problem() {
	prob=
	case $1 in
	'' | '#'*) return ;;
	'passes: '*)
		for p in ${1#passes: }; do
			known_pass "$p" || prob="$prob; unknown pass '$p'"
		done
		prob=${prob#; }
		return ;;
	'not: '*) re=${1#not: } ;;
	*': '*)
		head=${1%%: *} re=${1#*: }
		p=${head#not-}
		p=${p#exit-}
		p=${p%-text} # PASS-text: a rule needing the pass's text output
		known_pass "$p" || { prob="unknown pass in '$head:'"; return; } ;;
	*) prob="not a rule: $1"; return ;;
	esac
	printf '%s\n' "$re" >>"$tmp/re"
}

# bad_regexes FILE: each line of FILE that grep -E does not accept as a
# regular expression.  One grep takes them all (GNU grep compiles each
# line of -f on its own: one bad line fails it, and an unbalanced
# parenthesis does not pair with the next line's); only then is each
# line tried alone, to name it.
bad_regexes() {
	grep -Eq -f "$1" </dev/null 2>/dev/null
	[ $? -le 1 ] && return
	while IFS= read -r re; do
		grep -Eq -- "$re" </dev/null 2>/dev/null
		[ $? -le 1 ] || echo "bad regular expression: $re"
	done <"$1"
}

# line_problems EXP...: for each FILE.cu:N / FILE.py:N in each EXP (its
# comment lines aside) that is not a marked fault line of tests/gpu/FILE,
# a line "NAME<TAB>why" (NAME: the .expect's).  Files with no marker are
# not held to it: the first programs predate the markers.
line_problems() {
	awk '
	function load(src,   l, n) {
		if (src in loaded)
			return loaded[src]
		n = 0
		while ((getline l < src) > 0) {
			n++
			fault[src, n] = l ~ /(\/\/|#) fault$/
			if (fault[src, n])
				marked[src] = 1
			# (the kernel launch, which a live pass names)
			if (l ~ /(\/\/|#) launch$/)
				fault[src, n] = 1
		}
		close(src)
		loaded[src] = n > 0
		return n > 0
	}
	FNR == 1 {
		name = FILENAME; sub(/.*\//, "", name); sub(/\.expect$/, "", name)
		split("", seen)
	}
	/^#/ { next }
	{
		rest = $0
		while (match(rest, /[A-Za-z0-9_]+\\?\.(cu|py):[0-9]+/)) {
			ref = substr(rest, RSTART, RLENGTH)
			rest = substr(rest, RSTART + RLENGTH)
			if (ref in seen)
				continue
			seen[ref] = 1
			file = ref; sub(/:[0-9]+$/, "", file); gsub(/\\/, "", file)
			n = ref; sub(/.*:/, "", n)
			src = "tests/gpu/" file
			if (!load(src))
				printf "%s\t%s: no tests/gpu/%s\n", name, ref, file
			else if ((src in marked) && !fault[src, n + 0])
				printf "%s\t%s: line %d of %s is not its '"'"'// fault'"'"' line\n", name, ref, n, file
		}
	}' "$@"
}

line_problems tests/gpu/*.expect >"$tmp/lines"
tab=$(printf '\t')
# Each program's problems but its regular expressions' in $tmp/why.NAME,
# its regular expressions in $tmp/re.NAME.
for exp in tests/gpu/*.expect; do
	n=${exp##*/}
	n=${n%.expect}
	why=""
	if [ -f "tests/gpu/$n.cu" ]; then src=tests/gpu/$n.cu
	elif [ -f "tests/gpu/$n.py" ]; then src=tests/gpu/$n.py
	elif [ -f "tests/gpu/$n.sh" ]; then src=tests/gpu/$n.sh
	else why="; no tests/gpu/$n.cu, $n.py or $n.sh"; src=; fi
	# the header: the comment lines the program starts with
	hdr=0
	[ -z "$src" ] || while IFS= read -r line; do
		case $line in '//'* | '#'*) hdr=$((hdr + 1)) ;; *) break ;; esac
	done <"$src"
	[ -z "$src" ] || [ "$hdr" -ge 5 ] ||
		why="$why; $src has no header comment saying what it does and the truth"
	: >"$tmp/re"
	while IFS= read -r line || [ -n "$line" ]; do
		rule_problem "$line"
		[ -n "$prob" ] && why="$why; $prob"
	done <"$exp"
	mv "$tmp/re" "$tmp/re.$n"
	while IFS= read -r line; do
		[ "${line%%"$tab"*}" = "$n" ] && why="$why; ${line#*"$tab"}"
	done <"$tmp/lines"
	printf '%s' "$why" >"$tmp/why.$n"
done
# One grep for every regular expression of the corpus; only when that
# fails, one a program to find whose.
cat "$tmp"/re.* >"$tmp/re.all"
grep -Eq -f "$tmp/re.all" </dev/null 2>/dev/null
all_ok=$?
for exp in tests/gpu/*.expect; do
	n=${exp##*/}
	n=${n%.expect}
	IFS= read -r why <"$tmp/why.$n" # no line end: read says false
	if [ "$all_ok" -gt 1 ]; then
		bad_regexes "$tmp/re.$n" >"$tmp/bad"
		while IFS= read -r line; do why="$why; $line"; done <"$tmp/bad"
	fi
	if [ -z "$why" ]; then echo "PASS gpu_corpus/$n"; else echo "FAIL gpu_corpus/$n:${why#;}"; fi
done
