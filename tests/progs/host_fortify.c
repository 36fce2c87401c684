/* tests/sh/host_crash.sh: a copy longer than its destination, caught by
 * _FORTIFY_SOURCE (built -O1 -D_FORTIFY_SOURCE=2: strcpy becomes
 * __strcpy_chk, which aborts before the write) in set_name. */
#include <stdio.h>
#include <string.h>

struct record {
	char name[8];
	int id;
};

__attribute__((noinline)) static void set_name(struct record *r,
					       const char *name)
{
	strcpy(r->name, name); /* MARK_FORTIFY */
}

int main(int argc, char **argv)
{
	struct record r = { .id = argc };
	set_name(&r, argc > 1 ? argv[1] : "a name far longer than eight");
	printf("%s %d\n", r.name, r.id);
	return 0;
}
