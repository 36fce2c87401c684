/* The replay engine: answers MI commands from a transcript, and the fake
 * debugger loop that speaks it over pipes (rules in transcript.h). */
#include "cudbg/transcript.h"
#include "cudbg/mi.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

struct rcmd {
	size_t entry;        /* index of the '>' entry */
	size_t end;          /* end of its block (next '>' or n) */
	size_t seg_start;    /* its answer: entries [seg_start, seg_end) */
	size_t seg_end;
	const char *key;     /* body without token */
	size_t key_len;
	uint64_t token;
	bool has_token;
	long result;         /* entry index of its result line, or -1 */
	bool running;        /* its result was ^running */
};

struct replay {
	struct transcript *t;
	struct rcmd *c;
	size_t m;
	long *owner;         /* per entry: the command whose result it is */
	size_t cursor;       /* next recorded command expected */
	char *scratch;       /* rewritten result lines */
	size_t scratch_cap;
	long last_stop;      /* entry of the last *stopped that parses, or -1 */
};

/* Where a '<' line's record starts, after junk bytes (cuda-gdb 13 once
 * wrote non-UTF-8 bytes in front of ^running: fixtures/attach.mi.log). */
static size_t skip_junk(const char *s, size_t len)
{
	size_t i = 0;
	while (i < len && ((unsigned char)s[i] >= 0x80 ||
			   (unsigned char)s[i] < 0x20))
		i++;
	return i;
}

/* Is this '<' text a result record?  Sets *caret to the '^' and the
 * token when there is one. */
static bool result_line(const char *s, size_t len, size_t *junk,
			size_t *caret, bool *has_tok, uint64_t *tok)
{
	size_t i = skip_junk(s, len), start = i;
	uint64_t v = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9' && i - start < 19)
		v = v * 10 + (uint64_t)(s[i++] - '0');
	if (i >= len || s[i] != '^')
		return false;
	*junk = start;
	*caret = i;
	*has_tok = i > start;
	*tok = v;
	return true;
}

static bool is_running_result(const char *s, size_t len, size_t caret)
{
	return len - caret >= 8 && memcmp(s + caret, "^running", 8) == 0 &&
	       (len - caret == 8 || s[caret + 8] == ',');
}

static bool word_is(const char *s, size_t len, const char *w)
{
	size_t n = strlen(w);
	return len >= n && memcmp(s, w, n) == 0 &&
	       (len == n || s[n] == ' ' || s[n] == '\t');
}

static int collect_commands(struct replay *r)
{
	struct transcript *t = r->t;
	size_t cap = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->e[i].tag != '>')
			continue;
		if (r->m == cap) {
			cap = cap ? cap * 2 : 64;
			void *nc = realloc(r->c, cap * sizeof *r->c);
			if (!nc)
				return -1;
			r->c = nc;
		}
		struct rcmd *c = &r->c[r->m];
		if (r->m > 0)
			r->c[r->m - 1].end = i;
		c->entry = i;
		c->end = t->n;
		c->key = transcript_command_body(t->e[i].text, t->e[i].len,
						 &c->key_len, &c->token);
		c->has_token = c->key != t->e[i].text &&
			       c->key[-1] >= '0' && c->key[-1] <= '9';
		c->result = -1;
		c->running = false;
		r->m++;
	}
	return 0;
}

struct tokpos {
	uint64_t token;
	size_t entry;
};

static int cmp_tokpos(const void *a, const void *b)
{
	const struct tokpos *x = a, *y = b;
	if (x->token != y->token)
		return x->token < y->token ? -1 : 1;
	return x->entry < y->entry ? -1 : x->entry > y->entry;
}

/* Our own recordings carry tokens: a command's result is the first later
 * result line with its token, wherever it is (commands may be
 * pipelined).  Sorted (token, entry) pairs make that a binary search. */
