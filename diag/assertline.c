/* Device assertion lines: parser and aggregator.
 *
 * The device printf buffer prints one line per failing thread:
 *   FILE:LINE: KERNEL: block: [x,y,z], thread: [x,y,z] Assertion `EXPR` failed.
 * KERNEL is a bare name for PyTorch's own kernels and a full signature
 * ("void k(const float *, int)") for CUDA C built with nvcc.  The parse
 * anchors on the fixed words from the end of the line, since KERNEL and
 * EXPR may hold colons, brackets and spaces.
 */
#include "cudbg/decode.h"
#include "cudbg/assertline.h"
#include "diag/internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const char *mem_rfind(const char *s, size_t len, const char *pat,
			     size_t limit_from)
{
	size_t n = strlen(pat);
	if (len < n)
		return NULL;
	for (size_t i = len - n + 1; i-- > limit_from;)
		if (memcmp(s + i, pat, n) == 0)
			return s + i;
	return NULL;
}

/* Parses "[x,y,z]" at *p (bounded by end); advances *p past it. */
static bool parse_brackets(const char **p, const char *end,
			   struct diag_dim3 *out)
{
	const char *q = *p;
	if (q >= end || *q != '[')
		return false;
	const char *close = memchr(q, ']', (size_t)(end - q));
	if (!close || close - q > 40)
		return false;
	char tmp[48];
	memcpy(tmp, q, (size_t)(close - q + 1));
	tmp[close - q + 1] = '\0';
	if (diag_parse_dim3(tmp, out) != DIAG_OK)
		return false;
	*p = close + 1;
	return true;
}

static bool take(const char **p, const char *end, const char *word)
{
	size_t n = strlen(word);
	if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0)
		return false;
	*p += n;
	return true;
}

/* FILE:LINE: KERNEL in s[0..len).  The first ":<digits>:" splits it. */
static bool parse_prefix(const char *s, size_t len,
			 struct diag_assert_line *out)
{
	size_t start = 0;
	while (start < len && isspace((unsigned char)s[start]))
		start++;
	for (size_t i = start; i < len; i++) {
		if (s[i] != ':' || i == start)
			continue;
		size_t j = i + 1;
		unsigned long line = 0;
		while (j < len && isdigit((unsigned char)s[j]) && line < 100000000)
			line = line * 10 + (unsigned long)(s[j++] - '0');
		if (j == i + 1 || j >= len || s[j] != ':')
			continue;
		out->file = s + start;
		out->file_len = i - start;
		out->line = (unsigned)line;
		j++;
		while (j < len && s[j] == ' ')
			j++;
		out->kernel = s + j;
		out->kernel_len = len - j;
		return out->kernel_len > 0;
	}
	return false;
}

int diag_assert_parse(const char *s, size_t len, struct diag_assert_line *out)
{
	static const char failed[] = "` failed.";
	const char *a = mem_rfind(s, len, "Assertion `", 0);
	if (!a)
		return 0;
	size_t after = (size_t)(a - s) + 11;
	const char *f = mem_rfind(s, len, failed, after);
	if (!f)
		return 0;
	memset(out, 0, sizeof *out);
	out->expr = s + after;
	out->expr_len = (size_t)(f - out->expr);

	const char *b = mem_rfind(s, (size_t)(a - s), ": block: ", 0);
	if (!b)
		return 0;
	const char *p = b + 9;
	if (!parse_brackets(&p, a, &out->block) || !take(&p, a, ", thread: ") ||
	    !parse_brackets(&p, a, &out->thread))
		return 0;
	while (p < a && *p == ' ')
		p++;
	if (p != a)
		return 0;
	return parse_prefix(s, (size_t)(b - s), out) ? 1 : 0;
}

/* ---- aggregator -------------------------------------------------------- */

struct diag_asserts {
	struct diag_assert_entry **v;
	size_t n, cap;
	uint64_t total, dropped;
	size_t last_hit;        /* most lines repeat the previous entry */
	char *line;             /* partial line */
	size_t line_len, line_cap;
	bool skipping;          /* inside an over-long line */
	diag_line_fn hook;
	void *hook_ctx;
};

struct diag_asserts *diag_asserts_new(void)
{
	return calloc(1, sizeof(struct diag_asserts));
}

static void entry_free(struct diag_assert_entry *e)
{
	if (!e)
		return;
	free(e->file);
	free(e->kernel);
	free(e->kernel_short);
	free(e->expr);
	free(e);
}

void diag_asserts_free(struct diag_asserts *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->n; i++)
		entry_free(a->v[i]);
	free(a->v);
	free(a->line);
	free(a);
}

void diag_asserts_set_line_hook(struct diag_asserts *a, diag_line_fn fn,
				void *ctx)
{
	a->hook = fn;
	a->hook_ctx = ctx;
}

static bool span_eq(const char *str, const char *s, size_t n)
{
	return strlen(str) == n && memcmp(str, s, n) == 0;
}

static bool entry_is(const struct diag_assert_entry *e,
		     const struct diag_assert_line *l)
{
	return e->line == l->line && span_eq(e->file, l->file, l->file_len) &&
	       span_eq(e->kernel, l->kernel, l->kernel_len) &&
	       span_eq(e->expr, l->expr, l->expr_len);
}

static void dim_min(struct diag_dim3 *m, const struct diag_dim3 *v)
{
	if (v->x < m->x) m->x = v->x;
	if (v->y < m->y) m->y = v->y;
	if (v->z < m->z) m->z = v->z;
}

static void dim_max(struct diag_dim3 *m, const struct diag_dim3 *v)
{
	if (v->x > m->x) m->x = v->x;
	if (v->y > m->y) m->y = v->y;
	if (v->z > m->z) m->z = v->z;
}

