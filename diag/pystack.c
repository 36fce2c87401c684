/* The live Python stack: the script run inside the interpreter, the
 * parser of what it writes, and the bad value of an index assert.  See
 * include/cudbg/pystack.h. */
#include "cudbg/pystack.h"
#include "cudbg/diag.h"
#include "diag/internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The script, run by PyRun_SimpleString in __main__: one function that
 * deletes itself, so the user's namespace keeps nothing.  Written without
 * double quotes or backslashes (chr(9) is a tab), which keeps the C
 * literal simple.  Frames of the injected code itself are "<string>". */
static const char *const script_lines[] = {
	"def _cudbg_tui_pystack(buf, cap):",
	"    tab = chr(9)",
	"    out = []",
	"    def clean(s):",
	"        s = str(s)",
	"        for c in (chr(9), chr(10), chr(13)):",
	"            s = s.replace(c, ' ')",
	"        return s[:400]",
	"    def tensor(v):",
	"        return all(hasattr(v, a) for a in ('data_ptr', 'shape', 'stride', 'element_size', 'dtype'))",
	"    try:",
	"        import sys, os",
	"        stdlib = os.path.dirname(os.__file__)",
	"        def library(p):",
	"            return p.startswith('<') or p.startswith(stdlib) or '/site-packages/' in p or '/dist-packages/' in p",
	"        f = sys._getframe(0)",
	"        while f is not None and f.f_code.co_filename == '<string>':",
	"            f = f.f_back",
	"        frames = []",
	"        while f is not None and len(frames) < 200:",
	"            frames.append(f)",
	"            f = f.f_back",
	"        import linecache",
	"        for k, f in enumerate(frames):",
	"            src = linecache.getline(f.f_code.co_filename, f.f_lineno or 0).strip() if k < 24 else ''",
	"            out.append(tab.join(('F', clean(f.f_code.co_filename), str(f.f_lineno or 0), clean(f.f_code.co_name), clean(src)[:200])))",
	"        for i, f in enumerate(frames[:24]):",
	"            n = 0",
	"            for k, v in list(f.f_locals.items())[:200]:",
	"                if n >= 32:",
	"                    break",
	"                try:",
	"                    if type(v) is int:",
	"                        out.append(tab.join(('I', str(i), clean(k), str(v))))",
	"                    elif tensor(v):",
	"                        out.append(tab.join(('T', str(i), clean(k), clean(v.dtype), clean(getattr(v, 'device', '?')), ','.join(str(int(x)) for x in v.shape), ','.join(str(int(x)) for x in v.stride()), str(int(v.data_ptr())), str(int(v.element_size())))))",
	"                    else:",
	"                        continue",
	"                except Exception:",
	"                    continue",
	"                n += 1",
	"            if not library(f.f_code.co_filename):",
	"                break",
	"    except BaseException as e:",
	"        out.append('E' + tab + clean(repr(e)))",
	"    try:",
	"        import ctypes",
	"        data = chr(10).join(out).encode('utf-8', 'replace')[:cap - 4]",
	"        ctypes.memmove(buf + 4, data, len(data))",
	"        ctypes.memmove(buf, len(data).to_bytes(4, 'little'), 4)",
	"    except BaseException:",
	"        pass",
};

char *diag_pystack_script(uint64_t addr, size_t cap)
{
	struct dbuf b = {0};
	for (size_t i = 0; i < sizeof script_lines / sizeof script_lines[0]; i++) {
		dbuf_puts(&b, script_lines[i]);
		dbuf_putc(&b, '\n');
	}
	dbuf_printf(&b, "_cudbg_tui_pystack(%llu, %zu)\n"
		    "del _cudbg_tui_pystack\n", (unsigned long long)addr, cap);
	return dbuf_take(&b);
}

char *diag_pystack_call_expr(uint64_t addr, size_t cap)
{
	char *script = diag_pystack_script(addr, cap);
	if (!script)
		return NULL;
	struct dbuf b = {0};
	dbuf_puts(&b, "(int)PyRun_SimpleString(\"");
	for (const char *p = script; *p; p++) {
		if (*p == '"' || *p == '\\')
			dbuf_putc(&b, '\\');
		if (*p == '\n')
			dbuf_puts(&b, "\\n");
		else
			dbuf_putc(&b, *p);
	}
	dbuf_puts(&b, "\")");
	free(script);
	return dbuf_take(&b);
}

bool diag_py_library_path(const char *path)
{
	if (!path || !*path || path[0] == '<')
		return true;
	if (strstr(path, "/site-packages/") || strstr(path, "/dist-packages/"))
		return true;
	for (const char *p = strstr(path, "/python"); p;
	     p = strstr(p + 1, "/python")) {
		/* ".../lib/python3.12/..." or ".../lib64/python3/..." */
		bool lib = (p - path >= 4 && strncmp(p - 4, "/lib", 4) == 0) ||
			   (p - path >= 6 && strncmp(p - 6, "/lib64", 6) == 0);
		if (lib && isdigit((unsigned char)p[7]))
			return true;
	}
	return false;
}

void diag_pystack_free(struct diag_pystack *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; i < ps->n_frames; i++) {
		free(ps->frames[i].file);
		free(ps->frames[i].func);
		free(ps->frames[i].source);
	}
	for (size_t i = 0; i < ps->n_tensors; i++) {
		free(ps->tensors[i].name);
		free(ps->tensors[i].dtype);
		free(ps->tensors[i].device);
	}
	for (size_t i = 0; i < ps->n_ints; i++)
		free(ps->ints[i].name);
	free(ps->frames);
	free(ps->tensors);
	free(ps->ints);
	free(ps->error);
	memset(ps, 0, sizeof *ps);
}

int diag_pystack_copy(struct diag_pystack *dst, const struct diag_pystack *src)
{
	memset(dst, 0, sizeof *dst);
	dst->frames = src->n_frames ? calloc(src->n_frames, sizeof *dst->frames) : NULL;
	dst->tensors = src->n_tensors ? calloc(src->n_tensors, sizeof *dst->tensors) : NULL;
	dst->ints = src->n_ints ? calloc(src->n_ints, sizeof *dst->ints) : NULL;
	bool ok = (!src->n_frames || dst->frames) &&
		  (!src->n_tensors || dst->tensors) && (!src->n_ints || dst->ints);
	for (size_t i = 0; ok && i < src->n_frames; i++, dst->n_frames++) {
		dst->frames[i] = src->frames[i];
		dst->frames[i].file = diag_strdup(src->frames[i].file);
		dst->frames[i].func = diag_strdup(src->frames[i].func);
		dst->frames[i].source = diag_strdup(src->frames[i].source);
		ok = dst->frames[i].file && dst->frames[i].func &&
		     (!src->frames[i].source || dst->frames[i].source);
	}
	for (size_t i = 0; ok && i < src->n_tensors; i++, dst->n_tensors++) {
		struct diag_pytensor *t = &dst->tensors[i];
		*t = src->tensors[i];
		t->name = diag_strdup(t->name);
		t->dtype = diag_strdup(t->dtype);
		t->device = diag_strdup(t->device);
		ok = t->name && t->dtype && t->device;
	}
	for (size_t i = 0; ok && i < src->n_ints; i++, dst->n_ints++) {
		dst->ints[i] = src->ints[i];
		ok = (dst->ints[i].name = diag_strdup(src->ints[i].name)) != NULL;
	}
	if (ok && src->error)
		ok = (dst->error = diag_strdup(src->error)) != NULL;
	dst->from_memory = src->from_memory;
	if (!ok) {
		diag_pystack_free(dst);
		return DIAG_ENOMEM;
	}
	return 0;
}

