/* The sanitiser: every class of dangerous input becomes a visible glyph. */
#include "tests/harness.h"
#include "tui/sanitize.h"

#include <stdlib.h>
#include <string.h>

static void init(void)
{
	CHECK(sanitize_init_locale() == 0);
}

/* The sanitised string must hold no byte that steers a terminal. */
static void check_safe(const char *out)
{
	for (const unsigned char *p = (const unsigned char *)out; *p; p++)
		CHECK_MSG(*p >= 0x20 && *p != 0x7f, "control byte 0x%02x in \"%s\"", *p, out);
	/* Valid UTF-8 with no C1 or bidi controls. */
	size_t len = strlen(out);
	for (size_t i = 0; i < len;) {
		struct san_glyph g;
		i += sanitize_next(out + i, len - i, &g);
		CHECK_MSG(g.cls == SAN_OK, "class %d left in \"%s\"", g.cls, out);
	}
}

static char *dup_of(const char *s)
{
	char *out = sanitize_dup(s, strlen(s));
	CHECK(out != NULL);
	check_safe(out);
	return out;
}

TEST(plain_ascii_and_utf8_pass)
{
	init();
	char *o = dup_of("x = a[i] * 2; // naïve 中文");
	CHECK_STR(o, "x = a[i] * 2; // naïve 中文");
	free(o);
}

TEST(esc_csi_osc_become_visible)
{
	init();
	char *o = dup_of("\x1b[31mred\x1b[0m \x1b]0;title\x07 \x1b]8;;http://x\x1b\\");
	CHECK_STR(o, "␛[31mred␛[0m ␛]0;title␇ ␛]8;;http://x␛\\");
	free(o);
}

TEST(c0_controls_and_del)
{
	init();
	char *o = dup_of("a\x01" "b\x08" "c\rd\x7f" "e\tf\ng");
	CHECK_STR(o, "a␁b␈c␍d␡e␉f␤g");
	free(o);
	struct san_glyph g;
	sanitize_next("\t", 1, &g);
	CHECK_INT(g.cls, SAN_TAB);
	sanitize_next("\n", 1, &g);
	CHECK_INT(g.cls, SAN_NEWLINE);
	sanitize_next("\x1b", 1, &g);
	CHECK_INT(g.cls, SAN_ESC);
	sanitize_next("\x00", 1, &g);
	CHECK_INT(g.cls, SAN_C0);
	CHECK_INT(g.cp, 0x2400);
}

TEST(c1_controls)
{
	init();
	/* U+009B is the 8-bit CSI, U+009D the 8-bit OSC, U+0085 NEL. */
	char *o = dup_of("a\xc2\x9b" "31mb\xc2\x9d" "0;t\xc2\x85");
	CHECK_STR(o, "a�31mb�0;t�");
	free(o);
	struct san_glyph g;
	CHECK_INT(sanitize_next("\xc2\x9b", 2, &g), 2);
	CHECK_INT(g.cls, SAN_C1);
}

TEST(raw_c1_bytes_are_invalid_utf8)
{
	init();
	char *o = dup_of("a\x9b" "31m\x9d");
	CHECK_STR(o, "a�31m�");
	free(o);
	struct san_glyph g;
	CHECK_INT(sanitize_next("\x9b", 1, &g), 1);
	CHECK_INT(g.cls, SAN_INVALID);
}

TEST(bidi_overrides_and_isolates)
{
	init();
	static const char *const bidi[] = {
		"\xe2\x80\xaa", "\xe2\x80\xab", "\xe2\x80\xac", "\xe2\x80\xad",
		"\xe2\x80\xae", "\xe2\x81\xa6", "\xe2\x81\xa7", "\xe2\x81\xa8",
		"\xe2\x81\xa9", "\xe2\x80\x8f", "\xd8\x9c",
	};
	for (size_t i = 0; i < sizeof bidi / sizeof bidi[0]; i++) {
		struct san_glyph g;
		size_t n = sanitize_next(bidi[i], strlen(bidi[i]), &g);
		CHECK_INT(n, strlen(bidi[i]));
		CHECK_INT(g.cls, SAN_BIDI);
		CHECK_INT(g.cp, 0xFFFD);
	}
	/* The Trojan Source shape: the override cannot reorder the line. */
	char *o = dup_of("if (admin) \xe2\x80\xae } \xe2\x81\xa6 begin");
	CHECK_STR(o, "if (admin) � } � begin");
	free(o);
}

TEST(invalid_utf8_forms)
{
	init();
	static const struct {
		const char *in;
		size_t len;
	} bad[] = {
		{ "\xc0\xaf", 2 },         /* overlong '/' */
		{ "\xe0\x80\xaf", 3 },     /* overlong */
		{ "\xed\xa0\x80", 3 },     /* surrogate */
		{ "\xf4\x90\x80\x80", 4 }, /* past U+10FFFF */
		{ "\xe2\x82", 2 },         /* truncated */
		{ "\xff", 1 },
		{ "\x80", 1 },             /* lone continuation */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct san_glyph g;
		CHECK_INT(sanitize_next(bad[i].in, bad[i].len, &g), 1);
		CHECK_INT(g.cls, SAN_INVALID);
		char *o = sanitize_dup(bad[i].in, bad[i].len);
		check_safe(o);
		free(o);
	}
}

TEST(widths)
{
	init();
	CHECK_INT(sanitize_width("abc", 3), 3);
	CHECK_INT(sanitize_width("中文", 6), 4);
	CHECK_INT(sanitize_width("e\xcc\x81", 3), 1); /* e + combining acute */
	CHECK_INT(sanitize_width("\x1b[0m", 4), 4);
}

TEST(every_byte_sequence_is_safe)
{
	init();
	/* Every single byte and every pair of bytes. */
	char buf[2];
	for (int a = 0; a < 256; a++) {
		buf[0] = (char)a;
		char *o = sanitize_dup(buf, 1);
		check_safe(o);
		free(o);
		for (int b = 0; b < 256; b += 7) {
			buf[1] = (char)b;
			o = sanitize_dup(buf, 2);
			check_safe(o);
			free(o);
		}
	}
}
