/* Runs the built cudbg-tui ($CUDBG_BIN) for the tests of its command
 * line (batch, diagnosis): a shell-free argv, stdin and stderr on
 * /dev/null, stdout captured.  The test is skipped when the binary is not
 * built. */
#ifndef CUDBG_TEST_CLI_UTIL_H
#define CUDBG_TEST_CLI_UTIL_H

#include "tests/harness.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct cli_result {
	char *out; /* stdout, NUL-ended; the caller frees (or leaves it to the test's exit) */
	int code;  /* exit status, or 128 + the signal that ended it */
};

#define CLI_MAX_ARGS 38

/* In the child: the standard streams, `env` (NAME=VALUE, NULL-ended, may
 * be NULL) and the exec; never returns. */
static inline void cli_exec(const char *bin, const char *const *args,
			    const char *const *env, int out_fd)
{
	const char *argv[CLI_MAX_ARGS + 2] = { bin };
	int n = 1;

	dup2(out_fd, 1);
	close(out_fd);
	FILE *in = freopen("/dev/null", "r", stdin);
	FILE *err = freopen("/dev/null", "w", stderr);
	(void)in;
	(void)err;
	for (size_t i = 0; env && env[i]; i++)
		putenv((char *)(uintptr_t)env[i]);
	for (; args[n - 1]; n++)
		argv[n] = args[n - 1];
	argv[n] = NULL;
	execv(bin, (char *const *)(uintptr_t)argv);
	_exit(127);
}

/* All of fd, NUL-ended (malloc'd). */
static inline char *cli_read_all(int fd)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		if (len + 4096 > cap) {
			cap = cap ? cap * 2 : 8192;
			buf = realloc(buf, cap + 1);
			CHECK(buf != NULL);
		}
		ssize_t k = read(fd, buf + len, 4096);
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	buf[len] = '\0';
	return buf;
}

/* Keeps a copy of a --json report in $CUDBG_JSON_REPORTS (set by
 * tests/run.sh), which checks every report the suite produced against
 * docs/report.schema.json at its end. */
static inline void cli_keep_json(const char *const *args, const char *out)
{
	const char *dir = getenv("CUDBG_JSON_REPORTS");
	static unsigned seq;
	bool json = false;
	char path[4096];

	for (size_t i = 0; args[i]; i++)
		json = json || strcmp(args[i], "--json") == 0;
	if (!json || !dir || !*dir || !*out)
		return;
	snprintf(path, sizeof path, "%s/unit-%ld-%u.json", dir, (long)getpid(),
		 seq++);
	FILE *f = fopen(path, "w");
	CHECK_MSG(f != NULL, "cannot keep the report in %s", path);
	CHECK(fputs(out, f) >= 0 && fclose(f) == 0);
}

/* cudbg-tui with args (NULL-ended, at most CLI_MAX_ARGS) and env added
 * to its environment. */
static inline struct cli_result cli_run_env(const char *const *args,
					    const char *const *env)
{
	const char *bin = getenv("CUDBG_BIN");
	struct cli_result r = { 0 };
	int fds[2], st;
	size_t n = 0;

	if (!bin || access(bin, X_OK) != 0)
		test_skip("CUDBG_BIN not built");
	while (args[n])
		n++;
	CHECK_MSG(n <= CLI_MAX_ARGS, "%zu arguments: raise CLI_MAX_ARGS", n);
	CHECK(pipe(fds) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		cli_exec(bin, args, env, fds[1]);
	}
	close(fds[1]);
	r.out = cli_read_all(fds[0]);
	close(fds[0]);
	waitpid(pid, &st, 0);
	r.code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	cli_keep_json(args, r.out);
	return r;
}

static inline struct cli_result cli_run(const char *const *args)
{
	return cli_run_env(args, NULL);
}

#endif
