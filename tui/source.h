/* Source files for the source pane: finding them (the frame's fullname and
 * the -d directories), loading them, and syntax colours for C, C++, CUDA
 * and Python.  No curses. */
#ifndef CUDBG_TUI_SOURCE_H
#define CUDBG_TUI_SOURCE_H

#include <stddef.h>
#include <stdint.h>

enum src_lang { LANG_NONE, LANG_C, LANG_PYTHON };

struct srcfile {
	char *path;         /* where it was read from */
	char *buf;          /* the whole file, NUL ended */
	size_t len;
	size_t nlines;
	size_t *off;        /* nlines + 1 line starts (off[nlines] = len + 1) */
	uint8_t *state;     /* syntax state at the start of each line */
	enum src_lang lang;
};

/* Finds a readable regular file for a frame: fullname as is, then file if
 * absolute, then for each dir DIR/file and DIR/basename(file or
 * fullname), then file relative to the working directory.  Writes the path
 * into out (cap bytes).  Returns 0, or -1 when nothing was found. */
int source_find(const char *file, const char *fullname,
		const char *const *dirs, char *out, size_t cap);

/* The last component of a path ("dir/k.cu" -> "k.cu"); a path ending in
 * '/' is returned whole, NULL as "". */
const char *path_base(const char *path);

/* Loads a file (at most 64 MB).  Returns NULL with *err set (an errno
 * value, or EFBIG) on failure.  Free with srcfile_free(). */
struct srcfile *srcfile_load(const char *path, int *err);
void srcfile_free(struct srcfile *f); /* accepts NULL */

/* Line n (1-based) without its newline; NULL past the end. */
const char *srcfile_line(const struct srcfile *f, size_t n, size_t *len);

enum src_lang source_lang_of(const char *path);

/* Token classes handed to the callback; they map onto ui colours. */
enum syn_class {
	SYN_KEYWORD,
	SYN_TYPE,
	SYN_STRING,
	SYN_COMMENT,
	SYN_NUMBER,
	SYN_PREPROC,
};

typedef void (*syn_fn)(void *ctx, size_t start, size_t len, enum syn_class cls);

/* Colours one line: calls fn for each token (in order, not overlapping),
 * starting in syntax state `state` (what the previous line ended in);
 * returns the state at the end of the line.  fn may be NULL. */
uint8_t syntax_line(enum src_lang lang, uint8_t state, const char *s,
		    size_t len, syn_fn fn, void *ctx);

#endif