static int claim_tokened(struct replay *r)
{
	struct transcript *t = r->t;
	size_t n = 0;
	struct tokpos *tp = malloc((t->n ? t->n : 1) * sizeof *tp);
	if (!tp)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t junk, caret;
		bool has;
		uint64_t tok;
		if (t->e[i].tag == '<' &&
		    result_line(t->e[i].text, t->e[i].len, &junk, &caret,
				&has, &tok) && has)
			tp[n++] = (struct tokpos){ tok, i };
	}
	qsort(tp, n, sizeof *tp, cmp_tokpos);
	for (size_t k = 0; k < r->m; k++) {
		struct rcmd *c = &r->c[k];
		if (!c->has_token)
			continue;
		size_t lo = 0, hi = n;
		while (lo < hi) { /* first pair >= (token, entry + 1) */
			size_t mid = (lo + hi) / 2;
			if (tp[mid].token < c->token ||
			    (tp[mid].token == c->token &&
			     tp[mid].entry <= c->entry))
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < n && tp[lo].token == c->token &&
		    r->owner[tp[lo].entry] < 0) {
			c->result = (long)tp[lo].entry;
			r->owner[tp[lo].entry] = (long)k;
		}
	}
	free(tp);
	return 0;
}

/* Recordings without tokens (the shared fixtures): gdb answers in
 * order, so a command's result is the first untokened result after it
 * that no earlier command took. */
static void claim_untokened(struct replay *r)
{
	struct transcript *t = r->t;
	for (size_t k = 0; k < r->m; k++) {
		struct rcmd *c = &r->c[k];
		if (c->has_token)
			continue;
		for (size_t i = c->entry + 1; i < t->n; i++) {
			size_t junk, caret;
			bool has;
			uint64_t tok;
			if (t->e[i].tag == '<' && r->owner[i] < 0 &&
			    result_line(t->e[i].text, t->e[i].len, &junk,
					&caret, &has, &tok) && !has) {
				c->result = (long)i;
				r->owner[i] = (long)k;
				break;
			}
		}
	}
}

/* Each command's answer is a stretch of the recording.  A command
 * written after the previous result (the usual case) owns everything up
 * to the next command: its result and the async records that followed
 * (*stopped after ^running).  When commands were written ahead of their
 * answers (our start sequence writes eight at once), the output between
 * two results belongs to the later command: gdb works in order. */
static void find_segments(struct replay *r)
{
	for (size_t k = 0; k < r->m; k++) {
		struct rcmd *c = &r->c[k];
		size_t start = c->entry + 1;
		if (k > 0 && r->c[k - 1].result >= 0 &&
		    (size_t)r->c[k - 1].result + 1 > start)
			start = (size_t)r->c[k - 1].result + 1;
		size_t end = c->end; /* the next '>' or the end */
		if (c->result >= 0 && k + 1 < r->m &&
		    r->c[k + 1].entry < (size_t)c->result)
			end = (size_t)c->result + 1; /* pipelined */
		else if (c->result >= 0) {
			/* up to the next '>' after the result */
			end = (size_t)c->result + 1;
			while (end < r->t->n && r->t->e[end].tag != '>')
				end++;
		}
		if (end < start)
			end = start;
		c->seg_start = start;
		c->seg_end = end;
	}
}

static void mark_running(struct replay *r)
{
	for (size_t k = 0; k < r->m; k++) {
		struct rcmd *c = &r->c[k];
		if (c->result < 0)
			continue;
		const struct transcript_entry *e = &r->t->e[c->result];
		size_t junk, caret;
		bool has;
		uint64_t tok;
		result_line(e->text, e->len, &junk, &caret, &has, &tok);
		c->running = is_running_result(e->text, e->len, caret);
	}
}

static void note_stop(void *ctx, const struct mi_record *rec)
{
	*(bool *)ctx |= rec->kind == MI_REC_EXEC &&
			strcmp(rec->klass, "stopped") == 0;
}

/* A recording cut while its program ran (the recorder killed, the file
 * truncated after ^running, a *stopped that does not parse) has no stop
 * after its last run: find where the last good one is. */
static long find_last_stop(const struct transcript *t)
{
	for (size_t i = t->n; i-- > 0;) {
		const struct transcript_entry *e = &t->e[i];
		size_t junk = e->tag == '<' ? skip_junk(e->text, e->len) : 0;
		if (e->tag != '<' || e->len - junk < 8 ||
		    memcmp(e->text + junk, "*stopped", 8) != 0)
			continue;
		bool ok = false;
		mi_parse_line(e->text + junk, e->len - junk, note_stop, &ok);
		if (ok)
			return (long)i;
	}
	return -1;
}

