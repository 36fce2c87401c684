/* Pointer provenance and index overflow at an illegal address.
 *
 * Without a GPU call at the stop (docs/provenance.md has that design),
 * what is known is the sanitizer's bad address with its nearest
 * allocation (text output) and the faulting frame's arguments and locals
 * the session already fetched.  From these: is the address near null, a
 * host address, just past or before an allocation (and which pointer of
 * the frame that allocation is), or far from every allocation; and is a
 * 32-bit signed index of the frame negative (an overflow near INT_MIN).
 * The frame's values are the focused thread's: for a warp-level
 * exception that may not be the culprit (lane-unknown), which the hints
 * say. */
#include "diag/state.h"
#include "cudbg/sanitizer.h"
#include "diag/internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

enum {
	NULL_LIMIT = 0x10000,      /* as the null-address fact */
	NEAR_BYTES = 4096,         /* "just past" at most this far ... */
	NEAR_FRACTION = 16,        /* ... or 1/16 of the allocation */
};

/* A pointer's value: "0x7f21e7e00000", maybe followed by gdb's
 * " <error: Cannot access memory ...>" or a symbol in <...>. */
static bool pointer_value(const char *v, uint64_t *out)
{
	if (!v || v[0] != '0' || (v[1] != 'x' && v[1] != 'X'))
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 16);
	if (errno || end == v + 2 || (*end && *end != ' '))
		return false;
	*out = x;
	return true;
}

/* Host-looking addresses on x86-64 Linux: a PIE program's image and brk
 * heap (0x55..-0x56..), or a non-PIE one's below 4 GiB.  Device memory
 * under unified addressing was always at 0x7f.. in the recordings
 * (the tests/fixtures/gpu recordings), the same range as host mmap and stacks,
 * so those are never called host (docs/tool-quirks.md). */
static bool looks_host(uint64_t a)
{
	return (a >= NULL_LIMIT && a < 0x100000000ull) ||
	       (a >= 0x550000000000ull && a < 0x570000000000ull);
}

/* A global (or generic, unnamed) access: __shared__ and __local__
 * addresses are offsets in their own windows, small by nature. */
static bool global_space(const struct diag_san_record *r)
{
	return !r->space || strcmp(r->space, "__global__") == 0;
}

static bool illegal_address(const struct diag_fault *f)
{
	/* a CPU crash through a bad pointer: SIGSEGV or SIGBUS in host code
	 * (its frame's values are fed at a host signal stop) */
	if (f->kind == DIAG_FAULT_HOST_SIGNAL && f->signal_name &&
	    (!strcmp(f->signal_name, "SIGSEGV") ||
	     !strcmp(f->signal_name, "SIGBUS")))
		return true;
	const char *e = f->exception_name;
	if (e && (diag_ci_strstr(e, "Illegal Address") ||
		  diag_ci_strstr(e, "Out-of-range Address")))
		return true;
	const struct diag_san_record *r = f->finding;
	return r && r->kind == DIAG_SAN_PRECISE && r->has_address;
}

/* The frame's pointer whose allocation holds [lo, lo+size). */
static const struct named_value *pointer_into(const struct diag *d,
					      uint64_t lo, uint64_t size)
{
	for (size_t i = 0; i < d->n_vals; i++) {
		uint64_t v;
		if (pointer_value(d->vals[i].value, &v) && v >= lo &&
		    v - lo < size)
			return &d->vals[i];
	}
	return NULL;
}

static void set_var(struct diag_provenance *p, const struct named_value *nv,
		    uint64_t addr)
{
	uint64_t v;
	if (!nv || !pointer_value(nv->value, &v))
		return;
	p->var = nv->name;
	p->var_value = nv->value;
	p->has_offset = true;
	p->offset = (long long)(addr - v);
}

static bool same_dim(struct diag_dim3 a, struct diag_dim3 b)
{
	return a.x == b.x && a.y == b.y && a.z == b.z;
}

/* The frame's values are the finding's thread's (a sanitizer coredump
 * focuses it; a live warp exception may focus another lane). */
static bool values_of_finding(const struct diag_fault *f,
			      const struct diag_san_record *r)
{
	return r->has_who && f->focus.valid &&
	       same_dim(f->focus.thread, r->thread) &&
	       same_dim(f->focus.block, r->block);
}

