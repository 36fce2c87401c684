/* Small helpers for diag/: growable strings, globs, number parsing,
 * escaping untrusted text for terminals and JSON. */
#include "diag/internal.h"
#include "cudbg/diag.h"
#include "cudbg/report.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <limits.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

/* ---- dbuf -------------------------------------------------------------- */

static bool dbuf_reserve(struct dbuf *b, size_t extra)
{
	if (b->oom)
		return false;
	if (b->len + extra + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (!s) {
		b->oom = true;
		return false;
	}
	b->s = s;
	b->cap = cap;
	return true;
}

void dbuf_put(struct dbuf *b, const char *s, size_t n)
{
	if (!dbuf_reserve(b, n))
		return;
	if (n)
		memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void dbuf_puts(struct dbuf *b, const char *s)
{
	dbuf_put(b, s, strlen(s));
}

void dbuf_putc(struct dbuf *b, char c)
{
	dbuf_put(b, &c, 1);
}

void dbuf_printf(struct dbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char small[256];
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		dbuf_put(b, small, (size_t)n);
		return;
	}
	if (!dbuf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

char *dbuf_take(struct dbuf *b)
{
	char *s = NULL;
	if (!b->oom) {
		s = b->s ? b->s : calloc(1, 1);
		b->s = NULL;
	}
	dbuf_free(b);
	return s;
}

void dbuf_free(struct dbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
	b->oom = false;
}

/* ---- strings ----------------------------------------------------------- */

char *dstrdup(const char *s)
{
	return s ? strdup(s) : NULL;
}

char *dstrndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);
	if (!d)
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

bool dstrset(char **dst, const char *s)
{
	char *c = NULL;
	if (s && !(c = strdup(s)))
		return false;
	free(*dst);
	*dst = c;
	return true;
}

bool glob_match(const char *p, const char *s)
{
	/* Iterative with one backtrack point: linear enough for rule
	 * patterns, and no recursion on hostile input. */
	const char *star = NULL, *resume = NULL;
	while (*s) {
		if (*p == '\\' && p[1]) {
			if (tolower((unsigned char)p[1]) ==
			    tolower((unsigned char)*s)) {
				p += 2;
				s++;
				continue;
			}
		} else if (*p == '*') {
			star = ++p;
			resume = s;
			continue;
		} else if (*p == '?' ||
			   (*p && tolower((unsigned char)*p) ==
					  tolower((unsigned char)*s))) {
			p++;
			s++;
			continue;
		}
		if (!star)
			return false;
		p = star;
		s = ++resume;
	}
	while (*p == '*')
		p++;
	return *p == '\0';
}

const char *ci_strstr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (n == 0)
		return hay;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}

bool parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

bool parse_uint(const char *s, unsigned *out)
{
	uint64_t v;
	if (!parse_u64(s, &v) || v > 0xffffffffu)
		return false;
	*out = (unsigned)v;
	return true;
}

/* ---- escaping ---------------------------------------------------------- */

/* Decodes one UTF-8 sequence; returns its length, or 0 when invalid
 * (overlong forms, surrogates and values past U+10FFFF are invalid). */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	size_t len;
	uint32_t c, min;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4, c = s[0] & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* Code points that must never reach a terminal raw: C1 controls and the
 * bidirectional embeddings, overrides and isolates (Trojan Source). */
static bool cp_dangerous(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x061c || c == 0x200e ||
	       c == 0x200f || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069);
}

void dbuf_put_escaped(struct dbuf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode(u + i, len - i, &cp);
		if (n == 0) {
			dbuf_printf(b, "\\x%02x", u[i]);
			i++;
			continue;
		}
		if (cp == '\t')
			dbuf_putc(b, ' ');
		else if (cp < 0x20 || cp == 0x7f)
			dbuf_printf(b, "\\x%02x", (unsigned)cp);
		else if (cp_dangerous(cp))
			dbuf_printf(b, "\\u{%04x}", (unsigned)cp);
		else
			dbuf_put(b, s + i, n);
		i += n;
	}
}

