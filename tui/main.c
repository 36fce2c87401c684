/* Placeholder entry point; replaced by the session and screen work. */
#include <stdio.h>
int main(void)
{
	fputs("cudbg-tui: not built yet\n", stderr);
	return 2;
}