bool replay_ends_running(const struct replay *r, long k)
{
	if (k < 0 || (size_t)k >= r->m || !r->c[k].running)
		return false;
	return r->c[k].result > r->last_stop;
}

struct replay *replay_new(struct transcript *t)
{
	struct replay *r = calloc(1, sizeof *r);
	if (!r) {
		transcript_free(t);
		return NULL;
	}
	r->t = t;
	r->owner = malloc((t->n ? t->n : 1) * sizeof *r->owner);
	if (!r->owner) {
		replay_free(r);
		return NULL;
	}
	for (size_t i = 0; i < t->n; i++)
		r->owner[i] = -1;
	if (collect_commands(r) || claim_tokened(r)) {
		replay_free(r);
		return NULL;
	}
	claim_untokened(r);
	mark_running(r);
	find_segments(r);
	r->last_stop = find_last_stop(t);
	return r;
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	transcript_free(r->t);
	free(r->c);
	free(r->owner);
	free(r->scratch);
	free(r);
}

/* ---- answering ------------------------------------------------------------ */

static bool key_matches(const struct rcmd *c, const char *key, size_t len)
{
	/* The pty name differs in every run. */
	if (word_is(key, len, "-inferior-tty-set"))
		return word_is(c->key, c->key_len, "-inferior-tty-set");
	/* "-exec-interrupt" and "-exec-interrupt --all" stop the same
	 * program: a recording of either answers both (the fixtures' recorder
	 * sent the bare command, this program sends --all). */
	if (word_is(key, len, "-exec-interrupt"))
		return word_is(c->key, c->key_len, "-exec-interrupt");
	return c->key_len == len && memcmp(c->key, key, len) == 0;
}

/* Picks the recorded command that answers `key` (rules in
 * transcript.h); -1 when there is none. */
static long pick(struct replay *r, const char *key, size_t len)
{
	if (r->cursor < r->m && key_matches(&r->c[r->cursor], key, len))
		return (long)r->cursor++;
	long first_ge = -1, last_lt = -1, first = -1;
	bool moves = false;
	for (size_t k = 0; k < r->m; k++) {
		if (!key_matches(&r->c[k], key, len))
			continue;
		if (first < 0)
			first = (long)k;
		if (k >= r->cursor && first_ge < 0)
			first_ge = (long)k;
		if (k < r->cursor)
			last_lt = (long)k;
		moves |= r->c[k].running;
	}
	if (first < 0)
		return -1;
	if (moves) { /* it moves the program: time goes forward */
		long k = first_ge >= 0 ? first_ge : first;
		r->cursor = (size_t)k + 1;
		return k;
	}
	size_t epoch_end = r->cursor;
	while (epoch_end < r->m && !r->c[epoch_end].running)
		epoch_end++;
	if (first_ge >= 0 && (size_t)first_ge < epoch_end)
		return first_ge;
	return last_lt >= 0 ? last_lt : first_ge;
}

static char *scratch(struct replay *r, size_t need)
{
	if (need > r->scratch_cap) {
		char *n = realloc(r->scratch, need);
		if (!n)
			return NULL;
		r->scratch = n;
		r->scratch_cap = need;
	}
	return r->scratch;
}

/* The recorded result line with the sent command's token in place of the
 * recorded one (junk bytes in front are kept). */
static void emit_result(struct replay *r, const struct transcript_entry *e,
			const char *tok, size_t tok_len, replay_emit_fn fn,
			void *ctx)
{
	size_t junk, caret;
	bool has;
	uint64_t old;
	result_line(e->text, e->len, &junk, &caret, &has, &old);
	size_t rest = e->len - caret;
	char *buf = scratch(r, junk + tok_len + rest + 1);
	if (!buf) { /* out of memory: the line without a token beats none */
		fn(ctx, '<', e->text + caret, rest, e->t);
		return;
	}
	memcpy(buf, e->text, junk);
	memcpy(buf + junk, tok, tok_len);
	memcpy(buf + junk + tok_len, e->text + caret, rest);
	fn(ctx, '<', buf, junk + tok_len + rest, e->t);
}

