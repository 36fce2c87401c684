/* A small strict JSON checker for tests (header-only). */
#ifndef CUDBG_TEST_JSON_CHECK_H
#define CUDBG_TEST_JSON_CHECK_H

#include <stdbool.h>
#include <string.h>

struct js {
	const char *p;
	int depth;
};

static inline void js_ws(struct js *j)
{
	while (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r')
		j->p++;
}

static inline bool js_value(struct js *j);

static inline bool js_string(struct js *j)
{
	if (*j->p++ != '"')
		return false;
	while (*j->p != '"') {
		unsigned char c = (unsigned char)*j->p;
		if (c < 0x20 || c == 0)
			return false;
		if (c == '\\') {
			j->p++;
			if (*j->p == 'u') {
				for (int i = 1; i <= 4; i++)
					if (!strchr("0123456789abcdefABCDEF", j->p[i]) ||
					    !j->p[i])
						return false;
				j->p += 4;
			} else if (!strchr("\"\\/bfnrt", *j->p) || !*j->p) {
				return false;
			}
		}
		j->p++;
	}
	j->p++;
	return true;
}

static inline bool js_members(struct js *j, char close, bool keys)
{
	j->p++;
	js_ws(j);
	if (*j->p == close) {
		j->p++;
		return true;
	}
	for (;;) {
		js_ws(j);
		if (keys) {
			if (!js_string(j))
				return false;
			js_ws(j);
			if (*j->p++ != ':')
				return false;
		}
		if (!js_value(j))
			return false;
		js_ws(j);
		if (*j->p == close) {
			j->p++;
			return true;
		}
		if (*j->p++ != ',')
			return false;
	}
}

static inline bool js_value(struct js *j)
{
	js_ws(j);
	if (++j->depth > 64)
		return false;
	bool ok;
	if (*j->p == '{')
		ok = js_members(j, '}', true);
	else if (*j->p == '[')
		ok = js_members(j, ']', false);
	else if (*j->p == '"')
		ok = js_string(j);
	else if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4))
		ok = (j->p += 4, true);
	else if (!strncmp(j->p, "false", 5))
		ok = (j->p += 5, true);
	else {
		const char *s = j->p;
		if (*j->p == '-')
			j->p++;
		while (*j->p >= '0' && *j->p <= '9')
			j->p++;
		ok = j->p > s && j->p[-1] != '-';
	}
	j->depth--;
	return ok;
}

static inline bool json_valid(const char *s)
{
	struct js j = { s, 0 };
	if (!js_value(&j))
		return false;
	js_ws(&j);
	return *j.p == '\0';
}

#endif
