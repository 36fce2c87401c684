/* The Python stack read from the stopped process's memory
 * (include/cudbg/pymem.h). */
#include "cudbg/pymem.h"
#include "cudbg/base.h"
#include "cudbg/diag.h"
#include "diag/internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Byte offsets of what is read, per minor version: offsetof() on each
 * version's own headers (3.10.13, 3.11.7, 3.12.1, 3.13.0 and Debian's
 * 3.11.2; docs/python-memory.md has the program).  A field of 0 that
 * cannot be at 0 means "not in this version". */
struct layout {
	unsigned minor;
	uint32_t rt_initialized;    /* _PyRuntime.initialized (an int) */
	uint32_t rt_interp_head;    /* _PyRuntime.interpreters.head */
	uint32_t is_threads_head;   /* interp->threads.head (tstate_head) */
	uint32_t ts_next;           /* tstate->next */
	uint32_t ts_thread_id;      /* tstate->thread_id (pthread_t) */
	uint32_t ts_native_id;      /* tstate->native_thread_id; 0: none */
	uint32_t ts_frame;          /* tstate->frame / cframe / current_frame */
	int32_t cf_current;         /* cframe->current_frame; -1: ts_frame
				     * points at the frame itself */
	uint32_t fr_code;           /* f_code / f_executable */
	uint32_t fr_previous;       /* f_back / previous */
	uint32_t fr_instr;          /* prev_instr / instr_ptr; 0: 3.10 */
	uint32_t fr_lasti;          /* 3.10's int f_lasti; 0: none */
	uint32_t fr_owner;          /* owner (a char); 0: none */
	int cstack_owner;           /* FRAME_OWNED_BY_CSTACK; -1: none */
	uint32_t co_filename, co_name, co_firstlineno, co_linetable;
	uint32_t co_code;           /* co_code_adaptive; 0: 3.10 */
	uint32_t str_ascii_data;    /* sizeof(PyASCIIObject) */
	uint32_t str_compact_data;  /* sizeof(PyCompactUnicodeObject) */
};

static const struct layout layouts[] = {
	{ .minor = 10, .rt_initialized = 12, .rt_interp_head = 32, .is_threads_head = 8,
	  .ts_next = 8, .ts_thread_id = 176, .ts_native_id = 0,
	  .ts_frame = 24, .cf_current = -1, .fr_code = 32,
	  .fr_previous = 24, .fr_instr = 0, .fr_lasti = 96, .fr_owner = 0,
	  .cstack_owner = -1, .co_filename = 104, .co_name = 112,
	  .co_firstlineno = 40, .co_linetable = 120, .co_code = 0,
	  .str_ascii_data = 48, .str_compact_data = 72 },
	{ .minor = 11, .rt_initialized = 16, .rt_interp_head = 40, .is_threads_head = 16,
	  .ts_next = 8, .ts_thread_id = 152, .ts_native_id = 160,
	  .ts_frame = 56, .cf_current = 8, .fr_code = 32,
	  .fr_previous = 48, .fr_instr = 56, .fr_lasti = 0, .fr_owner = 69,
	  .cstack_owner = -1, .co_filename = 112, .co_name = 120,
	  .co_firstlineno = 72, .co_linetable = 136, .co_code = 184,
	  .str_ascii_data = 48, .str_compact_data = 72 },
	{ .minor = 12, .rt_initialized = 16, .rt_interp_head = 40, .is_threads_head = 72,
	  .ts_next = 8, .ts_thread_id = 136, .ts_native_id = 144,
	  .ts_frame = 56, .cf_current = 0, .fr_code = 0,
	  .fr_previous = 8, .fr_instr = 56, .fr_lasti = 0, .fr_owner = 70,
	  .cstack_owner = 3, .co_filename = 112, .co_name = 120,
	  .co_firstlineno = 68, .co_linetable = 136, .co_code = 192,
	  .str_ascii_data = 40, .str_compact_data = 56 },
	{ .minor = 13, .rt_initialized = 600, .rt_interp_head = 632, .is_threads_head = 7344,
	  .ts_next = 8, .ts_thread_id = 152, .ts_native_id = 160,
	  .ts_frame = 72, .cf_current = -1, .fr_code = 0,
	  .fr_previous = 8, .fr_instr = 56, .fr_lasti = 0, .fr_owner = 70,
	  .cstack_owner = 3, .co_filename = 112, .co_name = 120,
	  .co_firstlineno = 68, .co_linetable = 136, .co_code = 200,
	  .str_ascii_data = 40, .str_compact_data = 56 },
};

