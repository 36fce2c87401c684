/* Spins on a flag nobody sets: a hang for --timeout to interrupt (the CPU
 * twin of a kernel that waits on a flag).  It ends by itself after about
 * 60 s so a test that fails never leaves it behind for long. */
#include <stdio.h>
#include <time.h>

static volatile int ready;

int main(void)
{
	time_t end = time(NULL) + 60;
	printf("spin waiting\n");
	fflush(stdout);
	while (!ready && time(NULL) < end) { /* the spin-wait */ }
	return ready ? 0 : 3;
}
