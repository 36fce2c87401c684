/* The sanitiser: untrusted bytes to safe, visible code points. */
#include "tui/sanitize.h"

#include <langinfo.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define CP_REPLACEMENT 0xFFFDu

static bool have_utf8_ctype;

static bool codeset_is_utf8(void)
{
	const char *cs = nl_langinfo(CODESET);
	return cs && (strcmp(cs, "UTF-8") == 0 || strcmp(cs, "utf8") == 0);
}

int sanitize_init_locale(void)
{
	setlocale(LC_ALL, "");
	if (!codeset_is_utf8()) {
		/* The screen is UTF-8 whatever the user's locale says; widths
		 * must come from a UTF-8 table. */
		if (!setlocale(LC_CTYPE, "C.UTF-8"))
			setlocale(LC_CTYPE, "C.utf8");
	}
	have_utf8_ctype = codeset_is_utf8();
	return have_utf8_ctype ? 0 : -1;
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF.
 * Returns the sequence length, or 0 when s does not start a valid one. */
static size_t utf8_decode(const unsigned char *s, size_t len, uint32_t *cp)
{
	unsigned char b = s[0];
	size_t n;
	uint32_t v, min;

	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	if (b >= 0xC2 && b <= 0xDF) {
		n = 2; v = b & 0x1Fu; min = 0x80;
	} else if (b >= 0xE0 && b <= 0xEF) {
		n = 3; v = b & 0x0Fu; min = 0x800;
	} else if (b >= 0xF0 && b <= 0xF4) {
		n = 4; v = b & 0x07u; min = 0x10000;
	} else {
		return 0;
	}
	if (len < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		v = (v << 6) | (s[i] & 0x3Fu);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		return 0;
	*cp = v;
	return n;
}

static bool is_bidi_control(uint32_t cp)
{
	/* Embeddings/overrides, isolates, and the directional marks: each can
	 * make a line read differently from what the bytes say. */
	return (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) ||
	       cp == 0x200E || cp == 0x200F || cp == 0x061C;
}

static void classify_control(uint32_t cp, struct san_glyph *g)
{
	g->width = 1;
	if (cp == '\t') {
		g->cls = SAN_TAB;
		g->cp = 0x2409;
	} else if (cp == '\n') {
		g->cls = SAN_NEWLINE;
		g->cp = 0x2424;
	} else if (cp == 0x1B) {
		g->cls = SAN_ESC;
		g->cp = 0x241B;
	} else if (cp == 0x7F) {
		g->cls = SAN_C0;
		g->cp = 0x2421;
	} else {
		g->cls = SAN_C0;
		g->cp = 0x2400 + cp; /* the Control Pictures block */
	}
}

static void set_replacement(struct san_glyph *g, enum san_class cls)
{
	g->cls = cls;
	g->cp = CP_REPLACEMENT;
	g->width = 1;
}

size_t sanitize_next(const char *s, size_t len, struct san_glyph *g)
{
	uint32_t cp = 0;
	size_t n = utf8_decode((const unsigned char *)s, len, &cp);

	if (n == 0) {
		set_replacement(g, SAN_INVALID);
		return 1;
	}
	if (cp < 0x20 || cp == 0x7F) {
		classify_control(cp, g);
		return n;
	}
	if (cp >= 0x80 && cp <= 0x9F) {
		set_replacement(g, SAN_C1);
		return n;
	}
	if (is_bidi_control(cp)) {
		set_replacement(g, SAN_BIDI);
		return n;
	}
	g->cls = SAN_OK;
	g->cp = cp;
	if (cp < 0x7F) {
		g->width = 1;
		return n;
	}
	if (!have_utf8_ctype) {
		g->width = 1;
		return n;
	}
	int w = wcwidth((wchar_t)cp);
	if (w < 0)
		set_replacement(g, SAN_NONPRINT);
	else
		g->width = w > 2 ? 2 : w;
	return n;
}

size_t sanitize_width(const char *s, size_t len)
{
	size_t w = 0, i = 0;
	struct san_glyph g;

	while (i < len) {
		i += sanitize_next(s + i, len - i, &g);
		w += (size_t)g.width;
	}
	return w;
}

size_t utf8_encode(uint32_t cp, char *out)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

char *sanitize_dup(const char *s, size_t len)
{
	/* Each input byte yields at most one glyph of at most 3 bytes (the
	 * replacement glyphs) or passes through a valid sequence unchanged. */
	char *out = malloc(len * 3 + 1);
	size_t o = 0, i = 0;
	struct san_glyph g;

	if (!out)
		return NULL;
	while (i < len) {
		i += sanitize_next(s + i, len - i, &g);
		o += utf8_encode(g.cp, out + o);
	}
	out[o] = '\0';
	return out;
}