/* From the sanitizer's exact access. */
static void from_finding(const struct diag *d, const struct diag_fault *f,
			 const struct diag_san_record *r,
			 struct diag_provenance *p)
{
	p->has_address = true;
	p->address = r->address;
	if (r->address < NULL_LIMIT) {
		p->cls = DIAG_PTR_NULL;
		if (values_of_finding(f, r))
			set_var(p, pointer_into(d, 0, NULL_LIMIT), r->address);
		return;
	}
	if (looks_host(r->address)) {
		p->cls = DIAG_PTR_HOST;
		return;
	}
	if (!r->has_alloc)
		return;
	uint64_t dist = (uint64_t)(r->distance < 0 ? -r->distance : r->distance);
	bool near = dist <= NEAR_BYTES || dist <= r->alloc_size / NEAR_FRACTION;
	p->cls = near ? DIAG_PTR_NEAR_ALLOC : DIAG_PTR_WILD;
	if (near)
		set_var(p, pointer_into(d, r->alloc_address,
					r->alloc_size ? r->alloc_size : 1),
			r->address);
}

/* No exact address: a null or host-looking pointer of the frame. */
static void from_values(const struct diag *d, struct diag_provenance *p)
{
	for (size_t i = 0; i < d->n_vals; i++) {
		uint64_t v;
		if (!pointer_value(d->vals[i].value, &v))
			continue;
		enum diag_ptr_class c = v < NULL_LIMIT ? DIAG_PTR_NULL
				      : looks_host(v) ? DIAG_PTR_HOST
						      : DIAG_PTR_UNKNOWN;
		if (c == DIAG_PTR_UNKNOWN)
			continue;
		p->cls = c;
		p->has_address = true;
		p->address = v;
		p->var = d->vals[i].name;
		p->var_value = d->vals[i].value;
		return;
	}
}

/* "int", "@register int", "const @parameter int": a signed 32-bit int. */
static bool int32_type(const char *t)
{
	if (!t)
		return false;
	char buf[64];
	size_t k = 0;
	for (const char *p = t; *p;) {
		while (*p == ' ')
			p++;
		size_t n = 0;
		while (p[n] && p[n] != ' ')
			n++;
		bool skip = (n && p[0] == '@') || (n == 5 && !strncmp(p, "const", 5)) ||
			    (n == 8 && !strncmp(p, "volatile", 8)) ||
			    (n == 6 && !strncmp(p, "signed", 6));
		if (n && !skip) {
			if (k + n + 1 >= sizeof buf)
				return false;
			if (k)
				buf[k++] = ' ';
			memcpy(buf + k, p, n);
			k += n;
		}
		p += n;
	}
	buf[k] = '\0';
	return !strcmp(buf, "int") || !strcmp(buf, "int32_t");
}

/* Whether name occurs in line as a whole identifier; with `indexing`,
 * inside a [...] subscript. */
static bool ident_in(const char *line, const char *name, bool indexing)
{
	size_t n = strlen(name);
	for (const char *p = line; line && (p = strstr(p, name)); p += n) {
		bool before = p > line && (isalnum((unsigned char)p[-1]) || p[-1] == '_');
		bool after = isalnum((unsigned char)p[n]) || p[n] == '_';
		if (before || after)
			continue;
		if (!indexing)
			return true;
		int depth = 0;
		for (const char *q = line; q < p; q++)
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
		if (depth > 0)
			return true;
	}
	return false;
}

/* The most negative signed 32-bit integer of the frame that the faulting
 * line uses: below INT_MIN / 2 (a wrapped product or sum) anywhere in the
 * line, or any negative value as a subscript (x[i] with i < 0; a stencil's
 * k = -1 in x[i + k] counts too, the hint says both readings).  With no
 * line to read, only one below INT_MIN / 2. */
static void find_overflow(const struct diag *d, struct diag_provenance *p)
{
	long long best = 0;
	for (size_t i = 0; i < d->n_vals; i++) {
		const struct named_value *nv = &d->vals[i];
		char *end;
		errno = 0;
		long long v = strtoll(nv->value, &end, 10);
		if (errno || *end || end == nv->value || v >= 0 ||
		    v < INT_MIN || !int32_type(nv->type))
			continue;
		bool wrapped = v <= INT_MIN / 2;
		bool used = p->line_text ? ident_in(p->line_text, nv->name, !wrapped)
					 : wrapped;
		if (!used || v >= best)
			continue;
		best = v;
		p->index_var = nv->name;
		p->index_value = nv->value;
		p->index_type = nv->type;
	}
}

