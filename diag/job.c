/* The fault-first job run: one run of the whole process tree with
 * coredumps on exception, then the table of its processes.  See
 * include/cudbg/job.h and docs/multiprocess.md.
 *
 * Why a keeper process: /proc shows every descendant while it lives, but
 * a process's exit status goes only to its parent.  The keeper is a child
 * subreaper (PR_SET_CHILD_SUBREAPER): the command is its child, and every
 * process orphaned in the tree (a worker whose launcher died first, a
 * daemonised helper) is re-parented to it, so it reaps them all and tells
 * us each status over a pipe.  A worker reaped by its own live parent
 * (mp.spawn's parent, torchrun's agent) is caught as a zombie by the
 * /proc poll (field 52 of /proc/PID/stat holds its wait status) when the
 * poll sees it; otherwise it is JOB_ENDED.  Which process faulted does not
 * depend on that: the driver names each GPU coredump with the faulting
 * process's pid (CUDA_COREDUMP_FILE=DIR/core.%p). */
#include "cudbg/base.h"
#include "cudbg/hints.h"
#include "cudbg/job.h"
#include "cudbg/procev.h"
#include "cudbg/session.h"
#include "diag/internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define POLL_MS JOB_POLL_MS   /* /proc and core directory poll period */
#define DEFAULT_GRACE_MS 10000
#define KILL_AFTER_MS 3000    /* SIGTERM, then SIGKILL this much later */
#define MAX_PROCS 4096

struct run {
	struct job *j;
	const struct job_config *cfg;
	pid_t keeper;
	int status_fd;        /* the keeper's "PID STATUS" lines */
	char line[128];
	size_t linelen;
	int err_fd;           /* the job's stderr, passed on to ours; -1 */
	char eline[1024];     /* its current line (the head of a longer one) */
	size_t elen;
	struct job_death deaths[64]; /* what launchers said of their workers */
	size_t ndeaths;
	struct job_tb_state *tb; /* the ranks' tracebacks in progress, NULL */
	bool keeper_done;
	double t0;
	double fault_end;     /* when the first faulting process ended, 0 */
	double kill_at;       /* when the rest get SIGTERM, 0 none yet */
	int kill_stage;       /* 0 none, 1 SIGTERM sent, 2 SIGKILL sent */
	double term_sent;
	char exec_err[256];
	int ev_fd;            /* the kernel's process events; -1 none */
	bool ev_ours;         /* their pids are ours: the keeper's fork seen */
};

/* The clock of the kernel's process events' timestamps. */
static unsigned long long mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

static double now_s(void)
{
	return (double)mono_ns() / 1e9;
}

static void proc_clear(struct job_proc *p)
{
	for (size_t i = 0; i < p->npy; i++) {
		free(p->py[i].file);
		free(p->py[i].func);
	}
	free(p->py);
	free(p->cmdline);
	free(p->exe);
	free(p->rank);
	free(p->local_rank);
	free(p->core);
}

/* The private directory: the coredumps, the Python stacks, our
 * sitecustomize.py and the __pycache__ Python made beside it (depth 2). */
static void remove_dir(const char *dir)
{
	diag_remove_dir(dir, 1);
}

void job_free(struct job *j)
{
	if (!j)
		return;
	for (size_t i = 0; i < j->nprocs; i++)
		proc_clear(&j->procs[i]);
	free(j->procs);
	if (j->own_dir && j->core_dir)
		remove_dir(j->core_dir);
	free(j->core_dir);
	free(j->command);
	free(j->process_events_off);
	free(j);
}

const struct job_proc *job_faulting(const struct job *j)
{
	return j && j->faulting >= 0 && (size_t)j->faulting < j->nprocs
		       ? &j->procs[j->faulting]
		       : NULL;
}

const char *job_state_text(const struct job_proc *p, char *buf, size_t cap)
{
	switch (p->state) {
	case JOB_RUNNING:
		return "running";
	case JOB_EXITED:
		if (p->death_from_report && p->death_by)
			snprintf(buf, cap, "exited %d (%s)", p->status, p->death_by);
		else
			snprintf(buf, cap, "exited %d", p->status);
		return buf;
	case JOB_SIGNALLED: {
		char sig[24];
		const char *how = p->killed_by_us ? "stopped by us with"
						  : "killed by";
		const char *by = p->death_from_report && p->death_by
					 ? p->death_by : NULL;
		if (diag_signal_name(p->status, sig, sizeof sig))
			snprintf(buf, cap, "%s %s%s%s%s", how, sig,
				 by ? " (" : "", by ? by : "", by ? ")" : "");
		else
			snprintf(buf, cap, "%s signal %d%s%s%s", how, p->status,
				 by ? " (" : "", by ? by : "", by ? ")" : "");
		return buf;
	}
	case JOB_ENDED:
		return "ended, status unseen";
	case JOB_UNKNOWN:
		break;
	}
	return "unknown";
}

/* ---- the table ---- */

static struct job_proc *find_proc(struct job *j, long pid)
{
	for (size_t i = 0; i < j->nprocs; i++)
		if (j->procs[i].pid == pid)
			return &j->procs[i];
	return NULL;
}

static struct job_proc *add_proc(struct job *j, long pid, double seen)
{
	if (j->nprocs >= MAX_PROCS)
		return NULL;
	struct job_proc *np = realloc(j->procs, (j->nprocs + 1) * sizeof *np);
	if (!np)
		return NULL;
	j->procs = np;
	struct job_proc *p = &np[j->nprocs++];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->seen_s = seen;
	p->py_user = -1;
	return p;
}

static bool fault_signal(int sig)
{
	return sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	       sig == SIGFPE || sig == SIGABRT;
}

/* The process's end from its wait status (the keeper's wait, a zombie
 * read in /proc) or, with `from_events`, a thread's end heard in the
 * kernel's events.  The kernel's word replaces the process's own report
 * of it; a wait's replaces a thread's (a process ends with its last
 * thread: a main() that called pthread_exit ends its thread with status
 * 0 while the others run on), and a later thread's an earlier's. */
