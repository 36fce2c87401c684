/* Load: replays big_grid (a full H200: -cuda-info-threads coalesced is one
 * 10.5 MB line, uncoalesced one 60 MB line) through the real session and
 * decodes every table the way the model keeps them, then reports
 *   - peak memory of this process against the size of the biggest line
 *     (target: at most 1.5x), and
 *   - the longest time one session_handle() call kept the loop busy while
 *     those lines arrived (target: none over 16 ms).
 * The reference run does the same without streaming (whole lines parsed
 * into a tree, then decoded), in a child process so each has its own peak.
 *
 * Usage: bench_load [FIXTURES_DIR]   (default $CUDBG_FIXTURES) */
#include "cudbg/decode.h"
#include "cudbg/session.h"
#include "cudbg/transcript.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct cmds {
	char **v;
	size_t n;
	size_t biggest; /* longest debugger line, bytes */
};

static int collect(void *ctx, const struct transcript_entry *e, size_t full)
{
	struct cmds *c = ctx;
	if (e->tag == TRANSCRIPT_OUT && full > c->biggest)
		c->biggest = full;
	if (e->tag != TRANSCRIPT_CMD)
		return 0;
	c->v = realloc(c->v, (c->n + 1) * sizeof *c->v);
	c->v[c->n++] = strndup(e->text, e->len);
	return 0;
}