enum {
	MAX_THREADS = 512,     /* thread states looked at */
	MAX_CHARS = 1024,      /* of a file or function name */
	MAX_TABLE = 1 << 20,   /* bytes of a line table */
	CACHE_SLOTS = 64,
	CACHE_BLOCK = 256,     /* bytes read at once (objects are small) */
};

static const struct layout *layout_of(unsigned version)
{
	if ((version >> 24) != 3)
		return NULL;
	unsigned minor = (version >> 16) & 0xff;
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		if (layouts[i].minor == minor)
			return &layouts[i];
	return NULL;
}

bool diag_pymem_supported(unsigned version)
{
	return layout_of(version) != NULL;
}

long diag_pymem_initialized_offset(unsigned version)
{
	const struct layout *l = layout_of(version);
	return l ? (long)l->rt_initialized : -1;
}

/* ---- reading, through a small cache: one debugger round trip reads a
 * whole object header, and a recursive stack reads the same code objects
 * again ---- */

struct block {
	uint64_t addr;
	size_t len;
	unsigned char b[CACHE_BLOCK];
};

struct mem {
	diag_pymem_read_fn read;
	void *ctx;
	struct block slot[CACHE_SLOTS];
	size_t used, next;
	uint64_t failed_at;     /* the last address that could not be read */
};

static bool cached(const struct mem *m, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; i < m->used; i++) {
		const struct block *k = &m->slot[i];
		if (addr >= k->addr && len <= k->len &&
		    addr - k->addr <= k->len - len) {
			memcpy(buf, k->b + (addr - k->addr), len);
			return true;
		}
	}
	return false;
}

static int mem_read(struct mem *m, uint64_t addr, void *buf, size_t len)
{
	if (len == 0)
		return 0;
	if (addr == 0 || addr + len < addr) {
		m->failed_at = addr;
		return -1;
	}
	if (cached(m, addr, buf, len))
		return 0;
	if (len <= CACHE_BLOCK) {
		struct block *k = &m->slot[m->next];
		/* A whole block first; an object near the end of a mapping
		 * is read exactly. */
		size_t want = CACHE_BLOCK;
		if (m->read(m->ctx, addr, k->b, want) != 0) {
			want = len;
			if (m->read(m->ctx, addr, k->b, want) != 0) {
				m->failed_at = addr;
				return -1;
			}
		}
		k->addr = addr;
		k->len = want;
		m->next = (m->next + 1) % CACHE_SLOTS;
		if (m->used < CACHE_SLOTS)
			m->used++;
		memcpy(buf, k->b, len);
		return 0;
	}
	if (m->read(m->ctx, addr, buf, len) != 0) {
		m->failed_at = addr;
		return -1;
	}
	return 0;
}

static int read_u64(struct mem *m, uint64_t addr, uint64_t *out)
{
	unsigned char b[8];
	if (mem_read(m, addr, b, 8) < 0)
		return -1;
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | b[i];
	*out = v;
	return 0;
}

