/* tests/sh/children.sh: a parent that starts three workers and reaps
 * them without a word; worker 1 dies of SIGSEGV (forked: argv[1]
 * "fork"), or is a shell that kills itself with SIGSEGV (exec'ed:
 * "exec").  The parent exits 1, as a launcher whose worker failed.  With
 * "clean" all three end well and the parent exits 0.  With "kill"
 * worker 1 is killed by SIGKILL, as the OOM killer kills (no handler can
 * report it: the parent's wait does); "exec-kill" the same from a shell
 * it exec'ed; "system-kill" a shell system() started (glibc waits for
 * it inside libc, past the wrapped wait calls).  A second argument
 * "raw" reaps by the raw wait4 system call, past every libc wrapper;
 * "wait" makes a parent whose worker failed wait for ever instead of
 * exiting, as a pool that waits for the lost worker's result;
 * with "thread" worker 1's main thread calls pthread_exit (status 0)
 * and the thread it started dies of SIGSEGV 0.3 s later;
 * built -static (silent_reap_static) no library can be loaded at all. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *late_crash(void *arg)
{
	(void)arg;
	usleep(300000);
	raise(SIGSEGV);
	return NULL;
}

static void worker(int i, const char *mode)
{
	if (i == 1 && strcmp(mode, "thread") == 0) {
		pthread_t t;
		pthread_create(&t, NULL, late_crash, NULL);
		pthread_exit(NULL); /* the leader ends, the process runs on */
	}
	if (i == 1 && strcmp(mode, "exec") == 0)
		execl("/bin/sh", "sh", "-c", "kill -SEGV $$", (char *)NULL);
	if (i == 1 && strcmp(mode, "exec-kill") == 0)
		execl("/bin/sh", "sh", "-c", "kill -KILL $$", (char *)NULL);
	if (i == 1 && strcmp(mode, "kill") == 0)
		raise(SIGKILL);
	if (i == 1 && strcmp(mode, "fork") == 0) {
		volatile int *p = NULL;
		*p = 1; /* MARK_CRASH */
	}
	exit(0);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "fork";
	if (strcmp(mode, "system-kill") == 0)
		return system("kill -KILL $$") != 0; /* silently */
	int raw = argc > 2 && strcmp(argv[2], "raw") == 0;
	int wait_for_ever = argc > 2 && strcmp(argv[2], "wait") == 0;
	int failed = 0;
	for (int i = 0; i < 3; i++) {
		pid_t pid = fork();
		if (pid == 0)
			worker(i, mode);
		int st;
		pid_t got = raw ? (pid_t)syscall(SYS_wait4, pid, &st, 0, NULL)
				: waitpid(pid, &st, 0);
		if (pid > 0 && got == pid &&
		    !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
			failed = 1; /* silently */
	}
	while (failed && wait_for_ever)
		pause();
	return failed;
}
