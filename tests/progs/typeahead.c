/* A loop of many lines for the type-ahead test (tests/sh/typeahead.sh):
 * each `next` from the first line of main moves one line, so N nexts
 * end at a known i and sum. */
#include <stdio.h>

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 1000; i++) {
		sum += i;
	}
	printf("sum %d\n", sum);
	return 0;
}
