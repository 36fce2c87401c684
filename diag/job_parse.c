/* Parsers for the job's process table: /proc/PID/stat, /proc/PID/environ,
 * /proc/PID/cmdline and coredump file names.  Pure functions over bytes
 * (fuzzed by tests/fuzz/fuzz_job.c).  See include/cudbg/job.h. */
#include "cudbg/job.h"
#include "diag/internal.h"

#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* The fields after "pid (comm)": comm may hold spaces and parentheses,
 * so the fields start after the LAST ')'. */
int job_parse_stat(const char *buf, size_t len, struct job_stat *out)
{
	memset(out, 0, sizeof *out);
	out->exit_code = -1;
	const char *close = NULL;
	for (size_t i = 0; i < len; i++)
		if (buf[i] == ')')
			close = buf + i;
	if (!close)
		return -1;
	const char *p = close + 1, *end = buf + len;
	int field = 2; /* the ')' ends field 2 (comm) */
	bool have_ppid = false;
	while (p < end) {
		while (p < end && *p == ' ')
			p++;
		if (p >= end || *p == '\n')
			break;
		const char *tok = p;
		while (p < end && *p != ' ' && *p != '\n')
			p++;
		field++;
		size_t n = (size_t)(p - tok);
		char num[32];
		if (n >= sizeof num)
			n = sizeof num - 1;
		memcpy(num, tok, n);
		num[n] = '\0';
		if (field == 3) {
			out->state = num[0];
		} else if (field == 4) {
			char *e;
			out->ppid = strtol(num, &e, 10);
			have_ppid = e != num && *e == '\0';
		} else if (field == 20) {
			out->threads = strtol(num, NULL, 10);
		} else if (field == 22) {
			out->starttime = strtoull(num, NULL, 10);
		} else if (field == 52) {
			char *e;
			long v = strtol(num, &e, 10);
			if (e != num && *e == '\0' && v >= 0 && v <= 0xffff)
				out->exit_code = (int)v;
		}
	}
	return have_ppid && out->state ? 0 : -1;
}

/* The variables launchers set, most specific first: torchrun (RANK),
 * Open MPI, MPICH/Hydra (PMI_RANK), PMIx, Slurm. */
static const char *const rank_vars[] = {
	"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
	"SLURM_PROCID",
};
static const char *const local_vars[] = {
	"LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID",
	"SLURM_LOCALID",
};

/* The value of NAME in "NAME=value" when entry is that variable. */
static const char *env_value(const char *entry, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n > k && memcmp(entry, name, k) == 0 && entry[k] == '=')
		return entry + k + 1;
	return NULL;
}

/* A rank is a short decimal; anything else is not trusted as one. */
static bool rank_like(const char *v, size_t n)
{
	if (n == 0 || n > 9)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)v[i]))
			return false;
	return true;
}

int job_parse_environ(const char *buf, size_t len, struct job_proc *p)
{
	size_t best = sizeof rank_vars / sizeof rank_vars[0];
	size_t best_local = sizeof local_vars / sizeof local_vars[0];
	size_t i = 0;
	while (i < len) {
		const char *entry = buf + i;
		const char *nul = memchr(entry, '\0', len - i);
		size_t n = nul ? (size_t)(nul - entry) : len - i;
		for (size_t k = 0; k < best; k++) {
			const char *v = env_value(entry, n, rank_vars[k]);
			size_t vn = v ? n - (size_t)(v - entry) : 0;
			if (v && rank_like(v, vn)) {
				char *r = diag_strndup(v, vn);
				if (!r)
					return -1;
				free(p->rank);
				p->rank = r;
				p->rank_var = rank_vars[k];
				best = k;
				break;
			}
		}
		for (size_t k = 0; k < best_local; k++) {
			const char *v = env_value(entry, n, local_vars[k]);
			size_t vn = v ? n - (size_t)(v - entry) : 0;
			if (v && rank_like(v, vn)) {
				char *r = diag_strndup(v, vn);
				if (!r)
					return -1;
				free(p->local_rank);
				p->local_rank = r;
				best_local = k;
				break;
			}
		}
		i += n + 1;
	}
	return 0;
}

char *job_join_cmdline(const char *buf, size_t len)
{
	while (len > 0 && buf[len - 1] == '\0')
		len--;
	char *s = diag_strndup(buf, len);
	if (!s)
		return NULL;
	for (size_t i = 0; i < len; i++)
		if (s[i] == '\0')
			s[i] = ' ';
	return s;
}

long job_core_pid(const char *name)
{
	size_t n = strlen(name);
	static const char *const exts[] = { ".nvcudmp", ".core", ".gz" };
	for (size_t k = 0; k < sizeof exts / sizeof exts[0]; k++) {
		size_t e = strlen(exts[k]);
		if (n > e && strcmp(name + n - e, exts[k]) == 0)
			n -= e;
	}
	size_t end = n;
	while (end > 0 && !isdigit((unsigned char)name[end - 1]))
		end--;
	/* the digits must end the stem (core.123, core_t_h_123), not sit
	 * inside a word (core123abc is no pid) */
	if (end == 0 || (end < n && name[end] != '.' && name[end] != '_'))
		return -1;
	size_t start = end;
	while (start > 0 && isdigit((unsigned char)name[start - 1]))
		start--;
	if (end - start > 9)
		return -1;
	long pid = 0;
	for (size_t i = start; i < end; i++)
		pid = pid * 10 + (name[i] - '0');
	return pid > 0 ? pid : -1;
}

