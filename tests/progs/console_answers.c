/* The console as gdb's console (tests/screens/console_answers.script):
 * `finish` out of twice() answers "Run till exit ..." and "Value returned
 * is $1 = 1"; a watchpoint on twice()'s local goes out of scope when it
 * returns ("Watchpoint 2 deleted because the program has left the block
 * in which its expression is valid."). */
#include <stdio.h>

static int twice(int v)
{
	int local = v * 2;
	local += 1;
	return local;
}

int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += twice(i);
	printf("%d\n", s);
	return 0;
}
