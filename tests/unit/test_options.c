/* Command-line parsing: backends, program argv, errors. */
#include "cudbg/options.h"
#include "tests/harness.h"

#include <stdio.h>
#include <string.h>

#define ARGV(...) words((const char *[]){ "cudbg-tui", __VA_ARGS__, NULL })

/* A mutable copy of a word list (options point into it, so it stays in
 * static storage; -Wwrite-strings makes literals const). */
static char **words(const char *const *w)
{
	static char store[16][64];
	static char *argv[17];
	int i;
	for (i = 0; w[i] && i < 16; i++) {
		snprintf(store[i], sizeof store[i], "%s", w[i]);
		argv[i] = store[i];
	}
	argv[i] = NULL;
	return argv;
}

static int parse(struct cudbg_options *o, char **argv, int nargs, char *err)
{
	return options_parse(o, nargs + 1, argv, err, 256);
}

TEST(launch_keeps_program_arguments_verbatim)
{
	char **a = ARGV("--batch", "-d", "src", "--directory=inc", "./prog",
			"--pid", "x y", "$HOME", "-d");
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, a, 9, err), 0);
	CHECK_INT(o.backend, SESSION_LAUNCH);
	CHECK(o.batch);
	CHECK_INT(o.argc, 5);
	CHECK_STR(o.argv[0], "./prog");
	CHECK_STR(o.argv[1], "--pid");
	CHECK_STR(o.argv[2], "x y");
	CHECK_STR(o.argv[4], "-d");
	CHECK(o.argv[5] == NULL);
	CHECK_INT(o.ndirs, 2);
	CHECK_STR(o.dirs[0], "src");
	CHECK_STR(o.dirs[1], "inc");
	options_free(&o);
}

TEST(double_dash_ends_options)
{
	char **a = ARGV("--", "--help");
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, a, 2, err), 0);
	CHECK(!o.help);
	CHECK_INT(o.backend, SESSION_LAUNCH);
	CHECK_STR(o.argv[0], "--help");
	options_free(&o);
}

TEST(backends)
{
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, ARGV("--pid", "123"), 2, err), 0);
	CHECK_INT(o.backend, SESSION_ATTACH);
	CHECK_INT(o.pid, 123);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--remote=gpu:2345", "./p"), 2, err), 0);
	CHECK_INT(o.backend, SESSION_REMOTE);
	CHECK_STR(o.remote, "gpu:2345");
	CHECK_STR(o.argv[0], "./p");
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--core", "c.nvcudmp", "./p"), 3, err), 0);
	CHECK_INT(o.backend, SESSION_CORE);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--replay", "x.mi.log", "--json"), 3, err), 0);
	CHECK_INT(o.backend, SESSION_REPLAY);
	CHECK(o.json && o.batch);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--sanitizer-report", "r.xml"), 2, err), 0);
	CHECK_INT(o.backend, SESSION_NONE);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--memcheck=never", "p"), 2, err), 0);
	CHECK_INT(o.memcheck, CUDBG_MEMCHECK_NEVER);
	CHECK(o.memcheck_given);
	options_free(&o);
}

static void expect_error(char **argv, int argc, const char *part)
{
	struct cudbg_options o;
	char err[256] = "";
	CHECK_INT(parse(&o, argv, argc, err), -1);
	CHECK_MSG(strstr(err, part) != NULL, "error '%s' lacks '%s'", err,
		  part);
	CHECK(strchr(err, '\n') == NULL);
}

