/* Fuzz target: the lean copy's ELF reader and writer (mi/leansym.c) on
 * any bytes as the library.  A library is a file the program maps, so the
 * input goes through a file of the fuzzer's own. */
#include "cudbg/leansym.h"
#include "tests/fuzz/fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char dir[] = "/tmp/cudbg-fuzz-leansym-XXXXXX";
	static bool made;
	if (!made) {
		if (!mkdtemp(dir))
			return 0;
		made = true;
	}
	char lib[64], cache[64];
	snprintf(lib, sizeof lib, "%s/lib.so", dir);
	snprintf(cache, sizeof cache, "%s/cache", dir);
	FILE *f = fopen(lib, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	struct leansym ls;
	char err[256];
	enum leansym_names names = size && (data[0] & 1) ? LEANSYM_OPERATORS
							  : LEANSYM_NO_STUBS;
	if (leansym_make(lib, cache, names, &ls, err, sizeof err) == 0) {
		unlink(ls.path); /* each input is a library of its own */
		free(ls.path);
	} else if (!memchr(err, '\0', sizeof err)) {
		__builtin_trap();
	}
	return 0;
}
