/* A small program for the gdb session tests: arguments, output on its
 * terminal, a function to step into and finish, locals, exit code 7. */
#include <stdio.h>

static int square(int x)
{
	int y = x * x;
	return y;
}

int main(int argc, char **argv)
{
	int total = 0;
	for (int i = 1; i < argc; i++)
		printf("arg%d=[%s]\n", i, argv[i]);
	printf("hello from steps\n");
	fflush(stdout);
	total = square(3);
	total += square(4);
	printf("total=%d\n", total);
	return total == 25 ? 7 : 1;
}
