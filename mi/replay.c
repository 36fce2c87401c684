/* The replay engine: answers MI commands from a transcript, and the fake
 * debugger loop that speaks it over pipes (rules in transcript.h).
 *
 * Memory: the engine keeps what matching needs, not the recording: per
 * command its place and a key id (each distinct command body is kept
 * once), per result line its place, token and owner, and reads the
 * text of what it answers from the transcript when it answers
 * (transcript_get).  A recording of 3.5 million console lines costs
 * the transcript's 16-byte index per line and nothing here. */
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
	uint32_t key;        /* id of its body without token (struct keys) */
	bool tty_set;        /* the body is -inferior-tty-set ... */
	bool interrupt;      /* the body is -exec-interrupt ... */
	bool has_token;
	bool running;        /* its result was ^running */
	bool used;           /* answered once already in this replay */
	uint64_t token;
	long result;         /* entry index of its result line, or -1 */
};

/* A '<' line that is a result record. */
struct rres {
	size_t entry;
	uint64_t token;
	bool has_token;
	bool running;
	long owner;          /* the command whose result it is, or -1 */
};

/* The distinct command bodies, interned: matching compares ids. */
struct keys {
	char *text;          /* bodies one after another */
	size_t len, cap;
	size_t *off, *klen;  /* per id */
	uint64_t *hash;
	size_t n, idcap;
	uint32_t *slot;      /* open addressing: id + 1, 0 = empty */
	size_t nslot;        /* a power of two */
};

struct replay {
	struct transcript *t;
	size_t n;            /* records in t */
	struct rcmd *c;
	size_t m;
	struct rres *res;    /* in entry order */
	size_t nres;
	struct keys keys;
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

/* ---- interned command bodies ------------------------------------------- */

static uint64_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603u; /* FNV-1a */
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211u;
	}
	return h;
}

/* The id of body s, or -1 when it is not there. */
static long keys_find(const struct keys *k, const char *s, size_t len,
		      uint64_t h)
{
	if (!k->nslot)
		return -1;
	for (size_t i = (size_t)h & (k->nslot - 1);; i = (i + 1) &
	     (k->nslot - 1)) {
		uint32_t v = k->slot[i];
		if (v == 0)
			return -1;
		size_t id = v - 1;
		if (k->hash[id] == h && k->klen[id] == len &&
		    memcmp(k->text + k->off[id], s, len) == 0)
			return (long)id;
	}
}

static void keys_place(struct keys *k, size_t id)
{
	size_t i = (size_t)k->hash[id] & (k->nslot - 1);
	while (k->slot[i])
		i = (i + 1) & (k->nslot - 1);
	k->slot[i] = (uint32_t)(id + 1);
}

/* Keeps the table at most half full. */
static int keys_rehash(struct keys *k)
{
	if (k->nslot && (k->n + 1) * 2 <= k->nslot)
		return 0;
	size_t ns = k->nslot ? k->nslot * 2 : 64;
	uint32_t *slot = calloc(ns, sizeof *slot);
	if (!slot)
		return -1;
	free(k->slot);
	k->slot = slot;
	k->nslot = ns;
	for (size_t id = 0; id < k->n; id++)
		keys_place(k, id);
	return 0;
}

static int keys_grow(struct keys *k, size_t len)
{
	if (k->n == k->idcap) {
		size_t nc = k->idcap ? k->idcap * 2 : 64;
		size_t *o = realloc(k->off, nc * sizeof *o);
		if (o)
			k->off = o;
		size_t *l = realloc(k->klen, nc * sizeof *l);
		if (l)
			k->klen = l;
		uint64_t *h = realloc(k->hash, nc * sizeof *h);
		if (h)
			k->hash = h;
		if (!o || !l || !h)
			return -1;
		k->idcap = nc;
	}
	if (!k->text || k->cap - k->len < len) { /* an empty body too */
		size_t nc = k->cap ? k->cap : 4096;
		while (nc - k->len < len)
			nc *= 2;
		char *nt = realloc(k->text, nc);
		if (!nt)
			return -1;
		k->text = nt;
		k->cap = nc;
	}
	return 0;
}

/* The id of body s, added when new; -1 when out of memory. */
static long keys_intern(struct keys *k, const char *s, size_t len)
{
	uint64_t h = hash_bytes(s, len);
	long id = keys_find(k, s, len, h);
	if (id >= 0)
		return id;
	if (k->n >= UINT32_MAX - 1 || keys_rehash(k) || keys_grow(k, len))
		return -1;
	memcpy(k->text + k->len, s, len);
	k->off[k->n] = k->len;
	k->klen[k->n] = len;
	k->hash[k->n] = h;
	k->len += len;
	keys_place(k, k->n);
	return (long)k->n++;
}

