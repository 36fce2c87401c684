/* libcudbg-death.so: preloaded into every process of a --job run
 * (LD_PRELOAD, set by diag/job.c).  A process that dies of a fatal
 * signal writes its death first, to $CUDBG_JOB_DIR/death.PID:
 *   PID SIGNAL PPID\n
 *   its command line, NULs as blanks\n
 * and one that calls exit() writes $CUDBG_JOB_DIR/exit.PID the same way,
 * its exit status in place of the signal (on_exit; not _exit()).
 * so that its death is seen even when its own parent reaps it at once
 * and says nothing (issue 29 item 6: "3 processes, 0 faulted" for a
 * worker that died of SIGSEGV).  Only where the signal has its default
 * action: a program's own handler is left alone (Python's faulthandler,
 * armed later, chains back here).  The handler resets to the default
 * and raises again, so the process dies as it would have.
 *
 * Not part of the product's layers: it includes no project header and
 * links nothing; everything in the handler is async-signal-safe. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char job_dir[1024];

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL,
				     SIGABRT };

/* Appends s to b[*k..cap), cut at cap. */
static void put_str(char *b, size_t *k, size_t cap, const char *s)
{
	while (*s && *k < cap)
		b[(*k)++] = *s++;
}

static void put_num(char *b, size_t *k, size_t cap, long v)
{
	char d[24];
	size_t n = 0;
	unsigned long u = v < 0 ? 0UL - (unsigned long)v : (unsigned long)v;
	do
		d[n++] = (char)('0' + u % 10);
	while ((u /= 10) && n < sizeof d);
	if (v < 0 && *k < cap)
		b[(*k)++] = '-';
	while (n && *k < cap)
		b[(*k)++] = d[--n];
}

/* The command line, NULs as blanks. */
static size_t put_cmdline(char *b, size_t k, size_t cap)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return k;
	ssize_t n = read(fd, b + k, cap - k);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		if (b[k + (size_t)i] == '\0' || b[k + (size_t)i] == '\n')
			b[k + (size_t)i] = ' ';
	k += n > 0 ? (size_t)n : 0;
	while (k > 0 && b[k - 1] == ' ')
		k--;
	return k;
}

/* Writes DIR/WHAT.PID: "PID CODE PPID" and the command line. */
static void write_end(const char *what, int code)
{
	char path[1100], tmp[1110], b[1024];
	size_t k = 0, p = 0;
	long pid = (long)getpid();
	put_str(path, &p, sizeof path - 1, job_dir);
	put_str(path, &p, sizeof path - 1, "/");
	put_str(path, &p, sizeof path - 1, what);
	put_str(path, &p, sizeof path - 1, ".");
	put_num(path, &p, sizeof path - 1, pid);
	path[p] = '\0';
	memcpy(tmp, path, p);
	memcpy(tmp + p, ".tmp", 5);
	put_num(b, &k, sizeof b, pid);
	put_str(b, &k, sizeof b, " ");
	put_num(b, &k, sizeof b, code);
	put_str(b, &k, sizeof b, " ");
	put_num(b, &k, sizeof b, (long)getppid());
	put_str(b, &k, sizeof b, "\n");
	k = put_cmdline(b, k, sizeof b - 1);
	b[k++] = '\n';
	/* whole or not at all: the reader takes only the final name */
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		ssize_t w = write(fd, b, k);
		close(fd);
		if (w == (ssize_t)k)
			rename(tmp, path);
		else
			unlink(tmp);
	}
}

static void on_fatal(int sig)
{
	int saved = errno;
	write_end("death", sig);
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

static void on_exit_status(int status, void *arg)
{
	(void)arg;
	write_end("exit", status & 0xff);
}

__attribute__((constructor)) static void arm(void)
{
	const char *d = getenv("CUDBG_JOB_DIR");
	if (!d || !*d || strlen(d) >= sizeof job_dir)
		return;
	memcpy(job_dir, d, strlen(d) + 1);
	on_exit(on_exit_status, NULL);
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0];
	     i++) {
		struct sigaction old, sa;
		if (sigaction(fatal_signals[i], NULL, &old) < 0 ||
		    (old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL)
			continue;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal;
		sigemptyset(&sa.sa_mask);
		sa.sa_flags = SA_RESETHAND | SA_NODEFER;
		sigaction(fatal_signals[i], &sa, NULL);
	}
}
