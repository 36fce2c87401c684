/* The Python stack read from a stopped process's memory, without calling
 * into it (as py-spy reads a running one): works at a hardware exception,
 * where any call into the program ends it, in a coredump, and where the
 * debugger cannot call functions at all.
 *
 * What is read: _PyRuntime's first interpreter, its thread states, the
 * chosen thread's frames (innermost first), each frame's code object
 * (file name, function name, first line, line table) and the instruction
 * it is at; the line is found in the code object's line table.  The
 * layouts are those of CPython 3.10 to 3.13 on 64-bit Linux (release
 * builds, the GIL build), measured with offsetof() on each version's own
 * headers (docs/python-memory.md says how).  Every pointer read is
 * checked (a code object's type is PyCode_Type when its address is known,
 * a string's kind and length are bounded), so a wrong layout or a
 * corrupt process gives an error, never a made-up frame.
 *
 * The reader is the caller's: a function that copies len bytes at a
 * process address into buf (the debugger's -data-read-memory-bytes, a
 * test's memory image).  Nothing here prints or allocates beyond the
 * stack it returns (free it with diag_pystack_free). */
#ifndef CUDBG_PYMEM_H
#define CUDBG_PYMEM_H

#include "cudbg/pystack.h"

#include <stddef.h>
#include <stdint.h>

/* 0 when all len bytes were read into buf, -1 when not. */
typedef int (*diag_pymem_read_fn)(void *ctx, uint64_t addr, void *buf,
				  size_t len);

struct diag_pymem_syms {
	uint64_t runtime;    /* &_PyRuntime */
	uint64_t code_type;  /* &PyCode_Type, 0 when not known */
	unsigned version;    /* PY_VERSION_HEX (Py_Version), e.g. 0x030c01f0 */
};

/* The thread to read: the one whose native thread id (Linux LWP, 3.11
 * and later) or pthread_t (thread_id, every version) matches; with
 * neither known or none matching, the interpreter's first thread (the
 * main thread: thread states are added at the head). */
struct diag_pymem_thread {
	long lwp;            /* 0: unknown */
	uint64_t pthread;    /* 0: unknown */
};

/* Whether the layout of this version is known (3.10 to 3.13). */
bool diag_pymem_supported(unsigned version);
/* Where _PyRuntime.initialized (what Py_IsInitialized() returns, an
 * int) lies in _PyRuntime for that version; -1 when not known. */
long diag_pymem_initialized_offset(unsigned version);

/* Reads the stack.  Returns 0 with out filled (frames only, innermost
 * first; file, function and line of each), or -1 with why saying what
 * failed ("Python 3.9 is not supported", "thread state at 0x... not
 * readable").  out is empty on failure. */
int diag_pymem_stack(diag_pymem_read_fn read, void *ctx,
		     const struct diag_pymem_syms *syms,
		     const struct diag_pymem_thread *want,
		     struct diag_pystack *out, char *why, size_t cap);

/* The line of instruction `index` (in 2-byte code units) in a code
 * object's line table (co_linetable's bytes): the 3.11+ location table
 * when minor >= 11, the 3.10 (PEP 626) table otherwise.  first is
 * co_firstlineno.  -1 when the instruction has no line or the table does
 * not cover it.  Any bytes are safe. */
int diag_pymem_line(unsigned minor, const unsigned char *table, size_t len,
		    int first, long index);

#endif
