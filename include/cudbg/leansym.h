/* A lean copy of a host library for the debugger's symbols (mi/leansym.c).
 *
 * Why: cuda-gdb 13 runs a hook on every new symbol file that looks up, in
 * that file's minimal symbols, the kernel behind each `__device_stub_`
 * text symbol.  In torch's CUDA library (211,000 symbols, thousands of
 * stubs of templated kernels hashing into the same buckets) that costs
 * about 7 of the 8 s `sharedlibrary libtorch_cuda` takes on the H200,
 * after the symbol table itself was read in 0.6 s (GPU run 11: stack
 * samples of cuda-gdb, tests/fixtures/gpu/run11/solibprof.txt).  The host
 * stack only needs the library's unwind tables and function names.
 *
 * The copy keeps every section header, the symbol and string tables, the
 * unwind tables and every small section; a large allocated section
 * (code, read-only data, fat binaries) keeps its header as SHT_NOBITS and
 * no bytes, since gdb reads a live program's code from its memory.  Each
 * symbol whose name holds `__device_stub_` loses its name (gdb skips
 * nameless symbols).  Program headers are dropped: the copy is loaded
 * with `add-symbol-file FILE -o BIAS` and placed by its sections.  For
 * torch's CUDA library: about 85 MB of 456 MB, written once into a cache
 * directory and named after the library's size and modification time;
 * a new copy of a library replaces the older copies of one of its name.
 *
 * LEANSYM_OPERATORS keeps fewer names: torch's CPU and Python libraries
 * cost 1.4-1.5 s the ordinary way at a stop (GPU runs 31-32), where the
 * report needs only the operator frames' names.  Kept: every C name (the
 * launch calls, a static runtime's) and the C++ names of at::_ops,
 * at::native and torch::autograd (the dispatcher's operator, its kernel's
 * host side, the autograd and Python bindings); the other C++ names go
 * (c10's dispatch wrappers: "??" in the stack), stubs always.  Symbol
 * sizes stay, so gdb names no frame after a kept function's end. */
#ifndef CUDBG_LEANSYM_H
#define CUDBG_LEANSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Which names a copy keeps. */
enum leansym_names {
	LEANSYM_NO_STUBS,  /* all but the __device_stub_ names */
	LEANSYM_OPERATORS, /* C names and torch's operator frames' */
};

struct leansym {
	char *path;         /* the copy (malloc'd) */
	uint64_t text_addr; /* the library's .text address in its file; the
			     * program's .text address minus this is the
			     * copy's -o offset */
	unsigned blanked;   /* names removed (0 when the copy was already
			     * in the cache) */
	bool made;          /* written now, not found in the cache */
};

/* Makes (or finds) the lean copy of `lib` in `cache_dir` (created if
 * missing) keeping `names`.  Only 64-bit little-endian ELF files with a
 * .text section.  Returns 0 and fills out (free out->path), or -1 with a
 * one-line reason in err.  Never modifies lib; a half-written copy never
 * takes the cache name (it is written aside and renamed). */
int leansym_make(const char *lib, const char *cache_dir,
		 enum leansym_names names, struct leansym *out, char *err,
		 size_t cap);
/* Whether a symbol name survives in a copy keeping `names` (the name as
 * the ELF file spells it: mangled, len bytes, not NUL-ended). */
bool leansym_keeps(enum leansym_names names, const char *name, size_t len);

/* The cache directory the user's environment gives: $CUDBG_SYMBOL_CACHE
 * (empty: none), else $XDG_CACHE_HOME/cudbg-tui/symbols, else
 * $HOME/.cache/cudbg-tui/symbols; NULL when none can be named.  malloc'd. */
char *leansym_cache_dir(void);

#endif
