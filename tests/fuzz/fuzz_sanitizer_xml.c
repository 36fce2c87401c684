/* Fuzz target: the compute-sanitizer XML reader, fed in chunks (the first
 * byte picks the size), then the text-output scanner over the same bytes.
 * Every record and frame is walked, with the fields the racecheck,
 * initcheck and synccheck reading fills (diag/santools.c). */
#include "cudbg/sanitizer.h"
#include "tests/fuzz/fuzz.h"

#include <string.h>

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	size_t chunk = 1 + data[0] % 251, sum = 0;
	const char *xml = (const char *)data + 1;
	size_t len = size - 1;
	struct diag_san *s = diag_san_new();
	if (!s)
		return 0;
	int rc = 0;
	for (size_t off = 0; off < len && rc == 0; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;
		rc = diag_san_feed(s, xml + off, n);
	}
	diag_san_finish(s);
	diag_san_add_text(s, xml, len);
	sum += strlen(diag_san_error(s)) + diag_san_errors(s);
	for (size_t i = 0; i < diag_san_count(s); i++) {
		const struct diag_san_record *r = diag_san_get(s, i);
		sum += slen(r->text) + slen(r->error) + slen(r->path) +
		       r->thread.x + r->size + (size_t)r->distance;
		/* racecheck's pair (diag/santools.c) */
		sum += slen(r->hazard) + slen(r->direction2) +
		       slen(r->path2) + slen(r->func2) + r->line2 +
		       (size_t)r->hazards + slen(r->direction) + slen(r->space);
		for (size_t j = 0; j < r->n_host; j++)
			sum += slen(r->host[j].func) + slen(r->host[j].path) +
			       r->host[j].python;
		for (size_t j = 0; j < r->n_device; j++)
			sum += slen(r->device[j].func);
	}
	diag_san_free(s);
	return (int)(sum & 0);
}
