/* A small strict JSON parser and writer for the Debug Adapter Protocol.
 *
 * Code: dap/json.c.  No curses, nothing printed.
 *
 * The parser takes RFC 8259 text only: one value, no trailing commas, no
 * comments, no leading zeros, strings of valid UTF-8 with escapes checked
 * (surrogate pairs joined, lone surrogates refused), nesting at most
 * DJ_MAX_DEPTH.  It builds a tree the caller frees with dj_free().
 *
 * The writer is base's (struct jw, include/cudbg/base.h) under the dj_w_
 * names the server uses; dj_w_text() is jw_text(): text from the debugger
 * or the program made safe to show in an editor's console (controls other
 * than newline and tab, DEL, C1 and bidi controls become visible escapes,
 * \x1b, \u{202e}; invalid UTF-8 bytes \xNN; docs/text-safety.md).
 */
#ifndef CUDBG_DAP_JSON_H
#define CUDBG_DAP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/base.h"

enum { DJ_MAX_DEPTH = 64 };

enum dj_type { DJ_NULL, DJ_BOOL, DJ_NUM, DJ_STR, DJ_ARR, DJ_OBJ };

struct dj {
	enum dj_type type;
	bool b;
	double num;
	char *str;        /* DJ_STR: NUL ended (may hold NULs: see len) */
	size_t len;       /* DJ_STR: bytes; DJ_ARR/DJ_OBJ: members */
	struct dj *kids;  /* DJ_ARR/DJ_OBJ: len members */
	char **keys;      /* DJ_OBJ: len keys (malloc'd) */
};

/* Parses text[0..len).  Returns a tree (free with dj_free) or NULL with a
 * one-line reason ("offset 12: expected ':'") in err. */
struct dj *dj_parse(const char *text, size_t len, char *err, size_t cap);
void dj_free(struct dj *v); /* accepts NULL */

/* Object member by key, or NULL (also when v is not an object). */
const struct dj *dj_get(const struct dj *v, const char *key);
/* Typed reads with a default when absent or of another type. */
const char *dj_str(const struct dj *v, const char *key, const char *def);
bool dj_bool(const struct dj *v, const char *key, bool def);
/* An integral number in [min, max], else def. */
long long dj_int(const struct dj *v, const char *key, long long def);

/* ---- writer ---- */

/* Over base's JSON writer: the text is w.j.b.s (w.j.b.len bytes); once
 * an allocation fails w.j.b.oom is set and stays so. */
struct dj_w {
	struct jw j;
};

void dj_w_init(struct dj_w *w);
void dj_w_free(struct dj_w *w);
void dj_w_obj(struct dj_w *w);       /* { */
void dj_w_obj_end(struct dj_w *w);   /* } */
void dj_w_arr(struct dj_w *w);       /* [ */
void dj_w_arr_end(struct dj_w *w);   /* ] */
void dj_w_key(struct dj_w *w, const char *key);
/* Exact strings (keys, our own text, paths): escaped per JSON only;
 * invalid UTF-8 becomes U+FFFD so the output stays valid JSON. */
void dj_w_str(struct dj_w *w, const char *s);
void dj_w_strn(struct dj_w *w, const char *s, size_t n);
/* Untrusted text: as above, and controls/bidi overrides made visible. */
void dj_w_text(struct dj_w *w, const char *s);
void dj_w_textn(struct dj_w *w, const char *s, size_t n);
void dj_w_int(struct dj_w *w, long long v);
void dj_w_bool(struct dj_w *w, bool v);
void dj_w_null(struct dj_w *w);
/* Copies a parsed value back out (used to echo arguments). */
void dj_w_value(struct dj_w *w, const struct dj *v);

/* Key/value shorthands. */
void dj_w_kstr(struct dj_w *w, const char *key, const char *s);
void dj_w_ktext(struct dj_w *w, const char *key, const char *s);
void dj_w_kint(struct dj_w *w, const char *key, long long v);
void dj_w_kbool(struct dj_w *w, const char *key, bool v);

#endif
