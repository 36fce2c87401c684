/* Every shared fixture replays through the session (the same code that
 * drives a real debugger): after the recorded start, sending the
 * recording's own commands gives back its records in order; its program
 * lines reach the pty; the seed case stops where cuda-gdb stopped. */
#include "cudbg/session.h"
#include "cudbg/transcript.h"
#include "tests/harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

struct seen {
	struct session *s;
	char **items;        /* "K klass" per record and reply, in order */
	size_t n, cap;
	char first_stop[4096];
	char *out;           /* program output */
	size_t out_len;
	bool ready, exited, replied;
	int ready_status;
	char exit_reason[512];
	long threads_rows;   /* rows counted in a -cuda-info-threads reply */
	long threads_nr;     /* its nr_rows */
};

/* "^done", "*stopped", "~" ... : what the comparison looks at. */
static char *kind_of(const struct mi_record *rec)
{
	char buf[96];
	static const char pre[] = "^*+=~@&?";
	int k = rec->kind;
	char p = rec->kind == MI_REC_ERROR ? '?' : k < 7 ? pre[k] : '!';
	if (rec->kind >= MI_REC_CONSOLE && rec->kind <= MI_REC_LOG)
		snprintf(buf, sizeof buf, "%c", p);
	else
		snprintf(buf, sizeof buf, "%c%.80s", p, rec->klass);
	return strdup(buf);
}

static void push(struct seen *w, const struct mi_record *rec)
{
	if (rec->kind == MI_REC_PROMPT)
		return;
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 256;
		w->items = realloc(w->items, w->cap * sizeof *w->items);
		CHECK(w->items != NULL);
	}
	w->items[w->n++] = kind_of(rec);
}

static void on_record(void *ctx, const struct mi_record *rec)
{
	struct seen *w = ctx;
	push(w, rec);
	if (rec->kind == MI_REC_EXEC && strcmp(rec->klass, "stopped") == 0 &&
	    !w->first_stop[0]) {
		char *t = session_format_record(rec, NULL);
		snprintf(w->first_stop, sizeof w->first_stop, "%s", t ? t : "");
		free(t);
	}
}

static void on_output(void *ctx, const char *buf, size_t len)
{
	struct seen *w = ctx;
	w->out = realloc(w->out, w->out_len + len + 1);
	CHECK(w->out != NULL);
	memcpy(w->out + w->out_len, buf, len);
	w->out_len += len;
	w->out[w->out_len] = 0;
}

static void on_ready(void *ctx, int status, const char *msg)
{
	struct seen *w = ctx;
	(void)msg;
	w->ready = true;
	w->ready_status = status;
}

static void on_exit_ev(void *ctx, const struct session_exit *ex)
{
	struct seen *w = ctx;
	w->exited = true;
	snprintf(w->exit_reason, sizeof w->exit_reason, "%s", ex->reason);
}

static void count_threads(struct seen *w, const struct mi_record *rec)
{
	const struct mi_node *t = mi_find_children(rec->results,
					"CoalescedInfoCudaThreadsTable");
	if (!t)
		return;
	const char *nr = mi_find_str(t, "nr_rows");
	const struct mi_node *body = mi_find_children(t, "body");
	w->threads_nr = nr ? atol(nr) : -1;
	w->threads_rows = 0;
	for (; body; body = body->next)
		w->threads_rows++;
}

static void on_reply(void *ctx, const struct session_reply *r)
{
	struct seen *w = ctx;
	w->replied = true;
	if (r->rec) {
		push(w, r->rec);
		count_threads(w, r->rec);
	}
}

static bool pred_ready(void *ctx)
{
	struct seen *w = ctx;
	return w->ready || w->exited;
}

static bool pred_exited(void *ctx)
{
	return ((struct seen *)ctx)->exited;
}

static bool pred_replied(void *ctx)
{
	struct seen *w = ctx;
	return w->replied || w->exited;
}

/* Where the recording's own story starts: its run command, or its last
 * attach/target/core command (which the session sends at start). */
static long start_index(struct transcript *t, bool run)
{
	long at = -1;
	for (size_t i = 0; i < transcript_count(t); i++) {
		struct transcript_entry e;
		if (transcript_tag(t, i) != '>' || transcript_get(t, i, &e))
			continue;
		size_t len;
		const char *b = transcript_command_body(e.text, e.len, &len,
							NULL);
		if (run && len >= 9 && memcmp(b, "-exec-run", 9) == 0)
			return (long)i;
		if (!run && len >= 8 && (memcmp(b, "-target-", 8) == 0 ||
					 memmem(b, len, "target cudacore", 15)))
			at = (long)i;
		if (!run && len >= 6 && memcmp(b, "-exec-", 6) == 0)
			break;
	}
	return at;
}

