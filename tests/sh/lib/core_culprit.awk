# tests/sh/culprit.sh, core-lane: lane_wild's real GPU coredump
# recording (run 29, made before the search ran in coredumps) with the
# culprit search's commands and answers put in before its -gdb-exit, as
# cuda-gdb answers them in a coredump (every lane's registers are in it;
# GPU run 38 records the real session): lane L of warp 4 is thread 128+L,
# its key (128+L) % 64, lane 18's 50000000 (lane_wild.cu); out is the
# kernel's parameter as the core's own locals say (OUT); then the focus
# on lane 18 and its locals.
/^ *[0-9.]* < [0-9]*\^done,InfoCudaLanesTable=/ && !lanes { lanes = substr($0, index($0, ",InfoCudaLanesTable")) }
/^ *[0-9.]* < [0-9]*\^done,variables=/ && !vars { vars = substr($0, index($0, ",variables")) }
/> [0-9]*-gdb-exit/ && !done {
	t = $1; n = 200
	ans("-data-evaluate-expression \"sizeof(out[key])\"", "^done,value=\"4\"")
	ans("-cuda-info-lanes", "^done" lanes)
	for (l = 0; l < 32; l++) {
		key = l == 18 ? 50000000 : (128 + l) % 64
		ans("-cuda-focus-switch lane " l, "^done" focus(l))
		ans("-stack-select-frame 0", "^done")
		ans("-data-evaluate-expression \"(unsigned long long)&(out[key])\"",
		    "^done,value=\"" sprintf("%.0f", OUT + 4 * key) "\"")
	}
	ans("-cuda-focus-switch lane 0", "^done" focus(0))
	ans("-cuda-focus-switch lane 18", "^done" focus(18))
	l18 = lanes
	sub(/current="\*",lane="0"/, "current=\" \",lane=\"0\"", l18)
	sub(/current=" ",lane="18"/, "current=\"*\",lane=\"18\"", l18)
	ans("-cuda-info-lanes", "^done" l18)
	v18 = vars
	sub(/name="i",type="@register int",value="128"/, "name=\"i\",type=\"@register int\",value=\"146\"", v18)
	sub(/name="key",type="@register int",value="0"/, "name=\"key\",type=\"@register int\",value=\"50000000\"", v18)
	ans("-stack-list-variables --simple-values", "^done" v18)
	done = 1
}
{ print }
function focus(l) {
	return ",CudaFocus={device=\"0\",sm=\"124\",warp=\"4\",lane=\"" l "\",kernel=\"0\",grid=\"1\",blockIdx=\"(0,0,0)\",threadIdx=\"(" 128 + l ",0,0)\"}"
}
function ans(cmd, reply) {
	printf "   %s > %d%s\n   %s < %d%s\n   %s < (gdb) \n", t, n, cmd, t, n, reply, t
	n++
}