static void emit_made_up(struct replay *r, const char *tok, size_t tok_len,
			 const char *tail, replay_emit_fn fn, void *ctx,
			 double t)
{
	size_t tl = strlen(tail);
	char *buf = scratch(r, tok_len + tl + 1);
	if (!buf)
		return;
	memcpy(buf, tok, tok_len);
	memcpy(buf + tok_len, tail, tl);
	fn(ctx, '<', buf, tok_len + tl, t);
	fn(ctx, '<', "(gdb) ", 6, t);
}

static void emit_block(struct replay *r, long k, const char *tok,
		       size_t tok_len, replay_emit_fn fn, void *ctx)
{
	const struct rcmd *c = &r->c[k];
	const struct transcript *t = r->t;
	fn(ctx, '>', t->e[c->entry].text, t->e[c->entry].len,
	   t->e[c->entry].t);
	for (size_t i = c->seg_start; i < c->seg_end; i++) {
		const struct transcript_entry *e = &t->e[i];
		if (e->tag == '#' || e->tag == '>')
			continue;
		if (e->tag != '<') {
			fn(ctx, e->tag, e->text, e->len, e->t);
		} else if (r->owner[i] == k) {
			emit_result(r, e, tok, tok_len, fn, ctx);
		} else if (r->owner[i] < 0) {
			fn(ctx, '<', e->text, e->len, e->t);
		} /* else: another command's result, sent with it */
	}
	if (c->result >= 0 && ((size_t)c->result < c->seg_start ||
			       (size_t)c->result >= c->seg_end))
		emit_result(r, &t->e[c->result], tok, tok_len, fn, ctx);
	else if (c->result < 0)
		emit_made_up(r, tok, tok_len, "^error,msg=\"no answer to this "
			     "command in the recording\"", fn, ctx,
			     t->e[c->entry].t);
}

void replay_banner(struct replay *r, replay_emit_fn fn, void *ctx)
{
	const struct transcript *t = r->t;
	size_t end = r->m ? r->c[0].entry : t->n;
	for (size_t i = 0; i < end; i++)
		if (t->e[i].tag != '#')
			fn(ctx, t->e[i].tag, t->e[i].text, t->e[i].len,
			   t->e[i].t);
}

static void emit_not_found(struct replay *r, const char *tok, size_t tok_len,
			   const char *key, size_t len, replay_emit_fn fn,
			   void *ctx)
{
	if (word_is(key, len, "-inferior-tty-set")) {
		emit_made_up(r, tok, tok_len, "^done", fn, ctx, 0);
		return;
	}
	if (word_is(key, len, "-gdb-exit")) {
		emit_made_up(r, tok, tok_len, "^exit", fn, ctx, 0);
		return;
	}
	char msg[600];
	int n = snprintf(msg, sizeof msg, "not in this recording: %.*s",
			 (int)(len > 500 ? 500 : len), key);
	char quoted[1300];
	char tail[1400];
	mi_quote(quoted, sizeof quoted, msg, (size_t)n);
	snprintf(tail, sizeof tail, "^error,msg=%s", quoted);
	emit_made_up(r, tok, tok_len, tail, fn, ctx, 0);
}

long replay_answer(struct replay *r, const char *cmd, size_t len,
		   replay_emit_fn fn, void *ctx)
{
	size_t key_len;
	uint64_t ignored;
	const char *key = transcript_command_body(cmd, len, &key_len, &ignored);
	/* The token exactly as sent (digits before the body). */
	const char *tok = cmd;
	while (tok < key && (*tok == ' ' || *tok == '\t'))
		tok++;
	size_t tok_len = (size_t)(key - tok);
	long k = pick(r, key, key_len);
	if (k < 0) {
		emit_not_found(r, tok, tok_len, key, key_len, fn, ctx);
		return -1;
	}
	emit_block(r, k, tok, tok_len, fn, ctx);
	return k;
}

/* ---- the fake debugger process ------------------------------------------ */

struct serve {
	int out, err, tty;
	bool realtime, broken, no_stop;
	double last_t;
	char **held;          /* 'T' lines before the pty is known */
	size_t nheld;
};