static void keys_free(struct keys *k)
{
	free(k->text);
	free(k->off);
	free(k->klen);
	free(k->hash);
	free(k->slot);
}

/* ---- the index, in one pass over the recording -------------------------- */

static int add_command(struct replay *r, size_t i,
		       const struct transcript_entry *e, size_t *cap)
{
	if (r->m == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		void *nc = realloc(r->c, *cap * sizeof *r->c);
		if (!nc)
			return -1;
		r->c = nc;
	}
	struct rcmd *c = &r->c[r->m];
	*c = (struct rcmd){ 0 };
	if (r->m > 0)
		r->c[r->m - 1].end = i;
	size_t key_len;
	const char *key = transcript_command_body(e->text, e->len, &key_len,
						  &c->token);
	long id = keys_intern(&r->keys, key, key_len);
	if (id < 0)
		return -1;
	c->entry = i;
	c->end = r->n;
	c->key = (uint32_t)id;
	c->tty_set = word_is(key, key_len, "-inferior-tty-set");
	c->interrupt = word_is(key, key_len, "-exec-interrupt");
	c->has_token = key != e->text && key[-1] >= '0' && key[-1] <= '9';
	c->result = -1;
	c->running = false;
	r->m++;
	return 0;
}

static int add_result(struct replay *r, size_t i,
		      const struct transcript_entry *e, size_t *cap)
{
	size_t junk, caret;
	bool has;
	uint64_t tok;
	if (!result_line(e->text, e->len, &junk, &caret, &has, &tok))
		return 0;
	if (r->nres == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		void *nr = realloc(r->res, *cap * sizeof *r->res);
		if (!nr)
			return -1;
		r->res = nr;
	}
	r->res[r->nres++] = (struct rres){
		.entry = i, .token = tok, .has_token = has, .owner = -1,
		.running = is_running_result(e->text, e->len, caret) };
	return 0;
}

static bool starts_stopped(const struct transcript_entry *e)
{
	size_t junk = skip_junk(e->text, e->len);
	return e->len - junk >= 8 &&
	       memcmp(e->text + junk, "*stopped", 8) == 0;
}

static void note_stop(void *ctx, const struct mi_record *rec)
{
	*(bool *)ctx |= rec->kind == MI_REC_EXEC &&
			strcmp(rec->klass, "stopped") == 0;
}

static bool stop_parses(const struct transcript_entry *e)
{
	size_t junk = skip_junk(e->text, e->len);
	bool ok = false;
	mi_parse_line(e->text + junk, e->len - junk, note_stop, &ok);
	return ok;
}

/* Bytes of a '<' line enough to tell a result record or a *stopped:
 * junk in front (a few bytes seen), a token, "^running,". */
#define HEAD_MAX 4096

/* Commands, result lines and *stopped lines, read once in order.  A
 * recording cut while its program ran (the recorder killed, the file
 * truncated after ^running, a *stopped that does not parse) has no stop
 * after its last run: the last *stopped that parses is kept.  The
 * candidates are checked from the end, as few as it takes. */
static int index_records(struct replay *r)
{
	size_t ccap = 0, rcap = 0, ns = 0, scap = 0;
	size_t *stops = NULL;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < r->n; i++) {
		char tag = transcript_tag(r->t, i);
		if (tag != '>' && tag != '<')
			continue;
		/* A '<' line is told by its head (junk, token, '^' or
		 * *stopped): a 60 MB table line is not read for that. */
		struct transcript_entry e;
		transcript_peek(r->t, i, tag == '<' ? HEAD_MAX : SIZE_MAX, &e);
		if (tag == '>') {
			rc = add_command(r, i, &e, &ccap);
			continue;
		}
		rc = add_result(r, i, &e, &rcap);
		if (rc == 0 && starts_stopped(&e)) {
			if (ns == scap) {
				scap = scap ? scap * 2 : 16;
				size_t *nst = realloc(stops, scap * sizeof *nst);
				if (!nst) {
					rc = -1;
					break;
				}
				stops = nst;
			}
			stops[ns++] = i;
		}
	}
	r->last_stop = -1;
	while (rc == 0 && ns-- > 0) {
		struct transcript_entry e;
		transcript_get(r->t, stops[ns], &e);
		if (stop_parses(&e)) {
			r->last_stop = (long)stops[ns];
			break;
		}
	}
	free(stops);
	return rc;
}

/* The result line at entry i, or NULL. */
static struct rres *result_at(const struct replay *r, size_t i)
{
	size_t lo = 0, hi = r->nres;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->res[mid].entry < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nres && r->res[lo].entry == i ? &r->res[lo] : NULL;
}

static long owner_of(const struct replay *r, size_t i)
{
	const struct rres *x = result_at(r, i);
	return x ? x->owner : -1;
}