struct expect {
	char **items;
	size_t n;
	bool skip_result; /* the start command's result is the session's */
};

static void expect_rec(void *ctx, const struct mi_record *rec)
{
	struct expect *x = ctx;
	if (rec->kind == MI_REC_PROMPT)
		return;
	if (rec->kind == MI_REC_RESULT && x->skip_result) {
		x->skip_result = false;
		return;
	}
	x->items[x->n++] = kind_of(rec);
}

/* The records after entry `from`; when the session sent that command
 * itself (attach, remote, core), its result went to the session's own
 * continuation (on_ready tells how it went), not to us. */
static void expected_after(struct transcript *t, size_t from,
			   bool own_start, struct expect *x)
{
	size_t n = transcript_count(t);
	x->items = calloc(n + 1, sizeof *x->items);
	x->n = 0;
	x->skip_result = own_start;
	struct transcript_entry e;
	for (size_t i = from; i < n; i++)
		if (transcript_tag(t, i) == '<' && transcript_get(t, i, &e) == 0)
			mi_parse_line(e.text, e.len, expect_rec, x);
}

static bool all_t_lines_seen(struct transcript *t, const char *out)
{
	for (size_t i = 0; i < transcript_count(t); i++) {
		struct transcript_entry e;
		if (transcript_tag(t, i) != 'T' || transcript_get(t, i, &e) ||
		    e.len == 0)
			continue;
		char *line = strndup(e.text, e.len);
		bool found = out && strstr(out, line);
		free(line);
		if (!found)
			return false;
	}
	return true;
}

struct tcheck {
	struct transcript *t;
	struct seen *w;
};

static bool pred_t_lines(void *ctx)
{
	struct tcheck *c = ctx;
	return all_t_lines_seen(c->t, c->w->out);
}

static void replay_fixture(const char *name, struct seen *w)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), name);
	if (access(path, R_OK) != 0)
		test_skip("no fixture %s", path);
	struct transcript *t;
	CHECK_MSG(transcript_load(path, &t, err, sizeof err) == 0, "%s", err);
	struct session_config cfg = { .backend = SESSION_REPLAY,
				      .replay = path };
	struct session_handlers h = { .ctx = w, .on_record = on_record,
				      .on_output = on_output,
				      .on_ready = on_ready,
				      .on_exit = on_exit_ev };
	w->s = session_new(&cfg, &h, err, sizeof err, NULL);
	CHECK_MSG(w->s != NULL, "%s", err);
	CHECK_INT(session_run_until(w->s, pred_ready, w, 60000), 1);
	CHECK_MSG(w->ready && w->ready_status == 0, "%s: not ready: %s", name,
		  w->exit_reason);
	bool run = session_needs_run(w->s);
	long from = start_index(t, run);
	CHECK_MSG(from >= 0, "%s: no start command", name);
	size_t mark = w->n;
	if (run) {
		w->replied = false;
		CHECK(session_run(w->s, on_reply, w) > 0);
		CHECK(session_run_until(w->s, pred_replied, w, 60000) == 1);
	}
	for (size_t i = (size_t)from + 1; i < transcript_count(t) &&
	     !w->exited; i++) {
		struct transcript_entry e;
		if (transcript_tag(t, i) != '>')
			continue;
		CHECK_INT(transcript_get(t, i, &e), 0);
		w->replied = false;
		CHECK(session_send(w->s, on_reply, w, "%.*s", (int)e.len,
				   e.text) > 0);
		CHECK_MSG(session_run_until(w->s, pred_replied, w, 60000) == 1,
			  "%s: no answer to line %lu", name, e.line);
	}
	/* Records that follow the last reply (the recordings end with
	 * -gdb-exit: the fake then exits and everything is read). */
	session_run_until(w->s, pred_exited, w, 5000);
	/* Everything from the start on came back in the recorded order. */
	struct expect x;
	expected_after(t, (size_t)from, !run, &x);
	CHECK_MSG(w->n >= x.n, "%s: %zu records, want at least %zu", name,
		  w->n, x.n);
	size_t off = w->n - x.n;
	CHECK_MSG(off >= mark || !run, "%s: records start too early", name);
	for (size_t k = 0; k < x.n; k++)
		CHECK_MSG(strcmp(w->items[off + k], x.items[k]) == 0,
			  "%s: record %zu is %s, want %s", name, k,
			  w->items[off + k], x.items[k]);
	/* The program's lines arrived on its pty. */
	struct tcheck tc = { t, w };
	CHECK_MSG(session_run_until(w->s, pred_t_lines, &tc, 10000) == 1 ||
		  all_t_lines_seen(t, w->out), "%s: T lines missing", name);
	session_free(w->s);
	for (size_t k = 0; k < x.n; k++)
		free(x.items[k]);
	free(x.items);
	transcript_free(t);
}

