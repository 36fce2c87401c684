/* Feeding the collector from the model, the one way what the debugger
 * said reaches the diagnosis: its records are decoded once, in mi/ (the
 * stop and the exit, the results of the controller's own commands, a
 * core's story), and read here after each settled stop. */
#include "cudbg/assertline.h"
#include "cudbg/diagrun.h"
#include "cudbg/model.h"
#include "diag/state.h"

#include <stdlib.h>
#include <string.h>

static void frame_copy(struct diag_frame *o, const struct dec_frame *f)
{
	memset(o, 0, sizeof *o);
	o->level = f->level;
	o->func = diag_strdup(f->func);
	o->file = diag_strdup(f->file);
	o->fullname = diag_strdup(f->fullname);
	o->from = diag_strdup(f->from);
	o->line = f->line > 0 ? (unsigned)f->line : 0;
	o->addr = f->has_addr ? f->addr : 0;
	/* cuda-gdb 13 labels device frames with arch="m68k". */
	o->device = f->arch && strcmp(f->arch, "m68k") == 0;
}

void diag_feed_stack(struct diag *d, const struct dec_stack *st)
{
	if (!st || !st->n)
		return;
	size_t n = st->n < DIAG_MAX_FRAMES ? st->n : DIAG_MAX_FRAMES;
	struct diag_frame *v = calloc(n, sizeof *v);
	if (!v)
		return;
	for (size_t i = 0; i + 1 < n; i++)
		frame_copy(&v[i], &st->frames[i]);
	frame_copy(&v[n - 1], &st->frames[st->n - 1]); /* the outermost */
	diag_frames_offer(d, v, n);
}

void diag_focus_from_model(struct diag_focus *o, const struct dec_focus *f)
{
	diag_focus_clear(o);
	o->valid = f->valid && f->block.valid && f->thread.valid;
	o->device = f->device;
	o->sm = f->sm;
	o->warp = f->warp;
	o->lane = f->lane;
	o->kernel = f->kernel;
	o->grid = f->grid;
	o->block = (struct diag_dim3){f->block.x, f->block.y, f->block.z};
	o->thread = (struct diag_dim3){f->thread.x, f->thread.y, f->thread.z};
	if (f->cluster_idx.valid) {
		o->has_cluster = true;
		o->cluster = (struct diag_dim3){f->cluster_idx.x,
						f->cluster_idx.y,
						f->cluster_idx.z};
		o->cluster_dim = (struct diag_dim3){f->cluster_dim.x,
						    f->cluster_dim.y,
						    f->cluster_dim.z};
	}
}

static void lanes_from(struct diag *d, const struct dec_table *t)
{
	int exc = dec_table_col(t, "exception");
	int cur = dec_table_col(t, "current");
	if (!t->arena || !t->nr_rows || exc < 0)
		return;
	int with = 0;
	bool focus = false;
	for (size_t i = 0; i < t->nr_rows; i++) {
		const char *e = dec_table_cell(t, i, exc);
		const char *c = cur >= 0 ? dec_table_cell(t, i, cur) : NULL;
		if (!e || !*e || strcmp(e, "None") == 0)
			continue;
		with++;
		if (c && c[0] == '*')
			focus = true;
	}
	diag_lanes_offer(d, with, focus);
}

/* The focused kernel's name from the kernels table (-cuda-info-kernels,
 * fetched at every device stop): its invocation is "NAME(,args=[...])"
 * (cuda-gdb 13; not well formed inside, see cuda-gdb-facts.md), and NAME
 * may hold parentheses of its own ("at::native::(anonymous
 * namespace)::nll_loss_...<float>").  It names a kernel whose frames do
 * not: a lambda's launch wrapper under the assert. */
static void kernel_from_table(struct diag *d, const struct dbg_model *m)
{
	const struct dec_table *t = &m->tables[MODEL_T_KERNELS];
	struct dec_kernel_row row;
	if (d->table_kernel || !d->stop.have)
		return;
	long i = model_focus_kernel_row(m);
	if (i < 0 && t->nr_rows == 1)
		i = 0;
	if (i < 0 || dec_table_kernel(t, (size_t)i, &row) != 0 ||
	    !row.invocation)
		return;
	const char *args = strstr(row.invocation, "(,args=");
	size_t n = args ? (size_t)(args - row.invocation)
			: strlen(row.invocation);
	if (n)
		d->table_kernel = diag_strndup(row.invocation, n);
}

/* The model's last stop: the first device exception becomes the fault
 * (later feeds keep it), a host signal the host fault. */
