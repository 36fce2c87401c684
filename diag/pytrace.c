/* The last Python traceback the program printed: its frames and its
 * exception line.
 *
 * Why: a Python program that fails on the host (torch_dtype's "expected
 * mat1 and mat2 to have the same dtype", run 24) gives no device stop, no
 * sanitizer finding and no live stack; the traceback on its terminal is
 * the only place its line is.  A memcheck pass that found no device error
 * and ends the run (diag/diagrun.c, "no live run") had no other.
 *
 * Python prints (innermost call last):
 *   Traceback (most recent call last):
 *     File "/src/gpu/torch_dtype.py", line 19, in <module>
 *       main()
 *     File "/src/gpu/torch_dtype.py", line 10, in forward
 *       return x @ w
 *              ~~^~~                    (3.11+: carets, ignored)
 *   RuntimeError: expected mat1 and mat2 to have the same dtype, ...
 * A chained exception ("During handling of the above exception ...")
 * prints a second block; the last one is the exception that ended the
 * program.  An exception raised in another process is where it
 * happened, not the line that re-raised it: PyTorch's DataLoader and
 * ExceptionWrapper print the worker's after their own ("Original
 * Traceback (most recent call last):", read as the last block),
 * torch.multiprocessing.spawn its "-- Process 0 terminated with the
 * following error:" block after its own, and multiprocessing's Pool and
 * concurrent.futures theirs before the re-raising one ("...RemoteTraceback:
 * " then a quoted block): that one stands for the block after it.
 * pytest prints a failing test in its own format (python -m pytest, a
 * test that failed on the host): a "____ test_name ____" head, each
 * entry's code with the current line marked '>' and its "E   " lines,
 * ending in "path.py:LINE: " (or ": in FUNC") and the last in
 * "path.py:LINE: ExceptionType"; read as a traceback of those entries,
 * its exception "ExceptionType: " and the first "E" line.  The first
 * failing test stands: a sticky CUDA error fails every test after the
 * one that caused it.
 * A script that does not compile prints no head: its error's location
 * ("  File "x.py", line 2", with no function), the source and a caret,
 * then "SyntaxError: ..." (IndentationError, TabError); inside a block
 * (an import of a module that does not compile) the same location is
 * the innermost frame.  Where the interpreter runs none of the script
 * it says so in one line after its own path ("/usr/bin/python3: No
 * module named X", "...: can't open file 'X': [Errno 2] ...", "...:
 * Error while finding module specification for 'X' (...)"): kept as
 * the start error.
 * Lines come one at a time from the output's line splitter
 * (diag/assertline.c), so the reader keeps its state between them. */
#include "diag/state.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define TB_HEAD "Traceback (most recent call last):"
#define TB_ORIGINAL "Original " TB_HEAD

bool diag_py_file_line(const char *l, size_t n, struct diag_py_file_ref *out)
{
	static const char head[] = "  File \"";
	if (n < sizeof head || memcmp(l, head, sizeof head - 1) != 0)
		return false;
	const char *f = l + sizeof head - 1, *end = l + n;
	const char *q = NULL;
	/* the last '", line ' (a file name may hold quotes) */
	for (const char *c = end - 1; c > f; c--)
		if (*c == '"' && (size_t)(end - c) > 7 &&
		    memcmp(c, "\", line ", 8) == 0) {
			q = c;
			break;
		}
	if (!q)
		return false;
	const char *num = q + 8, *c = num;
	long v = 0;
	while (c < end && isdigit((unsigned char)*c) && v < 100000000)
		v = v * 10 + (*c++ - '0');
	if (c == num)
		return false;
	/* a traceback has ", in FUNC"; faulthandler " in FUNC" */
	if (c < end && *c == ',')
		c++;
	if (end - c < 4 || memcmp(c, " in ", 4) != 0)
		return false;
	out->file = f;
	out->file_len = (size_t)(q - f);
	out->line = (int)v;
	out->func = c + 4;
	out->func_len = (size_t)(end - c - 4);
	return true;
}

/* "  File "x.py", line 2" and nothing after: a syntax error's location
 * (its function is the module being compiled). */
static bool syntax_location(const char *l, size_t n,
			    struct diag_py_file_ref *out)
{
	static const char head[] = "  File \"";
	while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
		n--;
	if (n < sizeof head || memcmp(l, head, sizeof head - 1) != 0)
		return false;
	const char *end = l + n, *c = end;
	while (c > l && isdigit((unsigned char)c[-1]))
		c--;
	if (c == end || end - c > 9 || c - l < (long)sizeof head + 8 ||
	    memcmp(c - 8, "\", line ", 8) != 0)
		return false;
	out->file = l + sizeof head - 1;
	out->file_len = (size_t)(c - 8 - out->file);
	int line = 0; /* (the line is no C string: no atoi) */
	for (const char *d = c; d < end; d++)
		line = line * 10 + (*d - '0');
	out->line = line;
	out->func = "<module>";
	out->func_len = 8;
	return out->file_len > 0;
}