static void seen_free(struct seen *w)
{
	for (size_t k = 0; k < w->n; k++)
		free(w->items[k]);
	free(w->items);
	free(w->out);
}

#define FIXTURE_TEST(id, file, secs)                                       \
	TEST_TIMEOUT(replay_##id, secs)                                    \
	{                                                                  \
		struct seen w = { 0 };                                     \
		replay_fixture(file, &w);                                  \
		CHECK(w.first_stop[0] || strstr(file, "core_"));           \
		seen_free(&w);                                             \
	}

FIXTURE_TEST(assert_label, "assert_label.mi.log", 60)
FIXTURE_TEST(attach, "attach.mi.log", 60)
FIXTURE_TEST(cluster, "cluster.mi.log", 60)
FIXTURE_TEST(core_seed_py, "core_seed_py.mi.log", 60)
FIXTURE_TEST(core_small_oob, "core_small_oob.mi.log", 60)
FIXTURE_TEST(filters, "filters.mi.log", 60)
FIXTURE_TEST(late_condition, "late_condition.mi.log", 60)
FIXTURE_TEST(null_write, "null_write.mi.log", 60)
FIXTURE_TEST(recursion, "recursion.mi.log", 60)
FIXTURE_TEST(remote, "remote.mi.log", 60)
FIXTURE_TEST(replay_to_fault, "replay_to_fault.mi.log", 60)
FIXTURE_TEST(step_kernel, "step_kernel.mi.log", 60)
FIXTURE_TEST(trap, "trap.mi.log", 60)
FIXTURE_TEST(warp_watch, "warp_watch.mi.log", 60)

TEST_TIMEOUT(replay_seed_py_stops_at_the_warp_assert, 60)
{
	struct seen w = { 0 };
	replay_fixture("seed_py.mi.log", &w);
	const char *st = w.first_stop;
	CHECK(strstr(st, "signal-name=\"CUDA_EXCEPTION_12\""));
	CHECK(strstr(st, "signal-meaning=\"Warp Assert\""));
	CHECK(strstr(st, "blockIdx=\"(0,0,0)\""));
	CHECK(strstr(st, "threadIdx=\"(23,0,0)\""));
	CHECK(strstr(st, "nll_loss_forward_reduce_cuda_kernel_2d"));
	CHECK(strstr(w.out, "Loss.cu:245: nll_loss_forward_reduce_cuda_kernel_2d"));
	seen_free(&w);
}

TEST_TIMEOUT(replay_big_grid_threads_table, 300)
{
	struct seen w = { 0 };
	replay_fixture("big_grid.mi.log.gz", &w);
	/* The last threads table (uncoalesced off: still coalesced rows
	 * counted where the recording has them). */
	CHECK(strstr(w.first_stop, "blockIdx=\"(132,0,0)\""));
	CHECK(w.threads_nr > 0);
	CHECK_INT(w.threads_rows, w.threads_nr);
	seen_free(&w);
}

TEST(replay_of_a_truncated_transcript_is_a_clear_error)
{
	char path[] = "/tmp/cudbg-trunc-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	const char text[] = "   0.1 < =thread-group-added,id=\"i1\"\n"
			    "   0.2 > -gdb-version\n   0.3 < ^do";
	CHECK(write(fd, text, sizeof text - 1) == (ssize_t)sizeof text - 1);
	close(fd);
	struct session_config cfg = { .backend = SESSION_REPLAY,
				      .replay = path };
	struct seen w = { 0 };
	struct session_handlers h = { .ctx = &w };
	char err[512] = "";
	int code = 0;
	CHECK(session_new(&cfg, &h, err, sizeof err, &code) == NULL);
	CHECK_INT(code, SESSION_ETRANSCRIPT);
	CHECK(strstr(err, path) && strstr(err, ":3: the transcript is cut short"));
	unlink(path);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool pred_first_stop(void *ctx)
{
	struct seen *w = ctx;
	return w->first_stop[0] || w->exited;
}

/* Seconds from -exec-run to the stop, replaying a stop recorded 0.6 s
 * after the run. */
static double time_to_stop(bool realtime)
{
	char path[] = "/tmp/cudbg-rt-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	const char text[] = "   0.0 < (gdb) \n   0.1 > -exec-run\n"
			    "   0.1 < ^running\n"
			    "   0.7 < *stopped,reason=\"exited-normally\"\n";
	CHECK(write(fd, text, sizeof text - 1) == (ssize_t)sizeof text - 1);
	close(fd);
	struct seen w = { 0 };
	struct session_config cfg = { .backend = SESSION_REPLAY,
				      .replay = path,
				      .replay_realtime = realtime };
	struct session_handlers h = { .ctx = &w, .on_record = on_record,
				      .on_ready = on_ready,
				      .on_exit = on_exit_ev };
	char err[256];
	w.s = session_new(&cfg, &h, err, sizeof err, NULL);
	CHECK_MSG(w.s != NULL, "%s", err);
	CHECK(session_run_until(w.s, pred_ready, &w, 10000) == 1);
	double t0 = now_s();
	CHECK(session_run(w.s, NULL, NULL) > 0);
	CHECK(session_run_until(w.s, pred_first_stop, &w, 10000) == 1);
	double dt = now_s() - t0;
	CHECK(strstr(w.first_stop, "exited-normally") != NULL);
	session_free(w.s);
	seen_free(&w);
	unlink(path);
	return dt;
}

TEST(replay_is_fast_unless_asked_to_keep_time)
{
	double fast = time_to_stop(false), slow = time_to_stop(true);
	CHECK_MSG(fast < 0.4, "fast replay took %.3f s", fast);
	CHECK_MSG(slow >= 0.55, "realtime replay took %.3f s", slow);
}

static void must_not_run(void *ctx, const struct session_reply *r)
{
	(void)ctx;
	(void)r;
	test_fail(__FILE__, __LINE__, "a forgotten continuation ran");
}

static bool pred_idle(void *ctx)
{
	struct seen *w = ctx;
	return session_pending(w->s) == 0 || w->exited;
}

TEST(forgotten_continuations_do_not_run)
{
	char path[4096], err[256];
	snprintf(path, sizeof path, "%s/assert_label.mi.log",
		 test_fixtures_dir());
	if (access(path, R_OK) != 0)
		test_skip("no fixture");
	struct seen w = { 0 };
	struct session_config cfg = { .backend = SESSION_REPLAY,
				      .replay = path };
	struct session_handlers h = { .ctx = &w, .on_ready = on_ready,
				      .on_exit = on_exit_ev };
	w.s = session_new(&cfg, &h, err, sizeof err, NULL);
	CHECK_MSG(w.s != NULL, "%s", err);
	CHECK(session_run_until(w.s, pred_ready, &w, 10000) == 1);
	int token = 0;
	CHECK(session_send(w.s, must_not_run, &token, "-thread-info") > 0);
	CHECK_INT(session_pending(w.s), 1);
	const char *cmd = NULL;
	CHECK(session_busy_seconds(w.s, &cmd) >= 0);
	CHECK_STR(cmd, "-thread-info");
	session_forget(w.s, &token);
	CHECK(session_run_until(w.s, pred_idle, &w, 10000) == 1);
	CHECK(!w.exited);
	session_free(w.s);
	seen_free(&w);
}

TEST(program_terminal_size)
{
	char path[4096], err[256];
	snprintf(path, sizeof path, "%s/trap.mi.log", test_fixtures_dir());
	if (access(path, R_OK) != 0)
		test_skip("no fixture");
	struct seen w = { 0 };
	struct session_config cfg = { .backend = SESSION_REPLAY,
				      .replay = path };
	struct session_handlers h = { .ctx = &w };
	w.s = session_new(&cfg, &h, err, sizeof err, NULL);
	CHECK_MSG(w.s != NULL, "%s", err);
	int fd = open(session_tty_name(w.s), O_RDONLY | O_NOCTTY);
	CHECK(fd >= 0);
	struct winsize ws;
	CHECK(ioctl(fd, TIOCGWINSZ, &ws) == 0);
	CHECK(ws.ws_col == 80 && ws.ws_row == 24);
	CHECK_INT(session_set_program_size(w.s, 132, 43), 0);
	CHECK(ioctl(fd, TIOCGWINSZ, &ws) == 0);
	CHECK(ws.ws_col == 132 && ws.ws_row == 43);
	CHECK_INT(session_set_program_size(w.s, 0, 43), SESSION_EINVAL);
	close(fd);
	session_free(w.s);
	seen_free(&w);
}
