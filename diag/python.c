/* Host-side context of a fault: the user's Python line that launched the
 * kernel, the ATen operator, a kernel name from a launch stub, and source
 * lines read from disk. */
#include "diag/state.h"
#include "cudbg/pystack.h"
#include "cudbg/sanitizer.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void pyframe_set(struct diag *d, struct diag_pyframe *out,
			const struct diag_san_frame *f, char *path)
{
	out->func = f->func;
	out->file = path;
	out->line = f->line;
	out->source = diag_read_source_line(d, path, f->line);
}

/* dir/name when a file of that name is readable in dir (dir may be NULL:
 * this one), kept by d; else NULL. */
static char *file_in(struct diag *d, const char *dir, size_t dlen,
		     const char *name)
{
	char path[4096];
	if (dir && dlen)
		snprintf(path, sizeof path, "%.*s/%s", (int)dlen, dir, name);
	else
		snprintf(path, sizeof path, "%s", name);
	return access(path, R_OK) == 0 ? diag_keep(d, diag_strdup(path)) : NULL;
}

/* The script the program runs: its first argument ending in ".py". */
static const char *script_arg(const struct diag *d)
{
	for (size_t i = 0; d->argv && d->argv[i]; i++) {
		size_t n = strlen(d->argv[i]);
		if (n > 3 && strcmp(d->argv[i] + n - 3, ".py") == 0)
			return d->argv[i];
	}
	return NULL;
}

/* compute-sanitizer's text names a Python frame's file by its base name
 * ("cross_entropy in functional.py:3504"); a memcheck pass stopped before
 * the XML has only that (diag/santext.c).  Such a file is the user's
 * when it is the script the program runs (by name: a replay elsewhere
 * has the script's path in its command line, not the file), beside that
 * script, in a source directory, or here; torch's own files are none of
 * these.  Its path then, kept by d; not found: NULL, taken as a
 * library's, so that no torch line is called the user's. */
static char *bare_user_file(struct diag *d, const char *name)
{
	const char *a = script_arg(d);
	const char *slash = a ? strrchr(a, '/') : NULL;
	if (a && strcmp(slash ? slash + 1 : a, name) == 0)
		return diag_keep(d, diag_strdup(a));
	char *p = a ? file_in(d, slash ? a : NULL,
			      slash ? (size_t)(slash - a) : 0, name) : NULL;
	for (size_t i = 0; !p && i < d->n_src_dirs; i++)
		p = file_in(d, d->src_dirs[i], strlen(d->src_dirs[i]), name);
	return p ? p : file_in(d, NULL, 0, name);
}

/* The path of a Python frame of the user's own code, or NULL. */
static char *user_python_path(struct diag *d, const struct diag_san_frame *f)
{
	if (!f->python || !f->line || diag_py_library_path(f->path))
		return NULL;
	return strchr(f->path, '/') ? f->path : bare_user_file(d, f->path);
}

/* Python frames come last in a host stack, innermost first (compute-
 * sanitizer 2025.3): "cross_entropy" functional.py, "test_case" script:9,
 * "<module>" script:12. */
void diag_python_find(struct diag *d, const struct diag_san_record *r,
		      struct diag_python *out)
{
	memset(out, 0, sizeof *out);
	if (!r)
		return;
	const struct diag_san_frame *inner = NULL, *outer = NULL;
	char *inner_path = NULL, *outer_path = NULL;
	for (size_t i = 0; i < r->n_host; i++) {
		const struct diag_san_frame *f = &r->host[i];
		char *path = user_python_path(d, f);
		if (!path)
			continue;
		if (!inner) {
			inner = f;
			inner_path = path;
		}
		outer = f;
		outer_path = path;
	}
	if (!inner)
		return;
	out->found = true;
	pyframe_set(d, &out->launch, outer, outer_path);
	pyframe_set(d, &out->call, inner, inner_path);
}