TEST(usage_errors_are_one_line)
{
	expect_error(ARGV("--bogus"), 1, "unknown option '--bogus'");
	expect_error(ARGV("-q"), 1, "unknown option '-q'");
	expect_error(ARGV("-x"), 1, "-x needs a value");
	expect_error(ARGV("-x", "/nonexistent/cmds.gdb", "p"), 3, "-x /nonexistent/cmds.gdb: cannot read it");
	expect_error(ARGV("--pid"), 1, "--pid needs a value");
	expect_error(ARGV("--pid", "12a"), 2, "process id");
	expect_error(ARGV("--remote", "host"), 2, "HOST:PORT");
	expect_error(ARGV("--remote", "host:99999"), 2, "port");
	expect_error(ARGV("--memcheck=sometimes", "p"), 2, "auto, always");
	expect_error(ARGV("--pid", "1", "--core", "c"), 4, "choose one");
	expect_error(ARGV("--replay", "f", "prog"), 3, "takes no program");
	expect_error(ARGV("--pid", "1", "prog", "arg"), 4, "arguments");
	expect_error(ARGV("--batch"), 1, "no program given");
	expect_error(ARGV("--force", "p"), 2, "--record");
	expect_error(ARGV("--batch=1", "p"), 2, "takes no value");
}

TEST(help_and_version_need_nothing_else)
{
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, ARGV("--help"), 1, err), 0);
	CHECK(o.help);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--version"), 1, err), 0);
	CHECK(o.version);
	options_free(&o);
	CHECK(strstr(options_usage(), "--sanitizer-report") != NULL);
}

TEST(breakpoints_repeat_in_order)
{
	char **a = ARGV("-b", "saxpy2", "--break=step_kernel.cu:11", "-bmain",
			"./prog");
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, a, 5, err), 0);
	CHECK_INT(o.nbreaks, 3);
	CHECK_STR(o.breaks[0], "saxpy2");
	CHECK_STR(o.breaks[1], "step_kernel.cu:11");
	CHECK_STR(o.breaks[2], "main");
	CHECK_STR(o.argv[0], "./prog");
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("-b"), 1, err), -1);
	CHECK(strstr(err, "-b needs a value") != NULL);
}

/* gdb's -x FILE and -ex CMD: kept in command-line order, a file that
 * cannot be read refused at once. */
TEST(debugger_commands_in_order)
{
	char **a = ARGV("-ex", "set print pretty on", "-x", "/dev/null",
			"--eval-command=break main", "./prog");
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, a, 6, err), 0);
	CHECK_INT(o.ndbg_cmds, 3);
	CHECK_STR(o.dbg_cmds[0], "set print pretty on");
	CHECK(!o.dbg_cmd_is_file[0]);
	CHECK_STR(o.dbg_cmds[1], "/dev/null");
	CHECK(o.dbg_cmd_is_file[1]);
	CHECK_STR(o.dbg_cmds[2], "break main");
	CHECK_STR(o.argv[0], "./prog");
	options_free(&o);
}

/* What getopt_long (opts/options.c) accepts besides the exact words:
 * --opt=value and --opt value alike, unique abbreviations (an exact name
 * wins over a longer one it begins), -x and -ex only as whole words and
 * never when they are another option's value, and a parse that fails in
 * the middle of a "-hq" word leaves nothing behind for the next one. */
TEST(getopt_long_forms)
{
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, ARGV("--bat", "--timeout=5", "--record", "r.log",
				 "./prog"), 5, err), 0);
	CHECK(o.batch);
	CHECK_INT(o.timeout_s, 5);
	CHECK_STR(o.record, "r.log");
	CHECK_STR(o.argv[0], "./prog");
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--timeout", "7", "--dire", "src", "p"), 5,
			err), 0);
	CHECK_INT(o.timeout_s, 7);
	CHECK_INT(o.ndirs, 1);
	CHECK_STR(o.dirs[0], "src");
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--core", "c.dump"), 2, err), 0);
	CHECK_STR(o.core, "c.dump");
	CHECK(o.core_dir == NULL);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("-d", "-x", "-ex", "info cuda", "p"), 5,
			err), 0);
	CHECK_INT(o.ndirs, 1);
	CHECK_STR(o.dirs[0], "-x");
	CHECK_INT(o.ndbg_cmds, 1);
	CHECK_STR(o.dbg_cmds[0], "info cuda");
	options_free(&o);
	expect_error(ARGV("--re", "x"), 2, "ambiguous option '--re'");
	expect_error(ARGV("-xcmds.gdb", "p"), 2, "unknown option '-xcmds.gdb'");
	expect_error(ARGV("-hq"), 1, "unknown option '-hq'");
	CHECK_INT(parse(&o, ARGV("-bmain", "p"), 2, err), 0);
	CHECK_INT(o.nbreaks, 1);
	CHECK_STR(o.breaks[0], "main");
	CHECK(!o.help);
	options_free(&o);
}

