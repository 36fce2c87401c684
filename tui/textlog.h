/* A bounded log of text lines (program output, console transcript).
 * Bytes are stored raw and sanitised when drawn.  Memory stays
 * bounded whatever arrives: old lines are dropped past max_lines or
 * max_bytes, and a line longer than TEXTLOG_MAX_LINE is split. */
#ifndef CUDBG_TUI_TEXTLOG_H
#define CUDBG_TUI_TEXTLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TEXTLOG_MAX_LINE 4096

struct textlog_line {
	char *text;
	uint32_t len;
	uint8_t kind; /* the caller's tag (stream kind, colour...) */
};

struct textlog {
	struct textlog_line *ring; /* max_lines slots */
	size_t max_lines, max_bytes;
	size_t first, count;       /* ring position of the oldest, lines held */
	size_t bytes;              /* bytes held in complete lines */
	uint64_t dropped;          /* lines dropped from the front, ever */
	char *part;                /* the unfinished last line */
	size_t part_len, part_cap;
	uint8_t part_kind;
	bool pty;                  /* "\r\n" is a newline, a lone '\r' rewinds */
	bool last_cr;              /* the previous byte was a '\r' (pty mode) */
};

/* Returns 0 or -1 (out of memory). */
int textlog_init(struct textlog *t, size_t max_lines, size_t max_bytes);
void textlog_free(struct textlog *t); /* accepts NULL */
void textlog_clear(struct textlog *t);
/* Appends bytes; '\n' ends a line. */
void textlog_append(struct textlog *t, const char *s, size_t len, uint8_t kind);
/* Ends the unfinished line, if any. */
void textlog_flush_line(struct textlog *t);
/* Lines including the unfinished one. */
size_t textlog_count(const struct textlog *t);
/* Line i (0 = oldest held); the unfinished line is the last.  NULL past
 * the end. */
const struct textlog_line *textlog_get(const struct textlog *t, size_t i,
				       struct textlog_line *tmp);

#endif
