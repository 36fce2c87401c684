/* The memcheck pass, driven through a fake compute-sanitizer script
 * (tests/data/fake-compute-sanitizer) that checks the command line, runs
 * the program and writes a fixture report: process handling, the private
 * directory, progress events, text kept, report and coredump. */
#include "cudbg/memcheck.h"
#include "cudbg/sanitizer.h"
#include "tests/harness.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fake[4096];

static const char *fake_path(void)
{
	snprintf(fake, sizeof fake, "%s/tests/data/fake-compute-sanitizer",
		 test_root_dir());
	return fake;
}

struct events {
	int started, output, finding, exited;
	char cmd[8192];
	char first_finding[256];
};

static void on_event(void *ctx, enum diag_memcheck_event ev, const char *t,
		     size_t n)
{
	struct events *e = ctx;
	switch (ev) {
	case DIAG_MC_STARTED:
		e->started++;
		snprintf(e->cmd, sizeof e->cmd, "%.*s", (int)n, t);
		break;
	case DIAG_MC_OUTPUT:
		e->output++;
		break;
	case DIAG_MC_FINDING:
		if (!e->finding++)
			snprintf(e->first_finding, sizeof e->first_finding,
				 "%.*s", (int)n, t);
		break;
	case DIAG_MC_EXITED:
		e->exited++;
		break;
	}
}

static char *env_kv(const char *k, const char *v)
{
	char *s = malloc(strlen(k) + strlen(v) + 2);
	sprintf(s, "%s=%s", k, v);
	return s;
}

/* Orphans of the group are reaped by init a moment later: wait a bounded
 * time for the group to vanish. */
static bool group_gone(pid_t pgid)
{
	for (int i = 0; i < 300; i++) {
		if (kill(-pgid, 0) < 0 && errno == ESRCH)
			return true;
		usleep(10000);
	}
	return false;
}

static char **make_env(const char *xml, const char *text, const char *extra)
{
	char **env = calloc(8, sizeof *env);
	int n = 0;
	char xp[4096];
	snprintf(xp, sizeof xp, "%s/%s", test_fixtures_dir(), xml);
	env[n++] = env_kv("FAKE_SAN_XML", xp);
	env[n++] = env_kv("PATH", "/usr/bin:/bin");
	if (text)
		env[n++] = env_kv("FAKE_SAN_TEXT", text);
	if (extra)
		env[n++] = strdup(extra);
	return env;
}

static void free_env(char **env)
{
	for (int i = 0; env[i]; i++)
		free(env[i]);
	free(env);
}

TEST(runs_parses_and_cleans_up)
{
	char *argv[] = {(char *)(uintptr_t)"/bin/echo",
			(char *)(uintptr_t)"program output", NULL};
	char **env = make_env("small_oob.sanitizer.xml",
			      "========= Invalid __global__ read of size 4 bytes\\n"
			      "=========     Access to 0x7fa670800190 is out of bounds\\n"
			      "=========     and is 1 bytes after the nearest "
			      "allocation at 0x7fa670800000 of size 400 bytes\\n",
			      NULL);
	struct diag_memcheck_opts o = {.sanitizer = fake_path(), .argv = argv,
				       .envp = env, .python = -1,
				       .print_limit = 7};
	struct events ev = {0};
	char err[512] = "";
	struct diag_memcheck *m = diag_memcheck_start(&o, on_event, &ev, err,
						      sizeof err);
	CHECK_MSG(m, "%s", err);
	CHECK_INT(ev.started, 1);
	CHECK(strstr(ev.cmd, "--tool memcheck --xml --save "));
	CHECK(strstr(ev.cmd, "--generate-coredump --coredump-name "));
	CHECK(strstr(ev.cmd, "--print-limit 7 /bin/echo program output"));
	/* The private directory is 0700. */
	struct stat st;
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", diag_memcheck_dir(m));
	CHECK_INT(stat(dir, &st), 0);
	CHECK_INT(st.st_mode & 0777, 0700);
	CHECK_INT(diag_memcheck_wait(m, 20000), 1);
	CHECK(diag_memcheck_done(m));
	CHECK(!diag_memcheck_signalled(m));
	CHECK_INT(diag_memcheck_status(m), 0);
	CHECK_INT(ev.exited, 1);
	CHECK(ev.output >= 1);
	CHECK_INT(ev.finding, 1);
	CHECK(strstr(ev.first_finding, "Invalid __global__ read"));
	size_t len;
	const char *text = diag_memcheck_text(m, &len);
	CHECK(strstr(text, "program output"));
	CHECK(strstr(text, "FAKE cache=unset limit=7 prog=/bin/echo nargs=2"));
	CHECK(diag_memcheck_core_path(m));
	CHECK(strstr(diag_memcheck_core_path(m), dir));
	struct diag_san *s = diag_memcheck_report(m, err, sizeof err);
	CHECK_MSG(s, "%s", err);
	CHECK_INT(diag_san_count(s), 2);
	CHECK(diag_san_get(s, 0)->has_alloc);
	CHECK_INT(diag_san_get(s, 0)->distance, 1);
	diag_san_free(s);
	CHECK(diag_memcheck_seconds(m) >= 0);
	diag_memcheck_free(m);
	CHECK_MSG(stat(dir, &st) < 0 && errno == ENOENT, "%s left behind", dir);
	free_env(env);
}

