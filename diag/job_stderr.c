/* What the job's stderr says (include/cudbg/job.h, docs/multiprocess.md):
 * what NCCL and gloo print when a collective cannot complete, and what a
 * launcher (the DataLoader, torchrun, mpirun) prints when a worker whose
 * status it reaped died.  Pure parsers over one line's bytes (fuzzed by
 * tests/fuzz/fuzz_job.c); the forms are the libraries' own words as
 * users' logs and the GPU machine's runs show them (the unit tests
 * job/collectives_from_the_libraries_words, job/deaths_a_launcher_names
 * hold one of each). */
#include "cudbg/job.h"
#include "diag/internal.h"

#include <ctype.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first occurrence of needle in [s, s + n), or NULL. */
static const char *find(const char *s, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; k <= n && i <= n - k; i++)
		if (memcmp(s + i, needle, k) == 0)
			return s + i;
	return NULL;
}

/* The decimal number at p (before end), -1 when none; *after past it. */
static long long num_at(const char *p, const char *end, const char **after)
{
	long long v = 0;
	const char *q = p;
	while (q < end && isdigit((unsigned char)*q) && v < 1000000000000000LL)
		v = v * 10 + (*q++ - '0');
	if (after)
		*after = q;
	return q == p ? -1 : v;
}

/* The number after key in [s, end), -1 when absent. */
static long long num_after(const char *s, const char *end, const char *key)
{
	const char *k = find(s, (size_t)(end - s), key);
	return k ? num_at(k + strlen(key), end, NULL) : -1;
}

/* Copies the bytes of [s, end) up to a stop byte into out (cap). */
static void copy_until(char *out, size_t cap, const char *s, const char *end,
		       const char *stops)
{
	size_t n = 0;
	while (s < end && n + 1 < cap && !strchr(stops, *s))
		out[n++] = *s++;
	out[n] = '\0';
}

/* "[rank3]:" at the start (torchrun's --tee prefix), -1 when none. */
static long prefix_rank(const char *s, const char *end)
{
	if (end - s < 7 || memcmp(s, "[rank", 5) != 0)
		return -1;
	const char *after;
	long long r = num_at(s + 5, end, &after);
	return r >= 0 && after + 1 < end && after[0] == ']' && after[1] == ':'
		       ? (long)r : -1;
}

/* "[Rank 3]" anywhere before at (NCCL's own), -1 when none. */
static long message_rank(const char *s, const char *at)
{
	const char *r = NULL;
	for (const char *p = s; (p = find(p, (size_t)(at - p), "Rank ")); p += 5)
		r = p;
	return r ? (long)num_at(r + 5, at, NULL) : -1;
}

static void set_text(struct job_collective *c, const char *s, const char *end)
{
	copy_until(c->text, sizeof c->text, s, end, "\r\n");
}

static bool nccl_watchdog(const char *s, const char *end,
			  struct job_collective *c)
{
	const char *w = find(s, (size_t)(end - s), "Watchdog caught collective "
			     "operation timeout: WorkNCCL(");
	if (!w)
		return false;
	c->kind = JOB_COLL_TIMEOUT;
	strcpy(c->backend, "NCCL");
	c->rank = message_rank(s, w);
	const char *op = find(w, (size_t)(end - w), "OpType=");
	if (op)
		copy_until(c->op, sizeof c->op, op + 7, end, ",) ");
	c->seq = num_after(w, end, "SeqNum=");
	c->timeout_ms = num_after(w, end, "Timeout(ms)=");
	c->ran_ms = num_after(w, end, ") ran for ");
	set_text(c, w, end);
	return true;
}

static bool nccl_error(const char *s, const char *end, struct job_collective *c)
{
	const char *e = find(s, (size_t)(end - s), "NCCL error in: ");
	const char *dup = find(s, (size_t)(end - s), "Duplicate GPU detected");
	if (!e && !dup)
		return false;
	c->kind = JOB_COLL_ERROR;
	strcpy(c->backend, "NCCL");
	if (dup) {
		set_text(c, dup, end);
		return true;
	}
	/* "NCCL error in: FILE:LINE, MESSAGE, NCCL version X": the message */
	const char *comma = memchr(e, ',', (size_t)(end - e));
	const char *msg = comma && comma + 2 <= end ? comma + 2 : e;
	const char *ver = find(msg, (size_t)(end - msg), ", NCCL version");
	set_text(c, msg, ver ? ver : end);
	return true;
}