void dbuf_put_json(struct dbuf *b, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	dbuf_putc(b, '"');
	while (i < len) {
		uint32_t cp;
		size_t n = utf8_decode(u + i, len - i, &cp);
		if (n == 0) {
			dbuf_puts(b, "\\ufffd");
			i++;
			continue;
		}
		if (cp == '"')
			dbuf_puts(b, "\\\"");
		else if (cp == '\\')
			dbuf_puts(b, "\\\\");
		else if (cp == '\n')
			dbuf_puts(b, "\\n");
		else if (cp == '\t')
			dbuf_puts(b, "\\t");
		else if (cp < 0x20 || cp == 0x7f || cp_dangerous(cp))
			dbuf_printf(b, "\\u%04x", (unsigned)cp);
		else
			dbuf_put(b, s + i, n);
		i += n;
	}
	dbuf_putc(b, '"');
}

char *diag_escape_text(const char *s, size_t len)
{
	struct dbuf b = {0};
	dbuf_put(&b, "", 0);
	dbuf_put_escaped(&b, s, len);
	return dbuf_take(&b);
}

char *read_small_file(const char *path, size_t max, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct dbuf b = {0};
	char chunk[8192];
	size_t n;
	dbuf_put(&b, "", 0);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b.len + n > max) {
			b.oom = true;
			break;
		}
		dbuf_put(&b, chunk, n);
	}
	bool err = ferror(f);
	fclose(f);
	if (err)
		b.oom = true;
	if (len)
		*len = b.len;
	return dbuf_take(&b);
}

/* ---- public small helpers ---------------------------------------------- */

const char *diag_strerror(int code)
{
	switch (code) {
	case DIAG_OK: return "ok";
	case DIAG_ENOMEM: return "out of memory";
	case DIAG_ESYNTAX: return "malformed input";
	case DIAG_EIO: return "input/output error";
	case DIAG_ELIMIT: return "input too large";
	case DIAG_EEXEC: return "could not start the program";
	case DIAG_ESTATE: return "called out of order";
	case DIAG_ENOTFOUND: return "not found";
	}
	return "unknown error";
}

int diag_parse_dim3(const char *s, struct diag_dim3 *out)
{
	unsigned long v[3];
	const char *p = s;
	while (*p == ' ')
		p++;
	char open = *p, close = open == '(' ? ')' : open == '[' ? ']' : 0;
	if (!close)
		return DIAG_ESYNTAX;
	p++;
	for (int i = 0; i < 3; i++) {
		while (*p == ' ')
			p++;
		if (!isdigit((unsigned char)*p))
			return DIAG_ESYNTAX;
		char *end;
		errno = 0;
		v[i] = strtoul(p, &end, 10);
		if (errno || v[i] > 0xffffffffUL)
			return DIAG_ESYNTAX;
		p = end;
		while (*p == ' ')
			p++;
		if (*p != (i < 2 ? ',' : close))
			return DIAG_ESYNTAX;
		p++;
	}
	out->x = (uint32_t)v[0];
	out->y = (uint32_t)v[1];
	out->z = (uint32_t)v[2];
	return DIAG_OK;
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

size_t diag_kernel_basename(const char *sig, char *out, size_t cap)
{
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
		size_t n = end - start;
		if (cap) {
			size_t k = n < cap - 1 ? n : cap - 1;
			memcpy(out, sig + start, k);
			out[k] = '\0';
		}
		return n;
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
	size_t n = end - start;
	if (n == 0) { /* nothing sensible: keep the whole text */
		start = 0;
		n = strlen(sig);
	}
	if (cap) {
		size_t k = n < cap - 1 ? n : cap - 1;
		memcpy(out, sig + start, k);
		out[k] = '\0';
	}
	return n;
}

void diag_remove_dir(const char *dir, int depth)
{
	DIR *d = opendir(dir);
	if (d) {
		struct dirent *de;
		while ((de = readdir(d))) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			char p[PATH_MAX + 256];
			snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
			struct stat sb;
			if (depth > 0 && lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode))
				diag_remove_dir(p, depth - 1);
			else
				unlink(p);
		}
		closedir(d);
	}
	rmdir(dir);
}
