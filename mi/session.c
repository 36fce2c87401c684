/* The debugger session (see include/cudbg/session.h). */
#include "cudbg/base.h"
#include "cudbg/leansym.h"
#include "cudbg/session.h"
#include "cudbg/transcript.h"
#include "mi/session_int.h"
#include "mi/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* A line longer than this is dropped with an error record: the largest
 * real one is the 60 MB uncoalesced threads table of big_grid. */
#define MAX_MI_LINE ((size_t)128 << 20)
/* Reads per fd per session_handle() call, so keys stay responsive while
 * a huge record streams in. */
#define READ_BUDGET ((size_t)1 << 18)
/* Lines longer than this may stream (session_send_rows). */
#define STREAM_THRESHOLD ((size_t)1 << 16)
/* Longest stderr / program line kept whole; longer ones are split. */
#define MAX_SIDE_LINE ((size_t)1 << 16)

double session_elapsed(const struct session *s)
{
	return proc_now_s() - s->t0;
}

__attribute__((format(printf, 2, 3)))
void session_set_error(struct session *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->error, sizeof s->error, fmt, ap);
	va_end(ap);
}

/* ---- recording ------------------------------------------------------------ */

/* The recording failed: says why with the write's own errno, read here
 * at once (it used to be read by session_handle much later, after other
 * calls had changed it: "Resource temporarily unavailable" for a full
 * disk), and stops it; the session goes on. */
static void record_failed(struct session *s)
{
	int e = errno;

	transcript_writer_close(s->rec);
	s->rec = NULL;
	s->rec_failed = true;
	snprintf(s->rec_error, sizeof s->rec_error, "writing the recording "
		 "%.400s failed (%s); recording stopped", s->rec_path ?
		 s->rec_path : "", strerror(e));
}

void session_record(struct session *s, char tag, const char *text,
		    size_t len)
{
	if (!s->rec)
		return;
	if (transcript_write(s->rec, session_elapsed(s), tag, text, len) < 0)
		record_failed(s);
}

const char *session_record_error(const struct session *s)
{
	return s && s->rec_error[0] ? s->rec_error : NULL;
}