TEST(python_programs_run_without_the_caching_allocator)
{
	char script[4096];
	snprintf(script, sizeof script, "%s/tests/data/fake-python-script.py",
		 test_root_dir());
	char *argv[] = {script, NULL};
	char **env = make_env("seed_py.sanitizer.xml", NULL,
			      "PYTORCH_NO_CUDA_MEMORY_CACHING=0");
	struct diag_memcheck_opts o = {.sanitizer = fake_path(), .argv = argv,
				       .envp = env, .python = -1,
				       .keep_temp = true};
	char err[512];
	CHECK(diag_argv_is_python(argv));
	struct diag_memcheck *m = diag_memcheck_start(&o, NULL, NULL, err,
						      sizeof err);
	CHECK_MSG(m, "%s", err);
	CHECK_INT(diag_memcheck_wait(m, 20000), 1);
	size_t len;
	const char *text = diag_memcheck_text(m, &len);
	CHECK_MSG(strstr(text, "FAKE cache=1 limit=100"), "%s", text);
	CHECK(strstr(text, "hello from the script"));
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", diag_memcheck_dir(m));
	diag_memcheck_free(m);
	/* --keep-temp: the directory and its files stay. */
	char report[4200];
	snprintf(report, sizeof report, "%s/report.xml", dir);
	struct stat st;
	CHECK_INT(stat(report, &st), 0);
	unlink(report);
	snprintf(report, sizeof report, "%s/core.nvcudmp", dir);
	unlink(report);
	CHECK_INT(rmdir(dir), 0);
	free_env(env);
}

TEST(poll_loop_integration)
{
	char *argv[] = {(char *)(uintptr_t)"/bin/true", NULL};
	char **env = make_env("assert_label.sanitizer.xml", NULL,
			      "FAKE_SAN_NOCORE=1");
	struct diag_memcheck_opts o = {.sanitizer = fake_path(), .argv = argv,
				       .envp = env, .python = 0};
	char err[512];
	struct diag_memcheck *m = diag_memcheck_start(&o, NULL, NULL, err,
						      sizeof err);
	CHECK_MSG(m, "%s", err);
	CHECK(diag_memcheck_pid(m) > 0);
	int rounds = 0, rc = 0;
	while (rc == 0 && rounds++ < 2000) {
		struct pollfd p[2];
		int n = diag_memcheck_pollfds(m, p, 2);
		poll(p, (nfds_t)n, 10);
		rc = diag_memcheck_handle(m);
	}
	CHECK_INT(rc, 1);
	CHECK(diag_memcheck_core_path(m) == NULL); /* none written */
	CHECK_INT(diag_memcheck_pollfds(m, NULL, 0), 0);
	struct diag_san *s = diag_memcheck_report(m, err, sizeof err);
	CHECK_MSG(s, "%s", err);
	diag_san_free(s);
	diag_memcheck_free(m);
	free_env(env);
}

TEST(cancel_kills_the_whole_group)
{
	char *argv[] = {(char *)(uintptr_t)"/bin/true", NULL};
	char **env = make_env("small_oob.sanitizer.xml", NULL,
			      "FAKE_SAN_SLEEP=30");
	struct diag_memcheck_opts o = {.sanitizer = fake_path(), .argv = argv,
				       .envp = env, .python = 0};
	char err[512];
	struct diag_memcheck *m = diag_memcheck_start(&o, NULL, NULL, err,
						      sizeof err);
	CHECK_MSG(m, "%s", err);
	pid_t pid = diag_memcheck_pid(m);
	CHECK_INT(diag_memcheck_wait(m, 200), 0); /* still running */
	diag_memcheck_cancel(m);
	CHECK_INT(diag_memcheck_wait(m, 5000), 1);
	CHECK(diag_memcheck_signalled(m));
	/* The sleep child was in the group: nothing of it is left. */
	CHECK(group_gone(pid));
	char err2[512];
	CHECK(diag_memcheck_report(m, err2, sizeof err2) == NULL);
	CHECK(strstr(err2, "wrote no report"));
	diag_memcheck_free(m);
	free_env(env);
}

