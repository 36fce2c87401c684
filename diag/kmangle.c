/* A kernel's launch stub from its assertion line's signature: the
 * Itanium C++ mangled name of "void histogram(const int *, int, int *,
 * int, int)" is _Z9histogramPKiiPiii, and nvcc's host stub of that
 * kernel is __device_stub__Z9histogramPKiiPiii (the H200's XML reports,
 * the corpus XML reports in tests/fixtures/gpu).  The program's binary holds that
 * symbol only when the function is a __global__ kernel, so finding it
 * confirms the kernel where the sanitizer's text hides the stub and a
 * release build shows no host wrapper frame (release_device_assert, run
 * 21).
 *
 * Only what such signatures hold is mangled: an unqualified, untemplated
 * name and parameters of builtin types under pointers and const or
 * volatile, with the ABI's substitutions (PfS_ for float *, float *).
 * Anything else is no name: the caller then waits for the XML, which
 * names the stub itself. */
#include "diag/internal.h"

#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum { MAX_SUBS = 32, MAX_TYPE = 64 };

struct mangler {
	char *out;
	size_t cap, n;
	bool ok;
	char subs[MAX_SUBS][MAX_TYPE]; /* substitution candidates, in order */
	int nsubs;
};

static void put(struct mangler *m, const char *s, size_t len)
{
	if (!m->ok || m->n + len >= m->cap) {
		m->ok = false;
		return;
	}
	memcpy(m->out + m->n, s, len);
	m->n += len;
	m->out[m->n] = '\0';
}

/* S_, S0_, S1_, ... S9_, SA_ ... (base 36, upper case) */
static void put_sub(struct mangler *m, int k)
{
	char b[16] = "S";
	size_t n = 1;
	if (k > 0) {
		char digits[8];
		size_t d = 0;
		for (unsigned v = (unsigned)(k - 1);; v /= 36) {
			digits[d++] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[v % 36];
			if (v < 36)
				break;
		}
		while (d)
			b[n++] = digits[--d];
	}
	b[n++] = '_';
	put(m, b, n);
}

/* c: a type in canonical form, outermost first: P (pointer), K, V
 * (qualifiers), then one builtin code ("PKi": pointer to const int). */
static void encode(struct mangler *m, const char *c)
{
	size_t len = strlen(c);
	if (len == 1) {
		put(m, c, 1);
		return;
	}
	for (int i = 0; i < m->nsubs; i++)
		if (strcmp(m->subs[i], c) == 0) {
			put_sub(m, i);
			return;
		}
	size_t q = c[0] == 'P' ? 1 : strspn(c, "VK");
	put(m, c, q);
	encode(m, c + q);
	if (m->nsubs < MAX_SUBS && len < MAX_TYPE)
		memcpy(m->subs[m->nsubs++], c, len + 1);
	else
		m->ok = false;
}

static const struct { const char *words; char code; } builtins[] = {
	{ "void", 'v' }, { "bool", 'b' }, { "char", 'c' },
	{ "signed char", 'a' }, { "unsigned char", 'h' },
	{ "short", 's' }, { "unsigned short", 't' },
	{ "int", 'i' }, { "unsigned int", 'j' }, { "unsigned", 'j' },
	{ "long", 'l' }, { "unsigned long", 'm' },
	{ "long long", 'x' }, { "unsigned long long", 'y' },
	{ "float", 'f' }, { "double", 'd' },
	/* typedefs that an assertion line may print as written (x86-64) */
	{ "size_t", 'm' }, { "int8_t", 'a' }, { "uint8_t", 'h' },
	{ "int16_t", 's' }, { "uint16_t", 't' }, { "int32_t", 'i' },
	{ "uint32_t", 'j' }, { "int64_t", 'l' }, { "uint64_t", 'm' },
};

static char builtin_code(const char *words)
{
	for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
		if (strcmp(builtins[i].words, words) == 0)
			return builtins[i].code;
	return 0;
}

/* One parameter, "const int *", "float *__restrict__", "unsigned char",
 * into its canonical form (top-level qualifiers dropped, as the ABI
 * does); false when it is no builtin under pointers. */
