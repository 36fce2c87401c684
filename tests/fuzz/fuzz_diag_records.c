/* Fuzz target: the diagnosis collector fed MI records (a coredump's
 * console story, stops, stacks, variables, the kernels table), then the
 * analysis (provenance, groups) and both reports.  Input: lines of MI;
 * the first byte says whether the same bytes also go in as the program's
 * output (assertion lines). */
#include "cudbg/diag.h"
#include "cudbg/mi.h"
#include "cudbg/report.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

static void on_record(void *ctx, const struct mi_record *r)
{
	diag_on_record(ctx, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	struct diag *d = diag_new();
	if (!d)
		return 0;
	struct mi_parser *p = mi_parser_new(on_record, d);
	if (!p) {
		diag_free(d);
		return 0;
	}
	mi_parser_set_max_line(p, 1 << 20);
	mi_parser_push(p, (const char *)data + 1, size - 1);
	mi_parser_finish(p);
	if (data[0] & 1)
		diag_on_program_output(d, (const char *)data + 1, size - 1);
	const struct diag_fault *f = diag_analyze(d);
	struct diag_report_in in = {.fault = f, .mode = "replay",
				    .memcheck_seconds = -1};
	free(diag_report_text(&in));
	free(diag_report_json(&in));
	mi_parser_free(p);
	diag_free(d);
	return 0;
}
