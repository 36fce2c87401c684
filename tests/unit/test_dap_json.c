/* The DAP server's JSON (dap/json.c) and the splitting of gdb aggregate
 * values into DAP variables (dap/inspect.c). */
#include "dap/dap_int.h"
#include "dap/json.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct dj *parse(const char *s)
{
	char err[128];
	return dj_parse(s, strlen(s), err, sizeof err);
}

static bool refused(const char *s, const char *why)
{
	char err[128] = "";
	struct dj *v = dj_parse(s, strlen(s), err, sizeof err);
	dj_free(v);
	return !v && strstr(err, why) != NULL;
}

TEST(parses_a_request)
{
	struct dj *v = parse(" {\"seq\":3,\"type\":\"request\",\"command\":"
			     "\"next\",\"arguments\":{\"threadId\":1000000,"
			     "\"granularity\":\"instruction\",\"x\":[1,true,null]}} ");
	CHECK(v != NULL);
	CHECK(dj_int(v, "seq", -1) == 3);
	CHECK_STR(dj_str(v, "command", ""), "next");
	const struct dj *a = dj_get(v, "arguments");
	CHECK(dj_int(a, "threadId", 0) == 1000000);
	CHECK(dj_int(a, "granularity", -5) == -5); /* a string: the default */
	CHECK(dj_get(a, "x")->len == 3);
	dj_free(v);
}

TEST(unicode_escapes_become_utf8)
{
	struct dj *v = parse("\"a\\u00e9\\ud83d\\ude00\\n\"");
	CHECK(v && v->type == DJ_STR);
	CHECK_STR(v->str, "a\xc3\xa9\xf0\x9f\x98\x80\n");
	dj_free(v);
}

TEST(refuses_what_rfc8259_refuses)
{
	CHECK(refused("[1,]", "expected a value"));
	CHECK(refused("{\"a\":1,}", "expected a key string"));
	CHECK(refused("01", "text after the value"));
	CHECK(refused("\"\\ud800\"", "bad escape"));
	CHECK(refused("\"\xff\"", "invalid UTF-8"));
	CHECK(refused("\"a\nb\"", "control character"));
	CHECK(refused("'x'", "expected a value"));
	CHECK(refused("1.", "expected a value"));
	CHECK(refused("", "expected a value"));
	char deep[201];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	deep[200] = 0;
	CHECK(refused(deep, "nested too deeply"));
}

TEST(text_is_made_visible)
{
	struct dj_w w;
	dj_w_init(&w);
	dj_w_text(&w, "red\033[31m \xe2\x80\xae x\xff\ttab\r\n");
	CHECK_STR(w.j.b.s, "\"red\\\\x1b[31m \\\\u{202e} x\\\\xff\\ttab\\\\x0d\\n\"");
	dj_w_free(&w);
}

TEST(writer_separates_members)
{
	struct dj_w w;
	dj_w_init(&w);
	dj_w_obj(&w);
	dj_w_kint(&w, "a", 1);
	dj_w_key(&w, "b");
	dj_w_arr(&w);
	dj_w_str(&w, "x\"y");
	dj_w_bool(&w, false);
	dj_w_null(&w);
	dj_w_arr_end(&w);
	dj_w_obj_end(&w);
	CHECK_STR(w.j.b.s, "{\"a\":1,\"b\":[\"x\\\"y\",false,null]}");
	dj_w_free(&w);
}

struct items {
	char out[512];
	size_t n;
};

static void collect(void *ctx, const char *name, size_t nlen, const char *val,
		    size_t vlen)
{
	struct items *it = ctx;
	size_t l = strlen(it->out);
	snprintf(it->out + l, sizeof it->out - l, "%.*s=%.*s;", (int)nlen,
		 name ? name : "", (int)vlen, val);
	it->n++;
}

TEST(splits_gdb_aggregates)
{
	struct items it = { "", 0 };
	CHECK(dap_split_value("{left = 4, right = 2.5, s = \"a, {b}\", in = "
			      "{x = 1, y = 2}}", collect, &it, 100) == 4);
	CHECK_STR(it.out, "left=4;right=2.5;s=\"a, {b}\";in={x = 1, y = 2};");
	memset(&it, 0, sizeof it);
	CHECK(dap_split_value("{0 <repeats 3 times>, 7, 'a'}", collect, &it,
			      100) == 5);
	CHECK_STR(it.out, "=0;=0;=0;=7;='a';");
	memset(&it, 0, sizeof it);
	CHECK(dap_split_value("{1, 2, 3}", collect, &it, 2) == 2);
	CHECK(dap_split_value("0x5555 <table>", collect, &it, 2) == -1);
}
