/* The sanitiser: every byte of text from the debugger or the program goes
 * through here before it reaches a screen cell.  What counts as unsafe is
 * base's (text_classify); the glyphs and widths are the screen's.
 *
 * Untrusted text is decoded one code point at a time.  Anything that could
 * steer a terminal (ESC and so CSI/OSC sequences, C0 and C1 controls, DEL),
 * reorder text (bidi overrides and isolates) or is not valid UTF-8 comes out
 * as a visible replacement glyph, so the user sees that something was there
 * and the terminal never sees the raw bytes. */
#ifndef CUDBG_TUI_SANITIZE_H
#define CUDBG_TUI_SANITIZE_H

#include <stddef.h>
#include <stdint.h>

#include "cudbg/base.h" /* text_next, utf8_encode */

enum san_class {
	SAN_OK,      /* printable; cp is the input code point */
	SAN_TAB,     /* '\t': callers may expand it; cp is U+2409 */
	SAN_NEWLINE, /* '\n': cp is U+2424 */
	SAN_C0,      /* other C0 control or DEL: cp is its control picture */
	SAN_ESC,     /* ESC, start of CSI/OSC/...: cp is U+241B */
	SAN_C1,      /* U+0080..U+009F (8-bit CSI, OSC...): cp is U+FFFD */
	SAN_BIDI,    /* U+202A..U+202E, U+2066..U+2069: cp is U+FFFD */
	SAN_INVALID, /* invalid UTF-8 (one bad byte consumed): U+FFFD */
	SAN_NONPRINT,/* valid but not printable here (wcwidth < 0): U+FFFD */
};

struct san_glyph {
	uint32_t cp;   /* code point safe to show */
	int width;     /* display columns of cp: 0 (combining), 1 or 2 */
	enum san_class cls;
};

/* Makes sure wcwidth() knows UTF-8: keeps the user's locale when its
 * character set is UTF-8, else switches LC_CTYPE to C.UTF-8.  Returns 0,
 * or -1 when no UTF-8 locale exists (widths then fall back to 1). */
int sanitize_init_locale(void);

/* Decodes one glyph at s[0..len) (len > 0).  Returns the bytes consumed,
 * at least 1. */
size_t sanitize_next(const char *s, size_t len, struct san_glyph *g);

/* Display width of untrusted text after sanitising (tabs count 1). */
size_t sanitize_width(const char *s, size_t len);

/* A sanitised copy of s as UTF-8, NUL ended (caller frees; NULL when out
 * of memory).  For text shown outside the cell grid (batch output, the
 * readline prompt). */
char *sanitize_dup(const char *s, size_t len);

#endif