/* ---- parsing ------------------------------------------------------------ */

enum { MAX_FIELDS = 12 };

/* Splits one line at tabs; fields point into the line (NUL ended in
 * place).  Returns the count. */
static int split_tabs(char *line, char *f[MAX_FIELDS])
{
	int n = 0;
	f[n++] = line;
	for (char *p = line; *p && n < MAX_FIELDS; p++)
		if (*p == '\t') {
			*p = '\0';
			f[n++] = p + 1;
		}
	return n;
}

static bool parse_ll(const char *s, long long *out)
{
	if (!s || !*s)
		return false;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* "4,50" -> {4, 50}; "" is a 0-d tensor.  Returns the count or -1. */
static int parse_dims(const char *s, long long *out)
{
	int n = 0;
	while (*s) {
		if (n >= DIAG_PY_MAX_DIMS)
			return -1;
		char *end;
		errno = 0;
		long long v = strtoll(s, &end, 10);
		if (errno || end == s || (*end && *end != ','))
			return -1;
		out[n++] = v;
		s = *end ? end + 1 : end;
	}
	return n;
}

static int add_frame(struct diag_pystack *ps, char **f, int n)
{
	long long line;
	if (n < 4 || ps->n_frames >= DIAG_PY_MAX_FRAMES ||
	    !parse_ll(f[2], &line) || line < 0 || line > 100000000)
		return 0;
	if (!ps->frames &&
	    !(ps->frames = calloc(DIAG_PY_MAX_FRAMES, sizeof *ps->frames)))
		return DIAG_ENOMEM;
	struct diag_pyf *fr = &ps->frames[ps->n_frames];
	fr->file = diag_strdup(f[1]);
	fr->func = diag_strdup(f[3]);
	fr->source = n >= 5 && *f[4] ? diag_strdup(f[4]) : NULL;
	fr->line = (unsigned)line;
	if (!fr->file || !fr->func || (n >= 5 && *f[4] && !fr->source)) {
		free(fr->file);
		free(fr->func);
		free(fr->source);
		return DIAG_ENOMEM;
	}
	fr->library = diag_py_library_path(fr->file);
	ps->n_frames++;
	return 0;
}

static bool frame_index(const struct diag_pystack *ps, const char *s, int *out)
{
	long long v;
	if (!parse_ll(s, &v) || v < 0 || (size_t)v >= ps->n_frames)
		return false;
	*out = (int)v;
	return true;
}

static int add_tensor(struct diag_pystack *ps, char **f, int n)
{
	struct diag_pytensor t = {0};
	long long ptr, es;
	if (n < 9 || ps->n_tensors >= DIAG_PY_MAX_TENSORS ||
	    !frame_index(ps, f[1], &t.frame) ||
	    (t.ndim = parse_dims(f[5], t.shape)) < 0 ||
	    parse_dims(f[6], t.stride) != t.ndim ||
	    !parse_ll(f[7], &ptr) || !parse_ll(f[8], &es) || es <= 0 || es > 16)
		return 0;
	for (int i = 0; i < t.ndim; i++)
		if (t.shape[i] < 0)
			return 0;
	t.ptr = (uint64_t)ptr;
	t.elsize = (int)es;
	if (!ps->tensors &&
	    !(ps->tensors = calloc(DIAG_PY_MAX_TENSORS, sizeof *ps->tensors)))
		return DIAG_ENOMEM;
	t.name = diag_strdup(f[2]);
	t.dtype = diag_strdup(f[3]);
	t.device = diag_strdup(f[4]);
	if (!t.name || !t.dtype || !t.device) {
		free(t.name);
		free(t.dtype);
		free(t.device);
		return DIAG_ENOMEM;
	}
	ps->tensors[ps->n_tensors++] = t;
	return 0;
}

static int add_int(struct diag_pystack *ps, char **f, int n)
{
	struct diag_pyint v = {0};
	if (n < 4 || ps->n_ints >= DIAG_PY_MAX_INTS ||
	    !frame_index(ps, f[1], &v.frame) || !parse_ll(f[3], &v.value))
		return 0;
	if (!ps->ints && !(ps->ints = calloc(DIAG_PY_MAX_INTS, sizeof *ps->ints)))
		return DIAG_ENOMEM;
	if (!(v.name = diag_strdup(f[2])))
		return DIAG_ENOMEM;
	ps->ints[ps->n_ints++] = v;
	return 0;
}

static int parse_line(struct diag_pystack *ps, char *line)
{
	char *f[MAX_FIELDS];
	int n = split_tabs(line, f);
	if (strcmp(f[0], "F") == 0)
		return add_frame(ps, f, n);
	if (strcmp(f[0], "T") == 0)
		return add_tensor(ps, f, n);
	if (strcmp(f[0], "I") == 0)
		return add_int(ps, f, n);
	if (strcmp(f[0], "E") == 0 && n >= 2 && !ps->error)
		return (ps->error = diag_strdup(f[1])) ? 0 : DIAG_ENOMEM;
	return 0; /* unknown lines are skipped: a later script may add some */
}

int diag_pystack_parse(const char *text, size_t len, struct diag_pystack *out)
{
	memset(out, 0, sizeof *out);
	if (!text || len > DIAG_PY_BUF_CAP)
		return DIAG_ESYNTAX;
	char *copy = diag_strndup(text, len);
	if (!copy)
		return DIAG_ENOMEM;
	int rc = 0;
	char *save = NULL;
	for (char *line = strtok_r(copy, "\n", &save); line && rc == 0;
	     line = strtok_r(NULL, "\n", &save))
		rc = parse_line(out, line);
	free(copy);
	if (rc == 0 && out->n_frames == 0 && !out->error)
		rc = DIAG_ESYNTAX;
	if (rc < 0)
		diag_pystack_free(out);
	return rc;
}

int diag_pystack_user_frame(const struct diag_pystack *ps)
{
	for (size_t i = 0; ps && i < ps->n_frames; i++)
		if (!ps->frames[i].library)
			return (int)i;
	return -1;
}

/* ---- the bad value ------------------------------------------------------ */

static bool int_dtype(const char *d)
{
	return d && (strstr(d, "int") || strstr(d, "long")) && !strstr(d, "bool");
}

static bool float_dtype(const char *d)
{
	return d && (strstr(d, "float") || strstr(d, "half") ||
		     strstr(d, "double") || strstr(d, "bfloat"));
}

static const struct diag_pytensor *find_tensor(const struct diag_pystack *ps,
					       int frame, bool want_int,
					       const char *const *names)
{
	const struct diag_pytensor *any = NULL;
	for (size_t i = 0; i < ps->n_tensors; i++) {
		const struct diag_pytensor *t = &ps->tensors[i];
		if (t->frame != frame ||
		    (want_int ? !int_dtype(t->dtype) : !float_dtype(t->dtype)))
			continue;
		for (size_t k = 0; names && names[k]; k++)
			if (strcmp(t->name, names[k]) == 0)
				return t;
		if (!any)
			any = t;
	}
	return any;
}

static bool int_local(const struct diag_pystack *ps, int frame,
		      const char *name, long long *out)
{
	for (size_t i = 0; i < ps->n_ints; i++)
		if (ps->ints[i].frame == frame &&
		    strcmp(ps->ints[i].name, name) == 0) {
			*out = ps->ints[i].value;
			return true;
		}
	return false;
}

static bool contiguous(const struct diag_pytensor *t, long long *numel)
{
	long long want = 1;
	*numel = 1;
	for (int i = t->ndim - 1; i >= 0; i--) {
		if (t->shape[i] != 1 && t->stride[i] != want)
			return false;
		if (t->shape[i] && want > (1LL << 40) / t->shape[i])
			return false;
		want *= t->shape[i];
	}
	*numel = want;
	return true;
}

/* The user's own name for the tensor: a local of the user's frame with
 * the same data and shape. */
static const char *user_name(const struct diag_pystack *ps,
			     const struct diag_pytensor *t)
{
	int uf = diag_pystack_user_frame(ps);
	for (size_t i = 0; uf >= 0 && i < ps->n_tensors; i++) {
		const struct diag_pytensor *u = &ps->tensors[i];
		if (u->frame == uf && u->ptr == t->ptr && u->ndim == t->ndim &&
		    memcmp(u->shape, t->shape, sizeof u->shape) == 0)
			return u->name;
	}
	return NULL;
}

enum diag_pybad_kind diag_pybad_kind_named(const char *name)
{
	static const struct { const char *name; enum diag_pybad_kind kind; }
	kinds[] = {
		{ "index", DIAG_PYBAD_INDEX }, { "class", DIAG_PYBAD_CLASS },
		{ "prob", DIAG_PYBAD_PROB }, { "range01", DIAG_PYBAD_RANGE01 },
	};
	for (size_t i = 0; name && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(name, kinds[i].name) == 0)
			return kinds[i].kind;
	return DIAG_PYBAD_NONE;
}

/* The operator's frame: the innermost with a tensor of the wanted
 * kinds (both an index and a float tensor for index asserts). */
static int operator_frame(const struct diag_pystack *ps, bool need_int)
{
	int last = diag_pystack_user_frame(ps);
	if (last < 0)
		last = (int)ps->n_frames - 1;
	for (int f = 0; f <= last; f++) {
		bool fl = find_tensor(ps, f, false, NULL) != NULL;
		bool in = find_tensor(ps, f, true, NULL) != NULL;
		if (fl && (!need_int || in))
			return f;
	}
	return -1;
}

/* The float tensor subscripted by the index tensor on the frame's own
 * line ("return table[ids]"), or NULL: advanced indexing of its first
 * dimension. */
static const struct diag_pytensor *subscript_source(const struct diag_pystack *ps,
						    int f,
						    const struct diag_pytensor *idx)
{
	const char *line = ps->frames[f].source;
	if (!line || !idx)
		return NULL;
	for (size_t i = 0; i < ps->n_tensors; i++) {
		const struct diag_pytensor *t = &ps->tensors[i];
		if (t->frame != f || !float_dtype(t->dtype))
			continue;
		char pat[300];
		snprintf(pat, sizeof pat, "%s[%s", t->name, idx->name);
		for (const char *p = strstr(line, pat); p; p = strstr(p + 1, pat)) {
			bool word_start = p == line || !(isalnum((unsigned char)p[-1]) ||
							  p[-1] == '_' || p[-1] == '.');
			char after = p[strlen(pat)];
			bool word_end = !(isalnum((unsigned char)after) || after == '_');
			if (word_start && word_end)
				return t;
		}
	}
	return NULL;
}

/* ---- the indexing call on the operator frame's line --------------------
 *
 * gather, scatter and the index_* calls take the indexed dimension as an
 * argument, and the frame's locals hold only the tensors: the dim is read
 * from the call as the line spells it.  The kernels' assertions (PyTorch
 * 2.11) say which family of calls failed:
 *   gather, scatter*  ScatterGatherKernel.cu `idx_dim >= 0 && idx_dim <
 *                     index_size && "..."` (run 5, H200)
 *   index_select      Indexing.cu `srcIndex < srcSelectDimSize` (run 5);
 *                     IndexKernelUtils.cu `ind >=0 && ind < ind_dim_size`
 *   index_add(_)      Indexing.cu `dstIndex < dstAddDimSize` (run 5)
 *   index_copy(_)     IndexKernel.cu `idx >= 0 && idx < self_dim_size &&
 *                     "index_copy_(): index out of bounds"` (PyTorch's
 *                     source; not yet seen on the H200)
 *   index_fill(_)     IndexKernel.cu `idx >= -self_dim_size && idx <
 *                     self_dim_size && "index out of bounds"` (source)
 * The bound is the indexed tensor's size in dim: gather's input, scatter's
 * self (its output), index_select's source, index_add_'s self.
 *
 * Only what the line says exactly is used; anything else gives a reason
 * instead of a guess (docs/python.md, "The bad value"):
 *   - the indexed tensor and the index must be plain names of tensor
 *     locals of the frame (`self.table.index_add_(...)` is not read);
 *   - dim is an integer literal (negative counts from the end), `dim=`
 *     too, or the name of an int local; an expression is not read;
 *   - the index may be wrapped in .view(shape), .reshape(...),
 *     .flatten(...), .unsqueeze(n), .squeeze(...), .contiguous() or
 *     .long(): on a contiguous tensor (checked later for the local) these
 *     keep the elements and their row-major order, so element k of the
 *     index the kernel saw is element k of the local, named in the
 *     local's own shape.  .long() keeps an integer's value (int64 is the
 *     widest).  A .view with a dtype reinterprets the bytes, and .t(),
 *     .permute, .expand, slicing, arithmetic or a copy to the device
 *     change which element is which: none is read.
 *   - one call of the family on the line: two would leave the failing
 *     one unknown. */

enum call_family {
	FAM_NONE, FAM_SCATTER_GATHER, FAM_INDEX_SELECT, FAM_INDEX_ADD,
	FAM_INDEX_COPY, FAM_INDEX_FILL
};

static const struct {
	const char *name;
	enum call_family fam;
} index_calls[] = {
	{ "gather", FAM_SCATTER_GATHER },
	{ "scatter", FAM_SCATTER_GATHER },
	{ "scatter_", FAM_SCATTER_GATHER },
	{ "scatter_add", FAM_SCATTER_GATHER },
	{ "scatter_add_", FAM_SCATTER_GATHER },
	{ "scatter_reduce", FAM_SCATTER_GATHER },
	{ "scatter_reduce_", FAM_SCATTER_GATHER },
	{ "index_select", FAM_INDEX_SELECT },
	{ "index_add", FAM_INDEX_ADD },
	{ "index_add_", FAM_INDEX_ADD },
	{ "index_copy", FAM_INDEX_COPY },
	{ "index_copy_", FAM_INDEX_COPY },
	{ "index_fill", FAM_INDEX_FILL },
	{ "index_fill_", FAM_INDEX_FILL },
};

static enum call_family assert_family(const char *a)
{
	if (strstr(a, "idx_dim"))
		return FAM_SCATTER_GATHER;
	if (strstr(a, "srcSelectDimSize") || strstr(a, "ind_dim_size"))
		return FAM_INDEX_SELECT;
	if (strstr(a, "dstAddDimSize"))
		return FAM_INDEX_ADD;
	if (strstr(a, "index_copy"))
		return FAM_INDEX_COPY;
	if (strstr(a, "self_dim_size"))
		return FAM_INDEX_FILL;
	return FAM_NONE;
}

/* Negative indices wrap where the assertion's lower bound is a negated
 * size (`index >= -sizes[i]`, `idx >= -self_dim_size`); elsewhere
 * (`idx_dim >= 0`, an unsigned dstIndex) a negative one is bad. */
static bool negatives_wrap(const char *a)
{
	return strstr(a, ">= -") || strstr(a, ">=-");
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static bool is_ident(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!ident_char(*s))
			return false;
	return true;
}

/* Past the string literal that starts at p (its quote): the closing
 * quote, or the end of the text. */
static const char *skip_string(const char *p)
{
	char q = *p++;
	while (*p && *p != q)
		p += p[0] == '\\' && p[1] ? 2 : 1;
	return p;
}

enum { LINE_CAP = 512, ARG_CAP = 160, MAX_ARGS = 8 };

/* The line without its comment (a '#' outside a string) and without
 * surrounding blanks; cut at cap. */
static void code_of(const char *line, char *out, size_t cap)
{
	const char *end = line;
	while (*end && *end != '#') {
		if (*end == '\'' || *end == '"')
			end = skip_string(end);
		if (*end)
			end++;
	}
	while (end > line && isspace((unsigned char)end[-1]))
		end--;
	while (line < end && isspace((unsigned char)*line))
		line++;
	size_t n = (size_t)(end - line);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, line, n);
	out[n] = '\0';
}

