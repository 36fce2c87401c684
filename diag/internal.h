/* Helpers shared inside diag/ only (not a public header). */
#ifndef CUDBG_DIAG_INTERNAL_H
#define CUDBG_DIAG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/diag.h"

/* A growable NUL-ended string.  `oom` sticks once an allocation failed, so
 * callers append freely and check once at the end. */
struct dbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

void dbuf_put(struct dbuf *b, const char *s, size_t n);
void dbuf_puts(struct dbuf *b, const char *s);
void dbuf_putc(struct dbuf *b, char c);
void dbuf_printf(struct dbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hands the string over (NULL when out of memory) and resets the buffer. */
char *dbuf_take(struct dbuf *b);
void dbuf_free(struct dbuf *b);

char *dstrdup(const char *s);               /* NULL in, NULL out */
char *dstrndup(const char *s, size_t n);
/* Replaces *dst with a copy of s; returns false when out of memory. */
bool dstrset(char **dst, const char *s);

/* Case-insensitive glob: '*' any run, '?' one byte, "\*" a literal. */
bool glob_match(const char *pat, const char *s);
/* Case-insensitive substring search. */
const char *ci_strstr(const char *hay, const char *needle);

/* Strict unsigned parsers: the whole string must be a number. */
bool parse_u64(const char *s, uint64_t *out);   /* decimal or 0x hex */
bool parse_uint(const char *s, unsigned *out);

/* Appends untrusted text escaped for a terminal (see diag_escape_text). */
void dbuf_put_escaped(struct dbuf *b, const char *s, size_t len);
/* Appends text as a JSON string literal (with quotes). */
void dbuf_put_json(struct dbuf *b, const char *s);

/* "(0..63,0,0)": a range per axis, one number where lo == hi. */
bool dbuf_put_range(struct dbuf *b, struct diag_dim3 lo, struct diag_dim3 hi);

/* Reads a small file whole (at most max bytes); NULL on failure. */
char *read_small_file(const char *path, size_t max, size_t *len);
/* Removes dir, its files and its subdirectories down to `depth` levels
 * (0: files only); best effort, errors ignored (a private temp dir). */
void diag_remove_dir(const char *dir, int depth);

#endif
