/* Fuzz target: the kernel's process events as a netlink datagram
 * carries them (diag/procev.c, procev_parse): any bytes, every event
 * handed out read back. */
#include "cudbg/procev.h"
#include "tests/fuzz/fuzz.h"

static void take(void *ctx, const struct procev *e)
{
	long *sum = ctx;
	*sum += e->pid + e->ppid + e->status + (long)e->kind;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	long sum = 0;
	int n = procev_parse(data, size, take, &sum);
	return (int)((sum + n) & 0);
}
