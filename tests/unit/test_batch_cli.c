/* cudbg-tui --batch [--json] end to end: replays of seed_py, assert_label,
 * null_write and step_kernel, and real gdb on CPU programs; text checked
 * line by line, JSON checked for validity and content, exit codes. */
#include "tests/harness.h"
#include "tests/unit/cli_util.h"
#include "tests/unit/json_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char fix[4096];

static const char *fixture(const char *name)
{
	snprintf(fix, sizeof fix, "%s/%s", test_fixtures_dir(), name);
	return fix;
}

#define HAS(r, text) CHECK_MSG(strstr((r).out, text), "no <%s> in:\n%s", text, (r).out)

TEST_TIMEOUT(replay_seed_py, 60)
{
	const char *a[] = { "--batch", "--replay", fixture("seed_py.mi.log"), NULL };
	struct cli_result r = cli_run(a);
	CHECK_INT(r.code, 1);
	HAS(r, "stop:      Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d\n");
	HAS(r, "signal:    CUDA_EXCEPTION_12 (Warp Assert)\n");
	HAS(r, "block (0,0,0), thread (23,0,0)");
	HAS(r, "kernel:    nll_loss_forward_reduce_cuda_kernel_2d\n");
	HAS(r, "fault:     yes\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("seed_py.mi.log"), NULL };
	r = cli_run(j);
	CHECK_INT(r.code, 1);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"signal\":\"CUDA_EXCEPTION_12\"");
	HAS(r, "\"signal_meaning\":\"Warp Assert\"");
	HAS(r, "\"block\":[0,0,0],\"thread\":[23,0,0]");
	HAS(r, "\"kernel\":\"nll_loss_forward_reduce_cuda_kernel_2d\"");
	free(r.out);
}

TEST_TIMEOUT(replay_assert_label, 60)
{
	const char *a[] = { "--batch", "--replay", fixture("assert_label.mi.log"),
			    NULL };
	struct cli_result r = cli_run(a);
	CHECK_INT(r.code, 1);
	HAS(r, "stop:      Warp Assert in nll_loss\n");
	HAS(r, "frame:     #0 __assert_fail (no source)\n");
	HAS(r, "kernel at: #1 nll_loss at assert_label.cu:10\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("assert_label.mi.log"),
			    NULL };
	r = cli_run(j);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"kernel_frame\":{\"level\":1,\"function\":\"nll_loss\","
	       "\"file\":\"assert_label.cu\",\"fullname\":"
	       "\"/src/examples/assert_label.cu\",\"line\":10");
	free(r.out);
}

TEST_TIMEOUT(replay_null_write, 60)
{
	const char *a[] = { "--batch", "--replay", fixture("null_write.mi.log"),
			    NULL };
	struct cli_result r = cli_run(a);
	CHECK_INT(r.code, 1);
	HAS(r, "exception: Warp Illegal Address at pc 0x7ffddb7a1e80 in "
	       "apply(Params, float*) at null_write.cu:10\n");
	HAS(r, "frame:     #0 apply at null_write.cu:10\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("null_write.mi.log"),
			    NULL };
	r = cli_run(j);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"exception\":{\"name\":\"Warp Illegal Address\","
	       "\"pc\":\"0x7ffddb7a1e80\",\"function\":\"apply(Params, float*)\","
	       "\"file\":\"null_write.cu\",\"line\":10");
	free(r.out);
}

TEST_TIMEOUT(replay_step_kernel_breakpoint, 60)
{
	const char *a[] = { "--batch", "--replay", fixture("step_kernel.mi.log"),
			    NULL };
	struct cli_result r = cli_run(a);
	CHECK_INT(r.code, 0);
	HAS(r, "stop:      Breakpoint 1 in saxpy2\n");
	HAS(r, "frame:     #0 saxpy2 at step_kernel.cu:8\n");
	HAS(r, "fault:     no\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("step_kernel.mi.log"),
			    NULL };
	r = cli_run(j);
	CHECK_INT(r.code, 0);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"fault\":false");
	HAS(r, "\"breakpoint\":1");
	/* a frame's address is "address" at the top level too, as in
	 * diagnosis.frames (it was "addr") */
	HAS(r, "\"line\":8,\"address\":\"0x7ffddb7a16a0\"}");
	CHECK_MSG(!strstr(r.out, "\"addr\""), "\"addr\" in: %s", r.out);
	free(r.out);
}