static bool syntax_error_line(const char *l, size_t n)
{
	return text_starts(l, n, "SyntaxError") ||
	       text_starts(l, n, "IndentationError") ||
	       text_starts(l, n, "TabError");
}

/* "/usr/bin/python3: No module named X" and its kin: the text after the
 * interpreter's path (whose base name begins "python"), or NULL. */
static const char *start_error_text(const char *l, size_t n, size_t *len)
{
	static const char *const says[] = {
		": No module named ", ": can't open file ",
		": Error while finding module specification for ",
	};
	if (!n || l[0] == ' ')
		return NULL;
	for (size_t i = 0; i < sizeof says / sizeof says[0]; i++) {
		const char *at = memmem(l, n, says[i], strlen(says[i]));
		if (!at)
			continue;
		const char *base = at;
		while (base > l && base[-1] != '/')
			base--;
		if (memchr(l, ' ', (size_t)(at - l)) ||
		    (size_t)(at - base) < 6 || memcmp(base, "python", 6) != 0)
			return NULL;
		*len = (size_t)(l + n - at - 2);
		while (*len && at[2 + *len - 1] == '\r')
			(*len)--;
		return at + 2;
	}
	return NULL;
}

static void frames_free(struct diag_pyf *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].file);
		free(v[i].func);
		free(v[i].source);
	}
	free(v);
}

static void block_drop(struct diag_pytrace *t)
{
	frames_free(t->frames, t->n);
	t->frames = NULL;
	t->n = t->cap = 0;
	t->reading = false;
	t->want_source = false;
	t->block_syntax = false;
}

void diag_pytrace_free(struct diag_pytrace *t)
{
	block_drop(t);
	free(t->pytest_source);
	free(t->pytest_error);
	diag_pystack_free(&t->last);
	free(t->exception);
	diag_pystack_free(&t->remote);
	free(t->remote_exception);
	free(t->start_error);
	memset(t, 0, sizeof *t);
}

static void add_frame(struct diag_pytrace *t, const struct diag_py_file_ref *r)
{
	/* A deep recursion prints "[Previous line repeated N more times]"
	 * instead of its frames; past the bound the outer frames are kept
	 * (the user's script lines) and the rest are dropped. */
	if (t->n >= DIAG_PY_MAX_FRAMES)
		return;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 8;
		void *v = realloc(t->frames, cap * sizeof *t->frames);
		if (!v)
			return;
		t->frames = v;
		t->cap = cap;
	}
	struct diag_pyf *f = &t->frames[t->n];
	memset(f, 0, sizeof *f);
	f->file = diag_strndup(r->file, r->file_len);
	f->func = diag_strndup(r->func, r->func_len);
	if (!f->file || !f->func) {
		free(f->file);
		free(f->func);
		return;
	}
	f->line = r->line > 0 ? (unsigned)r->line : 0;
	f->library = diag_py_library_path(f->file);
	t->n++;
	t->want_source = true;
}

/* Moves a stack and its exception line into *st and *exc. */
static void take_stack(struct diag_pystack *st, char **exc,
		       struct diag_pystack *from, char *from_exc)
{
	diag_pystack_free(st);
	*st = *from;
	memset(from, 0, sizeof *from);
	free(*exc);
	*exc = from_exc;
}

/* Appends the frames of *outer after those of *inner (both innermost
 * first): one stack from where it happened to where the program asked
 * for it.  *outer is emptied. */
static void stack_continue(struct diag_pystack *inner,
			   struct diag_pystack *outer)
{
	struct diag_pyf *v = outer->n_frames
		? realloc(inner->frames, (inner->n_frames + outer->n_frames) *
					 sizeof *v)
		: NULL;
	if (v) {
		memcpy(v + inner->n_frames, outer->frames,
		       outer->n_frames * sizeof *v);
		inner->frames = v;
		inner->n_frames += outer->n_frames;
		free(outer->frames);
		outer->frames = NULL;
		outer->n_frames = 0;
	}
	diag_pystack_free(outer);
	memset(outer, 0, sizeof *outer);
}

/* The block ends at its exception line: it becomes the last traceback
 * (or the remote one), its frames turned innermost first (as a live
 * stack has them).  A block after a remote one stands for it; a worker's
 * "Original Traceback" continues outward with the block before it. */
