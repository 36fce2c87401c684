/* base/: the lowest layer.  Text safety and the few containers every
 * other layer shares: a growable buffer, one UTF-8 decoder, the terminal
 * escaper, the JSON string escaper and the JSON writer of the --json
 * report.  libc only; nothing here includes mi/, diag/, dap/ or tui/.
 * The rules (which escaper for which sink, and why) are written once in
 * docs/text-safety.md.
 *
 * Code: base/buf.c, base/utf8.c (and hex_value), base/text.c, base/json.c,
 * base/proc.c (process ids and what /proc says of them, the monotonic
 * clock).
 *
 * Ownership: a struct dbuf owns its bytes until dbuf_take() hands them to
 * the caller (free()) or dbuf_free() releases them; a struct jw owns its
 * dbuf the same way (jw_take, jw_free).  Destructors accept a zeroed
 * struct.  Nothing here keeps a pointer to its input past the call.
 *
 * Errors: the convention of the lower layers, 0 on success and a negative
 * value on failure.  Appending never fails loudly: once an allocation
 * fails the buffer is marked (oom) and every later append is a no-op, so a
 * caller appends freely and checks once at the end (dbuf_take and jw_take
 * return NULL then). */
#ifndef CUDBG_BASE_H
#define CUDBG_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* ---- growable buffer -------------------------------------------------- */

/* A growable NUL-ended string; {0} is an empty buffer (s is NULL until
 * the first append). */
struct dbuf {
	char *s;
	size_t len, cap;
	bool oom;
};

