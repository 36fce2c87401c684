/* The bounded text log behind the output and console panes. */
#include "tests/harness.h"
#include "tui/textlog.h"

#include <stdlib.h>
#include <string.h>

static const char *line(struct textlog *t, size_t i)
{
	static struct textlog_line tmp;
	static char buf[8192];
	const struct textlog_line *l = textlog_get(t, i, &tmp);
	if (!l)
		return NULL;
	memcpy(buf, l->text, l->len);
	buf[l->len] = '\0';
	return buf;
}

TEST(lines_and_partial)
{
	struct textlog t;
	CHECK(textlog_init(&t, 10, 0) == 0);
	textlog_append(&t, "ab\ncd\n\nef", 9, 0);
	CHECK_INT(textlog_count(&t), 4);
	CHECK_STR(line(&t, 0), "ab");
	CHECK_STR(line(&t, 2), "");
	CHECK_STR(line(&t, 3), "ef");
	textlog_append(&t, "g\n", 2, 0);
	CHECK_STR(line(&t, 3), "efg");
	CHECK(line(&t, 4) == NULL);
	textlog_free(&t);
}

TEST(bounded_by_lines_and_bytes)
{
	struct textlog t;
	CHECK(textlog_init(&t, 100, 1000) == 0);
	for (int i = 0; i < 100000; i++)
		textlog_append(&t, "0123456789abcdefghij\n", 21, 0);
	CHECK(t.count <= 100);
	CHECK(t.bytes <= 1000);
	CHECK(t.dropped > 99000);
	textlog_free(&t);
}

TEST(long_line_is_split)
{
	struct textlog t;
	char *big = malloc(1 << 20);
	memset(big, 'x', 1 << 20);
	CHECK(textlog_init(&t, 1000, 0) == 0);
	textlog_append(&t, big, 1 << 20, 0);
	CHECK_INT(t.count, (1 << 20) / TEXTLOG_MAX_LINE);
	free(big);
	textlog_free(&t);
}

/* Issue 15 item 20: a long line of 3-byte characters is split between
 * characters, never inside one (4096 is not a multiple of 3). */
TEST(long_line_splits_on_character_boundaries)
{
	struct textlog t;
	static const char euro[] = "\xe2\x82\xac";
	size_t n = 3 * 3000;
	char *big = malloc(n);
	CHECK(big != NULL);
	for (size_t i = 0; i < n; i += 3)
		memcpy(big + i, euro, 3);
	CHECK(textlog_init(&t, 100, 0) == 0);
	textlog_append(&t, "x", 1, 0); /* shifts every cut off the grid */
	textlog_append(&t, big, n, 0);
	textlog_append(&t, "\n", 1, 0);
	CHECK_INT(textlog_count(&t), 3);
	size_t total = 0;
	for (size_t i = 0; i < textlog_count(&t); i++) {
		struct textlog_line tmp;
		const struct textlog_line *l = textlog_get(&t, i, &tmp);
		const char *body = l->text + (i == 0);
		size_t len = l->len - (i == 0);
		CHECK(l->len <= TEXTLOG_MAX_LINE);
		CHECK_INT(len % 3, 0);
		for (size_t k = 0; k < len; k += 3)
			CHECK(memcmp(body + k, euro, 3) == 0);
		total += l->len;
	}
	CHECK_INT(total, n + 1);
	free(big);
	textlog_free(&t);
}

TEST(pty_newlines_and_carriage_return)
{
	struct textlog t;
	CHECK(textlog_init(&t, 10, 0) == 0);
	t.pty = true;
	{ const char *s = "one\r\n10%\r50%\r100%\r\ntwo\r"; textlog_append(&t, s, strlen(s), 0); }
	textlog_append(&t, "\n", 1, 0);
	CHECK_INT(textlog_count(&t), 3);
	CHECK_STR(line(&t, 0), "one");
	CHECK_STR(line(&t, 1), "100%");
	CHECK_STR(line(&t, 2), "two");
	textlog_free(&t);
}

/* A line the program coloured for its terminal shows as its text (pytest
 * under the debugger's pty), the sequences cut across appends too; the
 * debugger's own log keeps what it was given (the screen escapes it). */
TEST(pty_line_loses_its_colours)
{
	struct textlog t;
	CHECK(textlog_init(&t, 10, 0) == 0);
	t.pty = true;
	{ const char *s = "\x1b[31mFAILED\x1b[0m test_a.py::t - Key"; textlog_append(&t, s, strlen(s), 0); }
	{ const char *s = "Error\x1b[0"; textlog_append(&t, s, strlen(s), 0); }
	{ const char *s = "m\r\n"; textlog_append(&t, s, strlen(s), 0); }
	CHECK_STR(line(&t, 0), "FAILED test_a.py::t - KeyError");
	textlog_free(&t);
}

/* A program's CRLF arrives as CR CR LF (the pty's ONLCR adds one): the
 * line stays, as a terminal shows it. */
TEST(crlf_through_the_pty_keeps_the_line)
{
	struct textlog t;
	CHECK(textlog_init(&t, 10, 0) == 0);
	t.pty = true;
	{ const char *s = "dos line\r\r\nnext\r\r\n"; textlog_append(&t, s, strlen(s), 0); }
	CHECK_INT(textlog_count(&t), 2);
	CHECK_STR(line(&t, 0), "dos line");
	CHECK_STR(line(&t, 1), "next");
	textlog_free(&t);
}