static void trimmed(const char *s, size_t n, char *out, size_t cap)
{
	while (n && isspace((unsigned char)*s))
		s++, n--;
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n >= cap)
		n = cap - 1;
	memmove(out, s, n); /* out may be s */
	out[n] = '\0';
}

struct call_args {
	int n;
	char kw[MAX_ARGS][32];     /* "" for a positional one */
	char val[MAX_ARGS][ARG_CAP];
};

/* One argument's text: "dim=1" -> kw "dim", val "1". */
static void add_arg(struct call_args *a, const char *s, size_t n)
{
	char *kw = a->kw[a->n], *val = a->val[a->n];
	trimmed(s, n, val, ARG_CAP);
	kw[0] = '\0';
	size_t k = 0;
	while (ident_char(val[k]))
		k++;
	size_t e = k;
	while (val[e] == ' ')
		e++;
	if (k && k < 32 && val[e] == '=' && val[e + 1] != '=') {
		memcpy(kw, val, k);
		kw[k] = '\0';
		memmove(val, val + e + 1, strlen(val + e + 1) + 1);
		trimmed(val, strlen(val), val, ARG_CAP);
	}
	a->n++;
}

/* The arguments of the call whose '(' is at p, split at top-level
 * commas.  Returns false when the list does not close on the line (with
 * open_ok, when not even one argument ended on it: a call that goes on
 * over the next lines keeps those), or holds more than MAX_ARGS. */