/* ---- faulthandler's Python stack ---- */

struct pyblock {
	const char *start;    /* first "  File" line of the block */
	size_t nframes;
	bool current;         /* "Current thread ..." */
	bool main_like;       /* a frame of it is <module>: the thread that
			       * runs the script (run as `python -m X`, its
			       * outermost frame is runpy's) */
};

static const char *next_line(const char *s, const char *end, size_t *n)
{
	const char *nl = memchr(s, '\n', (size_t)(end - s));
	*n = nl ? (size_t)(nl - s) : (size_t)(end - s);
	return nl ? nl + 1 : end;
}

/* The blocks of thread stacks in the dump. */
static size_t find_blocks(const char *buf, size_t len, struct pyblock *b,
			  size_t max)
{
	const char *s = buf, *end = buf + len;
	size_t nb = 0;
	bool in = false;
	while (s < end) {
		size_t n;
		const char *l = s;
		s = next_line(s, end, &n);
		struct diag_py_file_ref fr;
		/* "Stack (most recent call first):" when one thread is
		 * dumped (all_threads=False) */
		bool head_cur = (n > 15 && memcmp(l, "Current thread ", 15) == 0) ||
				(n > 6 && memcmp(l, "Stack ", 6) == 0);
		bool head = head_cur || (n > 7 && memcmp(l, "Thread ", 7) == 0);
		if (head && nb < max) {
			memset(&b[nb], 0, sizeof b[nb]);
			b[nb].current = head_cur;
			nb++;
			in = true;
		} else if (in && diag_py_file_line(l, n, &fr)) {
			struct pyblock *cur = &b[nb - 1];
			if (!cur->nframes)
				cur->start = l;
			cur->nframes++;
			cur->main_like |= fr.func_len == 8 &&
					  memcmp(fr.func, "<module>", 8) == 0;
		} else {
			in = false;
		}
	}
	return nb;
}

/* Library code: the user's frame is the first that is not. */
bool diag_py_library_file(const char *f)
{
	return f[0] == '<' || strstr(f, "/site-packages/") ||
	       strstr(f, "/dist-packages/") || strstr(f, "/lib/python") ||
	       strstr(f, "/lib64/python");
}

static int take_frames(const struct pyblock *b, const char *end,
		       struct job_proc *p)
{
	p->py = calloc(b->nframes, sizeof *p->py);
	if (!p->py)
		return -1;
	const char *s = b->start;
	for (size_t i = 0; i < b->nframes && s < end; i++) {
		size_t n;
		const char *l = s;
		struct diag_py_file_ref fr;
		s = next_line(s, end, &n);
		if (!diag_py_file_line(l, n, &fr))
			break;
		struct job_pyframe *f = &p->py[p->npy];
		f->file = diag_strndup(fr.file, fr.file_len);
		f->func = diag_strndup(fr.func, fr.func_len);
		f->line = fr.line;
		if (!f->file || !f->func) {
			free(f->file);
			free(f->func);
			return -1;
		}
		p->npy++;
	}
	p->py_user = -1;
	for (size_t i = 0; i < p->npy && p->py_user < 0; i++)
		if (!diag_py_library_file(p->py[i].file))
			p->py_user = (int)i;
	return 0;
}

/* The thread to take: the one the signal came on ("Current thread"),
 * else the script's main thread.  The driver's abort after a GPU
 * coredump can come on a thread of its own, which Python does not list:
 * an MPI rank's dump on the H200 had no "Current thread" block, and its
 * main thread, run by `python -m mpi4py`, ended in runpy's frames
 * (tests/data/job/pystack-mpi-rank.txt, run 10). */
int job_parse_pystack(const char *buf, size_t len, bool main_first,
		      struct job_proc *p)
{
	struct pyblock b[64];
	p->py_user = -1;
	size_t nb = find_blocks(buf, len, b, sizeof b / sizeof b[0]);
	const struct pyblock *pick = NULL;
	for (size_t i = 0; i < nb && !pick && main_first; i++)
		if (b[i].main_like)
			pick = &b[i];
	for (size_t i = 0; i < nb && !pick; i++)
		if (b[i].current && b[i].nframes)
			pick = &b[i];
	for (size_t i = 0; i < nb && !pick; i++)
		if (b[i].main_like)
			pick = &b[i];
	if (!pick)
		return 0;
	return take_frames(pick, buf + len, p);
}

int job_parse_fatal_signal(const char *buf, size_t len)
{
	static const struct { const char *text; int sig; } fatal[] = {
		{ "Segmentation fault", SIGSEGV }, { "Bus error", SIGBUS },
		{ "Floating point exception", SIGFPE },
		{ "Illegal instruction", SIGILL }, { "Aborted", SIGABRT },
	};
	static const char head[] = "Fatal Python error: ";
	size_t n = sizeof head - 1;
	if (len < n || memcmp(buf, head, n) != 0)
		return 0;
	const char *rest = buf + n;
	size_t left = len - n;
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++) {
		size_t k = strlen(fatal[i].text);
		if (left >= k && memcmp(rest, fatal[i].text, k) == 0 &&
		    (left == k || rest[k] == '\n' || rest[k] == '\r'))
			return fatal[i].sig;
	}
	return 0;
}
