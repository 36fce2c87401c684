/* Strict JSON parser and writer (see dap/json.h). */
#include "dap/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- parser ---- */

struct dj_p {
	const char *s;
	size_t n, i;
	char *err;
	size_t cap;
	bool failed;
};

static void p_fail(struct dj_p *p, const char *what)
{
	if (!p->failed && p->cap)
		snprintf(p->err, p->cap, "offset %zu: %s", p->i, what);
	p->failed = true;
}

static void p_ws(struct dj_p *p)
{
	while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
			       p->s[p->i] == '\n' || p->s[p->i] == '\r'))
		p->i++;
}

static bool p_lit(struct dj_p *p, const char *word)
{
	size_t l = strlen(word);
	if (p->n - p->i < l || memcmp(p->s + p->i, word, l) != 0)
		return false;
	p->i += l;
	return true;
}

static bool p_hex4(struct dj_p *p, uint32_t *out)
{
	uint32_t v = 0;
	if (p->n - p->i < 4)
		return false;
	for (int k = 0; k < 4; k++) {
		int h = hex_value(p->s[p->i + (size_t)k]);
		if (h < 0)
			return false;
		v = v << 4 | (uint32_t)h;
	}
	p->i += 4;
	*out = v;
	return true;
}

/* After a backslash and 'u': one code point, joining a surrogate pair. */
static bool p_unicode(struct dj_p *p, uint32_t *cp)
{
	uint32_t hi, lo;
	if (!p_hex4(p, &hi))
		return false;
	if (hi >= 0xdc00 && hi <= 0xdfff)
		return false;
	if (hi < 0xd800 || hi > 0xdbff) {
		*cp = hi;
		return true;
	}
	if (!p_lit(p, "\\u") || !p_hex4(p, &lo) || lo < 0xdc00 || lo > 0xdfff)
		return false;
	*cp = 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
	return true;
}

static bool p_escape(struct dj_p *p, char *out, size_t *o)
{
	char c = p->s[p->i++];
	const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
	const char *k = strchr(from, c);
	if (c && k) {
		out[(*o)++] = to[k - from];
		return true;
	}
	uint32_t cp;
	if (c != 'u' || !p_unicode(p, &cp))
		return false;
	*o += utf8_encode(cp, out + *o);
	return true;
}

/* A string's body after the opening quote.  The decoded text is never
 * longer than the source, so one buffer of the remaining size holds it. */
static char *p_string(struct dj_p *p, size_t *lenp)
{
	size_t start = p->i, end = start;
	while (end < p->n && p->s[end] != '"')
		end += p->s[end] == '\\' && end + 1 < p->n ? 2 : 1;
	char *out = malloc(end - start + 1);
	if (!out) {
		p_fail(p, "out of memory");
		return NULL;
	}
	size_t o = 0;
	for (;;) {
		if (p->i >= p->n) {
			p_fail(p, "unterminated string");
			break;
		}
		unsigned char c = (unsigned char)p->s[p->i];
		if (c == '"') {
			p->i++;
			out[o] = 0;
			*lenp = o;
			return out;
		}
		if (c < 0x20) {
			p_fail(p, "control character in a string");
			break;
		}
		if (c == '\\') {
			p->i++;
			if (p->i >= p->n || !p_escape(p, out, &o)) {
				p_fail(p, "bad escape in a string");
				break;
			}
			continue;
		}
		uint32_t cp;
		size_t l = utf8_decode(p->s + p->i, p->n - p->i, &cp);
		if (!l) {
			p_fail(p, "invalid UTF-8 in a string");
			break;
		}
		memcpy(out + o, p->s + p->i, l);
		o += l;
		p->i += l;
	}
	free(out);
	return NULL;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool p_number(struct dj_p *p, double *out)
{
	size_t st = p->i;
	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i >= p->n || !is_digit(p->s[p->i]))
		return false;
	if (p->s[p->i] == '0')
		p->i++;
	else
		while (p->i < p->n && is_digit(p->s[p->i]))
			p->i++;
	if (p->i < p->n && p->s[p->i] == '.') {
		p->i++;
		if (p->i >= p->n || !is_digit(p->s[p->i]))
			return false;
		while (p->i < p->n && is_digit(p->s[p->i]))
			p->i++;
	}
	if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
		p->i++;
		if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-'))
			p->i++;
		if (p->i >= p->n || !is_digit(p->s[p->i]))
			return false;
		while (p->i < p->n && is_digit(p->s[p->i]))
			p->i++;
	}
	char tmp[64];
	size_t l = p->i - st;
	if (l >= sizeof tmp)
		return false; /* DAP numbers are ids and counts */
	memcpy(tmp, p->s + st, l);
	tmp[l] = 0;
	*out = strtod(tmp, NULL);
	return isfinite(*out);
}

