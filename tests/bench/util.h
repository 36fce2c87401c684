/* Helpers the benchmarks share (tests/bench/util.c). */
#ifndef CUDBG_BENCH_UTIL_H
#define CUDBG_BENCH_UTIL_H

#include <stddef.h>

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);

/* The longest debugger line (`<` tag) starting with `prefix` in a gzipped
 * transcript, without its newline; *len gets its length.  malloc'd, or
 * NULL when the file cannot be read or holds no such line. */
char *bench_find_line(const char *path, const char *prefix, size_t *len);

#endif
