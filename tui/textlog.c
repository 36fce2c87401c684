/* Bounded line log. */
#include "tui/textlog.h"
#include "cudbg/base.h"

#include <stdlib.h>
#include <string.h>

int textlog_init(struct textlog *t, size_t max_lines, size_t max_bytes)
{
	memset(t, 0, sizeof(*t));
	if (max_lines == 0)
		max_lines = 1;
	t->ring = calloc(max_lines, sizeof(*t->ring));
	if (!t->ring)
		return -1;
	t->max_lines = max_lines;
	t->max_bytes = max_bytes;
	return 0;
}

static void textlog_drop_oldest(struct textlog *t)
{
	struct textlog_line *l = &t->ring[t->first];

	t->bytes -= l->len;
	free(l->text);
	l->text = NULL;
	t->first = (t->first + 1) % t->max_lines;
	t->count--;
	t->dropped++;
}

void textlog_clear(struct textlog *t)
{
	while (t->count)
		textlog_drop_oldest(t);
	t->part_len = 0;
	t->last_cr = false;
}

void textlog_free(struct textlog *t)
{
	if (!t || !t->ring)
		return;
	textlog_clear(t);
	free(t->ring);
	free(t->part);
	memset(t, 0, sizeof(*t));
}

/* Ends the unfinished line, even an empty one. */
static void textlog_end_line(struct textlog *t)
{
	struct textlog_line *l;
	char *copy;

	copy = malloc(t->part_len + 1);
	if (!copy)
		return; /* out of memory: the line is lost, the log stays sane */
	memcpy(copy, t->part ? t->part : "", t->part_len);
	/* the program's terminal: a line it coloured (pytest, a logger)
	 * shows as its text, not as escaped colour sequences (any other
	 * control sequence stays, drawn as control pictures) */
	if (t->pty)
		t->part_len = text_strip_colours(copy, t->part_len);
	copy[t->part_len] = '\0';
	if (t->count == t->max_lines)
		textlog_drop_oldest(t);
	l = &t->ring[(t->first + t->count) % t->max_lines];
	*l = (struct textlog_line){ copy, (uint32_t)t->part_len, t->part_kind };
	t->count++;
	t->bytes += t->part_len;
	while (t->max_bytes && t->bytes > t->max_bytes && t->count > 1)
		textlog_drop_oldest(t);
	t->part_len = 0;
}

void textlog_flush_line(struct textlog *t)
{
	if (t->part_len > 0)
		textlog_end_line(t);
}

/* Where a line of n bytes may be cut without splitting a UTF-8
 * character: before a sequence that the last bytes leave unfinished,
 * else at n.  (Cut on a byte boundary, a character across the cut became
 * two or three U+FFFD.) */
static size_t utf8_cut(const char *p, size_t n)
{
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char b = (unsigned char)p[n - back];
		if ((b & 0xC0) == 0x80)
			continue; /* a continuation byte: look further back */
		if (b < 0xC0)
			return n; /* ASCII: nothing is cut */
		size_t need = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : 2;
		return back < need ? n - back : n;
	}
	return n; /* not UTF-8 anyway: a byte cut is as good as any */
}

/* A line at the length limit ends there, at a character boundary; the
 * bytes of the unfinished character start the next line. */
static void textlog_split(struct textlog *t)
{
	size_t cut = utf8_cut(t->part, t->part_len);
	size_t rest = t->part_len - cut;
	char tail[4];
	uint8_t kind = t->part_kind;

	memcpy(tail, t->part + cut, rest);
	t->part_len = cut;
	textlog_end_line(t);
	memcpy(t->part, tail, rest);
	t->part_len = rest;
	t->part_kind = kind;
}

static void textlog_put(struct textlog *t, char c, uint8_t kind)
{
	if (t->part_len == t->part_cap) {
		size_t cap = t->part_cap ? t->part_cap * 2 : 128;
		char *p = realloc(t->part, cap);
		if (!p)
			return;
		t->part = p;
		t->part_cap = cap;
	}
	if (t->part_len == 0)
		t->part_kind = kind;
	t->part[t->part_len++] = c;
	if (t->part_len >= TEXTLOG_MAX_LINE)
		textlog_split(t);
}

void textlog_append(struct textlog *t, const char *s, size_t len, uint8_t kind)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (t->pty && t->last_cr) {
			t->last_cr = false;
			/* a lone CR: the line is redrawn ("\r\r\n", a CRLF
			 * through the pty's ONLCR, is no redraw) */
			if (c != '\n' && c != '\r')
				t->part_len = 0;
		}
		if (c == '\n') {
			if (t->part_len == 0)
				t->part_kind = kind;
			textlog_end_line(t);
		} else if (c == '\r' && t->pty) {
			t->last_cr = true;
		} else {
			textlog_put(t, c, kind);
		}
	}
}

size_t textlog_count(const struct textlog *t)
{
	return t->count + (t->part_len > 0 ? 1 : 0);
}

const struct textlog_line *textlog_get(const struct textlog *t, size_t i,
				       struct textlog_line *tmp)
{
	if (i < t->count)
		return &t->ring[(t->first + i) % t->max_lines];
	if (i == t->count && t->part_len > 0) {
		*tmp = (struct textlog_line){ t->part, (uint32_t)t->part_len, t->part_kind };
		return tmp;
	}
	return NULL;
}