static bool param_type(const char *p, size_t len, char *c, size_t cap)
{
	char base[64] = "";
	size_t nb = 0;
	bool base_const = false, base_volatile = false, star = false;
	/* levels, innermost first: 'P' then its qualifiers */
	char levels[MAX_TYPE];
	size_t nl = 0;
	for (size_t i = 0; i < len;) {
		if (isspace((unsigned char)p[i])) {
			i++;
			continue;
		}
		if (p[i] == '*') {
			if (nl + 1 >= sizeof levels)
				return false;
			levels[nl++] = 'P';
			star = true;
			i++;
			continue;
		}
		size_t w = 0;
		while (i + w < len && (isalnum((unsigned char)p[i + w]) ||
				       p[i + w] == '_'))
			w++;
		if (!w)
			return false; /* &, [, (, <, :: ... */
		bool is_const = w == 5 && !strncmp(p + i, "const", 5);
		bool is_volatile = w == 8 && !strncmp(p + i, "volatile", 8);
		bool is_restrict = (w == 12 && !strncmp(p + i, "__restrict__", 12)) ||
				   (w == 10 && !strncmp(p + i, "__restrict", 10));
		if (star && (is_const || is_volatile || is_restrict)) {
			/* a qualifier of the pointer just read */
			if (nl + 1 >= sizeof levels)
				return false;
			levels[nl++] = is_const ? 'K' : is_volatile ? 'V' : 'r';
		} else if (star) {
			return false;
		} else if (is_const) {
			base_const = true;
		} else if (is_volatile) {
			base_volatile = true;
		} else if (is_restrict) {
			return false;
		} else {
			if (nb + w + 2 >= sizeof base)
				return false;
			if (nb)
				base[nb++] = ' ';
			memcpy(base + nb, p + i, w);
			nb += w;
			base[nb] = '\0';
		}
		i += w;
	}
	char code = builtin_code(base);
	if (!code)
		return false;
	/* build outermost first: walk the levels from the outside in */
	size_t k = 0;
	size_t j = nl;
	bool outer = true;
	while (j > 0) {
		/* the qualifiers of one pointer level follow its 'P' */
		size_t start = j;
		while (start > 0 && levels[start - 1] != 'P')
			start--;
		/* levels[start-1] is 'P', levels[start..j) its qualifiers */
		if (!outer) {
			bool v = false, kq = false;
			for (size_t t = start; t < j; t++) {
				if (levels[t] == 'r')
					return false; /* inner restrict: rare */
				v |= levels[t] == 'V';
				kq |= levels[t] == 'K';
			}
			if (k + 3 >= cap)
				return false;
			if (v)
				c[k++] = 'V';
			if (kq)
				c[k++] = 'K';
		}
		if (k + 2 >= cap)
			return false;
		c[k++] = 'P';
		outer = false;
		j = start - 1;
	}
	if (nl) { /* the pointee's own qualifiers */
		if (k + 4 >= cap)
			return false;
		if (base_volatile)
			c[k++] = 'V';
		if (base_const)
			c[k++] = 'K';
	}
	c[k++] = code;
	c[k] = '\0';
	return true;
}

size_t diag_kernel_mangle(const char *sig, char *out, size_t cap)
{
	const char *open = sig ? strchr(sig, '(') : NULL;
	if (!open || !cap)
		return 0;
	const char *close = strrchr(open, ')');
	if (!close || memchr(open + 1, '(', (size_t)(close - open - 1)))
		return 0; /* a function pointer parameter */
	const char *e = open;
	while (e > sig && isspace((unsigned char)e[-1]))
		e--;
	const char *a = e;
	while (a > sig && (isalnum((unsigned char)a[-1]) || a[-1] == '_'))
		a--;
	if (a == e || isdigit((unsigned char)*a) ||
	    (a > sig && !isspace((unsigned char)a[-1]) && a[-1] != '*') ||
	    (e - a == 8 && strncmp(a, "operator", 8) == 0))
		return 0; /* ns::k, k<T>, operator(): not mangled here */
	struct mangler m = { .out = out, .cap = cap, .ok = true };
	char head[300];
	int hn = snprintf(head, sizeof head, "_Z%zu%.*s", (size_t)(e - a),
			  (int)(e - a), a);
	if (hn < 0 || (size_t)hn >= sizeof head)
		return 0;
	out[0] = '\0';
	put(&m, head, (size_t)hn);
	size_t nparams = 0;
	for (const char *p = open + 1; p < close;) {
		const char *comma = memchr(p, ',', (size_t)(close - p));
		const char *pe = comma ? comma : close;
		char c[MAX_TYPE];
		if (!param_type(p, (size_t)(pe - p), c, sizeof c))
			return 0;
		if (!strcmp(c, "v") && (nparams || comma))
			return 0;
		encode(&m, c);
		nparams++;
		p = comma ? comma + 1 : close;
	}
	if (!nparams)
		put(&m, "v", 1);
	return m.ok ? m.n : 0;
}

