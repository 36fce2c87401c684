/* tests/sh/host_crash.sh: CPU crashes that arrive in a library, whose
 * account must name the program's own frame and its values, and say how
 * the crash came about from the host stack (never from what the program
 * printed):
 *   assert  assert() fails in check_rows (n = 21): __assert_fail, abort
 *   abort   an error check gives up with abort() in give_up (err = 700)
 *   memcpy  memcpy from a null source in copy_rows (src = 0x0): SIGSEGV
 *           in libc's memcpy
 *   smash   fill_header writes 64 bytes into an 8-byte local array: the
 *           stack protector stops the return (built -fstack-protector-all)
 *   twice   release frees one block twice: glibc's free aborts
 *   recurse walk calls itself with no base case until the stack runs
 *           out (SIGSEGV thousands of frames deep)
 *   nullnext second_val reads n->next->val with n->next NULL: SIGSEGV at
 *           address 0, the line's own dereference
 *   pastend sum_every reads data[i * step] past its 4000-byte block
 *           until the address is unmapped (SIGSEGV)
 *   sigbus  map_past reads a file's mapping past the file's end: mapped
 *           memory the access cannot use (SIGBUS) */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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

__attribute__((noinline)) static void fill(char *p, int n)
{
	memset(p, 'x', (size_t)n);
}

static int fill_header(int n)
{
	char header[8];
	fill(header, n);
	return header[0];
} /* MARK_SMASH: the canary is checked as it returns */

__attribute__((noinline)) static int walk(int n, volatile char *up)
{
	volatile char here[64];
	here[0] = (char)n;
	up[0] = here[0];
	return walk(n + 1, here) + 1; /* MARK_WALK */
}

struct node {
	int val;
	struct node *next;
};

__attribute__((noinline)) static int second_val(const struct node *n)
{
	return n->next->val; /* MARK_NULLNEXT */
}

__attribute__((noinline)) static long sum_every(const int *data, int n, int step)
{
	long sum = 0;
	for (int i = 0; i <= n; i++)
		sum += data[i * step]; /* MARK_PASTEND */
	return sum;
}

__attribute__((noinline)) static int map_past(void)
{
	FILE *f = tmpfile();
	if (!f || fputc('x', f) == EOF || fflush(f) != 0)
		return 0;
	const char *map = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fileno(f), 0);
	if (map == MAP_FAILED)
		return 0;
	return map[4096]; /* MARK_SIGBUS */
}

static void release(char *p)
{
	free(p);
	free(p); /* MARK_TWICE */
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
	if (strcmp(mode, "smash") == 0)
		return fill_header(argc * 32);
	if (strcmp(mode, "twice") == 0)
		release(malloc(32));
	if (strcmp(mode, "recurse") == 0)
		return walk(0, buf); /* MARK_RECURSE */
	if (strcmp(mode, "nullnext") == 0) {
		struct node last = { 1, NULL };
		return second_val(&last);
	}
	if (strcmp(mode, "sigbus") == 0)
		return map_past();
	if (strcmp(mode, "pastend") == 0)
		return (int)sum_every(calloc(1000, sizeof(int)), 1 << 30, 1000);
	return buf[0] == 'x';
}
