/* Fuzz target: the parser of the live Python stack's text (what the script
 * in the program wrote, read back through the debugger: untrusted), then
 * the bad-value planner and finder over the parsed tensors, with the
 * input itself as the tensor's bytes.  The first byte picks the assert
 * (the index calls' own: the planner parses the frame's source line). */
#include "cudbg/pystack.h"
#include "tests/fuzz/fuzz.h"

#include <string.h>

static const char *const asserts[] = {
	"t >= 0 && t < n_classes", "srcIndex < srcSelectDimSize",
	"index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"",
	"probability tensor contains either `inf`, `nan` or element < 0",
	"input_val >= zero && input_val <= one", "x",
	"idx_dim >= 0 && idx_dim < index_size && \"index out of bounds\"",
	"dstIndex < dstAddDimSize",
	"idx >= -self_dim_size && idx < self_dim_size && \"index out of bounds\"",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	const char *a = asserts[data[0] % (sizeof asserts / sizeof asserts[0])];
	struct diag_pystack ps;
	size_t sum = 0;
	if (diag_pystack_parse((const char *)data + 1, size - 1, &ps) < 0)
		memset(&ps, 0, sizeof ps);
	sum += (size_t)diag_pystack_user_frame(&ps);
	for (size_t i = 0; i < ps.n_frames; i++)
		sum += strlen(ps.frames[i].file) + ps.frames[i].line;
	struct diag_pybad_plan p;
	/* each kind a rule's `value` can name, with the first byte's assert */
	enum diag_pybad_kind kind = (enum diag_pybad_kind)(data[0] / 16 % 5);
	diag_pybad_plan(&ps, a, kind, &p);
	if (p.t) {
		char out[300];
		diag_pybad_find(&p, data, size < p.bytes ? size : p.bytes, out,
				sizeof out);
		sum += strlen(out);
	}
	diag_pystack_free(&ps);
	/* the same bytes as gdb's print of an array */
	char text[512];
	size_t n = size - 1 < sizeof text - 1 ? size - 1 : sizeof text - 1;
	memcpy(text, data + 1, n);
	text[n] = '\0';
	unsigned char buf[256];
	int es = 1 << (data[0] % 4);
	sum += (size_t)diag_gdb_array_bytes(text, es, data[0] & 4, buf, sizeof buf);
	return sum == (size_t)-1;
}