static bool split_args_open(const char *p, struct call_args *a, bool open_ok)
{
	memset(a, 0, sizeof *a);
	int depth = 0;
	const char *start = ++p;
	for (; *p; p++) {
		if (*p == '\'' || *p == '"') {
			p = skip_string(p);
			if (!*p)
				return false;
		} else if (*p == '(' || *p == '[' || *p == '{') {
			depth++;
		} else if ((*p == ')' || *p == ']' || *p == '}') && depth) {
			depth--;
		} else if (*p == ')' || (*p == ',' && !depth)) {
			/* an empty one: f() or a trailing comma */
			const char *q = start;
			while (q < p && isspace((unsigned char)*q))
				q++;
			if (q < p) {
				if (a->n >= MAX_ARGS)
					return false;
				add_arg(a, start, (size_t)(p - start));
			}
			if (*p == ')')
				return true;
			start = p + 1;
		}
	}
	return open_ok && a->n > 0;
}

static bool split_args(const char *p, struct call_args *a)
{
	return split_args_open(p, a, false);
}

/* The argument named kw, else the positional one at pos, or NULL. */
static const char *arg(const struct call_args *a, const char *kw, int pos)
{
	int k = 0;
	for (int i = 0; i < a->n; i++)
		if (a->kw[i][0] && strcmp(a->kw[i], kw) == 0)
			return a->val[i];
	for (int i = 0; i < a->n; i++)
		if (!a->kw[i][0] && k++ == pos)
			return a->val[i];
	return NULL;
}

struct index_call {
	const char *op;            /* index_calls[].name */
	char self[ARG_CAP];        /* the indexed tensor's text */
	char dim[ARG_CAP];
	char index[ARG_CAP];
};

/* Where the receiver of the method whose '.' is at p starts: a dotted
 * name with any calls and subscripts in it ("x.float()", "t[0]"). */
static const char *receiver_start(const char *code, const char *p)
{
	const char *r = p;
	while (r > code && r[-1] == ' ')
		r--;
	while (r > code) {
		char c = r[-1];
		if (ident_char(c) || c == '.') {
			r--;
			continue;
		}
		if (c != ')' && c != ']')
			break;
		int depth = 0;
		do {
			r--;
			if (*r == ')' || *r == ']')
				depth++;
			else if (*r == '(' || *r == '[')
				depth--;
		} while (r > code && depth > 0);
		if (depth > 0)
			break;
	}
	return r;
}

/* Finds the calls of the family on the code; fills c from the last one.
 * Returns how many there are, or -1 when one does not close on the line
 * (c->op is then set). */
