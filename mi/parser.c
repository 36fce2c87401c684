/* GDB/MI 3 output parser.
 *
 * Design, for speed on cuda-gdb's huge table lines (10.5 MB and 60 MB on one
 * line for -cuda-info-threads on a full H200):
 *  - bytes are appended once to a line buffer; only new bytes are searched
 *    for the newline, so a line that arrives in many chunks costs no rescan;
 *  - a complete line is parsed in one forward pass by recursive descent with
 *    a depth bound; a long answer to a command that asked for it
 *    (mi_parser_set_stream) is parsed row by row as its bytes arrive, each
 *    row handed out and forgotten, so the buffer keeps only the header and
 *    the unfinished row;
 *  - strings are decoded in place (an escaped string only ever shrinks) and
 *    NUL terminated by overwriting the closing quote or the '=' after a name;
 *  - nodes come from an arena that is rewound, not freed, after each line.
 */
#include "cudbg/mi.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Zero bytes kept after every line's end: the scans below read a word
 * (16 bytes with SSE2) at a time and may run that far past the NUL. */
#define SCAN_SLACK 16

/* ---- node arena -------------------------------------------------------- */

struct arena_block {
	struct arena_block *next;
	size_t cap;  /* nodes in this block */
	size_t used; /* nodes handed out since the last rewind */
	struct mi_node nodes[];
};

struct arena {
	struct arena_block *first;
	struct arena_block *cur;
};

enum { ARENA_MIN_NODES = 4096 };

static struct arena_block *arena_block_new(size_t cap)
{
	struct arena_block *b =
		malloc(sizeof(*b) + cap * sizeof(struct mi_node));
	if (!b)
		return NULL;
	b->next = NULL;
	b->cap = cap;
	b->used = 0;
	return b;
}

static struct mi_node *arena_alloc_slow(struct arena *a)
{
	struct arena_block *b = a->cur;
	/* Move to the next kept block, or grow by doubling. */
	if (b && b->next) {
		b = b->next;
		b->used = 0;
	} else {
		size_t cap = b ? b->cap * 2 : ARENA_MIN_NODES;
		struct arena_block *nb = arena_block_new(cap);
		if (!nb)
			return NULL;
		if (b)
			b->next = nb;
		else
			a->first = nb;
		b = nb;
	}
	a->cur = b;
	return &b->nodes[b->used++];
}

static inline struct mi_node *arena_alloc(struct arena *a)
{
	struct arena_block *b = a->cur;
	if (b && b->used < b->cap)
		return &b->nodes[b->used++];
	return arena_alloc_slow(a);
}

/* Ready for the next line.  The blocks grown for a big line are kept
 * while lines of that size keep coming (this one used at least a
 * quarter of them): a table fetched again at every stop then reuses
 * memory it has already touched (fresh pages cost 2.4x the parse of a
 * 58 MB table).  A smaller line frees them, so one 60 MB table does not
 * pin its memory for the session. */
static void arena_rewind(struct arena *a)
{
	if (!a->first)
		return;
	size_t used = 0, cap = 0;
	bool past_cur = a->cur == a->first;
	for (struct arena_block *b = a->first->next; b; b = b->next) {
		cap += b->cap;
		if (!past_cur)
			used += b->used;
		past_cur = past_cur || b == a->cur;
	}
	if (used < cap / 4) {
		struct arena_block *b = a->first->next;
		while (b) {
			struct arena_block *n = b->next;
			free(b);
			b = n;
		}
		a->first->next = NULL;
	}
	a->first->used = 0;
	a->cur = a->first;
}

static void arena_free(struct arena *a)
{
	arena_rewind(a);
	free(a->first);
	a->first = a->cur = NULL;
}

/* ---- line parser -------------------------------------------------------- */

/* The bytes a streamed item's first parse overwrote (a name's '=', a
 * string's closing quote), so that a parse that ran past the bytes
 * received so far leaves them as they came (stream_try_item). */
#define UNDO_MAX 1024
struct undo {
	size_t n;
	char *at[UNDO_MAX];
	char old[UNDO_MAX];
};

struct cursor {
	char *s;   /* next byte; the line is NUL terminated at end */
	char *end;
	struct arena *arena;
	int error;
	char *error_at;
	struct undo *undo; /* NULL: the bytes are the parser's to change */
};

/* Ends a name or a string in place: *at = '\0', logged when the cursor
 * keeps an undo log; false (nothing written) when the log is full. */
static bool put_nul(struct cursor *c, char *at)
{
	struct undo *u = c->undo;
	if (u) {
		if (u->n == UNDO_MAX)
			return false;
		u->at[u->n] = at;
		u->old[u->n++] = *at;
	}
	*at = '\0';
	return true;
}

static void undo_all(struct undo *u)
{
	while (u->n > 0) {
		u->n--;
		*u->at[u->n] = u->old[u->n];
	}
}

static int fail(struct cursor *c, int code)
{
	if (!c->error) {
		c->error = code;
		c->error_at = c->s;
	}
	return code;
}

