/* Fuzz target: the reader of the memcheck pass's text kept in a
 * recording as "sanitizer|" notes (diag/pass_text.c).  The input is the
 * recording; it goes through a file because the reader streams one. */
#include "cudbg/memcheck.h"
#include "tests/fuzz/fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/cudbg-fuzz-pass-text-XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	size_t off = 0;
	while (off < size) {
		ssize_t n = write(fd, data + off, size - off);
		if (n <= 0)
			break;
		off += (size_t)n;
	}
	close(fd);
	char err[256];
	size_t len = 0;
	char *text = diag_pass_text_read(path, &len, err, sizeof err);
	unlink(path);
	volatile size_t sum = len;
	if (text) {
		/* the text is NUL ended at len and holds what the notes said */
		sum += strlen(text) <= len;
		free(text);
	}
	(void)sum;
	return 0;
}