/* The stop's own frame (a breakpoint at a kernel's entry, before any
 * stack listing) has no level in MI: it is frame 0, never -1. */
TEST_TIMEOUT(json_stop_frame_level, 30)
{
	const char *j[] = { "--json", "--replay",
			    fixture("replay_to_fault.mi.log"), NULL };
	struct cli_result r = cli_run(j);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"frame\":{\"level\":0,\"function\":\"sum_next\"");
	CHECK_MSG(!strstr(r.out, "\"level\":-1"), "level -1 in: %s", r.out);
	free(r.out);
}

/* An error report keeps the report's promises: its mode is what the
 * command line asked for (a replay that cannot start is no "live"
 * session) and the diagnosis is there, every member null or empty. */
TEST_TIMEOUT(json_error_report_is_whole, 30)
{
	const char *j[] = { "--json", "--replay", "/nonexistent/x.mi.log",
			    NULL };
	struct cli_result r = cli_run(j);
	CHECK_INT(r.code, 2);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "{\"mode\":\"replay\",\"program\":\"/nonexistent/x.mi.log\"");
	HAS(r, "\"fault\":null");
	HAS(r, "\"error\":\"cannot open transcript /nonexistent/x.mi.log");
	HAS(r, "\"diagnosis\":{\"schema\":\"cudbg-tui/diagnosis/1\","
	       "\"fault\":false,\"exit_status\":2,\"kind\":\"none\","
	       "\"mode\":\"replay\",\"stop_reason\":null,"
	       "\"error\":\"cannot open transcript");
	HAS(r, "\"kernel\":{\"name\":null,\"full\":null}");
	HAS(r, "\"focus\":null,\"pc\":{\"error\":null,\"stop\":null},"
	       "\"frames\":[],\"host_frames\":[],\"hang\":null");
	HAS(r, "\"findings\":[],\"finding_groups\":[]");
	HAS(r, "\"facts\":[],\"hints\":[]}}\n");
	free(r.out);
}

static char prog[4096];

static const char *progpath(const char *name)
{
	if (system("gdb --version >/dev/null 2>&1") != 0)
		test_skip("gdb is not installed");
	const char *b = getenv("CUDBG_BUILD");
	snprintf(prog, sizeof prog, "%s/progs/%s", b ? b : "build", name);
	return prog;
}

TEST_TIMEOUT(gdb_cpu_programs, 90)
{
	const char *segv[] = { "--batch", "--debugger", "gdb",
			       progpath("model_segv"), NULL };
	struct cli_result r = cli_run(segv);
	CHECK_INT(r.code, 1);
	HAS(r, "stop:      SIGSEGV (Segmentation fault) in poke\n");
	HAS(r, "model_segv.c:");
	CHECK(!strstr(r.out, "kernel:"));
	free(r.out);
	/* no memcheck pass: this machine has no compute-sanitizer, and the
	 * diagnosis would report that as an environment error (exit 2) */
	const char *seven[] = { "--json", "--memcheck=never", "--debugger",
				"gdb", progpath("model_prog"), NULL };
	r = cli_run(seven);
	CHECK_INT(r.code, 1);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"exit\":{\"code\":7,\"signal\":null}");
	free(r.out);
	const char *ok[] = { "--batch", "--debugger", "gdb",
			     progpath("model_prog"), "2", NULL };
	r = cli_run(ok);
	CHECK_INT(r.code, 0);
	HAS(r, "stop:      exited normally\n");
	HAS(r, "fault:     no\n");
	free(r.out);
}

TEST_TIMEOUT(environment_errors_exit_2, 30)
{
	const char *bad[] = { "--batch", "--debugger", "/nonexistent/gdb",
			      "/bin/true", NULL };
	struct cli_result r = cli_run(bad);
	CHECK_INT(r.code, 2);
	free(r.out);
	const char *j[] = { "--json", "--debugger", "/nonexistent/gdb",
			    "/bin/true", NULL };
	r = cli_run(j);
	CHECK_INT(r.code, 2);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"error\":\"");
	HAS(r, "{\"mode\":\"live\",\"program\":\"/bin/true\"");
	HAS(r, "\"diagnosis\":{\"schema\":");
	free(r.out);
	const char *none[] = { "--batch", NULL };
	r = cli_run(none);
	CHECK_INT(r.code, 2);
	free(r.out);
}
