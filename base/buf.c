/* The growable buffer (include/cudbg/base.h). */
#include "cudbg/base.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int dbuf_reserve(struct dbuf *b, size_t extra)
{
	if (b->oom)
		return -1;
	if (extra > (size_t)-1 / 2 - b->len) {
		b->oom = true; /* the doubling below would overflow */
		return -1;
	}
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return -1;
	}
	b->s = s;
	b->cap = cap;
	return 0;
}

void dbuf_put(struct dbuf *b, const char *s, size_t n)
{
	if (dbuf_reserve(b, n) < 0)
		return;
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void dbuf_puts(struct dbuf *b, const char *s)
{
	dbuf_put(b, s, strlen(s));
}

void dbuf_putc(struct dbuf *b, char c)
{
	dbuf_put(b, &c, 1);
}

void dbuf_printf(struct dbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char small[256];
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		dbuf_put(b, small, (size_t)n);
		return;
	}
	if (dbuf_reserve(b, (size_t)n) < 0)
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *dbuf_take(struct dbuf *b)
{
	char *s = NULL;
	if (!b->oom) {
		s = b->s ? b->s : calloc(1, 1);
		b->s = NULL;
	}
	dbuf_free(b);
	return s;
}

void dbuf_free(struct dbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}
