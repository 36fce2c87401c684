/* Builds the fault account from what the collector saw.  Each source
 * fills what it knows best: the stop names the exception and the focus,
 * the device stack the kernel and line, the assertion text the expression
 * (and the only source line PyTorch kernels have), the sanitizer the exact
 * thread and address, the host stack the operator and Python line. */
#include "diag/state.h"
#include "cudbg/hang.h"
#include "cudbg/assertline.h"
#include "cudbg/decode.h"
#include "cudbg/hints.h"
#include "cudbg/memcheck.h"
#include "cudbg/sanitizer.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char *keep(struct diag *d, char *s)
{
	if (!s)
		return NULL;
	if (d->n_scratch == d->cap_scratch) {
		size_t cap = d->cap_scratch ? d->cap_scratch * 2 : 32;
		void *v = realloc(d->scratch, cap * sizeof *d->scratch);
		if (!v) {
			free(s);
			return NULL;
		}
		d->scratch = v;
		d->cap_scratch = cap;
	}
	d->scratch[d->n_scratch++] = s;
	return s;
}

char *diag_keep(struct diag *d, char *s)
{
	return keep(d, s);
}

static char *keepf(struct diag *d, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static char *keepf(struct diag *d, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return keep(d, s);
}

void diag_fault_reset(struct diag *d)
{
	for (size_t i = 0; i < d->n_scratch; i++)
		free(d->scratch[i]);
	d->n_scratch = 0;
	free(d->fault.values);
	free(d->fault.notes);
	free(d->fault.groups);
	memset(&d->fault, 0, sizeof d->fault);
}

static void note(struct diag *d, char *text)
{
	struct diag_fault *f = &d->fault;
	if (!text)
		return;
	void *v = realloc(f->notes, (f->n_notes + 1) * sizeof *f->notes);
	if (!v)
		return;
	f->notes = v;
	f->notes[f->n_notes++] = text;
}

/* A frame of the CUDA toolkit's own code (atomicAdd's header, the
 * __iAtomicAdd intrinsic), not the user's. */
static bool toolkit_frame(const struct diag_frame *fr)
{
	return dec_frame_is_toolkit(fr->func, fr->file, fr->device);
}

/* An error-level record of a kind memcheck has no access fields for:
 * <kind>StackOverflow</kind> <level>Error</level> is the device stack
 * overflow (H200), a fault even though it is no Precise/Imprecise
 * access. */
static bool other_error(const struct diag_san_record *r)
{
	return r->kind == DIAG_SAN_OTHER && r->level &&
	       strcasecmp(r->level, "Error") == 0;
}

static void collect_findings(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	size_t n = 0;
	for (size_t i = 0; i < d->n_sans; i++)
		n += diag_san_count(d->sans[i]);
	free(d->finding_ptrs);
	d->finding_ptrs = n ? calloc(n, sizeof *d->finding_ptrs) : NULL;
	if (!d->finding_ptrs)
		n = 0;
	size_t k = 0;
	for (size_t i = 0; i < d->n_sans && n; i++)
		for (size_t j = 0; j < diag_san_count(d->sans[i]); j++)
			d->finding_ptrs[k++] = diag_san_get(d->sans[i], j);
	f->findings = d->finding_ptrs;
	f->n_findings = k;
	/* The finding the account is about: an exact access first, then a
	 * warp exception, then another device error (a stack overflow),
	 * then a failing call (the cudaDeviceSynchronize that reports it). */
	static const enum diag_san_kind order[] = {
		DIAG_SAN_PRECISE, DIAG_SAN_IMPRECISE, DIAG_SAN_RACE,
		DIAG_SAN_SYNC, DIAG_SAN_UNINIT, DIAG_SAN_OTHER,
		DIAG_SAN_API, DIAG_SAN_LEAK, DIAG_SAN_OTHER,
	};
	const size_t n_order = sizeof order / sizeof order[0];
	/* The first "other" slot takes only records at level Error (a
	 * stack overflow, a trap); the last takes any. */
	for (size_t o = 0; o < n_order && !f->finding; o++)
		for (size_t i = 0; i < k && !f->finding; i++)
			if (f->findings[i]->kind == order[o] &&
			    (order[o] != DIAG_SAN_OTHER || o == n_order - 1 ||
			     other_error(f->findings[i])))
				f->finding = f->findings[i];
}

static void fill_stop(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	const struct stop_info *s = &d->stop;
	f->signal_name = s->signal_name;
	f->signal_meaning = s->signal_meaning;
	f->exception_message = s->message;
	f->focus = s->focus;
	if (s->signal_name &&
	    strncmp(s->signal_name, "CUDA_EXCEPTION_", 15) == 0) {
		unsigned n;
		if (diag_parse_uint(s->signal_name + 15, &n) && n < 1000)
			f->exception_code = (int)n;
		f->exception_name = s->exception_name ? s->exception_name
						      : s->signal_meaning;
	} else {
		f->exception_name = s->exception_name;
	}
	f->explanation = diag_exception_explain(f->exception_name, &f->scope);
	if (s->has_frame) {
		f->stop_pc = s->frame.addr;
		f->has_stop_pc = s->frame.addr != 0;
	} else if (d->n_frames) {
		f->stop_pc = d->frames[0].addr;
		f->has_stop_pc = true;
	}
	f->error_pc = s->error_pc;
	f->has_error_pc = s->has_error_pc;
}

static const struct diag_frame *frame0(const struct diag *d)
{
	if (d->n_frames)
		return &d->frames[0];
	return d->stop.has_frame ? &d->stop.frame : NULL;
}

/* A GPU coredump compute-sanitizer wrote: it ends with SIGTRAP at the
 * first error it found, outside __trap() (a driver coredump of __trap()
 * ends with SIGTRAP in __trap: fixtures/gpu/trap.core.mi.log), or, when
 * that error had ended the kernel, holds no kernel at all (the core's
 * story says so: mi/core_story.c, no_kernel).  A driver coredump names
 * its exception or assert. */
static bool sanitizer_core(const struct diag *d)
{
	const struct stop_info *s = &d->stop;
	const struct diag_frame *f0 = frame0(d);
	if (d->host_core)
		return false;
	if (!s->have)
		return d->core_no_kernel;
	return s->from_core && !s->core_exception && !s->assert_text &&
	       s->signal_name && strcmp(s->signal_name, "SIGTRAP") == 0 &&
	       !(f0 && f0->func && strcmp(f0->func, "__trap") == 0);
}

static enum diag_fault_kind stop_kind(struct diag *d)
{
	const struct stop_info *s = &d->stop;
	const struct diag_frame *f0 = frame0(d);
	const char *name = d->fault.exception_name;
	if (s->assert_text || (name && diag_ci_strstr(name, "assert")) ||
	    (f0 && f0->func && strcmp(f0->func, "__assert_fail") == 0))
		return DIAG_FAULT_ASSERT;
	if (s->signal_name && strcmp(s->signal_name, "SIGTRAP") == 0) {
		/* compute-sanitizer's coredumps end with SIGTRAP at the first
		 * error it found: that is no __trap(). */
		if (sanitizer_core(d))
			return d->fault.finding ? DIAG_FAULT_MEMCHECK
						: DIAG_FAULT_EXCEPTION;
		return DIAG_FAULT_TRAP;
	}
	return DIAG_FAULT_EXCEPTION;
}

static bool env_problem(const struct diag *d)
{
	/* A missing compute-sanitizer only costs the memcheck pass; these
	 * leave nothing to diagnose. */
	static const enum diag_flag env[] = {
		DIAG_F_DEBUGGER_MISSING, DIAG_F_CUDADEBUGGER_MISSING,
		DIAG_F_NO_GPU, DIAG_F_NO_KERNEL_IMAGE, DIAG_F_DRIVER_TOO_OLD,
	};
	for (size_t i = 0; i < sizeof env / sizeof env[0]; i++)
		if (d->set_flags[env[i]])
			return true;
	return false;
}

static enum diag_fault_kind pick_kind(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	if (d->hang) /* the stop is our own interrupt, not a fault */
		return DIAG_FAULT_HANG;
	if (d->stop.have)
		return stop_kind(d);
	if (f->finding && f->finding->kind == DIAG_SAN_IMPRECISE &&
	    f->finding->exception && diag_ci_strstr(f->finding->exception, "assert"))
		return DIAG_FAULT_ASSERT;
	/* memcheck's record of __trap(): Imprecise, <exception>Trace/
	 * breakpoint trap</exception>, <func>__trap</func> (H200). */
	if (f->finding && f->finding->kind == DIAG_SAN_IMPRECISE &&
	    f->finding->exception &&
	    diag_ci_strstr(f->finding->exception, "breakpoint trap"))
		return DIAG_FAULT_TRAP;
	if (f->finding && (f->finding->kind == DIAG_SAN_PRECISE ||
			   f->finding->kind == DIAG_SAN_IMPRECISE ||
			   f->finding->kind == DIAG_SAN_RACE ||
			   f->finding->kind == DIAG_SAN_SYNC ||
			   f->finding->kind == DIAG_SAN_UNINIT ||
			   other_error(f->finding)))
		return DIAG_FAULT_MEMCHECK;
	if (f->n_asserts)
		return DIAG_FAULT_ASSERT;
	/* compute-sanitizer writes a coredump only on an error it found;
	 * without its report the kind of error is unknown, but it is one. */
	if (sanitizer_core(d))
		return DIAG_FAULT_MEMCHECK;
	if (env_problem(d))
		return DIAG_FAULT_ENVIRONMENT;
	if (f->finding && f->finding->kind == DIAG_SAN_API)
		return DIAG_FAULT_CUDA_ERROR;
	if (d->error_line)
		return DIAG_FAULT_CUDA_ERROR;
	if (d->host_signal || (d->exited && d->exit_signalled))
		return DIAG_FAULT_HOST_SIGNAL;
	if (d->exited && d->exit_code != 0)
		return DIAG_FAULT_EXIT;
	if (f->finding && f->finding->kind == DIAG_SAN_LEAK)
		return DIAG_FAULT_MEMCHECK;
	return DIAG_FAULT_NONE;
}

/* The kernel is the outermost device frame (frame 0 may be a device
 * function or __assert_fail). */
static void pick_kernel(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	char *k = NULL;
	/* "??" is a frame cuda-gdb could not name (a sanitizer coredump
	 * unwinds __iAtomicAdd's caller to it), and the toolkit's
	 * intrinsics are no kernel: the launch on the host stack names it. */
	for (size_t i = d->n_frames; i-- > 0 && !k;)
		if (d->frames[i].device && d->frames[i].func &&
		    strcmp(d->frames[i].func, "??") &&
		    !diag_is_helper_frame(d->frames[i].func) &&
		    !toolkit_frame(&d->frames[i]))
			k = d->frames[i].func;
	if (!k && d->stop.has_frame && !diag_is_helper_frame(d->stop.frame.func) &&
	    !toolkit_frame(&d->stop.frame))
		k = d->stop.frame.func;
	/* The kernels table names the launched kernel (live); the launch
	 * on the sanitizer's host stack names it too.  An assertion line
	 * names the function that asserted, which may be a device function
	 * or a lambda ("lambda [](float)->auto::operator()(float)->auto" in
	 * lambda_assert, H200). */
	if (!k)
		k = d->table_kernel;
	for (size_t i = 0; !k && f->finding && i + 1 < f->finding->n_host; i++)
		k = keep(d, diag_stub_kernel(f->finding->host[i].func));
	/* Without the stub (the sanitizer's text: diag/sankernel.c), the
	 * kernel under the device functions it called (trap's check_
	 * weights under __trap), or a device lambda's launch wrapper. */
	if (!k && f->finding)
		k = keep(d, diag_strdup(diag_san_device_kernel(f->finding)));
	bool lambda = f->n_asserts &&
		      diag_lambda_call_operator(f->asserts[0]->kernel);
	if (!k && lambda && f->finding)
		k = keep(d, diag_san_lambda_kernel(f->finding));
	if (!k && f->n_asserts && !lambda)
		k = f->asserts[0]->kernel;
	if (!k && f->finding && f->finding->func &&
	    !diag_is_helper_frame(f->finding->func))
		k = f->finding->func;
	if (!k)
		return;
	/* A hardware fault's record has the signature ("apply(Params,
	 * float*)"); prefer it when it names the same function. */
	f->kernel = k;
	size_t n = dec_func_short(k, NULL, 0);
	char *b = malloc(n + 1);
	if (b)
		dec_func_short(k, b, n + 1);
	f->kernel_short = keep(d, b);
}

static void set_where(struct diag_fault *f, enum diag_loc_source src,
		      char *file, char *full, unsigned line, char *func)
{
	f->where.source = src;
	f->where.file = file;
	f->where.fullname = full;
	f->where.line = line;
	f->where.func = func;
}

static bool same_file(const char *path, const char *name)
{
	size_t a = strlen(path), b = strlen(name);
	if (a == b)
		return strcmp(path, name) == 0;
	return a > b && path[a - b - 1] == '/' && strcmp(path + a - b, name) == 0;
}

/* A failing CUDA call has no device line: the user's call is the first
 * host frame of their own source.  Skipped: the toolkit's headers
 * (__cudaLaunchKernel_helper in crt/device_functions.h), nvcc's
 * generated stub (tmpxft_..._cudafe1.stub.c) and the host wrapper named
 * like the kernel after a __device_stub__ frame (its line is the
 * kernel's declaration, not the launch); smem_config on the H200 gives
 * main at smem_config.cu:25.  Python frames are python.c's. */
static const struct diag_san_frame *
user_host_frame(const struct diag_san_record *r)
{
	bool after_stub = false;
	for (size_t i = 0; i < r->n_host; i++) {
		const struct diag_san_frame *h = &r->host[i];
		char *k = diag_stub_kernel(h->func);
		bool wrapper = after_stub;
		after_stub = k != NULL;
		free(k);
		if (after_stub || wrapper || h->python || !h->path ||
		    !h->line || dec_path_in_cuda_toolkit(h->path) ||
		    strstr(h->path, "tmpxft_") || strstr(h->path, ".stub.c"))
			continue;
		return h;
	}
	return NULL;
}

/* The exception's frame is the toolkit's (sync_divergent's __syncwarp
 * at sm_30_intrinsics.hpp:110, H200 run 20) and a frame of the user's
 * own code is on the stack: that frame's line is where to look. */
static bool exception_in_toolkit(const struct diag *d,
				 const struct diag_frame *fr)
{
	if (!fr || !toolkit_frame(fr))
		return false;
	for (size_t i = 0; i < d->n_frames; i++)
		if (d->frames[i].device && d->frames[i].file &&
		    d->frames[i].line && !toolkit_frame(&d->frames[i]))
			return true;
	return false;
}

/* A host frame's source is a library's, nobody's line to fix: a
 * build-relative path ("./nptl/pthread_kill.c", "../sysdeps/x86_64/
 * multiarch/strlen-evex.S": a libc with line information), a system
 * header, the CUDA toolkit.  The user's code, found here or not, has
 * its absolute path. */
bool diag_frame_library_source(const struct diag_frame *fr)
{
	const char *p = fr->fullname ? fr->fullname : fr->file;
	return !p || p[0] == '.' || strncmp(p, "/usr/include/", 13) == 0 ||
	       dec_path_in_cuda_toolkit(p);
}

/* A CPU crash: a host signal and no device stop, the account's kind the
 * signal's or a CUDA error's (a CUDA_CHECK that printed the error and
 * called abort()). */
static bool host_crash(const struct diag *d)
{
	return !d->stop.have && d->host_signal &&
	       (d->fault.kind == DIAG_FAULT_HOST_SIGNAL ||
		d->fault.kind == DIAG_FAULT_CUDA_ERROR);
}

/* A recursion that fills this many listed frames, in a stack this deep,
 * is runaway (gdb lists a deep stack's innermost and outermost frames
 * only; a stack of 8 MiB holds some 30,000 small frames). */
enum { RUNAWAY_FRAMES = 64, RUNAWAY_DEPTH = 1000 };

/* The frame that called the one at list position at, when it is the
 * program's own (a line, no library's source): where the crashing
 * function was called from.  A recursion's own frames are passed over:
 * the caller of a runaway one (f->recursion_depth set) is where it
 * began, across the frames gdb did not list; of a short one, the frame
 * right above it. */
static void host_caller(struct diag *d, size_t at)
{
	struct diag_fault *f = &d->fault;
	const struct diag_frame *self = &d->host_frames[at];
	int level = self->level;
	for (size_t i = at + 1; i < d->n_host_frames; i++) {
		struct diag_frame *fr = &d->host_frames[i];
		bool gap = fr->level != level + 1;
		level = fr->level;
		if (gap && !f->recursion_depth)
			return;
		if (fr->func && self->func && strcmp(fr->func, self->func) == 0)
			continue;
		if (fr->device || !fr->file || !fr->line ||
		    diag_frame_library_source(fr))
			return;
		f->caller = (struct diag_loc){ .source = DIAG_LOC_FRAME,
					       .file = fr->file,
					       .fullname = fr->fullname,
					       .line = fr->line,
					       .func = fr->func };
		f->caller.text = diag_keep(d, diag_read_source_line(
			d, fr->fullname ? fr->fullname : fr->file, fr->line));
		return;
	}
}

/* A runaway recursion at a CPU crash: the crashing frame's function fills
 * the first RUNAWAY_FRAMES listed frames from it, and the stack is
 * RUNAWAY_DEPTH frames deep or more (the SIGSEGV of a stack that ran
 * into its guard page).  Sets recursion_func and recursion_depth (the stack's
 * whole depth, from its outermost listed level). */
static void host_recursion(struct diag *d, size_t at)
{
	struct diag_fault *f = &d->fault;
	const struct diag_frame *self = &d->host_frames[at];
	if (!self->func || d->n_host_frames < at + RUNAWAY_FRAMES)
		return;
	for (size_t i = at; i < at + RUNAWAY_FRAMES; i++) {
		const char *fn = d->host_frames[i].func;
		if (!fn || strcmp(fn, self->func) != 0)
			return;
	}
	int depth = d->host_frames[d->n_host_frames - 1].level + 1;
	if (depth < RUNAWAY_DEPTH)
		return;
	f->recursion_func = self->func;
	f->recursion_depth = depth;
}

/* A CPU crash (a host signal, no device stop): the innermost host frame
 * with a line, and that line's text, as `gdb -batch -ex run -ex bt`
 * would show them (issue 31 item 4). */
static bool host_where(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	if (!host_crash(d))
		return false;
	/* the program's own frame first (the controller's choice,
	 * model.user_frame), then the innermost with a line of no
	 * library's; none of those in a Python program, whose interpreter's
	 * C frames are nobody's line to fix: its Python stack names the
	 * user's */
	bool python = d->have_pystack ||
		      (d->argv && diag_argv_is_python(d->argv));
	for (size_t i = 0; i < 2 * d->n_host_frames; i++) {
		struct diag_frame *fr = &d->host_frames[i % d->n_host_frames];
		if (i < d->n_host_frames && fr->level != d->host_user_level)
			continue;
		if (i >= d->n_host_frames && python)
			break;
		if (fr->device || !fr->file || !fr->line)
			continue;
		if (diag_frame_library_source(fr))
			continue;
		set_where(f, DIAG_LOC_FRAME, fr->file, fr->fullname, fr->line,
			  fr->func);
		f->where.text = diag_keep(d, diag_read_source_line(
			d, fr->fullname ? fr->fullname : fr->file, fr->line));
		host_recursion(d, i % d->n_host_frames);
		host_caller(d, i % d->n_host_frames);
		return true;
	}
	return false;
}

static void pick_where(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	const struct stop_info *s = &d->stop;
	if (host_where(d))
		return;
	const struct diag_frame *top = s->has_frame ? &s->frame
				      : d->n_frames ? &d->frames[0] : NULL;
	if (s->exc_file && s->exc_line && !exception_in_toolkit(d, top)) {
		/* The exception names the file as compiled ("null_deref.cu"),
		 * the frame with its path: the same file when one ends the
		 * other. */
		char *full = top && top->file && same_file(top->file, s->exc_file)
				     ? top->fullname
				     : NULL;
		set_where(f, DIAG_LOC_EXCEPTION, s->exc_file, full, s->exc_line,
			  s->exc_function);
		return;
	}
	/* The user's line first: a fault inside atomicAdd stops in the
	 * toolkit's device_atomic_functions.hpp (frame #1), under the
	 * kernel's line (frame #2); the full stack stays in the report. */
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < d->n_frames; i++) {
			const struct diag_frame *fr = &d->frames[i];
			if (!fr->device || !fr->file || !fr->line ||
			    (pass == 0 && toolkit_frame(fr)))
				continue;
			set_where(f, DIAG_LOC_FRAME, fr->file, fr->fullname,
				  fr->line, fr->func);
			return;
		}
	if (s->has_frame && s->frame.file && s->frame.line) {
		set_where(f, DIAG_LOC_FRAME, s->frame.file, s->frame.fullname,
			  s->frame.line, s->frame.func);
		return;
	}
	const struct diag_san_record *r = f->finding;
	/* synccheck names the toolkit's __syncwarp (sm_30_intrinsics.hpp:110)
	 * and the user's line as the first device frame (sync_divergent.cu:22,
	 * run 18); a __trap() names only __trap, its caller's line in the
	 * first device frame (trap.cu:16, run 20). */
	const struct diag_san_frame *u = NULL;
	bool own = r && r->path && r->line && !dec_path_in_cuda_toolkit(r->path);
	for (size_t i = 0; r && !own && i < r->n_device && !u; i++)
		if (r->device[i].path && r->device[i].line &&
		    !dec_path_in_cuda_toolkit(r->device[i].path))
			u = &r->device[i];
	if (u) {
		set_where(f, DIAG_LOC_SANITIZER, u->path, NULL, u->line,
			  u->func);
		return;
	}
	if (r && r->path && r->line) {
		set_where(f, DIAG_LOC_SANITIZER, r->path, NULL, r->line,
			  r->func);
		return;
	}
	const struct diag_san_frame *h = r && r->kind == DIAG_SAN_API
						 ? user_host_frame(r)
						 : NULL;
	if (h) {
		set_where(f, DIAG_LOC_SANITIZER, h->path, NULL, h->line,
			  h->func);
		return;
	}
	if (f->n_asserts) {
		const struct diag_assert_entry *e = f->asserts[0];
		set_where(f, DIAG_LOC_ASSERTION, e->file, NULL, e->line,
			  e->kernel);
	}
}