void session_note(struct session *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0)
		session_record(s, '#', buf,
			       (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Bounded like the live script's buffer (DIAG_PY_BUF_CAP): a stack of
 * hundreds of frames still fits. */
enum { PYSTACK_NOTE_CAP = 65536 };

int session_keep_pystack_line(struct session *s, const char *line, size_t len)
{
	if (s->noted_pystack_len + len + 2 > PYSTACK_NOTE_CAP)
		return 0; /* the innermost frames came first: keep those */
	char *n = realloc(s->noted_pystack, s->noted_pystack_len + len + 2);
	if (!n)
		return -1;
	memcpy(n + s->noted_pystack_len, line, len);
	s->noted_pystack_len += len;
	n[s->noted_pystack_len++] = '\n';
	n[s->noted_pystack_len] = '\0';
	s->noted_pystack = n;
	return 0;
}

void session_note_pystack(struct session *s, const char *line)
{
	if (!s || !line || strchr(line, '\n'))
		return;
	if (session_keep_pystack_line(s, line, strlen(line)) == 0)
		session_note(s, SESSION_PYSTACK_NOTE "%s", line);
}

const char *session_noted_pystack(const struct session *s)
{
	return s ? s->noted_pystack : NULL;
}

int session_next_user_frame(struct session *s)
{
	if (!s || s->backend != SESSION_REPLAY ||
	    s->next_user_frame >= s->nreplay_user_frames)
		return SESSION_NO_CHOICE;
	return s->replay_user_frames[s->next_user_frame++];
}

void session_note_user_frame(struct session *s, int level)
{
	if (s)
		session_note(s, SESSION_USER_FRAME_NOTE "%d", level);
}

/* ---- side channels: stderr lines, program output -------------------------- */

static int line_append(struct linebuf *lb, const char *s, size_t n)
{
	if (lb->len + n > lb->cap) {
		size_t cap = lb->cap ? lb->cap : 256;
		while (cap < lb->len + n)
			cap *= 2;
		char *nb = realloc(lb->buf, cap + 1);
		if (!nb)
			return -1;
		lb->buf = nb;
		lb->cap = cap;
	}
	memcpy(lb->buf + lb->len, s, n);
	lb->len += n;
	lb->buf[lb->len] = 0;
	return 0;
}

static void stderr_line(struct session *s, const char *line, size_t len)
{
	if (len && line[len - 1] == '\r')
		len--;
	session_record(s, 'E', line, len);
	size_t k = len < sizeof s->last_stderr - 1 ? len
						   : sizeof s->last_stderr - 1;
	if (k > 0) { /* keep the last non-empty line for exit reasons */
		memcpy(s->last_stderr, line, k);
		s->last_stderr[k] = 0;
	}
	if (s->h.on_stderr && !s->closing)
		s->h.on_stderr(s->h.ctx, line, len);
}

/* Splits bytes into lines; calls fn per complete line (and per
 * MAX_SIDE_LINE bytes of an endless one). */
static void split_lines(struct session *s, struct linebuf *lb,
			const char *buf, size_t n,
			void (*fn)(struct session *, const char *, size_t))
{
	while (n > 0) {
		const char *nl = memchr(buf, '\n', n);
		size_t take = nl ? (size_t)(nl - buf) : n;
		if (lb->len + take > MAX_SIDE_LINE)
			take = MAX_SIDE_LINE - lb->len;
		line_append(lb, buf, take);
		buf += take;
		n -= take;
		bool end = n > 0 && *buf == '\n';
		if (end || lb->len >= MAX_SIDE_LINE) {
			fn(s, lb->buf ? lb->buf : "", lb->len);
			lb->len = 0;
		}
		if (end) {
			buf++;
			n--;
		}
	}
}

static void program_line(struct session *s, const char *line, size_t len)
{
	if (len && line[len - 1] == '\r') /* the pty's ONLCR */
		len--;
	session_record(s, 'T', line, len);
}

void session_flush_side_lines(struct session *s)
{
	if (s->errline.len) {
		stderr_line(s, s->errline.buf, s->errline.len);
		s->errline.len = 0;
	}
	if (s->ttyline.len) {
		program_line(s, s->ttyline.buf, s->ttyline.len);
		s->ttyline.len = 0;
	}
}

/* ---- writing commands ---------------------------------------------------- */

static void flush_out(struct session *s)
{
	while (s->ob_off < s->ob_len && s->child.in >= 0) {
		ssize_t n = send(s->child.in, s->ob + s->ob_off,
				 s->ob_len - s->ob_off, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				/* The reader is gone; its EOF on stdout
				 * tells the rest. */
				s->ob_off = s->ob_len;
			}
			break;
		}
		s->ob_off += (size_t)n;
	}
	if (s->ob_off == s->ob_len)
		s->ob_off = s->ob_len = 0;
}

static int queue_bytes(struct session *s, const char *p, size_t n)
{
	if (s->ob_len + n > s->ob_cap) {
		size_t cap = s->ob_cap ? s->ob_cap : 4096;
		while (cap < s->ob_len + n)
			cap *= 2;
		char *nb = realloc(s->ob, cap);
		if (!nb)
			return SESSION_ENOMEM;
		s->ob = nb;
		s->ob_cap = cap;
	}
	memcpy(s->ob + s->ob_len, p, n);
	s->ob_len += n;
	return 0;
}

static int add_pending(struct session *s, uint64_t token, unsigned flags,
		       session_reply_fn fn, void *ctx, const char *cmd)
{
	if (s->npend == s->pend_cap) {
		size_t cap = s->pend_cap ? s->pend_cap * 2 : 16;
		struct pending *np = realloc(s->pend, cap * sizeof *np);
		if (!np)
			return SESSION_ENOMEM;
		s->pend = np;
		s->pend_cap = cap;
	}
	char *copy = strdup(cmd);
	if (!copy)
		return SESSION_ENOMEM;
	s->pend[s->npend++] = (struct pending){
		.token = token, .fn = fn, .ctx = ctx, .flags = flags,
		.sent = session_elapsed(s), .command = copy,
	};
	return 0;
}

int64_t session_sendv(struct session *s, unsigned flags, session_reply_fn fn,
		      void *ctx, const char *fmt, va_list ap)
{
	if (s->gone)
		return SESSION_EGONE;
	char *cmd = NULL;
	if (vasprintf(&cmd, fmt, ap) < 0)
		return SESSION_ENOMEM;
	if (strpbrk(cmd, "\r\n") || !*cmd) {
		session_set_error(s, "a command must be one non-empty line");
		free(cmd);
		return SESSION_EINVAL;
	}
	uint64_t token = s->next_token++;
	char head[24];
	int hn = snprintf(head, sizeof head, "%llu", (unsigned long long)token);
	int rc = add_pending(s, token, flags, fn, ctx, cmd);
	if (rc == 0 && (queue_bytes(s, head, (size_t)hn) ||
			queue_bytes(s, cmd, strlen(cmd)) ||
			queue_bytes(s, "\n", 1)))
		rc = SESSION_ENOMEM;
	if (rc) {
		free(cmd);
		return rc;
	}
	if (s->rec) {
		size_t cl = strlen(cmd);
		char *line = malloc((size_t)hn + cl + 1);
		if (line) {
			memcpy(line, head, (size_t)hn);
			memcpy(line + hn, cmd, cl);
			session_record(s, '>', line, (size_t)hn + cl);
			free(line);
		}
	}
	free(cmd);
	flush_out(s);
	return (int64_t)token;
}

int64_t session_send(struct session *s, session_reply_fn fn, void *ctx,
		     const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int64_t rc = session_sendv(s, 0, fn, ctx, fmt, ap);
	va_end(ap);
	return rc;
}

int64_t session_send_flags(struct session *s, unsigned flags,
			   session_reply_fn fn, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int64_t rc = session_sendv(s, flags, fn, ctx, fmt, ap);
	va_end(ap);
	return rc;
}

int64_t session_send_rows(struct session *s, session_row_fn row_fn,
			  session_reply_fn fn, void *ctx, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int64_t rc = session_sendv(s, 0, fn, ctx, fmt, ap);
	va_end(ap);
	if (rc > 0 && s->npend > 0 && s->pend[s->npend - 1].token == (uint64_t)rc)
		s->pend[s->npend - 1].row_fn = row_fn;
	return rc;
}

static struct pending *pending_by_token(struct session *s, bool has_token,
					uint64_t token)
{
	if (!has_token)
		return NULL;
	for (size_t i = 0; i < s->npend; i++)
		if (s->pend[i].token == token)
			return &s->pend[i];
	return NULL;
}

/* The parser asks before streaming a big line: only answers to
 * session_send_rows() stream. */
static bool want_stream(void *ctx, bool has_token, uint64_t token,
			const char *klass, const char *name)
{
	(void)klass;
	(void)name;
	struct pending *p = pending_by_token(ctx, has_token, token);
	return p && p->row_fn && p->fn;
}

static void stream_row(void *ctx, bool has_token, uint64_t token,
		       const struct mi_node *row)
{
	struct pending *p = pending_by_token(ctx, has_token, token);
	if (p && p->row_fn && p->fn)
		p->row_fn(p->ctx, row);
}

void session_forget(struct session *s, const void *ctx)
{
	for (size_t i = 0; i < s->npend; i++)
		if (s->pend[i].ctx == ctx)
			s->pend[i].fn = NULL;
}

int64_t session_run(struct session *s, session_reply_fn fn, void *ctx)
{
	if (!session_needs_run(s)) {
		session_set_error(s, "only a launched program can be run");
		return SESSION_EINVAL;
	}
	return session_send(s, fn, ctx, "%s",
			    s->replay_run ? s->replay_run : "-exec-run");
}

int64_t session_interrupt(struct session *s, session_reply_fn fn, void *ctx)
{
	return session_send(s, fn, ctx, "-exec-interrupt --all");
}

int session_interrupt_command(struct session *s)
{
	if (s->gone || s->child.pid <= 0)
		return SESSION_EGONE;
	if (s->npend == 0 || s->backend == SESSION_REPLAY)
		return SESSION_EINVAL;
	return kill(s->child.pid, SIGINT) < 0 ? SESSION_EGONE : 0;
}

long session_write_program(struct session *s, const char *buf, size_t len)
{
	if (s->pty_master < 0)
		return SESSION_EINVAL;
	ssize_t n = write(s->pty_master, buf, len);
	if (n < 0)
		return errno == EAGAIN ? 0 : SESSION_EIO;
	return n;
}

int session_set_program_size(struct session *s, int cols, int rows)
{
	if (s->pty_master < 0 || cols <= 0 || rows <= 0 || cols > 65535 ||
	    rows > 65535)
		return SESSION_EINVAL;
	struct winsize ws = { .ws_row = (unsigned short)rows,
			      .ws_col = (unsigned short)cols };
	return ioctl(s->pty_master, TIOCSWINSZ, &ws) < 0 ? SESSION_EIO : 0;
}

/* ---- results --------------------------------------------------------------- */

static enum session_reply_kind reply_kind(const char *klass)
{
	if (strcmp(klass, "done") == 0)
		return SESSION_REPLY_DONE;
	if (strcmp(klass, "running") == 0)
		return SESSION_REPLY_RUNNING;
	if (strcmp(klass, "connected") == 0)
		return SESSION_REPLY_CONNECTED;
	if (strcmp(klass, "exit") == 0)
		return SESSION_REPLY_EXIT;
	return SESSION_REPLY_ERROR;
}

/* Removes pending[i] and calls its continuation (after removal, so the
 * continuation may send). */
static void complete(struct session *s, size_t i, struct session_reply *r)
{
	struct pending p = s->pend[i];
	memmove(&s->pend[i], &s->pend[i + 1],
		(s->npend - i - 1) * sizeof *s->pend);
	s->npend--;
	bool captured = (p.flags & SESSION_CAPTURE) && i == 0;
	r->token = p.token;
	r->command = p.command;
	r->seconds = session_elapsed(s) - p.sent;
	r->console = captured && s->capture.buf ? s->capture.buf : "";
	r->console_len = captured ? s->capture.len : 0;
	if (p.fn)
		p.fn(p.ctx, r);
	if (i == 0)
		s->capture.len = 0;
	free(p.command);
}

/* Returns true when the record answered a pending command. */
static bool take_result(struct session *s, const struct mi_record *rec)
{
	if (!rec->has_token)
		return false;
	for (size_t i = 0; i < s->npend; i++) {
		if (s->pend[i].token != rec->token)
			continue;
		struct session_reply r = { .kind = reply_kind(rec->klass),
					   .rec = rec };
		if (r.kind == SESSION_REPLY_ERROR)
			r.msg = mi_find_str(rec->results, "msg");
		if (r.kind == SESSION_REPLY_ERROR && !r.msg)
			r.msg = "error";
		complete(s, i, &r);
		return true;
	}
	return false;
}

void session_fail_pending(struct session *s, const char *why)
{
	while (s->npend > 0) {
		struct session_reply r = { .kind = SESSION_REPLY_GONE,
					   .msg = why };
		complete(s, 0, &r);
	}
}

/* ---- records ---------------------------------------------------------------- */

/* =thread-group-started: the pid is the debugger's word, so it is parsed
 * strictly (proc_parse_pid), and it becomes the program we may signal
 * at the end only when it is really our debugger's descendant now: a
 * launched program is the debugger's child (gdb and cuda-gdb fork it;
 * startup-with-shell execs in place).  A number that fails either check
 * is noted and never signalled. */
static void note_started_program(struct session *s, const char *text)
{
	pid_t pid;
	s->inferior_pid = 0;
	if (!proc_parse_pid(text, &pid)) {
		session_note(s, "the debugger's program pid is no process id: "
			     "ignored");
		return;
	}
	s->inferior_pid = pid;
	s->announced_pid = pid;
	if (s->backend != SESSION_LAUNCH)
		return;
	if (!proc_is_descendant(pid, s->child.pid)) {
		session_note(s, "the debugger's program pid %ld is no process "
			     "it started: it will not be signalled",
			     (long)pid);
		return;
	}
	session_note_program(s, pid);
}

static void track_target(struct session *s, const struct mi_record *rec)
{
	if (rec->kind == MI_REC_EXEC && strcmp(rec->klass, "running") == 0)
		s->running = true;
	else if (rec->kind == MI_REC_EXEC &&
		 strcmp(rec->klass, "stopped") == 0) {
		s->running = false;
		s->stops++;
	} else if (rec->kind == MI_REC_RESULT &&
		   strcmp(rec->klass, "running") == 0) {
		s->running = true;
	} else if (rec->kind == MI_REC_NOTIFY &&
		   strcmp(rec->klass, "thread-group-started") == 0) {
		note_started_program(s, mi_find_str(rec->results, "pid"));
	} else if (rec->kind == MI_REC_NOTIFY &&
		   strcmp(rec->klass, "thread-group-exited") == 0) {
		s->inferior_pid = 0;
	}
}

static bool capture_stream(struct session *s, const struct mi_record *rec)
{
	if (rec->kind != MI_REC_CONSOLE || s->npend == 0 ||
	    !(s->pend[0].flags & SESSION_CAPTURE))
		return false;
	line_append(&s->capture, rec->text, rec->text_len);
	return true;
}

static void read_program(struct session *s, size_t budget);

/* What the program wrote just before it exited may still be on its way
 * through the pty (the kernel moves slave writes to the master from a
 * work queue) while the debugger's exit notice is already here: read it
 * first, so the program's last lines come before its exit. */
void session_drain_program_tail(struct session *s)
{
	for (int rounds = 0; s->pty_master >= 0 && rounds < 16; rounds++) {
		struct pollfd p = { .fd = s->pty_master, .events = POLLIN };
		if (poll(&p, 1, 10) <= 0 || !(p.revents & POLLIN))
			break;
		read_program(s, READ_BUDGET);
	}
}

static bool is_exit_stop(const struct mi_record *rec)
{
	if (rec->kind != MI_REC_EXEC || strcmp(rec->klass, "stopped") != 0)
		return false;
	const char *why = mi_find_str(rec->results, "reason");
	return why && strncmp(why, "exited", 6) == 0;
}

static void on_parsed(void *ctx, const struct mi_record *rec)
{
	struct session *s = ctx;
	if (rec->kind == MI_REC_PROMPT)
		return;
	if (!s->spoke) {
		/* The first line tells a debugger from anything else
		 * given with --debugger (cat, echo, a shell script...). */
		if (rec->kind == MI_REC_ERROR) {
			session_not_mi(s);
			return;
		}
		s->spoke = true;
	}
	if (s->not_mi)
		return;
	if (is_exit_stop(rec))
		session_drain_program_tail(s);
	track_target(s, rec);
	if (rec->kind == MI_REC_RESULT && take_result(s, rec))
		return;
	if (capture_stream(s, rec))
		return;
	if (s->h.on_record && !s->closing)
		s->h.on_record(s->h.ctx, rec);
}

static void on_raw(void *ctx, const char *line, size_t len, unsigned piece)
{
	struct session *s = ctx;
	if (piece != (MI_RAW_FIRST | MI_RAW_LAST)) {
		/* A streamed table line: written as it arrives. */
		if (s->rec && transcript_write_piece(s->rec, session_elapsed(s),
						     '<', line, len, piece) < 0)
			record_failed(s);
		return;
	}
	if (!s->first_line[0] && len) {
		/* for a message: printable */
		text_ascii_copy(s->first_line, sizeof s->first_line, line, len);
	}
	session_record(s, '<', line, len);
}

/* ---- reading -------------------------------------------------------------- */

/* Reads what is there (up to the budget).  Returns false at EOF/error. */
static bool drain(int fd, size_t budget,
		  void (*fn)(struct session *, const char *, size_t),
		  struct session *s)
{
	char buf[65536];
	size_t got = 0;
	while (got < budget) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n > 0) {
			fn(s, buf, (size_t)n);
			got += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		return false; /* EOF, or EIO from a pty */
	}
	return true;
}