TEST(free_while_running_stops_it)
{
	char *argv[] = {(char *)(uintptr_t)"/bin/true", NULL};
	char **env = make_env("small_oob.sanitizer.xml", NULL,
			      "FAKE_SAN_SLEEP=30");
	struct diag_memcheck_opts o = {.sanitizer = fake_path(), .argv = argv,
				       .envp = env, .python = 0};
	char err[512];
	struct diag_memcheck *m = diag_memcheck_start(&o, NULL, NULL, err,
						      sizeof err);
	CHECK_MSG(m, "%s", err);
	pid_t pid = diag_memcheck_pid(m);
	diag_memcheck_free(m);
	CHECK(group_gone(pid));
	free_env(env);
}

TEST(clear_errors)
{
	char *argv[] = {(char *)(uintptr_t)"/bin/true", NULL};
	char err[512];
	struct diag_memcheck_opts o = {.sanitizer = "/nonexistent/compute-sanitizer",
				       .argv = argv, .python = 0};
	CHECK(diag_memcheck_start(&o, NULL, NULL, err, sizeof err) == NULL);
	CHECK(strstr(err, "compute-sanitizer not found"));
	CHECK(strstr(err, "--sanitizer"));

	char *missing[] = {(char *)(uintptr_t)"/nonexistent/prog", NULL};
	o.sanitizer = fake_path();
	o.argv = missing;
	CHECK(diag_memcheck_start(&o, NULL, NULL, err, sizeof err) == NULL);
	CHECK(strstr(err, "/nonexistent/prog: program not found"));

	/* A sanitizer that is not executable. */
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/fake-python-script.py",
		 test_root_dir());
	char notexec[4200];
	snprintf(notexec, sizeof notexec, "%s/README.md", test_root_dir());
	o.sanitizer = notexec;
	o.argv = argv;
	CHECK(diag_memcheck_start(&o, NULL, NULL, err, sizeof err) == NULL);

	/* A sanitizer that writes malformed XML. */
	char **env = make_env("README.md", NULL, NULL);
	o.sanitizer = fake_path();
	o.envp = env;
	struct diag_memcheck *m = diag_memcheck_start(&o, NULL, NULL, err,
						      sizeof err);
	CHECK_MSG(m, "%s", err);
	CHECK_INT(diag_memcheck_wait(m, 20000), 1);
	CHECK(diag_memcheck_report(m, err, sizeof err) == NULL);
	CHECK(strstr(err, "not a valid compute-sanitizer XML report"));
	diag_memcheck_free(m);
	free_env(env);
}

TEST(policy)
{
	CHECK_INT(diag_memcheck_policy_parse("auto"), DIAG_MEMCHECK_AUTO);
	CHECK_INT(diag_memcheck_policy_parse("always"), DIAG_MEMCHECK_ALWAYS);
	CHECK_INT(diag_memcheck_policy_parse("never"), DIAG_MEMCHECK_NEVER);
	CHECK_INT(diag_memcheck_policy_parse("sometimes"), -1);
	CHECK_STR(diag_memcheck_policy_name(DIAG_MEMCHECK_ALWAYS), "always");
	struct diag_fault f = {0};
	f.flags[DIAG_F_EXITED] = true;
	f.flags[DIAG_F_CUDA_ERROR_OUTPUT] = true;
	CHECK(diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, &f));
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_NEVER, &f));
	f.flags[DIAG_F_DEVICE_STOP] = true;
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, &f));
	CHECK(diag_memcheck_wanted(DIAG_MEMCHECK_ALWAYS, &f));
	f.flags[DIAG_F_DEVICE_STOP] = false;
	f.flags[DIAG_F_CUDA_ERROR_OUTPUT] = false;
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, &f));
	f.flags[DIAG_F_EXIT_FAILED] = true;
	CHECK(diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, &f));
	/* a Python exception that is no CUDA error: its traceback says it */
	f.flags[DIAG_F_PYTHON_HOST_ERROR] = true;
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, &f));
	CHECK(diag_memcheck_wanted(DIAG_MEMCHECK_ALWAYS, &f));
	f.flags[DIAG_F_PYTHON_HOST_ERROR] = false;
	f.flags[DIAG_F_MEMCHECK_RAN] = true;
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_AUTO, &f));
	CHECK(!diag_memcheck_wanted(DIAG_MEMCHECK_ALWAYS, &f));
}