static void fill_values(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	if (!d->n_vals)
		return;
	f->values = calloc(d->n_vals, sizeof *f->values);
	if (!f->values)
		return;
	for (size_t i = 0; i < d->n_vals; i++) {
		f->values[i].expr = d->vals[i].name;
		f->values[i].value = d->vals[i].value;
	}
	f->n_values = d->n_vals;
}

/* __shared__ and __local__ addresses are offsets in the block's or the
 * thread's window: a small one is a normal index (0x4400 past a shared
 * array on the H200), not a null pointer. */
static bool window_space(const char *space)
{
	return space && (strcmp(space, "__shared__") == 0 ||
			 strcmp(space, "__local__") == 0);
}

static const struct diag_san_record *python_record(struct diag_fault *f)
{
	if (f->finding)
		for (size_t i = 0; i < f->finding->n_host; i++)
			if (f->finding->host[i].python)
				return f->finding;
	for (size_t i = 0; i < f->n_findings; i++)
		for (size_t j = 0; j < f->findings[i]->n_host; j++)
			if (f->findings[i]->host[j].python)
				return f->findings[i];
	return NULL;
}

static bool any_torch_module(const struct diag_san_record *r)
{
	for (size_t i = 0; r && i < r->n_host; i++)
		if (r->host[i].module && strstr(r->host[i].module, "libtorch"))
			return true;
	return false;
}

