/* Helpers the benchmarks share (tests/bench/util.c). */
#ifndef CUDBG_BENCH_UTIL_H
#define CUDBG_BENCH_UTIL_H

#include "cudbg/mi.h"

#include <stddef.h>

/* CLOCK_MONOTONIC in seconds. */
double bench_now(void);

/* The longest debugger line (`<` tag) starting with `prefix` in a gzipped
 * transcript, without its newline; *len gets its length.  malloc'd, or
 * NULL when the file cannot be read or holds no such line. */
char *bench_find_line(const char *path, const char *prefix, size_t *len);

/* The 10.5 MB -cuda-info-threads answer of big_grid.mi.log.gz, found in
 * argv[1], else $CUDBG_FIXTURES, else tests/shared/fixtures; *len gets
 * its length.  malloc'd, or NULL after a message to stderr that names
 * `prog` and the file. */
char *bench_threads_line(const char *prog, int argc, char **argv, size_t *len);

/* Seconds to push line (len bytes) and a newline through a new parser
 * that calls fn(ctx) per record; the parser's setup is not timed. */
double bench_parse(const char *line, size_t len, mi_record_fn fn, void *ctx);

#endif
