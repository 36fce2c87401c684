/* A stand-in for the CUDA runtime's allocation API (tests/sh/
 * alloc_watch.sh): device memory is an anonymous mapping, so a use
 * after cudaFree faults (SIGSEGV) as a kernel's access to freed device
 * memory does.  Built without debug info, as the real library is: gdb
 * then places a breakpoint by the function's name at its start or after
 * "push %rbp; mov %rsp,%rbp" (the allocation watch reads the return
 * address either way). */
#include <stddef.h>
#include <sys/mman.h>

int cudaMalloc(void **out, size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
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