static void set_status(struct job_proc *p, int st, double t, bool from_events)
{
	if ((p->state == JOB_EXITED || p->state == JOB_SIGNALLED) &&
	    !p->death_from_report && !p->status_from_events)
		return;
	p->death_from_report = false;
	p->death_by = NULL;
	p->status_from_events = from_events;
	if (WIFEXITED(st)) {
		p->state = JOB_EXITED;
		p->status = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		p->state = JOB_SIGNALLED;
		p->status = WTERMSIG(st);
	} else {
		return;
	}
	if (!p->end_s || from_events)
		p->end_s = t;
}

static void set_wait_status(struct job_proc *p, int st, double t)
{
	set_status(p, st, t, false);
}

/* What /proc/PID holds that the table wants: read once when first seen
 * and again after an exec (the command line changed). */
/* Our own command line: a job process still showing it is a fork of
 * ours (the keeper, the leader) that has not exec'd yet, and would be
 * listed as "cudbg-tui --job ..." if it then ended before the next poll.
 * Read once; NULL when it cannot be. */
static const char *own_cmdline(void)
{
	static char *own;
	static bool read;
	if (!read) {
		read = true;
		size_t len;
		char *cmd = diag_read_small_file("/proc/self/cmdline", 16384, &len);
		if (cmd && len > 0)
			own = job_join_cmdline(cmd, len);
		free(cmd);
	}
	return own;
}

/* /proc/PID/NAME; where that reads empty (a leader thread that called
 * pthread_exit is a zombie whose memory the kernel no longer shows while
 * the other threads run), the same file of another of its threads.
 * malloc'd, or NULL. */
static char *read_process_file(long pid, const char *name, size_t cap,
			       size_t *len)
{
	char path[96];
	snprintf(path, sizeof path, "/proc/%ld/%s", pid, name);
	char *s = diag_read_small_file(path, cap, len);
	if (s && *len > 0)
		return s;
	free(s);
	snprintf(path, sizeof path, "/proc/%ld/task", pid);
	DIR *dir = opendir(path);
	struct dirent *de;
	s = NULL;
	while (dir && !s && (de = readdir(dir))) {
		long tid = strtol(de->d_name, NULL, 10);
		if (tid <= 0 || tid == pid)
			continue;
		snprintf(path, sizeof path, "/proc/%ld/task/%ld/%s", pid, tid,
			 name);
		s = diag_read_small_file(path, cap, len);
		if (s && *len == 0) {
			free(s);
			s = NULL;
		}
	}
	if (dir)
		closedir(dir);
	return s;
}

char *job_read_cmdline(long pid)
{
	size_t len;
	char *raw = read_process_file(pid, "cmdline", 16384, &len);
	char *joined = raw ? job_join_cmdline(raw, len) : NULL;
	free(raw);
	return joined;
}

static void read_identity(struct job_proc *p)
{
	char path[64];
	size_t len;
	/* the time before the read: an exec after it cannot be in what was
	 * read (the time after could be, on a slow run: valgrind's) */
	unsigned long long before_read = mono_ns();
	char *joined = job_read_cmdline(p->pid);
	if (joined) {
		const char *own = own_cmdline();
		if (joined && own && strcmp(joined, own) == 0) {
			free(joined); /* not exec'd yet: nothing of its own */
			joined = NULL;
		}
		bool changed = joined && (!p->cmdline ||
					  strcmp(joined, p->cmdline) != 0);
		if (joined)
			p->cmd_read_ns = before_read;
		if (changed) {
			free(p->cmdline);
			p->cmdline = joined;
			p->cmd_inherited = false;
			joined = NULL;
			char *env = read_process_file(p->pid, "environ",
						      1 << 20, &len);
			if (env)
				job_parse_environ(env, len, p);
			free(env);
			char exe[PATH_MAX];
			snprintf(path, sizeof path, "/proc/%ld/exe", p->pid);
			ssize_t n = readlink(path, exe, sizeof exe - 1);
			if (n > 0) {
				exe[n] = '\0';
				diag_strset(&p->exe, exe);
			}
		}
		free(joined);
	}
}

struct pidpair {
	long pid, ppid;
	struct job_stat st;
};

static int read_stat(long pid, struct job_stat *st)
{
	char path[64], buf[1024];
	snprintf(path, sizeof path, "/proc/%ld/stat", pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof buf);
	close(fd);
	if (n <= 0)
		return -1;
	return job_parse_stat(buf, (size_t)n, st);
}

/* Every process of the system with its parent. */
static struct pidpair *scan_all(size_t *n)
{
	*n = 0;
	DIR *d = opendir("/proc");
	if (!d)
		return NULL;
	size_t cap = 256;
	struct pidpair *v = malloc(cap * sizeof *v);
	struct dirent *de;
	while (v && (de = readdir(d))) {
		char *e;
		long pid = strtol(de->d_name, &e, 10);
		if (*e || pid <= 0)
			continue;
		struct job_stat st;
		if (read_stat(pid, &st) < 0)
			continue;
		if (*n == cap) {
			struct pidpair *nv = realloc(v, cap * 2 * sizeof *v);
			if (!nv)
				break;
			v = nv;
			cap *= 2;
		}
		v[*n].pid = pid;
		v[*n].ppid = st.ppid;
		v[*n].st = st;
		(*n)++;
	}
	closedir(d);
	return v;
}

static bool in_set(const long *set, size_t n, long pid)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] == pid)
			return true;
	return false;
}

/* One poll of /proc: every descendant of the keeper joins the table;
 * zombies give their wait status; known processes that are gone without
 * a status are JOB_ENDED. */
