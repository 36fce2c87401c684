/* A small CPU program the screen tests debug with gdb: a loop with
 * locals, a helper function to step into, and output on its terminal. */
#include <stdio.h>

static int square(int x)
{
	int sq = x * x;
	return sq;
}

int main(void)
{
	int total = 0;
	int limit = 4;

	for (int i = 0; i < limit; i++) {
		total += square(i);
		printf("step %d total %d\n", i, total);
	}
	printf("done: %d\n", total);
	return total == 14 ? 0 : 1;
}
