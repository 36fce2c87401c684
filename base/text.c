/* The terminal escaper and the JSON string escaper (include/cudbg/base.h,
 * docs/text-safety.md).  Both classify through text_next(), so the set of
 * code points that must not reach a terminal is written once. */
#include "cudbg/base.h"

#include <stdarg.h>
#include <stdint.h>

#include <stdlib.h>
#include <string.h>

static bool is_bidi_control(uint32_t cp)
{
	/* Embeddings/overrides, isolates, and the directional marks: each
	 * can make a line read differently from what the bytes say (Trojan
	 * Source). */
	return (cp >= 0x202A && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200E ||
	       cp == 0x200F || cp == 0x061C;
}

enum text_class text_classify(uint32_t cp)
{
	if (cp == '\t')
		return TEXT_TAB;
	if (cp == '\n')
		return TEXT_NEWLINE;
	if (cp == 0x1B)
		return TEXT_ESC;
	if (cp < 0x20 || cp == 0x7F)
		return TEXT_C0;
	if (cp >= 0x80 && cp <= 0x9F)
		return TEXT_C1;
	if (is_bidi_control(cp))
		return TEXT_BIDI;
	return TEXT_OK;
}

size_t text_next(const char *s, size_t len, uint32_t *cp,
		 enum text_class *cls)
{
	size_t n = utf8_decode(s, len, cp);
	if (n == 0) {
		*cp = (unsigned char)s[0];
		*cls = TEXT_INVALID;
		return 1;
	}
	*cls = text_classify(*cp);
	return n;
}

/* One unit of a text line: "\xNN" for a byte (a C0 control, DEL, or an
 * invalid byte: the byte is what was there), "\u{XXXX}" for a code point
 * (C1 and bidi: the bytes were valid UTF-8, the code point says more). */
static void escape_unit(struct dbuf *b, const char *s, size_t n,
			uint32_t cp, enum text_class cls, unsigned flags)
{
	switch (cls) {
	case TEXT_OK:
		dbuf_put(b, s, n);
		return;
	case TEXT_TAB:
		if (flags & TEXT_KEEP_TAB)
			dbuf_putc(b, '\t');
		else
			dbuf_putc(b, ' ');
		return;
	case TEXT_NEWLINE:
		if (flags & TEXT_KEEP_NEWLINE) {
			dbuf_putc(b, '\n');
			return;
		}
		break;
	case TEXT_C1:
	case TEXT_BIDI:
		dbuf_printf(b, "\\u{%04x}", (unsigned)cp);
		return;
	case TEXT_C0:
	case TEXT_ESC:
	case TEXT_INVALID:
		break;
	}
	dbuf_printf(b, "\\x%02x", (unsigned)cp);
}

void text_escape(struct dbuf *b, const char *s, size_t len, unsigned flags)
{
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		enum text_class cls;
		size_t n = text_next(s + i, len - i, &cp, &cls);
		escape_unit(b, s + i, n, cp, cls, flags);
		i += n;
	}
}

char *text_escape_dup(const char *s, size_t len, unsigned flags)
{
	struct dbuf b = {0};
	dbuf_put(&b, "", 0);
	text_escape(&b, s, len, flags);
	return dbuf_take(&b);
}

int text_escape_write(FILE *f, const char *s, size_t len, unsigned flags)
{
	char *e = text_escape_dup(s, len, flags);
	if (!e)
		return -1;
	size_t n = strlen(e);
	int rc = fwrite(e, 1, n, f) == n ? 0 : -1;
	free(e);
	return rc;
}

int text_write_line_n(FILE *f, const char *prefix, const char *s,
		      size_t len)
{
	int rc = fputs(prefix, f) < 0 ? -1 : 0;
	if (text_escape_write(f, s ? s : "", s ? len : 0, 0) < 0)
		rc = -1;
	return fputc('\n', f) == EOF ? -1 : rc;
}

int text_write_line(FILE *f, const char *prefix, const char *s)
{
	return text_write_line_n(f, prefix, s, s ? strlen(s) : 0);
}

