/* Sleeps for a long time in small naps: a program to interrupt, attach
 * to, or leave behind when the debugger is killed. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("sleeper %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 600; i++)
		usleep(100000);
	return 0;
}
