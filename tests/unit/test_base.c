/* base/: the UTF-8 decoder, the terminal escaper, the JSON string escaper,
 * the buffer and the JSON writer, on the inputs that break escapers; the
 * process-id checks every signal goes through. */
#include "cudbg/base.h"
#include "dap/json.h"
#include "tests/harness.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- UTF-8 ---- */

static size_t dec(const char *s, size_t n, uint32_t *cp)
{
	*cp = 0xDEAD;
	return utf8_decode(s, n, cp);
}

TEST(utf8_accepts_each_length)
{
	uint32_t cp;
	CHECK_INT(dec("A", 1, &cp), 1);
	CHECK_INT(cp, 'A');
	CHECK_INT(dec("\xc3\xa9", 2, &cp), 2);
	CHECK_INT(cp, 0xE9);
	CHECK_INT(dec("\xe2\x82\xac", 3, &cp), 3);
	CHECK_INT(cp, 0x20AC);
	CHECK_INT(dec("\xf0\x9f\x98\x80", 4, &cp), 4);
	CHECK_INT(cp, 0x1F600);
	CHECK_INT(dec("\xf4\x8f\xbf\xbf", 4, &cp), 4); /* U+10FFFF */
	CHECK_INT(dec("", 1, &cp), 1);                  /* NUL is a byte */
	CHECK_INT(cp, 0);
}

TEST(utf8_refuses_overlong_surrogate_and_out_of_range)
{
	uint32_t cp;
	CHECK_INT(dec("\xc0\xaf", 2, &cp), 0);         /* overlong '/' */
	CHECK_INT(dec("\xc1\xbf", 2, &cp), 0);
	CHECK_INT(dec("\xe0\x80\xaf", 3, &cp), 0);     /* overlong, 3 bytes */
	CHECK_INT(dec("\xf0\x80\x80\xaf", 4, &cp), 0); /* overlong, 4 bytes */
	CHECK_INT(dec("\xc0\x80", 2, &cp), 0);         /* overlong NUL */
	CHECK_INT(dec("\xed\xa0\x80", 3, &cp), 0);     /* U+D800 */
	CHECK_INT(dec("\xed\xbf\xbf", 3, &cp), 0);     /* U+DFFF */
	CHECK_INT(dec("\xf4\x90\x80\x80", 4, &cp), 0); /* U+110000 */
	CHECK_INT(dec("\xf5\x80\x80\x80", 4, &cp), 0);
	CHECK_INT(dec("\xff", 1, &cp), 0);
}

TEST(utf8_refuses_lone_continuation_and_truncation)
{
	uint32_t cp;
	CHECK_INT(dec("\x80", 1, &cp), 0);
	CHECK_INT(dec("\xbf" "A", 2, &cp), 0);
	CHECK_INT(dec("\xe2\x82", 2, &cp), 0);        /* cut at the end */
	CHECK_INT(dec("\xe2\x82\xac", 2, &cp), 0);    /* cut by len */
	CHECK_INT(dec("\xf0\x9f\x98", 3, &cp), 0);
	CHECK_INT(dec("\xe2" "A" "\xac", 3, &cp), 0); /* broken in between */
}

TEST(utf8_encode_round_trips)
{
	static const uint32_t cps[] = { 0, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF,
					0x10000, 0x10FFFF };
	for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
		char b[4];
		uint32_t back;
		size_t n = utf8_encode(cps[i], b);
		CHECK_INT(utf8_decode(b, n, &back), n);
		CHECK_INT(back, cps[i]);
	}
}

/* ---- the terminal escaper ---- */

static char *esc(const char *s, size_t n, unsigned flags)
{
	char *e = text_escape_dup(s, n, flags);
	CHECK(e != NULL);
	return e;
}

#define CHECK_ESC(in, flags, want)                                          \
	do {                                                                \
		char *e_ = esc(in, sizeof(in) - 1, flags);                  \
		CHECK_STR(e_, want);                                        \
		free(e_);                                                   \
	} while (0)

