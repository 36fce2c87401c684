# The .expect checks, shared by tests/gpu/gpu-test.sh (bash, on the GPU
# machine) and tests/sh/gpu_recordings.sh (POSIX sh, CI replays).  Sourced,
# not run.  Plain POSIX sh: no arrays, no local.
#
# A NAME.expect holds one rule a line (blank lines and lines starting
# with '#' are skipped); RE is an extended regular expression (grep -E):
#   PASS: RE          RE must match the report of pass PASS
#   not: RE           RE must match the report of no pass
#   not-PASS: RE      RE must not match the report of pass PASS
#   exit-PASS: RE     the pass's exit status must match RE whole (e.g. 1,
#                     [01], 124)
#   PASS-text: RE     a PASS: rule that holds only with the sanitizer's
#                     text output (memcheck: "N bytes after the nearest
#                     allocation", a PyTorch assert's message): checked
#                     like PASS: unless EXPECT_NO_TEXT=1, which CI's
#                     replay of a memcheck recording made before the pass
#                     kept that text sets (tests/sh/gpu_recordings.sh)
#   coredump-run: RE  when the driver wrote no coredump (the program did
#                     not fault with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1):
#                     RE must match what the program printed in that run
#                     (NAME.coredump-run.txt); the core: rules hold when
#                     it did write one
#   passes: P...      the passes gpu-test.sh runs for this program, where
#                     the default set does not fit (hangs: plain live)
# Passes: plain (the program alone), live (cudbg-tui --batch
# --memcheck=never), memcheck (--memcheck=always), core (the driver's
# coredump, --core), sancore (compute-sanitizer's coredump, --core),
# report (the live recording with the saved --sanitizer-report XML),
# racecheck, initcheck, synccheck (--sanitizer-tool=TOOL).

# expect_check EXP PASS REPORT [RC]: checks the text REPORT of pass PASS
# against the file EXP; prints one line per broken rule ("missing [RE]",
# "unwanted [RE]", "exit N, want RE"); returns 1 when any broke.  Without
# RC the exit rules are not checked.
expect_check() {
	_ec_exp=$1 _ec_pass=$2 _ec_rep=$3 _ec_rc=${4-}
	_ec_bad=0
	while IFS= read -r _ec_line || [ -n "$_ec_line" ]; do
		case $_ec_line in
		"$_ec_pass: "*)
			_ec_re=${_ec_line#"$_ec_pass: "}
			grep -Eq -- "$_ec_re" "$_ec_rep" ||
				{ echo "missing [$_ec_re]"; _ec_bad=1; } ;;
		"$_ec_pass-text: "*)
			[ "${EXPECT_NO_TEXT:-0}" = 1 ] && continue
			_ec_re=${_ec_line#"$_ec_pass-text: "}
			grep -Eq -- "$_ec_re" "$_ec_rep" ||
				{ echo "missing [$_ec_re]"; _ec_bad=1; } ;;
		"not: "* | "not-$_ec_pass: "*)
			_ec_re=${_ec_line#*: }
			grep -Eq -- "$_ec_re" "$_ec_rep" &&
				{ echo "unwanted [$_ec_re]"; _ec_bad=1; } ;;
		"exit-$_ec_pass: "*)
			[ -n "$_ec_rc" ] || continue
			_ec_re=${_ec_line#*: }
			printf '%s\n' "$_ec_rc" | grep -Eqx -- "$_ec_re" ||
				{ echo "exit $_ec_rc, want $_ec_re"; _ec_bad=1; } ;;
		esac
	done < "$_ec_exp"
	return $_ec_bad
}

# expect_names_pass EXP PASS: true when EXP has a rule for PASS itself
# (PASS:, not-PASS: or exit-PASS:), so a missing run of it is a failure.
expect_names_pass() {
	grep -Eq -- "^(not-|exit-)?$2: " "$1"
}

# expect_passes EXP DEFAULT...: the passes to run for EXP: its passes:
# line when it has one, else DEFAULT plus any sanitizer tool it names.
expect_passes() {
	_ep_exp=$1; shift
	_ep_line=$(grep -E '^passes: ' "$_ep_exp" | head -1)
	if [ -n "$_ep_line" ]; then
		echo "${_ep_line#passes: }"
		return
	fi
	_ep_out="$*"
	for _ep_t in racecheck initcheck synccheck; do
		expect_names_pass "$_ep_exp" "$_ep_t" && _ep_out="$_ep_out $_ep_t"
	done
	echo "$_ep_out"
}