static void write_line(struct serve *sv, int fd, const char *s, size_t len)
{
	struct iovec iov[2] = { { (void *)(uintptr_t)s, len },
				{ (char[]){ '\n' }, 1 } };
	int cnt = 2;
	struct iovec *v = iov;
	while (cnt > 0 && !sv->broken) {
		ssize_t n = writev(fd, v, cnt);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sv->broken = fd == sv->out; /* our reader is gone */
			return;
		}
		while (cnt > 0 && (size_t)n >= v->iov_len) {
			n -= (ssize_t)v->iov_len;
			v++;
			cnt--;
		}
		if (cnt > 0) {
			v->iov_base = (char *)v->iov_base + n;
			v->iov_len -= (size_t)n;
		}
	}
}

static void hold_line(struct serve *sv, const char *s, size_t len)
{
	char **nh = realloc(sv->held, (sv->nheld + 1) * sizeof *nh);
	char *copy = malloc(len + 1);
	if (!nh || !copy) {
		free(copy);
		if (nh)
			sv->held = nh;
		return;
	}
	memcpy(copy, s, len);
	copy[len] = 0;
	sv->held = nh;
	sv->held[sv->nheld++] = copy;
}

static void pause_for(struct serve *sv, double t)
{
	double d = t - sv->last_t;
	sv->last_t = t;
	if (!sv->realtime || d <= 0)
		return;
	if (d > 30)
		d = 30;
	struct timespec ts = { (time_t)d, (long)((d - (time_t)d) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static void serve_emit(void *ctx, char tag, const char *text, size_t len,
		       double t)
{
	struct serve *sv = ctx;
	if (tag == '>') { /* the recorded command: only its time counts */
		sv->last_t = t;
		return;
	}
	pause_for(sv, t);
	if (tag == '<')
		write_line(sv, sv->out, text, len);
	else if (tag == 'E')
		write_line(sv, sv->err, text, len);
	else if (tag == 'T' && sv->tty >= 0)
		write_line(sv, sv->tty, text, len);
	else if (tag == 'T')
		hold_line(sv, text, len);
}

/* -inferior-tty-set NAME: the session's pty; program lines go there. */
static void open_tty(struct serve *sv, const char *body, size_t len)
{
	const char *p = body + strlen("-inferior-tty-set"), *end = body + len;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	char path[256];
	size_t n = (size_t)(end - p);
	if (n == 0 || n >= sizeof path)
		return;
	memcpy(path, p, n);
	path[n] = 0;
	int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!isatty(fd)) {
		close(fd);
		return;
	}
	if (sv->tty >= 0)
		close(sv->tty);
	sv->tty = fd;
	for (size_t i = 0; i < sv->nheld; i++) {
		write_line(sv, sv->tty, sv->held[i], strlen(sv->held[i]));
		free(sv->held[i]);
	}
	sv->nheld = 0;
}

/* Handles one command line; returns true after -gdb-exit, or when the
 * recording has nothing after a run (sv->no_stop: the program would
 * never stop, and a frontend would wait forever). */
static bool serve_command(struct replay *r, struct serve *sv,
			  const char *line, size_t len)
{
	size_t blen;
	uint64_t tok;
	const char *body = transcript_command_body(line, len, &blen, &tok);
	if (blen == 0)
		return false;
	if (word_is(body, blen, "-inferior-tty-set"))
		open_tty(sv, body, blen);
	long k = replay_answer(r, line, len, serve_emit, sv);
	if (replay_ends_running(r, k)) {
		sv->no_stop = true;
		return true;
	}
	return word_is(body, blen, "-gdb-exit");
}

int replay_serve(struct replay *r, int in, int out, int err_fd, bool realtime)
{
	struct serve sv = { .out = out, .err = err_fd, .tty = -1,
			    .realtime = realtime };
	signal(SIGPIPE, SIG_IGN);
	replay_banner(r, serve_emit, &sv);
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	bool done = false;
	while (buf && !done && !sv.broken) {
		if (len == cap) {
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t n = read(in, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		char *p = buf, *nl;
		while (!done && (nl = memchr(p, '\n', len - (size_t)(p - buf)))) {
			done = serve_command(r, &sv, p, (size_t)(nl - p));
			p = nl + 1;
		}
		len -= (size_t)(p - buf);
		memmove(buf, p, len);
	}
	free(buf);
	for (size_t i = 0; i < sv.nheld; i++)
		free(sv.held[i]);
	free(sv.held);
	if (sv.tty >= 0)
		close(sv.tty);
	return sv.no_stop ? REPLAY_EXIT_NO_STOP : 0;
}