static int unescape_one(const char **rp, const char *end, char *out)
{
	const char *r = *rp;
	if (r >= end)
		return MI_ESYNTAX;
	char e = *r++;
	switch (e) {
	case 'n': *out = '\n'; break;
	case 't': *out = '\t'; break;
	case 'r': *out = '\r'; break;
	case 'a': *out = '\a'; break;
	case 'b': *out = '\b'; break;
	case 'f': *out = '\f'; break;
	case 'v': *out = '\v'; break;
	case 'e': *out = '\033'; break;
	case '0': case '1': case '2': case '3':
	case '4': case '5': case '6': case '7': {
		unsigned v = (unsigned)(e - '0');
		for (int i = 0; i < 2 && r < end && *r >= '0' && *r <= '7'; i++)
			v = v * 8 + (unsigned)(*r++ - '0');
		*out = (char)(v & 0xff);
		break;
	}
	default:
		/* \" \\ and anything unknown stand for themselves. */
		*out = e;
		break;
	}
	*rp = r;
	return MI_OK;
}

/* Finds the next '"' or '\\' at or after s (the line ends in NUL, which
 * also stops the scan).  Word-at-a-time: tests 8 bytes for either byte. */
#if defined(__SSE2__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static char *scan_quote_or_backslash(char *s)
{
	const __m128i q = _mm_set1_epi8('"'), b = _mm_set1_epi8('\\');
	const __m128i zero = _mm_setzero_si128();
	for (;;) {
		__m128i v = _mm_loadu_si128((const __m128i *)(void *)s);
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q),
							_mm_cmpeq_epi8(v, b)),
					   _mm_cmpeq_epi8(v, zero));
		unsigned m = (unsigned)_mm_movemask_epi8(hit);
		if (m)
			return s + __builtin_ctz(m);
		s += 16;
	}
}
#else
static char *scan_quote_or_backslash(char *s)
{
	const uint64_t ones = 0x0101010101010101ull;
	const uint64_t highs = 0x8080808080808080ull;
	const uint64_t q = ones * (uint8_t)'"', b = ones * (uint8_t)'\\';
	for (;;) {
		uint64_t w;
		memcpy(&w, s, 8);
		uint64_t xq = w ^ q, xb = w ^ b;
		uint64_t hit = ((xq - ones) & ~xq) | ((xb - ones) & ~xb) |
			       ((w - ones) & ~w);
		/* the lowest flagged byte is always a true match (a borrow
		 * only flags bytes above one), so it is the first */
		if (hit & highs) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
			return s + (__builtin_ctzll(hit & highs) >> 3);
#else
			break;
#endif
		}
		s += 8;
	}
	while (*s != '"' && *s != '\\' && *s != '\0')
		s++;
	return s;
}
#endif

/* Parses a C string at c->s (which is '"'); decodes it in place.  On
 * success *out points at the decoded text, NUL ended, and *len is set. */
static int parse_cstring(struct cursor *c, const char **out, uint32_t *len)
{
	char *r = c->s + 1;
	char *w = NULL; /* write position once an escape shifted the text */
	char *begin = r;
	for (;;) {
		char *hit = scan_quote_or_backslash(r);
		if (w && hit > r) {
			memmove(w, r, (size_t)(hit - r));
			w += hit - r;
		}
		r = hit;
		if (r >= c->end) {
			c->s = r;
			return fail(c, MI_ESYNTAX); /* unterminated */
		}
		if (*r == '"')
			break;
		/* (a first parse with an undo log does not shift bytes: the
		 * careful path parses a string with an escape) */
		if (!w && c->undo) {
			c->s = r;
			return fail(c, MI_ESYNTAX);
		}
		if (*r == '\0') {
			/* A raw NUL inside a string: keep it as data. */
			if (!w)
				w = r;
			*w++ = *r++;
			continue;
		}
		if (!w)
			w = r;
		const char *rr = r + 1;
		char ch;
		if (unescape_one(&rr, c->end, &ch) != MI_OK) {
			c->s = r;
			return fail(c, MI_ESYNTAX);
		}
		*w++ = ch;
		r = (char *)(uintptr_t)rr;
	}
	char *stop = w ? w : r;
	/* overwrites the closing quote or lies before it */
	if (!put_nul(c, stop)) {
		c->s = r;
		return fail(c, MI_ESYNTAX);
	}
	*out = begin;
	*len = (uint32_t)(stop - begin);
	c->s = r + 1;
	return MI_OK;
}

/* Bytes that may appear in a result name or record class: everything
 * printable but the grammar's punctuation.  A table, since names are a
 * third of a threads table's bytes. */
static unsigned char name_chars[256];
static int name_chars_ready;

static void name_chars_init(void)
{
	if (name_chars_ready)
		return;
	for (unsigned c = 0; c < 256; c++)
		name_chars[c] = (unsigned char)(c > ' ' && c != 0x7f &&
						!strchr("=,{}[]\"", (int)c));
	name_chars_ready = 1;
}

static int is_name_char(unsigned char ch)
{
	return name_chars[ch];
}

/* The first byte at or after s that cannot be in a name (a NUL always
 * ends it).  (Sixteen bytes at a time with SSE2 was slower: nine
 * compares a word for names of 2 to 10 bytes.) */
static char *name_end(char *s)
{
	while (is_name_char((unsigned char)*s))
		s++;
	return s;
}

static int parse_value(struct cursor *c, struct mi_node *n, int depth);