static int find_calls(const char *code, enum call_family fam,
		      struct index_call *c)
{
	int found = 0;
	for (const char *p = code; *p; p++) {
		if (*p == '\'' || *p == '"') {
			p = skip_string(p);
			if (!*p)
				break;
			continue;
		}
		if (*p != '.')
			continue;
		const char *name = p + 1;
		while (*name == ' ')
			name++;
		const char *e = name;
		while (ident_char(*e))
			e++;
		const char *paren = e;
		while (*paren == ' ')
			paren++;
		size_t n = (size_t)(e - name);
		size_t k = 0;
		while (k < sizeof index_calls / sizeof index_calls[0] &&
		       (index_calls[k].fam != fam ||
			strlen(index_calls[k].name) != n ||
			strncmp(index_calls[k].name, name, n) != 0))
			k++;
		if (*paren != '(' || k == sizeof index_calls / sizeof index_calls[0])
			continue;
		found++;
		c->op = index_calls[k].name;
		/* the receiver: the dotted name before the '.' */
		const char *r = receiver_start(code, p);
		char recv[ARG_CAP];
		trimmed(r, (size_t)(p - r), recv, sizeof recv);
		bool function = strcmp(recv, "torch") == 0 ||
				strcmp(recv, "torch.Tensor") == 0;
		struct call_args a;
		if (!split_args(paren, &a))
			return -1;
		const char *self = function ? arg(&a, "input", 0) : recv;
		const char *dim = arg(&a, "dim", function ? 1 : 0);
		const char *index = arg(&a, "index", function ? 2 : 1);
		snprintf(c->self, sizeof c->self, "%s", self ? self : "");
		snprintf(c->dim, sizeof c->dim, "%s", dim ? dim : "");
		snprintf(c->index, sizeof c->index, "%s", index ? index : "");
		p = e - 1;
	}
	return found;
}

/* Whether a .view's arguments are a shape: no dtype (a .view(dtype)
 * reinterprets the bytes). */
static bool view_of_shape(const char *args)
{
	static const char *const dtypes[] = {
		"torch", "dtype", "long", "int", "int8", "int16", "int32",
		"int64", "uint8", "float", "half", "double", "bool", NULL };
	char one[ARG_CAP];
	for (const char *s = args; *s;) {
		size_t n = strcspn(s, ",");
		trimmed(s, n, one, sizeof one);
		for (int k = 0; dtypes[k]; k++)
			if (strcmp(one, dtypes[k]) == 0 ||
			    strncmp(one, "torch.", 6) == 0)
				return false;
		s += n;
		if (*s)
			s++;
	}
	return true;
}

/* The index's text without the wrappers that keep a contiguous tensor's
 * element order (above): "labels.view(-1, 1)" -> "labels".  Returns
 * false when a wrapper is not one of those. */
static bool unwrap_index(char *s)
{
	static const char *const keep[] = {
		"view", "reshape", "flatten", "unsqueeze", "squeeze",
		"contiguous", "long", NULL };
	for (;;) {
		size_t n = strlen(s);
		if (!n || s[n - 1] != ')')
			return true;
		int depth = 0;
		size_t open = n;
		while (open-- > 0) {
			if (s[open] == ')')
				depth++;
			else if (s[open] == '(' && --depth == 0)
				break;
		}
		if (open >= n)
			return false;
		size_t m = open;
		while (m > 0 && ident_char(s[m - 1]))
			m--;
		if (m == 0 || s[m - 1] != '.')
			return false;
		bool ok = false;
		for (int k = 0; keep[k]; k++)
			ok |= strlen(keep[k]) == open - m &&
			      strncmp(s + m, keep[k], open - m) == 0;
		s[n - 1] = '\0';
		if (!ok || (strncmp(s + m, "view", 4) == 0 &&
			    !view_of_shape(s + open + 1)))
			return false;
		s[m - 1] = '\0';
		trimmed(s, strlen(s), s, ARG_CAP);
	}
}

static const struct diag_pytensor *tensor_named(const struct diag_pystack *ps,
						int frame, const char *name)
{
	for (size_t i = 0; i < ps->n_tensors; i++)
		if (ps->tensors[i].frame == frame &&
		    strcmp(ps->tensors[i].name, name) == 0)
			return &ps->tensors[i];
	return NULL;
}

static bool literal_ll(const char *s, long long *out)
{
	char t[ARG_CAP];
	size_t k = 0;
	for (; *s && k + 1 < sizeof t; s++)
		if (*s != ' ')
			t[k++] = *s;
	t[k] = '\0';
	return parse_ll(t, out);
}

/* The dim of the call: a literal or an int local.  Sets p->why_not. */
static bool call_dim(const struct diag_pystack *ps, int f,
		     const struct index_call *c, const struct diag_pytensor *self,
		     struct diag_pybad_plan *p)
{
	long long d;
	if (!literal_ll(c->dim, &d)) {
		if (!is_ident(c->dim)) {
			text_fit(p->why_buf, sizeof p->why_buf, "%s's dim `%s` "
				 "is an expression, not read here", c->op,
				 c->dim);
			return false;
		}
		if (!int_local(ps, f, c->dim, &d)) {
			snprintf(p->why_buf, sizeof p->why_buf, "%s's dim `%s` "
				 "is no int local of the frame", c->op, c->dim);
			return false;
		}
	}
	if (d < 0)
		d += self->ndim;
	if (d < 0 || d >= self->ndim) {
		snprintf(p->why_buf, sizeof p->why_buf, "%s's dim %s is outside "
			 "the %d dimensions of %s", c->op, c->dim, self->ndim,
			 self->name);
		return false;
	}
	p->dim = d;
	return true;
}

/* The plan from the call on frame f's line.  Returns 0 when the line has
 * no call of the assertion's family (the caller goes on), 1 when planned
 * or when p->why_not says why not. */
static int plan_from_call(const struct diag_pystack *ps, const char *a,
			  struct diag_pybad_plan *p, int f)
{
	enum call_family fam = assert_family(a);
	const char *line = ps->frames[f].source;
	if (fam == FAM_NONE || !line)
		return 0;
	char code[LINE_CAP];
	code_of(line, code, sizeof code);
	struct index_call c = {0};
	int n = find_calls(code, fam, &c);
	if (n == 0)
		return 0;
	p->why_not = p->why_buf;
	if (n < 0 || !c.self[0] || !c.dim[0] || !c.index[0]) {
		snprintf(p->why_buf, sizeof p->why_buf, "%s's arguments are not "
			 "all on the line", c.op);
		return 1;
	}
	if (n > 1) {
		snprintf(p->why_buf, sizeof p->why_buf, "the line has %d %s-like "
			 "calls: which one failed is not known", n, c.op);
		return 1;
	}
	const struct diag_pytensor *self = is_ident(c.self)
		? tensor_named(ps, f, c.self) : NULL;
	if (!self) {
		text_fit(p->why_buf, sizeof p->why_buf, "%s's tensor `%s` is no "
			 "tensor local of the frame", c.op, c.self);
		return 1;
	}
	if (!call_dim(ps, f, &c, self, p))
		return 1;
	char index[ARG_CAP];
	snprintf(index, sizeof index, "%s", c.index);
	const struct diag_pytensor *t = NULL;
	if (unwrap_index(index) && is_ident(index))
		t = tensor_named(ps, f, index);
	if (!t || !int_dtype(t->dtype)) {
		text_fit(p->why_buf, sizeof p->why_buf, "%s's index `%s` is no "
			 "integer tensor local of the frame (or changes the "
			 "order of its elements)", c.op, c.index);
		return 1;
	}
	if (strncmp(t->device, "cuda", 4) != 0) {
		snprintf(p->why_buf, sizeof p->why_buf, "%s's index %s is on %s: "
			 "the kernel read a copy", c.op, t->name, t->device);
		return 1;
	}
	p->why_not = NULL;
	p->t = t;
	p->op = c.op;
	p->src_name = user_name(ps, self) ? user_name(ps, self) : self->name;
	p->bound = self->shape[p->dim];
	p->bound_what = "entries";
	if (negatives_wrap(a))
		p->lo = -p->bound;
	return 1;
}