TEST(text_escapes_each_class)
{
	CHECK_ESC("plain é €", 0, "plain é €");
	CHECK_ESC("a\x1b[31mb", 0, "a\\x1b[31mb");               /* ESC */
	CHECK_ESC("\x1b]0;t\x07", 0, "\\x1b]0;t\\x07");           /* OSC, BEL */
	CHECK_ESC("x\x7fy", 0, "x\\x7fy");                        /* DEL */
	CHECK_ESC("\xc2\x9b" "2J", 0, "\\u{009b}2J");             /* C1 CSI */
	CHECK_ESC("\xc2\x85", 0, "\\u{0085}");                    /* NEL */
	CHECK_ESC("\xe2\x80\xae" "abc", 0, "\\u{202e}abc");       /* RLO */
	CHECK_ESC("\xe2\x81\xa6", 0, "\\u{2066}");                /* LRI */
	CHECK_ESC("\xd8\x9c", 0, "\\u{061c}");                    /* ALM */
	CHECK_ESC("\xe2\x80\xa8", 0, "\xe2\x80\xa8"); /* U+2028: no effect */
	CHECK_ESC("\x9b" "1;1H", 0, "\\x9b1;1H");     /* raw 8-bit CSI */
	CHECK_ESC("\xc0\xaf", 0, "\\xc0\\xaf");                   /* overlong */
	CHECK_ESC("\xed\xa0\x80", 0, "\\xed\\xa0\\x80");          /* surrogate */
	CHECK_ESC("ok\xe2\x82", 0, "ok\\xe2\\x82");               /* truncated */
	CHECK_ESC("a\0b", 0, "a\\x00b");                          /* NUL */
}

TEST(text_tab_and_newline_per_sink)
{
	CHECK_ESC("a\tb\nc\r", 0, "a b\\x0ac\\x0d");
	CHECK_ESC("a\tb\nc\r", TEXT_KEEP_TAB | TEXT_KEEP_NEWLINE,
		  "a\tb\nc\\x0d");
	CHECK_ESC("a\tb\n", TEXT_KEEP_NEWLINE, "a b\n");
}

TEST(text_escape_write_matches_dup)
{
	const char in[] = "x\x1b\xff\xe2\x80\xae";
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	CHECK(f != NULL);
	CHECK_INT(text_escape_write(f, in, sizeof in - 1, 0), 0);
	fclose(f);
	char *e = esc(in, sizeof in - 1, 0);
	CHECK_STR(buf, e);
	free(e);
	free(buf);
}

/* ---- the JSON string escaper ---- */

/* Escapes s, parses the result with the DAP server's strict parser and
 * returns the decoded string (caller frees with dj_free). */
static struct dj *json_round(const char *s, size_t n, char **text)
{
	struct dbuf b = { 0 };
	json_escape(&b, s, n);
	CHECK(!b.oom);
	char err[128];
	struct dj *v = dj_parse(b.s, b.len, err, sizeof err);
	CHECK_MSG(v && v->type == DJ_STR, "%s: %s", b.s, err);
	*text = dbuf_take(&b);
	return v;
}

TEST(json_escapes_and_round_trips)
{
	static const char in[] = "q\" b\\ n\n t\t r\r e\x1b d\x7f "
				 "c1\xc2\x85 rlo\xe2\x80\xae ls\xe2\x80\xa8 "
				 "ps\xe2\x80\xa9 bad\xff end\0nul";
	char *text;
	struct dj *v = json_round(in, sizeof in - 1, &text);
	CHECK_STR(text, "\"q\\\" b\\\\ n\\n t\\t r\\u000d e\\u001b d\\u007f "
			"c1\\u0085 rlo\\u202e ls\\u2028 ps\\u2029 bad\\ufffd "
			"end\\u0000nul\"");
	/* the decoded string is the input, less the invalid byte */
	CHECK_INT(v->len, sizeof in - 1 + 2); /* 0xff became 3 bytes */
	size_t bad = (size_t)(strchr(in, '\xff') - in);
	CHECK(memcmp(v->str, in, bad) == 0);
	CHECK(memcmp(v->str + bad + 3, in + bad + 1, sizeof in - bad - 2) == 0);
	CHECK(strstr(v->str, "ls\xe2\x80\xa8 ps\xe2\x80\xa9"));
	CHECK(strstr(v->str, "bad\xef\xbf\xbd end"));
	dj_free(v);
	free(text);
}

TEST(json_replaces_each_invalid_byte)
{
	char *text;
	struct dj *v = json_round("\xc0\xaf\xed\xa0\x80\x80\xe2\x82", 8, &text);
	CHECK_STR(text, "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd"
			"\\ufffd\\ufffd\"");
	dj_free(v);
	free(text);
}

