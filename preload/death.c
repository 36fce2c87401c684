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
 * A death no handler can write (SIGKILL: the OOM killer, kill -9; a
 * child without this library: a static binary, a cleared LD_PRELOAD)
 * is written by the parent that reaps it: the wait calls are wrapped,
 * and a child reaped dead of SIGKILL or of a fault signal, with no
 * death.PID of its own, gets $CUDBG_JOB_DIR/reaped.PID in the same
 * format ("PID SIGNAL PARENT-PID" and the child's command line when it
 * could be read: /proc/PID/cmdline while it lived, checked against the
 * zombie's comm, else the comm alone); a child reaped after an exit that
 * wrote no exit.PID (_exit(): multiprocessing's children) gets
 * reapexit.PID with its status.
 *
 * glibc's system() waits for its shell inside libc, past the wrapped
 * calls: system() is wrapped too.  It marks that it runs
 * ($CUDBG_JOB_DIR/system.PID); the shell it starts has this library and
 * leaves its pid beside the mark (syschild.PPID) when its constructor
 * sees its parent's; a shell that system() reports dead of SIGKILL or a
 * fault, with no death.PID of its own, gets reaped.PID ("sh -c" and the
 * command).
 *
 * Not part of the product's layers: it includes no project header and
 * links nothing; everything in the handler is async-signal-safe. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char job_dir[1024];
/* $CUDBG_JOB_EXITS=1 (--job): exits are written too (exit.PID, and
 * reapexit.PID from the parent); the default live mode reads deaths
 * only, and a file created per exit cost a fork-and-wait loop 0.5 ms a
 * child on a disk-backed /tmp (tests/bench/reaper_cost.sh). */
static bool exits_wanted;

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

/* The file at path (a /proc command line), NULs and newlines as
 * blanks, trailing blanks cut. */
static size_t put_proc_text(char *b, size_t k, size_t cap, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
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

/* /proc/PID/NAME into path[cap]. */
static void proc_path(char *path, size_t cap, long pid, const char *name)
{
	size_t p = 0;
	put_str(path, &p, cap - 1, "/proc/");
	put_num(path, &p, cap - 1, pid);
	put_str(path, &p, cap - 1, "/");
	put_str(path, &p, cap - 1, name);
	path[p] = '\0';
}

/* DIR/WHAT.PID into path[cap]; its length. */
static size_t end_path(char *path, size_t cap, const char *what, long pid)
{
	size_t p = 0;
	put_str(path, &p, cap - 1, job_dir);
	put_str(path, &p, cap - 1, "/");
	put_str(path, &p, cap - 1, what);
	put_str(path, &p, cap - 1, ".");
	put_num(path, &p, cap - 1, pid);
	path[p] = '\0';
	return p;
}

/* Writes DIR/WHAT.PID: "PID CODE PPID" and cmd (k bytes). */
static void write_end_of(const char *what, long pid, int code, long ppid,
			 const char *cmd, size_t cmd_len)
{
	char path[1100], tmp[1110], b[1024];
	size_t k = 0;
	size_t p = end_path(path, sizeof path, what, pid);
	memcpy(tmp, path, p);
	memcpy(tmp + p, ".tmp", 5);
	put_num(b, &k, sizeof b, pid);
	put_str(b, &k, sizeof b, " ");
	put_num(b, &k, sizeof b, code);
	put_str(b, &k, sizeof b, " ");
	put_num(b, &k, sizeof b, ppid);
	put_str(b, &k, sizeof b, "\n");
	for (size_t i = 0; i < cmd_len && k < sizeof b - 1; i++)
		b[k++] = cmd[i];
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

/* This process's own end. */
static void write_end(const char *what, int code)
{
	char cmd[900];
	/* this thread's view first: a leader that called pthread_exit is a
	 * zombie, and /proc/self/cmdline (the leader's) reads empty then */
	size_t n = put_proc_text(cmd, 0, sizeof cmd, "/proc/thread-self/cmdline");
	if (n == 0)
		n = put_proc_text(cmd, 0, sizeof cmd, "/proc/self/cmdline");
	write_end_of(what, (long)getpid(), code, (long)getppid(), cmd, n);
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

/* ---- deaths the parent reaps ---------------------------------------------- */

static pid_t (*real_wait4)(pid_t, int *, int, struct rusage *);
static int (*real_waitid)(idtype_t, id_t, siginfo_t *, int);

static pid_t call_wait4(pid_t pid, int *st, int opts, struct rusage *ru)
{
	if (real_wait4)
		return real_wait4(pid, st, opts, ru);
	return (pid_t)syscall(SYS_wait4, pid, st, opts, ru);
}

static int call_waitid(idtype_t idt, id_t id, siginfo_t *si, int opts)
{
	if (real_waitid)
		return real_waitid(idt, id, si, opts);
	return (int)syscall(SYS_waitid, idt, id, si, opts, NULL);
}

/* The deaths a child cannot always write itself: SIGKILL never runs a
 * handler, and the fault signals only do where this library is in the
 * child and the signal kept its default action. */
static bool reaped_worth_writing(int sig)
{
	if (sig == SIGKILL)
		return true;
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0];
	     i++)
		if (fatal_signals[i] == sig)
			return true;
	return false;
}

/* Whether a reaped child's end is one to write: a death it cannot
 * always write itself, or under --job an exit. */
static bool end_worth_writing(bool killed, int sig)
{
	return killed ? reaped_worth_writing(sig) : exits_wanted;
}

/* What the caller's wait will reap, looked at first without reaping it
 * (WNOWAIT), with the caller's own waiting: while the zombie's comm can
 * still be read.  Only a wait for exits is looked at: one that also
 * wants stops or continues would be held past them by a look for exits.
 * (A tracer's wait needs no flag for a ptrace stop, and neither does the
 * look: the kernel reports those to any wait of the tracer.) */
struct reap_peek {
	long pid;         /* the zombie seen, 0: none */
	char comm[32];    /* its comm */
	size_t comm_len;
	char cmd[900];    /* its command line, read while it lived, or "" */
	size_t cmd_len;
};

/* waitpid's pid as waitid's (idtype, id). */
static void wait_target(pid_t pid, idtype_t *idt, id_t *id)
{
	if (pid < -1) {
		*idt = P_PGID;
		*id = (id_t)-pid;
	} else if (pid == -1) {
		*idt = P_ALL;
		*id = 0;
	} else if (pid == 0) {
		*idt = P_PGID;
		*id = (id_t)getpgid(0);
	} else {
		*idt = P_PID;
		*id = (id_t)pid;
	}
}

/* -1 (errno set) when the look itself was interrupted, which the
 * caller's own call would have been too. */
static int reap_peek_before(idtype_t idt, id_t id, int opts,
			    struct reap_peek *pk)
{
	pk->pid = 0;
	pk->cmd_len = pk->comm_len = 0;
	if (!job_dir[0] || (opts & (WUNTRACED | WCONTINUED | WNOWAIT)))
		return 0;
	char path[64];
	if (idt == P_PID && !(opts & WNOHANG)) {
		/* alive now: its whole command line is still readable */
		proc_path(path, sizeof path, (long)id, "cmdline");
		pk->cmd_len = put_proc_text(pk->cmd, 0, sizeof pk->cmd, path);
	}
	siginfo_t si;
	memset(&si, 0, sizeof si);
	int look = WEXITED | WNOWAIT |
		   (opts & (WNOHANG | __WALL | __WCLONE | __WNOTHREAD));
	if (call_waitid(idt, id, &si, look) < 0)
		return errno == EINTR ? -1 : 0;
	bool killed = si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED;
	if (si.si_pid <= 0 || (!killed && si.si_code != CLD_EXITED) ||
	    !end_worth_writing(killed, si.si_status))
		return 0; /* (its comm is read only for an end to write) */
	pk->pid = (long)si.si_pid;
	proc_path(path, sizeof path, pk->pid, "comm");
	pk->comm_len = put_proc_text(pk->comm, 0, sizeof pk->comm - 1, path);
	return 0;
}

/* Whether the word at w[0..n) names the program comm names: comm is
 * the file name the process last exec'd, cut at 15 bytes. */
static bool word_is_comm(const char *w, size_t n, const char *comm,
			 size_t comm_len)
{
	size_t base = 0;
	for (size_t i = 0; i < n; i++)
		if (w[i] == '/')
			base = i + 1;
	return comm_len > 0 && n - base >= comm_len &&
	       memcmp(w + base, comm, comm_len) == 0;
}

/* The command line read while the child lived is its own when its
 * first or second word (an interpreter's script) names the zombie's
 * comm; else it was read before an exec (a parent that waits at once)
 * or a thread renamed it, and the comm alone is said. */
static bool cmd_matches_comm(const struct reap_peek *pk)
{
	const char *c = pk->cmd, *end = pk->cmd + pk->cmd_len;
	for (int word = 0; word < 2 && c < end; word++) {
		const char *sp = memchr(c, ' ', (size_t)(end - c));
		size_t n = sp ? (size_t)(sp - c) : (size_t)(end - c);
		if (word_is_comm(c, n, pk->comm, pk->comm_len))
			return true;
		c += n + 1;
	}
	return false;
}

/* A child's end as its parent saw it: reaped.PID for a death
 * (killed), reapexit.PID for an exit, unless the child wrote its own
 * (death.PID, exit.PID) as it ended. */
static void write_reaped(bool killed, long pid, int code, const char *cmd,
			 size_t n)
{
	char own[1100];
	end_path(own, sizeof own, killed ? "death" : "exit", pid);
	if (access(own, F_OK) == 0)
		return; /* its own report, written as it ended */
	write_end_of(killed ? "reaped" : "reapexit", pid, code, (long)getpid(),
		     cmd, n);
}

/* After the caller's wait: pid reaped with status st; writes its end
 * when it wrote none itself: reaped.PID for a death (SIGKILL, a fault),
 * under --job reapexit.PID for an exit (one by _exit():
 * multiprocessing's children end so, and exit.PID is written by exit()
 * only).  The command: the one read while it lived, checked against the
 * zombie's comm, else the comm alone; none where the look did not see it
 * (another thread reaped first). */
static void reap_write_after(const struct reap_peek *pk, long pid, int st)
{
	bool killed = WIFSIGNALED(st);
	if (!job_dir[0] || (!killed && !WIFEXITED(st)) ||
	    !end_worth_writing(killed, killed ? WTERMSIG(st) : 0))
		return;
	const char *cmd = "";
	size_t n = 0;
	if (pk->pid == pid && pk->cmd_len && cmd_matches_comm(pk)) {
		cmd = pk->cmd;
		n = pk->cmd_len;
	} else if (pk->pid == pid) {
		cmd = pk->comm;
		n = pk->comm_len;
	}
	write_reaped(killed, pid, killed ? WTERMSIG(st) : WEXITSTATUS(st), cmd,
		     n);
}

static pid_t wait4_watched(pid_t pid, int *st, int opts, struct rusage *ru)
{
	int saved = errno;
	idtype_t idt;
	id_t id;
	struct reap_peek pk;
	wait_target(pid, &idt, &id);
	if (reap_peek_before(idt, id, opts, &pk) < 0)
		return -1;
	errno = saved;
	int status = 0;
	pid_t r = call_wait4(pid, &status, opts, ru);
	if (r > 0) {
		int e = errno;
		reap_write_after(&pk, (long)r, status);
		errno = e;
		if (st)
			*st = status;
	}
	return r;
}

pid_t waitpid(pid_t pid, int *st, int opts)
{
	return wait4_watched(pid, st, opts, NULL);
}

pid_t wait(int *st)
{
	return wait4_watched(-1, st, 0, NULL);
}

pid_t wait3(int *st, int opts, struct rusage *ru)
{
	return wait4_watched(-1, st, opts, ru);
}

pid_t wait4(pid_t pid, int *st, int opts, struct rusage *ru)
{
	return wait4_watched(pid, st, opts, ru);
}

int waitid(idtype_t idt, id_t id, siginfo_t *si, int opts)
{
	int saved = errno;
	struct reap_peek pk = { 0 };
	if ((opts & WEXITED) && reap_peek_before(idt, id, opts, &pk) < 0)
		return -1;
	errno = saved;
	int r = call_waitid(idt, id, si, opts);
	/* (WNOWAIT reaps nothing: the wait that reaps it writes it) */
	if (r == 0 && si && si->si_pid > 0 && !(opts & WNOWAIT) &&
	    (si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED ||
	     si->si_code == CLD_EXITED)) {
		int e = errno;
		/* as a wait status: exited with si_status, or signalled */
		reap_write_after(&pk, (long)si->si_pid,
				 si->si_code == CLD_EXITED
					 ? (si->si_status & 0xff) << 8
					 : si->si_status & 0x7f);
		errno = e;
	}
	return r;
}

/* ---- system() ------------------------------------------------------------ */

static int (*real_system)(const char *);

/* A pid written alone in a small file, else 0. */
static long read_pid_file(const char *path)
{
	char b[32];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, b, sizeof b - 1);
	close(fd);
	if (n <= 0)
		return 0;
	b[n] = '\0';
	long v = 0;
	for (ssize_t i = 0; i < n && b[i] >= '0' && b[i] <= '9'; i++)
		v = v * 10 + (b[i] - '0');
	return v;
}

/* After system() said its shell died of sig: the shell's death, unless
 * it wrote its own.  (Two threads in system() at once share the mark:
 * the pid is the last shell's.) */
static void system_write_death(const char *child_path, int sig,
			       const char *cmd)
{
	long pid = read_pid_file(child_path);
	char c[900];
	size_t k = 0;
	if (pid <= 0)
		return;
	put_str(c, &k, sizeof c, "sh -c ");
	put_str(c, &k, sizeof c, cmd);
	for (size_t i = 0; i < k; i++) /* one line in the file */
		if (c[i] == '\n' || c[i] == '\r')
			c[i] = ' ';
	write_reaped(true, pid, sig, c, k);
}

int system(const char *cmd)
{
	if (!real_system) {
		errno = ENOSYS;
		return -1;
	}
	if (!job_dir[0] || !cmd)
		return real_system(cmd);
	char mark[1100], child[1100];
	end_path(mark, sizeof mark, "system", (long)getpid());
	end_path(child, sizeof child, "syschild", (long)getpid());
	int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	int st = real_system(cmd);
	int e = errno;
	if (st != -1 && WIFSIGNALED(st) && reaped_worth_writing(WTERMSIG(st)))
		system_write_death(child, WTERMSIG(st), cmd);
	unlink(child);
	unlink(mark);
	errno = e;
	return st;
}

/* A shell system() started: its pid beside its parent's mark. */
static void note_if_system_child(void)
{
	char mark[1100], child[1100], b[32];
	size_t k = 0;
	long ppid = (long)getppid();
	end_path(mark, sizeof mark, "system", ppid);
	if (access(mark, F_OK) != 0)
		return;
	end_path(child, sizeof child, "syschild", ppid);
	put_num(b, &k, sizeof b, (long)getpid());
	int fd = open(child, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (write(fd, b, k) < 0) { /* nothing to do: unseen as before */
		}
		close(fd);
	}
}

__attribute__((constructor)) static void arm(void)
{
	/* before anything can call a wait, and never from a handler:
	 * dlsym is not async-signal-safe */
	void *w4 = dlsym(RTLD_NEXT, "wait4"), *wid = dlsym(RTLD_NEXT, "waitid");
	/* (a data pointer to a function pointer: POSIX's way, copied) */
	if (w4)
		memcpy(&real_wait4, &w4, sizeof w4);
	if (wid)
		memcpy(&real_waitid, &wid, sizeof wid);
	void *sys = dlsym(RTLD_NEXT, "system");
	if (sys)
		memcpy(&real_system, &sys, sizeof sys);
	const char *d = getenv("CUDBG_JOB_DIR");
	if (!d || !*d || strlen(d) >= sizeof job_dir)
		return;
	memcpy(job_dir, d, strlen(d) + 1);
	const char *ex = getenv("CUDBG_JOB_EXITS");
	exits_wanted = ex && strcmp(ex, "1") == 0;
	note_if_system_child();
	if (exits_wanted)
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