static void poll_procs(struct run *r)
{
	size_t n;
	struct pidpair *all = scan_all(&n);
	if (!all)
		return;
	double t = now_s() - r->t0;
	long *desc = malloc((n + 1) * sizeof *desc);
	size_t nd = 0;
	if (desc) {
		desc[nd++] = r->keeper;
		bool grew = true;
		while (grew) {
			grew = false;
			for (size_t i = 0; i < n; i++)
				if (!in_set(desc, nd, all[i].pid) &&
				    in_set(desc, nd, all[i].ppid)) {
					desc[nd++] = all[i].pid;
					grew = true;
				}
		}
	}
	for (size_t i = 0; desc && i < n; i++) {
		if (all[i].pid == r->keeper || !in_set(desc, nd, all[i].pid))
			continue;
		struct job_proc *p = find_proc(r->j, all[i].pid);
		if (!p && !(p = add_proc(r->j, all[i].pid, t)))
			continue;
		/* an orphan re-parented to the keeper keeps the parent it
		 * was first seen with; the keeper itself is shown as 0 */
		if (all[i].ppid != r->keeper)
			p->ppid = all[i].ppid;
		if (!p->start)
			p->start = all[i].st.starttime;
		if (all[i].st.state == 'Z' && all[i].st.threads <= 1) {
			if (all[i].st.exit_code >= 0)
				set_wait_status(p, all[i].st.exit_code, t);
		} else if (p->state == JOB_RUNNING) {
			read_identity(p);
		}
	}
	for (size_t i = 0; i < r->j->nprocs; i++) {
		struct job_proc *p = &r->j->procs[i];
		bool live = false;
		for (size_t k = 0; k < n && !live; k++)
			live = all[k].pid == p->pid &&
			       (all[k].st.state != 'Z' || all[k].st.threads > 1);
		if (!live && p->state == JOB_RUNNING) {
			p->state = JOB_ENDED;
			p->end_s = t;
		}
	}
	free(desc);
	free(all);
}

/* A driver's coredump in the job directory (our CUDA_COREDUMP_FILE
 * pattern): its name says which process wrote it. */
static void take_core(struct run *r, const char *name)
{
	long pid = job_core_pid(name);
	if (pid <= 0)
		return;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", r->j->core_dir, name);
	struct stat sb;
	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode))
		return;
	struct job_proc *p = find_proc(r->j, pid);
	if (!p && !(p = add_proc(r->j, pid, now_s() - r->t0)))
		return;
	if (!p->core)
		diag_strset(&p->core, path);
	p->core_time = (double)sb.st_mtim.tv_sec +
		       (double)sb.st_mtim.tv_nsec / 1e9;
	p->faulted = true;
}

static void read_status_lines(struct run *r)
{
	char buf[512];
	ssize_t n = read(r->status_fd, buf, sizeof buf);
	if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
		r->keeper_done = true;
		return;
	}
	double t = now_s() - r->t0;
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (r->linelen < sizeof r->line - 1)
				r->line[r->linelen++] = buf[i];
			continue;
		}
		r->line[r->linelen] = '\0';
		r->linelen = 0;
		long pid;
		int st;
		if (sscanf(r->line, "L %ld", &pid) == 1) {
			r->j->leader = pid;
			if (!find_proc(r->j, pid))
				add_proc(r->j, pid, t);
			continue;
		}
		if (sscanf(r->line, "X %d", &st) == 1) {
			snprintf(r->exec_err, sizeof r->exec_err, "%s",
				 strerror(st));
			continue;
		}
		if (sscanf(r->line, "%ld %d", &pid, &st) != 2)
			continue;
		struct job_proc *p = find_proc(r->j, pid);
		if (!p)
			p = add_proc(r->j, pid, t);
		if (p)
			set_wait_status(p, st, t);
	}
}

/* ---- the keeper (a forked child; only async-signal-safe calls after
 * the fork, plus setenv before the command's own fork) ---- */

static void put_num(char *b, size_t *k, long v)
{
	char tmp[24];
	int n = 0;
	if (v < 0) {
		b[(*k)++] = '-';
		v = -v;
	}
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v && n < 20);
	while (n)
		b[(*k)++] = tmp[--n];
}

static void keeper_report(int fd, long pid, int st)
{
	char b[64];
	size_t k = 0;
	put_num(b, &k, pid);
	b[k++] = ' ';
	put_num(b, &k, st);
	b[k++] = '\n';
	(void)!write(fd, b, k);
}

static void setenv_default(const char *name, const char *value)
{
	const char *old = getenv(name);
	if (!old || !*old)
		setenv(name, value, 1);
}

static void job_environment(const struct job_config *cfg, const char *dir)
{
	char pattern[PATH_MAX];
	snprintf(pattern, sizeof pattern, "%s/core.%%p.nvcudmp", dir);
	/* ours, whatever the user had: the table depends on them */
	setenv("CUDA_ENABLE_COREDUMP_ON_EXCEPTION", "1", 1);
	setenv("CUDA_COREDUMP_FILE", pattern, 1);
	/* the user's choice wins for these two.  No generation flags of
	 * ours by default: with skip_global_memory,skip_shared_memory the
	 * driver wrote cores under 1 MB that cuda-gdb 13.0 aborted on
	 * (SIGABRT in `target cudacore`; mp_spawn, mp_torchrun and
	 * mp_dataloader_main on the H200, run 2, docs/multiprocess.md). */
	if (cfg->core_flags)
		setenv_default("CUDA_COREDUMP_GENERATION_FLAGS", cfg->core_flags);
	setenv_default("CUDA_LAUNCH_BLOCKING", "1");
	/* Hydra's whole traceback, not its last frame (mi/session_start.c) */
	setenv_default("HYDRA_FULL_ERROR", "1");
	/* Open MPI catches SIGABRT, SIGBUS, SIGFPE and SIGSEGV by default
	 * (its MCA parameter opal_signal, "6,7,8,11") when MPI starts, after
	 * our sitecustomize armed faulthandler, and its handler does not
	 * chain: the driver's abort after the coredump then left no Python
	 * stack (mp_mpi, run 6).  Without 6 faulthandler keeps SIGABRT; Open
	 * MPI still prints its trace for the other three.  Only when the
	 * user chose nothing (docs/multiprocess.md). */
	setenv_default("OMPI_MCA_opal_signal", "7,8,11");
	/* Python processes load our sitecustomize.py (docs/multiprocess.md):
	 * a fatal signal makes each print its Python stack to its own file */
	const char *pp = getenv("PYTHONPATH");
	char path[PATH_MAX * 2];
	snprintf(path, sizeof path, "%s%s%s", dir, pp && *pp ? ":" : "",
		 pp && *pp ? pp : "");
	setenv("PYTHONPATH", path, 1);
	setenv("CUDBG_JOB_DIR", dir, 1);
	/* the job's table names every process's end; the default live
	 * mode reads deaths only, and writes no exits (preload/death.c) */
	setenv("CUDBG_JOB_EXITS", "1", 1);
	/* Every process writes its own death to DIR/death.PID when a fatal
	 * signal ends it (preload/death.c): seen even when its parent reaps
	 * it at once (issue 29 item 6).  The user's preloads stay, after. */
	char lib[PATH_MAX];
	if (diag_death_reporter(lib, sizeof lib)) {
		const char *pre = getenv("LD_PRELOAD");
		snprintf(path, sizeof path, "%s%s%s", lib, pre && *pre ? " " : "",
			 pre && *pre ? pre : "");
		setenv("LD_PRELOAD", path, 1);
	}
}

