/* tests/sh/host_crash.sh: CPU crashes that arrive in a library, whose
 * account must name the program's own frame and its values, and say how
 * the crash came about from the host stack (never from what the program
 * printed):
 *   assert  assert() fails in check_rows (n = 21): __assert_fail, abort
 *   abort   an error check gives up with abort() in give_up (err = 700)
 *   memcpy  memcpy from a null source in copy_rows (src = 0x0): SIGSEGV
 *           in libc's memcpy */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_rows(int n)
{
	assert(n < 10 && "too many rows"); /* MARK_ASSERT */
	return n;
}

static void give_up(int err)
{
	if (err) {
		fprintf(stderr, "check failed with code %d\n", err);
		abort(); /* MARK_ABORT */
	}
}

static void copy_rows(char *dst, const char *src, size_t n)
{
	memcpy(dst, src, n); /* MARK_MEMCPY */
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "assert";
	char buf[16];
	const char *volatile none = NULL;

	printf("host_crash %s\n", mode);
	fflush(stdout);
	if (strcmp(mode, "assert") == 0)
		return check_rows(argc + 19);
	if (strcmp(mode, "abort") == 0)
		give_up(700);
	if (strcmp(mode, "memcpy") == 0)
		copy_rows(buf, none, sizeof buf);
	return buf[0] == 'x';
}