/* name=value; the '=' is overwritten with the name's NUL. */
static int parse_result(struct cursor *c, struct mi_node *n, int depth)
{
	char *name = c->s;
	char *at = name_end(name);
	c->s = at;
	if (at == name || *at != '=' || !put_nul(c, at))
		return fail(c, MI_ESYNTAX);
	c->s = at + 1;
	n->name = name;
	return parse_value(c, n, depth);
}

/* The common cell, name="text" with no escape in the text, parsed in one
 * run with the cursor in registers (a table's rows are little else).
 * false, with nothing changed, for any other item: the general path then
 * parses it and reports any error. */
static bool parse_plain_cell(struct cursor *c, struct mi_node *n)
{
	char *name = c->s, *at = name_end(name);
	if (at == name || at[0] != '=' || at[1] != '"')
		return false;
	char *text = at + 2;
	char *q = scan_quote_or_backslash(text);
	if (*q != '"' || q >= c->end)
		return false;
	struct undo *u = c->undo;
	if (u) {
		if (u->n + 2 > UNDO_MAX)
			return false;
		u->at[u->n] = at;
		u->old[u->n++] = '=';
		u->at[u->n] = q;
		u->old[u->n++] = '"';
	}
	*at = '\0';
	*q = '\0';
	n->name = name;
	n->kind = MI_NODE_STRING;
	n->str = text;
	n->len = (uint32_t)(q - text);
	c->s = q + 1;
	return true;
}

/* Parses items up to `close` into n's children.  List items may be bare
 * values or results (GDB emits both forms). */
static int parse_items(struct cursor *c, struct mi_node *n, char close,
		       int depth)
{
	struct mi_node **tail = &n->child;
	n->child = NULL;
	n->count = 0;
	c->s++; /* the opening bracket */
	if (*c->s == close) {
		c->s++;
		return MI_OK;
	}
	for (;;) {
		struct mi_node *item = arena_alloc(c->arena);
		if (!item)
			return fail(c, MI_ENOMEM);
		item->name = NULL;
		item->next = NULL;
		char ch = *c->s;
		int rc;
		/* a bare value in a tuple too: gdb 13 writes a breakpoint's
		 * commands so, script={"silent","bt"} (a dprintf's or the
		 * user's), against its own grammar */
		if (ch == '"' || ch == '{' || ch == '[')
			rc = parse_value(c, item, depth);
		else if (parse_plain_cell(c, item))
			rc = MI_OK;
		else
			rc = parse_result(c, item, depth);
		if (rc != MI_OK)
			return rc;
		*tail = item;
		tail = &item->next;
		n->count++;
		if (*c->s == ',') {
			c->s++;
			continue;
		}
		if (*c->s == close) {
			c->s++;
			return MI_OK;
		}
		return fail(c, MI_ESYNTAX);
	}
}

static int parse_value(struct cursor *c, struct mi_node *n, int depth)
{
	if (depth >= MI_MAX_DEPTH)
		return fail(c, MI_EDEPTH);
	switch (*c->s) {
	case '"':
		n->kind = MI_NODE_STRING;
		return parse_cstring(c, &n->str, &n->len);
	case '{':
		n->kind = MI_NODE_TUPLE;
		return parse_items(c, n, '}', depth + 1);
	case '[':
		n->kind = MI_NODE_LIST;
		return parse_items(c, n, ']', depth + 1);
	default:
		return fail(c, MI_ESYNTAX);
	}
}

/* ,name=value,name=value ... to the end of the line. */
static int parse_results(struct cursor *c, struct mi_node **first)
{
	struct mi_node **tail = first;
	*first = NULL;
	while (*c->s == ',') {
		c->s++;
		struct mi_node *n = arena_alloc(c->arena);
		if (!n)
			return fail(c, MI_ENOMEM);
		n->next = NULL;
		int rc = parse_result(c, n, 0);
		if (rc != MI_OK)
			return rc;
		*tail = n;
		tail = &n->next;
	}
	if (c->s != c->end)
		return fail(c, MI_ESYNTAX);
	return MI_OK;
}

static int is_prompt(const char *s, const char *end)
{
	if (end - s < 5 || memcmp(s, "(gdb)", 5) != 0)
		return 0;
	for (s += 5; s < end; s++)
		if (*s != ' ' && *s != '\t')
			return 0;
	return 1;
}

/* cuda-gdb 13 once wrote 4 bytes that are not UTF-8 in front of ^running
 * on the same line (fixtures/attach.mi.log): skip bytes that cannot start
 * a record (controls and bytes >= 0x80) instead of dropping the record. */
static char *skip_junk(char *s, const char *end)
{
	while (s < end && ((unsigned char)*s >= 0x80 ||
			   ((unsigned char)*s < 0x20 && *s != '\0')))
		s++;
	return s;
}

