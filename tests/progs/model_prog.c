/* Debuggee of the controller tests (tests/unit/test_ctl.c) and batch
 * tests: functions to step into and finish, locals, a struct, output on
 * its terminal and a chosen exit code.  Tests find lines by the marker
 * comments, not by number.
 *   model_prog [N]   prints the sum of squares 1..N, exits 7 when it is 14
 *   model_prog spin  loops until interrupted */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct point {
	int x, y;
};

static int square(int v)
{
	int r = v * v; /* MARK_SQUARE_BODY */
	return r;      /* MARK_SQUARE_RETURN */
}

static int sum_squares(int n)
{
	int total = 0;
	for (int i = 1; i <= n; i++)
		total += square(i); /* MARK_CALL */
	return total;
}

static volatile int spinning = 1;

int main(int argc, char **argv)
{
	struct point p = { 3, 4 }; /* MARK_MAIN */
	if (argc > 1 && strcmp(argv[1], "spin") == 0) {
		puts("spinning");
		fflush(stdout);
		while (spinning)
			usleep(1000); /* MARK_SPIN */
		return 0;
	}
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int s = sum_squares(n);
	printf("sum=%d p=%d,%d\n", s, p.x, p.y);
	fflush(stdout);
	return s == 14 ? 7 : 0;
}