/* errw: the write end of the pipe that carries the job's stderr to us
 * (the job's fd 2), -1 for none. */
static _Noreturn void keeper_main(char *const argv[], const struct job_config *cfg,
				  const char *dir, int wfd, int errw)
{
	setpgid(0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/* Our own death ends the keeper; the job is then stopped by the
	 * parent's process-group kill or runs on as it would alone. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGTERM, SIG_IGN); /* the group kill is for the job */
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	job_environment(cfg, dir);
	pid_t leader = fork();
	if (leader < 0)
		_exit(126);
	if (leader == 0) {
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (errw >= 0)
			dup2(errw, 2);
		if (cfg->stdout_to_stderr)
			dup2(2, 1);
		execvp(argv[0], argv);
		char b[32];
		size_t k = 0;
		b[k++] = 'X';
		b[k++] = ' ';
		put_num(b, &k, errno);
		b[k++] = '\n';
		(void)!write(wfd, b, k);
		_exit(127);
	}
	if (errw >= 0)
		close(errw);
	char b[32];
	size_t k = 0;
	b[k++] = 'L';
	b[k++] = ' ';
	put_num(b, &k, leader);
	b[k++] = '\n';
	(void)!write(wfd, b, k);
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, 0);
		if (pid < 0 && errno == EINTR)
			continue;
		if (pid < 0)
			break;
		keeper_report(wfd, pid, st);
	}
	_exit(0);
}

/* ---- the run ---- */

static int make_dir(struct job *j, const struct job_config *cfg, char *err,
		    size_t cap)
{
	if (cfg->core_dir) {
		if (mkdir(cfg->core_dir, 0700) < 0 && errno != EEXIST) {
			snprintf(err, cap, "cannot make the core directory "
				 "%s: %s", cfg->core_dir, strerror(errno));
			return -1;
		}
		j->core_dir = diag_strdup(cfg->core_dir);
		return j->core_dir ? 0 : -1;
	}
	const char *tmp = getenv("TMPDIR");
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/cudbg-job-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(path)) { /* mode 0700 */
		snprintf(err, cap, "cannot make a temporary directory in %s: "
			 "%s (set TMPDIR)", tmp && *tmp ? tmp : "/tmp",
			 strerror(errno));
		return -1;
	}
	j->core_dir = diag_strdup(path);
	j->own_dir = !cfg->keep_dir;
	return j->core_dir ? 0 : -1;
}

/* Every Python process of the job imports this first (PYTHONPATH): it
 * points faulthandler at DIR/pystack.PID, so a process the driver aborts
 * after its GPU coredump (SIGABRT) leaves its Python stack, the line that
 * launched the kernel among it (CUDA_LAUNCH_BLOCKING=1), in a file of its
 * own; a forked child reopens its own.  Where SIGTERM has its default
 * action it also dumps the stack at SIGTERM to DIR/pystack.PID.term and
 * then dies of it as before (chain): a rank that waited in a collective
 * for the failed one, stopped by its launcher or by our grace stop, tells
 * where it waited.  A SIGTERM the program ignores or handles is left
 * alone.  Then it runs the sitecustomize it hides, if any (Debian and
 * Ubuntu ship one). */
static const char sitecustomize[] =
"# Written by cudbg-tui --job (docs/multiprocess.md); removed with the job.\n"
"import os as _os\n"
"import faulthandler as _fh\n"
"\n"
"def _cudbg_open():\n"
"    try:\n"
"        _d = _os.environ.get('CUDBG_JOB_DIR')\n"
"        if _d:\n"
"            _f = open(_os.path.join(_d, 'pystack.%d' % _os.getpid()), 'w')\n"
"            _fh.enable(file=_f, all_threads=True)\n"
"            globals()['_cudbg_file'] = _f\n"
"            import signal as _sig\n"
"            if _sig.getsignal(_sig.SIGTERM) == _sig.SIG_DFL:\n"
"                _t = open(_os.path.join(_d, 'pystack.%d.term' % _os.getpid()), 'w')\n"
"                _fh.register(_sig.SIGTERM, file=_t, all_threads=True, chain=True)\n"
"                globals()['_cudbg_term'] = _t\n"
"    except Exception:\n"
"        pass\n"
"\n"
"_cudbg_open()\n"
"try:\n"
"    _os.register_at_fork(after_in_child=_cudbg_open)\n"
"except Exception:\n"
"    pass\n"
"\n"
"def _cudbg_chain():\n"
"    import sys, importlib.util\n"
"    here = _os.path.dirname(_os.path.abspath(__file__))\n"
"    for p in sys.path:\n"
"        if _os.path.abspath(p or '.') == here:\n"
"            continue\n"
"        c = _os.path.join(p or '.', 'sitecustomize.py')\n"
"        if _os.path.isfile(c):\n"
"            s = importlib.util.spec_from_file_location('_cudbg_next_sitecustomize', c)\n"
"            m = importlib.util.module_from_spec(s)\n"
"            s.loader.exec_module(m)\n"
"            return\n"
"\n"
"try:\n"
"    _cudbg_chain()\n"
"except Exception:\n"
"    pass\n";