static bool gloo_timeout(const char *s, const char *end,
			 struct job_collective *c)
{
	const char *t = find(s, (size_t)(end - s), "Timed out waiting ");
	if (!t)
		return false;
	const char *after;
	long long ms = num_at(t + 18, end, &after);
	if (ms < 0 || end - after < 7 || memcmp(after, "ms for ", 7) != 0)
		return false;
	c->kind = JOB_COLL_TIMEOUT;
	strcpy(c->backend, "gloo");
	c->timeout_ms = ms;
	copy_until(c->op, sizeof c->op, after + 7, end, " ");
	set_text(c, t, end);
	return true;
}

static bool gloo_peer_gone(const char *s, const char *end,
			   struct job_collective *c)
{
	const char *g = find(s, (size_t)(end - s), "Connection closed by peer");
	if (!g)
		return false;
	c->kind = JOB_COLL_PEER_GONE;
	strcpy(c->backend, "gloo");
	set_text(c, g, end);
	return true;
}

bool job_parse_collective(const char *line, size_t len,
			  struct job_collective *out)
{
	memset(out, 0, sizeof *out);
	out->rank = out->seq = -1;
	out->timeout_ms = out->ran_ms = -1;
	const char *end = line + len;
	bool hit = nccl_watchdog(line, end, out) || nccl_error(line, end, out) ||
		   gloo_timeout(line, end, out) || gloo_peer_gone(line, end, out);
	if (hit && out->rank < 0)
		out->rank = prefix_rank(line, end);
	return hit;
}

static bool alike(const struct job_collective *a, const struct job_collective *b)
{
	return a->kind == b->kind && a->rank == b->rank && a->seq == b->seq &&
	       strcmp(a->backend, b->backend) == 0 && strcmp(a->op, b->op) == 0;
}

void job_add_collective(struct job *j, const struct job_collective *c)
{
	size_t cap = sizeof j->colls / sizeof j->colls[0];
	for (size_t i = 0; i < j->ncolls; i++)
		if (alike(&j->colls[i], c))
			return;
	if (j->ncolls < cap)
		j->colls[j->ncolls++] = *c;
}

/* ---- a launcher's words about a worker's end ---- */

/* A signal by the words strsignal() gives it ("Segmentation fault"), 0. */
static int signal_by_words(const char *s, const char *end)
{
	static const struct { const char *w; int sig; } sigs[] = {
		{ "Segmentation fault", SIGSEGV }, { "Aborted", SIGABRT },
		{ "Bus error", SIGBUS }, { "Floating point exception", SIGFPE },
		{ "Illegal instruction", SIGILL }, { "Killed", SIGKILL },
		{ "Terminated", SIGTERM },
	};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		size_t k = strlen(sigs[i].w);
		if ((size_t)(end - s) >= k && memcmp(s, sigs[i].w, k) == 0)
			return sigs[i].sig;
	}
	return 0;
}

/* "DataLoader worker (pid 18325) is killed by signal: Aborted." */
static bool dataloader_death(const char *s, const char *end,
			     struct job_death *d)
{
	static const char head[] = "DataLoader worker (pid ";
	const char *h = find(s, (size_t)(end - s), head);
	if (!h)
		return false;
	const char *after;
	long long pid = num_at(h + sizeof head - 1, end, &after);
	static const char tail[] = ") is killed by signal: ";
	size_t k = sizeof tail - 1;
	if (pid <= 0 || (size_t)(end - after) < k || memcmp(after, tail, k) != 0)
		return false;
	int sig = signal_by_words(after + k, end);
	if (!sig)
		return false;
	d->pid = (long)pid;
	d->signalled = true;
	d->status = sig;
	return true;
}

/* torchrun's failure table ("exitcode  : -6 (pid: 17830)") and its log
 * line ("failed (exitcode: -6) local_rank: 1 (pid: 17830)"): a negative
 * exit code is the signal. */
static bool torchrun_death(const char *s, const char *end,
			   struct job_death *d)
{
	const char *e = find(s, (size_t)(end - s), "exitcode");
	if (!e)
		return false;
	const char *p = e + 8;
	while (p < end && (*p == ' ' || *p == ':'))
		p++;
	bool neg = p < end && *p == '-';
	const char *after;
	long long code = num_at(p + neg, end, &after);
	const char *pid_at = find(after, (size_t)(end - after), "(pid: ");
	long long pid = pid_at ? num_at(pid_at + 6, end, NULL) : -1;
	if (code < 0 || pid <= 0 || code > 255)
		return false;
	d->pid = (long)pid;
	d->signalled = neg;
	d->status = (int)code;
	return true;
}