/* The two element sizes a wrapped index is tried with: the access's own
 * (buf[i] for T *buf), then one byte (an offset computed in int and added
 * to a char pointer, as int_overflow.cu's buf[off] is). */
static bool wrap_for(const struct diag_san_record *r, unsigned elem,
		     struct diag_san_wrap *w)
{
	const uint64_t span = (uint64_t)1 << 32;
	uint64_t before = r->alloc_address - r->address;
	if (before % elem)
		return false;
	uint64_t d = before / elem;          /* -wrapped index */
	if (d == 0 || d > span / 2)          /* wrapped: INT_MIN..-1 */
		return false;
	uint64_t t = span - d;               /* the index it should be */
	if (t > r->alloc_size / elem || t * elem >= r->alloc_size)
		return false;
	w->index = -(long long)d;
	w->true_index = (long long)t;
	w->elem = elem;
	return true;
}

bool diag_san_index_wrap(const struct diag_san_record *r,
			 struct diag_san_wrap *w)
{
	if (!r || r->kind != DIAG_SAN_PRECISE || !r->has_address ||
	    !r->has_alloc || !global_space(r) || r->address >= r->alloc_address)
		return false;
	/* an access size the sanitizer prints: 1..16 bytes */
	if (r->size && r->size <= 16 && wrap_for(r, r->size, w))
		return true;
	return r->size != 1 && wrap_for(r, 1, w);
}

/* The one subscript of a source line ("buf[off] = tag;" gives "off"),
 * without a trailing // comment; NULL when it has none or several
 * (a[i][j], x[i] = y[j]): the hint then leaves its subscript line out. */
static char *one_subscript(const char *line)
{
	if (!line)
		return NULL;
	const char *end = strstr(line, "//");
	if (!end)
		end = line + strlen(line);
	const char *open = NULL, *close = NULL;
	int depth = 0;
	for (const char *q = line; q < end; q++) {
		if (*q == '[' && depth++ == 0) {
			if (open)
				return NULL;
			open = q;
		} else if (*q == ']' && depth > 0 && --depth == 0) {
			close = q;
		}
	}
	if (!open || !close || depth)
		return NULL;
	const char *a = open + 1, *b = close;
	while (a < b && isspace((unsigned char)*a))
		a++;
	while (b > a && isspace((unsigned char)b[-1]))
		b--;
	return b > a && b - a <= 80 ? diag_strndup(a, (size_t)(b - a)) : NULL;
}

/* No negative int of the frame (none fetched: the memcheck pass alone,
 * or a release build's register-only locals), but the address shows the
 * wrap. */
static void find_wrap(struct diag *d, const struct diag_san_record *r,
		      struct diag_provenance *p)
{
	struct diag_san_wrap w;
	if (p->index_var || !diag_san_index_wrap(r, &w))
		return;
	p->wrap = true;
	p->wrap_index = w.index;
	p->wrap_true = w.true_index;
	p->wrap_elem = w.elem;
	p->wrap_expr = diag_keep(d, one_subscript(p->line_text));
}

void diag_provenance(struct diag *d, struct diag_fault *f)
{
	struct diag_provenance *p = &f->prov;
	memset(p, 0, sizeof *p);
	if (!illegal_address(f))
		return;
	const struct diag_san_record *r = f->finding;
	if (r && r->kind == DIAG_SAN_PRECISE && r->has_address) {
		if (global_space(r))
			from_finding(d, f, r, p);
	} else {
		from_values(d, p);
	}
	const char *path = f->where.fullname ? f->where.fullname : f->where.file;
	p->line_text = diag_keep(d, diag_read_source_line(d, path, f->where.line));
	find_overflow(d, p);
	find_wrap(d, r, p);
	f->flags[DIAG_F_POINTER_NULL] = p->cls == DIAG_PTR_NULL && p->var;
	/* (in a host crash every pointer is a host one: nothing to say) */
	f->flags[DIAG_F_HOST_ADDRESS] = p->cls == DIAG_PTR_HOST &&
					f->kind != DIAG_FAULT_HOST_SIGNAL;
	f->flags[DIAG_F_ADDRESS_WILD] = p->cls == DIAG_PTR_WILD;
	f->flags[DIAG_F_INDEX_OVERFLOW] = p->index_var != NULL;
	f->flags[DIAG_F_INDEX_WRAP] = p->wrap;
}
