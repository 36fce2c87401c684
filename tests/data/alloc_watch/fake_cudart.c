/* A stand-in for the CUDA runtime's allocation API (tests/sh/
 * alloc_watch.sh): device memory is an anonymous mapping the host cannot
 * touch (PROT_NONE, as cudaMalloc's memory is out of the host's reach),
 * so a host access to it faults (SIGSEGV), and after cudaFree the
 * mapping is gone as a kernel's access to freed device memory finds it.  Built without debug info, as the real library is: gdb
 * then places a breakpoint by the function's name at its start or after
 * "push %rbp; mov %rsp,%rbp" (the allocation watch reads the return
 * address either way). */
#include <stddef.h>
#include <sys/mman.h>

int cudaMalloc(void **out, size_t n)
{
	void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	*out = p;
	return 0;
}

int cudaFree(void *p)
{
	/* the tests' buffers are 1 MiB */
	return p ? munmap(p, 1 << 20) : 0;
}
