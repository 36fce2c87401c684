/* Fuzz target: the Python stack read from memory (diag/pymem.c) over any
 * bytes as the process's memory, and the line tables over any bytes.
 * Input: byte 0 picks the version (3.10 + byte % 4) and whether the code
 * type is checked, bytes 1-2 the runtime's offset in the image; the rest
 * is the image, mapped at IMAGE_BASE (pointers in it that point back
 * into it make walks of any shape). */
#include "cudbg/pymem.h"
#include "tests/fuzz/fuzz.h"

#include <string.h>

enum { IMAGE_BASE = 0x1000 };

struct image {
	const uint8_t *b;
	size_t n;
};

static int image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct image *im = ctx;
	if (addr < IMAGE_BASE || addr - IMAGE_BASE > im->n ||
	    len > im->n - (addr - IMAGE_BASE))
		return -1;
	memcpy(buf, im->b + (addr - IMAGE_BASE), len);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 3)
		return 0;
	unsigned minor = 10 + data[0] % 4;
	struct image im = { data + 3, size - 3 };
	struct diag_pymem_syms s = {
		.runtime = IMAGE_BASE + ((size_t)data[1] | (size_t)data[2] << 8),
		.code_type = (data[0] & 4) ? IMAGE_BASE : 0,
		.version = 0x03000000u | minor << 16,
	};
	struct diag_pymem_thread want = { .lwp = data[0] >> 3 };
	struct diag_pystack ps;
	char why[256];
	if (diag_pymem_stack(image_read, &im, &s, &want, &ps, why,
			     sizeof why) == 0) {
		for (size_t i = 0; i < ps.n_frames; i++)
			if (!ps.frames[i].file || !ps.frames[i].func)
				__builtin_trap();
		diag_pystack_free(&ps);
	} else if (!memchr(why, '\0', sizeof why) || ps.n_frames) {
		__builtin_trap();
	}
	for (long idx = -1; idx < 64; idx += 5)
		(void)diag_pymem_line(minor, im.b, im.n, (int)data[1], idx);
	return 0;
}