static int write_sitecustomize(const char *dir, char *err, size_t cap)
{
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/sitecustomize.py", dir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(sitecustomize, f) < 0 || fclose(f) != 0) {
		snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A process that lived between two polls and died of a fatal signal is
 * known only by the report it left (pystack.PID, not empty): it joins the
 * table, state unknown until its report is read. */
static void add_reported(struct job *j)
{
	DIR *d = opendir(j->core_dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		pid_t pid;
		if (strncmp(de->d_name, "pystack.", 8) != 0 ||
		    !proc_parse_pid(de->d_name + 8, &pid) || find_proc(j, pid))
			continue;
		char path[PATH_MAX];
		struct stat sb;
		snprintf(path, sizeof path, "%s/%s", j->core_dir, de->d_name);
		if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
			struct job_proc *p = add_proc(j, pid, 0);
			if (p)
				p->state = JOB_ENDED;
		}
	}
	closedir(d);
}

/* A process's end known from a report, not from its status (its parent
 * reaped it): by = whose report (static). */
static void set_reported_end(struct job_proc *p, bool signalled, int status,
			     const char *by)
{
	p->state = signalled ? JOB_SIGNALLED : JOB_EXITED;
	p->status = status;
	p->death_from_report = true;
	p->death_by = by;
}

/* The stack a process dumped at SIGTERM (pystack.PID.term): where it
 * was when it was stopped.  Its death by SIGTERM follows the dump (the
 * handler chains to the default action). */
static void read_term_stack(const struct job *j, struct job_proc *p)
{
	char path[PATH_MAX];
	size_t len;
	snprintf(path, sizeof path, "%s/pystack.%ld.term", j->core_dir, p->pid);
	char *text = diag_read_small_file(path, 1 << 20, &len);
	if (text && len > 0 && job_parse_pystack(text, len, true, p) == 0 && p->npy) {
		p->py_when = JOB_PY_SIGTERM;
		if (p->state == JOB_ENDED)
			set_reported_end(p, true, SIGTERM, "its report");
	}
	free(text);
}

/* The Python stack each process left: pystack.PID at a fatal signal,
 * else pystack.PID.term at SIGTERM (both empty otherwise). */
static void read_pystacks(struct job *j)
{
	add_reported(j);
	for (size_t i = 0; i < j->nprocs; i++) {
		char path[PATH_MAX];
		size_t len;
		snprintf(path, sizeof path, "%s/pystack.%ld", j->core_dir,
			 j->procs[i].pid);
		char *text = diag_read_small_file(path, 1 << 20, &len);
		struct job_proc *p = &j->procs[i];
		if (text && len > 0 && job_parse_pystack(text, len, false, p) == 0 &&
		    p->npy)
			p->py_when = JOB_PY_FATAL;
		/* a worker its own parent reaped: its status never reached
		 * us, its fatal-error report did */
		int sig = text ? job_parse_fatal_signal(text, len) : 0;
		if (sig && p->state == JOB_ENDED)
			set_reported_end(p, true, sig, "its report");
		free(text);
		if (!p->npy)
			read_term_stack(j, p);
	}
}

/* The process a launcher's message names: by pid, else (mpirun's PID 0)
 * the one process whose rank it gives, NULL. */
static struct job_proc *death_proc(struct job *j, const struct job_death *d)
{
	if (d->pid > 0)
		return find_proc(j, d->pid);
	struct job_proc *hit = NULL;
	char rank[24];
	snprintf(rank, sizeof rank, "%ld", d->rank);
	for (size_t i = 0; i < j->nprocs; i++) {
		struct job_proc *p = &j->procs[i];
		if (p->rank && strcmp(p->rank, rank) == 0) {
			if (hit)
				return NULL; /* two with that rank: not known */
			hit = p;
		}
	}
	return hit;
}

/* What launchers said of workers whose status went to them: a process
 * we saw end unseen gets that end; one we never saw (it lived between
 * two polls) joins the table.  A status we read ourselves stands. */
static void apply_deaths(struct run *r)
{
	for (size_t i = 0; i < r->ndeaths; i++) {
		const struct job_death *d = &r->deaths[i];
		struct job_proc *p = death_proc(r->j, d);
		if (!p && d->pid > 0)
			p = add_proc(r->j, d->pid, 0);
		/* (JOB_RUNNING: just added; after the run every other
		 * unseen end is JOB_ENDED; JOB_UNKNOWN: --core-dir's) */
		if (!p || p->death_from_report ||
		    (p->state != JOB_ENDED && p->state != JOB_RUNNING &&
		     p->state != JOB_UNKNOWN))
			continue;
		set_reported_end(p, d->signalled, d->status,
				 "its launcher's report");
	}
}

/* Everything of the job still alive gets sig: the keeper's process group
 * and each known process (a launcher may start workers in their own
 * sessions).  A known process is one seen as the keeper's descendant,
 * and still that process (its start time): a pid read only from a
 * coredump's name, which the job itself writes, or a pid reused since
 * the last poll, is never signalled. */
static void signal_job(struct run *r, int sig)
{
	/* each process marked before the group's signal: it could make one
	 * a zombie before it is checked, and it would not count as ours.
	 * Each gets the signal once: a process in the group by the group's,
	 * one that left it (setsid) by its own.  Twice was a race: the job's
	 * sitecustomize dumps a Python stack at SIGTERM with
	 * faulthandler.register(chain=True), whose handler runs with the
	 * signal unblocked (SA_NODEFER), so a second SIGTERM during the dump
	 * found it busy and killed the process with no stack written (the
	 * launcher-where and rank0-where flakes of tests/sh/job_others.sh). */
	for (size_t i = 0; i < r->j->nprocs; i++) {
		struct job_proc *p = &r->j->procs[i];
		if (p->state == JOB_RUNNING && p->start &&
		    proc_is_same((pid_t)p->pid, p->start)) {
			p->killed_by_us = true;
			if (r->keeper <= 1 || getpgid((pid_t)p->pid) != r->keeper)
				kill((pid_t)p->pid, sig);
		}
	}
	if (r->keeper > 1)
		kill(-r->keeper, sig);
}

