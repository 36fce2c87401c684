#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct test_case {
	const char *name;
	test_fn fn;
	unsigned timeout_s;
};

static struct test_case *cases;
static size_t ncases, capcases;
static const char *suite_name = "test";

void test_register(const char *name, test_fn fn, unsigned timeout_s)
{
	if (ncases == capcases) {
		capcases = capcases ? capcases * 2 : 64;
		cases = realloc(cases, capcases * sizeof(*cases));
		if (!cases)
			abort();
	}
	cases[ncases++] = (struct test_case){ name, fn, timeout_s };
}

/* The child reports its verdict through this pipe, so a child that dies
 * without writing is a crash, not a pass. */
static int verdict_fd = -1;

static void write_verdict(const char *text)
{
	size_t n = strlen(text);
	while (n > 0) {
		ssize_t w = write(verdict_fd, text, n);
		if (w <= 0)
			break;
		text += w;
		n -= (size_t)w;
	}
}

void test_fail(const char *file, int line, const char *fmt, ...)
{
	char msg[1024];
	int off = snprintf(msg, sizeof msg, "F%s:%d: ", file, line);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + off, sizeof msg - (size_t)off, fmt, ap);
	va_end(ap);
	write_verdict(msg);
	_exit(1);
}

void test_skip(const char *fmt, ...)
{
	char msg[1024] = "S";
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg + 1, sizeof msg - 1, fmt, ap);
	va_end(ap);
	write_verdict(msg);
	_exit(0);
}

const char *test_root_dir(void)
{
	const char *r = getenv("CUDBG_ROOT");
	return r && *r ? r : ".";
}

const char *test_fixtures_dir(void)
{
	const char *f = getenv("CUDBG_FIXTURES");
	return f && *f ? f : "tests/shared/fixtures";
}

char *test_read_file(const char *path, size_t *len)
{
	size_t plen = strlen(path);
	FILE *f;
	bool gz = plen > 3 && strcmp(path + plen - 3, ".gz") == 0;
	if (gz) {
		char cmd[4096];
		snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
		f = popen(cmd, "r");
	} else {
		f = fopen(path, "rb");
	}
	if (!f)
		test_fail(__FILE__, __LINE__, "cannot open %s: %s", path,
			  strerror(errno));
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap + 1);
	for (;;) {
		if (n == cap) {
			cap *= 2;
			buf = realloc(buf, cap + 1);
		}
		size_t r = fread(buf + n, 1, cap - n, f);
		if (r == 0)
			break;
		n += r;
	}
	if (gz)
		pclose(f);
	else
		fclose(f);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

static void print_result(const char *name, int status, const char *verdict,
			 bool timed_out, unsigned timeout_s)
{
	if (timed_out)
		printf("FAIL %s/%s: timed out after %us\n", suite_name, name,
		       timeout_s);
	else if (verdict[0] == 'S')
		printf("SKIP %s/%s: %s\n", suite_name, name, verdict + 1);
	else if (verdict[0] == 'F')
		printf("FAIL %s/%s: %s\n", suite_name, name, verdict + 1);
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		printf("PASS %s/%s\n", suite_name, name);
	else if (WIFSIGNALED(status))
		printf("FAIL %s/%s: died of signal %d\n", suite_name, name,
		       WTERMSIG(status));
	else
		printf("FAIL %s/%s: exit status %d\n", suite_name, name,
		       WEXITSTATUS(status));
	fflush(stdout);
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

/* Each test gets a scratch directory ($CUDBG_TEST_TMP) that the parent
 * removes once the child is gone, however it ended (a failed CHECK and a
 * timeout leave no chance to clean up inside the child). */
static void scratch_make(char *dir, size_t cap)
{
	snprintf(dir, cap, "/tmp/cudbg-test-XXXXXX");
	if (!mkdtemp(dir))
		dir[0] = '\0';
}

static void scratch_remove(const char *dir)
{
	if (dir[0])
		nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* $CUDBG_CASE_TIMES names a file that gets one line per case, "SECONDS
 * suite/name" (tests/run.sh keeps them beside its own per-binary times),
 * so a case that waits out a timeout shows. */
static void note_time(const char *name, double secs)
{
	const char *path = getenv("CUDBG_CASE_TIMES");
	if (!path || !*path)
		return;
	FILE *f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "%.2f %s/%s\n", secs, suite_name, name);
	fclose(f);
}

static bool run_case(const struct test_case *tc)
{
	int fds[2];
	char scratch[64];
	double t0 = now_s();
	/* Close-on-exec: a debugger a test starts (in its own session, out
	 * of reach of the group kill below) must not hold the verdict pipe
	 * open, or the read below would wait for it. */
	if (pipe2(fds, O_CLOEXEC) != 0)
		abort();
	fflush(stdout);
	scratch_make(scratch, sizeof scratch);
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		if (scratch[0])
			setenv("CUDBG_TEST_TMP", scratch, 1);
		verdict_fd = fds[1];
		setpgid(0, 0);
		alarm(tc->timeout_s);
		tc->fn();
		_exit(0);
	}
	close(fds[1]);
	char verdict[1100] = "";
	size_t got = 0;
	ssize_t r = 1;
	/* Bounded even if something else holds the pipe: the child's alarm
	 * fires at timeout_s; give it 10 s more. */
	int left_ms = (int)(tc->timeout_s + 10) * 1000;
	while (got < sizeof verdict - 1 && r > 0 && left_ms > 0) {
		struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
		if (poll(&pfd, 1, 200) == 0) {
			left_ms -= 200;
			continue;
		}
		r = read(fds[0], verdict + got, sizeof verdict - 1 - got);
		if (r > 0)
			got += (size_t)r;
	}
	verdict[got] = '\0';
	close(fds[0]);
	if (left_ms <= 0) { /* the child outlived its own alarm */
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	/* Kill whatever the test left behind in its process group. */
	kill(-pid, SIGKILL);
	scratch_remove(scratch);
	bool timed_out = WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
	print_result(tc->name, status, verdict, timed_out, tc->timeout_s);
	note_time(tc->name, now_s() - t0);
	return verdict[0] != 'F' && !timed_out && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	const char *slash = strrchr(argv[0], '/');
	suite_name = slash ? slash + 1 : argv[0];
	if (strncmp(suite_name, "test_", 5) == 0)
		suite_name += 5;
	int failed = 0;
	for (size_t i = 0; i < ncases; i++) {
		if (argc > 1 && !strstr(cases[i].name, argv[1]))
			continue;
		if (!run_case(&cases[i]))
			failed++;
	}
	return failed ? 1 : 0;
}
