/* Debuggee of the batch tests: dies of SIGSEGV writing through NULL. */
#include <stdio.h>

static void poke(int *where, int value)
{
	*where = value; /* MARK_POKE */
}

int main(void)
{
	int *volatile nowhere = NULL;
	puts("about to fault");
	fflush(stdout);
	poke(nowhere, 42);
	return 0;
}