/* Room for `extra` more bytes and the NUL: 0, or -1 (and oom set). */
int dbuf_reserve(struct dbuf *b, size_t extra);
void dbuf_put(struct dbuf *b, const char *s, size_t n);
void dbuf_puts(struct dbuf *b, const char *s);
void dbuf_putc(struct dbuf *b, char c);
void dbuf_printf(struct dbuf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Hands the string over (caller frees; "" when nothing was appended;
 * NULL when out of memory) and resets the buffer. */
char *dbuf_take(struct dbuf *b);
void dbuf_free(struct dbuf *b);

/* ---- UTF-8 ------------------------------------------------------------ */

#define UTF8_REPLACEMENT 0xFFFDu

/* Decodes one strict UTF-8 sequence at s[0..len) (len > 0): no overlong
 * forms, no surrogates, nothing past U+10FFFF, no sequence cut by len.
 * Returns its length (1-4) with *cp set, or 0 when s does not start a
 * valid sequence.  The one decoder of the program. */
size_t utf8_decode(const char *s, size_t len, uint32_t *cp);
/* Writes cp (at most U+10FFFF) as UTF-8 into out (room for 4 bytes);
 * returns the length. */
size_t utf8_encode(uint32_t cp, char *out);

/* The value of one hex digit (0-9, a-f, A-F), or -1. */
int hex_value(char c);

/* ---- what untrusted text holds ---------------------------------------- */

enum text_class {
	TEXT_OK,      /* safe to show as it is */
	TEXT_TAB,     /* '\t' */
	TEXT_NEWLINE, /* '\n' */
	TEXT_C0,      /* another C0 control, or DEL */
	TEXT_ESC,     /* ESC: starts CSI, OSC, DCS... */
	TEXT_C1,      /* U+0080..U+009F in UTF-8 form (8-bit CSI, OSC...) */
	TEXT_BIDI,    /* bidi embeddings, overrides, isolates and marks */
	TEXT_INVALID, /* a byte that starts no valid UTF-8 sequence */
};

/* The class of one code point (never TEXT_INVALID). */
enum text_class text_classify(uint32_t cp);
/* Decodes and classifies one unit at s[0..len) (len > 0): a valid
 * sequence, or one invalid byte (*cp is then that byte's value).
 * Returns the bytes consumed, at least 1. */
size_t text_next(const char *s, size_t len, uint32_t *cp,
		 enum text_class *cls);

/* ---- the terminal escaper (text lines: batch, reports, --mi-log) ------ */

/* Flags for text_escape: what a multi-line sink keeps.  Without them a
 * tab becomes one space and a newline "\x0a", so one field stays one
 * line. */
enum {
	TEXT_KEEP_TAB = 1,     /* '\t' kept as it is */
	TEXT_KEEP_NEWLINE = 2, /* '\n' kept as it is */
};

/* Appends untrusted text so that it is safe on a terminal and still says
 * what was there: other C0 controls, DEL and ESC as "\xNN", an invalid
 * byte as "\xNN", a C1 control or a bidi control as "\u{XXXX}"; valid
 * printable UTF-8 unchanged.  The output is valid UTF-8 with no byte below
 * 0x20 other than those the flags keep. */
void text_escape(struct dbuf *b, const char *s, size_t len, unsigned flags);
/* The same as a new string (caller frees; NULL when out of memory). */
char *text_escape_dup(const char *s, size_t len, unsigned flags);
/* The same written to f; returns 0, or -1 on a write or memory error. */
int text_escape_write(FILE *f, const char *s, size_t len, unsigned flags);
/* One line: prefix (our own text, written as it is), s escaped (flags 0;
 * NULL as ""), '\n'.  For a one-line message naming untrusted input
 * ("cudbg-tui: ..." on stderr, --mi-log lines).  0, or -1 as above. */
int text_write_line(FILE *f, const char *prefix, const char *s);
int text_write_line_n(FILE *f, const char *prefix, const char *s,
		      size_t len);

/* The recording's escaper (a "#" note's text: docs/transcript-format.md):
 * '\\' as "\\\\", a control byte, DEL and a trailing space (last of the
 * n bytes) as "\xHH", everything else as it is, so a note is one
 * transcript line, nothing is trimmed, and note_unescape gives the bytes
 * back exactly. */
void note_escape(struct dbuf *b, const char *p, size_t n);
void note_unescape(struct dbuf *b, const char *p, size_t n);

/* Removes the colour sequences from s[0..n) in place (SGR: "ESC [" then
 * digits, ';' or ':', then 'm'; one cut at the end goes too), so what a
 * program coloured for its terminal (pytest, Python 3.13's tracebacks)
 * reads as its text.  Any other control sequence stays, for the sinks
 * to show as what it was (a title, a cursor move: docs/text-safety.md).
 * Returns the new length. */
size_t text_strip_colours(char *s, size_t n);

/* Whether the len bytes at s begin with the NUL-ended prefix (s need
 * not be NUL-ended).  The one such test. */
bool text_starts(const char *s, size_t len, const char *prefix);

/* Untrusted text for a fixed buffer of our own (a one-line reason, a
 * version): len bytes of s (SIZE_MAX: up to its NUL) into dst as far as
 * cap allows, printable ASCII kept and every other byte (a NUL within
 * len too) '?', NUL-ended.  cap > 0.  For text that only needs to be
 * recognisable; text_escape keeps it all.  The one such copier. */
void text_ascii_copy(char *dst, size_t cap, const char *s, size_t len);
/* snprintf for a message into a fixed buffer that may hold text of any
 * length (a debugger's error, a path): where it does not fit it is cut
 * at a character boundary and ends in "...", never silently.  true when
 * it was cut.  cap > 0. */
bool text_fit(char *buf, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- JSON ------------------------------------------------------------- */

/* Appends s[0..len) as one JSON string literal, quotes included:
 * '"' '\\' "\n" "\t" as their short escapes, every other C0 control, DEL,
 * C1, bidi control and U+2028/U+2029 (line breaks to JavaScript) as
 * \uXXXX, an invalid UTF-8 byte as \ufffd.  The output is ASCII-safe
 * UTF-8 any JSON parser reads back to the same text (less invalid
 * bytes). */
void json_escape(struct dbuf *b, const char *s, size_t len);

enum { JW_MAX_DEPTH = 64 };

/* A JSON writer: comma and nesting state over a dbuf.  Every value call
 * takes the member's key, or NULL inside an array, at the top level, or
 * after jw_key().  Zero it (or jw_init) to start. */
struct jw {
	struct dbuf b;
	int depth;
	char close[JW_MAX_DEPTH + 1]; /* the closer of each open level */
	bool used[JW_MAX_DEPTH + 1];  /* a member written at this level */
	bool after_key;
};

void jw_init(struct jw *w);
void jw_free(struct jw *w);
/* The text written (caller frees; NULL when out of memory or when a
 * nesting error was made) and the writer reset. */
char *jw_take(struct jw *w);

void jw_obj(struct jw *w, const char *key);   /* { */
void jw_arr(struct jw *w, const char *key);   /* [ */
void jw_end(struct jw *w);                    /* closes the innermost */
/* A key alone; the next value call (with key NULL) is its value. */
void jw_key(struct jw *w, const char *key);
void jw_str(struct jw *w, const char *key, const char *s); /* NULL: null */
void jw_strn(struct jw *w, const char *key, const char *s, size_t n);
/* Untrusted text for a person to read from the JSON (an editor's
 * console): text_escape (tab and newline kept), then json_escape, so the
 * decoded string holds no control but tab and newline. */
void jw_text(struct jw *w, const char *key, const char *s, size_t n);
void jw_int(struct jw *w, const char *key, long long v);
void jw_uint(struct jw *w, const char *key, unsigned long long v);
void jw_double(struct jw *w, const char *key, double v); /* %.17g */
/* v with `decimals` digits after the point (seconds: 3). */
void jw_fixed(struct jw *w, const char *key, double v, int decimals);
/* v when ok, else null. */
void jw_int_or_null(struct jw *w, const char *key, long long v, bool ok);
/* "0x1f" (a string: JSON numbers lose 64-bit addresses) when ok, else
 * null. */
void jw_hex(struct jw *w, const char *key, uint64_t v, bool ok);
void jw_bool(struct jw *w, const char *key, bool v);
void jw_null(struct jw *w, const char *key);
/* A value already rendered as JSON by another jw (spliced as it is;
 * trailing newlines dropped). */
void jw_raw(struct jw *w, const char *key, const char *json);

/* ---- processes (Linux: /proc) ----------------------------------------- */

/* A process id given as text by something we do not trust (a debugger's
 * =thread-group-started, a coredump's file name): decimal digits only,
 * no sign, no space, no overflow, 1 <= pid <= the kernel's pid_max.
 * True with *out set; false (and *out 0) for anything else.  A bare
 * atol() turned "4294967295" into a pid_t of -1, and kill(-1, SIGKILL)
 * ends every process the user may signal. */
bool proc_parse_pid(const char *s, pid_t *out);

/* What /proc/PID/stat says of a process (fields 3-5 and 22). */
struct proc_info {
	char state;               /* R, S, Z... */
	pid_t ppid, pgrp, sid;
	unsigned long long start; /* start time, clock ticks since boot */
};
/* False when the process is gone (or pid is not above 0). */
bool proc_read(pid_t pid, struct proc_info *out);
/* True when pid is a descendant of ancestor (a child, a grandchild...)
 * now; never for pid 1, an ancestor of ours, or pid == ancestor. */
bool proc_is_descendant(pid_t pid, pid_t ancestor);
/* True when pid is still the process seen with that start time (not
 * gone, not a zombie, not a reused pid). */
bool proc_is_same(pid_t pid, unsigned long long start);

/* The monotonic clock in seconds (CLOCK_MONOTONIC): for durations and
 * deadlines, never a date. */
double proc_now_s(void);

#endif
