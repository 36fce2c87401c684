/* Decoder support: the arena that owns decoded strings, number and dim3
 * parsing, function base names. */
#include "cudbg/decode.h"
#include "mi/decode_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Chunks grow geometrically, so a table of any size costs O(log n)
 * mallocs and no copying. */
struct dec_chunk {
	struct dec_chunk *next;
	size_t cap, used;
	_Alignas(16) unsigned char data[];
};

struct dec_arena {
	struct dec_chunk *head;
	size_t next_cap;
	size_t total;
	void **adopted;      /* malloc'd blocks freed with the arena */
	size_t nadopted;
};

enum { ARENA_FIRST = 1024, ARENA_MAX_STEP = 4u << 20 };

struct dec_arena *dec_arena_new(void)
{
	struct dec_arena *a = calloc(1, sizeof *a);
	if (a)
		a->next_cap = ARENA_FIRST;
	return a;
}

void dec_arena_free(struct dec_arena *a)
{
	if (!a)
		return;
	struct dec_chunk *c = a->head;
	while (c) {
		struct dec_chunk *next = c->next;
		free(c);
		c = next;
	}
	for (size_t i = 0; i < a->nadopted; i++)
		free(a->adopted[i]);
	free(a->adopted);
	free(a);
}

int dec_arena_adopt(struct dec_arena *a, void *block, size_t size)
{
	void **n = realloc(a->adopted, (a->nadopted + 1) * sizeof *n);
	if (!n)
		return MI_ENOMEM;
	a->adopted = n;
	a->adopted[a->nadopted++] = block;
	a->total += size;
	return 0;
}

size_t dec_arena_size(const struct dec_arena *a)
{
	return a ? a->total : 0;
}

static void *arena_raw(struct dec_arena *a, size_t size, size_t align)
{
	struct dec_chunk *c = a->head;
	if (c) {
		size_t at = (c->used + align - 1) & ~(align - 1);
		if (at <= c->cap && size <= c->cap - at) {
			c->used = at + size;
			return c->data + at;
		}
	}
	size_t cap = a->next_cap;
	if (cap < size)
		cap = size;
	if (size > SIZE_MAX / 2 - sizeof *c)
		return NULL;
	c = malloc(sizeof *c + cap);
	if (!c)
		return NULL;
	c->cap = cap;
	c->used = size;
	c->next = a->head;
	a->head = c;
	a->total += cap;
	if (a->next_cap < ARENA_MAX_STEP)
		a->next_cap *= 2;
	return c->data;
}

void *dec_arena_alloc(struct dec_arena *a, size_t size)
{
	if (!a)
		return NULL;
	void *p = arena_raw(a, size ? size : 1, 16);
	if (p)
		memset(p, 0, size);
	return p;
}

