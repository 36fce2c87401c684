/* Fuzz target: compute-sanitizer's findings read from its text output
 * (diag_san_from_text, diag/santext.c), which a memcheck pass stopped in
 * its coredump reports from.  Every record and frame is walked, and what
 * the text says of each record's kernel (diag/sankernel.c: the pass's
 * early stop reads it from the same text). */
#include "cudbg/sanitizer.h"
#include "diag/internal.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

static size_t slen(const char *s)
{
	return s ? strlen(s) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_san *s = diag_san_from_text((const char *)data, size);
	if (!s)
		return 0;
	size_t sum = diag_san_errors(s);
	for (size_t i = 0; i < diag_san_count(s); i++) {
		const struct diag_san_record *r = diag_san_get(s, i);
		sum += slen(r->text) + slen(r->error) + slen(r->path) +
		       slen(r->func) + slen(r->exception) + slen(r->api) +
		       slen(r->message) + slen(r->save_location) +
		       r->thread.x + r->size + r->line + (size_t)r->distance;
		for (size_t j = 0; j < r->n_host; j++)
			sum += slen(r->host[j].func) + slen(r->host[j].path) +
			       slen(r->host[j].module) + r->host[j].python;
		for (size_t j = 0; j < r->n_device; j++)
			sum += slen(r->device[j].func) + r->device[j].line;
		sum += diag_san_text_names_kernel(r, (const char *)data, size, NULL);
		sum += slen(diag_san_device_kernel(r));
		char *k = diag_san_lambda_kernel(r);
		sum += slen(k);
		free(k);
	}
	diag_san_free(s);
	return (int)(sum & 0);
}
