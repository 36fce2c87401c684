/* GDB/MI 3 output parser.
 *
 * Design, for speed on cuda-gdb's huge table lines (10.5 MB and 60 MB on one
 * line for -cuda-info-threads on a full H200):
 *  - bytes are appended once to a line buffer; only new bytes are searched
 *    for the newline, so a line that arrives in many chunks costs no rescan;
 *  - a complete line is parsed in one forward pass by recursive descent with
 *    a depth bound;
 *  - strings are decoded in place (an escaped string only ever shrinks) and
 *    NUL terminated by overwriting the closing quote or the '=' after a name;
 *  - nodes come from an arena that is rewound, not freed, after each line.
 */
#include "cudbg/mi.h"

#include <stdlib.h>
#include <string.h>

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

static struct mi_node *arena_alloc(struct arena *a)
{
	struct arena_block *b = a->cur;
	if (b && b->used < b->cap)
		return &b->nodes[b->used++];
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

/* Keeps the first block for the next line; frees blocks grown for a huge
 * line so one 60 MB table does not pin its memory for the session. */
static void arena_rewind(struct arena *a)
{
	if (!a->first)
		return;
	struct arena_block *b = a->first->next;
	while (b) {
		struct arena_block *n = b->next;
		free(b);
		b = n;
	}
	a->first->next = NULL;
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

struct cursor {
	char *s;   /* next byte; the line is NUL terminated at end */
	char *end;
	char *start;
	struct arena *arena;
	int error;
	char *error_at;
};

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
		if (hit & highs)
			break;
		s += 8;
	}
	while (*s != '"' && *s != '\\' && *s != '\0')
		s++;
	return s;
}

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
	*stop = '\0'; /* overwrites the closing quote or lies before it */
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

static int parse_value(struct cursor *c, struct mi_node *n, int depth);

/* name=value; the '=' is overwritten with the name's NUL. */
static int parse_result(struct cursor *c, struct mi_node *n, int depth)
{
	char *name = c->s;
	while (is_name_char((unsigned char)*c->s))
		c->s++;
	if (c->s == name || *c->s != '=')
		return fail(c, MI_ESYNTAX);
	*c->s++ = '\0';
	n->name = name;
	return parse_value(c, n, depth);
}

/* Parses items up to `close` into n's children.  List items may be bare
 * values or results (GDB emits both forms). */
static int parse_items(struct cursor *c, struct mi_node *n, char close,
		       int depth, int named_only)
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
		if (!named_only && (ch == '"' || ch == '{' || ch == '['))
			rc = parse_value(c, item, depth);
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
		return parse_items(c, n, '}', depth + 1, 1);
	case '[':
		n->kind = MI_NODE_LIST;
		return parse_items(c, n, ']', depth + 1, 0);
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
	while (is_name_char((unsigned char)*c->s))
		c->s++;
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
	struct cursor c = { .s = line, .end = line + len, .start = line,
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

struct mi_parser {
	mi_record_fn fn;
	mi_raw_line_fn raw_fn;
	void *ctx;
	char *buf;       /* the unfinished line */
	size_t len, cap; /* cap excludes the byte kept for the NUL */
	size_t max_line;
	int dropping;    /* discarding the rest of an overlong line */
	struct arena arena;
};

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
	free(p->buf);
	free(p);
}

void mi_parser_set_raw_hook(struct mi_parser *p, mi_raw_line_fn fn)
{
	p->raw_fn = fn;
}

void mi_parser_set_max_line(struct mi_parser *p, size_t max)
{
	p->max_line = max;
}

/* Room for `extra` more bytes plus 8 bytes of slack: the word-at-a-time
 * scan may read up to 7 bytes past the NUL. */
static int reserve(struct mi_parser *p, size_t extra)
{
	size_t need = p->len + extra;
	if (need <= p->cap)
		return MI_OK;
	size_t cap = p->cap ? p->cap : 4096;
	while (cap < need)
		cap *= 2;
	char *nb = realloc(p->buf, cap + 8);
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

/* Appends bytes of the current line; enforces the line limit. */
static int append(struct mi_parser *p, const char *s, size_t n)
{
	if (n == 0)
		return MI_OK; /* buf may still be NULL: memcpy(NULL, s, 0) is UB */
	if (p->dropping)
		return MI_OK;
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
	memset(p->buf + p->len, 0, 8);
	if (p->raw_fn)
		p->raw_fn(p->ctx, p->buf, p->len);
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
	char *copy = malloc(len + 9);
	if (!copy)
		return MI_ENOMEM;
	name_chars_init();
	memcpy(copy, line, len);
	memset(copy + len, 0, 9);
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