/* The GPU's memory ran out, in the words of PyTorch, the runtime, the
 * driver and the libraries, or a program's own check printing the
 * runtime's "out of memory" beside "CUDA" or "GPU" ("GPUassert: out of
 * memory alloc.cu 23"); a host's (a MemoryError, "Cannot allocate
 * memory") names neither (the program's notable lines). */
static bool said_out_of_memory(const struct diag *d)
{
	static const char *const words[] = {
		"cudaErrorMemoryAllocation", "CUDA_ERROR_OUT_OF_MEMORY",
		"CUBLAS_STATUS_ALLOC_FAILED", "CUDNN_STATUS_ALLOC_FAILED", NULL,
	};
	for (size_t i = 0; i < d->n_lines; i++) {
		const char *l = d->lines[i];
		if (strstr(l, "out of memory") &&
		    (diag_ci_strstr(l, "cuda") || diag_ci_strstr(l, "gpu")))
			return true;
		for (size_t k = 0; words[k]; k++)
			if (strstr(l, words[k]))
				return true;
	}
	return false;
}

static void set_derived_flags(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	bool *fl = f->flags;
	memcpy(fl, d->set_flags, sizeof f->flags);
	fl[DIAG_F_DEVICE_STOP] |= d->stop.have && !d->hang && !d->host_core;
	/* A driver coredump names the exception but no CUDA_EXCEPTION_N. */
	fl[DIAG_F_DEVICE_EXCEPTION] |= f->exception_code >= 0 ||
				       d->stop.core_exception;
	fl[DIAG_F_DEVICE_ASSERT] |= f->kind == DIAG_FAULT_ASSERT;
	fl[DIAG_F_DEVICE_TRAP] |= f->kind == DIAG_FAULT_TRAP;
	/* the coredump hints are about GPU coredumps */
	fl[DIAG_F_COREDUMP] |= (d->stop.from_core || d->in_core) && !d->host_core;
	fl[DIAG_F_SANITIZER_CORE] |= sanitizer_core(d);
	fl[DIAG_F_CORE_NO_KERNEL] |= d->core_no_kernel && !d->stop.have;
	fl[DIAG_F_ASSERT_OUTPUT] |= f->n_asserts > 0;
	fl[DIAG_F_SANITIZER] |= d->n_sans > 0;
	bool any_err = false;
	for (size_t i = 0; i < f->n_findings; i++) {
		const struct diag_san_record *r = f->findings[i];
		fl[DIAG_F_SANITIZER_PRECISE] |= r->kind == DIAG_SAN_PRECISE;
		fl[DIAG_F_SANITIZER_IMPRECISE] |= r->kind == DIAG_SAN_IMPRECISE;
		fl[DIAG_F_SANITIZER_API] |= r->kind == DIAG_SAN_API;
		fl[DIAG_F_SANITIZER_LEAK] |= r->kind == DIAG_SAN_LEAK;
		fl[DIAG_F_SANITIZER_RACE] |= r->kind == DIAG_SAN_RACE;
		fl[DIAG_F_SANITIZER_UNINIT] |= r->kind == DIAG_SAN_UNINIT;
		/* memcheck's StackOverflow record (H200): the fault, not the
		 * failing CUDA call after it */
		fl[DIAG_F_SANITIZER_OTHER] |= other_error(r);
		fl[DIAG_F_SANITIZER_SYNC] |= r->kind == DIAG_SAN_SYNC;
		any_err = true;
	}
	fl[DIAG_F_SANITIZER_CLEAN] |= d->n_sans > 0 && !any_err &&
				      !d->pass_failed;
	if (d->hang) {
		fl[DIAG_F_HANG] = true;
		fl[DIAG_F_SPIN_WAIT] |= d->hang->spin;
		fl[DIAG_F_BARRIER_DIVERGENT] |= d->hang->barrier_divergent;
		fl[DIAG_F_ALL_WAITING] |= d->hang->all_waiting;
		fl[DIAG_F_SPIN_HOLDS_BARRIER] |= d->hang->spin_holds_barrier;
	}
	/* A __shared__ or __local__ address is an offset in its window:
	 * small, and no null pointer. */
	fl[DIAG_F_NULL_ADDRESS] |= f->finding && f->finding->has_address &&
				   f->finding->address < 0x10000 &&
				   !window_space(f->finding->space);
	if (f->finding && f->finding->has_alloc) {
		fl[DIAG_F_OOB_AFTER] |= f->finding->distance > 0;
		fl[DIAG_F_OOB_BEFORE] |= f->finding->distance < 0;
	}
	fl[DIAG_F_PYTHON] |= (d->argv && diag_argv_is_python(d->argv)) ||
			     f->python.found || d->have_pystack;
	fl[DIAG_F_PYTORCH] |= f->op != NULL ||
			      (f->kernel && strstr(f->kernel, "at::native")) ||
			      (f->n_asserts &&
			       strstr(f->asserts[0]->file, "/ATen/")) ||
			      any_torch_module(f->finding);
	fl[DIAG_F_KERNEL_KNOWN] |= f->kernel != NULL;
	fl[DIAG_F_EXITED] |= d->exited;
	fl[DIAG_F_EXITED_NORMALLY] |= d->exited && !d->exit_signalled &&
				      d->exit_code == 0;
	fl[DIAG_F_EXIT_FAILED] |= d->exited &&
				  (d->exit_signalled || d->exit_code != 0);
	fl[DIAG_F_CUDA_OOM] |= said_out_of_memory(d);
	fl[DIAG_F_EXIT_SIGKILL] |= d->exited && d->exit_signalled &&
				   d->exit_signal &&
				   strcmp(d->exit_signal, "SIGKILL") == 0;
	fl[DIAG_F_CONTINUED_PAST_FAULT] |= d->continued_past;
	fl[DIAG_F_CUDA_ERROR_OUTPUT] |= d->error_line != NULL;
	fl[DIAG_F_PYTHON_HOST_ERROR] |= f->py_exception != NULL &&
					!d->error_line;
	fl[DIAG_F_PYTHON_NOT_STARTED] |= f->py_start_error != NULL &&
					 !d->error_line && d->exited &&
					 (d->exit_signalled || d->exit_code != 0);
	fl[DIAG_F_NO_DEVICE_STOP] |= d->exit_live && !d->device_stop_seen;
	/* only where gdb reported the libraries (a static binary reports
	 * none: then nothing is known), and for a program that started no
	 * other process (a launcher's workers are not followed: they may
	 * have run on the GPU, and the memcheck pass follows them) */
	fl[DIAG_F_NO_CUDA_SEEN] |= d->libs_seen && !d->cuda_loaded &&
				   !d->device_stop_seen;
	fl[DIAG_F_NO_CUDA_LIBRARY] |= d->exit_live && !d->device_stop_seen &&
				      d->libs_seen && !d->cuda_loaded &&
				      !d->forked && !d->n_children;
	fl[DIAG_F_FORKED] |= d->forked;
	const char *lb = diag_env_get(d, "CUDA_LAUNCH_BLOCKING");
	fl[DIAG_F_LAUNCH_BLOCKING] |= lb && strcmp(lb, "1") == 0;
	const char *nc = diag_env_get(d, "PYTORCH_NO_CUDA_MEMORY_CACHING");
	fl[DIAG_F_CACHING_ALLOCATOR] |= fl[DIAG_F_PYTHON] &&
					!(nc && strcmp(nc, "1") == 0);
	fl[DIAG_F_VISIBLE_DEVICES_SET] |=
		diag_env_get(d, "CUDA_VISIBLE_DEVICES") != NULL;
}