/* The call of index_put on the code, "x.index_put_(" or
 * "torch.index_put(": the receiver's text (or "torch") in recv, and
 * where its '(' is; NULL when there is none. */
static const char *index_put_call(const char *code, char *recv, size_t cap)
{
	for (const char *q = strstr(code, "index_put"); q;
	     q = strstr(q + 1, "index_put")) {
		const char *e = q + 9;
		if (*e == '_')
			e++;
		while (*e == ' ')
			e++;
		const char *dot = q;
		while (dot > code && dot[-1] == ' ')
			dot--;
		if (*e != '(' || dot == code || dot[-1] != '.' ||
		    (q > code && ident_char(q[-1])))
			continue;
		const char *r = receiver_start(code, dot - 1);
		trimmed(r, (size_t)(dot - 1 - r), recv, cap);
		return e;
	}
	return NULL;
}

/* One index of the tuple: an integer CUDA tensor local of the frame.
 * NULL with p->why_buf set when not. */
static const struct diag_pytensor *tuple_member(const struct diag_pystack *ps,
						int f, const char *text,
						struct diag_pybad_plan *p)
{
	char one[ARG_CAP];
	snprintf(one, sizeof one, "%s", text);
	const struct diag_pytensor *t = unwrap_index(one) && is_ident(one)
		? tensor_named(ps, f, one) : NULL;
	if (!t || !int_dtype(t->dtype) || strncmp(t->device, "cuda", 4) != 0) {
		text_fit(p->why_buf, sizeof p->why_buf, "index_put_'s index "
			 "`%s` is no integer CUDA tensor local of the frame",
			 text);
		return NULL;
	}
	return t;
}

/* index_put_'s indices, a tuple or list of index tensors: the k-th for
 * dimension k of the tensor put into.  0 when the line has no such call,
 * 1 when planned (p->why_not says why not). */
static int plan_tuple_call(const struct diag_pystack *ps,
			   struct diag_pybad_plan *p, int f)
{
	const char *line = ps->frames[f].source;
	char code[LINE_CAP], recv[ARG_CAP];
	if (!line)
		return 0;
	code_of(line, code, sizeof code);
	const char *paren = index_put_call(code, recv, sizeof recv);
	struct call_args a;
	if (!paren)
		return 0;
	p->why_not = p->why_buf;
	/* (its values and accumulate= often go on over the next lines) */
	if (!split_args_open(paren, &a, true)) {
		snprintf(p->why_buf, sizeof p->why_buf, "index_put_'s indices "
			 "are not on the line");
		return 1;
	}
	bool function = strcmp(recv, "torch") == 0;
	const char *self_text = function ? arg(&a, "input", 0) : recv;
	const char *idx = arg(&a, "indices", function ? 1 : 0);
	const struct diag_pytensor *self = self_text && is_ident(self_text)
		? tensor_named(ps, f, self_text) : NULL;
	size_t n = idx ? strlen(idx) : 0;
	if (!self || n < 2 || !strchr("([", idx[0]) ||
	    idx[n - 1] != (idx[0] == '(' ? ')' : ']')) {
		text_fit(p->why_buf, sizeof p->why_buf, "index_put_'s tensor or "
			 "indices are not written out on the line (%s, %s)",
			 self_text ? self_text : "?", idx ? idx : "?");
		return 1;
	}
	char inner[ARG_CAP + 2];
	snprintf(inner, sizeof inner, "(%.*s)", (int)(n - 2), idx + 1);
	struct call_args m;
	if (!split_args(inner, &m) || m.n > self->ndim || m.n < 1) {
		snprintf(p->why_buf, sizeof p->why_buf, "index_put_'s indices "
			 "do not fit %s's %d dimensions", self->name, self->ndim);
		return 1;
	}
	for (int k = 0; k < m.n; k++) {
		const struct diag_pytensor *t = tuple_member(ps, f, m.val[k], p);
		if (!t)
			return 1;
		p->alt[k] = (struct diag_pybad_alt){
			.t = t, .user_name = user_name(ps, t), .dim = k,
			.bound = self->shape[k] };
	}
	p->n_alt = m.n;
	p->why_not = NULL;
	p->t = p->alt[0].t;
	p->dim = 0;
	p->bound = p->alt[0].bound;
	p->op = "index_put_";
	p->src_name = user_name(ps, self) ? user_name(ps, self) : self->name;
	p->bound_what = "entries";
	p->lo = -p->bound; /* advanced indexing: negatives count from the end */
	return 1;
}

/* F.one_hot(y, num_classes=C) on a frame's line, the innermost such
 * frame up to the user's: y must lie in 0..C-1 (the scatter its kernel
 * does checks it).  False when no line has the call; true when planned
 * (p->t set, or p->why_not). */
static bool plan_one_hot(const struct diag_pystack *ps,
			 struct diag_pybad_plan *p)
{
	int last = diag_pystack_user_frame(ps);
	for (int f = 0; f <= last && f < (int)ps->n_frames; f++) {
		const char *line = ps->frames[f].source;
		char code[LINE_CAP];
		if (!line)
			continue;
		code_of(line, code, sizeof code);
		const char *q = strstr(code, "one_hot");
		const char *paren = q ? q + 7 : NULL;
		while (paren && *paren == ' ')
			paren++;
		if (!paren || *paren != '(' || (q > code && ident_char(q[-1])))
			continue;
		struct call_args a;
		p->why_not = p->why_buf;
		if (!split_args(paren, &a)) {
			snprintf(p->why_buf, sizeof p->why_buf, "one_hot's "
				 "arguments are not all on the line");
			return true;
		}
		const char *in = arg(&a, "tensor", 0);
		const char *nc = arg(&a, "num_classes", 1);
		char one[ARG_CAP];
		snprintf(one, sizeof one, "%s", in ? in : "");
		const struct diag_pytensor *t = unwrap_index(one) && is_ident(one)
			? tensor_named(ps, f, one) : NULL;
		long long c;
		if (!t || !int_dtype(t->dtype) ||
		    strncmp(t->device, "cuda", 4) != 0) {
			text_fit(p->why_buf, sizeof p->why_buf, "one_hot's input "
				 "`%s` is no integer CUDA tensor local of the "
				 "frame", in ? in : "?");
			return true;
		}
		if (!nc || !(literal_ll(nc, &c) ||
			     (is_ident(nc) && int_local(ps, f, nc, &c))) ||
		    c <= 0) {
			text_fit(p->why_buf, sizeof p->why_buf, "one_hot's "
				 "num_classes `%s` is no number or int local "
				 "here (-1 takes it from the data: nothing is "
				 "out of range then)", nc ? nc : "?");
			return true;
		}
		p->why_not = NULL;
		p->t = t;
		p->op = "one_hot";
		p->bound = c;
		p->bound_what = "classes";
		p->src_name = NULL;
		return true;
	}
	return false;
}