static void got_stdout(struct session *s, const char *buf, size_t n)
{
	s->last_heard_at = session_elapsed(s);
	if (mi_parser_push(s->parser, buf, n) == MI_ENOMEM)
		session_set_error(s, "out of memory parsing the debugger's "
				  "output");
}

static void got_stderr(struct session *s, const char *buf, size_t n)
{
	split_lines(s, &s->errline, buf, n, stderr_line);
}

static void got_program(struct session *s, const char *buf, size_t n)
{
	if (s->rec)
		split_lines(s, &s->ttyline, buf, n, program_line);
	if (s->h.on_output && !s->closing)
		s->h.on_output(s->h.ctx, buf, n);
}

void session_read_stdout(struct session *s, size_t budget)
{
	if (s->child.out < 0)
		return;
	if (!drain(s->child.out, budget, got_stdout, s)) {
		mi_parser_finish(s->parser);
		close(s->child.out);
		s->child.out = -1;
		if (s->out_eof_at == 0)
			s->out_eof_at = session_elapsed(s);
	}
}

void session_read_stderr(struct session *s, size_t budget)
{
	if (s->child.err < 0)
		return;
	if (!drain(s->child.err, budget, got_stderr, s)) {
		close(s->child.err);
		s->child.err = -1;
	}
}