static void block_end(struct diag_pytrace *t, const char *l, size_t n)
{
	char *exc = diag_strndup(l, n > 500 ? 500 : n);
	if (!exc || !t->n) {
		free(exc);
		block_drop(t);
		return;
	}
	for (size_t i = 0; i < t->n / 2; i++) {
		struct diag_pyf tmp = t->frames[i];
		t->frames[i] = t->frames[t->n - 1 - i];
		t->frames[t->n - 1 - i] = tmp;
	}
	struct diag_pystack got = { .frames = t->frames, .n_frames = t->n };
	t->frames = NULL;
	t->n = t->cap = 0;
	t->reading = false;
	t->want_source = false;
	if (t->block_remote) {
		t->block_remote = false;
		take_stack(&t->remote, &t->remote_exception, &got, exc);
	} else if (t->remote.n_frames) {
		/* the re-raising block continues the remote's stack outward
		 * (Pool.map's line) */
		stack_continue(&t->remote, &got);
		free(exc);
		take_stack(&t->last, &t->exception, &t->remote,
			   t->remote_exception);
		t->remote_exception = NULL;
	} else {
		if (t->block_original) /* the DataLoader loop's line */
			stack_continue(&got, &t->last);
		take_stack(&t->last, &t->exception, &got, exc);
	}
	t->block_original = false;
}

static size_t trim(const char **s, size_t n)
{
	while (n && isspace((unsigned char)**s)) {
		(*s)++;
		n--;
	}
	while (n && isspace((unsigned char)(*s)[n - 1]))
		n--;
	return n;
}

/* "____ test_parse ____" (pytest's head of a failing test; a class's
 * test is "____ TestX.test_y ____"). */
static bool pytest_head(const char *l, size_t n)
{
	while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
		n--;
	if (n < 8 || memcmp(l, "___", 3) != 0 || memcmp(l + n - 3, "___", 3))
		return false;
	const char *sp = memchr(l, ' ', n);
	return sp && (size_t)(sp - l) >= 3 && sp + 1 < l + n && sp[1] != '_';
}

/* "path.py:LINE: REST": an entry's end; *rest the text after ": " */
static bool pytest_location(const char *l, size_t n,
			    struct diag_py_file_ref *r, const char **rest,
			    size_t *rest_len)
{
	const char *py = NULL;
	for (const char *c = l; c + 4 <= l + n; c++)
		if (memcmp(c, ".py:", 4) == 0) {
			py = c;
			break;
		}
	if (!py || py == l || memchr(l, ' ', (size_t)(py - l)))
		return false;
	const char *c = py + 4, *end = l + n;
	long v = 0;
	while (c < end && isdigit((unsigned char)*c) && v < 100000000)
		v = v * 10 + (*c++ - '0');
	if (c == py + 4 || c >= end || *c != ':')
		return false;
	c++;
	while (c < end && (*c == ' ' || *c == '\r'))
		c++;
	size_t k = (size_t)(end - c);
	while (k && (c[k - 1] == ' ' || c[k - 1] == '\r'))
		k--;
	*r = (struct diag_py_file_ref){ .file = l, .file_len = (size_t)(py + 3 - l),
					.line = v, .func = "", .func_len = 0 };
	if (k > 3 && memcmp(c, "in ", 3) == 0) {
		r->func = c + 3;
		r->func_len = k - 3;
		k = 0;
	}
	*rest = c;
	*rest_len = k;
	return true;
}

/* A text line into *slot (the first one kept when keep_first). */
static void keep_text(char **slot, const char *l, size_t n, size_t cap,
		      bool keep_first)
{
	const char *s = l;
	size_t k = trim(&s, n);
	if (!k || (keep_first && *slot))
		return;
	free(*slot);
	*slot = diag_strndup(s, k > cap ? cap : k);
}

/* "def NAME(" / "async def NAME(": the entry's function. */
static bool pytest_def(struct diag_pytrace *t, const char *l, size_t n)
{
	const char *s = l;
	size_t k = trim(&s, n);
	size_t skip = text_starts(s, k, "def ") ? 4 : text_starts(s, k, "async def ") ? 10 : 0;
	if (!skip)
		return false;
	size_t m = 0;
	while (skip + m < k && (isalnum((unsigned char)s[skip + m]) ||
				s[skip + m] == '_'))
		m++;
	snprintf(t->pytest_func, sizeof t->pytest_func, "%.*s", (int)m, s + skip);
	return true;
}

/* The last entry ended in "ExceptionType": the block's exception line,
 * "ExceptionType: " and the first E line (which may name it already). */
static void pytest_end(struct diag_pytrace *t, const char *type, size_t len)
{
	char exc[720];
	const char *e = t->pytest_error ? t->pytest_error : "";
	size_t k = strlen(e);
	bool named = k > len && memcmp(e, type, len) == 0 && e[len] == ':';
	snprintf(exc, sizeof exc, "%.*s%s%s", named ? 0 : (int)len, type,
		 named || !k ? "" : ": ", e);
	free(t->pytest_error);
	free(t->pytest_source);
	t->pytest_error = t->pytest_source = NULL;
	t->block_pytest = false;
	t->pytest_seen = true;
	block_end(t, exc, strlen(exc));
}