static int parse_record(struct cursor *c, struct mi_record *rec)
{
	c->s = skip_junk(c->s, c->end);
	if (is_prompt(c->s, c->end)) {
		rec->kind = MI_REC_PROMPT;
		return MI_OK;
	}
	if (*c->s >= '0' && *c->s <= '9') {
		uint64_t tok = 0;
		while (*c->s >= '0' && *c->s <= '9') {
			if (tok > (UINT64_MAX - 9) / 10)
				return fail(c, MI_ESYNTAX);
			tok = tok * 10 + (uint64_t)(*c->s++ - '0');
		}
		rec->has_token = true;
		rec->token = tok;
	}
	char kind = *c->s;
	switch (kind) {
	case '~': case '@': case '&':
		rec->kind = kind == '~' ? MI_REC_CONSOLE
			  : kind == '@' ? MI_REC_TARGET : MI_REC_LOG;
		c->s++;
		if (*c->s != '"')
			return fail(c, MI_ESYNTAX);
		uint32_t len;
		int rc = parse_cstring(c, &rec->text, &len);
		if (rc != MI_OK)
			return rc;
		rec->text_len = len;
		return c->s == c->end ? MI_OK : fail(c, MI_ESYNTAX);
	case '^': rec->kind = MI_REC_RESULT; break;
	case '*': rec->kind = MI_REC_EXEC; break;
	case '+': rec->kind = MI_REC_STATUS; break;
	case '=': rec->kind = MI_REC_NOTIFY; break;
	default:
		return fail(c, MI_ESYNTAX);
	}
	char *klass = ++c->s;
	c->s = name_end(klass);
	if (c->s == klass)
		return fail(c, MI_ESYNTAX);
	/* The class ends at ',' or the line's end; keep its terminator so
	 * parse_results can see it, and copy the class into the arena-free
	 * spot: we NUL it after results are parsed. */
	char *klass_end = c->s;
	int rc = parse_results(c, &rec->results);
	if (rc != MI_OK)
		return rc;
	*klass_end = '\0';
	rec->klass = klass;
	return MI_OK;
}

/* Parses line[0..len) in place (line[len] must be writable; it becomes
 * the NUL) and calls fn with the record. */
