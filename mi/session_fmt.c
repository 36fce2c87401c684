/* session_format_record(): a record back to one line of canonical MI. */
#include "cudbg/base.h"
#include "cudbg/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_quoted(struct dbuf *o, const char *s, size_t len)
{
	size_t need = mi_quote(NULL, 0, s, len);
	if (dbuf_reserve(o, need) < 0)
		return;
	mi_quote(o->s + o->len, need + 1, s, len);
	o->len += need;
}

/* Depth is bounded by the parser (MI_MAX_DEPTH). */
static void put_node(struct dbuf *o, const struct mi_node *n)
{
	if (n->name) {
		dbuf_puts(o, n->name);
		dbuf_put(o, "=", 1);
	}
	if (n->kind == MI_NODE_STRING) {
		put_quoted(o, n->str, n->len);
		return;
	}
	dbuf_put(o, n->kind == MI_NODE_TUPLE ? "{" : "[", 1);
	for (const struct mi_node *c = n->child; c; c = c->next) {
		put_node(o, c);
		if (c->next)
			dbuf_put(o, ",", 1);
	}
	dbuf_put(o, n->kind == MI_NODE_TUPLE ? "}" : "]", 1);
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
	struct dbuf o = { 0 };
	char tmp[96];
	if (rec->kind == MI_REC_PROMPT) {
		dbuf_puts(&o, "(gdb)");
	} else if (rec->kind == MI_REC_ERROR) {
		snprintf(tmp, sizeof tmp, "?%s at byte %zu",
			 mi_strerror(rec->error), rec->error_at);
		dbuf_puts(&o, tmp);
	} else {
		if (rec->has_token) {
			snprintf(tmp, sizeof tmp, "%llu",
				 (unsigned long long)rec->token);
			dbuf_puts(&o, tmp);
		}
		char p = prefix_of(rec->kind);
		dbuf_put(&o, &p, 1);
		if (rec->kind >= MI_REC_CONSOLE && rec->kind <= MI_REC_LOG) {
			put_quoted(&o, rec->text, rec->text_len);
		} else {
			dbuf_puts(&o, rec->klass);
			for (const struct mi_node *n = rec->results; n;
			     n = n->next) {
				dbuf_put(&o, ",", 1);
				put_node(&o, n);
			}
		}
	}
	size_t n = o.len;
	char *text = dbuf_take(&o);
	if (text && len)
		*len = n;
	return text;
}
