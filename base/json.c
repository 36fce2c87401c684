/* The JSON writer (include/cudbg/base.h): the --json report (batch and
 * diagnosis) and the DAP server's messages are written through it. */
#include "cudbg/base.h"

#include <stdlib.h>
#include <string.h>

void jw_init(struct jw *w)
{
	memset(w, 0, sizeof *w);
}

void jw_free(struct jw *w)
{
	dbuf_free(&w->b);
	jw_init(w);
}

char *jw_take(struct jw *w)
{
	if (w->depth != 0)
		w->b.oom = true; /* a bug of ours: never hand out half a value */
	char *s = dbuf_take(&w->b);
	jw_init(w);
	return s;
}

/* Before a value: the comma unless it is the first at its level or the
 * value of a jw_key(); then the key when there is one. */
static void sep_key(struct jw *w, const char *key)
{
	if (w->after_key) {
		w->after_key = false;
		return;
	}
	if (w->used[w->depth])
		dbuf_putc(&w->b, ',');
	w->used[w->depth] = true;
	if (key) {
		json_escape(&w->b, key, strlen(key));
		dbuf_putc(&w->b, ':');
	}
}

static void open_level(struct jw *w, const char *key, char open, char close)
{
	sep_key(w, key);
	if (w->depth >= JW_MAX_DEPTH) {
		w->b.oom = true; /* a bug of ours, not input: refuse to emit */
		return;
	}
	dbuf_putc(&w->b, open);
	w->depth++;
	w->close[w->depth] = close;
	w->used[w->depth] = false;
}

void jw_obj(struct jw *w, const char *key)
{
	open_level(w, key, '{', '}');
}

void jw_arr(struct jw *w, const char *key)
{
	open_level(w, key, '[', ']');
}

void jw_end(struct jw *w)
{
	if (w->depth == 0) {
		w->b.oom = true;
		return;
	}
	dbuf_putc(&w->b, w->close[w->depth]);
	w->depth--;
}

void jw_key(struct jw *w, const char *key)
{
	sep_key(w, key);
	w->after_key = true;
}

void jw_strn(struct jw *w, const char *key, const char *s, size_t n)
{
	sep_key(w, key);
	json_escape(&w->b, s, n);
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	if (!s)
		jw_null(w, key);
	else
		jw_strn(w, key, s, strlen(s));
}

void jw_text(struct jw *w, const char *key, const char *s, size_t n)
{
	char *e = text_escape_dup(s ? s : "", s ? n : 0,
				  TEXT_KEEP_TAB | TEXT_KEEP_NEWLINE);
	if (!e) {
		w->b.oom = true;
		return;
	}
	jw_strn(w, key, e, strlen(e));
	free(e);
}

void jw_int(struct jw *w, const char *key, long long v)
{
	sep_key(w, key);
	dbuf_printf(&w->b, "%lld", v);
}

void jw_uint(struct jw *w, const char *key, unsigned long long v)
{
	sep_key(w, key);
	dbuf_printf(&w->b, "%llu", v);
}

void jw_double(struct jw *w, const char *key, double v)
{
	sep_key(w, key);
	dbuf_printf(&w->b, "%.17g", v);
}

void jw_fixed(struct jw *w, const char *key, double v, int decimals)
{
	sep_key(w, key);
	dbuf_printf(&w->b, "%.*f", decimals, v);
}

void jw_int_or_null(struct jw *w, const char *key, long long v, bool ok)
{
	if (ok)
		jw_int(w, key, v);
	else
		jw_null(w, key);
}

void jw_hex(struct jw *w, const char *key, uint64_t v, bool ok)
{
	if (!ok) {
		jw_null(w, key);
		return;
	}
	sep_key(w, key);
	dbuf_printf(&w->b, "\"0x%llx\"", (unsigned long long)v);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	sep_key(w, key);
	dbuf_puts(&w->b, v ? "true" : "false");
}

void jw_null(struct jw *w, const char *key)
{
	sep_key(w, key);
	dbuf_puts(&w->b, "null");
}

void jw_raw(struct jw *w, const char *key, const char *json)
{
	size_t n = strlen(json);
	while (n && json[n - 1] == '\n')
		n--;
	sep_key(w, key);
	dbuf_put(&w->b, json, n);
}