/* The name of a warp-synchronous intrinsic FUNC is or ends in
 * ("_INTERNAL_77f6292c_17_sync_divergent_cu_b6c6bc5c::__syncwarp(unsigned
 * int)" as cuda-gdb names __syncwarp), or NULL. */
static const char *warp_sync_name(const char *func)
{
	static const char *const names[] = {
		"__syncwarp", "__shfl_sync", "__shfl_up_sync",
		"__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync",
		"__all_sync", "__any_sync", "__uni_sync", "__match_any_sync",
		"__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
		"__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync",
		"__reduce_xor_sync",
	};
	if (!func)
		return NULL;
	const char *b = func, *c;
	size_t n = strcspn(func, "(<");
	while ((c = strstr(b, "::")) && (size_t)(c - func) < n)
		b = c + 2;
	n -= (size_t)(b - func);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i]) == n && memcmp(b, names[i], n) == 0)
			return names[i];
	return NULL;
}

/* A device stop inside __syncwarp / __shfl_*_sync / ...: the innermost
 * device frame, or the exception's function when there is no stack. */
static void pick_sync_call(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	const char *name = NULL;
	if (!d->stop.have)
		return;
	if (d->stop.has_frame && d->stop.frame.device)
		name = warp_sync_name(d->stop.frame.func);
	for (size_t i = 0; !name && i < d->n_frames; i++)
		if (d->frames[i].device) {
			name = warp_sync_name(d->frames[i].func);
			break;
		}
	if (!name)
		name = warp_sync_name(d->stop.exc_function);
	f->sync_call = name;
	f->flags[DIAG_F_WARP_SYNC_CALL] = name != NULL;
}