TEST(core_wait_from_the_environment)
{
	double w = 0;
	CHECK_INT(diag_memcheck_core_wait_parse(NULL, &w), 0);
	CHECK(w == 2.0);
	CHECK_INT(diag_memcheck_core_wait_parse("", &w), 0);
	CHECK(w == 2.0);
	CHECK_INT(diag_memcheck_core_wait_parse("0.5", &w), 0);
	CHECK(w == 0.5);
	CHECK_INT(diag_memcheck_core_wait_parse("never", &w), 0);
	CHECK(w < 0);
	CHECK_INT(diag_memcheck_core_wait_parse("-3", &w), 0);
	CHECK(w < 0);
	CHECK_INT(diag_memcheck_core_wait_parse("5s", &w), -1);
	CHECK(w == 2.0);
	CHECK_INT(diag_memcheck_core_wait_parse("inf", &w), -1);
	CHECK_INT(diag_memcheck_core_wait_parse("nan", &w), -1);
	CHECK_INT(diag_memcheck_core_wait_parse("1e999", &w), -1);
	CHECK_INT(diag_memcheck_core_wait_parse("NEVER", &w), -1);
}

TEST(python_detection_and_tool_lookup)
{
	char *a[] = {(char *)(uintptr_t)"python3", (char *)(uintptr_t)"x.py", NULL};
	char *b[] = {(char *)(uintptr_t)"./train.py", NULL};
	char *c[] = {(char *)(uintptr_t)"/bin/true", NULL};
	CHECK(diag_argv_is_python(a));
	CHECK(diag_argv_is_python(b));
	CHECK(!diag_argv_is_python(c));
	char buf[4096];
	CHECK_INT(diag_find_tool("sh", buf, sizeof buf), 0);
	CHECK(buf[0] == '/');
	CHECK(diag_find_tool("no-such-tool-xyz", buf, sizeof buf) < 0);
	setenv("CUDA_HOME", test_root_dir(), 1);
	/* $CUDA_HOME/bin is searched after PATH. */
	CHECK(diag_find_tool("no-such-tool-xyz", buf, sizeof buf) < 0);
	unsetenv("CUDA_HOME");
}

/* After a live stop the kernel is known: the pass instruments only it
 * (--kernel-name regex=NAME on compute-sanitizer's command line, NAME the
 * unqualified name that is spelled inside the mangled one). */
TEST(kernel_filter_from_a_signature)
{
	char f[300];
	CHECK_INT(diag_memcheck_kernel_filter("row_sums(float const*, float*, int)",
					      f, sizeof f), 0);
	CHECK_STR(f, "regex=row_sums");
	CHECK_INT(diag_memcheck_kernel_filter(
			  "void at::native::(anonymous namespace)::"
			  "vectorized_gather_kernel<16, long>(char*, char*, long*, int, long, long, long, long, bool)",
			  f, sizeof f), 0);
	CHECK_STR(f, "regex=vectorized_gather_kernel");
	/* regex metacharacters never reach the tool */
	static const char id[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
	if (diag_memcheck_kernel_filter("a.*b", f, sizeof f) == 0)
		CHECK_INT(strspn(f + 6, id), strlen(f + 6));
	CHECK(diag_memcheck_kernel_filter("(*)", f, sizeof f) < 0);
	CHECK(diag_memcheck_kernel_filter("", f, sizeof f) < 0);
	CHECK(diag_memcheck_kernel_filter("9lives", f, sizeof f) < 0);
}

TEST(kernel_filter_reaches_the_sanitizer)
{
	char *argv[] = {(char *)(uintptr_t)"/bin/true", NULL};
	char **env = make_env("small_oob.sanitizer.xml", "", NULL);
	struct diag_memcheck_opts o = {.sanitizer = fake_path(), .argv = argv,
				       .envp = env, .python = 0,
				       .kernel = "row_sums(float const*, float*, int)"};
	struct events ev = {0};
	char err[512] = "";
	struct diag_memcheck *m = diag_memcheck_start(&o, on_event, &ev, err,
						      sizeof err);
	CHECK_MSG(m, "%s", err);
	CHECK(strstr(ev.cmd, "--print-limit 100 --kernel-name regex=row_sums /bin/true"));
	CHECK_INT(diag_memcheck_wait(m, 20000), 1);
	size_t len;
	CHECK(strstr(diag_memcheck_text(m, &len), "kernel-name=regex=row_sums"));
	diag_memcheck_free(m);
	/* a name that is not an identifier: one line, nothing started */
	o.kernel = "(*)";
	m = diag_memcheck_start(&o, on_event, &ev, err, sizeof err);
	CHECK(!m);
	CHECK(strstr(err, "(*): not a kernel name"));
	free_env(env);
}
