/* cudbg-tui --batch [--json] end to end: replays of seed_py, assert_label,
 * null_write and step_kernel, and real gdb on CPU programs; text checked
 * line by line, JSON checked for validity and content, exit codes. */
#include "tests/harness.h"
#include "tests/unit/json_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct run {
	char *out;
	int code;
};

/* Runs cudbg-tui with the arguments (a shell-free argv), stdout captured,
 * stdin from /dev/null. */
static struct run cudbg(const char *const *args)
{
	const char *bin = getenv("CUDBG_BIN");
	if (!bin || access(bin, X_OK) != 0)
		test_skip("CUDBG_BIN not built");
	int fds[2];
	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		FILE *in = freopen("/dev/null", "r", stdin);
		FILE *err = freopen("/dev/null", "w", stderr);
		(void)in;
		(void)err;
		const char *argv[32] = { bin };
		int n = 1;
		for (; args[n - 1] && n < 31; n++)
			argv[n] = args[n - 1];
		argv[n] = NULL;
		execv(bin, (char *const *)(void *)argv);
		_exit(127);
	}
	close(fds[1]);
	struct run r = { 0 };
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			r.out = realloc(r.out, cap + 1);
		}
		ssize_t k = read(fds[0], r.out + len, 4096);
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	r.out[len] = '\0';
	close(fds[0]);
	int st;
	waitpid(pid, &st, 0);
	r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return r;
}

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
	struct run r = cudbg(a);
	CHECK_INT(r.code, 1);
	HAS(r, "stop:      Warp Assert in nll_loss_forward_reduce_cuda_kernel_2d\n");
	HAS(r, "signal:    CUDA_EXCEPTION_12 (Warp Assert)\n");
	HAS(r, "block (0,0,0), thread (23,0,0)");
	HAS(r, "kernel:    nll_loss_forward_reduce_cuda_kernel_2d\n");
	HAS(r, "fault:     yes\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("seed_py.mi.log"), NULL };
	r = cudbg(j);
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
	struct run r = cudbg(a);
	CHECK_INT(r.code, 1);
	HAS(r, "stop:      Warp Assert in nll_loss\n");
	HAS(r, "frame:     #0 __assert_fail (no source)\n");
	HAS(r, "kernel at: #1 nll_loss at assert_label.cu:10\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("assert_label.mi.log"),
			    NULL };
	r = cudbg(j);
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
	struct run r = cudbg(a);
	CHECK_INT(r.code, 1);
	HAS(r, "exception: Warp Illegal Address at pc 0x7ffddb7a1e80 in "
	       "apply(Params, float*) at null_write.cu:10\n");
	HAS(r, "frame:     #0 apply at null_write.cu:10\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("null_write.mi.log"),
			    NULL };
	r = cudbg(j);
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
	struct run r = cudbg(a);
	CHECK_INT(r.code, 0);
	HAS(r, "stop:      Breakpoint 1 in saxpy2\n");
	HAS(r, "frame:     #0 saxpy2 at step_kernel.cu:8\n");
	HAS(r, "fault:     no\n");
	free(r.out);
	const char *j[] = { "--json", "--replay", fixture("step_kernel.mi.log"),
			    NULL };
	r = cudbg(j);
	CHECK_INT(r.code, 0);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"fault\":false");
	HAS(r, "\"breakpoint\":1");
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
	struct run r = cudbg(segv);
	CHECK_INT(r.code, 1);
	HAS(r, "stop:      SIGSEGV (Segmentation fault) in poke\n");
	HAS(r, "model_segv.c:");
	CHECK(!strstr(r.out, "kernel:"));
	free(r.out);
	/* no memcheck pass: this machine has no compute-sanitizer, and the
	 * diagnosis would report that as an environment error (exit 2) */
	const char *seven[] = { "--json", "--memcheck=never", "--debugger",
				"gdb", progpath("model_prog"), NULL };
	r = cudbg(seven);
	CHECK_INT(r.code, 1);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"exit\":{\"code\":7,\"signal\":null}");
	free(r.out);
	const char *ok[] = { "--batch", "--debugger", "gdb",
			     progpath("model_prog"), "2", NULL };
	r = cudbg(ok);
	CHECK_INT(r.code, 0);
	HAS(r, "stop:      exited normally\n");
	HAS(r, "fault:     no\n");
	free(r.out);
}

TEST_TIMEOUT(environment_errors_exit_2, 30)
{
	const char *bad[] = { "--batch", "--debugger", "/nonexistent/gdb",
			      "/bin/true", NULL };
	struct run r = cudbg(bad);
	CHECK_INT(r.code, 2);
	free(r.out);
	const char *j[] = { "--json", "--debugger", "/nonexistent/gdb",
			    "/bin/true", NULL };
	r = cudbg(j);
	CHECK_INT(r.code, 2);
	CHECK_MSG(json_valid(r.out), "invalid JSON: %s", r.out);
	HAS(r, "\"error\":\"");
	free(r.out);
	const char *none[] = { "--batch", NULL };
	r = cudbg(none);
	CHECK_INT(r.code, 2);
	free(r.out);
}
