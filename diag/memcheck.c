/* The memcheck pass: compute-sanitizer as a child process, read through
 * one non-blocking pipe, its files in a private directory. */
#include "cudbg/decode.h"
#include "cudbg/memcheck.h"
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

struct diag_memcheck {
	pid_t pid;
	int fd;                  /* sanitizer stdout+stderr, -1 after EOF */
	char dir[PATH_MAX];
	char report[PATH_MAX + 16];
	char core[PATH_MAX + 16];
	bool core_found;
	bool keep;
	bool done, signalled;
	int status;
	int kill_stage;
	struct timespec t0;
	double secs;
	diag_memcheck_fn fn;
	void *ctx;
	/* Kept text: the head, then a sliding tail. */
	size_t max_text;
	struct dbuf head, tail, joined;
	unsigned long long cut;
	char line[512];          /* partial line, for FINDING events */
	size_t line_len;
	char filter[288];        /* "regex=NAME" for --kernel-name, or "" */
	/* Stopping the sanitizer in its coredump (stop_in_core): */
	enum { FIRST_NONE, FIRST_PRECISE, FIRST_IMPRECISE } first;
	double core_began;       /* s after t0 of "Generating coredump file";
				  * 0: not yet */
	double core_wait;        /* longest wait for it; < 0: no limit */
	bool first_read;         /* the first finding's text read (once) */
	uint64_t big_alloc;      /* its size when that alone is too big */
	bool python;             /* the program is a Python script */
	char program[PATH_MAX];  /* the program's path, found on PATH */
	bool line_read;          /* first_line known (after done) */
	bool first_line;         /* diag_memcheck_first_has_line */
	enum diag_memcheck_early early;
};

int diag_memcheck_policy_parse(const char *s)
{
	if (!s)
		return -1;
	if (strcmp(s, "auto") == 0)
		return DIAG_MEMCHECK_AUTO;
	if (strcmp(s, "always") == 0)
		return DIAG_MEMCHECK_ALWAYS;
	if (strcmp(s, "never") == 0)
		return DIAG_MEMCHECK_NEVER;
	return -1;
}

const char *diag_memcheck_policy_name(enum diag_memcheck_policy p)
{
	switch (p) {
	case DIAG_MEMCHECK_AUTO: return "auto";
	case DIAG_MEMCHECK_ALWAYS: return "always";
	case DIAG_MEMCHECK_NEVER: return "never";
	}
	return "?";
}

bool diag_memcheck_wanted(enum diag_memcheck_policy p,
			  const struct diag_fault *f)
{
	if (!f || f->flags[DIAG_F_MEMCHECK_RAN] || f->flags[DIAG_F_SANITIZER])
		return false;
	switch (p) {
	case DIAG_MEMCHECK_ALWAYS:
		return true;
	case DIAG_MEMCHECK_NEVER:
		return false;
	case DIAG_MEMCHECK_AUTO:
		break;
	}
	/* A live run that ended without a device stop, yet something went
	 * wrong: a CUDA error on the terminal or a failing exit.  Not a
	 * Python exception that is no CUDA error: its traceback is the
	 * explanation, and compute-sanitizer would only run the program
	 * again to find nothing (issue 29 item 2: a Numba import error got a
	 * memcheck pass and "san-clean"); nor an interpreter that ran none
	 * of the script ("No module named pytest"). */
	/* Nor a program that loaded no CUDA library: nothing of it ran on a
	 * GPU, so the pass has nothing to check.  Nor one killed by SIGKILL
	 * (the OOM killer, a scheduler), nor one whose GPU memory ran out:
	 * the pass would run it to the same end. */
	return f->flags[DIAG_F_EXITED] && !f->flags[DIAG_F_DEVICE_STOP] &&
	       !f->flags[DIAG_F_PYTHON_HOST_ERROR] &&
	       !f->flags[DIAG_F_PYTHON_NOT_STARTED] &&
	       !f->flags[DIAG_F_NO_CUDA_LIBRARY] &&
	       !f->flags[DIAG_F_EXIT_SIGKILL] &&
	       !f->flags[DIAG_F_CUDA_OOM] &&
	       (f->flags[DIAG_F_CUDA_ERROR_OUTPUT] ||
		f->flags[DIAG_F_EXIT_FAILED]);
}

/* ---- finding programs -------------------------------------------------- */