static void dim_text(char *buf, size_t cap, struct diag_dim3 v)
{
	snprintf(buf, cap, "(%u,%u,%u)", v.x, v.y, v.z);
}

/* The kernel's pointer parameter nearest below addr (its value from the
 * kernel's frame: @parameter values are sure at any device stop), so an
 * address reads "out + 200000000".  False when none is below it. */
static bool pointer_below(const struct diag *d, uint64_t addr,
			  const char **name, unsigned long long *off)
{
	unsigned long long best = 0;
	*name = NULL;
	for (size_t i = 0; i < d->n_vals; i++) {
		const struct named_value *v = &d->vals[i];
		char *end;
		if (!v->value || strncmp(v->value, "0x", 2) != 0 ||
		    (v->type && !strchr(v->type, '*')))
			continue;
		unsigned long long p = strtoull(v->value, &end, 16);
		if (end == v->value + 2 || (*end && *end != ' ') || !p ||
		    p > addr || p < best)
			continue;
		best = p;
		*name = v->name;
	}
	*off = addr - best;
	return *name != NULL;
}

/* The culprit found in the stopped warp's own registers
 * (mi/ctl_culprit.c): it becomes the fault's thread, and a note says how
 * it was found and what the other lanes did. */
static void culprit_found(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	struct diag_culprit *c = &f->culprit;
	char t[48], b[48], where[160] = "", good[96] = "";
	f->flags[DIAG_F_CULPRIT_LANE] = true;
	f->focus.lane = c->lane;
	f->focus.thread = c->thread;
	dim_text(t, sizeof t, c->thread);
	dim_text(b, sizeof b, f->focus.block);
	if (pointer_below(d, c->addr, &c->var, &c->offset))
		snprintf(where, sizeof where, " (%s + %llu)", c->var, c->offset);
	if (c->lanes - c->bad == 1)
		snprintf(good, sizeof good, "0x%llx",
			 (unsigned long long)c->good_lo);
	else
		snprintf(good, sizeof good, "0x%llx .. 0x%llx",
			 (unsigned long long)c->good_lo,
			 (unsigned long long)c->good_hi);
	char how[320];
	if (c->lvalue && !c->inst) /* line first: no disassembly asked */
		snprintf(how, sizeof how, "Found from &(%s), the faulting "
			 "line's one access, evaluated in every lane",
			 c->lvalue);
	else if (c->lvalue)
		snprintf(how, sizeof how, "Found from &(%s) of the faulting "
			 "line, evaluated in every lane (`%s` at the error PC "
			 "wrote over its address register)", c->lvalue,
			 c->inst ? c->inst : "?");
	else
		snprintf(how, sizeof how, "Found from `%s` at the error PC in "
			 "every lane's registers", c->inst ? c->inst : "?");
	note(d, keepf(d, "Thread %s of block %s (lane %d) made the faulting "
		      "access: its address 0x%llx%s lies far from the "
		      "other %d lane%s' %s.  %s; cuda-gdb had put the focus "
		      "on lane %d.%s", t, b, c->lane,
		      (unsigned long long)c->addr, where, c->lanes - c->bad,
		      c->lanes - c->bad == 1 ? "" : "s", good, how,
		      c->focus_lane,
		      c->bad > 1 ? "  More than one lane's address lies far "
				   "from the rest; this is the first." : ""));
}

/* "256 MiB", "4 KiB", "12 bytes" */
static void bytes_text(char *out, size_t cap, uint64_t n)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	int u = -1;
	uint64_t v = n;
	while (v >= 1024 && v % 1024 == 0 && u < 3) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, cap, "%llu byte%s", (unsigned long long)n,
			 n == 1 ? "" : "s");
	else
		snprintf(out, cap, "%llu %s", (unsigned long long)v, unit[u]);
}

/* "use_after_free.cu:30 (cudaFree)", "main (cudaFree)" */
static void site_text(char *out, size_t cap, const struct diag_freed_site *s)
{
	const char *base = s->file ? strrchr(s->file, '/') : NULL;
	base = base ? base + 1 : s->file;
	if (base && s->line)
		snprintf(out, cap, "%s:%u (%s)", base, s->line,
			 s->api ? s->api : "?");
	else
		snprintf(out, cap, "%s (%s)", s->func ? s->func : "an unknown "
			 "caller", s->api ? s->api : "?");
}

/* The bad address lies in memory the program freed (the allocation
 * watch): ASan's "freed by", said as a note with both calls.  A PyTorch
 * program's caching allocator frees nothing it hands to tensors, which
 * is worth saying at its illegal addresses. */
static void freed_analysis(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	f->freed = d->freed;
	if (f->freed.found) {
		const struct diag_freed *fr = &f->freed;
		char size[32], a[320], b[320];
		f->flags[DIAG_F_FREED_MEMORY] = true;
		bytes_text(size, sizeof size, fr->size);
		site_text(a, sizeof a, &fr->alloc);
		site_text(b, sizeof b, &fr->free);
		note(d, keepf(d, "0x%llx is %llu bytes inside the %s that %s "
			      "allocated at 0x%llx and %s freed before the "
			      "fault: a use after free.", (unsigned long long)
			      fr->addr, (unsigned long long)(fr->addr - fr->base),
			      size, a, (unsigned long long)fr->base, b));
		return;
	}
	/* host code on device memory: the host cannot touch it */
	if (f->freed.in_live && f->kind == DIAG_FAULT_HOST_SIGNAL) {
		const struct diag_freed *fr = &f->freed;
		char size[32], a[320];
		f->flags[DIAG_F_DEVICE_MEMORY_ON_HOST] = true;
		bytes_text(size, sizeof size, fr->size);
		site_text(a, sizeof a, &fr->alloc);
		note(d, keepf(d, "0x%llx is %llu bytes inside the %s of device "
			      "memory that %s allocated at 0x%llx: host code "
			      "touched device memory.", (unsigned long long)
			      fr->addr, (unsigned long long)(fr->addr - fr->base),
			      size, a, (unsigned long long)fr->base));
		return;
	}
	f->freed = (struct diag_freed){ 0 };
	if (d->alloc_watch_cut)
		note(d, keep(d, strdup("The allocation watch stopped after its "
				       "budget of calls (docs/tool-quirks.md, "
				       "\"dprintf as a probe\"): a free made "
				       "after that is not seen, so the bad "
				       "address was not checked for a use "
				       "after free.")));
	if (f->flags[DIAG_F_PYTORCH] && f->exception_name &&
	    diag_ci_strstr(f->exception_name, "Illegal Address"))
		note(d, keep(d, strdup("PyTorch's caching allocator keeps "
				       "the memory of freed tensors mapped "
				       "(until torch.cuda.empty_cache()), so "
				       "a tensor used after it was freed reads "
				       "stale data instead of faulting: this "
				       "illegal address is not such a use "
				       "after free unless the program empties "
				       "the cache.")));
}

