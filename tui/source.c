/* Finding, loading and colouring source files. */
#include "tui/source.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SRC_MAX_BYTES (64u << 20)

static bool readable_file(const char *path)
{
	struct stat st;

	return path && *path && stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, R_OK) == 0;
}

const char *path_base(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	if (!path)
		return "";
	return s && s[1] ? s + 1 : path;
}

static bool try_path(char *out, size_t cap, const char *dir, const char *name)
{
	int n = snprintf(out, cap, "%s/%s", dir, name);
	return n > 0 && (size_t)n < cap && readable_file(out);
}

int source_find(const char *file, const char *fullname,
		const char *const *dirs, char *out, size_t cap)
{
	if (fullname && readable_file(fullname) && strlen(fullname) < cap) {
		strcpy(out, fullname);
		return 0;
	}
	if (file && file[0] == '/' && readable_file(file) && strlen(file) < cap) {
		strcpy(out, file);
		return 0;
	}
	/* As gdb's `directory`: the name as given under each directory, then
	 * its base name (recordings rewrite paths to /src/examples/...). */
	for (size_t i = 0; dirs && dirs[i]; i++) {
		if (file && *file && file[0] != '/' && try_path(out, cap, dirs[i], file))
			return 0;
		if (file && *file && try_path(out, cap, dirs[i], path_base(file)))
			return 0;
		if (fullname && *fullname && try_path(out, cap, dirs[i], path_base(fullname)))
			return 0;
	}
	if (file && *file && file[0] != '/' && readable_file(file) && strlen(file) < cap) {
		strcpy(out, file);
		return 0;
	}
	return -1;
}

enum src_lang source_lang_of(const char *path)
{
	static const char *const c_ext[] = {
		".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx",
		".cu", ".cuh", ".inl", ".C", ".H",
	};
	const char *dot = strrchr(path_base(path), '.');

	if (!dot)
		return LANG_NONE;
	if (strcmp(dot, ".py") == 0 || strcmp(dot, ".pyi") == 0)
		return LANG_PYTHON;
	for (size_t i = 0; i < sizeof c_ext / sizeof c_ext[0]; i++)
		if (strcmp(dot, c_ext[i]) == 0)
			return LANG_C;
	return LANG_NONE;
}