/* The first faulting process ended: the others get a grace period to
 * end on their own (a launcher stops its other workers), then are
 * stopped. */
static void watch_fault(struct run *r, double t)
{
	if (r->fault_end > 0)
		return;
	for (size_t i = 0; i < r->j->nprocs; i++) {
		const struct job_proc *p = &r->j->procs[i];
		bool fault = p->core || (p->state == JOB_SIGNALLED &&
					 fault_signal(p->status));
		if (fault && p->state != JOB_RUNNING) {
			int g = r->cfg->grace_ms > 0 ? r->cfg->grace_ms
						     : DEFAULT_GRACE_MS;
			r->fault_end = t;
			r->kill_at = t + g / 1000.0;
			return;
		}
	}
}

/* t: seconds since the job began */
static void maybe_kill(struct run *r, double t)
{
	bool cancel = r->cfg->cancel && *r->cfg->cancel;
	bool late = r->cfg->timeout_ms > 0 && t > r->cfg->timeout_ms / 1000.0;
	if (r->kill_stage == 0 && (cancel || late)) {
		r->j->timed_out = true;
		r->kill_at = t;
	}
	if (r->kill_stage == 0 && r->kill_at > 0 && t >= r->kill_at) {
		if (!r->j->timed_out)
			r->j->stopped_rest = true;
		signal_job(r, SIGTERM);
		r->kill_stage = 1;
		r->term_sent = t;
	} else if (r->kill_stage == 1 && t >= r->term_sent + KILL_AFTER_MS / 1000.0) {
		signal_job(r, SIGKILL);
		r->kill_stage = 2;
	}
}

/* The faulting process: the earliest coredump; without one, the first
 * process that died of a fault signal. */
static void pick_faulting(struct job *j)
{
	j->faulting = -1;
	for (size_t i = 0; i < j->nprocs; i++) {
		struct job_proc *p = &j->procs[i];
		if (!p->core && p->state == JOB_SIGNALLED &&
		    fault_signal(p->status) && !p->killed_by_us)
			p->faulted = true;
	}
	for (size_t i = 0; i < j->nprocs; i++) {
		const struct job_proc *p = &j->procs[i];
		if (!p->core)
			continue;
		if (j->faulting < 0 || !j->procs[j->faulting].core ||
		    p->core_time < j->procs[j->faulting].core_time)
			j->faulting = (int)i;
	}
	if (j->faulting >= 0)
		return;
	for (size_t i = 0; i < j->nprocs; i++) {
		const struct job_proc *p = &j->procs[i];
		if (p->faulted && (j->faulting < 0 ||
				   p->end_s < j->procs[j->faulting].end_s))
			j->faulting = (int)i;
	}
}

/* One line of the job's stderr: what it says of a collective, of a
 * worker's end, and a rank's traceback. */
static void scan_err_line(struct run *r)
{
	struct job_collective c;
	struct job_death d;
	struct job_rank_error e;
	struct job *j = r->j;
	if (job_parse_collective(r->eline, r->elen, &c))
		job_add_collective(j, &c);
	else if (r->ndeaths < sizeof r->deaths / sizeof r->deaths[0] &&
		 job_parse_death(r->eline, r->elen, &d))
		r->deaths[r->ndeaths++] = d;
	/* (a traceback's exception line may also be a collective's words) */
	if (r->tb && job_parse_rank_traceback(r->tb, r->eline, r->elen, &e) &&
	    j->nrank_errors < sizeof j->rank_errors / sizeof j->rank_errors[0] &&
	    !job_rank_error_by_rank(j, e.rank))
		j->rank_errors[j->nrank_errors++] = e;
	r->elen = 0;
}

/* Passes what the job wrote to its stderr on to ours, as it comes, and
 * reads each line.  false at the end of the stream or an error. */
static bool pass_job_stderr(struct run *r)
{
	char buf[4096];
	ssize_t n = read(r->err_fd, buf, sizeof buf);
	if (n < 0 && errno == EINTR)
		return true;
	if (n <= 0) {
		if (r->elen)
			scan_err_line(r);
		return false;
	}
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(2, buf + off, (size_t)(n - off));
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* our stderr is gone: the reading goes on */
		off += w;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] == '\n')
			scan_err_line(r);
		else if (r->elen < sizeof r->eline)
			r->eline[r->elen++] = buf[i];
	}
	return true;
}

static void close_err(struct run *r)
{
	if (r->err_fd >= 0)
		close(r->err_fd);
	r->err_fd = -1;
}

/* After the keeper ended: what is still in the pipe (every writer is
 * gone: the keeper reaped the whole tree). */
static void drain_job_stderr(struct run *r)
{
	while (r->err_fd >= 0) {
		struct pollfd pfd = { .fd = r->err_fd, .events = POLLIN };
		if (poll(&pfd, 1, 0) <= 0 || !pass_job_stderr(r))
			close_err(r);
	}
}

/* The ends the processes wrote themselves (preload/death.c,
 * diag_end_file_read): a process its parent reaped at once is seen so.
 * Each file is read once. */
