/* GDB/MI 3 output parser: a push parser that turns debugger bytes into
 * records.
 *
 * Shape: an opaque parser object; bytes are pushed in any chunking; one
 * callback per complete line.  The record and every node and string in it
 * live in the parser's line arena and are valid only during the callback:
 * copy (or decode into your own structs) what you keep.
 *
 * Strings are decoded in place (C-string escapes resolved) and NUL
 * terminated; `len` is their length in bytes (they may hold NUL bytes from
 * \000 escapes, so prefer len over strlen).
 *
 * Error convention of mi/: functions return 0 or a positive value on
 * success and a negative MI_E* code on failure; nothing here exits or
 * prints.
 */
#ifndef CUDBG_MI_H
#define CUDBG_MI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	MI_OK = 0,
	MI_ENOMEM = -1,  /* allocation failed */
	MI_ESYNTAX = -2, /* malformed line */
	MI_EDEPTH = -3,  /* nesting deeper than MI_MAX_DEPTH */
	MI_ETOOBIG = -4, /* a line longer than the configured limit */
};

/* Nesting bound for tuples and lists; deeper input is a syntax error.
 * Real cuda-gdb output nests at most 5 levels. */
#define MI_MAX_DEPTH 256

enum mi_node_kind {
	MI_NODE_STRING, /* "c-string" */
	MI_NODE_TUPLE,  /* {name=value,...} */
	MI_NODE_LIST,   /* [value,...] or [name=value,...] */
};

/* One value, optionally named (a "result" in the grammar).  Children of a
 * tuple or list are a singly linked chain through `next`.  Kept to 32 bytes:
 * a 60 MB threads table holds over three million of them. */
struct mi_node {
	const char *name;          /* result name, NULL for a bare list item */
	union {
		const char *str;       /* STRING: decoded text, NUL ended */
		struct mi_node *child; /* TUPLE/LIST: first child or NULL */
	};
	struct mi_node *next;      /* next sibling, NULL at the end */
	union {
		uint32_t len;          /* STRING: bytes in str */
		uint32_t count;        /* TUPLE/LIST: number of children */
	};
	uint32_t kind;             /* enum mi_node_kind */
};

enum mi_record_kind {
	MI_REC_RESULT,  /* ^done ^running ^connected ^error ^exit */
	MI_REC_EXEC,    /* *stopped *running ... */
	MI_REC_STATUS,  /* +download ... */
	MI_REC_NOTIFY,  /* =breakpoint-modified ... */
	MI_REC_CONSOLE, /* ~"text" */
	MI_REC_TARGET,  /* @"text" */
	MI_REC_LOG,     /* &"text" */
	MI_REC_PROMPT,  /* (gdb) */
	MI_REC_ERROR,   /* a line that does not parse; see error, line */
};

struct mi_record {
	enum mi_record_kind kind;
	bool has_token;
	uint64_t token;      /* valid when has_token */
	const char *klass;   /* "done", "stopped", ...; "" for streams */
	struct mi_node *results; /* first result (name=value), or NULL */
	const char *text;    /* stream records: decoded text */
	size_t text_len;
	bool streamed;       /* body items went to the stream item hook */
	int error;           /* MI_REC_ERROR: MI_E* code */
	size_t error_at;     /* MI_REC_ERROR: byte offset in the line */
};

struct mi_parser;

/* Called once per complete line, in order.  `rec` is valid only during the
 * call. */
typedef void (*mi_record_fn)(void *ctx, const struct mi_record *rec);

/* Called with the raw bytes of each line (no newline, untouched) just
 * before they are parsed; the parser decodes strings in place, so this is
 * the only moment the raw bytes exist (recorders write them here).  A line
 * normally comes whole (piece == MI_RAW_FIRST | MI_RAW_LAST); a streamed
 * table line comes in pieces: the first, middle ones (piece 0), and an
 * empty last one. */