static void read_program(struct session *s, size_t budget)
{
	if (s->pty_master >= 0)
		drain(s->pty_master, budget, got_program, s);
}

/* ---- the poll loop ------------------------------------------------------ */

int session_pollfds(struct session *s, struct pollfd *fds, int max)
{
	int n = 0;
	if (n < max && s->child.out >= 0)
		fds[n++] = (struct pollfd){ .fd = s->child.out, .events = POLLIN };
	if (n < max && s->child.err >= 0)
		fds[n++] = (struct pollfd){ .fd = s->child.err, .events = POLLIN };
	if (n < max && s->child.in >= 0 && s->ob_len > s->ob_off && !s->gone)
		fds[n++] = (struct pollfd){ .fd = s->child.in, .events = POLLOUT };
	if (n < max && s->pty_master >= 0)
		fds[n++] = (struct pollfd){ .fd = s->pty_master, .events = POLLIN };
	return n;
}

int session_timeout_ms(const struct session *s)
{
	if (s->gone)
		return s->gone_reported ? -1 : 0;
	if (s->out_eof_at > 0 || s->not_mi)
		return 20; /* waiting to reap the child */
	if (!s->answered) {
		double left = s->start_timeout - session_elapsed(s);
		int ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
		return ms < 500 ? ms : 500;
	}
	/* waitpid catches a death that left the pipes open (a child of
	 * the debugger holding them); check twice a second. */
	return 500;
}

