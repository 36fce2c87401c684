# shellcheck shell=bash
# Sourced (bash) by the GPU record scripts of one folder of tests/gpu
# (hang/record.sh, santools/record.sh): where things are and the
# PASS/FAIL counting they share.  The caller sets HERE (its own folder)
# and GROUP (its folder's name, which names its results, its sources and
# its result lines), then sources this file.  It sets
#   ROOT  the repository         BIN  cudbg-tui ($CUDBG_BIN to override)
#   RES   $GPU_RESULTS/GROUP (default build/gpu-results/GROUP)
#   SRC   /src/gpu/GROUP, so recorded paths read /src/... as in the shared
#         fixtures; RES/src when /src cannot be written
# and defines pass NAME, fail NAME WHY (lines "PASS GROUP-gpu/NAME", counted
# in passed and failed).
# shellcheck disable=SC2034 # BIN, RES and SRC are for the caller
ROOT=$(cd "$HERE/../../.." && pwd)
BIN=${CUDBG_BIN:-$ROOT/build/cudbg-tui}
RES=${GPU_RESULTS:-$ROOT/build/gpu-results}/$GROUP
SRC=/src/gpu/$GROUP
mkdir -p "$SRC" 2>/dev/null || SRC=$RES/src
mkdir -p "$RES" "$SRC"
passed=0 failed=0
pass() { echo "PASS $GROUP-gpu/$1"; passed=$((passed + 1)); }
fail() { echo "FAIL $GROUP-gpu/$1: $2"; failed=$((failed + 1)); }
