/* session_format_record(): a record back to one line of canonical MI. */
#include "cudbg/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	char *buf;
	size_t len, cap;
	bool failed;
};

/* Room for n more bytes and a NUL. */
static bool grow(struct out *o, size_t n)
{
	if (o->failed)
		return false;
	if (o->len + n + 1 > o->cap) {
		size_t cap = o->cap ? o->cap : 256;
		while (cap < o->len + n + 1)
			cap *= 2;
		char *nb = realloc(o->buf, cap);
		if (!nb) {
			o->failed = true;
			return false;
		}
		o->buf = nb;
		o->cap = cap;
	}
	return true;
}

static void put(struct out *o, const char *s, size_t n)
{
	if (!grow(o, n))
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
	o->buf[o->len] = 0;
}

static void put_str(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static void put_quoted(struct out *o, const char *s, size_t len)
{
	size_t need = mi_quote(NULL, 0, s, len);
	if (!grow(o, need))
		return;
	mi_quote(o->buf + o->len, need + 1, s, len);
	o->len += need;
}

/* Depth is bounded by the parser (MI_MAX_DEPTH). */
static void put_node(struct out *o, const struct mi_node *n)
{
	if (n->name) {
		put_str(o, n->name);
		put(o, "=", 1);
	}
	if (n->kind == MI_NODE_STRING) {
		put_quoted(o, n->str, n->len);
		return;
	}
	put(o, n->kind == MI_NODE_TUPLE ? "{" : "[", 1);
	for (const struct mi_node *c = n->child; c; c = c->next) {
		put_node(o, c);
		if (c->next)
			put(o, ",", 1);
	}
	put(o, n->kind == MI_NODE_TUPLE ? "}" : "]", 1);
}

static char prefix_of(enum mi_record_kind k)
{
	switch (k) {
	case MI_REC_RESULT: return '^';
	case MI_REC_EXEC: return '*';
	case MI_REC_STATUS: return '+';
	case MI_REC_NOTIFY: return '=';
	case MI_REC_CONSOLE: return '~';
	case MI_REC_TARGET: return '@';
	case MI_REC_LOG: return '&';
	default: return '?';
	}
}

char *session_format_record(const struct mi_record *rec, size_t *len)
{
	struct out o = { 0 };
	char tmp[96];
	if (rec->kind == MI_REC_PROMPT) {
		put_str(&o, "(gdb)");
	} else if (rec->kind == MI_REC_ERROR) {
		snprintf(tmp, sizeof tmp, "?%s at byte %zu",
			 mi_strerror(rec->error), rec->error_at);
		put_str(&o, tmp);
	} else {
		if (rec->has_token) {
			snprintf(tmp, sizeof tmp, "%llu",
				 (unsigned long long)rec->token);
			put_str(&o, tmp);
		}
		char p = prefix_of(rec->kind);
		put(&o, &p, 1);
		if (rec->kind >= MI_REC_CONSOLE && rec->kind <= MI_REC_LOG) {
			put_quoted(&o, rec->text, rec->text_len);
		} else {
			put_str(&o, rec->klass);
			for (const struct mi_node *n = rec->results; n;
			     n = n->next) {
				put(&o, ",", 1);
				put_node(&o, n);
			}
		}
	}
	if (o.failed || !o.buf) {
		free(o.buf);
		return NULL;
	}
	if (len)
		*len = o.len;
	return o.buf;
}