/* Files bigger than this are not searched (a binary this size is no
 * small CUDA program; the XML is waited for instead). */
#define STUB_SCAN_MAX ((off_t)1 << 30)

/* NUL, NAME, NUL in [p, p + n): a whole string of a string table. */
static bool has_whole_string(const char *p, size_t n, const char *name)
{
	size_t k = strlen(name);
	if (n >= k + 1 && memcmp(p, name, k) == 0 && p[k] == '\0')
		return true; /* the table's first string */
	char want[600];
	int w = snprintf(want, sizeof want, "%c%s%c", '\0', name, '\0');
	return w > 0 && (size_t)w < sizeof want &&
	       memmem(p, n, want, (size_t)w) != NULL;
}

static uint64_t get_le(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	for (int i = bytes - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The kernel's registration: nvcc's host code registers each __global__
 * function with the runtime under its device name, a string literal in
 * the host's read-only data (__cudaRegisterFunction(..., "_Z9histogram
 * PKiiPiii", ...)).  A release build (-O3) inlines the launch stub into
 * its caller and keeps no symbol of it (release_device_assert, runs 21
 * and 24), but the registration is there.  Only .rodata* sections of a
 * little-endian ELF64 are read: the symbol table would also name a
 * __host__ __device__ function, which is no kernel. */
static bool rodata_has_name(const unsigned char *f, size_t size,
			    const char *mangled)
{
	if (size < 64 || memcmp(f, "\x7f" "ELF", 4) != 0 || f[4] != 2 ||
	    f[5] != 1)
		return false;
	uint64_t shoff = get_le(f + 0x28, 8);
	uint64_t shentsize = get_le(f + 0x3a, 2), shnum = get_le(f + 0x3c, 2);
	uint64_t shstrndx = get_le(f + 0x3e, 2);
	if (shentsize < 64 || shnum == 0 || shstrndx >= shnum ||
	    shoff > size || shnum * shentsize > size - shoff)
		return false;
	const unsigned char *sh = f + shoff;
	const unsigned char *names = sh + shstrndx * shentsize;
	uint64_t noff = get_le(names + 0x18, 8), nsize = get_le(names + 0x20, 8);
	if (noff > size || nsize > size - noff)
		return false;
	for (uint64_t i = 0; i < shnum; i++) {
		const unsigned char *h = sh + i * shentsize;
		uint64_t name = get_le(h, 4), type = get_le(h + 4, 4);
		uint64_t off = get_le(h + 0x18, 8), len = get_le(h + 0x20, 8);
		/* SHT_PROGBITS, named .rodata or .rodata.* (.rodata.str1.1) */
		if (type != 1 || name + 8 > nsize || off > size ||
		    len > size - off)
			continue;
		const char *nm = (const char *)f + noff + name;
		size_t room = (size_t)(nsize - name);
		if (strnlen(nm, room) == room || strncmp(nm, ".rodata", 7) != 0 ||
		    (nm[7] != '\0' && nm[7] != '.'))
			continue;
		if (has_whole_string((const char *)f + off, (size_t)len, mangled))
			return true;
	}
	return false;
}

bool diag_program_has_stub(const char *program, const char *mangled)
{
	if (!program || !mangled || !*mangled || strlen(mangled) > 500)
		return false;
	char stub[600];
	snprintf(stub, sizeof stub, "__device_stub_%s", mangled);
	int fd = open(program, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	struct stat st;
	bool found = false;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
	    st.st_size <= STUB_SCAN_MAX) {
		void *map = mmap(NULL, (size_t)st.st_size, PROT_READ,
				 MAP_PRIVATE, fd, 0);
		if (map != MAP_FAILED) {
			size_t n = (size_t)st.st_size;
			found = has_whole_string(map, n, stub) ||
				rodata_has_name(map, n, mangled);
			munmap(map, (size_t)st.st_size);
		}
	}
	close(fd);
	return found;
}