static void pyf_set(struct diag *d, struct diag_pyframe *out,
		    const struct diag_pyf *f)
{
	out->func = f->func;
	out->file = f->file;
	out->line = f->line;
	/* the file here, else the text the program read (a replay on
	 * another machine has the same line) */
	out->source = diag_read_source_line(d, f->file, f->line);
	if (!out->source && f->source)
		out->source = diag_strdup(f->source);
}

/* The same two frames from a stack (the live one, a traceback): the
 * innermost and the outermost frame of the user's own code.  The
 * source lines are the caller's to keep (as for diag_python_find). */
void diag_python_of_stack(struct diag *d, const struct diag_pystack *ps,
			  struct diag_python *out)
{
	const struct diag_pyf *inner = NULL, *outer = NULL;
	for (size_t i = 0; i < ps->n_frames; i++) {
		if (ps->frames[i].library || !ps->frames[i].line)
			continue;
		if (!inner)
			inner = &ps->frames[i];
		outer = &ps->frames[i];
	}
	if (!inner)
		return;
	free(out->launch.source);
	free(out->call.source);
	memset(out, 0, sizeof *out);
	out->found = true;
	pyf_set(d, &out->launch, outer);
	pyf_set(d, &out->call, inner);
}

static char *line_of(const char *path, unsigned line)
{
	size_t len;
	char *text = diag_read_small_file(path, 16u << 20, &len);
	if (!text)
		return NULL;
	const char *p = text, *end = text + len;
	for (unsigned n = 1; n < line && p < end; n++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		p = nl ? nl + 1 : end;
	}
	char *out = NULL;
	if (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		while (p < e && isspace((unsigned char)*p))
			p++;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		size_t n = (size_t)(e - p);
		out = diag_strndup(p, n > 300 ? 300 : n);
	}
	free(text);
	return out;
}

/* The path as given, else its basename in each source directory (paths in
 * recordings are rewritten to /src/examples/...). */
char *diag_read_source_line(const struct diag *d, const char *path,
			    unsigned line)
{
	if (!path || !line)
		return NULL;
	char *s = line_of(path, line);
	if (s)
		return s;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	for (size_t i = 0; i < d->n_src_dirs && !s; i++) {
		char buf[4096];
		snprintf(buf, sizeof buf, "%s/%s", d->src_dirs[i], base);
		s = line_of(buf, line);
	}
	return s;
}