static int read_all(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	char *b;
	size_t n = 0;

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return EINVAL;
	}
	if ((uint64_t)st.st_size > SRC_MAX_BYTES) {
		close(fd);
		return EFBIG;
	}
	b = malloc((size_t)st.st_size + 1);
	if (!b) {
		close(fd);
		return ENOMEM;
	}
	while (n < (size_t)st.st_size) {
		ssize_t r = read(fd, b + n, (size_t)st.st_size - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break; /* the file shrank: keep what was read */
		n += (size_t)r;
	}
	close(fd);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

static int index_lines(struct srcfile *f)
{
	size_t n = 0, cap = 1024;

	f->off = malloc(cap * sizeof(*f->off));
	if (!f->off)
		return -1;
	f->off[n++] = 0;
	for (size_t i = 0; i < f->len; i++) {
		if (f->buf[i] != '\n')
			continue;
		if (n + 1 >= cap) {
			size_t *o = realloc(f->off, cap * 2 * sizeof(*o));
			if (!o)
				return -1;
			f->off = o;
			cap *= 2;
		}
		f->off[n++] = i + 1;
	}
	/* A last line without a newline counts; an empty tail does not. */
	if (f->off[n - 1] < f->len) {
		f->nlines = n;
		f->off[n] = f->len + 1;
	} else {
		f->nlines = n - 1; /* off[n - 1] == len: the last newline + 1 */
	}
	return 0;
}

static int compute_states(struct srcfile *f)
{
	uint8_t st = 0;

	f->state = malloc(f->nlines + 1);
	if (!f->state)
		return -1;
	for (size_t i = 0; i < f->nlines; i++) {
		size_t len;
		const char *l = srcfile_line(f, i + 1, &len);
		f->state[i] = st;
		st = syntax_line(f->lang, st, l, len, NULL, NULL);
	}
	f->state[f->nlines] = st;
	return 0;
}

struct srcfile *srcfile_load(const char *path, int *err)
{
	struct srcfile *f = calloc(1, sizeof(*f));
	int e;

	if (!f) {
		*err = ENOMEM;
		return NULL;
	}
	e = read_all(path, &f->buf, &f->len);
	if (e == 0 && !(f->path = strdup(path)))
		e = ENOMEM;
	f->lang = source_lang_of(path);
	if (e == 0 && (index_lines(f) < 0 || compute_states(f) < 0))
		e = ENOMEM;
	if (e) {
		srcfile_free(f);
		*err = e;
		return NULL;
	}
	return f;
}

void srcfile_free(struct srcfile *f)
{
	if (!f)
		return;
	free(f->path);
	free(f->buf);
	free(f->off);
	free(f->state);
	free(f);
}

const char *srcfile_line(const struct srcfile *f, size_t n, size_t *len)
{
	if (n < 1 || n > f->nlines)
		return NULL;
	size_t a = f->off[n - 1], b = f->off[n] - 1;
	if (b > a && f->buf[b - 1] == '\r')
		b--; /* CRLF files */
	*len = b - a;
	return f->buf + a;
}

/* ---- syntax ---- */

static const char *const c_keywords[] = {
	"__constant__", "__device__", "__forceinline__", "__global__",
	"__host__", "__launch_bounds__", "__managed__", "__noinline__",
	"__restrict__", "__shared__", "alignas", "alignof", "asm", "auto",
	"break", "case", "catch", "class", "const", "const_cast", "consteval",
	"constexpr", "continue", "decltype", "default", "delete", "do",
	"dynamic_cast", "else", "enum", "explicit", "export", "extern",
	"false", "for", "friend", "goto", "if", "inline", "mutable",
	"namespace", "new", "noexcept", "nullptr", "operator", "private",
	"protected", "public", "register", "reinterpret_cast", "restrict",
	"return", "sizeof", "static", "static_assert", "static_cast",
	"struct", "switch", "template", "this", "throw", "true", "try",
	"typedef", "typeid", "typename", "union", "using", "virtual",
	"volatile", "while",
};

static const char *const c_types[] = {
	"blockDim", "blockIdx", "bool", "char", "char16_t", "char32_t",
	"dim3", "double", "float", "float2", "float4", "gridDim", "half",
	"int", "int16_t", "int2", "int32_t", "int4", "int64_t", "int8_t",
	"long", "ptrdiff_t", "short", "signed", "size_t", "ssize_t",
	"threadIdx", "uint16_t", "uint32_t", "uint64_t", "uint8_t",
	"unsigned", "void", "warpSize", "wchar_t",
};

static const char *const py_keywords[] = {
	"False", "None", "True", "and", "as", "assert", "async", "await",
	"break", "class", "continue", "def", "del", "elif", "else", "except",
	"finally", "for", "from", "global", "if", "import", "in", "is",
	"lambda", "match", "nonlocal", "not", "or", "pass", "raise", "return",
	"try", "while", "with", "yield",
};

static const char *const py_types[] = {
	"bool", "bytes", "cls", "dict", "float", "int", "len", "list",
	"object", "print", "range", "self", "set", "str", "super", "tuple",
	"type",
};

static int cmp_word(const void *key, const void *elem)
{
	return strcmp((const char *)key, *(const char *const *)elem);
}

static bool in_list(const char *const *list, size_t n, const char *w, size_t len)
{
	char word[32];

	if (len >= sizeof word)
		return false;
	memcpy(word, w, len);
	word[len] = '\0';
	return bsearch(word, list, n, sizeof(*list), cmp_word) != NULL;
}

#define IN(list, w, n) in_list(list, sizeof list / sizeof list[0], w, n)

static bool ident_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void emit(syn_fn fn, void *ctx, size_t a, size_t b, enum syn_class c)
{
	if (fn && b > a)
		fn(ctx, a, b - a, c);
}

static size_t scan_number(const char *s, size_t len, size_t i)
{
	while (i < len && (isalnum((unsigned char)s[i]) || s[i] == '.' ||
			   s[i] == '\'' || s[i] == '_' ||
			   ((s[i] == '+' || s[i] == '-') &&
			    (s[i - 1] == 'e' || s[i - 1] == 'E' || s[i - 1] == 'p' || s[i - 1] == 'P'))))
		i++;
	return i;
}

/* A quoted string or char literal ending at the closing quote or the end
 * of the line. */
static size_t scan_quoted(const char *s, size_t len, size_t i, char q)
{
	for (i++; i < len; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == q)
			return i + 1;
	}
	return len;
}