static int parse_line_inplace(char *line, size_t len, struct arena *arena,
			      mi_record_fn fn, void *ctx)
{
	if (len > 0 && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	struct cursor c = { .s = line, .end = line + len,
			    .arena = arena };
	struct mi_record rec = { .klass = "", .text = "" };
	int rc = parse_record(&c, &rec);
	if (rc != MI_OK) {
		rec = (struct mi_record){ .kind = MI_REC_ERROR, .klass = "",
					  .text = "", .error = c.error,
					  .error_at = (size_t)(c.error_at - line) };
	}
	fn(ctx, &rec);
	arena_rewind(arena);
	return rc;
}

/* ---- push interface ------------------------------------------------------ */

enum stream_mode {
	STREAM_NONE,     /* the line is buffered whole */
	STREAM_DECLINED, /* considered once; buffered whole */
	STREAM_ITEMS,    /* body items are handed out as they complete */
	STREAM_TRAILER,  /* past the body's ']': the rest is buffered */
	STREAM_FAILED,   /* a streamed item did not parse: rest dropped */
};

/* State of a streamed line (see mi_parser_set_stream).  Offsets are into
 * the line buffer: [0, body) holds the header, decoded in place and kept;
 * [item, len) is the unfinished item (after compaction it starts at body). */
struct stream {
	enum stream_mode mode;
	size_t body;        /* first byte after "body=[" */
	size_t item;        /* first byte of the item being received */
	size_t scan;        /* bytes before this were boundary-scanned */
	size_t trailer;     /* STREAM_TRAILER: first byte after the ']' */
	int depth;          /* brackets open inside the current item */
	bool in_str, esc;   /* scanner inside a string / after a backslash */
	size_t items;       /* items handed out */
	bool has_token;
	uint64_t token;
	const char *klass;  /* in the header region */
	struct mi_node *table;  /* NAME={...}: header results, then body */
	struct mi_node **tail;  /* where the next header child goes */
	struct mi_node *body_node;
	int error;
	char *hbuf;             /* a private copy of the header: the line
				 * buffer may move when it grows */
	struct arena harena;    /* header nodes, kept for the whole line */
};

struct mi_parser {
	mi_record_fn fn;
	mi_raw_line_fn raw_fn;
	void *ctx;
	char *buf;       /* the unfinished line */
	size_t len, cap; /* cap excludes the byte kept for the NUL */
	size_t max_line;
	int dropping;    /* discarding the rest of an overlong line */
	struct arena arena;
	size_t stream_threshold;
	mi_stream_want_fn want_fn;
	mi_stream_item_fn item_fn;
	struct stream st;
};

static int stream_begin(struct mi_parser *p);
static int stream_scan(struct mi_parser *p);
static int stream_append(struct mi_parser *p, const char *s, size_t n);
static int stream_end_line(struct mi_parser *p);

struct mi_parser *mi_parser_new(mi_record_fn fn, void *ctx)
{
	struct mi_parser *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	name_chars_init();
	p->fn = fn;
	p->ctx = ctx;
	return p;
}

void mi_parser_free(struct mi_parser *p)
{
	if (!p)
		return;
	arena_free(&p->arena);
	arena_free(&p->st.harena);
	free(p->st.hbuf);
	free(p->buf);
	free(p);
}

void mi_parser_set_raw_hook(struct mi_parser *p, mi_raw_line_fn fn)
{
	p->raw_fn = fn;
}

size_t mi_parser_kept_bytes(const struct mi_parser *p)
{
	size_t n = 0;
	for (const struct arena_block *b = p->arena.first; b; b = b->next)
		n += b->cap * sizeof(struct mi_node);
	return n;
}

void mi_parser_set_max_line(struct mi_parser *p, size_t max)
{
	p->max_line = max;
}

/* Room for `extra` more bytes plus SCAN_SLACK bytes past the NUL. */
static int reserve(struct mi_parser *p, size_t extra)
{
	size_t need = p->len + extra;
	if (need <= p->cap)
		return MI_OK;
	size_t cap = p->cap ? p->cap : 4096;
	while (cap < need)
		cap *= 2;
	char *nb = realloc(p->buf, cap + SCAN_SLACK);
	if (!nb)
		return MI_ENOMEM;
	p->buf = nb;
	p->cap = cap;
	return MI_OK;
}

static void report_too_big(struct mi_parser *p)
{
	struct mi_record rec = { .kind = MI_REC_ERROR, .klass = "", .text = "",
				 .error = MI_ETOOBIG, .error_at = p->max_line };
	p->fn(p->ctx, &rec);
}

/* ---- streaming of big table lines ---------------------------------------- */

void mi_parser_set_stream(struct mi_parser *p, size_t threshold,
			  mi_stream_want_fn want_fn, mi_stream_item_fn item_fn)
{
	p->stream_threshold = threshold;
	p->want_fn = item_fn ? want_fn : NULL;
	p->item_fn = item_fn;
}

static void stream_reset(struct mi_parser *p)
{
	struct arena keep = p->st.harena;
	arena_rewind(&keep);
	free(p->st.hbuf);
	p->st = (struct stream){ .mode = STREAM_NONE, .harena = keep };
}

static void raw_piece(struct mi_parser *p, const char *b, size_t n,
		      unsigned piece)
{
	if (p->raw_fn)
		p->raw_fn(p->ctx, b, n, piece);
}

/* Reads the start of a table line without touching it:
 * [TOKEN]^CLASS,NAME={  Returns the offset of the '{', or 0 when the line
 * does not have that shape. */
static size_t peek_table_head(const char *b, size_t len, bool *has_token,
			      uint64_t *token, char *klass, size_t kcap,
			      char *name, size_t ncap)
{
	size_t i = 0;
	*has_token = false;
	*token = 0;
	while (i < len && b[i] >= '0' && b[i] <= '9') {
		if (*token > (UINT64_MAX - 9) / 10)
			return 0;
		*token = *token * 10 + (uint64_t)(b[i++] - '0');
		*has_token = true;
	}
	if (i >= len || b[i++] != '^')
		return 0;
	size_t k = 0;
	while (i < len && is_name_char((unsigned char)b[i]) && k + 1 < kcap)
		klass[k++] = b[i++];
	klass[k] = '\0';
	if (k == 0 || i >= len || b[i++] != ',')
		return 0;
	size_t n = 0;
	while (i < len && is_name_char((unsigned char)b[i]) && n + 1 < ncap)
		name[n++] = b[i++];
	name[n] = '\0';
	if (n == 0 || i + 1 >= len || b[i] != '=' || b[i + 1] != '{')
		return 0;
	return i + 1;
}

/* Parses the header [0, body) in place: the record's class, the table's
 * name and its results before body=[ (nr_rows, nr_cols, hdr). */
static int stream_parse_header(struct mi_parser *p, size_t brace,
			       size_t body_at)
{
	struct stream *st = &p->st;
	char *b = st->hbuf = malloc(body_at + 6 + SCAN_SLACK);
	if (!b)
		return MI_ENOMEM;
	memcpy(b, p->buf, body_at + 6);
	memset(b + body_at + 6, 0, SCAN_SLACK);
	size_t i = 0;
	while (b[i] >= '0' && b[i] <= '9')
		i++;
	st->klass = b + i + 1;                 /* after '^' */
	char *comma = memchr(b, ',', brace);
	*comma = '\0';
	b[brace - 1] = '\0';                   /* the '=' after NAME */
	st->table = arena_alloc(&st->harena);
	if (!st->table)
		return MI_ENOMEM;
	*st->table = (struct mi_node){ .name = comma + 1,
				       .kind = MI_NODE_TUPLE };
	st->tail = &st->table->child;
	struct cursor c = { .s = b + brace + 1, .end = b + body_at,
			    .arena = &st->harena };
	char *body_name = b + body_at;
	while (c.s < body_name) {
		struct mi_node *n = arena_alloc(&st->harena);
		if (!n)
			return MI_ENOMEM;
		n->next = NULL;
		int rc = parse_result(&c, n, 1);
		if (rc != MI_OK || *c.s != ',')
			return rc != MI_OK ? rc : MI_ESYNTAX;
		c.s++;
		*st->tail = n;
		st->tail = &n->next;
		st->table->count++;
	}
	struct mi_node *body = arena_alloc(&st->harena);
	if (!body)
		return MI_ENOMEM;
	b[body_at + 4] = '\0';                 /* the '=' after "body" */
	*body = (struct mi_node){ .name = body_name, .kind = MI_NODE_LIST };
	*st->tail = body;
	st->tail = &body->next;
	st->table->count++;
	st->body_node = body;
	return MI_OK;
}

/* Called once a buffered line grows past the threshold: streams it when
 * it is a table whose owner wants it streamed. */
static int stream_begin(struct mi_parser *p)
{
	struct stream *st = &p->st;
	st->mode = STREAM_DECLINED;
	char klass[32], name[128];
	size_t brace = peek_table_head(p->buf, p->len, &st->has_token,
				       &st->token, klass, sizeof klass, name,
				       sizeof name);
	if (!brace || strcmp(klass, "done") != 0)
		return MI_OK;
	/* cuda-gdb puts hdr (a few KiB) before body: look only in the
	 * first threshold bytes so a declined line is scanned once. */
	size_t look = p->len < p->stream_threshold ? p->len : p->stream_threshold;
	if (look <= brace)
		return MI_OK;
	const char *bodyp = memmem(p->buf + brace, look - brace, ",body=[", 7);
	if (!bodyp || !p->want_fn(p->ctx, st->has_token, st->token, klass, name))
		return MI_OK;
	size_t body_at = (size_t)(bodyp - p->buf) + 1;
	raw_piece(p, p->buf, p->len, MI_RAW_FIRST);
	st->mode = STREAM_ITEMS;
	int rc = stream_parse_header(p, brace, body_at);
	if (rc != MI_OK) {
		st->mode = STREAM_FAILED;
		st->error = rc;
		return rc == MI_ENOMEM ? rc : MI_OK;
	}
	st->body = st->item = st->scan = body_at + 6;
	return stream_scan(p);
}

/* Parses the complete item [st->item, end) and hands it out. */
static int stream_item(struct mi_parser *p, size_t end)
{
	struct stream *st = &p->st;
	char *b = p->buf;
	if (end == st->item)
		return MI_OK; /* "[]" */
	char saved = b[end];
	b[end] = '\0';
	struct cursor c = { .s = b + st->item, .end = b + end,
			    .arena = &p->arena };
	struct mi_node *n = arena_alloc(&p->arena);
	int rc = n ? MI_OK : MI_ENOMEM;
	if (n) {
		n->name = NULL;
		n->next = NULL;
		char ch = *c.s;
		rc = (ch == '"' || ch == '{' || ch == '[')
			     ? parse_value(&c, n, 2) : parse_result(&c, n, 2);
		if (rc == MI_OK && c.s != c.end)
			rc = MI_ESYNTAX;
	}
	b[end] = saved;
	if (rc == MI_OK) {
		p->item_fn(p->ctx, st->has_token, st->token, n);
		st->items++;
	}
	arena_rewind(&p->arena);
	return rc;
}

/* The first try at the item that starts at st->item: parsed where it
 * lies, with no boundary scan first.  An item that ends before the
 * bytes received so far do, followed by ',' or ']', is handed out (1);
 * else (cut short by the end of the bytes, an escape, a syntax error)
 * every byte it overwrote is put back and the careful path (the boundary
 * scan, then stream_item) takes it (0).  Each byte is then looked at
 * once, as the grammar's own parse looks at it. */
static int stream_try_item(struct mi_parser *p, struct undo *u)
{
	struct stream *st = &p->st;
	char *b = p->buf;
	struct cursor c = { .s = b + st->item, .end = b + p->len,
			    .arena = &p->arena, .undo = u };
	char ch = *c.s;
	if (ch == ']' || ch == '\0')
		return 0; /* "[]", or nothing received yet */
	struct mi_node *n = arena_alloc(&p->arena);
	if (!n)
		return 0;
	n->name = NULL;
	n->next = NULL;
	u->n = 0;
	int rc = (ch == '"' || ch == '{' || ch == '[')
			 ? parse_value(&c, n, 2) : parse_result(&c, n, 2);
	if (rc != MI_OK || c.s >= c.end || (*c.s != ',' && *c.s != ']')) {
		undo_all(u);
		arena_rewind(&p->arena);
		return 0;
	}
	p->item_fn(p->ctx, st->has_token, st->token, n);
	st->items++;
	arena_rewind(&p->arena);
	size_t at = (size_t)(c.s - b);
	st->item = st->scan = at + 1;
	if (*c.s == ']') {
		st->mode = STREAM_TRAILER;
		st->trailer = at + 1;
	}
	return 1;
}

/* Moves the unfinished item down to the start of the body region, so the
 * buffer holds the header and one item, not the whole line. */
static void stream_compact(struct mi_parser *p)
{
	struct stream *st = &p->st;
	size_t drop = st->item - st->body;
	if (drop < (1u << 16))
		return;
	memmove(p->buf + st->body, p->buf + st->item, p->len - st->item);
	p->len -= drop;
	st->item -= drop;
	st->scan -= drop;
	memset(p->buf + p->len, 0, SCAN_SLACK);
}

/* Runs the item-boundary scanner over the bytes not yet scanned, up to
 * the end of the first item it hands out (*done set) or of the bytes;
 * each byte is looked at once here and once by the item's parse. */
static int stream_scan_careful(struct mi_parser *p, bool *done)
{
	struct stream *st = &p->st;
	const char *b = p->buf;
	size_t i = st->scan;
	*done = false;
	for (; i < p->len && st->mode == STREAM_ITEMS && !*done; i++) {
		char ch = b[i];
		if (st->in_str) {
			if (st->esc) {
				st->esc = false;
				continue;
			}
			/* most bytes are a string's: run to its next quote or
			 * backslash in a tight loop (half the scan's time
			 * went to the per-byte state checks) */
			i += strcspn(b + i, "\"\\"); /* NUL-ended past len */
			if (i > p->len)
				i = p->len;
			if (i == p->len)
				break;
			if (b[i] == '\\')
				st->esc = true;
			else
				st->in_str = false;
			continue;
		}
		if (ch != '"' && ch != '{' && ch != '[' && ch != '}' &&
		    ch != ']' && ch != ',') {
			/* a name or '=': on to the next structural byte */
			size_t k = strcspn(b + i, "\"{}[],");
			i += k ? k - 1 : 0;
			if (i >= p->len)
				i = p->len - 1;
			continue;
		}
		if (ch == '"') {
			st->in_str = true;
		} else if (ch == '{' || ch == '[') {
			st->depth++;
		} else if ((ch == '}' || ch == ']') && st->depth > 0) {
			st->depth--;
		} else if (st->depth == 0 && (ch == ',' || ch == ']')) {
			int rc = stream_item(p, i);
			if (rc != MI_OK) {
				st->mode = STREAM_FAILED;
				st->error = rc;
				return rc == MI_ENOMEM ? rc : MI_OK;
			}
			st->item = i + 1;
			if (ch == ']') {
				st->mode = STREAM_TRAILER;
				st->trailer = i + 1;
			}
			*done = true;
		}
	}
	st->scan = i;
	return MI_OK;
}

/* The items received so far: each tried where it lies first
 * (stream_try_item), the careful scan for one that is cut short, until
 * the bytes end. */
static int stream_scan(struct mi_parser *p)
{
	struct stream *st = &p->st;
	struct undo u;
	bool done = true;
	while (st->mode == STREAM_ITEMS && st->scan < p->len) {
		bool at_start = st->scan == st->item && !st->in_str &&
				st->depth == 0;
		if (at_start && stream_try_item(p, &u))
			continue;
		int rc = stream_scan_careful(p, &done);
		if (rc != MI_OK || !done)
			break;
	}
	if (st->mode == STREAM_ITEMS)
		stream_compact(p);
	return st->mode == STREAM_FAILED && st->error == MI_ENOMEM ? MI_ENOMEM
								   : MI_OK;
}

static int stream_append(struct mi_parser *p, const char *s, size_t n)
{
	raw_piece(p, s, n, 0);
	if (p->st.mode == STREAM_FAILED)
		return MI_OK;
	int rc = reserve(p, n);
	if (rc != MI_OK) {
		p->st.mode = STREAM_FAILED;
		p->st.error = rc;
		return rc;
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	memset(p->buf + p->len, 0, SCAN_SLACK);
	return p->st.mode == STREAM_ITEMS ? stream_scan(p) : MI_OK;
}

/* The newline of a streamed line: parse what follows the body (the
 * table's closing brace, maybe more results) and deliver the record. */
static int stream_end_line(struct mi_parser *p)
{
	struct stream *st = &p->st;
	raw_piece(p, "", 0, MI_RAW_LAST);
	size_t len = p->len;
	p->len = 0;
	if (len > 0 && p->buf[len - 1] == '\r')
		len--;
	p->buf[len] = '\0';
	struct mi_record rec = { .kind = MI_REC_RESULT, .klass = st->klass,
				 .text = "", .has_token = st->has_token,
				 .token = st->token, .results = st->table,
				 .streamed = true };
	int rc = st->mode == STREAM_TRAILER ? MI_OK
	       : st->mode == STREAM_FAILED ? st->error : MI_ESYNTAX;
	if (rc == MI_OK) {
		st->body_node->count = (uint32_t)st->items;
		struct cursor c = { .s = p->buf + st->trailer, .end = p->buf + len,
				    .arena = &st->harena };
		while (rc == MI_OK && *c.s == ',') {
			c.s++;
			struct mi_node *n = arena_alloc(&st->harena);
			if (!n)
				rc = MI_ENOMEM;
			else {
				n->next = NULL;
				rc = parse_result(&c, n, 1);
				*st->tail = n;
				st->tail = &n->next;
				st->table->count++;
			}
		}
		if (rc == MI_OK && (*c.s != '}' || c.s + 1 != c.end))
			rc = MI_ESYNTAX;
	}
	if (rc != MI_OK)
		rec = (struct mi_record){ .kind = MI_REC_ERROR, .klass = "",
					  .text = "", .error = rc };
	p->fn(p->ctx, &rec);
	stream_reset(p);
	return rc == MI_ENOMEM ? MI_ENOMEM : MI_OK;
}

/* Appends bytes of the current line; enforces the line limit. */
static int append(struct mi_parser *p, const char *s, size_t n)
{
	if (n == 0)
		return MI_OK; /* buf may still be NULL: memcpy(NULL, s, 0) is UB */
	if (p->dropping)
		return MI_OK;
	if (p->st.mode >= STREAM_ITEMS)
		return stream_append(p, s, n);
	if (p->max_line && p->len + n > p->max_line) {
		p->dropping = 1;
		p->len = 0;
		report_too_big(p);
		return MI_OK;
	}
	int rc = reserve(p, n);
	if (rc != MI_OK) {
		p->len = 0;
		p->dropping = 1;
		return rc;
	}
	memcpy(p->buf + p->len, s, n);
	p->len += n;
	/* NULs after the bytes: the streamed scan's strcspn stops there */
	memset(p->buf + p->len, 0, SCAN_SLACK);
	if (p->st.mode == STREAM_NONE && p->want_fn &&
	    p->len > p->stream_threshold)
		return stream_begin(p);
	return MI_OK;
}

static int end_line(struct mi_parser *p)
{
	int was_dropping = p->dropping;
	p->dropping = 0;
	if (was_dropping) {
		p->len = 0;
		return MI_OK;
	}
	if (reserve(p, 1) != MI_OK) {
		p->len = 0;
		return MI_ENOMEM;
	}
	memset(p->buf + p->len, 0, SCAN_SLACK);
	if (p->st.mode >= STREAM_ITEMS)
		return stream_end_line(p);
	p->st.mode = STREAM_NONE;
	if (p->raw_fn)
		p->raw_fn(p->ctx, p->buf, p->len, MI_RAW_FIRST | MI_RAW_LAST);
	size_t len = p->len;
	p->len = 0;
	/* Blank lines carry nothing; GDB never sends them but a terminal
	 * in between might. */
	if (len == 0 || (len == 1 && p->buf[0] == '\r'))
		return MI_OK;
	int rc = parse_line_inplace(p->buf, len, &p->arena, p->fn, p->ctx);
	return rc == MI_ENOMEM ? MI_ENOMEM : MI_OK;
}

int mi_parser_push(struct mi_parser *p, const char *buf, size_t len)
{
	int result = MI_OK;
	while (len > 0) {
		const char *nl = memchr(buf, '\n', len);
		size_t take = nl ? (size_t)(nl - buf) : len;
		int rc = append(p, buf, take);
		if (rc != MI_OK)
			result = rc;
		if (!nl)
			break;
		rc = end_line(p);
		if (rc != MI_OK)
			result = rc;
		buf += take + 1;
		len -= take + 1;
	}
	return result;
}

int mi_parser_finish(struct mi_parser *p)
{
	if (p->len == 0 && !p->dropping)
		return MI_OK;
	return end_line(p);
}

int mi_parse_line(const char *line, size_t len, mi_record_fn fn, void *ctx)
{
	char *copy = malloc(len + 1 + SCAN_SLACK);
	if (!copy)
		return MI_ENOMEM;
	name_chars_init();
	memcpy(copy, line, len);
	memset(copy + len, 0, 1 + SCAN_SLACK);
	struct arena arena = { 0 };
	int rc = parse_line_inplace(copy, len, &arena, fn, ctx);
	arena_free(&arena);
	free(copy);
	return rc;
}

long mi_unquote(char *dst, size_t cap, const char *s, size_t len)
{
	if (len < 2 || s[0] != '"')
		return MI_ESYNTAX;
	const char *r = s + 1, *end = s + len;
	size_t w = 0;
	while (r < end && *r != '"') {
		char ch = *r++;
		if (ch == '\\' && unescape_one(&r, end, &ch) != MI_OK)
			return MI_ESYNTAX;
		if (w + 1 < cap)
			dst[w] = ch;
		w++;
	}
	if (r >= end)
		return MI_ESYNTAX;
	if (cap)
		dst[w < cap ? w : cap - 1] = '\0';
	return (long)w;
}

/* ---- lookups and quoting ------------------------------------------------ */

const struct mi_node *mi_find(const struct mi_node *n, const char *name)
{
	for (; n; n = n->next)
		if (n->name && strcmp(n->name, name) == 0)
			return n;
	return NULL;
}

const char *mi_find_str(const struct mi_node *first, const char *name)
{
	const struct mi_node *n = mi_find(first, name);
	return n && n->kind == MI_NODE_STRING ? n->str : NULL;
}

const struct mi_node *mi_find_children(const struct mi_node *first,
				       const char *name)
{
	const struct mi_node *n = mi_find(first, name);
	return n && n->kind != MI_NODE_STRING ? n->child : NULL;
}

size_t mi_quote(char *dst, size_t cap, const char *s, size_t len)
{
	size_t w = 0;
#define PUT(ch)                                                               \
	do {                                                                  \
		if (w + 1 < cap)                                              \
			dst[w] = (ch);                                        \
		w++;                                                          \
	} while (0)
	PUT('"');
	for (size_t i = 0; i < len; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch == '"' || ch == '\\') {
			PUT('\\');
			PUT((char)ch);
		} else if (ch == '\n') {
			PUT('\\');
			PUT('n');
		} else if (ch == '\t') {
			PUT('\\');
			PUT('t');
		} else if (ch < 0x20 || ch == 0x7f) {
			PUT('\\');
			PUT((char)('0' + ((ch >> 6) & 7)));
			PUT((char)('0' + ((ch >> 3) & 7)));
			PUT((char)('0' + (ch & 7)));
		} else {
			PUT((char)ch);
		}
	}
	PUT('"');
#undef PUT
	if (cap)
		dst[w < cap ? w : cap - 1] = '\0';
	return w;
}

const char *mi_strerror(int code)
{
	switch (code) {
	case MI_OK: return "no error";
	case MI_ENOMEM: return "out of memory";
	case MI_ESYNTAX: return "malformed GDB/MI line";
	case MI_EDEPTH: return "GDB/MI nesting too deep";
	case MI_ETOOBIG: return "GDB/MI line too long";
	default: return "unknown error";
	}
}