static size_t ident_len(const char *s)
{
	size_t n = 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

/* "at::_ops::nll_loss_forward::redispatch(...)" -> "nll_loss_forward":
 * the dispatcher's operator names, the same in every host stack
 * (compute-sanitizer's cuts the at::native names, cuda-gdb's does not). */
static char *ops_in(const char *func)
{
	const char *p = func ? strstr(func, "at::_ops::") : NULL;
	if (!p)
		return NULL;
	p += 10;
	size_t n = ident_len(p);
	return n ? diag_strndup(p, n) : NULL;
}

static char *native_in(const char *func)
{
	const char *p = func ? strstr(func, "at::native::") : NULL;
	if (!p)
		return NULL;
	p += 12;
	size_t n = ident_len(p);
	return n ? diag_strndup(p, n) : NULL;
}

/* The innermost dispatcher operator, and in *outer_out the outermost
 * when it differs (the one the user called: gather_out in embedding).
 * NULL when the stack names none. */
static char *ops_pair(const char *const *funcs, size_t n, char **outer_out)
{
	char *inner = NULL, *outer = NULL;
	for (size_t i = 0; i < n; i++) {
		char *op = ops_in(funcs[i]);
		if (!op)
			continue;
		if (!inner) {
			inner = op;
		} else {
			free(outer);
			outer = op;
		}
	}
	if (!inner || !outer || strcmp(inner, outer) == 0 || !outer_out) {
		free(outer);
		return inner;
	}
	*outer_out = outer;
	return inner;
}

static char *op_of(const char *const *funcs, size_t n, char **outer)
{
	char *op = ops_pair(funcs, n, outer);
	for (size_t i = 0; !op && i < n; i++)
		op = native_in(funcs[i]);
	return op;
}

/* The operator that launched the kernel: from the sanitizer's host
 * stack, taken at the launch itself, else from cuda-gdb's host stack when
 * that is still at this kernel's launch (see diag_host_at_launch; with
 * launch blocking it is).  The dispatcher's names (at::_ops::) first, so
 * every mode names the same operator; an at::native name only when there
 * is none (hand-made stacks, stripped builds). */
char *diag_aten_op(const struct diag_san_record *r,
		   const struct diag_frame *host, size_t n_host, char **outer)
{
	size_t n = r ? r->n_host : n_host;
	const char **funcs = calloc(n ? n : 1, sizeof *funcs);
	if (!funcs)
		return NULL;
	for (size_t i = 0; i < n; i++)
		funcs[i] = r ? r->host[i].func : host[i].func;
	char *op = op_of(funcs, n, outer);
	if (!op && r)
		op = diag_aten_op(NULL, host, n_host, outer);
	free(funcs);
	return op;
}

/* Whether cuda-gdb's host stack at a device stop is the faulting kernel's
 * launch.  Launches are asynchronous: by the time the GPU stops, the host
 * thread is usually further on, e.g. in `.item()`'s cudaStreamSynchronize
 * or loading the next operator's kernel (seen with PyTorch 2.11 on an
 * H200: the embedding's gather kernel faulted while the host was in
 * at::native::sum, in __cudaGetKernel for gpu_reduce_kernel).  A stack at
 * a launch has the kernel's host stub (named like the kernel) or the
 * launch call itself (the stub is often inlined into the operator's
 * template).  A launch call of a later kernel still passes: only
 * CUDA_LAUNCH_BLOCKING=1 rules that out, which the hints say. */
bool diag_host_at_launch(const struct diag_frame *host, size_t n_host,
			 const char *kernel_short)
{
	/* a graph's launch is its kernels' launch: with launch blocking the
	 * host waits in cudaGraphLaunch while they run (graph_stale, run 27
	 * on the H100) */
	static const char *const launch[] = {
		"cudaLaunchKernel", "cuLaunchKernel", "cudaLaunchCooperativeKernel",
		"cuLaunchCooperativeKernel", "__device_stub__", "cudaGraphLaunch",
		"cuGraphLaunch",
	};
	for (size_t i = 0; i < n_host; i++) {
		const char *f = host[i].func;
		if (host[i].device || !f)
			continue;
		if (kernel_short && *kernel_short && strstr(f, kernel_short))
			return true;
		for (size_t j = 0; j < sizeof launch / sizeof launch[0]; j++)
			if (strncmp(f, launch[j], strlen(launch[j])) == 0)
				return true;
	}
	return false;
}

/* "__device_stub__Z8nll_lossPKfPKiPfii" -> "nll_loss";
 * "__device_stub__ZN2ns6kernelEPf" -> "kernel". */
char *diag_stub_kernel(const char *stub)
{
	static const char pre[] = "__device_stub__";
	if (!stub || strncmp(stub, pre, sizeof pre - 1) != 0)
		return NULL;
	const char *p = stub + sizeof pre - 1;
	if (*p == '_')
		p++;
	if (*p++ != 'Z')
		return NULL;
	bool nested = *p == 'N';
	if (nested)
		p++;
	const char *name = NULL;
	size_t name_len = 0;
	while (isdigit((unsigned char)*p)) {
		size_t n = 0;
		while (isdigit((unsigned char)*p) && n < 100000)
			n = n * 10 + (size_t)(*p++ - '0');
		if (n == 0 || strnlen(p, n) < n)
			return NULL;
		name = p;
		name_len = n;
		p += n;
		if (!nested)
			break;
	}
	return name ? diag_strndup(name, name_len) : NULL;
}
