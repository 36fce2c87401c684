#!/bin/bash
# Jobs of many processes on the GPU machine (docs/multiprocess.md).  Needs
# an NVIDIA GPU, cuda-gdb, python3 with CUDA PyTorch; mpirun and mpi4py
# for the MPI case (a SKIP line says when they are missing).
#
# For each case in tests/gpu/multiproc/ (NAME.py with NAME.expect):
#   - the job's own plain failing run, timed;
#   - cudbg-tui --batch --job (the faulting process's coredump session
#     recorded with --record), timed: the time to the faulting process's
#     diagnosis against the plain run;
#   - cudbg-tui --json --job, its JSON checked: one faulting process, with
#     a coredump, and every process with an outcome;
#   - no process of the job left behind;
# and checks the text report against the "job: RE" lines of NAME.expect
# (the recording is checked in CI by tests/sh/job_recordings.sh with the
# "core: RE" lines).  Prints PASS/FAIL lines, one timing line per case
#   NAME plain=S (exit N) job=S (exit N) ratio=R cores=N core_mb=M
# and the closing "N passed, N failed" line.
#
# Results: $OUT (default tests/fixtures/gpu/multiproc): NAME.core.mi.log
# (commit them: CI replays them), NAME.job.txt, NAME.job.json, timings.tsv.
#
# Usage: bash tests/gpu/multiproc.sh [NAME...]   (from the repository root,
#        after make; default: every case)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
OUT=${OUT:-$ROOT/tests/fixtures/gpu/multiproc}
# Sources under /src so recorded paths read /src/... as in the other
# recordings; elsewhere when /src cannot be written.
SRC=/src/gpu/multiproc
mkdir -p "$SRC" 2>/dev/null || SRC=$(mktemp -d)
mkdir -p "$OUT"
cp "$ROOT"/tests/gpu/multiproc/*.py "$SRC"/
TIMES=$OUT/timings.tsv
: > "$TIMES"
passed=0 failed=0
pass() { echo "PASS multiproc/$1"; passed=$((passed + 1)); }
fail() { echo "FAIL multiproc/$1: $2"; failed=$((failed + 1)); }
[ -x "$BIN" ] || { echo "multiproc: build cudbg-tui first (make)"; exit 2; }

# OpenMPI refuses root without these; harmless elsewhere.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# The command of each case (run in $SRC).
case_cmd() {
	case $1 in
	mp_spawn) echo python3 mp_spawn.py ;;
	mp_torchrun|mp_ddp) echo python3 -m torch.distributed.run --standalone \
		--nproc_per_node=2 "$1.py" ;;
	mp_dataloader_main) echo python3 mp_dataloader.py main ;;
	mp_dataloader_worker) echo python3 mp_dataloader.py worker ;;
	# -m mpi4py: an uncaught exception aborts the whole job (MPI_Abort);
	# without it rank 1 waits in MPI_Finalize for rank 0, which waits in
	# its barrier, and the plain run never ends (run 5: past 120 s).
	mp_mpi) echo mpirun -n 2 python3 -m mpi4py mp_mpi.py ;;
	esac
}

secs() { python3 -c "print(f'{$2-$1:.2f}')"; }

check_expect() { # name report
	local exp=$ROOT/tests/gpu/multiproc/$1.expect bad=""
	while IFS= read -r line; do
		# a gap: line is a known gap in CI's replay (job_recordings.sh);
		# on the GPU it is what must be true, a job: rule
		case "$line" in "job: "*|"gap: "*) ;; *) continue ;; esac
		local re=${line#???: }
		re=${re%%  # *}
		grep -Eq -- "$re" "$2" || bad="$bad [$re]"
	done < "$exp"
	if [ -z "$bad" ]; then pass "$1/report"; else fail "$1/report" "missing$bad"; fi
}

check_json() { # name json
	python3 - "$2" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
j = r.get("job")
if not j:
    sys.exit("no job member")
f = [p for p in j["processes"] if p["faulting"]]
if len(f) != 1 or not f[0]["core"] or j["faulting_pid"] != f[0]["pid"]:
    sys.exit("faulting processes: %s" % f)
if r["fault"] is not True or r["mode"] != "core":
    sys.exit("fault %s mode %s" % (r["fault"], r["mode"]))
for p in j["processes"]:
    if p["state"] == "running":
        sys.exit("process %d still running at the end" % p["pid"])
print("processes=%d faulting=%d" % (len(j["processes"]), f[0]["pid"]))
EOF
}

run_case() {
	local name=$1 cmd
	read -ra cmd <<< "$(case_cmd "$name")"
	[ ${#cmd[@]} -gt 0 ] || { fail "$name" "no such case"; return; }
	if [ "$name" = mp_mpi ]; then
		command -v mpirun >/dev/null || { echo "SKIP multiproc/$name: mpirun not installed"; return; }
		python3 -c 'import mpi4py' 2>/dev/null || { echo "SKIP multiproc/$name: mpi4py not installed"; return; }
	fi
	cd "$SRC" || return
	# the job's own plain failing run
	local t0=$EPOCHREALTIME
	timeout 300 "${cmd[@]}" > "$OUT/$name.plain.txt" 2>&1
	local prc=$? t1=$EPOCHREALTIME
	# the job under cudbg-tui, its faulting process's coredump recorded
	local t2=$EPOCHREALTIME
	timeout 600 "$BIN" --batch --job --keep-temp --force --record "$OUT/$name.core.mi.log" \
		-d "$SRC" "${cmd[@]}" > "$OUT/$name.job.txt" 2> "$OUT/$name.job.err"
	local jrc=$? t3=$EPOCHREALTIME
	local dir ncores=0 mb=0
	dir=$(sed -n "s/^cudbg-tui: kept the job's core directory \(.*\) (--keep-temp)$/\1/p" "$OUT/$name.job.err" | head -1)
	if [ -n "$dir" ] && [ -d "$dir" ]; then
		# the driver's files only (the directory also holds our
		# sitecustomize.py and the Python stacks)
		ncores=$(find "$dir" -maxdepth 1 -type f -name 'core*' | wc -l)
		mb=$(find "$dir" -maxdepth 1 -type f -name 'core*' -printf '%s\n' |
			awk '{ s += $1 } END { printf "%.0f", s / 1048576 }')
		# what the processes left besides their cores (the Python
		# stacks the report reads): kept with the results
		{ ls -la "$dir"; for f in "$dir"/pystack.*; do
			[ -f "$f" ] && { echo "== $f ($(wc -c < "$f") bytes)"; head -40 "$f"; }
		done; } > "$OUT/$name.kept.txt" 2>&1
		rm -rf "$dir"
	fi
	local plain job
	plain=$(secs "$t0" "$t1")
	job=$(secs "$t2" "$t3")
	printf '%s plain=%ss (exit %d) job=%ss (exit %d) ratio=%s cores=%s core_mb=%s\n' \
		"$name" "$plain" "$prc" "$job" "$jrc" "$(python3 -c "print(f'{$job/$plain:.2f}')")" \
		"$ncores" "$mb"
	printf '%s\t%s\t%d\t%s\t%d\t%s\t%s\n' "$name" "$plain" "$prc" "$job" "$jrc" "$ncores" "$mb" >> "$TIMES"
	if [ "$jrc" = 1 ]; then pass "$name/exit"; else
		fail "$name/exit" "cudbg-tui exit $jrc, not 1 (see $OUT/$name.job.err)"; fi
	check_expect "$name" "$OUT/$name.job.txt"
	timeout 600 "$BIN" --json --job "${cmd[@]}" > "$OUT/$name.job.json" 2>/dev/null
	local why
	if why=$(check_json "$name" "$OUT/$name.job.json" 2>&1); then
		pass "$name/json ($why)"
	else
		fail "$name/json" "$why"
	fi
	local script=${cmd[-1]}
	case $name in mp_dataloader_*) script=mp_dataloader.py ;; esac
	if pgrep -f "$script" >/dev/null 2>&1; then
		fail "$name/leftovers" "processes of $script are still running"
	else
		pass "$name/leftovers"
	fi
	cd "$ROOT" || exit 2
}

names=("$@")
[ ${#names[@]} -gt 0 ] || names=(mp_spawn mp_torchrun mp_dataloader_main mp_dataloader_worker mp_mpi)
for n in "${names[@]}"; do
	run_case "$n"
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