/* C, C++, CUDA.  State 1: inside a block comment. */
static uint8_t syntax_c(uint8_t state, const char *s, size_t len, syn_fn fn, void *ctx)
{
	size_t i = 0;

	if (state == 1) {
		const char *end = memmem(s, len, "*/", 2);
		size_t e = end ? (size_t)(end - s) + 2 : len;
		emit(fn, ctx, 0, e, SYN_COMMENT);
		if (!end)
			return 1;
		i = e;
	}
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i < len && s[i] == '#' && state == 0) {
		const char *cm = memmem(s + i, len - i, "//", 2);
		size_t e = cm ? (size_t)(cm - s) : len;
		emit(fn, ctx, i, e, SYN_PREPROC);
		emit(fn, ctx, e, len, SYN_COMMENT);
		return 0;
	}
	while (i < len) {
		char c = s[i];
		size_t j;
		if (c == '/' && i + 1 < len && s[i + 1] == '/') {
			emit(fn, ctx, i, len, SYN_COMMENT);
			return 0;
		}
		if (c == '/' && i + 1 < len && s[i + 1] == '*') {
			const char *end = memmem(s + i + 2, len - i - 2, "*/", 2);
			j = end ? (size_t)(end - s) + 2 : len;
			emit(fn, ctx, i, j, SYN_COMMENT);
			if (!end)
				return 1;
		} else if (c == '"' || c == '\'') {
			j = scan_quoted(s, len, i, c);
			emit(fn, ctx, i, j, SYN_STRING);
		} else if (isdigit((unsigned char)c) ||
			   (c == '.' && i + 1 < len && isdigit((unsigned char)s[i + 1]))) {
			j = scan_number(s, len, i + 1);
			emit(fn, ctx, i, j, SYN_NUMBER);
		} else if (ident_start(c)) {
			for (j = i + 1; j < len && ident_char(s[j]); j++)
				;
			if (IN(c_keywords, s + i, j - i))
				emit(fn, ctx, i, j, SYN_KEYWORD);
			else if (IN(c_types, s + i, j - i))
				emit(fn, ctx, i, j, SYN_TYPE);
		} else {
			j = i + 1;
		}
		i = j;
	}
	return 0;
}

/* The end of a triple-quoted string (q is '"' or '\'') from i, or len. */
static size_t py_triple_end(const char *s, size_t len, size_t i, char q, bool *closed)
{
	for (; i + 3 <= len; i++) {
		if (s[i] == '\\') {
			i++;
			continue;
		}
		if (s[i] == q && s[i + 1] == q && s[i + 2] == q) {
			*closed = true;
			return i + 3;
		}
	}
	*closed = false;
	return len;
}

/* Python.  State 1: inside """...""", 2: inside '''...'''. */
static uint8_t syntax_py(uint8_t state, const char *s, size_t len, syn_fn fn, void *ctx)
{
	size_t i = 0;
	bool closed;

	if (state == 1 || state == 2) {
		size_t e = py_triple_end(s, len, 0, state == 1 ? '"' : '\'', &closed);
		emit(fn, ctx, 0, e, SYN_STRING);
		if (!closed)
			return state;
		i = e;
	}
	while (i < len) {
		char c = s[i];
		size_t j;
		if (c == '#') {
			emit(fn, ctx, i, len, SYN_COMMENT);
			return 0;
		}
		if (c == '@' && ident_start(i + 1 < len ? s[i + 1] : ' ')) {
			for (j = i + 1; j < len && (ident_char(s[j]) || s[j] == '.'); j++)
				;
			emit(fn, ctx, i, j, SYN_PREPROC);
		} else if (c == '"' || c == '\'') {
			if (i + 2 < len && s[i + 1] == c && s[i + 2] == c) {
				j = py_triple_end(s, len, i + 3, c, &closed);
				emit(fn, ctx, i, j, SYN_STRING);
				if (!closed)
					return c == '"' ? 1 : 2;
			} else {
				j = scan_quoted(s, len, i, c);
				emit(fn, ctx, i, j, SYN_STRING);
			}
		} else if (isdigit((unsigned char)c)) {
			j = scan_number(s, len, i + 1);
			emit(fn, ctx, i, j, SYN_NUMBER);
		} else if (ident_start(c)) {
			for (j = i + 1; j < len && ident_char(s[j]); j++)
				;
			/* String prefixes (r"", f'', b"""...) colour as strings. */
			if (j < len && (s[j] == '"' || s[j] == '\'') && j - i <= 2 &&
			    strspn(s + i, "rRbBfFuU") >= j - i) {
				/* the quote itself is scanned next round */
				emit(fn, ctx, i, j, SYN_STRING);
			} else if (IN(py_keywords, s + i, j - i)) {
				emit(fn, ctx, i, j, SYN_KEYWORD);
			} else if (IN(py_types, s + i, j - i)) {
				emit(fn, ctx, i, j, SYN_TYPE);
			}
		} else {
			j = i + 1;
		}
		i = j;
	}
	return 0;
}

uint8_t syntax_line(enum src_lang lang, uint8_t state, const char *s,
		    size_t len, syn_fn fn, void *ctx)
{
	switch (lang) {
	case LANG_C: return syntax_c(state, s, len, fn, ctx);
	case LANG_PYTHON: return syntax_py(state, s, len, fn, ctx);
	case LANG_NONE: break;
	}
	return 0;
}