/* The program's processes that died of a fatal signal (their own
 * reports, preload/death.c): a note each, and the fact. */
static void children_analysis(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	f->child_deaths = d->children;
	f->n_child_deaths = d->n_children;
	f->flags[DIAG_F_CHILD_DIED] = d->n_children > 0;
	/* (diag_add_child_death keeps the SIGKILL deaths last) */
	f->flags[DIAG_F_CHILD_KILLED] = d->n_children > 0 &&
					d->children[0].sig == SIGKILL;
	/* gdb detached from a fork: a process ran that only its own death
	 * reporter, or the kernel's events, could see end */
	f->child_events_off = d->forked ? d->child_events_off : NULL;
	f->flags[DIAG_F_CHILDREN_UNHEARD] = f->child_events_off != NULL;
	for (size_t i = 0; i < d->n_children && i < 8; i++) {
		const struct diag_child_death *c = &d->children[i];
		char sig[24];
		diag_signal_name(c->sig, sig, sizeof sig);
		note(d, keepf(d, "A process the program started %s %s: pid "
			      "%ld (%.200s).", c->sig == SIGKILL ?
			      "was killed by" : "died of", sig, c->pid,
			      c->cmd[0] ? c->cmd : "its command was not read"));
	}
}

/* The allocator's entry points as gdb names them, with and without
 * libc's debug information (its exported names, its internal aliases),
 * and C++'s operators over it. */
static bool allocator_func(const char *fn)
{
	static const char *const names[] = {
		"free", "cfree", "malloc", "calloc", "realloc", "reallocarray",
		"posix_memalign", "aligned_alloc", "memalign",
		"__libc_free", "__libc_malloc", "__libc_calloc", "__libc_realloc",
		"__GI___libc_free", "__GI___libc_malloc", "__GI___libc_realloc",
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(fn, names[i]) == 0)
			return true;
	return strncmp(fn, "operator delete", 15) == 0 ||
	       strncmp(fn, "operator new", 12) == 0;
}

/* A _FORTIFY_SOURCE check: __memcpy_chk, __strcpy_chk, __sprintf_chk... */
static bool fortify_func(const char *fn)
{
	size_t n = strlen(fn);
	return (n > 6 && strncmp(fn, "__", 2) == 0 &&
		strcmp(fn + n - 4, "_chk") == 0) ||
	       strstr(fn, "fortify_fail") || strcmp(fn, "__chk_fail") == 0;
}

/* How a CPU crash came about, from the host stack between the signal and
 * the program's own frame (model_user_frame), by the exported names that
 * gdb gives with or without libc's line information: __assert_fail,
 * std::terminate, __stack_chk_fail (a local array written past its end,
 * found at the return), a fortified __*_chk (a copy past its
 * destination), the allocator (a heap it found corrupt: a double free, a
 * write past a block); else abort() called by the program itself (the
 * frame it called, past the inline wrappers of system headers). */
static void host_crash_analysis(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	if (!host_crash(d) || d->host_user_level < 0)
		return;
	bool assert_fail = false, uncaught = false, smash = false;
	bool fortify = false, heap = false;
	const char *entry = NULL;
	for (size_t i = 0; i < d->n_host_frames; i++) {
		const struct diag_frame *fr = &d->host_frames[i];
		if (fr->level >= d->host_user_level)
			break;
		const char *fn = fr->func ? fr->func : "";
		const char *p = fr->fullname ? fr->fullname : fr->file;
		if (!p || strncmp(p, "/usr/include/", 13) != 0)
			entry = fn;
		assert_fail |= strncmp(fn, "__assert_fail", 13) == 0 ||
			       strcmp(fn, "__assert_perror_fail") == 0;
		uncaught |= strstr(fn, "terminate") &&
			    (strstr(fn, "std::") || strstr(fn, "__cxxabiv1") ||
			     strstr(fn, "__gnu_cxx"));
		smash |= strcmp(fn, "__stack_chk_fail") == 0;
		fortify |= !smash && fortify_func(fn);
		heap |= allocator_func(fn);
	}
	f->flags[DIAG_F_HOST_ASSERT] = assert_fail;
	f->flags[DIAG_F_HOST_UNCAUGHT] = !assert_fail && uncaught;
	bool named = assert_fail || uncaught;
	f->flags[DIAG_F_HOST_STACK_SMASH] = !named && smash;
	f->flags[DIAG_F_HOST_FORTIFY] = !named && !smash && fortify;
	named |= smash || fortify;
	f->flags[DIAG_F_HOST_HEAP_CORRUPT] = !named && heap;
	f->flags[DIAG_F_HOST_RECURSION] = !named && !heap &&
					  f->recursion_depth > 0;
	f->flags[DIAG_F_HOST_ABORT] = !named && !heap && entry &&
				      (strcmp(entry, "abort") == 0 ||
				       strcmp(entry, "__GI_abort") == 0);
}

/* A CPU crash's address (diag_set_host_access): which of the line's
 * dereferences made it, and whether through a null pointer.  An address
 * in the first page with no dereference named is a null pointer too (a
 * member of a NULL struct, a libc call handed NULL).  The facts are a
 * SIGSEGV's (unmapped memory); a SIGBUS's address is mapped memory the
 * access could not use (a file shorter than its mapping): its access
 * line is shown, and the generic hint speaks. */
static void host_access_analysis(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	if (!host_crash(d) || !d->have_host_access)
		return;
	const struct diag_host_access *a = &d->host_access;
	f->host_access = a;
	if (!d->host_signal_name || strcmp(d->host_signal_name, "SIGSEGV") != 0)
		return;
	f->flags[DIAG_F_HOST_BAD_ACCESS] = a->expr != NULL;
	f->flags[DIAG_F_HOST_NULL_ACCESS] =
		a->expr ? a->has_base && a->base_value == 0 : a->address < 4096;
}