struct tokpos {
	uint64_t token;
	size_t entry;
	size_t res;          /* index in r->res */
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
	size_t n = 0;
	struct tokpos *tp = malloc((r->nres ? r->nres : 1) * sizeof *tp);
	if (!tp)
		return -1;
	for (size_t i = 0; i < r->nres; i++)
		if (r->res[i].has_token)
			tp[n++] = (struct tokpos){ r->res[i].token,
						   r->res[i].entry, i };
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
		    r->res[tp[lo].res].owner < 0) {
			c->result = (long)tp[lo].entry;
			r->res[tp[lo].res].owner = (long)k;
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
	for (size_t k = 0; k < r->m; k++) {
		struct rcmd *c = &r->c[k];
		if (c->has_token)
			continue;
		size_t lo = 0, hi = r->nres;
		while (lo < hi) { /* the first result after the command */
			size_t mid = (lo + hi) / 2;
			if (r->res[mid].entry <= c->entry)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (size_t j = lo; j < r->nres; j++) {
			struct rres *x = &r->res[j];
			if (x->owner < 0 && !x->has_token) {
				c->result = (long)x->entry;
				x->owner = (long)k;
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
			while (end < r->n && transcript_tag(r->t, end) != '>')
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
		const struct rres *x = c->result >= 0
				       ? result_at(r, (size_t)c->result) : NULL;
		c->running = x && x->running;
	}
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
	r->n = transcript_count(t);
	if (index_records(r) || claim_tokened(r)) {
		replay_free(r);
		return NULL;
	}
	claim_untokened(r);
	mark_running(r);
	find_segments(r);
	return r;
}

void replay_free(struct replay *r)
{
	if (!r)
		return;
	transcript_free(r->t);
	free(r->c);
	free(r->res);
	keys_free(&r->keys);
	free(r->scratch);
	free(r);
}

/* ---- answering ------------------------------------------------------------ */

/* `key_id`: the id of the body asked, or -1 when no recorded command
 * has that body. */
static bool key_matches(const struct rcmd *c, const char *key, size_t len,
			long key_id)
{
	/* The pty name differs in every run. */
	if (word_is(key, len, "-inferior-tty-set"))
		return c->tty_set;
	/* "-exec-interrupt" and "-exec-interrupt --all" stop the same
	 * program: a recording of either answers both (the fixtures' recorder
	 * sent the bare command, this program sends --all). */
	if (word_is(key, len, "-exec-interrupt"))
		return c->interrupt;
	return key_id >= 0 && c->key == (uint32_t)key_id;
}

/* Picks the recorded command that answers `key` (rules in
 * transcript.h); -1 when there is none. */
static long pick(struct replay *r, const char *key, size_t len)
{
	long id = keys_find(&r->keys, key, len, hash_bytes(key, len));
	if (r->cursor < r->m && key_matches(&r->c[r->cursor], key, len, id))
		return (long)r->cursor++;
	long first_ge = -1, last_lt = -1, first = -1;
	bool moves = false;
	for (size_t k = 0; k < r->m; k++) {
		if (!key_matches(&r->c[k], key, len, id))
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
	/* The same question asked again while the program stands still (a
	 * lane's evaluation in every lane, mi/ctl_culprit.c): its recorded
	 * answers in order, even when the session asks in another order
	 * around it than the recording did (the screen's refresh moved the
	 * cursor past them). */
	size_t epoch_start = r->cursor < r->m ? r->cursor : r->m;
	while (epoch_start > 0 && !r->c[epoch_start - 1].running)
		epoch_start--;
	for (size_t k = epoch_start; k < epoch_end; k++)
		if (!r->c[k].used && key_matches(&r->c[k], key, len, id))
			return (long)k;
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
		fn(ctx, '<', e->text + caret, rest, false, e->t);
		return;
	}
	memcpy(buf, e->text, junk);
	memcpy(buf + junk, tok, tok_len);
	memcpy(buf + junk + tok_len, e->text + caret, rest);
	fn(ctx, '<', buf, junk + tok_len + rest, false, e->t);
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
	fn(ctx, '<', buf, tok_len + tl, false, t);
	fn(ctx, '<', "(gdb) ", 6, false, t);
}

/* A '<' entry too long to hold whole: `pre` (the result's junk and the
 * sent token, or nothing) and then its text from byte `from`, read and
 * emitted a piece at a time. */
static void emit_pieces(struct replay *r, size_t i, const char *pre,
			size_t pre_len, size_t from, replay_emit_fn fn,
			void *ctx)
{
	size_t total = transcript_len(r->t, i);
	struct transcript_entry e;
	if (pre_len) {
		transcript_peek(r->t, i, 0, &e);
		fn(ctx, '<', pre, pre_len, from < total, e.t);
	}
	for (size_t off = from; off < total;) {
		if (transcript_peek_at(r->t, i, off, REPLAY_PIECE, &e) ||
		    e.len == 0) {
			/* the file changed under us: end the line */
			fn(ctx, '<', "", 0, false, e.t);
			return;
		}
		off += e.len;
		fn(ctx, '<', e.text, e.len, off < total, e.t);
	}
}

static bool long_line(const struct replay *r, size_t i)
{
	return transcript_tag(r->t, i) == '<' &&
	       transcript_len(r->t, i) > REPLAY_PIECE;
}

/* Emits entry i as recorded (its text read now). */
static void emit_entry(struct replay *r, size_t i, replay_emit_fn fn,
		       void *ctx)
{
	if (long_line(r, i)) {
		emit_pieces(r, i, NULL, 0, 0, fn, ctx);
		return;
	}
	struct transcript_entry e;
	transcript_get(r->t, i, &e);
	fn(ctx, e.tag, e.text, e.len, false, e.t);
}

static void emit_result_at(struct replay *r, size_t i, const char *tok,
			   size_t tok_len, replay_emit_fn fn, void *ctx)
{
	struct transcript_entry e;
	if (long_line(r, i)) {
		/* the token is in the head: junk, digits, '^' */
		transcript_peek(r->t, i, HEAD_MAX, &e);
		size_t junk, caret;
		bool has;
		uint64_t old;
		result_line(e.text, e.len, &junk, &caret, &has, &old);
		char pre[HEAD_MAX + 64];
		if (junk + tok_len > sizeof pre) {
			junk = 0;
			tok_len = 0;
		}
		memcpy(pre, e.text, junk);
		memcpy(pre + junk, tok, tok_len);
		emit_pieces(r, i, pre, junk + tok_len, caret, fn, ctx);
		return;
	}
	transcript_get(r->t, i, &e);
	emit_result(r, &e, tok, tok_len, fn, ctx);
}

static void emit_block(struct replay *r, long k, const char *tok,
		       size_t tok_len, replay_emit_fn fn, void *ctx)
{
	const struct rcmd *c = &r->c[k];
	emit_entry(r, c->entry, fn, ctx);
	for (size_t i = c->seg_start; i < c->seg_end; i++) {
		char tag = transcript_tag(r->t, i);
		if (tag == '#' || tag == '>')
			continue;
		long owner = tag == '<' ? owner_of(r, i) : -1;
		if (owner == k)
			emit_result_at(r, i, tok, tok_len, fn, ctx);
		else if (owner < 0)
			emit_entry(r, i, fn, ctx);
		/* else: another command's result, sent with it */
	}
	if (c->result >= 0 && ((size_t)c->result < c->seg_start ||
			       (size_t)c->result >= c->seg_end))
		emit_result_at(r, (size_t)c->result, tok, tok_len, fn, ctx);
	else if (c->result < 0) {
		struct transcript_entry e;
		transcript_get(r->t, c->entry, &e);
		emit_made_up(r, tok, tok_len, "^error,msg=\"no answer to this "
			     "command in the recording\"", fn, ctx, e.t);
	}
}

void replay_banner(struct replay *r, replay_emit_fn fn, void *ctx)
{
	size_t end = r->m ? r->c[0].entry : r->n;
	for (size_t i = 0; i < end; i++)
		if (transcript_tag(r->t, i) != '#')
			emit_entry(r, i, fn, ctx);
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
	r->c[k].used = true;
	emit_block(r, k, tok, tok_len, fn, ctx);
	return k;
}

/* ---- the fake debugger process ------------------------------------------ */

struct serve {
	int out, err, tty;
	bool realtime, broken, no_stop;
	bool in_line;         /* a long line's pieces are being written */
	double last_t;
	char **held;          /* 'T' lines before the pty is known */
	size_t nheld;
};

/* len bytes, then a newline when nl. */
static void write_bytes(struct serve *sv, int fd, const char *s, size_t len,
			bool nl)
{
	struct iovec iov[2] = { { (void *)(uintptr_t)s, len },
				{ (char[]){ '\n' }, 1 } };
	int cnt = nl ? 2 : 1;
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

static void write_line(struct serve *sv, int fd, const char *s, size_t len)
{
	write_bytes(sv, fd, s, len, true);
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
		       bool more, double t)
{
	struct serve *sv = ctx;
	if (tag == '>') { /* the recorded command: only its time counts */
		sv->last_t = t;
		return;
	}
	if (!sv->in_line)
		pause_for(sv, t);
	sv->in_line = more;
	if (tag == '<')
		write_bytes(sv, sv->out, text, len, !more);
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