static void stop_from_model(struct diag *d, const struct dbg_model *m)
{
	const struct dec_stop *st = &m->stop;
	struct stop_info *s = &d->stop;

	if (!m->has_stop || st->reason != DEC_REASON_SIGNAL_RECEIVED)
		return;
	if (!dec_stop_is_device(st)) {
		if (!d->host_signal && st->signal_name &&
		    strcmp(st->signal_name, "0") != 0 &&
		    strcmp(st->signal_name, "SIGINT") != 0) {
			d->host_signal = true;
			diag_strset(&d->host_signal_name, st->signal_name);
			diag_strset(&d->host_signal_meaning, st->signal_meaning);
		}
		return;
	}
	d->device_stop_seen = true;
	if (s->have)
		return;
	s->have = true;
	s->reason = diag_strdup(st->reason_text);
	s->signal_name = diag_strdup(st->signal_name);
	s->signal_meaning = diag_strdup(st->signal_meaning);
	s->exception_name = diag_strdup(st->exception_name);
	s->message = diag_strdup(st->message);
	s->exc_function = diag_strdup(st->function);
	s->exc_file = diag_strdup(st->filename);
	s->exc_line = st->line > 0 ? (unsigned)st->line : 0;
	s->error_pc = st->error_pc;
	s->has_error_pc = st->has_error_pc;
	diag_focus_from_model(&s->focus, &st->focus);
	if (st->has_frame) {
		frame_copy(&s->frame, &st->frame);
		s->has_frame = true;
	}
}

/* A core's story (mi/core_story.c): the coredump, and the stop it told
 * when no live stop came first (a live stop's fields are kept when the
 * memcheck pass's coredump is opened after it). */
static void core_from_model(struct diag *d, const struct dbg_model *m)
{
	const struct model_core *c = &m->core;
	struct stop_info *s = &d->stop;
	if (!c->gpu && !c->host)
		return;
	if (c->gpu && c->path && !d->core_path)
		diag_strset(&d->core_path, c->path);
	d->in_core = true;
	d->host_core = c->host;
	d->core_no_kernel |= c->no_kernel;
	/* a CPU crash's coredump: a host signal, as a live one is, never a
	 * device stop ("the host had moved on from the launch" was said of
	 * an assert() in host code) */
	if (model_host_core_crash(m)) {
		if (!d->host_signal) {
			d->host_signal = true;
			diag_strset(&d->host_signal_name, c->signal_name);
			diag_strset(&d->host_signal_meaning, c->signal_meaning);
		}
		return;
	}
	if (!c->stopped || (s->have && !s->from_core))
		return;
	if (!s->have) {
		s->have = s->from_core = true;
		s->reason = diag_strdup("coredump");
		d->device_stop_seen = true;
	}
	if (c->exception && !s->exception_name) {
		s->exception_name = diag_strdup(c->exception);
		s->core_exception = true;
	}
	if (c->has_pc && !s->has_error_pc) {
		s->has_error_pc = true;
		s->error_pc = c->pc;
	}
	if (c->function && !s->exc_function)
		s->exc_function = diag_strdup(c->function);
	if (c->file && c->line > 0 && !s->exc_file) {
		s->exc_file = diag_strdup(c->file);
		s->exc_line = (unsigned)c->line;
	}
	if (c->signal_name && !s->signal_name) {
		s->signal_name = diag_strdup(c->signal_name);
		s->signal_meaning = diag_strdup(c->signal_meaning);
	}
	s->assert_text |= c->assert_text;
	if (!s->focus.valid && c->focus.valid)
		diag_focus_from_model(&s->focus, &c->focus);
}

/* The culprit-lane search's answers (mi/ctl_culprit.c): the lanes whose
 * address of the faulting access lies far from the others'
 * (model_culprit_far).  A lane whose switch failed (lane -1) or whose
 * address did not evaluate counts for nothing. */
static void culprit_from(struct diag *d, const struct dbg_model *m)
{
	const struct model_culprit *cu = &m->culprit;
	struct diag_culprit *o = &d->culprit;
	if (cu->state != MODEL_CULPRIT_DONE &&
	    cu->state != MODEL_CULPRIT_FAILED)
		return;
	diag_strset(&d->culprit_inst, cu->inst);
	diag_strset(&d->culprit_why, cu->why);
	diag_strset(&d->culprit_lvalue, cu->lvalue);
	*o = (struct diag_culprit){ .searched = true, .inst = d->culprit_inst,
				    .why = d->culprit_why,
				    .lvalue = d->culprit_lvalue,
				    .focus_lane = cu->back_lane };
	bool *far = calloc(cu->n ? cu->n : 1, sizeof *far);
	if (!far)
		return;
	o->bad = (int)model_culprit_far(cu, far);
	for (size_t i = 0; i < cu->n; i++) {
		const struct model_lane_addr *l = &cu->lanes[i];
		if (l->lane < 0 || !l->has_addr)
			continue;
		o->lanes++;
		if (far[i] && !o->found) {
			o->found = true;
			o->lane = l->lane;
			o->thread = (struct diag_dim3){l->thread.x, l->thread.y,
						       l->thread.z};
			o->addr = l->addr;
		} else if (!far[i]) {
			if (!o->good_lo || l->addr < o->good_lo)
				o->good_lo = l->addr;
			if (l->addr > o->good_hi)
				o->good_hi = l->addr;
		}
	}
	free(far);
}

static void freed_site(struct diag_freed_site *o, char **strs,
		       const struct model_alloc_site *s)
{
	diag_strset(&strs[0], s->api);
	diag_strset(&strs[1], s->func);
	diag_strset(&strs[2], s->file);
	*o = (struct diag_freed_site){ .api = strs[0], .func = strs[1],
				       .file = strs[2],
				       .line = s->line > 0 ? (unsigned)s->line
							   : 0 };
}

