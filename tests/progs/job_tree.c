/* A job of many processes for the --job and --core-dir tests (no GPU):
 * a launcher forks and execs N workers, each with RANK and LOCAL_RANK in
 * its environment, as torchrun does; the workers named FAULTY write
 * through a null pointer (SIGSEGV) one after another while the others
 * run on.
 *
 *   job_tree N FAULTY [orphan]     FAULTY: comma-separated ranks, or -
 *
 * "orphan": the launcher exits right after starting its workers (they are
 * re-parented, and their exit statuses go to whoever reaps orphans).
 * Otherwise it waits for them and exits 1 when one failed.
 *
 * Standing in for the CUDA driver: with CUDA_ENABLE_COREDUMP_ON_EXCEPTION=1
 * a faulting worker gets a coredump written at its fault, named by
 * CUDA_COREDUMP_FILE (%p its pid, %h the host, %t the time), as the driver
 * does for a GPU exception.  A gdb attached to the worker before the
 * fault writes it (gcore) at the SIGSEGV stop and then lets the signal
 * kill the worker, so the core holds the faulting line and the worker
 * dies of SIGSEGV like an unhandled fault.  JOB_TREE_NO_CORE=1 turns that
 * off (a CPU fault that leaves no coredump). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* CUDA_COREDUMP_FILE with %p, %h and %t replaced. */
static void core_path(const char *pattern, char *out, size_t cap)
{
	size_t k = 0;
	char host[256] = "host";
	gethostname(host, sizeof host - 1);
	for (const char *p = pattern; *p && k + 32 < cap; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			k += (size_t)snprintf(out + k, cap - k, "%ld", (long)getpid());
			p++;
		} else if (p[0] == '%' && p[1] == 'h') {
			k += (size_t)snprintf(out + k, cap - k, "%.100s", host);
			p++;
		} else if (p[0] == '%' && p[1] == 't') {
			k += (size_t)snprintf(out + k, cap - k, "%ld", (long)time(NULL));
			p++;
		} else {
			out[k++] = *p;
		}
	}
	out[k] = '\0';
}

static int traced(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	int pid = 0;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "TracerPid: %d", &pid) == 1)
			break;
	if (f)
		fclose(f);
	return pid != 0;
}

/* The driver's part: a gdb waits at our fault to write the coredump. */
static void arm_coredump(void)
{
	const char *on = getenv("CUDA_ENABLE_COREDUMP_ON_EXCEPTION");
	const char *pattern = getenv("CUDA_COREDUMP_FILE");
	const char *off = getenv("JOB_TREE_NO_CORE");
	if (!on || strcmp(on, "1") != 0 || !pattern || (off && *off))
		return;
	char path[4096], gcore[4200], pid[32];
	core_path(pattern, path, sizeof path);
	snprintf(gcore, sizeof gcore, "gcore %s", path);
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY);
	if (fork() == 0) {
		/* the driver writes no chatter on the program's terminal */
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		dup2(null, 2);
		execlp("gdb", "gdb", "-nx", "-batch", "-p", pid, "-ex", "continue",
		       "-ex", gcore, "-ex", "signal SIGSEGV", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 1000 && !traced(); i++)
		sleep_ms(10);
}

static int in_list(const char *list, int rank)
{
	int order = 0;
	for (const char *p = list; *p;) {
		char *end;
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		if (v == rank)
			return order;
		order++;
		p = *end == ',' ? end + 1 : end;
	}
	return -1;
}

/* The faulting line the tests look for. */
static void worker_fault(int rank)
{
	volatile int *table = NULL;
	table[rank] = rank; /* job_tree: the null write */
}

/* A number from the environment, or dflt. */
static long env_ms(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? atol(v) : dflt;
}

/* JOB_TREE_RUN_MS: how long the others run (default 1500 ms);
 * JOB_TREE_STAGGER_MS: the time between two faults (default 600 ms). */
static int worker(int rank, const char *faulty)
{
	int order = in_list(faulty, rank);
	if (order < 0) {
		sleep_ms(env_ms("JOB_TREE_RUN_MS", 1500)); /* runs on past the fault */
		printf("worker %d done\n", rank);
		return 0;
	}
	sleep_ms(100 + env_ms("JOB_TREE_STAGGER_MS", 600) * order);
	arm_coredump();
	worker_fault(rank);
	return 3;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "worker") == 0)
		return worker(atoi(argv[2]), argv[3]);
	if (argc < 3) {
		fprintf(stderr, "usage: job_tree N FAULTY [orphan]\n");
		return 2;
	}
	int n = atoi(argv[1]);
	int orphan = argc > 3 && strcmp(argv[3], "orphan") == 0;
	for (int r = 0; r < n; r++) {
		pid_t pid = fork();
		if (pid == 0) {
			char rank[16];
			snprintf(rank, sizeof rank, "%d", r);
			setenv("RANK", rank, 1);
			setenv("LOCAL_RANK", rank, 1);
			execl("/proc/self/exe", "job_tree", "worker", rank, argv[2],
			      (char *)NULL);
			_exit(127);
		}
	}
	if (orphan)
		return 0;
	/* what torch.multiprocessing.spawn says of a worker that died */
	int failed = 0, st;
	pid_t pid;
	while ((pid = wait(&st)) > 0) {
		if (WIFSIGNALED(st))
			fprintf(stderr, "process (pid %ld) terminated with signal "
				"SIG%s\n", (long)pid, sigabbrev_np(WTERMSIG(st)));
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	return failed;
}