/* ---- buffer ---- */

TEST(dbuf_grows_and_hands_over)
{
	struct dbuf b = { 0 };
	char *empty = dbuf_take(&b);
	CHECK_STR(empty, "");
	free(empty);
	for (int i = 0; i < 1000; i++)
		dbuf_printf(&b, "%d,", i);
	dbuf_printf(&b, "%300s|", "wide");
	CHECK(!b.oom);
	CHECK(strncmp(b.s, "0,1,2,", 6) == 0);
	CHECK_INT(b.s[b.len - 1], '|');
	CHECK_INT(strlen(b.s), b.len);
	char *s = dbuf_take(&b);
	CHECK(s && b.s == NULL && b.len == 0);
	free(s);
	CHECK_INT(dbuf_reserve(&b, (size_t)-1), -1); /* sticks */
	CHECK(b.oom);
	dbuf_puts(&b, "x");
	CHECK(dbuf_take(&b) == NULL);
}

/* ---- the JSON writer ---- */

TEST(jw_writes_nested_members)
{
	struct jw w;
	jw_init(&w);
	jw_obj(&w, NULL);
	jw_str(&w, "s", "a\"b");
	jw_str(&w, "n", NULL);
	jw_int(&w, "i", -3);
	jw_uint(&w, "u", 18446744073709551615ull);
	jw_bool(&w, "t", true);
	jw_int_or_null(&w, "x", 5, false);
	jw_hex(&w, "pc", 0x1f, true);
	jw_fixed(&w, "s3", 1.5, 3);
	jw_arr(&w, "a");
	jw_int(&w, NULL, 1);
	jw_obj(&w, NULL);
	jw_end(&w);
	jw_arr(&w, NULL);
	jw_end(&w);
	jw_end(&w);
	jw_key(&w, "k");
	jw_raw(&w, NULL, "{\"r\":1}\n");
	jw_text(&w, "txt", "e\x1b\tx", 4);
	jw_end(&w);
	char *s = jw_take(&w);
	CHECK_STR(s, "{\"s\":\"a\\\"b\",\"n\":null,\"i\":-3,"
		     "\"u\":18446744073709551615,\"t\":true,\"x\":null,"
		     "\"pc\":\"0x1f\",\"s3\":1.500,\"a\":[1,{},[]],"
		     "\"k\":{\"r\":1},\"txt\":\"e\\\\x1b\\tx\"}");
	char err[128];
	struct dj *v = dj_parse(s, strlen(s), err, sizeof err);
	CHECK_MSG(v != NULL, "%s", err);
	dj_free(v);
	free(s);
}

TEST(jw_refuses_unbalanced_output)
{
	struct jw w;
	jw_init(&w);
	jw_obj(&w, NULL);
	CHECK(jw_take(&w) == NULL); /* still open */
	jw_init(&w);
	jw_end(&w);
	CHECK(jw_take(&w) == NULL); /* closed nothing */
	jw_init(&w);
	for (int i = 0; i <= JW_MAX_DEPTH; i++)
		jw_arr(&w, NULL);
	CHECK(w.b.oom);
	jw_free(&w);
}

TEST(proc_parse_pid_refuses_what_is_no_pid)
{
	pid_t p = 99;
	const char *bad[] = { "", "0", "-1", "+5", " 5", "5 ", "12abc",
			      "0x10", "4294967295", "99999999999999999999",
			      "4194305", "123456789" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CHECK_MSG(!proc_parse_pid(bad[i], &p), "took '%s'", bad[i]);
		CHECK_INT(p, 0);
	}
	CHECK(!proc_parse_pid(NULL, &p));
	CHECK(proc_parse_pid("1", &p) && p == 1);
	CHECK(proc_parse_pid("32768", &p) && p == 32768);
}