static bool executable(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

static int search_dirs(const char *name, const char *dirs, char *buf,
		       size_t cap)
{
	const char *p = dirs;
	while (p && *p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		if (n) {
			snprintf(buf, cap, "%.*s/%s", (int)n, p, name);
			if (executable(buf))
				return DIAG_OK;
		}
		p = colon ? colon + 1 : NULL;
	}
	return DIAG_ENOTFOUND;
}

int diag_find_tool(const char *name, char *buf, size_t cap)
{
	if (!name || !*name)
		return DIAG_ENOTFOUND;
	if (strchr(name, '/')) {
		snprintf(buf, cap, "%s", name);
		return executable(buf) ? DIAG_OK : DIAG_ENOTFOUND;
	}
	if (search_dirs(name, getenv("PATH"), buf, cap) == DIAG_OK)
		return DIAG_OK;
	const char *home = getenv("CUDA_HOME");
	if (home && *home) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s/bin", home);
		if (search_dirs(name, dir, buf, cap) == DIAG_OK)
			return DIAG_OK;
	}
	return search_dirs(name, "/usr/local/cuda/bin", buf, cap);
}

bool diag_argv_is_python(char *const *argv)
{
	if (!argv || !argv[0])
		return false;
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (strncmp(base, "python", 6) == 0)
		return true;
	size_t n = strlen(base);
	if (n > 3 && strcmp(base + n - 3, ".py") == 0)
		return true;
	/* A script with a "#!.../python3" line. */
	char path[PATH_MAX];
	if (diag_find_tool(argv[0], path, sizeof path) != DIAG_OK)
		return false;
	FILE *f = fopen(path, "rb");
	if (!f)
		return false;
	char head[256] = {0};
	size_t got = fread(head, 1, sizeof head - 1, f);
	fclose(f);
	head[got] = '\0';
	char *nl = strchr(head, '\n');
	if (nl)
		*nl = '\0';
	return head[0] == '#' && head[1] == '!' && strstr(head, "python");
}

/* ---- text kept --------------------------------------------------------- */

static void keep_text(struct diag_memcheck *m, const char *s, size_t n)
{
	size_t half = m->max_text / 2;
	if (m->head.len < half) {
		size_t k = half - m->head.len < n ? half - m->head.len : n;
		dbuf_put(&m->head, s, k);
		s += k;
		n -= k;
	}
	if (!n)
		return;
	dbuf_put(&m->tail, s, n);
	if (m->tail.len > 2 * half && !m->tail.oom) {
		size_t drop = m->tail.len - half;
		memmove(m->tail.s, m->tail.s + drop, m->tail.len - drop + 1);
		m->tail.len -= drop;
		m->cut += drop;
	}
}

static double since_start(const struct diag_memcheck *m)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - m->t0.tv_sec) +
	       (double)(t.tv_nsec - m->t0.tv_nsec) / 1e9;
}

/* What stop_in_core needs of the text: the kind of the first finding
 * (the one the coredump is of: --generate-coredump stops at it) and when
 * the coredump began.  An API error ("Program hit") writes none and the
 * program goes on, so it does not count as the first. */
static void note_coredump_line(struct diag_memcheck *m, const char *l)
{
	static const char gen[] = "========= Generating coredump file ";
	if (strncmp(l, gen, sizeof gen - 1) == 0) {
		if (!m->core_began)
			m->core_began = since_start(m);
		return;
	}
	if (m->first != FIRST_NONE || strncmp(l, "========= ", 10) != 0 ||
	    l[10] < 'A' || l[10] > 'Z')
		return;
	static const char *const not_first[] = {
		"COMPUTE-SANITIZER", "ERROR SUMMARY", "LEAK SUMMARY",
		"Program hit ", "Target application", "Leaked ", "It can be",
	};
	for (size_t i = 0; i < sizeof not_first / sizeof *not_first; i++)
		if (strncmp(l + 10, not_first[i], strlen(not_first[i])) == 0)
			return;
	m->first = strncmp(l + 10, "Invalid ", 8) == 0 ? FIRST_PRECISE
						       : FIRST_IMPRECISE;
}

/* Error headers start with "========= " and a capital (Invalid, Program,
 * Error, Leaked); the indented detail lines do not. */
static void scan_lines(struct diag_memcheck *m, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\n') {
			if (m->line_len < sizeof m->line - 1)
				m->line[m->line_len++] = s[i];
			continue;
		}
		m->line[m->line_len] = '\0';
		const char *l = m->line;
		note_coredump_line(m, l);
		if (strncmp(l, "========= ", 10) == 0 && l[10] >= 'A' &&
		    l[10] <= 'Z' && strncmp(l + 10, "ERROR SUMMARY", 13) != 0 &&
		    strncmp(l + 10, "COMPUTE-SANITIZER", 17) != 0 && m->fn)
			m->fn(m->ctx, DIAG_MC_FINDING, l, m->line_len);
		m->line_len = 0;
	}
}