static void read_end_file(struct run *r, const char *name)
{
	struct diag_end_file e;
	if (diag_end_file_read(r->j->core_dir, name, &e) < 0)
		return;
	char path[PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", r->j->core_dir, name);
	unlink(path);
	struct job_proc *p = find_proc(r->j, e.pid);
	if (!p && !(p = add_proc(r->j, e.pid, now_s() - r->t0)))
		return;
	if (!p->ppid && e.ppid != r->keeper)
		p->ppid = e.ppid;
	/* one that lived between two polls: its command from its report */
	if (!p->cmdline && e.cmd[0])
		diag_strset(&p->cmdline, e.cmd);
	/* the kernel's own status, when a poll saw it, stands; and a
	 * process's own report before its parent's wait's (both say the
	 * same signal; the file read first wins) */
	if (e.reaped && p->death_from_report)
		return;
	if (p->state == JOB_RUNNING || p->state == JOB_ENDED) {
		set_reported_end(p, e.death, e.code,
				 e.reaped ? "its parent's wait" : "its report");
		/* our own SIGKILL after the grace period, seen by a parent
		 * of the job */
		if (e.reaped && r->kill_stage > 0)
			p->killed_by_us = true;
		if (!p->end_s)
			p->end_s = now_s() - r->t0;
	}
}

/* New files in the job directory, one scan a poll: the driver's
 * coredumps and the processes' own ends (the Python stacks and
 * sitecustomize.py live there too, read at the end). */
static void poll_job_dir(struct run *r)
{
	DIR *d = opendir(r->j->core_dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "core", 4) == 0)
			take_core(r, de->d_name);
		else if (strncmp(de->d_name, "death.", 6) == 0 ||
			 strncmp(de->d_name, "reaped.", 7) == 0 ||
			 strncmp(de->d_name, "reapexit.", 9) == 0 ||
			 strncmp(de->d_name, "exit.", 5) == 0)
			read_end_file(r, de->d_name);
	}
	closedir(d);
}

/* One of the kernel's process events (diag/procev.c): a process of the
 * job forked, exec'd or ended.  The end's status is the kernel's own, as
 * a poll that catches the zombie reads it: seen even when the parent
 * reaped it with no reporter loaded (a static binary, a cleared
 * LD_PRELOAD) or by the raw system call, and for one that lived between
 * two polls. */
static void on_proc_event(void *ctx, const struct procev *e)
{
	struct run *r = ctx;
	if (!r->ev_ours) {
		/* the keeper's fork, in our own pid numbers: until then (and
		 * in another pid namespace, never) a pid may be another's */
		r->ev_ours = procev_is_fork_of(e, r->keeper, (long)getpid());
		return;
	}
	double t = now_s() - r->t0;
	struct job_proc *p = find_proc(r->j, e->pid);
	switch (e->kind) {
	case PROCEV_FORK: {
		/* the keeper is shown as 0 */
		long ppid = e->ppid == r->keeper ? 0 : e->ppid;
		if (p && p->ppid != ppid)
			return; /* another process's pid, used again */
		if (!p) {
			if (e->ppid != r->keeper && !find_proc(r->j, ppid))
				return;
			if (!(p = add_proc(r->j, e->pid, t)))
				return;
			p->ppid = ppid;
			read_identity(p);
		}
		/* gone already, or first seen by a poll as a zombie (which
		 * has no command line to read): a fork runs its parent's
		 * program until it execs (an exec event then says otherwise).
		 * (The parent is looked up after add_proc, which may move
		 * the list.) */
		struct job_proc *parent = find_proc(r->j, e->ppid);
		if (!p->cmdline && !p->exec_heard && parent && parent->cmdline)
			p->cmd_inherited = diag_strset(&p->cmdline,
						       parent->cmdline);
		break;
	}
	case PROCEV_EXEC:
		if (!p)
			break;
		char *before = p->cmdline;
		bool read_after = p->cmd_read_ns > e->ns;
		p->cmdline = NULL;
		read_identity(p);
		if (p->cmdline) {
			free(before);
		} else if (before && read_after && !p->cmd_inherited) {
			p->cmdline = before; /* a poll read it after the exec */
		} else {
			/* gone before its new command line could be read: the
			 * old one is no longer true; but the leader's first
			 * exec is of the job's own command */
			free(before);
			if (p->ppid == 0 && !p->exec_heard && r->j->command)
				diag_strset(&p->cmdline, r->j->command);
		}
		p->exec_heard = true;
		p->cmd_inherited = false;
		break;
	case PROCEV_EXIT:
		if (p)
			set_status(p, e->status, t, true);
		break;
	}
}

static void read_proc_events(struct run *r)
{
	if (r->ev_fd >= 0 && procev_drain(r->ev_fd, on_proc_event, r) < 0) {
		close(r->ev_fd);
		r->ev_fd = -1;
	}
}

static void run_loop(struct run *r)
{
	while (!r->keeper_done) {
		struct pollfd pfd[2] = {
			{ .fd = r->status_fd, .events = POLLIN },
			{ .fd = r->err_fd, .events = POLLIN },
		};
		int n = poll(pfd, r->err_fd >= 0 ? 2 : 1, POLL_MS);
		if (n > 0 && pfd[0].revents)
			read_status_lines(r);
		if (n > 0 && r->err_fd >= 0 && pfd[1].revents &&
		    !pass_job_stderr(r))
			close_err(r);
		double t = now_s();
		read_proc_events(r);
		poll_procs(r);
		poll_job_dir(r);
		watch_fault(r, t - r->t0);
		maybe_kill(r, t - r->t0);
	}
	/* the last words: statuses and cores written as the tree ended */
	read_proc_events(r);
	drain_job_stderr(r);
	poll_job_dir(r);
	for (size_t i = 0; i < r->j->nprocs; i++)
		if (r->j->procs[i].state == JOB_RUNNING) {
			r->j->procs[i].state = JOB_ENDED;
			r->j->procs[i].end_s = now_s() - r->t0;
		}
}

