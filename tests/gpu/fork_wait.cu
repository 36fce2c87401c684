// cudbg-args: --timeout 15
// A launcher that waits for ever for a worker that died: the parent runs
// a kernel (CUDA is up), forks a worker to check the result, and waits
// for its answer on a pipe whose write end it keeps (as a pool keeps its
// own); the worker reads the result through a NULL pointer (no CUDA in
// it) and dies of SIGSEGV, so no answer ever comes.  Truth: a host hang
// of the parent (read() in main, fork_wait.cu:39) caused by the worker's
// SIGSEGV; the report names the dead worker (pid, its command line
// `fork_wait`) and puts hint hang-child-died first, the hang's own hint
// (hang-running) after it.  Plain run: never ends (exit 124).
#include <cstdio>
#include <cuda_runtime.h>
#include <sys/types.h>
#include <unistd.h>

__global__ void square(int *v) { v[threadIdx.x] *= v[threadIdx.x]; }

static int check_result(const int *result) { return result[0] == 4; }

int main() {
    int *d, h[32];
    for (int i = 0; i < 32; i++) h[i] = i;
    cudaMalloc(&d, sizeof h);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    square<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    int fds[2];
    if (pipe(fds) != 0) return 2;
    pid_t pid = fork();
    if (pid == 0) {
        const int *result = nullptr; // bug: should be h
        char ok = (char)check_result(result);
        write(fds[1], &ok, 1);
        _exit(0);
    }
    printf("waiting for worker %d\n", (int)pid);
    fflush(stdout);
    char answer;
    read(fds[0], &answer, 1); // the wait: the worker died, fds[1] is still ours
    printf("worker said %d\n", answer);
    return 0;
}