/* A host crash's address and the line's dereference there
 * (mi/ctl_access.c), once its answers are in; a stop with none forgets
 * the last one's. */
static void access_from(struct diag *d, const struct dbg_model *m)
{
	const struct model_access *ma = &m->access;
	if (ma->state != MODEL_ACCESS_DONE || !ma->has_address) {
		if (ma->state == MODEL_ACCESS_NONE && m->state == MODEL_STOPPED)
			diag_set_host_access(d, NULL);
		return;
	}
	const struct model_deref *md = ma->match >= 0 ? &ma->derefs[ma->match]
						      : NULL;
	struct diag_host_access a = {
		.address = ma->address, .line_checked = ma->n > 0,
		.expr = md ? md->expr : NULL, .base = md ? md->base : NULL,
		.index = md ? md->index : NULL,
		.base_value = ma->base_value, .has_base = md && ma->has_base,
		.index_value = ma->index_value,
		.has_index = md && md->index && ma->has_index,
	};
	diag_set_host_access(d, &a);
}

/* The freed-memory lookup's answer (mi/alloc_watch.c), once it found
 * the allocation the address lies in. */
static void freed_from(struct diag *d, const struct dbg_model *m)
{
	const struct model_freed *mf = &m->freed;
	/* a lookup that found nothing after the watch's budget was spent
	 * is no all-clear */
	d->alloc_watch_cut = mf->state == MODEL_FREED_DONE && !mf->found &&
			     !mf->in_live && m->allocs.ended;
	if (mf->state != MODEL_FREED_DONE || !(mf->found || mf->in_live))
		return;
	struct diag_freed *o = &d->freed;
	*o = (struct diag_freed){ .found = mf->found, .in_live = mf->in_live,
				  .addr = mf->addr, .base = mf->base,
				  .size = mf->size };
	freed_site(&o->alloc, d->freed_strs, &mf->alloc);
	freed_site(&o->free, d->freed_strs + 3, &mf->free);
}

/* How the program ended, once. */
static void exit_from_model(struct diag *d, const struct dbg_model *m)
{
	if (m->state != MODEL_EXITED || d->exit_live)
		return;
	diag_asserts_finish(d->asserts);
	d->exited = d->exit_live = true;
	d->exit_signalled = m->exited_signalled;
	if (m->exited_signalled)
		diag_strset(&d->exit_signal, m->exit_signal);
	else
		d->exit_code = m->exit_code;
	d->continued_past = m->resumed_after_exception;
	d->libs_seen = m->libs_seen;
	d->cuda_loaded = m->cuda_loaded;
	d->forked = m->forked;
}

void diag_feed_model(struct diag *d, const struct dbg_model *m)
{
	if (!m)
		return;
	d->model_stop = m->stop_count;
	/* the libraries so far, at every feed (a hang's stop too): what the
	 * program has loaded says whether anything of it can have run on a
	 * GPU yet (no-cuda-seen) */
	d->libs_seen = m->libs_seen;
	d->cuda_loaded = m->cuda_loaded;
	stop_from_model(d, m);
	core_from_model(d, m);
	if (d->stop.have && !d->stop.focus.valid && m->focus.valid)
		diag_focus_from_model(&d->stop.focus, &m->focus);
	diag_feed_stack(d, &m->frames);
	/* A host signal (a CPU crash): the program's own frame (the
	 * controller selects it when the signal came in a library: abort()
	 * from assert()) and its values as they were, as gdb's `bt` shows
	 * them; a library frame's are not the user's. */
	if (d->host_signal && m->frames.n)
		d->host_user_level = m->user_frame;
	bool host_vals = !d->stop.have && d->host_signal &&
			 (d->host_user_level >= 0
				  ? m->selected_frame == d->host_user_level
				  : m->selected_frame == 0 && d->n_host_frames &&
					    !diag_frame_library_source(
						    &d->host_frames[0]));
	for (size_t i = 0; (d->stop.have || host_vals) && i < m->vars.n; i++) {
		const struct dec_var *v = &m->vars.v[i];
		/* cuda-gdb 13 at a device assert: the kernel's frame (1)
		 * shows register-held locals with stale values (t=0,
		 * i=33554432 for thread 133 in
		 * tests/fixtures/h200_assert_label.mi.log), and a __device__
		 * helper's arguments too; the kernel's parameters are
		 * right.  What may be stale is named, never valued. */
		if (model_var_untrusted(m, m->selected_frame, v)) {
			diag_note_untrusted(d, v->name);
			continue;
		}
		if (v->name && v->value &&
		    diag_value_put(d, v->name, v->value, m->selected_frame) ==
			    DIAG_OK)
			diag_value_type(d, v->name, v->type);
	}
	lanes_from(d, &m->tables[MODEL_T_LANES]);
	kernel_from_table(d, m);
	culprit_from(d, m);
	freed_from(d, m);
	access_from(d, m);
	exit_from_model(d, m);
}
