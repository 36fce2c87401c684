/* Extra words for the device exceptions cuda-gdb reports.  The name and
 * number always come from the debugger's record (numbers and names vary
 * between versions); this table only adds an explanation and the scope,
 * matched by name, case-insensitively (compute-sanitizer writes "Warp
 * assert" where cuda-gdb writes "Warp Assert"). */
#include "cudbg/diag.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

struct exc_text {
	const char *name;
	const char *scope;
	const char *text;
};

static const struct exc_text table[] = {
	{"Device Unknown Exception", "device",
	 "The GPU stopped on an error it could not classify; no thread is "
	 "named. Run the memcheck pass to find the access."},
	{"Lane Illegal Address", "lane",
	 "This thread read or wrote global memory that no allocation covers."},
	{"Lane User Stack Overflow", "lane",
	 "This thread used more stack than its limit: deep or unbounded "
	 "recursion, or large local arrays in device functions."},
	{"Device Hardware Stack Overflow", "device",
	 "The hardware call stack overflowed somewhere on the device, usually "
	 "from heavy divergence around function calls. No thread is named."},
	{"Warp Illegal Instruction", "warp",
	 "A thread of this warp executed an instruction the GPU refuses: "
	 "corrupted code, a bad function pointer, or code built for another "
	 "architecture."},
	{"Warp Out-of-range Address", "warp",
	 "A thread of this warp used a local or shared memory address outside "
	 "its window (an index past a __shared__ or local array)."},
	{"Warp Misaligned Address", "warp",
	 "A thread of this warp accessed memory at an address that is not a "
	 "multiple of the access size (a float4 or double read from an odd "
	 "offset, a cast of a byte pointer)."},
	{"Warp Invalid Address Space", "warp",
	 "A thread of this warp used an instruction on a memory space it does "
	 "not allow, e.g. a generic pointer that points nowhere valid."},
	{"Warp Invalid PC", "warp",
	 "A thread of this warp jumped to an address outside the code: a "
	 "corrupted function pointer or return address."},
	{"Warp Hardware Stack Overflow", "warp",
	 "The hardware stack of this warp overflowed (deep divergence around "
	 "calls)."},
	{"Device Illegal Address", "device",
	 "Some thread on the device accessed an illegal global address; the "
	 "debugger cannot say which. `set cuda autostep` on the suspect "
	 "region or the memcheck pass pin it down."},
	{"Lane Misaligned Address", "lane",
	 "This thread accessed global memory at a misaligned address."},
	{"Warp Assert", "warp",
	 "A device assert() failed. cuda-gdb names the lane that called "
	 "__assert_fail; other threads may have failed the same assert."},
	{"Lane Syscall Error", "lane",
	 "A system call made by this thread (device malloc, printf) failed."},
	{"Warp Illegal Address", "warp",
	 "A thread of this warp accessed global memory that no allocation "
	 "covers: a null or dangling pointer, or an index past the end."},
	{"Invalid Managed Memory Access", "device",
	 "The host touched managed (cudaMallocManaged) memory while a kernel "
	 "was running, on a GPU without concurrent managed access."},
	{"Cluster Out-of-range Address", "cluster",
	 "A thread accessed distributed shared memory outside the cluster's "
	 "blocks."},
	{"Cluster Target Block Not Present", "cluster",
	 "A thread accessed the shared memory of a cluster block that is not "
	 "running."},
};

const char *diag_exception_explain(const char *name, const char **scope)
{
	if (scope)
		*scope = NULL;
	if (!name)
		return NULL;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcasecmp(table[i].name, name) == 0) {
			if (scope)
				*scope = table[i].scope;
			return table[i].text;
		}
	return NULL;
}

/* ---- flag names -------------------------------------------------------- */

static const char *const flag_names[] = {
#define DIAG_FLAG_NAME(e, name, text) name,
	DIAG_FLAGS(DIAG_FLAG_NAME)
#undef DIAG_FLAG_NAME
};

static const char *const flag_texts[] = {
#define DIAG_FLAG_TEXT(e, name, text) text,
	DIAG_FLAGS(DIAG_FLAG_TEXT)
#undef DIAG_FLAG_TEXT
};

const char *diag_flag_name(enum diag_flag f)
{
	return (unsigned)f < DIAG_F_COUNT ? flag_names[f] : "?";
}

const char *diag_flag_text(enum diag_flag f)
{
	return (unsigned)f < DIAG_F_COUNT ? flag_texts[f] : "?";
}

int diag_flag_lookup(const char *name)
{
	for (int i = 0; i < DIAG_F_COUNT; i++)
		if (strcmp(flag_names[i], name) == 0)
			return i;
	return -1;
}

const char *diag_fault_kind_name(enum diag_fault_kind k)
{
	switch (k) {
	case DIAG_FAULT_NONE: return "none";
	case DIAG_FAULT_EXCEPTION: return "exception";
	case DIAG_FAULT_ASSERT: return "assert";
	case DIAG_FAULT_TRAP: return "trap";
	case DIAG_FAULT_MEMCHECK: return "memcheck";
	case DIAG_FAULT_CUDA_ERROR: return "cuda-error";
	case DIAG_FAULT_HOST_SIGNAL: return "host-signal";
	case DIAG_FAULT_EXIT: return "exit";
	case DIAG_FAULT_ENVIRONMENT: return "environment";
	case DIAG_FAULT_HANG: return "hang";
	}
	return "?";
}