enum { MI_RAW_FIRST = 1, MI_RAW_LAST = 2 };
typedef void (*mi_raw_line_fn)(void *ctx, const char *bytes, size_t len,
			       unsigned piece);

/* Returns NULL when out of memory.  The parser owns its buffers. */
struct mi_parser *mi_parser_new(mi_record_fn fn, void *ctx);
void mi_parser_free(struct mi_parser *p); /* accepts NULL */

void mi_parser_set_raw_hook(struct mi_parser *p, mi_raw_line_fn fn);

/* Streaming of big tables.  cuda-gdb answers -cuda-info-threads on a full
 * device with one line of 10-60 MB: `^done,NAME={...,hdr=[...],body=[ROW,
 * ROW,...]}`.  Buffering and parsing such a line whole costs memory (the
 * text plus a tree of millions of nodes) and stalls the caller's loop for
 * tens of milliseconds.  In streaming mode the parser hands each body item
 * to item_fn as soon as its bytes are complete and then forgets it, keeps
 * only the line's header and the unfinished item, and finally calls the
 * record callback with the header results and an empty `body` list whose
 * `count` is the number of items streamed (rec->streamed is true).
 *
 * A line is considered once it is longer than `threshold` bytes and still
 * unfinished; want_fn is asked (token, class, table name) and the line
 * streams only when it returns true.  Items, records and strings have the
 * usual lifetime: valid during the call. */
typedef bool (*mi_stream_want_fn)(void *ctx, bool has_token, uint64_t token,
				  const char *klass, const char *name);
typedef void (*mi_stream_item_fn)(void *ctx, bool has_token, uint64_t token,
				  const struct mi_node *item);
void mi_parser_set_stream(struct mi_parser *p, size_t threshold,
			  mi_stream_want_fn want_fn, mi_stream_item_fn item_fn);

/* Lines longer than `max` bytes are dropped and reported as one
 * MI_REC_ERROR with MI_ETOOBIG (0 = no limit, the default). */
void mi_parser_set_max_line(struct mi_parser *p, size_t max);

/* Bytes of node memory the parser keeps between lines: its first block,
 * and the blocks a big line grew while lines that big keep coming. */
size_t mi_parser_kept_bytes(const struct mi_parser *p);

/* Pushes `len` bytes.  Every complete line in them is parsed and handed to
 * the callback.  Bytes of an unfinished line are copied once into the
 * parser's line buffer and never scanned again.  Returns MI_OK or
 * MI_ENOMEM (then the partial line is dropped). */
int mi_parser_push(struct mi_parser *p, const char *buf, size_t len);

/* Parses a trailing line that has no newline (at EOF). */
int mi_parser_finish(struct mi_parser *p);

/* Parses one line (no newline) outside any stream state: the line is
 * copied first, `line` is not modified.  Same callback contract. */
int mi_parse_line(const char *line, size_t len, mi_record_fn fn, void *ctx);

/* Decodes the C-string literal at s[0..len) (starting with '"') into dst
 * (capacity cap).  Returns bytes written or a negative MI_E* code.  For the
 * transcript reader, which meets quoted text outside MI records. */
long mi_unquote(char *dst, size_t cap, const char *s, size_t len);

/* Lookup helpers over a chain of named nodes.  Linear in the chain. */
const struct mi_node *mi_find(const struct mi_node *first, const char *name);
/* The string value of `name`, or NULL when absent or not a string. */
const char *mi_find_str(const struct mi_node *first, const char *name);
/* The children of tuple/list `name`, or NULL. */
const struct mi_node *mi_find_children(const struct mi_node *first,
				       const char *name);

/* Writes `s` (len bytes) as an MI/C string literal with quotes into dst
 * (capacity cap, NUL ended).  Returns the length it needed; if that is >=
 * cap the output was cut.  Used to build commands from user text. */
size_t mi_quote(char *dst, size_t cap, const char *s, size_t len);

const char *mi_strerror(int code);

#endif
