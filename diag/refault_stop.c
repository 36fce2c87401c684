/* Replay to fault from a precise stop (no memcheck finding needed): the
 * thread the stop names and the line of its innermost frame with source.
 * See include/cudbg/refault.h. */
#include "cudbg/refault.h"
#include "cudbg/model.h"

#include <stdio.h>
#include <string.h>

static const struct dec_frame *frame0(const struct dbg_model *m)
{
	if (m->frames.n)
		return &m->frames.frames[0];
	return m->has_stop && m->stop.has_frame ? &m->stop.frame : NULL;
}

static bool func_is(const struct dec_frame *f, const char *name)
{
	return f && f->func && strcmp(f->func, name) == 0;
}

/* Which stops name the very thread that failed.  A device assert() and a
 * __trap() stop the thread that ran them (assert_label.mi.log: focus on
 * thread (5,0,0) of block (1,0,0), the thread the assertion text names).
 * compute-sanitizer's coredump ends with SIGTRAP on the exact faulting
 * thread (core_small_oob.mi.log: thread (99,0,0)).  Hardware exceptions
 * are reported per warp with the focus on lane 0 (null_write.mi.log):
 * not precise, the memcheck pass names the thread. */
bool diag_refault_stop_precise(const struct dbg_model *m)
{
	if (!m || m->state != MODEL_STOPPED || !m->focus.valid ||
	    !m->focus.block.valid || !m->focus.thread.valid)
		return false;
	const struct dec_frame *f0 = frame0(m);
	if (func_is(f0, "__assert_fail") || func_is(f0, "__trap"))
		return true;
	const char *sig = m->has_stop ? m->stop.signal_name : NULL;
	return m->is_core && !m->stop.exception_name &&
	       (!sig || strcmp(sig, "SIGTRAP") == 0);
}

static void kernel_of(const struct dbg_model *m, struct diag_refault_target *t)
{
	const char *fn = NULL;
	for (size_t i = 0; i < m->frames.n; i++) {
		const struct dec_frame *f = &m->frames.frames[i];
		if (f->func && f->file && f->line > 0)
			fn = f->func; /* the outermost device frame with source */
	}
	if (fn)
		snprintf(t->kernel, sizeof t->kernel, "%s", fn);
	long row = model_focus_kernel_row(m);
	struct dec_kernel_row k;
	if (row >= 0 && dec_table_kernel(&m->tables[MODEL_T_KERNELS],
					 (size_t)row, &k) == 0 &&
	    k.block_dim.valid)
		t->block_dim = (struct diag_dim3){ k.block_dim.x, k.block_dim.y,
						   k.block_dim.z };
}

int diag_refault_target_from_stop(const struct dbg_model *m,
				  struct diag_refault_target *t)
{
	memset(t, 0, sizeof *t);
	if (!diag_refault_stop_precise(m))
		return DIAG_ENOTFOUND;
	/* The assert's own line, in the kernel's frame (frame 1 under
	 * __assert_fail): a breakpoint there stops before the assert ran,
	 * with the values it tested still live (cuda-gdb 13 shows stale
	 * register locals in frame 1 after the assert fired). */
	const struct dec_frame *src = model_source_frame(m);
	if (!src || !src->file || src->line <= 0)
		return DIAG_ENOTFOUND;
	const char *base = strrchr(src->file, '/');
	snprintf(t->file, sizeof t->file, "%s", base ? base + 1 : src->file);
	t->line = (unsigned)src->line;
	t->block = (struct diag_dim3){ m->focus.block.x, m->focus.block.y,
				       m->focus.block.z };
	t->thread = (struct diag_dim3){ m->focus.thread.x, m->focus.thread.y,
					m->focus.thread.z };
	kernel_of(m, t);
	return DIAG_OK;
}
