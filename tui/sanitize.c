/* The screen sanitiser: base's classification of untrusted text
 * (include/cudbg/base.h) mapped to visible glyphs and cell widths. */
#include "tui/sanitize.h"

#include <langinfo.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

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

/* The screen's stand-in for what base classified as unsafe: a control
 * picture where one exists (so the user sees which control it was), else
 * U+FFFD.  Each stand-in is one column wide. */
static void glyph_for(uint32_t cp, enum text_class cls, struct san_glyph *g)
{
	static const enum san_class san_of[] = {
		[TEXT_OK] = SAN_OK, [TEXT_TAB] = SAN_TAB,
		[TEXT_NEWLINE] = SAN_NEWLINE, [TEXT_C0] = SAN_C0,
		[TEXT_ESC] = SAN_ESC, [TEXT_C1] = SAN_C1,
		[TEXT_BIDI] = SAN_BIDI, [TEXT_INVALID] = SAN_INVALID,
	};
	g->cls = san_of[cls];
	g->width = 1;
	switch (cls) {
	case TEXT_TAB:
		g->cp = 0x2409;
		break;
	case TEXT_NEWLINE:
		g->cp = 0x2424;
		break;
	case TEXT_ESC:
		g->cp = 0x241B;
		break;
	case TEXT_C0: /* the Control Pictures block; DEL is U+2421 */
		g->cp = cp == 0x7F ? 0x2421 : 0x2400 + cp;
		break;
	default:
		g->cp = UTF8_REPLACEMENT;
		break;
	}
}

size_t sanitize_next(const char *s, size_t len, struct san_glyph *g)
{
	uint32_t cp = 0;
	enum text_class cls;
	size_t n = text_next(s, len, &cp, &cls);

	if (cls != TEXT_OK) {
		glyph_for(cp, cls, g);
		return n;
	}
	g->cls = SAN_OK;
	g->cp = cp;
	g->width = 1;
	if (cp < 0x7F || !have_utf8_ctype)
		return n;
	int w = wcwidth((wchar_t)cp);
	if (w < 0) {
		g->cls = SAN_NONPRINT;
		g->cp = UTF8_REPLACEMENT;
	} else {
		g->width = w > 2 ? 2 : w;
	}
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