static int read_i32(struct mem *m, uint64_t addr, int32_t *out)
{
	unsigned char b[4];
	if (mem_read(m, addr, b, 4) < 0)
		return -1;
	*out = (int32_t)((uint32_t)b[0] | (uint32_t)b[1] << 8 |
			 (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24);
	return 0;
}

/* ---- objects ---- */

/* A code point as UTF-8 (base's encoder); one that cannot be (a NUL, a
 * surrogate, past U+10FFFF) as '?'. */
static void put_utf8(char *out, size_t *n, uint32_t c)
{
	if (c == 0 || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		c = '?';
	*n += utf8_encode(c, out + *n);
}

/* A str object as UTF-8 (malloc'd), or NULL when it is not a compact
 * string of a sane length (the only kind code objects hold). */
static char *read_str(struct mem *m, const struct layout *L, uint64_t obj)
{
	uint64_t length;
	int32_t state;
	if (read_u64(m, obj + 16, &length) < 0 ||
	    read_i32(m, obj + 32, &state) < 0)
		return NULL;
	unsigned kind = ((uint32_t)state >> 2) & 7;
	bool compact = ((uint32_t)state >> 5) & 1;
	bool ascii = ((uint32_t)state >> 6) & 1;
	if (!compact || length > MAX_CHARS ||
	    (kind != 1 && kind != 2 && kind != 4) || (ascii && kind != 1))
		return NULL;
	uint64_t data = obj + (ascii ? L->str_ascii_data : L->str_compact_data);
	size_t n = (size_t)length;
	unsigned char *raw = malloc(n * kind + 1);
	char *out = malloc(n * 4 + 1);
	if (!raw || !out || mem_read(m, data, raw, n * kind) < 0) {
		free(raw);
		free(out);
		return NULL;
	}
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *p = raw + i * kind;
		uint32_t c = kind == 1 ? p[0] : kind == 2
			? (uint32_t)p[0] | (uint32_t)p[1] << 8
			: (uint32_t)p[0] | (uint32_t)p[1] << 8 |
			  (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		put_utf8(out, &w, c);
	}
	out[w] = '\0';
	free(raw);
	return out;
}

/* A bytes object's contents (malloc'd, *len set), or NULL. */
static unsigned char *read_bytes_obj(struct mem *m, uint64_t obj, size_t *len)
{
	uint64_t size;
	if (read_u64(m, obj + 16, &size) < 0 || size > MAX_TABLE)
		return NULL;
	unsigned char *b = malloc(size ? size : 1);
	if (!b || mem_read(m, obj + 32, b, size) < 0) {
		free(b);
		return NULL;
	}
	*len = size;
	return b;
}

/* ---- line tables ---- */

/* 3.11+: an unsigned varint of 6-bit chunks, bit 6 meaning more. */
static bool varint(const unsigned char *t, size_t len, size_t *i,
		   unsigned *out)
{
	unsigned v = 0;
	for (unsigned shift = 0; *i < len && shift <= 24; shift += 6) {
		unsigned char b = t[(*i)++];
		v |= (unsigned)(b & 63) << shift;
		if (!(b & 64)) {
			*out = v;
			return true;
		}
	}
	return false;
}

static bool svarint(const unsigned char *t, size_t len, size_t *i, int *out)
{
	unsigned v;
	if (!varint(t, len, i, &v))
		return false;
	*out = (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
	return true;
}

/* The location table (CPython's Objects/locations.md): entries of one
 * byte 1CCCCLLL (code C, L+1 code units) and the code's operands. */
static int line_311(const unsigned char *t, size_t len, int first, long index)
{
	long line = first, pos = 0;
	size_t i = 0;
	while (i < len) {
		unsigned char b = t[i++];
		if (!(b & 0x80))
			return -1;
		unsigned code = (b >> 3) & 15, n = (b & 7) + 1;
		bool none = false;
		int d;
		unsigned skip;
		switch (code) {
		case 15: /* no location */
			none = true;
			break;
		case 14: /* long form: line, end line, column, end column */
			if (!svarint(t, len, &i, &d) || !varint(t, len, &i, &skip) ||
			    !varint(t, len, &i, &skip) || !varint(t, len, &i, &skip))
				return -1;
			line += d;
			break;
		case 13: /* no column */
			if (!svarint(t, len, &i, &d))
				return -1;
			line += d;
			break;
		case 10: case 11: case 12: /* one line: delta, two columns */
			line += (long)code - 10;
			i += 2;
			break;
		default: /* short form: same line, one column byte */
			i += 1;
			break;
		}
		if (i > len)
			return -1;
		if (index >= pos && index < pos + (long)n)
			return none || line < 0 || line > 100000000 ? -1 : (int)line;
		pos += n;
	}
	return -1;
}

/* 3.10 (PEP 626): pairs (byte delta, signed line delta); -128 means no
 * line for that range. */
static int line_310(const unsigned char *t, size_t len, int first, long index)
{
	if (index < 0)
		return first;
	long addr = index * 2, line = first, end = 0;
	for (size_t i = 0; i + 1 < len; i += 2) {
		long start = end;
		end += t[i];
		signed char ld = (signed char)t[i + 1];
		long here = -1;
		if (ld != -128) {
			line += ld;
			here = line;
		}
		if (addr >= start && addr < end)
			return here < 0 || here > 100000000 ? -1 : (int)here;
	}
	return -1;
}

int diag_pymem_line(unsigned minor, const unsigned char *table, size_t len,
		    int first, long index)
{
	if (!table)
		return -1;
	return minor >= 11 ? line_311(table, len, first, index)
			   : line_310(table, len, first, index);
}

/* ---- the walk ---- */

static void say_text(char *why, size_t cap, const char *text)
{
	snprintf(why, cap, "%s", text);
}

/* The chosen thread state, or 0 (why says). */
static uint64_t pick_thread(struct mem *m, const struct layout *L,
			    const struct diag_pymem_syms *s,
			    const struct diag_pymem_thread *want, char *why,
			    size_t cap)
{
	uint64_t interp, ts;
	if (read_u64(m, s->runtime + L->rt_interp_head, &interp) < 0) {
		snprintf(why, cap, "_PyRuntime at 0x%llx is not readable",
		    (unsigned long long)s->runtime);
		return 0;
	}
	if (interp == 0) {
		say_text(why, cap, "the interpreter is not running (no "
			 "interpreter state)");
		return 0;
	}
	if (read_u64(m, interp + L->is_threads_head, &ts) < 0 || ts == 0) {
		snprintf(why, cap, "the interpreter at 0x%llx has no readable "
		    "thread state", (unsigned long long)interp);
		return 0;
	}
	uint64_t last = 0;
	for (int k = 0; ts && k < MAX_THREADS; k++) {
		uint64_t tid = 0, native = 0, next;
		if (read_u64(m, ts + L->ts_thread_id, &tid) < 0 ||
		    (L->ts_native_id &&
		     read_u64(m, ts + L->ts_native_id, &native) < 0) ||
		    read_u64(m, ts + L->ts_next, &next) < 0)
			break;
		if (want && ((want->lwp > 0 && L->ts_native_id &&
			      native == (uint64_t)want->lwp) ||
			     (want->pthread && tid == want->pthread)))
			return ts;
		last = ts;
		ts = next == ts ? 0 : next;
	}
	if (!last)
		snprintf(why, cap, "the thread state list at 0x%llx is not readable",
		    (unsigned long long)interp);
	return last;
}

static uint64_t first_frame(struct mem *m, const struct layout *L,
			    uint64_t ts)
{
	uint64_t p;
	if (read_u64(m, ts + L->ts_frame, &p) < 0)
		return 0;
	if (L->cf_current < 0 || p == 0)
		return p;
	uint64_t fr;
	return read_u64(m, p + (uint64_t)L->cf_current, &fr) < 0 ? 0 : fr;
}

/* The instruction index of a frame in code units; -1 before the first. */
static int frame_index(struct mem *m, const struct layout *L, uint64_t fr,
		       uint64_t code, long *index)
{
	if (L->fr_lasti) {
		int32_t lasti;
		if (read_i32(m, fr + L->fr_lasti, &lasti) < 0)
			return -1;
		*index = lasti;
		return 0;
	}
	uint64_t instr;
	if (read_u64(m, fr + L->fr_instr, &instr) < 0)
		return -1;
	uint64_t start = code + L->co_code;
	*index = instr >= start && instr - start < (1u << 30)
		 ? (long)((instr - start) / 2) : -1;
	return 0;
}

static int add_frame(struct diag_pystack *ps, char *file, char *func,
		     int line)
{
	if (!ps->frames &&
	    !(ps->frames = calloc(DIAG_PY_MAX_FRAMES, sizeof *ps->frames)))
		return -1;
	struct diag_pyf *f = &ps->frames[ps->n_frames++];
	f->file = file;
	f->func = func;
	f->line = line > 0 ? (unsigned)line : 0;
	f->library = diag_py_library_path(file);
	return 0;
}

/* One frame's code object into ps.  0 added, 1 skipped (not a code
 * object: a 3.13 frame of C), -1 failed. */
static int read_code(struct mem *m, const struct layout *L,
		     const struct diag_pymem_syms *s, uint64_t fr,
		     uint64_t code, struct diag_pystack *ps)
{
	uint64_t type, fn, nm, lt;
	int32_t first;
	if (read_u64(m, code + 8, &type) < 0)
		return -1;
	if (s->code_type && type != s->code_type)
		return L->minor >= 13 ? 1 : -1;
	long index;
	if (read_u64(m, code + L->co_filename, &fn) < 0 ||
	    read_u64(m, code + L->co_name, &nm) < 0 ||
	    read_u64(m, code + L->co_linetable, &lt) < 0 ||
	    read_i32(m, code + L->co_firstlineno, &first) < 0 ||
	    frame_index(m, L, fr, code, &index) < 0)
		return -1;
	size_t tlen = 0;
	unsigned char *table = read_bytes_obj(m, lt, &tlen);
	int line = table ? diag_pymem_line(L->minor, table, tlen, first, index)
			 : -1;
	free(table);
	char *file = read_str(m, L, fn), *func = read_str(m, L, nm);
	if (!file || !func || add_frame(ps, file, func, line) < 0) {
		free(file);
		free(func);
		return -1;
	}
	return 0;
}

static int walk_frames(struct mem *m, const struct layout *L,
		       const struct diag_pymem_syms *s, uint64_t fr,
		       struct diag_pystack *ps, char *why, size_t cap)
{
	for (int k = 0; fr && ps->n_frames < DIAG_PY_MAX_FRAMES && k < 4096;
	     k++) {
		uint64_t code, prev;
		if (read_u64(m, fr + L->fr_code, &code) < 0 ||
		    read_u64(m, fr + L->fr_previous, &prev) < 0) {
			snprintf(why, cap, "the frame at 0x%llx is not readable",
			    (unsigned long long)fr);
			return -1;
		}
		unsigned char owner = 0;
		if (L->fr_owner && mem_read(m, fr + L->fr_owner, &owner, 1) < 0)
			return -1;
		if (L->cstack_owner < 0 || owner != L->cstack_owner) {
			int rc = read_code(m, L, s, fr, code, ps);
			if (rc < 0) {
				snprintf(why, cap, "the code object at 0x%llx is not "
				    "readable (not a code object: another Python "
				    "build?)", (unsigned long long)code);
				return -1;
			}
		}
		fr = prev == fr ? 0 : prev;
	}
	return 0;
}

int diag_pymem_stack(diag_pymem_read_fn read, void *ctx,
		     const struct diag_pymem_syms *s,
		     const struct diag_pymem_thread *want,
		     struct diag_pystack *out, char *why, size_t cap)
{
	memset(out, 0, sizeof *out);
	char own[8];
	if (!why || cap == 0) {
		why = own;
		cap = sizeof own;
	}
	why[0] = '\0';
	const struct layout *L = layout_of(s->version);
	if (!L) {
		snprintf(why, cap, "Python %u.%u is not one this reader "
				 "knows (3.10 to 3.13)", s->version >> 24,
				 (s->version >> 16) & 0xff);
		return -1;
	}
	struct mem *m = calloc(1, sizeof *m);
	if (!m) {
		say_text(why, cap, "out of memory");
		return -1;
	}
	m->read = read;
	m->ctx = ctx;
	int rc = -1;
	uint64_t ts = pick_thread(m, L, s, want, why, cap);
	if (ts) {
		uint64_t fr = first_frame(m, L, ts);
		rc = walk_frames(m, L, s, fr, out, why, cap);
		if (rc == 0 && out->n_frames == 0) {
			snprintf(why, cap, "the thread state at 0x%llx has no Python "
			    "frame (the thread is not running Python code)",
			    (unsigned long long)ts);
			rc = -1;
		}
	}
	free(m);
	if (rc < 0)
		diag_pystack_free(out);
	return rc;
}