/* One line of a pytest failure's block: its '>' line, its first E line,
 * a "def", an entry's location (a frame), the last one ending it. */
static void pytest_line(struct diag_pytrace *t, const char *l, size_t n)
{
	if (n && l[0] == '>') { /* the entry's current line */
		keep_text(&t->pytest_source, l + 1, n - 1, 300, false);
		return;
	}
	if (n > 1 && l[0] == 'E' && (l[1] == ' ' || l[1] == '\t')) {
		keep_text(&t->pytest_error, l + 1, n - 1, 400, true);
		return;
	}
	if (pytest_def(t, l, n))
		return;
	struct diag_py_file_ref r;
	const char *rest;
	size_t rest_len;
	if (!pytest_location(l, n, &r, &rest, &rest_len))
		return;
	if (!r.func_len) {
		r.func = t->pytest_func;
		r.func_len = strlen(t->pytest_func);
	}
	add_frame(t, &r);
	t->pytest_func[0] = '\0';
	if (t->n && t->pytest_source && !t->frames[t->n - 1].source) {
		t->frames[t->n - 1].source = t->pytest_source;
		t->pytest_source = NULL;
	}
	/* an entry on the way (the test's own call, a helper) has no type */
	if (rest_len)
		pytest_end(t, rest, rest_len);
}

void diag_pytrace_line(struct diag_pytrace *t, const char *l, size_t n)
{
	if (!t->pytest_seen && pytest_head(l, n)) {
		block_drop(t);
		free(t->pytest_error);
		free(t->pytest_source);
		t->pytest_error = t->pytest_source = NULL;
		t->pytest_func[0] = '\0';
		t->block_pytest = true;
		return;
	}
	if (t->block_pytest) {
		pytest_line(t, l, n);
		return;
	}
	if (text_starts(l, n, TB_HEAD) || text_starts(l, n, TB_ORIGINAL)) {
		block_drop(t);
		t->reading = true;
		t->block_remote = t->remote_next;
		t->remote_next = false;
		t->block_original = text_starts(l, n, TB_ORIGINAL) || t->original_next;
		t->original_next = false;
		return;
	}
	/* torch.multiprocessing.spawn: "-- Process 0 terminated with the
	 * following error:", the worker's block after its own */
	if (!t->reading && text_starts(l, n, "-- Process ") &&
	    memmem(l, n, "terminated with the following error", 35)) {
		t->original_next = true;
		return;
	}
	/* "multiprocessing.pool.RemoteTraceback: ", "concurrent.futures.
	 * process._RemoteTraceback: ": the quoted block that follows */
	if (!t->reading && memmem(l, n, "RemoteTraceback: ", 17)) {
		t->remote_next = true;
		return;
	}
	struct diag_py_file_ref r;
	if (!t->reading && syntax_location(l, n, &r)) {
		block_drop(t);
		t->reading = t->block_syntax = true;
		t->block_remote = t->block_original = false;
		add_frame(t, &r);
		return;
	}
	size_t sl;
	const char *se = t->reading ? NULL : start_error_text(l, n, &sl);
	if (se) {
		free(t->start_error);
		t->start_error = diag_strndup(se, sl > 300 ? 300 : sl);
		return;
	}
	if (!t->reading)
		return;
	if (diag_py_file_line(l, n, &r) || syntax_location(l, n, &r)) {
		add_frame(t, &r);
		return;
	}
	if (n && l[0] == ' ') {
		/* the first indented line after a frame is its source; the
		 * rest (carets, "[Previous line repeated ...]") are not */
		if (t->want_source && t->n) {
			const char *s = l;
			size_t k = trim(&s, n);
			struct diag_pyf *f = &t->frames[t->n - 1];
			if (k && !f->source)
				f->source = diag_strndup(s, k > 300 ? 300 : k);
		}
		t->want_source = false;
		return;
	}
	if (!n || (n == 1 && l[0] == '\r'))
		return;
	if (t->block_syntax && !syntax_error_line(l, n)) {
		block_drop(t); /* a location line that was not a syntax error's */
		return;
	}
	t->block_syntax = false;
	block_end(t, l, n);
}

const char *diag_pytrace_start_error(const struct diag_pytrace *t)
{
	return t->start_error;
}

const struct diag_pystack *diag_pytrace_stack(const struct diag_pytrace *t)
{
	return t->exception && t->last.n_frames ? &t->last : NULL;
}

const char *diag_pytrace_exception(const struct diag_pytrace *t)
{
	return t->exception;
}
