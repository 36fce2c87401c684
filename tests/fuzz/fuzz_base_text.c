/* Fuzz target: base's text safety (base/text.c, base/utf8.c,
 * docs/text-safety.md).  For any bytes:
 *   - the terminal escaper's output is valid UTF-8 with no ESC, no C0
 *     control (but tab/newline where the flags keep them), no DEL, no C1
 *     and no bidi control: nothing that steers a terminal;
 *   - the JSON escaper's output parses (dap/json.c's strict parser) as one
 *     JSON string equal to the input where the input was valid UTF-8;
 *   - jw_text's output parses as one string holding no control but tab
 *     and newline;
 *   - the decoder agrees with itself: a decoded sequence re-encodes to the
 *     same bytes;
 *   - stripping colour sequences never grows the text and leaves text
 *     with no ESC unchanged. */
#include "cudbg/base.h"
#include "dap/json.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

static void check_terminal_safe(const char *s, size_t n, unsigned flags)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		enum text_class cls;
		size_t k = text_next(s + i, n - i, &cp, &cls);
		bool kept = (cls == TEXT_TAB && (flags & TEXT_KEEP_TAB)) ||
			    (cls == TEXT_NEWLINE && (flags & TEXT_KEEP_NEWLINE));
		if (cls != TEXT_OK && !kept)
			__builtin_trap();
		i += k;
	}
}

static void terminal_escaper(const char *data, size_t size, unsigned flags)
{
	struct dbuf b = { 0 };
	text_escape(&b, data, size, flags);
	if (!b.oom)
		check_terminal_safe(b.s ? b.s : "", b.len, flags);
	dbuf_free(&b);
}

static bool valid_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		uint32_t cp;
		size_t k = utf8_decode(s + i, n - i, &cp);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

static void json_escaper(const char *data, size_t size)
{
	struct dbuf b = { 0 };
	char err[128];
	json_escape(&b, data, size);
	if (b.oom) {
		dbuf_free(&b);
		return;
	}
	struct dj *v = dj_parse(b.s, b.len, err, sizeof err);
	if (!v || v->type != DJ_STR)
		__builtin_trap(); /* not one JSON string */
	if (valid_utf8(data, size) &&
	    (v->len != size || memcmp(v->str, data, size) != 0))
		__builtin_trap(); /* valid text did not round trip */
	for (size_t i = 0; i < b.len; i++)
		if ((unsigned char)b.s[i] < 0x20)
			__builtin_trap(); /* a raw control in the JSON text */
	dj_free(v);
	dbuf_free(&b);
}

static void json_text(const char *data, size_t size)
{
	struct jw w;
	char err[128];
	jw_init(&w);
	jw_text(&w, NULL, data, size);
	char *s = jw_take(&w);
	if (!s)
		return;
	struct dj *v = dj_parse(s, strlen(s), err, sizeof err);
	if (!v || v->type != DJ_STR)
		__builtin_trap();
	check_terminal_safe(v->str, v->len, TEXT_KEEP_TAB | TEXT_KEEP_NEWLINE);
	dj_free(v);
	free(s);
}

static void decoder(const char *data, size_t size)
{
	for (size_t i = 0; i < size;) {
		uint32_t cp;
		char out[4];
		size_t k = utf8_decode(data + i, size - i, &cp);
		if (!k) {
			i++;
			continue;
		}
		if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF) ||
		    utf8_encode(cp, out) != k || memcmp(out, data + i, k) != 0)
			__builtin_trap();
		i += k;
	}
}

static void control_stripper(const char *data, size_t size)
{
	char *c = malloc(size ? size : 1);
	if (!c)
		return;
	memcpy(c, data, size);
	size_t n = text_strip_colours(c, size);
	if (n > size ||
	    (!memchr(data, 0x1b, size) && (n != size || memcmp(c, data, n))))
		__builtin_trap();
	free(c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	terminal_escaper(s, size, 0);
	terminal_escaper(s, size, TEXT_KEEP_TAB | TEXT_KEEP_NEWLINE);
	json_escaper(s, size);
	json_text(s, size);
	decoder(s, size);
	control_stripper(s, size);
	return 0;
}