static void lane_analysis(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	const char *name = f->exception_name;
	bool warp = (f->scope && strcmp(f->scope, "warp") == 0) ||
		    (name && strncasecmp(name, "Warp ", 5) == 0);
	bool device = f->scope && strcmp(f->scope, "device") == 0;
	f->flags[DIAG_F_WARP_LEVEL] = warp;
	/* compute-sanitizer's coredump focuses the exact thread; a driver
	 * coredump of a warp exception focuses lane 0 like a live stop
	 * (fixtures/gpu/null_deref.core.mi.log: lane 0, the culprit is
	 * thread 3). */
	if (!(warp || device) || f->kind == DIAG_FAULT_ASSERT ||
	    !d->stop.have || (d->stop.from_core && !d->stop.core_exception))
		return;
	f->culprit = d->culprit;
	if (f->culprit.found && f->focus.valid) {
		culprit_found(d);
		return;
	}
	/* cuda-gdb names a lane only when exactly the focused lane carries
	 * the exception in the lanes table; a null write by thread 5 was
	 * reported with focus on lane 0 (cuda-gdb 13, null_write). */
	if (d->lanes_seen && d->lanes_with_exc == 1 && d->focus_lane_has_exc)
		return;
	/* No thread in focus (cuda-gdb 13.0 aborted opening the driver's
	 * coredump of torch_extension after the exception's PC line): no
	 * focus to warn about, but the lane is unknown all the same. */
	if (!f->focus.valid) {
		note(d, keepf(d, "%s is a %s-level exception: the hardware does "
			      "not say which lane faulted, and no thread was in "
			      "focus.", name ? name : "This",
			      warp ? "warp" : "device"));
		note(d, keep(d, strdup("The memcheck pass names the exact "
				       "thread and address.")));
		return;
	}
	f->flags[DIAG_F_LANE_UNKNOWN] = true;
	char t[48], b[48];
	dim_text(t, sizeof t, f->focus.thread);
	dim_text(b, sizeof b, f->focus.block);
	/* Live or from a driver coredump, the lanes table marks every lane
	 * of the warp (null_deref.mi.log and null_deref.core.mi.log: 8 of 8,
	 * the culprit is thread 3): the hardware does not name the lane. */
	if (d->lanes_seen && d->lanes_with_exc > 1)
		note(d, keepf(d, "%s is a %s-level exception: the hardware does "
			      "not say which lane faulted; %d lanes of the warp "
			      "carry it, and the focus (lane %d, thread %s of "
			      "block %s) is not necessarily the thread that "
			      "faulted.", name ? name : "This", warp ? "warp" : "device",
			      d->lanes_with_exc, f->focus.lane, t, b));
	else
		note(d, keepf(d, "%s is a %s-level exception: the debugger does "
			      "not say which lane faulted; the focus (lane %d, "
			      "thread %s of block %s) may be another thread.",
			      name ? name : "This", warp ? "warp" : "device",
			      f->focus.lane, t, b));
	if (f->culprit.searched)
		note(d, keepf(d, "The lanes' own registers name no culprit: %s.",
			      f->culprit.why ? f->culprit.why
			      : f->culprit.lanes == 0 ? "no lane's address of the "
							"faulting access was read"
			      : "no lane's address stands apart from the others' "
				"(the whole warp went wrong: a freed or wrong "
				"buffer, a misaligned access)"));
	const struct diag_san_record *r = f->finding;
	if (r && r->kind == DIAG_SAN_PRECISE && r->has_who) {
		dim_text(t, sizeof t, r->thread);
		dim_text(b, sizeof b, r->block);
		note(d, keepf(d, "compute-sanitizer names the faulting thread: "
			      "%s of block %s.", t, b));
	} else {
		note(d, keep(d, strdup("The memcheck pass names the exact "
				       "thread and address.")));
	}
}

static void add_notes(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	if (f->has_error_pc && f->has_stop_pc && f->error_pc != f->stop_pc) {
		f->flags[DIAG_F_ERROR_PC_DIFFERS] = true;
		note(d, keepf(d, "The faulting instruction is at 0x%llx (error "
			      "PC); the warp stopped at 0x%llx, after it: the "
			      "line shown for the stop may be one past the "
			      "fault.", (unsigned long long)f->error_pc,
			      (unsigned long long)f->stop_pc));
	}
	if (d->continued_past && d->exit_signalled)
		note(d, keepf(d, "The program was continued after the device "
			      "fault and was then killed (%s).",
			      d->exit_signal ? d->exit_signal : "a signal"));
	else if (d->continued_past)
		note(d, keep(d, strdup(
			"The program was continued after the device fault and "
			"ran on: under the debugger the CUDA error was "
			"swallowed, so its exit status says nothing.")));
	if (d->untrusted)
		note(d, keepf(d, "Not shown: %s.  At this device stop an outer "
			      "frame's registers were reused by the frames "
			      "inside it, so those values may be stale; only "
			      "the kernel's parameters are sure.  Replay to "
			      "fault (T) stops before the line and shows them "
			      "true.", d->untrusted));
	uint64_t dropped = diag_asserts_dropped(d->asserts);
	if (dropped)
		note(d, keepf(d, "%llu assertion lines beyond the first %d "
			      "distinct asserts were counted but not kept.",
			      (unsigned long long)dropped,
			      DIAG_ASSERT_MAX_ENTRIES));
	for (size_t i = 0; i < d->n_sans; i++)
		if (diag_san_truncated(d->sans[i]))
			note(d, keep(d, strdup("The sanitizer report was cut "
					       "at its size limits.")));
}

/* The ATen operator that launched the kernel: the sanitizer's host stack
 * is taken at the launch; cuda-gdb's only when it is still there. */
/* The ring of last lines, oldest first. */
static void output_tail(struct diag *d, struct diag_fault *f)
{
	size_t n = d->tail_seen < DIAG_TAIL_LINES ? (size_t)d->tail_seen
						  : DIAG_TAIL_LINES;
	size_t first = (size_t)((d->tail_seen - n) % DIAG_TAIL_LINES);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *l = d->tail[(first + i) % DIAG_TAIL_LINES];
		if (l)
			d->tail_view[k++] = l;
	}
	f->output_tail = d->tail_view;
	f->n_output_tail = k;
	f->output_total = d->tail_seen;
}

static void pick_operator(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	char *outer = NULL;

	f->op = keep(d, diag_aten_op(f->finding, NULL, 0, &outer));
	if (!f->op && d->n_host_frames) {
		if (diag_host_at_launch(d->host_frames, d->n_host_frames,
					f->kernel_short))
			f->op = keep(d, diag_aten_op(NULL, d->host_frames,
						     d->n_host_frames, &outer));
		else
			f->host_op_later = keep(d, diag_aten_op(NULL,
				d->host_frames, d->n_host_frames, NULL));
	}
	f->op_outer = f->op ? keep(d, outer) : (free(outer), NULL);
}

/* nvcc's host side of a launch, compiled from the user's .cu with its
 * line info: __device_stub__Z8row_sumsPPfiS_, and the kernel's own host
 * function ("row_sums(float**, int, float*)"); the user's line calls
 * them. */
static bool launch_stub(const struct diag_fault *f, const char *func)
{
	if (!func)
		return false;
	if (strstr(func, "__device_stub__"))
		return true;
	size_t k = f->kernel_short ? strlen(f->kernel_short) : 0;
	return k && strncmp(func, f->kernel_short, k) == 0 &&
	       (func[k] == '\0' || func[k] == '(' || func[k] == '<');
}

/* The user's line on the host stack at a device stop: libraries (the
 * driver, the runtime, cuBLAS, cuDNN, NCCL, the interpreter) carry no
 * line information, the program's own code built with -g does, so the
 * innermost host frame with a file and line is the user's.  Skipped for
 * Python, whose script line comes from its own stack. */
/* A named frame of the program's own image (gdb gives no `from` for the
 * main executable) that is none of the CUDA runtime's: the user's code,
 * built without -g. */
static bool own_frame_without_line(const struct diag_fault *f,
				   const struct diag_frame *h)
{
	return !h->device && !h->from && h->func && strcmp(h->func, "??") != 0 &&
	       !launch_stub(f, h->func) && strncmp(h->func, "cuda", 4) != 0 &&
	       strncmp(h->func, "libcudart", 9) != 0 &&
	       strncmp(h->func, "__cuda", 6) != 0;
}

/* Without a frame that has a line: the innermost frame of the program's
 * own code, named without one (an -O3 build without -g: lane_wild_o3,
 * run 25), rather than nothing. */
static void host_frame_without_line(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	for (size_t i = 0; i < d->n_host_frames; i++) {
		const struct diag_frame *h = &d->host_frames[i];
		if (!own_frame_without_line(f, h))
			continue;
		f->host_line.func = h->func;
		f->host_line.api = f->kernel_short;
		f->host_line.at_launch = diag_host_at_launch(
			d->host_frames, d->n_host_frames, f->kernel_short);
		return;
	}
}