char *dec_arena_strndup(struct dec_arena *a, const char *s, size_t len)
{
	if (!a || len == SIZE_MAX)
		return NULL;
	char *p = arena_raw(a, len + 1, 1);
	if (!p)
		return NULL;
	if (len)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

bool dec_u64_parse(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return false;
	uint64_t v = 0;
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return false;
	} else if (s[0] == '0' && s[1]) {
		base = 8; /* gdb prints exit-code="01" in octal */
		s++;
	}
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (*s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (*s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return false;
		if (d >= base || v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}

int dec_int_or(const char *s, int def)
{
	uint64_t v;
	if (!dec_u64_parse(s, &v) || v > INT32_MAX)
		return def;
	return (int)v;
}

static const char *dim_part(const char *s, uint32_t *out, char end)
{
	uint64_t v = 0;
	const char *p = s;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > UINT32_MAX)
			return NULL;
		p++;
	}
	if (p == s || *p != end)
		return NULL;
	*out = (uint32_t)v;
	return p + 1;
}

bool dec_dim3_parse(const char *s, struct dec_dim3 *out)
{
	struct dec_dim3 d = { 0 };
	*out = d;
	if (!s || *s != '(')
		return false;
	s = dim_part(s + 1, &d.x, ',');
	if (s)
		s = dim_part(s, &d.y, ',');
	if (s)
		s = dim_part(s, &d.z, ')');
	if (!s || *s)
		return false;
	d.valid = true;
	*out = d;
	return true;
}

bool dec_dim3_eq(struct dec_dim3 a, struct dec_dim3 b)
{
	return a.valid && b.valid && a.x == b.x && a.y == b.y && a.z == b.z;
}

uint64_t dec_dim3_linear(struct dec_dim3 d, struct dec_dim3 dims)
{
	if (!d.valid || !dims.valid || d.x >= dims.x || d.y >= dims.y ||
	    d.z >= dims.z)
		return UINT64_MAX;
	return (uint64_t)d.x + (uint64_t)dims.x * ((uint64_t)d.y +
						    (uint64_t)dims.y * d.z);
}

/* Index of the bracket matching the closer at s[end-1], scanning back;
 * -1 when unbalanced. */
static long match_back(const char *s, size_t end, char open, char close)
{
	int depth = 0;
	for (size_t i = end; i-- > 0;) {
		if (s[i] == close)
			depth++;
		else if (s[i] == open && --depth == 0)
			return (long)i;
	}
	return -1;
}

static bool ends_with(const char *s, size_t end, const char *lit)
{
	size_t n = strlen(lit);
	return end >= n && memcmp(s + end - n, lit, n) == 0 &&
	       (end == n || !(isalnum((unsigned char)s[end - n - 1]) ||
			      s[end - n - 1] == '_'));
}

/* The start of the scope component before "::" at s[end-2..end): a
 * lambda's "{lambda(int)#1}" or a class "F<int>", brackets balanced. */
static size_t scope_start(const char *s, size_t end)
{
	int depth = 0;
	size_t i = end - 2;
	while (i > 0) {
		char c = s[i - 1];
		if (c == '}' || c == '>' || c == ')')
			depth++;
		else if ((c == '{' || c == '<' || c == '(') && depth)
			depth--;
		else if (!depth && (c == ' ' || c == ':' || c == '*'))
			break;
		i--;
	}
	return i;
}

/* [0, end) without a trailing return type "->TYPE" after a parameter
 * list's ')'. */
static size_t without_trailing_return(const char *sig, size_t end)
{
	size_t i = end;
	while (i > 0 && (isalnum((unsigned char)sig[i - 1]) || sig[i - 1] == '_' ||
			 sig[i - 1] == ':' || sig[i - 1] == ' '))
		i--;
	if (i < end && i >= 3 && sig[i - 1] == '>' && sig[i - 2] == '-' &&
	    sig[i - 3] == ')')
		return i - 2;
	return end;
}

/* s[0..n) into out as far as cap allows, NUL ended (cap 0: nothing);
 * returns n. */
static size_t put_span(char *out, size_t cap, const char *s, size_t n)
{
	if (cap) {
		size_t k = n < cap - 1 ? n : cap - 1;
		memcpy(out, s, k);
		out[k] = '\0';
	}
	return n;
}

size_t dec_func_short(const char *sig, char *out, size_t cap)
{
	if (!sig)
		sig = "";
	size_t end = strlen(sig);
	while (end && sig[end - 1] == ' ')
		end--;
	/* gcc's __PRETTY_FUNCTION__ of a template ends in " [with T =
	 * float]". */
	if (end && sig[end - 1] == ']') {
		long i = match_back(sig, end, '[', ']');
		if (i > 0 && strncmp(sig + i, "[with ", 6) == 0)
			for (end = (size_t)i; end && sig[end - 1] == ' ';)
				end--;
	}
	/* Trailing " const" of a member function. */
	if (end > 6 && strncmp(sig + end - 6, " const", 6) == 0)
		end -= 6;
	/* nvcc names a device lambda's body "lambda [](float)->auto::
	 * operator()(float)->auto" (lambda_assert's assertion line, H200):
	 * the trailing return type goes, and the rest, scope and all, is
	 * the name (cut anywhere else it read "->auto"). */
	end = without_trailing_return(sig, end);
	if (strncmp(sig, "lambda ", 7) == 0 && end > 7) {
		if (end && sig[end - 1] == ')') {
			long i = match_back(sig, end, '(', ')');
			if (i > 0)
				end = (size_t)i;
		}
		return put_span(out, cap, sig, end);
	}
	/* Parameter list, then template arguments: the demangler prints
	 * "ns::k<float, long>(float*, long)". */
	if (end && sig[end - 1] == ')') {
		long i = match_back(sig, end, '(', ')');
		if (i > 0)
			end = (size_t)i;
	}
	while (end && sig[end - 1] == ' ')
		end--;
	/* A lambda's or functor's body: "operator()" is the name, not a
	 * function "operator" (an assert's __func__ in a lambda is just
	 * "operator()"); its class names it better: "{lambda(int)#1}::
	 * operator()". */
	if (ends_with(sig, end, "operator") && strncmp(sig + end, "()", 2) == 0)
		end += 2;
	if (ends_with(sig, end, "operator()")) {
		size_t start = end - 10;
		if (start >= 2 && sig[start - 1] == ':' && sig[start - 2] == ':')
			start = scope_start(sig, start);
		return put_span(out, cap, sig + start, end - start);
	}
	if (end && sig[end - 1] == '>') {
		long i = match_back(sig, end, '<', '>');
		if (i > 0)
			end = (size_t)i;
	}
	size_t start = end;
	while (start > 0) {
		char c = sig[start - 1];
		if (c == ' ' || c == ':' || c == '*' || c == '&' || c == ')')
			break;
		start--;
	}
	if (start == end) /* nothing sensible: keep the whole text */
		return put_span(out, cap, sig, strlen(sig));
	return put_span(out, cap, sig + start, end - start);
}

char *dec_func_basename(const char *func, char *buf, size_t cap)
{
	if (buf && cap)
		dec_func_short(func, buf, cap);
	return buf;
}

/* Is the path component [c, c+n) one that holds a toolkit's include
 * directory? */
static bool toolkit_component(const char *c, size_t n)
{
	if ((n == 4 && !memcmp(c, "cuda", 4)) ||
	    (n == 7 && !memcmp(c, "targets", 7)) ||
	    (n == 6 && !memcmp(c, "nvidia", 6)))
		return true;
	if (n < 6 || memcmp(c, "cuda-", 5))
		return false;
	for (size_t i = 5; i < n; i++)
		if (!isdigit((unsigned char)c[i]) && c[i] != '.')
			return false;
	return true;
}

bool dec_path_in_cuda_toolkit(const char *path)
{
	bool toolkit = false;
	for (const char *c = path; c && *c;) {
		const char *e = strchr(c, '/');
		size_t n = e ? (size_t)(e - c) : strlen(c);
		if (toolkit && e && n == 7 && !memcmp(c, "include", 7))
			return true;
		toolkit |= toolkit_component(c, n);
		c = e ? e + 1 : NULL;
	}
	return false;
}

bool dec_frame_is_toolkit(const char *func, const char *file, bool device)
{
	if (file)
		return dec_path_in_cuda_toolkit(file);
	return device && func && func[0] == '_' && func[1] == '_';
}

bool dec_frame_is_device(const struct dec_frame *f)
{
	return f && f->arch && strcmp(f->arch, "m68k") == 0;
}

const char *dec_strerror(int code)
{
	switch (code) {
	case DEC_EMISSING:
		return "the record lacks the expected field";
	case DEC_ESHAPE:
		return "a field has an unexpected shape";
	default:
		return mi_strerror(code);
	}
}

int dec_list_begin(const struct mi_node *results, const char *name,
		   struct dec_arena **arena, void **v, size_t size,
		   const struct mi_node **list)
{
	*list = mi_find(results, name);
	if (!*list)
		return DEC_EMISSING;
	if ((*list)->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	int err = dec_begin(arena);
	if (err)
		return err;
	*v = dec_arena_alloc(*arena, ((*list)->count ? (*list)->count : 1) *
					     size);
	return *v ? 0 : MI_ENOMEM;
}