/* mpirun: "process rank 1 with PID 0 on node vm exited on signal 6
 * (Aborted)." (Open MPI gives PID 0 where it did not learn it) */
static bool mpirun_death(const char *s, const char *end, struct job_death *d)
{
	static const char head[] = "process rank ";
	const char *h = find(s, (size_t)(end - s), head);
	if (!h || !find(s, (size_t)(end - s), "noticed that"))
		return false;
	const char *after;
	long long rank = num_at(h + sizeof head - 1, end, &after);
	const char *pid_at = find(after, (size_t)(end - after), " with PID ");
	long long pid = pid_at ? num_at(pid_at + 10, end, NULL) : -1;
	const char *sig_at = find(after, (size_t)(end - after), "exited on signal ");
	long long sig = sig_at ? num_at(sig_at + 17, end, NULL) : -1;
	if (rank < 0 || sig <= 0 || sig >= 65)
		return false;
	d->rank = (long)rank;
	d->pid = pid > 0 ? (long)pid : 0;
	d->signalled = true;
	d->status = (int)sig;
	return true;
}

bool job_parse_death(const char *line, size_t len, struct job_death *out)
{
	memset(out, 0, sizeof *out);
	out->rank = -1;
	const char *end = line + len;
	return dataloader_death(line, end, out) ||
	       torchrun_death(line, end, out) || mpirun_death(line, end, out);
}

/* ---- a rank's Python traceback ---- */

/* "[rank3]: " (torchrun's prefix): the rank, and *rest after it; -1. */
static long rank_prefix(const char *s, size_t len, const char **rest)
{
	const char *end = s + len;
	long r = prefix_rank(s, end);
	if (r < 0)
		return -1;
	const char *p = memchr(s, ':', len);
	p = p ? p + 1 : end;
	if (p < end && *p == ' ')
		p++;
	*rest = p;
	return r;
}

static void copy_n(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

bool job_parse_rank_traceback(struct job_tb_state *st, const char *line,
			      size_t len, struct job_rank_error *out)
{
	const char *t;
	long rank = rank_prefix(line, len, &t);
	if (rank < 0 || rank >= (long)(sizeof st->r / sizeof st->r[0]))
		return false;
	size_t n = (size_t)(line + len - t);
	struct job_tb_rank *r = &st->r[rank];
	static const char head[] = "Traceback (most recent call last):";
	if (n >= sizeof head - 1 && memcmp(t, head, sizeof head - 1) == 0) {
		memset(r, 0, sizeof *r);
		r->in = true;
		return false;
	}
	if (!r->in || n == 0)
		return false;
	struct diag_py_file_ref fr;
	if (t[0] == ' ') {
		/* a frame, or its source line and markers */
		if (diag_py_file_line(t, n, &fr) && fr.line > 0) {
			char file[256];
			copy_n(file, sizeof file, fr.file, fr.file_len);
			if (!diag_py_library_file(file)) {
				memcpy(r->file, file, sizeof r->file);
				r->line = fr.line;
				copy_n(r->func, sizeof r->func, fr.func, fr.func_len);
			}
		}
		return false;
	}
	/* the exception line ends it */
	r->in = false;
	memset(out, 0, sizeof *out);
	out->rank = rank;
	copy_n(out->exception, sizeof out->exception, t, n);
	memcpy(out->file, r->file, sizeof out->file);
	out->line = r->line;
	memcpy(out->func, r->func, sizeof out->func);
	return true;
}

const struct job_rank_error *job_rank_error_by_rank(const struct job *j,
						    long rank)
{
	for (size_t i = 0; i < j->nrank_errors; i++)
		if (j->rank_errors[i].rank == rank)
			return &j->rank_errors[i];
	return NULL;
}

const struct job_rank_error *job_rank_error_of(const struct job *j,
					       const char *rank)
{
	char *end;
	long r = rank ? strtol(rank, &end, 10) : -1;
	if (!rank || end == rank || *end)
		return NULL;
	return job_rank_error_by_rank(j, r);
}