static struct diag_assert_entry *entry_new(const struct diag_assert_line *l)
{
	struct diag_assert_entry *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	e->file = diag_strndup(l->file, l->file_len);
	e->kernel = diag_strndup(l->kernel, l->kernel_len);
	e->expr = diag_strndup(l->expr, l->expr_len);
	e->line = l->line;
	if (e->kernel) {
		size_t n = dec_func_short(e->kernel, NULL, 0);
		e->kernel_short = malloc(n + 1);
		if (e->kernel_short)
			dec_func_short(e->kernel, e->kernel_short, n + 1);
		e->full_signature = memchr(l->kernel, '(', l->kernel_len) &&
				    l->kernel[l->kernel_len - 1] == ')';
	}
	if (!e->file || !e->kernel || !e->expr || !e->kernel_short) {
		entry_free(e);
		return NULL;
	}
	e->block_min = e->block_max = l->block;
	e->thread_min = e->thread_max = l->thread;
	return e;
}

static struct diag_assert_entry *entry_find(struct diag_asserts *a,
					    const struct diag_assert_line *l)
{
	if (a->last_hit < a->n && entry_is(a->v[a->last_hit], l))
		return a->v[a->last_hit];
	for (size_t i = 0; i < a->n; i++)
		if (entry_is(a->v[i], l)) {
			a->last_hit = i;
			return a->v[i];
		}
	return NULL;
}

int diag_asserts_add(struct diag_asserts *a, const struct diag_assert_line *l)
{
	a->total++;
	struct diag_assert_entry *e = entry_find(a, l);
	if (!e) {
		if (a->n >= DIAG_ASSERT_MAX_ENTRIES) {
			a->dropped++;
			return DIAG_OK;
		}
		if (a->n == a->cap) {
			size_t cap = a->cap ? a->cap * 2 : 8;
			void *v = realloc(a->v, cap * sizeof *a->v);
			if (!v)
				return DIAG_ENOMEM;
			a->v = v;
			a->cap = cap;
		}
		if (!(e = entry_new(l)))
			return DIAG_ENOMEM;
		a->last_hit = a->n;
		a->v[a->n++] = e;
	}
	e->count++;
	dim_min(&e->block_min, &l->block);
	dim_max(&e->block_max, &l->block);
	dim_min(&e->thread_min, &l->thread);
	dim_max(&e->thread_max, &l->thread);
	if (e->n_examples < DIAG_ASSERT_EXAMPLES) {
		e->first_block[e->n_examples] = l->block;
		e->first_thread[e->n_examples] = l->thread;
		e->n_examples++;
	}
	return DIAG_OK;
}

static int handle_line(struct diag_asserts *a, const char *s, size_t n)
{
	if (n && s[n - 1] == '\r') /* a pty turns \n into \r\n */
		n--;
	struct diag_assert_line l;
	if (diag_assert_parse(s, n, &l))
		return diag_asserts_add(a, &l);
	if (a->hook)
		a->hook(a->hook_ctx, s, n);
	return DIAG_OK;
}

static int keep_partial(struct diag_asserts *a, const char *s, size_t n)
{
	if (a->skipping)
		return DIAG_OK;
	if (a->line_len + n > DIAG_ASSERT_MAX_LINE) {
		/* Not an assertion line a person could read: drop it up to
		 * its newline rather than hold unbounded bytes. */
		a->skipping = true;
		a->line_len = 0;
		return DIAG_OK;
	}
	if (a->line_len + n > a->line_cap) {
		size_t cap = a->line_cap ? a->line_cap : 256;
		while (cap < a->line_len + n)
			cap *= 2;
		char *l = realloc(a->line, cap);
		if (!l)
			return DIAG_ENOMEM;
		a->line = l;
		a->line_cap = cap;
	}
	memcpy(a->line + a->line_len, s, n);
	a->line_len += n;
	return DIAG_OK;
}

int diag_asserts_feed(struct diag_asserts *a, const char *buf, size_t len)
{
	int rc = DIAG_OK;
	while (len) {
		const char *nl = memchr(buf, '\n', len);
		if (!nl)
			return keep_partial(a, buf, len);
		size_t n = (size_t)(nl - buf);
		if (a->skipping) {
			a->skipping = false;
		} else if (a->line_len) {
			if ((rc = keep_partial(a, buf, n)) < 0)
				return rc;
			if (!a->skipping)
				rc = handle_line(a, a->line, a->line_len);
			a->skipping = false;
			a->line_len = 0;
		} else {
			rc = handle_line(a, buf, n);
		}
		if (rc < 0)
			return rc;
		buf += n + 1;
		len -= n + 1;
	}
	return rc;
}

int diag_asserts_finish(struct diag_asserts *a)
{
	int rc = DIAG_OK;
	if (a->line_len && !a->skipping)
		rc = handle_line(a, a->line, a->line_len);
	a->line_len = 0;
	a->skipping = false;
	return rc;
}

size_t diag_asserts_count(const struct diag_asserts *a)
{
	return a ? a->n : 0;
}

const struct diag_assert_entry *diag_asserts_get(const struct diag_asserts *a,
						 size_t i)
{
	return a && i < a->n ? a->v[i] : NULL;
}

const struct diag_assert_entry *const *
diag_asserts_all(const struct diag_asserts *a)
{
	return a ? (const struct diag_assert_entry *const *)a->v : NULL;
}

uint64_t diag_asserts_total(const struct diag_asserts *a)
{
	return a ? a->total : 0;
}

uint64_t diag_asserts_dropped(const struct diag_asserts *a)
{
	return a ? a->dropped : 0;
}
