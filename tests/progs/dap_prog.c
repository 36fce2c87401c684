/* Debuggee of the DAP tests (tests/dap/dap_test.js): a struct, a large
 * array for variables paging, a function to step into and out of, output
 * on its terminal and exit code 3.  Tests find lines by the MARK_
 * comments, not by number. */
#include <stdio.h>

struct pair {
	int left;
	double right;
};

static int table[300];

static int twice(int v)
{
	int doubled = v * 2; /* MARK_TWICE_BODY */
	return doubled;
}

int main(int argc, char **argv)
{
	struct pair p = { 4, 2.5 };
	int sum = 0;
	int squares[256];
	for (int i = 0; i < 300; i++)
		table[i] = i * 3;
	for (int i = 0; i < 256; i++)
		squares[i] = i * i;
	printf("dap_prog: %d args\n", argc - 1); /* MARK_PRINT */
	fflush(stdout);
	sum = twice(p.left); /* MARK_CALL */
	sum += table[299] + squares[2] - 4;
	printf("dap_prog: sum=%d %s\n", sum, argc > 1 ? argv[1] : "");
	return sum == 905 ? 3 : 1; /* MARK_RETURN */
}
