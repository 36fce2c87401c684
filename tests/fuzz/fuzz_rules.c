/* Fuzz target: the rules file loader, then matching and rendering every
 * rule that loads against a fault with most fields set. */
#include "cudbg/assertline.h"
#include "cudbg/hints.h"
#include "tests/fuzz/fuzz.h"

#include <stdlib.h>
#include <string.h>

static char *S(const char *s)
{
	return (char *)(uintptr_t)s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct diag_rules *r = NULL;
	char err[256];
	if (diag_rules_load_buf("fuzz.rules", (const char *)data, size, &r,
				err, sizeof err) < 0)
		return 0;
	struct diag_assert_entry e = {.file = S("k.cu"), .line = 3,
				      .kernel = S("void k()"),
				      .kernel_short = S("k"), .expr = S("x > 0"),
				      .count = 2, .n_examples = 1};
	const struct diag_assert_entry *ep[1] = {&e};
	char *lines[1] = {S("CUDA error: device-side assert triggered")};
	struct diag_value v[1] = {{S("n"), S("5")}};
	struct diag_fault f = {
		.kind = DIAG_FAULT_ASSERT, .exception_code = 12,
		.signal_name = S("CUDA_EXCEPTION_12"),
		.exception_name = S("Warp Assert"), .kernel = S("void k()"),
		.kernel_short = S("k"), .asserts = ep, .n_asserts = 1,
		.assert_total = 2, .output_lines = lines, .n_output_lines = 1,
		.values = v, .n_values = 1,
	};
	for (int i = 0; i < DIAG_F_COUNT; i += 2)
		f.flags[i] = true;
	struct diag_hints h = {0};
	diag_hints_match(r, &f, &h);
	diag_hints_clear(&h);
	const char *want[8];
	diag_hints_wanted(r, &f, want, 8);
	diag_rules_free(r);
	return 0;
}
