/* Fuzz target: the DAP server's strict JSON parser and writer
 * (dap/json.c).  Whatever parses is written back out, and that text must
 * parse again and write the same bytes (a round trip is stable); any
 * bytes written as text (dj_w_textn, the path for the debugger's and the
 * program's text) must come out as one valid JSON string. */
#include "dap/json.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

static void round_trip(const struct dj *v)
{
	struct dj_w a, b;
	char err[128];
	dj_w_init(&a);
	dj_w_value(&a, v);
	if (a.j.b.oom) {
		dj_w_free(&a);
		return;
	}
	struct dj *again = dj_parse(a.j.b.s, a.j.b.len, err, sizeof err);
	if (!again)
		__builtin_trap(); /* we wrote JSON we cannot read */
	dj_w_init(&b);
	dj_w_value(&b, again);
	if (!b.j.b.oom && (b.j.b.len != a.j.b.len || memcmp(a.j.b.s, b.j.b.s, a.j.b.len) != 0))
		__builtin_trap(); /* not stable */
	dj_free(again);
	dj_w_free(&a);
	dj_w_free(&b);
}

static void text_is_a_string(const uint8_t *data, size_t size)
{
	struct dj_w w;
	char err[128];
	dj_w_init(&w);
	dj_w_textn(&w, (const char *)data, size);
	if (w.j.b.oom) {
		dj_w_free(&w);
		return;
	}
	struct dj *v = dj_parse(w.j.b.s, w.j.b.len, err, sizeof err);
	if (!v || v->type != DJ_STR)
		__builtin_trap();
	/* no escape character and no C0 control but newline/tab survive */
	for (size_t i = 0; i < v->len; i++) {
		unsigned char c = (unsigned char)v->str[i];
		if (c < 0x20 && c != '\n' && c != '\t')
			__builtin_trap();
	}
	dj_free(v);
	dj_w_free(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[128];
	struct dj *v = dj_parse((const char *)data, size, err, sizeof err);
	if (v)
		round_trip(v);
	else if (!memchr(err, '\0', sizeof err))
		__builtin_trap();
	dj_free(v);
	text_is_a_string(data, size);
	return 0;
}
