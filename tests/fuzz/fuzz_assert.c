/* Fuzz target: the assertion-line parser and aggregator.  The first byte
 * picks a chunk size so line splitting is fuzzed with the content; every
 * entry is read back so each field is touched.  Also the readers of a
 * source line's accesses (diag/lvalue.c: the culprit search's lvalue, a
 * host crash's dereferences), whose text is the program's source. */
#include "cudbg/decode.h"
#include "cudbg/assertline.h"
#include "cudbg/diag.h"
#include "tests/fuzz/fuzz.h"

#include <string.h>

static void on_line(void *ctx, const char *s, size_t n)
{
	size_t *sum = ctx;
	*sum += n ? (unsigned char)s[n - 1] : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t chunk = 1 + data[0] % 97, sum = 0;
	const char *text = (const char *)data + 1;
	size_t len = size - 1;
	struct diag_assert_line l;
	if (diag_assert_parse(text, len, &l) == 1)
		sum += l.file_len + l.kernel_len + l.expr_len + l.line +
		       l.block.x + l.thread.z;
	struct diag_asserts *a = diag_asserts_new();
	if (!a)
		return 0;
	diag_asserts_set_line_hook(a, on_line, &sum);
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;
		diag_asserts_feed(a, text + off, n);
	}
	diag_asserts_finish(a);
	for (size_t i = 0; i < diag_asserts_count(a); i++) {
		const struct diag_assert_entry *e = diag_asserts_get(a, i);
		sum += strlen(e->file) + strlen(e->kernel) + strlen(e->expr) +
		       strlen(e->kernel_short) + e->count + e->n_examples +
		       e->block_max.y + e->thread_min.z;
	}
	diag_asserts_free(a);
	/* The name helper on arbitrary text, NUL ended. */
	char buf[512], name[64];
	size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;
	memcpy(buf, text, n);
	buf[n] = '\0';
	sum += dec_func_short(buf, name, sizeof name);
	char lv[160];
	sum += diag_culprit_lvalue(buf, data[0] & 1, lv, sizeof lv) ? strlen(lv) : 0;
	struct diag_deref derefs[8];
	size_t nd = diag_line_derefs(buf, derefs, 8);
	for (size_t i = 0; i < nd; i++)
		sum += strlen(derefs[i].expr) + strlen(derefs[i].base) +
		       strlen(derefs[i].index);
	return (int)(sum & 0);
}
