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