int session_handle(struct session *s, const struct pollfd *fds, int n)
{
	for (int i = 0; i < n; i++) {
		if (!fds[i].revents)
			continue;
		int fd = fds[i].fd;
		if (fd < 0)
			continue;
		if (fd == s->child.in)
			flush_out(s);
		else if (fd == s->child.out)
			session_read_stdout(s, READ_BUDGET);
		else if (fd == s->child.err)
			session_read_stderr(s, READ_BUDGET);
		else if (fd == s->pty_master)
			read_program(s, READ_BUDGET);
	}
	session_check_child(s);
	if (s->rec_failed && !s->rec_failed_told) {
		s->rec_failed_told = true;
		char msg[sizeof s->rec_error + 16];
		int k = snprintf(msg, sizeof msg, "cudbg-tui: %s", s->rec_error);
		if (s->h.on_stderr && !s->closing)
			s->h.on_stderr(s->h.ctx, msg, (size_t)k);
	}
	return s->gone && s->gone_reported ? SESSION_EGONE : 0;
}

int session_run_until(struct session *s, bool (*pred)(void *ctx), void *ctx,
		      int timeout_ms)
{
	double deadline = timeout_ms < 0 ? 0 : proc_now_s() + timeout_ms / 1000.0;
	for (;;) {
		if (pred && pred(ctx))
			return 1;
		if (s->gone && s->gone_reported)
			return SESSION_EGONE;
		int wait = session_timeout_ms(s);
		if (timeout_ms >= 0) {
			double left = deadline - proc_now_s();
			if (left <= 0)
				return SESSION_ETIMEOUT;
			int ms = (int)(left * 1000) + 1;
			if (wait < 0 || ms < wait)
				wait = ms;
		}
		struct pollfd fds[SESSION_MAX_POLLFDS];
		int nf = session_pollfds(s, fds, SESSION_MAX_POLLFDS);
		if (poll(fds, (nfds_t)nf, wait) < 0 && errno != EINTR)
			return SESSION_EIO;
		session_handle(s, fds, nf);
	}
}

