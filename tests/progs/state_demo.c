/* A CPU program for the program state panes' screen tests (locals,
 * stack, watches, breakpoints, registers, memory) under plain gdb: a
 * buffer filled in a nested call, a struct, a running sum. */
#include <stdio.h>
#include <string.h>

struct point {
	int x, y;
};

static int fill(int *buf, int n, int seed)
{
	int sum = 0;

	for (int i = 0; i < n; i++) {
		buf[i] = seed * 10 + i;
		sum += buf[i];
	}
	return sum;
}

static int step(int *buf, int n, int round)
{
	struct point p = { round, round * 2 };
	int got = -1;

	got = fill(buf, n, round);
	return got + p.x + p.y;
}

int main(void)
{
	int buf[8];
	char label[16];
	int total = 0;

	memset(buf, 0, sizeof buf);
	strcpy(label, "cudbg-tui");
	for (int round = 1; round <= 3; round++)
		total += step(buf, 8, round);
	printf("%s total %d\n", label, total);
	return 0;
}