struct job *job_run(char *const argv[], const struct job_config *cfg,
		    char *err, size_t cap)
{
	if (!argv || !argv[0]) {
		snprintf(err, cap, "--job needs a command to run");
		return NULL;
	}
	/* a script whose #! interpreter is not there: said before anything
	 * starts (the exec's ENOENT would name the script, which is) */
	if (session_check_interpreter(argv, err, cap) != 0)
		return NULL;
	struct job *j = calloc(1, sizeof *j);
	if (!j || make_dir(j, cfg, err, cap) < 0 || !(j->command = diag_join_argv(argv))) {
		if (j && !err[0])
			snprintf(err, cap, "out of memory");
		job_free(j);
		return NULL;
	}
	if (write_sitecustomize(j->core_dir, err, cap) < 0) {
		job_free(j);
		return NULL;
	}
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0) {
		snprintf(err, cap, "cannot make a pipe: %s", strerror(errno));
		job_free(j);
		return NULL;
	}
	/* the job's stderr through us: what NCCL and gloo say of a
	 * collective that could not complete (no pipe: the job writes to
	 * ours directly, and the report has no collectives) */
	int efds[2] = { -1, -1 };
	if (pipe2(efds, O_CLOEXEC) < 0)
		efds[0] = efds[1] = -1;
	/* listening before the keeper starts, so its fork is the first
	 * event of ours (the proof that the events' pids are ours) */
	char why[160] = "";
	int ev_fd = procev_open(why, sizeof why);
	fflush(NULL);
	struct run r = { .j = j, .cfg = cfg, .status_fd = fds[0],
			 .err_fd = efds[0], .t0 = now_s(), .ev_fd = ev_fd };
	r.keeper = fork();
	if (r.keeper < 0) {
		snprintf(err, cap, "cannot fork: %s", strerror(errno));
		if (ev_fd >= 0)
			close(ev_fd);
		close(fds[0]);
		close(fds[1]);
		close_err(&r);
		if (efds[1] >= 0)
			close(efds[1]);
		job_free(j);
		return NULL;
	}
	if (r.keeper == 0) {
		close(fds[0]);
		if (efds[0] >= 0)
			close(efds[0]);
		if (ev_fd >= 0)
			close(ev_fd);
		keeper_main(argv, cfg, j->core_dir, fds[1], efds[1]);
	}
	close(fds[1]);
	if (efds[1] >= 0)
		close(efds[1]);
	setpgid(r.keeper, r.keeper); /* also done by the keeper: no race */
	r.tb = calloc(1, sizeof *r.tb); /* none: no tracebacks read */
	run_loop(&r);
	bool heard = r.ev_fd >= 0 && r.ev_ours; /* to the job's end */
	if (r.ev_fd >= 0)
		close(r.ev_fd);
	if (!heard && !why[0])
		snprintf(why, sizeof why, "%s", r.ev_ours
			 ? "the socket failed during the job"
			 : "their process numbers are not ours (another pid "
			   "namespace)");
	if (!heard)
		j->process_events_off = strdup(why); /* (NULL: unsaid) */
	free(r.tb);
	close(fds[0]);
	close_err(&r);
	int st;
	while (waitpid(r.keeper, &st, 0) < 0 && errno == EINTR)
		;
	j->secs = now_s() - r.t0;
	if (r.exec_err[0]) {
		snprintf(err, cap, "cannot run %s: %s", argv[0], r.exec_err);
		job_free(j);
		return NULL;
	}
	read_pystacks(j);
	apply_deaths(&r);
	pick_faulting(j);
	return j;
}

/* ---- --core-dir ---- */

/* A job's saved output beside its coredumps (NAME.log, .err, .out): what
 * it says of collectives and of workers' ends, as --job reads its live
 * stderr.  Read line by line, any size. */
static bool log_name(const char *name)
{
	const char *dot = strrchr(name, '.');
	return dot && (strcmp(dot, ".log") == 0 || strcmp(dot, ".err") == 0 ||
		       strcmp(dot, ".out") == 0);
}

static void read_job_log(struct run *r, const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) >= 0) {
		size_t len = (size_t)n < sizeof r->eline ? (size_t)n
							   : sizeof r->eline;
		memcpy(r->eline, line, len);
		r->elen = len;
		while (r->elen && (r->eline[r->elen - 1] == '\n' ||
				   r->eline[r->elen - 1] == '\r'))
			r->elen--;
		scan_err_line(r);
	}
	free(line);
	fclose(f);
}

static void read_job_logs(struct job *j)
{
	DIR *d = opendir(j->core_dir);
	if (!d)
		return;
	struct run r = { .j = j, .err_fd = -1 };
	r.tb = calloc(1, sizeof *r.tb);
	struct dirent *de;
	while ((de = readdir(d))) {
		char path[PATH_MAX];
		struct stat sb;
		if (!log_name(de->d_name) ||
		    snprintf(path, sizeof path, "%s/%s", j->core_dir,
			     de->d_name) >= (int)sizeof path ||
		    stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
			continue;
		read_job_log(&r, path);
	}
	closedir(d);
	free(r.tb);
	apply_deaths(&r);
}

static int by_core_time(const void *a, const void *b)
{
	const struct job_proc *x = a, *y = b;
	return x->core_time < y->core_time ? -1 : x->core_time > y->core_time;
}

struct job *job_from_core_dir(const char *dir, char *err, size_t cap)
{
	DIR *d = opendir(dir);
	if (!d) {
		snprintf(err, cap, "cannot open the core directory %s: %s",
			 dir, strerror(errno));
		return NULL;
	}
	struct job *j = calloc(1, sizeof *j);
	if (!j || !(j->core_dir = diag_strdup(dir))) {
		closedir(d);
		free(j);
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		/* a kept --job directory also holds pystack.PID files */
		long pid = strncmp(de->d_name, "pystack.", 8) == 0
				   ? -1 : job_core_pid(de->d_name);
		char path[PATH_MAX];
		struct stat sb;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (pid <= 0 || stat(path, &sb) < 0 || !S_ISREG(sb.st_mode) ||
		    sb.st_size == 0)
			continue;
		struct job_proc *p = find_proc(j, pid);
		if (p)
			continue; /* two files of one pid: the first listed */
		if (!(p = add_proc(j, pid, 0)) || !diag_strset(&p->core, path))
			break;
		p->state = JOB_UNKNOWN;
		p->faulted = true;
		p->core_time = (double)sb.st_mtim.tv_sec +
			       (double)sb.st_mtim.tv_nsec / 1e9;
	}
	closedir(d);
	if (j->nprocs == 0) {
		snprintf(err, cap, "no coredumps in %s (files named with a "
			 "pid: core.PID, core.PID.nvcudmp, "
			 "core_TIME_HOST_PID.nvcudmp)", dir);
		job_free(j);
		return NULL;
	}
	qsort(j->procs, j->nprocs, sizeof *j->procs, by_core_time);
	j->faulting = 0;
	read_pystacks(j);
	read_job_logs(j);
	return j;
}