static void pick_host_line(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	f->host_line = (struct diag_host_line){ 0 };
	if (f->python.found || !d->stop.have)
		return;
	for (size_t i = 0; i < d->n_host_frames; i++) {
		const struct diag_frame *h = &d->host_frames[i];
		/* run 25: __cudaLaunchKernel_helper in the toolkit's
		 * crt/device_functions.h has a line too */
		if (h->device || !h->file || !h->line || launch_stub(f, h->func) ||
		    diag_frame_library_source(h))
			continue;
		f->host_line.func = h->func;
		f->host_line.file = h->file;
		f->host_line.line = h->line;
		for (size_t k = i; k-- > 0;)
			if (d->host_frames[k].func &&
			    strcmp(d->host_frames[k].func, "??") != 0) {
				f->host_line.api = d->host_frames[k].func;
				break;
			}
		f->host_line.at_launch = diag_host_at_launch(
			d->host_frames, d->n_host_frames, f->kernel_short);
		return;
	}
	host_frame_without_line(d);
}

/* "python3 train.py" -> "train.py": the script a CUDA_LAUNCH_BLOCKING=1
 * rerun would run. */
static const char *python_script(const struct diag *d)
{
	if (!d->argv || !d->argv[0] || !diag_argv_is_python(d->argv))
		return NULL;
	for (size_t i = 0; d->argv[i]; i++) {
		size_t n = strlen(d->argv[i]);
		if (n > 3 && strcmp(d->argv[i] + n - 3, ".py") == 0)
			return d->argv[i];
	}
	return NULL;
}

/* argv as a command a person can paste into a shell. */
static char *shell_words(char *const argv[])
{
	struct dbuf b = {0};
	for (size_t i = 0; argv[i]; i++) {
		const char *w = argv[i];
		bool plain = *w != '\0';
		for (const char *c = w; *c && plain; c++)
			plain = strchr(" \t\n'\"\\$`;&|<>()*?[]{}!#~", *c) == NULL;
		if (i)
			dbuf_putc(&b, ' ');
		if (plain) {
			dbuf_puts(&b, w);
			continue;
		}
		dbuf_putc(&b, '\'');
		for (const char *c = w; *c; c++) {
			if (*c == '\'')
				dbuf_puts(&b, "'\\''");
			else
				dbuf_putc(&b, *c);
		}
		dbuf_putc(&b, '\'');
	}
	return dbuf_take(&b);
}

/* A program that failed on the host: a Python exception that is no CUDA
 * error (torch_dtype's "RuntimeError: expected mat1 and mat2 to have the
 * same dtype", run 24).  Its traceback's frames are where it was raised,
 * the user's line when nothing else gave one.  A CUDA error's traceback
 * is not used: it names the call where the asynchronous error surfaced
 * (a later sync, .item()), not the launch. */
static void pick_host_exception(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	const char *exc = diag_pytrace_exception(&d->pytrace);
	const struct diag_pystack *tb = diag_pytrace_stack(&d->pytrace);
	if (!exc || !tb || diag_is_cuda_error_text(exc))
		return;
	f->py_exception = exc;
	if (!f->python.found)
		diag_python_of_stack(d, tb, &f->python);
}

/* "/usr/bin/python3: No module named nosuchmod": the interpreter ran
 * none of the script (pytest missing from a pyenv's python, a mistyped
 * path): a host failure before any GPU work, with no traceback. */
static void pick_start_error(struct diag *d)
{
	struct diag_fault *f = &d->fault;
	/* (a CUDA library loaded: something ran, a child's interpreter may
	 * have printed it) */
	if (!f->py_exception && !d->device_stop_seen &&
	    !(d->libs_seen && d->cuda_loaded))
		f->py_start_error = diag_pytrace_start_error(&d->pytrace);
}

const struct diag_fault *diag_analyze(struct diag *d)
{
	diag_fault_reset(d);
	struct diag_fault *f = &d->fault;
	f->exception_code = -1;
	diag_focus_clear(&f->focus);
	f->program = d->argv ? d->argv[0] : NULL;
	f->script = python_script(d);
	f->command = d->argv ? keep(d, shell_words(d->argv)) : NULL;
	f->asserts = diag_asserts_all(d->asserts);
	f->n_asserts = diag_asserts_count(d->asserts);
	f->assert_total = diag_asserts_total(d->asserts);
	collect_findings(d);
	diag_group_findings(f);
	if (d->stop.have)
		fill_stop(d);
	f->frames = d->frames;
	f->n_frames = d->n_frames;
	f->host_frames = d->host_frames;
	f->n_host_frames = d->n_host_frames;
	f->kind = pick_kind(d);
	f->hang = d->hang;
	if (d->hang) { /* SIGINT is our interrupt: no exception to name */
		f->signal_name = f->signal_meaning = NULL;
		f->exception_name = NULL;
		f->exception_code = -1;
		f->explanation = f->scope = NULL;
	}
	if (f->kind == DIAG_FAULT_HOST_SIGNAL && d->host_signal) {
		f->signal_name = d->host_signal_name;
		f->signal_meaning = d->host_signal_meaning;
	}
	/* a race names a block, not one thread (diag/santools.c) */
	if (!d->stop.have && f->finding && f->finding->has_who &&
	    f->finding->kind != DIAG_SAN_RACE) {
		f->focus.valid = true;
		f->focus.block = f->finding->block;
		f->focus.thread = f->finding->thread;
	}
	pick_kernel(d);
	pick_where(d);
	diag_python_find(d, python_record(f), &f->python);
	/* At a live stop the stack taken from the interpreter is this
	 * stop's own (with launch blocking, the faulting kernel's launch). */
	if (d->have_pystack)
		diag_python_of_stack(d, &d->pystack, &f->python);
	pick_host_exception(d);
	pick_start_error(d);
	f->pystack = d->have_pystack ? &d->pystack : NULL;
	f->pystack_why = d->pystack_why;
	output_tail(d, f);
	f->bad_value = d->bad_value;
	f->pass_failed = d->pass_failed;
	keep(d, f->python.launch.source);
	keep(d, f->python.call.source);
	pick_operator(d);
	pick_host_line(d);
	f->core_path = d->core_path;
	f->exited = d->exited;
	f->exit_code = d->exit_code;
	f->exit_signal = d->exit_signal;
	f->error_line = d->error_line;
	f->output_lines = d->lines;
	f->n_output_lines = d->n_lines;
	fill_values(d);
	set_derived_flags(d);
	pick_sync_call(d);
	diag_provenance(d, f);
	lane_analysis(d);
	freed_analysis(d);
	children_analysis(d);
	host_crash_analysis(d);
	host_access_analysis(d);
	add_notes(d);
	return f;
}

const struct diag_asserts *diag_asserts_of(const struct diag *d)
{
	return d->asserts;
}

int diag_eval_frame(struct diag *d)
{
	for (size_t i = 0; i < d->n_frames; i++)
		if (d->frames[i].device && !diag_is_helper_frame(d->frames[i].func) &&
		    !toolkit_frame(&d->frames[i]))
			return (int)i;
	for (size_t i = 0; i < d->n_frames; i++)
		if (d->frames[i].device && !diag_is_helper_frame(d->frames[i].func))
			return (int)i;
	return 0;
}

size_t diag_wanted(struct diag *d, const struct diag_rules *rules,
		   const char **exprs, size_t max)
{
	const struct diag_fault *f = diag_analyze(d);
	return rules ? diag_hints_wanted(rules, f, exprs, max) : 0;
}

int diag_evaluate(struct diag *d, const struct diag_rules *rules,
		  diag_eval_fn fn, void *ctx)
{
	const char *want[64];
	size_t n = diag_wanted(d, rules, want, 64);
	/* Copies: setting a value re-analyses nothing, but keep the
	 * expressions stable regardless. */
	char *copy[64];
	for (size_t i = 0; i < n; i++)
		copy[i] = strdup(want[i]);
	int got = 0, frame = diag_eval_frame(d);
	for (size_t i = 0; i < n; i++) {
		char out[512];
		if (copy[i] && fn(ctx, frame, copy[i], out, sizeof out) == 0) {
			out[sizeof out - 1] = '\0';
			if (diag_set_value(d, copy[i], out) == 0)
				got++;
		}
		free(copy[i]);
	}
	return got;
}