static bool p_value(struct dj_p *p, struct dj *v, int depth);

static bool kids_grow(struct dj *v, size_t *cap, bool keys)
{
	if (v->len < *cap)
		return true;
	size_t nc = *cap ? *cap * 2 : 4;
	struct dj *nk = realloc(v->kids, nc * sizeof *nk);
	if (!nk)
		return false;
	v->kids = nk;
	if (keys) {
		char **kk = realloc(v->keys, nc * sizeof *kk);
		if (!kk)
			return false;
		v->keys = kk;
	}
	*cap = nc;
	return true;
}

static bool p_array(struct dj_p *p, struct dj *v, int depth)
{
	size_t cap = 0;
	v->type = DJ_ARR;
	p_ws(p);
	if (p->i < p->n && p->s[p->i] == ']') {
		p->i++;
		return true;
	}
	for (;;) {
		if (!kids_grow(v, &cap, false)) {
			p_fail(p, "out of memory");
			return false;
		}
		memset(&v->kids[v->len], 0, sizeof v->kids[0]);
		v->len++;
		if (!p_value(p, &v->kids[v->len - 1], depth + 1))
			return false;
		p_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == ']') {
			p->i++;
			return true;
		}
		p_fail(p, "expected ',' or ']'");
		return false;
	}
}

static bool p_member(struct dj_p *p, struct dj *v, int depth)
{
	size_t klen;
	p_ws(p);
	if (p->i >= p->n || p->s[p->i] != '"') {
		p_fail(p, "expected a key string");
		return false;
	}
	p->i++;
	char *key = p_string(p, &klen);
	if (!key)
		return false;
	v->keys[v->len] = key;
	memset(&v->kids[v->len], 0, sizeof v->kids[0]);
	v->len++;
	p_ws(p);
	if (p->i >= p->n || p->s[p->i] != ':') {
		p_fail(p, "expected ':'");
		return false;
	}
	p->i++;
	return p_value(p, &v->kids[v->len - 1], depth + 1);
}

static bool p_object(struct dj_p *p, struct dj *v, int depth)
{
	size_t cap = 0;
	v->type = DJ_OBJ;
	p_ws(p);
	if (p->i < p->n && p->s[p->i] == '}') {
		p->i++;
		return true;
	}
	for (;;) {
		if (!kids_grow(v, &cap, true)) {
			p_fail(p, "out of memory");
			return false;
		}
		if (!p_member(p, v, depth))
			return false;
		p_ws(p);
		if (p->i < p->n && p->s[p->i] == ',') {
			p->i++;
			continue;
		}
		if (p->i < p->n && p->s[p->i] == '}') {
			p->i++;
			return true;
		}
		p_fail(p, "expected ',' or '}'");
		return false;
	}
}

static bool p_value(struct dj_p *p, struct dj *v, int depth)
{
	if (depth > DJ_MAX_DEPTH) {
		p_fail(p, "nested too deeply");
		return false;
	}
	p_ws(p);
	if (p->i >= p->n) {
		p_fail(p, "expected a value");
		return false;
	}
	char c = p->s[p->i];
	if (c == '{' || c == '[') {
		p->i++;
		return c == '{' ? p_object(p, v, depth) : p_array(p, v, depth);
	}
	if (c == '"') {
		p->i++;
		v->type = DJ_STR;
		v->str = p_string(p, &v->len);
		return v->str != NULL;
	}
	if (p_lit(p, "true") || p_lit(p, "false")) {
		v->type = DJ_BOOL;
		v->b = c == 't';
		return true;
	}
	if (p_lit(p, "null")) {
		v->type = DJ_NULL;
		return true;
	}
	v->type = DJ_NUM;
	if (p_number(p, &v->num))
		return true;
	p_fail(p, "expected a value");
	return false;
}

static void dj_free_kids(struct dj *v)
{
	if (v->type == DJ_STR)
		free(v->str);
	if (v->type != DJ_ARR && v->type != DJ_OBJ)
		return;
	for (size_t i = 0; i < v->len; i++) {
		dj_free_kids(&v->kids[i]);
		if (v->type == DJ_OBJ)
			free(v->keys[i]);
	}
	free(v->kids);
	free(v->keys);
}