struct run {
	bool stream;
	size_t pending;
	size_t rows;            /* rows in the decoded tables */
	size_t tables;
	size_t table_bytes;     /* what the decoded tables hold */
	struct dec_table kept[16];
	struct dec_table_builder *b;
	double max_handle_ms;
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void on_row(void *ctx, const struct mi_node *row)
{
	struct run *r = ctx;
	dec_table_builder_row(r->b, row);
}

static void keep(struct run *r, struct dec_table *t)
{
	r->rows += t->nr_rows;
	r->table_bytes += dec_arena_size(t->arena);
	if (r->tables < sizeof r->kept / sizeof r->kept[0])
		r->kept[r->tables++] = *t;
	else
		dec_table_free(t);
}

static void on_table(void *ctx, const struct session_reply *rep)
{
	struct run *r = ctx;
	r->pending--;
	struct dec_table t;
	if (r->stream) {
		int rc = rep->rec ? dec_table_builder_finish(r->b,
							      rep->rec->results, &t) : -1;
		if (rc == 0)
			keep(r, &t);
		else if (!rep->rec)
			dec_table_builder_free(r->b);
		r->b = NULL;
	} else if (rep->rec && dec_table_decode(rep->rec->results, &t) == 0) {
		keep(r, &t);
	}
}

static void on_other(void *ctx, const struct session_reply *rep)
{
	(void)rep;
	((struct run *)ctx)->pending--;
}

static bool is_table_cmd(const char *c)
{
	return strncmp(c, "-cuda-info-", 11) == 0;
}

/* One command at a time, in recorded order, so the replay answers each
 * with what followed it in the recording. */
static int drive(struct session *s, struct run *r, const struct cmds *c)
{
	for (size_t i = 0; i < c->n; i++) {
		const char *cmd = c->v[i];
		if (strncmp(cmd, "-inferior-tty-set", 17) == 0 ||
		    strncmp(cmd, "-gdb-exit", 9) == 0)
			continue;
		r->pending++;
		if (is_table_cmd(cmd) && r->stream) {
			r->b = dec_table_builder_new();
			session_send_rows(s, on_row, on_table, r, "%s", cmd);
		} else {
			session_send(s, is_table_cmd(cmd) ? on_table : on_other,
				     r, "%s", cmd);
		}
		while (r->pending > 0) {
			struct pollfd fds[SESSION_MAX_POLLFDS];
			int n = session_pollfds(s, fds, SESSION_MAX_POLLFDS);
			poll(fds, (nfds_t)n, 1000);
			double t0 = now_ms();
			int rc = session_handle(s, fds, n);
			double dt = now_ms() - t0;
			if (dt > r->max_handle_ms)
				r->max_handle_ms = dt;
			if (rc < 0)
				return rc;
		}
	}
	return 0;
}

static long peak_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;
	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

struct result {
	long peak_kb;
	double max_handle_ms;
	size_t rows, table_bytes;
	int rc;
};

static void wait_ready(struct session *s)
{
	while (!session_ready(s) && session_alive(s)) {
		struct pollfd fds[SESSION_MAX_POLLFDS];
		int n = session_pollfds(s, fds, SESSION_MAX_POLLFDS);
		poll(fds, (nfds_t)n, 1000);
		session_handle(s, fds, n);
	}
}

static struct result run_once(const char *path, const struct cmds *c,
			      bool stream)
{
	struct result res = { .rc = -1 };
	struct session_config cfg = { .backend = SESSION_REPLAY, .replay = path };
	struct session_handlers h = { 0 };
	char err[512];
	struct session *s = session_new(&cfg, &h, err, sizeof err, NULL);
	if (!s) {
		fprintf(stderr, "bench_load: %s\n", err);
		return res;
	}
	struct run r = { .stream = stream };
	wait_ready(s);
	res.rc = drive(s, &r, c);
	session_free(s);
	res.peak_kb = peak_rss_kb();
	res.max_handle_ms = r.max_handle_ms;
	res.rows = r.rows;
	res.table_bytes = r.table_bytes;
	for (size_t i = 0; i < r.tables; i++)
		dec_table_free(&r.kept[i]);
	return res;
}

/* The reference in a child, so its peak does not hide ours. */
static struct result run_in_child(const char *path, const struct cmds *c,
				  bool stream)
{
	struct result res = { .rc = -1 };
	int fds[2];
	if (pipe(fds) != 0)
		return res;
	pid_t pid = fork();
	if (pid == 0) {
		close(fds[0]);
		res = run_once(path, c, stream);
		if (write(fds[1], &res, sizeof res) != (ssize_t)sizeof res)
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &res, sizeof res) != (ssize_t)sizeof res)
		res.rc = -1;
	close(fds[0]);
	waitpid(pid, NULL, 0);
	return res;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : getenv("CUDBG_FIXTURES");
	char path[4096];
	snprintf(path, sizeof path, "%s/big_grid.mi.log.gz",
		 dir ? dir : "tests/shared/fixtures");
	struct cmds c = { 0 };
	char err[512];
	if (transcript_scan(path, 4096, collect, &c, err, sizeof err) < 0) {
		fprintf(stderr, "bench_load: %s (set CUDBG_FIXTURES)\n", err);
		return 2;
	}
	struct result ref = run_in_child(path, &c, false);
	struct result st = run_in_child(path, &c, true);
	double text_mb = (double)c.biggest / 1e6;
	if (st.rc < 0 || ref.rc < 0) {
		fprintf(stderr, "bench_load: the replay failed\n");
		return 1;
	}
	printf("measure=load_peak_rss value=%.1f unit=MB ref=%.1f ratio=%.2f "
	       "(peak of the process against the biggest line; rows=%zu, "
	       "tables=%.1f MB)\n", (double)st.peak_kb / 1e3, text_mb,
	       (double)st.peak_kb * 1e3 / (double)c.biggest, st.rows,
	       (double)st.table_bytes / 1e6);
	printf("measure=load_peak_rss_unstreamed value=%.1f unit=MB ref=%.1f "
	       "ratio=%.2f (the same without streaming; rows=%zu)\n",
	       (double)ref.peak_kb / 1e3, text_mb,
	       (double)ref.peak_kb * 1e3 / (double)c.biggest, ref.rows);
	printf("measure=load_max_stall value=%.1f unit=ms ref=16 ratio=%.2f "
	       "(longest session_handle() call; unstreamed %.1f ms)\n",
	       st.max_handle_ms, st.max_handle_ms / 16.0, ref.max_handle_ms);
	for (size_t i = 0; i < c.n; i++)
		free(c.v[i]);
	free(c.v);
	return st.rows == ref.rows && st.rows > 0 ? 0 : 1;
}
