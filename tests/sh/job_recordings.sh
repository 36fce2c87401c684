#!/bin/sh
# The jobs of many processes recorded on the H200 by tests/gpu/multiproc.sh
# (tests/fixtures/gpu/multiproc/): the faulting process's coredump session
# (NAME.core.mi.log) replayed through batch mode must give what the
# "core: RE" lines of tests/gpu/multiproc/NAME.expect ask, and the job's
# table the recording holds ("# job| " notes, written by the real run)
# followed by the replayed report what the "job: RE" lines ask.  A case not recorded yet is a SKIP line saying how to record
# it.  A "gap: RE  # WHY" line is what must be true but is known not to
# be yet (seen on the H200): a SKIP line naming it while the recording
# lacks it, a FAIL once it holds (make it a job: rule then).
set -u
BIN=${CUDBG_BIN:?}
cd "${CUDBG_ROOT:?}" || exit 2
out=$(mktemp); job=$(mktemp); trap 'rm -f "$out" "$job"' EXIT

check() { # label kind expect file
	bad=""
	while IFS= read -r line; do
		case "$line" in "$2: "*) ;; *) continue ;; esac
		re=${line#"$2: "}
		grep -Eq -- "$re" "$4" || bad="$bad [$re]"
	done < "$3"
	if [ -z "$bad" ]; then echo "PASS job-recordings/$1"; else
		echo "FAIL job-recordings/$1: missing$bad"; sed 's/^/    /' "$4" | head -30; fi
}

gaps() { # name expect file
	grep '^gap: ' "$2" | while IFS= read -r line; do
		rule=${line#gap: }
		re=${rule%%  # *}
		why=${rule#*  # }
		if grep -Eq -- "$re" "$3"; then
			echo "FAIL job-recordings/$1/gap: [$re] holds now: make it a job: rule"
		else
			echo "SKIP job-recordings/$1/gap: known gap, not closed yet: $why"
		fi
	done
}

for exp in tests/gpu/multiproc/*.expect; do
	n=$(basename "$exp" .expect)
	f=tests/fixtures/gpu/multiproc/$n
	if [ ! -f "$f.core.mi.log" ]; then
		echo "SKIP job-recordings/$n: not recorded yet (bash tests/gpu/multiproc.sh $n on a GPU writes $f.core.mi.log)"
		continue
	fi
	timeout 60 "$BIN" --batch --replay "$f.core.mi.log" >"$out" 2>&1
	check "$n/core" core "$exp" "$out"
	sed -n 's/^ *[0-9.]* # job| //p' "$f.core.mi.log" > "$job"
	if [ -s "$job" ]; then
		cat "$out" >> "$job"
		check "$n/job" job "$exp" "$job"
		gaps "$n" "$exp" "$job"
	else
		echo "FAIL job-recordings/$n/job: the recording has no '# job| ' notes"
	fi
done