/* ---- state ---------------------------------------------------------------- */

const struct session_caps *session_caps(const struct session *s)
{
	return &s->caps;
}

enum session_backend session_backend(const struct session *s)
{
	return s->backend;
}

bool session_needs_run(const struct session *s)
{
	return s->backend == SESSION_LAUNCH ||
	       (s->backend == SESSION_REPLAY &&
		s->replay_of == SESSION_LAUNCH);
}

const char *session_symbols_command(const struct session *s, bool late)
{
	if (!s->lazy_symbols)
		return NULL;
	return late ? s->syms_late : s->syms_first;
}

const struct session_lean_lib session_lean_libs[SESSION_LEAN_LIBS] = {
	{ "libtorch_cuda.so", "libtorch_cuda", LEANSYM_OPERATORS },
	{ "libtorch_cpu.so", "libtorch_cpu", LEANSYM_OPERATORS },
	{ "libtorch_python.so", "libtorch_python", LEANSYM_OPERATORS },
};

bool session_lazy_symbols(const struct session *s) { return s->lazy_symbols; }

const char *session_late_symbols_command(const struct session *s,
					 unsigned lean_mask)
{
	unsigned all = (1u << SESSION_LEAN_LIBS) - 1;
	if (!s->lazy_symbols)
		return NULL;
	if (s->backend == SESSION_REPLAY || !(lean_mask & all))
		return s->syms_late;
	return s->syms_late_by_mask[lean_mask & all];
}