/* ---- JSON ---- */

static void json_unit(struct dbuf *b, const char *s, size_t n, uint32_t cp,
		      enum text_class cls)
{
	if (cls == TEXT_INVALID) {
		dbuf_puts(b, "\\ufffd"); /* JSON text is UTF-8: cannot hold it */
	} else if (cp == '"' || cp == '\\') {
		dbuf_putc(b, '\\');
		dbuf_putc(b, (char)cp);
	} else if (cls == TEXT_NEWLINE) {
		dbuf_puts(b, "\\n");
	} else if (cls == TEXT_TAB) {
		dbuf_puts(b, "\\t");
	} else if (cls != TEXT_OK || cp == 0x2028 || cp == 0x2029) {
		/* U+2028/U+2029 end a line in JavaScript before ES2019: a
		 * report pasted into a script must not break there. */
		dbuf_printf(b, "\\u%04x", (unsigned)cp);
	} else {
		dbuf_put(b, s, n);
	}
}

void json_escape(struct dbuf *b, const char *s, size_t len)
{
	dbuf_putc(b, '"');
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		enum text_class cls;
		size_t n = text_next(s + i, len - i, &cp, &cls);
		json_unit(b, s + i, n, cp, cls);
		i += n;
	}
	dbuf_putc(b, '"');
}

bool text_starts(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);
	return len >= n && memcmp(s, prefix, n) == 0;
}

void text_ascii_copy(char *dst, size_t cap, const char *s, size_t len)
{
	size_t i = 0;
	/* len SIZE_MAX: up to the NUL; else len bytes, a NUL among them
	 * shown as '?' like any other control */
	for (; i < len && i < cap - 1 && (len != SIZE_MAX || s[i]); i++) {
		unsigned char c = (unsigned char)s[i];
		dst[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	dst[i] = '\0';
}

bool text_fit(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, cap, fmt, ap);
	va_end(ap);
	if (n < 0) {
		buf[0] = '\0';
		return false;
	}
	if ((size_t)n < cap)
		return false;
	/* cut: back to a character's first byte, room for "..." (a buffer
	 * too small for it keeps what vsnprintf left) */
	if (cap < 4)
		return true;
	size_t end = cap - 4;
	while (end > 0 && ((unsigned char)buf[end] & 0xC0) == 0x80)
		end--;
	memcpy(buf + end, "...", 4);
	return true;
}

void note_escape(struct dbuf *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];
		if (c == '\\')
			dbuf_puts(b, "\\\\");
		else if (c < 0x20 || c == 0x7f || (c == ' ' && i == n - 1))
			dbuf_printf(b, "\\x%02x", c);
		else
			dbuf_putc(b, (char)c);
	}
}

void note_unescape(struct dbuf *b, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '\\' && i + 1 < n && p[i + 1] == '\\') {
			dbuf_putc(b, '\\');
			i++;
		} else if (p[i] == '\\' && i + 3 < n && p[i + 1] == 'x' &&
			   hex_value(p[i + 2]) >= 0 && hex_value(p[i + 3]) >= 0) {
			dbuf_putc(b, (char)(hex_value(p[i + 2]) * 16 +
					    hex_value(p[i + 3])));
			i += 3;
		} else {
			dbuf_putc(b, p[i]);
		}
	}
}

/* The end of the colour sequence at s[i] (s[i] is ESC): the index past
 * it; i when it is none (it is kept); n when it is cut at the end. */
static size_t colour_end(const char *s, size_t i, size_t n)
{
	if (i + 1 >= n || s[i + 1] != '[')
		return i;
	size_t k = i + 2;
	while (k < n && ((s[k] >= '0' && s[k] <= '9') || s[k] == ';' ||
			 s[k] == ':'))
		k++;
	if (k == n)
		return n;
	return s[k] == 'm' ? k + 1 : i;
}

size_t text_strip_colours(char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n;) {
		size_t end = s[i] == 0x1b ? colour_end(s, i, n) : i;
		if (end > i) {
			i = end;
			continue;
		}
		s[w++] = s[i++];
	}
	return w;
}