TEST(proc_descendant_only_below_the_ancestor)
{
	pid_t me = getpid();
	pid_t child = fork();
	if (child == 0) {
		pause();
		_exit(0);
	}
	CHECK(child > 0);
	CHECK(proc_is_descendant(child, me));
	CHECK(!proc_is_descendant(me, child));  /* the other way round */
	CHECK(!proc_is_descendant(me, me));
	CHECK(!proc_is_descendant(1, me));
	CHECK(!proc_is_descendant(-1, me));
	struct proc_info pi;
	CHECK(proc_read(child, &pi) && pi.ppid == me);
	CHECK(pi.start > 0); /* field 22, not the always-0 field 21 */
	CHECK(proc_is_same(child, pi.start));
	CHECK(!proc_is_same(child, pi.start + 1)); /* a reused pid */
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	CHECK(!proc_is_same(child, pi.start)); /* gone */
	CHECK(!proc_read(child, &pi));
}

TEST(text_ascii_copy_keeps_printable_ascii_only)
{
	char b[8];
	text_ascii_copy(b, sizeof b, "a\x1b[b\xc3\xa9", SIZE_MAX);
	CHECK_STR(b, "a?[b??");
	text_ascii_copy(b, sizeof b, "x\0y", 3); /* a NUL within len */
	CHECK_STR(b, "x?y");
	text_ascii_copy(b, sizeof b, "0123456789", SIZE_MAX); /* cut to cap */
	CHECK_STR(b, "0123456");
	text_ascii_copy(b, 1, "abc", SIZE_MAX);
	CHECK_STR(b, "");
}

/* A message into a fixed buffer: whole when it fits, else cut at a
 * character boundary and ending in "..." (never a torn UTF-8 sequence). */
TEST(text_fit_marks_a_cut)
{
	char b[12];
	CHECK(!text_fit(b, sizeof b, "%s:%d", "ab", 7));
	CHECK_STR(b, "ab:7");
	CHECK(!text_fit(b, sizeof b, "%s", "12345678901"));
	CHECK_STR(b, "12345678901");
	CHECK(text_fit(b, sizeof b, "%s", "123456789012"));
	CHECK_STR(b, "12345678...");
	/* "é" (2 bytes) across the cut: dropped whole */
	CHECK(text_fit(b, sizeof b, "1234567\xc3\xa9xyz"));
	CHECK_STR(b, "1234567...");
	char s[4];
	CHECK(text_fit(s, sizeof s, "%s", "long"));
	CHECK_STR(s, "...");
}

/* A recording's note escape: one line, nothing trimmed, every byte back
 * (a command line word with a newline, a tab, a backslash, a trailing
 * blank, a NUL and non-ASCII bytes). */
TEST(note_escape_round_trips_every_byte)
{
	static const char word[] = "a\\b\nc\td \xff\xc3\xa9\x7f" "e\0f ";
	const size_t n = sizeof word - 1;
	struct dbuf e = {0}, u = {0};
	note_escape(&e, word, n);
	CHECK(!e.oom && e.s);
	CHECK_STR(e.s, "a\\\\b\\x0ac\\x09d \xff\xc3\xa9\\x7f" "e\\x00f\\x20");
	for (size_t i = 0; i < e.len; i++)
		CHECK((unsigned char)e.s[i] >= 0x20 && e.s[i] != 0x7f);
	note_unescape(&u, e.s, e.len);
	CHECK(!u.oom && u.len == n && memcmp(u.s, word, n) == 0);
	dbuf_free(&e);
	dbuf_free(&u);
}

/* What a program coloured for its terminal reads as its text: colour
 * sequences go, one cut at the end too; any other control sequence (a
 * title, a cursor move, a lone ESC) stays, for the sinks to show; text
 * without ESC is left as it is. */
TEST(text_strip_colours_leaves_the_text)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "\x1b[31m\x1b[1mtest_labels.py\x1b[0m:12: AssertionError",
		  "test_labels.py:12: AssertionError" },
		{ "\x1b[38;2;255;0;0mrgb\x1b[m", "rgb" },
		{ "\x1b]0;pwned\x07title", "\x1b]0;pwned\x07title" },
		{ "\x1b[2Jclear", "\x1b[2Jclear" },
		{ "a\x1b" "cb", "a\x1b" "cb" },
		{ "tail \x1b[3", "tail " },
		{ "lone \x1b", "lone \x1b" },
		{ "plain [text] only", "plain [text] only" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char buf[128];
		size_t n = strlen(cases[i].in);
		memcpy(buf, cases[i].in, n);
		n = text_strip_colours(buf, n);
		buf[n] = '\0';
		CHECK_STR(buf, cases[i].out);
	}
}