/* gdb splits add-symbol-file's arguments itself (gdb_buildargv): a path
 * with a quote, a backslash or a control byte is not worth escaping for
 * it; such a cache directory reads the library the ordinary way. */
static bool plain_path(const char *p)
{
	for (; *p; p++)
		if (*p == '"' || *p == '\\' || *p == '\'' || (unsigned char)*p < 0x20 ||
		    *p == ' ')
			return false;
	return true;
}

/* A replay's recorded add-symbol-file of a copy of LIB: the copy's file
 * name starts with the library's (leansym's cache name). */
static char *recorded_lean(const struct session *s, const char *file)
{
	for (size_t i = 0; i < s->nlean; i++) {
		const char *c = s->syms_lean[i];
		const char *p = strstr(c, "add-symbol-file ");
		const char *end = p ? strchr(p + 16, ' ') : NULL;
		if (!end)
			continue;
		const char *base = p + 16;
		for (const char *q = base; q < end; q++)
			if (*q == '/')
				base = q + 1;
		if ((size_t)(end - base) > strlen(file) &&
		    strncmp(base, file, strlen(file)) == 0)
			return strdup(c);
	}
	return NULL;
}

char *session_lean_command(const struct session *s, unsigned which,
			   const char *lib, uint64_t text_addr, char *err,
			   size_t cap)
{
	if (!s->lazy_symbols || which >= SESSION_LEAN_LIBS)
		return NULL;
	if (s->backend == SESSION_REPLAY)
		return recorded_lean(s, session_lean_libs[which].file);
	if (!s->symbol_cache || !lib)
		return NULL;
	struct leansym ls;
	if (leansym_make(lib, s->symbol_cache, session_lean_libs[which].names,
			 &ls, err, cap) < 0)
		return NULL;
	char *cmd = NULL;
	if (!plain_path(ls.path)) {
		snprintf(err, cap, "the cache path %s has characters gdb would split", ls.path);
	} else if (text_addr < ls.text_addr) {
		snprintf(err, cap, "%s: .text mapped below its file address", lib);
	} else if (asprintf(&cmd, "-interpreter-exec console \"add-symbol-file %s -o 0x%llx\"",
			    ls.path, (unsigned long long)(text_addr - ls.text_addr)) < 0) {
		cmd = NULL;
	}
	free(ls.path);
	return cmd;
}