void dj_free(struct dj *v)
{
	if (!v)
		return;
	dj_free_kids(v);
	free(v);
}

struct dj *dj_parse(const char *text, size_t len, char *err, size_t cap)
{
	struct dj_p p = { text, len, 0, err, cap, false };
	struct dj *v = calloc(1, sizeof *v);
	if (!v) {
		p_fail(&p, "out of memory");
		return NULL;
	}
	if (p_value(&p, v, 0)) {
		p_ws(&p);
		if (p.i == p.n)
			return v;
		p_fail(&p, "text after the value");
	}
	dj_free(v);
	return NULL;
}

const struct dj *dj_get(const struct dj *v, const char *key)
{
	if (!v || v->type != DJ_OBJ)
		return NULL;
	for (size_t i = 0; i < v->len; i++)
		if (strcmp(v->keys[i], key) == 0)
			return &v->kids[i];
	return NULL;
}

const char *dj_str(const struct dj *v, const char *key, const char *def)
{
	const struct dj *m = dj_get(v, key);
	return m && m->type == DJ_STR ? m->str : def;
}

bool dj_bool(const struct dj *v, const char *key, bool def)
{
	const struct dj *m = dj_get(v, key);
	return m && m->type == DJ_BOOL ? m->b : def;
}

long long dj_int(const struct dj *v, const char *key, long long def)
{
	const struct dj *m = dj_get(v, key);
	if (!m || m->type != DJ_NUM || m->num != floor(m->num) ||
	    fabs(m->num) > 9007199254740992.0)
		return def;
	return (long long)m->num;
}

/* ---- writer: base's JSON writer (include/cudbg/base.h) ---- */

void dj_w_init(struct dj_w *w) { jw_init(&w->j); }
void dj_w_free(struct dj_w *w) { jw_free(&w->j); }
void dj_w_obj(struct dj_w *w) { jw_obj(&w->j, NULL); }
void dj_w_obj_end(struct dj_w *w) { jw_end(&w->j); }
void dj_w_arr(struct dj_w *w) { jw_arr(&w->j, NULL); }
void dj_w_arr_end(struct dj_w *w) { jw_end(&w->j); }
void dj_w_key(struct dj_w *w, const char *key) { jw_key(&w->j, key); }
void dj_w_str(struct dj_w *w, const char *s) { jw_str(&w->j, NULL, s); }
void dj_w_int(struct dj_w *w, long long v) { jw_int(&w->j, NULL, v); }
void dj_w_bool(struct dj_w *w, bool v) { jw_bool(&w->j, NULL, v); }
void dj_w_null(struct dj_w *w) { jw_null(&w->j, NULL); }

void dj_w_strn(struct dj_w *w, const char *s, size_t n)
{
	jw_strn(&w->j, NULL, s, n);
}

void dj_w_textn(struct dj_w *w, const char *s, size_t n)
{
	jw_text(&w->j, NULL, s, n);
}

void dj_w_text(struct dj_w *w, const char *s)
{
	jw_text(&w->j, NULL, s, s ? strlen(s) : 0);
}

void dj_w_value(struct dj_w *w, const struct dj *v)
{
	switch (v->type) {
	case DJ_NULL:
		dj_w_null(w);
		break;
	case DJ_BOOL:
		dj_w_bool(w, v->b);
		break;
	case DJ_NUM:
		jw_double(&w->j, NULL, v->num);
		break;
	case DJ_STR:
		dj_w_strn(w, v->str, v->len);
		break;
	case DJ_ARR:
	case DJ_OBJ:
		v->type == DJ_ARR ? dj_w_arr(w) : dj_w_obj(w);
		for (size_t i = 0; i < v->len; i++) {
			if (v->type == DJ_OBJ)
				dj_w_key(w, v->keys[i]);
			dj_w_value(w, &v->kids[i]);
		}
		jw_end(&w->j);
		break;
	}
}

void dj_w_kstr(struct dj_w *w, const char *key, const char *s)
{
	jw_str(&w->j, key, s);
}

void dj_w_ktext(struct dj_w *w, const char *key, const char *s)
{
	jw_text(&w->j, key, s, s ? strlen(s) : 0);
}

void dj_w_kint(struct dj_w *w, const char *key, long long v)
{
	jw_int(&w->j, key, v);
}

void dj_w_kbool(struct dj_w *w, const char *key, bool v)
{
	jw_bool(&w->j, key, v);
}
