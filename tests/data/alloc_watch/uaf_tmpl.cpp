// tests/sh/alloc_watch.sh: a use after free in C++ through the typed
// wrapper cuda_runtime.h gives (template<class T> cudaMalloc(T **,
// size_t)), built -O0 -g: gdb's dprintf on cudaMalloc then has a second
// place, inside the wrapper past its whole prologue, where the return
// address is no longer at %rsp.  Linked with the layered stand-in
// (fake_cudart.c -DLAYERED): the allocation and the free must be named
// at the program's own lines, not inside the wrapper or the runtime.
#include <cstddef>
#include <cstdio>

extern "C" int cudaMalloc(void **out, size_t n);
extern "C" int cudaFree(void *p);

template <class T> static int cudaMalloc(T **p, size_t n)
{
	return ::cudaMalloc(reinterpret_cast<void **>(p), n);
}

int main()
{
	float *stats, *other;
	cudaMalloc(&stats, 1 << 20); // MARK_ALLOC
	for (int i = 0; i < 3; i++) {
		cudaMalloc(&other, 1 << 20);
		cudaFree(other);
	}
	cudaFree(stats); // MARK_FREE
	stats[17] = 1.0f; // MARK_USE
	std::printf("done\n");
	return 0;
}