enum session_backend session_replay_of(const struct session *s)
{
	return s->backend == SESSION_REPLAY ? s->replay_of : s->backend;
}

bool session_ready(const struct session *s) { return s->ready; }
bool session_alive(const struct session *s) { return !s->gone; }
bool session_target_running(const struct session *s) { return s->running; }
unsigned session_stop_count(const struct session *s) { return s->stops; }
size_t session_pending(const struct session *s) { return s->npend; }
const char *session_debugger_path(const struct session *s) { return s->path; }
const char *session_tty_name(const struct session *s) { return s->tty; }
pid_t session_debugger_pid(const struct session *s) { return s->child.pid; }
pid_t session_program_pid(const struct session *s)
{
	return s->backend == SESSION_LAUNCH ? s->program_pid : 0;
}
pid_t session_announced_pid(const struct session *s)
{
	return s->backend == SESSION_LAUNCH ? (pid_t)s->announced_pid : 0;
}
const char *session_error(const struct session *s) { return s->error; }

double session_busy_seconds(const struct session *s, const char **cmd)
{
	if (cmd)
		*cmd = s->npend ? s->pend[0].command : NULL;
	return s->npend ? session_elapsed(s) - s->pend[0].sent : 0;
}

const char *session_backend_name(enum session_backend b)
{
	switch (b) {
	case SESSION_NONE: return "none";
	case SESSION_LAUNCH: return "launch";
	case SESSION_ATTACH: return "attach";
	case SESSION_REMOTE: return "remote";
	case SESSION_CORE: return "core";
	case SESSION_REPLAY: return "replay";
	}
	return "?";
}

/* ---- creation ---------------------------------------------------------- */

struct mi_parser *session_make_parser(struct session *s)
{
	struct mi_parser *p = mi_parser_new(on_parsed, s);
	if (p) {
		mi_parser_set_raw_hook(p, on_raw);
		mi_parser_set_stream(p, STREAM_THRESHOLD, want_stream,
				     stream_row);
		mi_parser_set_max_line(p, MAX_MI_LINE);
	}
	return p;
}