static void plan_index(const struct diag_pystack *ps, const char *a,
		       struct diag_pybad_plan *p, int f)
{
	static const char *const idx_names[] = {
		"target", "input", "index", "indices", "idx", NULL };
	static const char *const src_names[] = {
		"weight", "self", "input", "source", NULL };
	if (plan_from_call(ps, a, p, f) || plan_tuple_call(ps, p, f))
		return;
	p->t = find_tensor(ps, f, true, idx_names);
	const struct diag_pytensor *src = find_tensor(ps, f, false, src_names);
	if (p->kind == DIAG_PYBAD_CLASS) {
		p->bound_what = "classes";
		/* the kernel skips these labels: they are not bad */
		p->has_ignore = int_local(ps, f, "ignore_index", &p->ignore);
		if (src && src->ndim >= 1)
			p->bound = src->ndim >= 2 ? src->shape[1] : src->shape[0];
		return;
	}
	long long dim = 0;
	bool weight = src && strcmp(src->name, "weight") == 0;
	bool dim_known = int_local(ps, f, "dim", &dim) && src && dim >= 0 &&
			 dim < src->ndim;
	/* Which dimension is indexed (a gather, scatter or index_* call on
	 * the line was planned above): an embedding's rows, a `dim` local,
	 * the first for advanced indexing (x[idx]) or a 1-d tensor.  Else it
	 * is not known, and no element is called bad against a guess. */
	const struct diag_pytensor *sub = subscript_source(ps, f, p->t);
	if (!dim_known && sub) {
		src = sub; /* `src[idx]` on the frame's line: advanced indexing */
		weight = false;
		dim_known = true;
		dim = 0;
	}
	if (!dim_known) {
		dim = 0;
		if (src && src->ndim > 1 && !weight && !strstr(a, "-sizes[")) {
			p->why_not = "the indexed dimension is not known here";
			return;
		}
	}
	if (src && src->ndim > 0)
		p->bound = src->shape[dim];
	p->bound_what = weight ? "rows" : "entries";
	/* Advanced indexing wraps negative indices (its assert says
	 * `index >= -sizes[i]`); gathers and index_select do not. */
	if (negatives_wrap(a))
		p->lo = -p->bound;
}

enum diag_pybad_kind diag_pybad_plan(const struct diag_pystack *ps,
				     const char *assertion,
				     enum diag_pybad_kind kind,
				     struct diag_pybad_plan *p)
{
	memset(p, 0, sizeof *p);
	p->kind = kind;
	if (!assertion)
		assertion = "";
	if (p->kind == DIAG_PYBAD_NONE)
		return p->kind;
	if (!ps || !ps->n_tensors) {
		p->why_not = "the Python stack names no tensor";
		return p->kind;
	}
	bool idx = p->kind == DIAG_PYBAD_CLASS || p->kind == DIAG_PYBAD_INDEX;
	int f = operator_frame(ps, idx);
	/* F.one_hot(y, C): a builtin, whose bound is its argument, not a
	 * tensor's size (no frame holds a float tensor) */
	if (idx && plan_one_hot(ps, p)) {
		f = p->t ? p->t->frame : -1;
		if (!p->t)
			return p->kind;
	} else if (f < 0) {
		p->why_not = idx ? "no frame holds both an index tensor and the "
				   "tensor it indexes"
				 : "no frame holds a floating-point tensor";
		return p->kind;
	}
	if (idx && p->op && strcmp(p->op, "one_hot") == 0) {
		/* planned above */
	} else if (idx) {
		plan_index(ps, assertion, p, f);
		if (p->why_not) {
			p->t = NULL;
			return p->kind;
		}
	} else {
		static const char *const in_names[] = { "input", "probs",
							"self", NULL };
		p->t = find_tensor(ps, f, false, in_names);
	}
	long long numel;
	if (!p->t) {
		p->why_not = "no tensor of the operator fits";
	} else if (!contiguous(p->t, &numel)) {
		p->why_not = "the tensor is not contiguous";
	} else if (idx && p->bound <= 0) {
		p->why_not = "the size it indexes is unknown";
	} else {
		p->user_name = user_name(ps, p->t);
		p->addr = p->t->ptr;
		unsigned long long bytes = (unsigned long long)numel *
					   (unsigned)p->t->elsize;
		p->bytes = bytes > (1u << 20) ? (1u << 20) : (size_t)bytes;
	}
	if (p->why_not)
		p->t = NULL;
	return p->kind;
}

bool diag_pybad_plan_alt(const struct diag_pybad_plan *p, int k,
			 struct diag_pybad_plan *out)
{
	long long numel;
	if (!p || k < 0 || k >= p->n_alt || !contiguous(p->alt[k].t, &numel))
		return false;
	*out = *p;
	out->n_alt = 0;
	out->t = p->alt[k].t;
	out->user_name = p->alt[k].user_name;
	out->dim = p->alt[k].dim;
	out->bound = p->alt[k].bound;
	out->lo = p->lo < 0 ? -out->bound : p->lo;
	out->addr = out->t->ptr;
	unsigned long long bytes = (unsigned long long)numel *
				   (unsigned)out->t->elsize;
	out->bytes = bytes > (1u << 20) ? (1u << 20) : (size_t)bytes;
	return true;
}

static bool read_int(const unsigned char *m, int size, bool is_signed,
		     long long *out)
{
	unsigned long long u = 0;
	for (int i = size - 1; i >= 0; i--) /* little-endian */
		u = (u << 8) | m[i];
	if (is_signed && size < 8 && (u >> (size * 8 - 1)) & 1)
		u |= ~0ULL << (size * 8);
	*out = (long long)u;
	return true;
}

static double half_to_double(unsigned h)
{
	int e = (int)((h >> 10) & 0x1f);
	double m = (double)(h & 0x3ff);
	double v = e == 0 ? ldexp(m, -24)
		 : e == 31 ? (m ? NAN : INFINITY)
			   : ldexp(m + 1024.0, e - 25);
	return (h & 0x8000) ? -v : v;
}

static double read_float(const unsigned char *m, const char *dtype, int size)
{
	unsigned long long u = 0;
	for (int i = size - 1; i >= 0; i--)
		u = (u << 8) | m[i];
	if (size == 8) {
		double d;
		memcpy(&d, &u, sizeof d);
		return d;
	}
	if (size == 4) {
		uint32_t w = (uint32_t)u;
		float fl;
		memcpy(&fl, &w, sizeof fl);
		return fl;
	}
	if (size == 2 && strstr(dtype, "bfloat")) {
		uint32_t w = (uint32_t)u << 16;
		float fl;
		memcpy(&fl, &w, sizeof fl);
		return fl;
	}
	return size == 2 ? half_to_double((unsigned)u) : NAN;
}