/* A Python program under cuda-gdb runs with launch blocking (the host
 * stays at the faulting kernel's launch) unless --no-launch-blocking;
 * never for a C program or under plain gdb (which has no such setting). */
TEST(launch_blocking_under_cuda_gdb)
{
	struct cudbg_options o;
	struct session_config sc;
	char err[256];
	CHECK_INT(parse(&o, ARGV("python3", "train.py"), 2, err), 0);
	options_session_config(&o, &sc);
	CHECK(sc.launch_blocking);
	CHECK(!o.no_pystack);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--no-launch-blocking", "--no-python-stack",
				 "python3", "train.py"), 4, err), 0);
	options_session_config(&o, &sc);
	CHECK(!sc.launch_blocking);
	CHECK(o.no_pystack);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--debugger", "gdb", "python3", "t.py"), 4, err), 0);
	options_session_config(&o, &sc);
	CHECK(!sc.launch_blocking);
	options_free(&o);
	/* every program under cuda-gdb, not only Python (issue 28): the
	 * host stack at a device stop is then the launch */
	CHECK_INT(parse(&o, ARGV("./a.out"), 1, err), 0);
	options_session_config(&o, &sc);
	CHECK(sc.launch_blocking);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--no-launch-blocking", "./a.out"), 2, err), 0);
	options_session_config(&o, &sc);
	CHECK(!sc.launch_blocking);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--debugger", "gdb", "./a.out"), 3, err), 0);
	options_session_config(&o, &sc);
	CHECK(!sc.launch_blocking);
	options_free(&o);
}

/* A Python program under cuda-gdb reads only the host libraries the
 * report needs (at a stop), unless --all-host-symbols; a C program and
 * plain gdb read every library as gdb does; --no-launch-blocking does
 * not change it. */
TEST(lazy_host_symbols_for_python_under_cuda_gdb)
{
	struct cudbg_options o;
	struct session_config sc;
	char err[256];
	CHECK_INT(parse(&o, ARGV("--no-launch-blocking", "python3", "train.py"), 3, err), 0);
	options_session_config(&o, &sc);
	CHECK(sc.lazy_host_symbols);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--all-host-symbols", "python3", "train.py"), 3, err), 0);
	options_session_config(&o, &sc);
	CHECK(!sc.lazy_host_symbols);
	CHECK(sc.launch_blocking);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("--debugger", "gdb", "python3", "t.py"), 4, err), 0);
	options_session_config(&o, &sc);
	CHECK(!sc.lazy_host_symbols);
	options_free(&o);
	CHECK_INT(parse(&o, ARGV("./a.out"), 1, err), 0);
	options_session_config(&o, &sc);
	CHECK(!sc.lazy_host_symbols);
	options_free(&o);
}

/* --memcheck-kernel: a kernel's name (or signature) the pass narrows to;
 * something with no name in it is refused in one line. */
TEST(memcheck_kernel_takes_a_name)
{
	char **a = ARGV("--memcheck-kernel", "row_sums", "./prog");
	struct cudbg_options o;
	char err[256];
	CHECK_INT(parse(&o, a, 3, err), 0);
	CHECK_STR(o.memcheck_kernel, "row_sums");
	options_free(&o);
	a = ARGV("--memcheck-kernel=(*)", "./prog");
	CHECK(parse(&o, a, 2, err) < 0);
	CHECK(strstr(err, "--memcheck-kernel takes a kernel's name") != NULL);
	CHECK(strchr(err, '\n') == NULL);
	options_free(&o);
}