/* ---- starting ---------------------------------------------------------- */

static char **build_env(char *const *envp, bool python)
{
	char *const *src = envp ? envp : environ;
	size_t n = 0;
	while (src && src[n])
		n++;
	char **env = calloc(n + 2, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	static const char nc[] = "PYTORCH_NO_CUDA_MEMORY_CACHING=";
	for (size_t i = 0; i < n; i++)
		if (!(python && strncmp(src[i], nc, sizeof nc - 1) == 0))
			env[k++] = src[i];
	/* The caching allocator hands out slices of big blocks, so a small
	 * overrun lands in memory that is valid to the sanitizer. */
	static char no_cache[] = "PYTORCH_NO_CUDA_MEMORY_CACHING=1";
	if (python)
		env[k++] = no_cache;
	env[k] = NULL;
	return env;
}

/* execve wants char *const[]: the fixed words live in writable arrays. */
static char w_tool[] = "--tool", w_xml[] = "--xml", w_save[] = "--save",
	    w_gen[] = "--generate-coredump", w_core[] = "--coredump-name",
	    w_limit[] = "--print-limit", w_kname[] = "--kernel-name";

static char **build_argv(struct diag_memcheck *m, char *san, char *tool,
			 const struct diag_memcheck_opts *o, char *limit)
{
	size_t n = 0;
	while (o->argv[n])
		n++;
	char **a = calloc(n + o->nflags + 16, sizeof *a);
	if (!a)
		return NULL;
	size_t k = 0;
	a[k++] = san;
	a[k++] = w_tool;
	a[k++] = tool;
	a[k++] = w_xml;
	a[k++] = w_save;
	a[k++] = m->report;
	/* A coredump at the first error is memcheck's: racecheck, initcheck
	 * and synccheck report after the kernel ran, with no thread to stop
	 * (--sanitizer-tool, diag/santools.c). */
	if (strcmp(tool, "memcheck") == 0) {
		a[k++] = w_gen;
		a[k++] = w_core;
		a[k++] = m->core;
	}
	/* the user's own --print-limit and --kernel-name win (compute-
	 * sanitizer takes an option once) */
	if (!diag_san_flags_have(o->flags, o->nflags, w_limit)) {
		a[k++] = w_limit;
		a[k++] = limit;
	}
	if (m->filter[0] && !diag_san_flags_have(o->flags, o->nflags, w_kname)) {
		a[k++] = w_kname;
		a[k++] = m->filter;
	}
	for (size_t i = 0; i < o->nflags; i++)
		a[k++] = o->flags[i];
	for (size_t i = 0; i < n; i++)
		a[k++] = o->argv[i];
	a[k] = NULL;
	return a;
}

static int make_dir(struct diag_memcheck *m, const char *parent, char *err,
		    size_t cap)
{
	if (!parent)
		parent = getenv("TMPDIR");
	if (!parent || !*parent)
		parent = "/tmp";
	snprintf(m->dir, sizeof m->dir, "%s/cudbg-memcheck-XXXXXX", parent);
	if (!mkdtemp(m->dir)) { /* mode 0700 */
		snprintf(err, cap, "%s: cannot make a private directory for "
			 "the memcheck pass: %s", parent, strerror(errno));
		m->dir[0] = '\0';
		return DIAG_EIO;
	}
	snprintf(m->report, sizeof m->report, "%s/report.xml", m->dir);
	snprintf(m->core, sizeof m->core, "%s/core.nvcudmp", m->dir);
	return DIAG_OK;
}

/* The child: own session (so cancelling kills the program too), output to
 * the pipe, no terminal input.  An exec failure reports errno through the
 * close-on-exec pipe. */
static void child(int out, int errp, const char *path, char **argv,
		  char **env)
{
	setsid();
	int devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
		dup2(devnull, 0);
	dup2(out, 1);
	dup2(out, 2);
	signal(SIGPIPE, SIG_DFL);
	execve(path, argv, env);
	int e = errno;
	if (write(errp, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

static int spawn(struct diag_memcheck *m, const char *path, char **argv,
		 char **env, char *err, size_t cap)
{
	int out[2], ep[2];
	if (pipe2(out, O_CLOEXEC) < 0)
		return DIAG_EIO;
	if (pipe2(ep, O_CLOEXEC) < 0) {
		close(out[0]);
		close(out[1]);
		return DIAG_EIO;
	}
	clock_gettime(CLOCK_MONOTONIC, &m->t0);
	m->pid = fork();
	if (m->pid == 0)
		child(out[1], ep[1], path, argv, env);
	close(out[1]);
	close(ep[1]);
	if (m->pid < 0) {
		close(out[0]);
		close(ep[0]);
		snprintf(err, cap, "cannot fork: %s", strerror(errno));
		return DIAG_EEXEC;
	}
	int e = 0;
	ssize_t r;
	while ((r = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (r == (ssize_t)sizeof e) {
		waitpid(m->pid, NULL, 0);
		m->pid = -1;
		close(out[0]);
		snprintf(err, cap, "%s: cannot run the sanitizer: %s", path,
			 strerror(e));
		return DIAG_EEXEC;
	}
	m->fd = out[0];
	fcntl(m->fd, F_SETFL, fcntl(m->fd, F_GETFL) | O_NONBLOCK);
	return DIAG_OK;
}

static int check_program(char *const *argv, char *path, size_t pcap,
			 char *err, size_t cap)
{
	if (!argv || !argv[0]) {
		snprintf(err, cap, "memcheck: no program to run");
		return DIAG_ENOTFOUND;
	}
	if (diag_find_tool(argv[0], path, pcap) != DIAG_OK) {
		snprintf(err, cap, "%s: program not found or not executable",
			 argv[0]);
		return DIAG_ENOTFOUND;
	}
	return DIAG_OK;
}

/* The words of diag_memcheck_start()'s message for a missing sanitizer,
 * which diag_memcheck_missing() looks for. */
#define NO_SANITIZER "compute-sanitizer not found"

/* The kernel filter: compute-sanitizer's --kernel-name matches the
 * *mangled* name (its help text: "kernel_name, kne: the full mangled
 * name"; "regex: a regular expression found in the mangled name"), while
 * cuda-gdb and the report carry the demangled signature.  The unqualified
 * name is spelled verbatim inside an Itanium mangled name ("_Z8row_sums...",
 * "...24vectorized_gather_kernel...") and is the whole name of an
 * extern "C" kernel, so a regex of it selects the kernel; it may select a
 * few more kernels that share the name, which only costs time.  Only
 * identifiers are accepted, so no regex metacharacter reaches the tool. */
int diag_memcheck_kernel_filter(const char *kernel, char *out, size_t cap)
{
	char base[256];
	size_t n = dec_func_short(kernel, base, sizeof base);
	if (n == 0 || n >= sizeof base)
		return DIAG_ESYNTAX;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)base[i];
		if (!(isalnum(c) || c == '_'))
			return DIAG_ESYNTAX;
	}
	if (isdigit((unsigned char)base[0]))
		return DIAG_ESYNTAX;
	if ((size_t)snprintf(out, cap, "regex=%s", base) >= cap)
		return DIAG_ESYNTAX;
	return DIAG_OK;
}

bool diag_memcheck_missing(const char *err)
{
	return err && strstr(err, NO_SANITIZER) != NULL;
}

struct diag_memcheck *diag_memcheck_start(const struct diag_memcheck_opts *o,
					  diag_memcheck_fn fn, void *ctx,
					  char *err, size_t errcap)
{
	char san[PATH_MAX];
	const char *want = o->sanitizer ? o->sanitizer : "compute-sanitizer";
	if (diag_find_tool(want, san, sizeof san) != DIAG_OK) {
		snprintf(err, errcap, "%s: " NO_SANITIZER " (install "
			 "the CUDA toolkit, add its bin directory to PATH or set "
			 "CUDA_HOME, or name it with --sanitizer PATH)", want);
		return NULL;
	}
	char program[PATH_MAX];
	if (check_program(o->argv, program, sizeof program, err, errcap) < 0)
		return NULL;
	struct diag_memcheck *m = calloc(1, sizeof *m);
	if (!m) {
		snprintf(err, errcap, "memcheck: out of memory");
		return NULL;
	}
	memcpy(m->program, program, sizeof program);
	m->fd = -1;
	m->pid = -1;
	m->keep = o->keep_temp;
	m->fn = fn;
	m->ctx = ctx;
	m->max_text = o->max_text ? o->max_text : 4u << 20;
	m->core_wait = o->core_wait;
	m->python = o->python < 0 ? diag_argv_is_python(o->argv) : o->python > 0;
	if (o->kernel && diag_memcheck_kernel_filter(o->kernel, m->filter,
						      sizeof m->filter) < 0) {
		snprintf(err, errcap, "%.200s: not a kernel name the memcheck "
			 "pass can select (give the kernel's name, e.g. row_sums)",
			 o->kernel);
		free(m);
		return NULL;
	}
	if (make_dir(m, o->tmp_parent, err, errcap) < 0) {
		free(m);
		return NULL;
	}
	char limit[16];
	snprintf(limit, sizeof limit, "%u", o->print_limit ? o->print_limit : 100);
	char tool[64];
	snprintf(tool, sizeof tool, "%s", o->tool ? o->tool : "memcheck");
	char **argv = build_argv(m, san, tool, o, limit);
	char **env = build_env(o->envp, m->python);
	int rc = argv && env ? spawn(m, san, argv, env, err, errcap)
			     : DIAG_ENOMEM;
	if (rc == DIAG_OK && fn) {
		struct dbuf cmd = {0};
		for (size_t i = 0; argv[i]; i++) {
			if (i)
				dbuf_putc(&cmd, ' ');
			dbuf_puts(&cmd, argv[i]);
		}
		if (!cmd.oom)
			fn(ctx, DIAG_MC_STARTED, cmd.s, cmd.len);
		dbuf_free(&cmd);
	}
	free(argv);
	free(env);
	if (rc < 0) {
		if (rc == DIAG_ENOMEM)
			snprintf(err, errcap, "memcheck: out of memory");
		diag_memcheck_free(m);
		return NULL;
	}
	return m;
}

/* ---- running ----------------------------------------------------------- */

int diag_memcheck_pollfds(const struct diag_memcheck *m, struct pollfd *fds,
			  int max)
{
	if (!m || m->fd < 0 || max < 1)
		return 0;
	fds[0].fd = m->fd;
	fds[0].events = POLLIN;
	fds[0].revents = 0;
	return 1;
}

static void reaped(struct diag_memcheck *m, int st)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	m->secs = (double)(t1.tv_sec - m->t0.tv_sec) +
		  (double)(t1.tv_nsec - m->t0.tv_nsec) / 1e9;
	/* A sanitizer that died (killed from outside, crashed) leaves the
	 * program it ran behind in its session: end what is left of the
	 * group.  (Seen on the H200: compute-sanitizer killed with SIGKILL
	 * left python3 running.) */
	kill(-m->pid, SIGKILL);
	m->pid = -1;
	m->done = true;
	m->signalled = WIFSIGNALED(st);
	m->status = WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st);
	struct stat sb;
	m->core_found = !m->early && stat(m->core, &sb) == 0 &&
			S_ISREG(sb.st_mode);
	if (m->early)
		unlink(m->core); /* what was written of it */
	if (m->fn) {
		char msg[64];
		int n = snprintf(msg, sizeof msg, m->signalled ? "signal %d"
							       : "exit %d",
				 m->status);
		m->fn(m->ctx, DIAG_MC_EXITED, msg, (size_t)n);
	}
}

static int drain(struct diag_memcheck *m)
{
	char buf[65536];
	for (int rounds = 0; m->fd >= 0 && rounds < 64; rounds++) {
		ssize_t n = read(m->fd, buf, sizeof buf);
		if (n > 0) {
			keep_text(m, buf, (size_t)n);
			scan_lines(m, buf, (size_t)n);
			if (m->fn)
				m->fn(m->ctx, DIAG_MC_OUTPUT, buf, (size_t)n);
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		close(m->fd); /* EOF or an error: nothing more comes */
		m->fd = -1;
	}
	return DIAG_OK;
}

/* The first finding of the pass's text: the one m->first was read
 * from and the coredump is of (an API error is none), or NULL
 * (diag/internal.h). */
const struct diag_san_record *diag_san_first_error(const struct diag_san *s)
{
	for (size_t i = 0; s && i < diag_san_count(s); i++) {
		const struct diag_san_record *c = diag_san_get(s, i);
		if (c->kind == DIAG_SAN_PRECISE || c->kind == DIAG_SAN_IMPRECISE ||
		    c->kind == DIAG_SAN_OTHER)
			return c;
	}
	return NULL;
}

/* The first error's source line, from the text (the XML comes later or,
 * after an early stop, never): the finding's own line or a device
 * frame's (a stack overflow's function, a __trap()'s caller: trap.cu:16,
 * H200 run 20), or for an imprecise error an assertion line (file:line,
 * the only place a device assert's line is).  shared_oob's atomic on
 * __shared__ names only __iAtomicAdd, and its coredump unwinds to "??"
 * (runs 1-20). */
static bool finding_has_line(const struct diag_san_record *f,
			     const char *text, size_t len)
{
	if (!f)
		return false;
	bool line = f->path && f->line;
	for (size_t i = 0; !line && i < f->n_device; i++)
		line = f->device[i].path && f->device[i].line;
	return line || (f->kind != DIAG_SAN_PRECISE &&
			memmem(text, len, "Assertion `", 11));
}

/* The coredump holds every device allocation: 2,156,383,605 bytes took
 * 16.5-17.3 s (run 16, about 125 MB/s).  At twice that rate, an
 * allocation that alone needs longer than the limit to dump is not
 * waited for: the wait would only end in the same stop, later (int_
 * overflow's 2 GiB array: 2 s of 3.3, run 20). */
#define CORE_BYTES_PER_S (256.0 * 1024 * 1024)

/* The first finding's nearest allocation, from the text so far, when
 * dumping it alone would take longer than LIMIT seconds; else 0.  (Only
 * asked when that finding is precise: stop_in_core.) */
static uint64_t too_big_to_dump(const struct diag_memcheck *m, double limit)
{
	size_t len;
	const char *text = diag_memcheck_text(m, &len);
	struct diag_san *s = text ? diag_san_from_text(text, len) : NULL;
	const struct diag_san_record *r = diag_san_first_error(s);
	uint64_t big = r && r->kind == DIAG_SAN_PRECISE && r->has_alloc &&
			       (double)r->alloc_size / CORE_BYTES_PER_S > limit
			       ? r->alloc_size : 0;
	diag_san_free(s);
	return big;
}

/* An imprecise first finding (a warp assert, a trap, a stack overflow)
 * whose text says all the XML would: its line and its kernel
 * (diag_san_text_names_kernel: the XML has the launch stub that names a
 * lambda's kernel, the text only the wrapper's frame).  A Python
 * program's XML is waited for: its text names the script's frames by
 * base name only (bce_step in torch_bce.py:13), the XML by path, and a
 * module of the user's elsewhere would be lost. */
static bool imprecise_text_enough(const struct diag_memcheck *m)
{
	if (m->python || m->keep)
		return false;
	size_t len;
	const char *text = diag_memcheck_text(m, &len);
	struct diag_san *s = text ? diag_san_from_text(text, len) : NULL;
	const struct diag_san_record *r = diag_san_first_error(s);
	bool enough = r && r->kind != DIAG_SAN_PRECISE &&
		      finding_has_line(r, text, len) &&
		      diag_san_text_names_kernel(r, text, len, m->program);
	diag_san_free(s);
	return enough;
}

/* compute-sanitizer writes its XML when it exits, after its coredump,
 * and the coredump holds the program's whole device memory: 17 s for
 * int_overflow's 2 GB array, whose bare sanitizer run takes 0.9 s
 * (tests/fixtures/gpu/run16, run17; CUDA_COREDUMP_GENERATION_FLAGS and
 * --coredump-behavior do not make it smaller).  The finding itself is in
 * the text by then.  So when a precise finding's coredump takes longer
 * than core_wait (at least 2 s, or as long as the program ran before the
 * error), the pass stops the sanitizer: the live run that follows stops
 * at the same fault for less, and the findings come from the text
 * (diag_san_from_text).
 *
 * An imprecise first finding's coredump is of no use (cuda-gdb 13 finds
 * no CUDA focus in it: every one of the corpus) and the caller does not
 * open it (diag_memcheck_core_to_open).  When the text says what the XML
 * would (imprecise_text_enough), the sanitizer is stopped as that
 * coredump begins: the program's teardown and the sanitizer's exit go
 * with it, and the pass ends before a bare sanitizer run would.  Run 18
 * stopped every such pass at once, and the report lost the kernel of
 * trap and lambda_assert, which the text reader now finds
 * (diag/sankernel.c, and a release build's assert by the program's
 * launch stub: diag/kmangle.c); the rest (an assert whose kernel neither
 * confirms; a Python program) waits for the XML, as --keep-temp does,
 * whose user asked for the files. */
static void stop_imprecise_in_core(struct diag_memcheck *m)
{
	if (m->first_read)
		return;
	m->first_read = true; /* asked once */
	if (!imprecise_text_enough(m))
		return;
	m->early = DIAG_MC_EARLY_IMPRECISE;
	kill(-m->pid, SIGKILL);
}

/* A precise first error: its nearest allocation alone too big to dump
 * within the wait, or the dump past the wait. */
static void stop_precise_in_core(struct diag_memcheck *m)
{
	double limit = m->core_wait > m->core_began ? m->core_wait
						     : m->core_began;
	if (!m->first_read) {
		m->first_read = true;
		m->big_alloc = too_big_to_dump(m, limit);
	}
	if (m->big_alloc)
		m->early = DIAG_MC_EARLY_BIG_CORE;
	else if (since_start(m) - m->core_began > limit)
		m->early = DIAG_MC_EARLY_SLOW_CORE;
	else
		return;
	kill(-m->pid, SIGKILL);
}

static void stop_in_core(struct diag_memcheck *m)
{
	if (m->done || m->pid <= 0 || !m->core_began || m->early ||
	    m->core_wait < 0 || m->first == FIRST_NONE)
		return;
	if (m->first == FIRST_IMPRECISE)
		stop_imprecise_in_core(m);
	else
		stop_precise_in_core(m);
}

int diag_memcheck_handle(struct diag_memcheck *m)
{
	if (m->done)
		return 1;
	drain(m);
	stop_in_core(m);
	int st;
	pid_t r = waitpid(m->pid, &st, WNOHANG);
	if (r == m->pid) {
		drain(m); /* what the last writes left in the pipe */
		if (m->fd >= 0) {
			close(m->fd);
			m->fd = -1;
		}
		reaped(m, st);
		return 1;
	}
	if (r < 0 && errno == ECHILD) { /* reaped by someone else */
		m->pid = -1;
		m->done = true;
		m->status = -1;
		return 1;
	}
	return 0;
}

int diag_memcheck_wait(struct diag_memcheck *m, int timeout_ms)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int rc = diag_memcheck_handle(m);
		if (rc != 0)
			return rc;
		int left = 100;
		if (timeout_ms >= 0) {
			clock_gettime(CLOCK_MONOTONIC, &t1);
			long ms = (t1.tv_sec - t0.tv_sec) * 1000 +
				  (t1.tv_nsec - t0.tv_nsec) / 1000000;
			if (ms >= timeout_ms)
				return 0;
			if (timeout_ms - ms < left)
				left = (int)(timeout_ms - ms);
		}
		struct pollfd p;
		/* After EOF there is no fd: wake every 10 ms to reap. */
		if (diag_memcheck_pollfds(m, &p, 1) == 1)
			poll(&p, 1, left);
		else
			poll(NULL, 0, left < 10 ? left : 10);
	}
}

void diag_memcheck_cancel(struct diag_memcheck *m)
{
	if (!m || m->done || m->pid <= 0)
		return;
	/* The child leads its own process group: the sanitizer and the
	 * program it runs go together. */
	kill(-m->pid, m->kill_stage++ == 0 ? SIGTERM : SIGKILL);
}

static void remove_dir(const char *dir)
{
	diag_remove_dir(dir, 0);
}

void diag_memcheck_free(struct diag_memcheck *m)
{
	if (!m)
		return;
	if (!m->done && m->pid > 0) {
		diag_memcheck_cancel(m);
		if (diag_memcheck_wait(m, 2000) == 0) {
			diag_memcheck_cancel(m);
			int st;
			waitpid(m->pid, &st, 0);
		}
	}
	if (m->fd >= 0)
		close(m->fd);
	if (m->dir[0] && !m->keep)
		remove_dir(m->dir);
	dbuf_free(&m->head);
	dbuf_free(&m->tail);
	dbuf_free(&m->joined);
	free(m);
}

bool diag_memcheck_done(const struct diag_memcheck *m)
{
	return m->done;
}

pid_t diag_memcheck_pid(const struct diag_memcheck *m)
{
	return m->pid;
}

bool diag_memcheck_signalled(const struct diag_memcheck *m)
{
	return m->signalled;
}

int diag_memcheck_status(const struct diag_memcheck *m)
{
	return m->status;
}

double diag_memcheck_seconds(const struct diag_memcheck *m)
{
	return m->secs;
}

const char *diag_memcheck_text(const struct diag_memcheck *m, size_t *len)
{
	struct diag_memcheck *w = (struct diag_memcheck *)(uintptr_t)m;
	w->joined.len = 0;
	dbuf_put(&w->joined, "", 0);
	if (m->head.s)
		dbuf_put(&w->joined, m->head.s, m->head.len);
	if (m->cut)
		dbuf_printf(&w->joined, "\n[... %llu bytes of output cut ...]\n",
			    m->cut);
	if (m->tail.s)
		dbuf_put(&w->joined, m->tail.s, m->tail.len);
	if (len)
		*len = w->joined.oom ? 0 : w->joined.len;
	return w->joined.oom ? "" : w->joined.s;
}

int diag_memcheck_core_wait_parse(const char *v, double *wait)
{
	*wait = 2.0;
	if (!v || !*v)
		return 0;
	if (strcmp(v, "never") == 0) {
		*wait = -1;
		return 0;
	}
	char *end;
	errno = 0;
	double d = strtod(v, &end);
	/* a finite number of seconds: "inf" and "nan" read as numbers */
	if (end == v || *end || errno || !(d > -1e9 && d < 1e9))
		return -1;
	*wait = d < 0 ? -1 : d;
	return 0;
}

double diag_memcheck_core_wait(void)
{
	double wait;
	(void)diag_memcheck_core_wait_parse(getenv("CUDBG_PASS_CORE_WAIT"),
					    &wait);
	return wait;
}

enum diag_memcheck_early diag_memcheck_early(const struct diag_memcheck *m)
{
	return m->early;
}

uint64_t diag_memcheck_big_alloc(const struct diag_memcheck *m)
{
	return m->big_alloc;
}

bool diag_memcheck_first_imprecise(const struct diag_memcheck *m)
{
	/* memcheck's coredump of it: racecheck, initcheck and synccheck
	 * write none, and their findings are no stop (sync_divergent's
	 * "Barrier error", run 18) */
	return m->first == FIRST_IMPRECISE && m->done &&
	       (m->core_found || m->early == DIAG_MC_EARLY_IMPRECISE);
}

/* (finding_has_line says what counts as a line.) */
bool diag_memcheck_first_has_line(const struct diag_memcheck *m)
{
	struct diag_memcheck *w = (struct diag_memcheck *)(uintptr_t)m;
	if (m->line_read)
		return m->first_line;
	size_t len;
	const char *text = diag_memcheck_text(m, &len);
	if (!text || !len)
		return false;
	struct diag_san *s = diag_san_from_text(text, len);
	bool line = finding_has_line(diag_san_first_error(s), text, len);
	diag_san_free(s);
	/* the text is whole once the pass is done: read it once (the run
	 * and the decision to open the coredump both ask) */
	w->line_read = m->done;
	w->first_line = line;
	return line;
}

const char *diag_memcheck_core_to_open(const struct diag_memcheck *m)
{
	const char *core = diag_memcheck_core_path(m);
	if (!core || diag_memcheck_first_imprecise(m))
		return NULL;
	/* a precise first error with no line: the coredump stops where the
	 * text did, with no line either; the live run stops at the line */
	if (m->first == FIRST_PRECISE && !diag_memcheck_first_has_line(m))
		return NULL;
	return core;
}

double diag_memcheck_core_began(const struct diag_memcheck *m)
{
	return m->core_began;
}

const char *diag_memcheck_dir(const struct diag_memcheck *m)
{
	return m->dir;
}

const char *diag_memcheck_report_path(const struct diag_memcheck *m)
{
	return m->report;
}

const char *diag_memcheck_core_path(const struct diag_memcheck *m)
{
	return m->done && m->core_found ? m->core : NULL;
}

struct diag_san *diag_memcheck_report(struct diag_memcheck *m, char *err,
				      size_t errcap)
{
	if (!m->done) {
		snprintf(err, errcap, "memcheck: the pass has not finished");
		return NULL;
	}
	struct diag_san *s = NULL;
	if (m->early) {
		size_t len;
		const char *text = diag_memcheck_text(m, &len);
		s = diag_san_from_text(text, len);
		if (!s)
			snprintf(err, errcap, "memcheck: out of memory");
		return s;
	}
	struct stat sb;
	if (lstat(m->report, &sb) != 0) {
		snprintf(err, errcap, "memcheck: compute-sanitizer wrote no "
			 "report (it ended with %s %d); see its output",
			 m->signalled ? "signal" : "status", m->status);
		return NULL;
	}
	/* our private directory: anything but a file the sanitizer wrote
	 * there (a link planted to make us read another file) is refused */
	if (!S_ISREG(sb.st_mode)) {
		snprintf(err, errcap, "memcheck: the report %s is not a "
			 "regular file (a link?); not read", m->report);
		return NULL;
	}
	if (diag_san_load_file(m->report, &s, err, errcap) < 0)
		return NULL;
	size_t len;
	const char *text = diag_memcheck_text(m, &len);
	diag_san_add_text(s, text, len);
	return s;
}