/* "ids[2, 17]" for the element at flat index k. */
static void element_name(const struct diag_pybad_plan *p, long long k,
			 char *out, size_t cap)
{
	const struct diag_pytensor *t = p->t;
	long long idx[DIAG_PY_MAX_DIMS];
	for (int i = t->ndim - 1; i >= 0; i--) {
		long long s = t->shape[i] ? t->shape[i] : 1;
		idx[i] = k % s;
		k /= s;
	}
	int n = snprintf(out, cap, "%s[", p->user_name ? p->user_name : t->name);
	for (int i = 0; i < t->ndim && n > 0 && (size_t)n < cap; i++)
		n += snprintf(out + n, cap - (size_t)n, "%s%lld", i ? ", " : "",
			      idx[i]);
	if (n > 0 && (size_t)n < cap)
		snprintf(out + n, cap - (size_t)n, "]");
}

static bool int_bad(const struct diag_pybad_plan *p, long long v)
{
	if (p->has_ignore && v == p->ignore)
		return false;
	return v < p->lo || v >= p->bound;
}

static bool float_bad(const struct diag_pybad_plan *p, double v)
{
	if (p->kind == DIAG_PYBAD_PROB)
		return isnan(v) || isinf(v) || v < 0;
	return isnan(v) || v < 0 || v > 1;
}

static void say_int(const struct diag_pybad_plan *p, const char *el,
		    long long v, char *out, size_t cap)
{
	if (p->kind == DIAG_PYBAD_CLASS)
		snprintf(out, cap, "%s = %lld, the model has %lld classes "
			 "(labels must be 0..%lld)", el, v, p->bound,
			 p->bound - 1);
	else if (p->op && strcmp(p->op, "one_hot") == 0)
		snprintf(out, cap, "class %lld at %s, one_hot's num_classes is "
			 "%lld (classes must be 0..%lld)", v, el, p->bound,
			 p->bound - 1);
	else if (p->op)
		snprintf(out, cap, "index %lld at %s, dim %lld of %s has %lld "
			 "entries (%s's indices must be %lld..%lld)", v, el,
			 p->dim, p->src_name, p->bound, p->op, p->lo,
			 p->bound - 1);
	else if (strcmp(p->bound_what, "rows") == 0)
		snprintf(out, cap, "token id %lld at %s, the embedding has "
			 "%lld rows (ids must be 0..%lld)", v, el, p->bound,
			 p->bound - 1);
	else
		snprintf(out, cap, "index %lld at %s, the indexed dimension "
			 "has %lld entries", v, el, p->bound);
}

int diag_pybad_find(const struct diag_pybad_plan *p, const unsigned char *mem,
		    size_t len, char *out, size_t cap)
{
	if (!p || !p->t || !mem || !out || !cap)
		return -1;
	const struct diag_pytensor *t = p->t;
	bool idx = p->kind == DIAG_PYBAD_CLASS || p->kind == DIAG_PYBAD_INDEX;
	if ((idx && (!int_dtype(t->dtype) || t->elsize > 8)) ||
	    (!idx && !float_dtype(t->dtype))) {
		snprintf(out, cap, "%s is %s, not a type read here", t->name,
			 t->dtype);
		return -1;
	}
	bool is_signed = !strstr(t->dtype, "uint");
	size_t n = len / (size_t)t->elsize;
	char el[128];
	for (size_t k = 0; k < n; k++) {
		const unsigned char *m = mem + k * (size_t)t->elsize;
		if (idx) {
			long long v;
			read_int(m, t->elsize, is_signed, &v);
			if (!int_bad(p, v))
				continue;
			element_name(p, (long long)k, el, sizeof el);
			say_int(p, el, v, out, cap);
			return 1;
		}
		double v = read_float(m, t->dtype, t->elsize);
		if (!float_bad(p, v))
			continue;
		element_name(p, (long long)k, el, sizeof el);
		if (p->kind == DIAG_PYBAD_PROB)
			snprintf(out, cap, "%s = %g: multinomial needs finite, "
				 "non-negative probabilities", el, v);
		else
			snprintf(out, cap, "%s = %g, outside [0, 1]: "
				 "binary_cross_entropy wants probabilities "
				 "(sigmoid first, or use "
				 "binary_cross_entropy_with_logits)", el, v);
		return 1;
	}
	/* The assert says a value is bad: not finding one is no proof that
	 * all are good (the read may have missed it, or the operator's
	 * tensor is another), so the report never says "in range". */
	snprintf(out, cap, "not found: no bad value among the %zu elements "
		 "of %s read%s", n, p->user_name ? p->user_name : t->name,
		 len < p->bytes ? " (the read was cut short)" : "");
	return 0;
}

/* ---- gdb's print of an array (the device memory fallback) ------------ */

static void put_le(unsigned char *out, unsigned long long v, int n)
{
	for (int i = 0; i < n; i++)
		out[i] = (unsigned char)(v >> (8 * i));
}

static bool put_elem(const char **pp, int elsize, bool is_float,
		     unsigned char *el)
{
	char *end;
	errno = 0;
	if (is_float) {
		double d = strtod(*pp, &end);
		if (end == *pp)
			return false;
		if (elsize == 8) {
			memcpy(el, &d, 8);
		} else {
			float f = (float)d;
			memcpy(el, &f, 4);
		}
	} else {
		long long v = strtoll(*pp, &end, 0);
		if (end == *pp || errno)
			return false;
		put_le(el, (unsigned long long)v, elsize);
	}
	*pp = end;
	return true;
}

long diag_gdb_array_bytes(const char *text, int elsize, bool is_float,
			  unsigned char *out, size_t cap)
{
	if (!text || !out || (is_float ? elsize != 4 && elsize != 8
				       : elsize != 1 && elsize != 2 &&
					 elsize != 4 && elsize != 8))
		return -1;
	const char *p = text;
	while (*p == ' ')
		p++;
	if (*p++ != '{')
		return -1;
	size_t n = 0;
	for (;;) {
		while (*p == ' ')
			p++;
		if (strncmp(p, "...", 3) == 0 || *p == '}')
			return (long)n;
		unsigned char el[8];
		if (!put_elem(&p, elsize, is_float, el))
			return -1;
		unsigned long long times = 1;
		if (strncmp(p, " <repeats ", 10) == 0) {
			char *end;
			times = strtoull(p + 10, &end, 10);
			if (strncmp(end, " times>", 7) != 0 || times == 0)
				return -1;
			p = end + 7;
		}
		for (unsigned long long k = 0; k < times; k++) {
			if (n + (size_t)elsize > cap)
				return (long)n;
			memcpy(out + n, el, (size_t)elsize);
			n += (size_t)elsize;
		}
		while (*p == ' ')
			p++;
		if (*p == ',')
			p++;
		else if (*p != '}' && strncmp(p, "...", 3) != 0)
			return -1;
	}
}
