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

#ifdef LAYERED
/* As the real runtime is layered: cudaMalloc calls an internal function
 * (libcudart_static_<hash> in a static link) that calls the driver's
 * cuMemAlloc_v2 with a pointer of its own, so one allocation passes
 * three watched functions and only the first was the program's call. */
int cuMemAlloc_v2(void **out, size_t n);
int cuMemFree_v2(void *p);

int cuMemAlloc_v2(void **out, size_t n)
{
	void *p = mmap(NULL, n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 2;
	*out = p;
	return 0;
}

int cuMemFree_v2(void *p)
{
	return p ? munmap(p, 1 << 20) : 0;
}

static __attribute__((noinline)) int runtime_alloc(void **out, size_t n)
{
	void *mine = NULL;
	int rc = cuMemAlloc_v2(&mine, n);
	*out = mine;
	return rc;
}

static __attribute__((noinline)) int runtime_free(void *p)
{
	return cuMemFree_v2(p);
}

int cudaMalloc(void **out, size_t n)
{
	return runtime_alloc(out, n);
}

int cudaFree(void *p)
{
	return runtime_free(p);
}
#else
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
#endif
