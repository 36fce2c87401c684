/* The refresh pipeline: after a stop (or a focus or frame change) fetch
 * what the panes show.  Commands are pipelined; each answer updates the
 * model.  Answers of an older generation (a newer stop came meanwhile)
 * are dropped in ctl.c. */
#include "mi/ctl_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool done(const struct session_reply *r)
{
	return r->kind == SESSION_REPLY_DONE && r->rec;
}

static void table_fetched(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r);

/* Sends cmd as a refresh op; when it fails, `fallback` (may be NULL) is
 * tried once.  Replays of recordings made by other front ends, and older
 * debuggers, know only some forms. */
static int64_t send2(struct dbg_ctl *c, ctl_op_fn fn, const char *cmd,
		     const char *fallback, size_t index)
{
	struct ctl_op *op = ctl_op_new(c, fn, true);
	if (!op)
		return MI_ENOMEM;
	op->index = index;
	if (fn == table_fetched && !(op->rows = dec_table_builder_new())) {
		free(op);
		return MI_ENOMEM;
	}
	if (fallback && !(op->fallback = strdup(fallback))) {
		free(op);
		return MI_ENOMEM;
	}
	return ctl_send_op(c, op, 0, cmd);
}

static bool device_context(const struct dbg_model *m)
{
	return m->cuda && (m->focus.valid || m->is_core);
}

/* ---- tables ---- */

static void table_fetched(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	struct dec_table t;
	if (r->kind == SESSION_REPLY_ERROR) {
		/* A refresh that failed leaves no table (the old one belongs
		 * to an earlier stop or focus); a failed page keeps what is
		 * shown and says why. */
		if (op->refresh)
			model_set_table_error(&c->m, (enum model_table)op->index,
					      r->msg);
		else
			model_set_error(&c->m, "%s: %s",
					r->command ? r->command : "table",
					r->msg ? r->msg : "error");
		return;
	}
	if (!done(r))
		return;
	/* Every table op collects rows in a builder; a small answer comes
	 * whole and finish() takes its rows from the record instead. */
	struct dec_table_builder *rows = op->rows;
	op->rows = NULL;
	if (rows ? dec_table_builder_finish(rows, r->rec->results, &t) != 0
	      : dec_table_decode(r->rec->results, &t) != 0)
		return;
	if (op->index == MODEL_T_THREADS) {
		/* The block the rows belong to, from the command answered (a
		 * fallback to the whole grid has none). */
		static const char pre[] = "-cuda-info-threads block ";
		const char *cmd = r->command ? r->command : "";
		struct dec_dim3 b = { 0 };
		if (strncmp(cmd, pre, sizeof pre - 1) == 0)
			dec_dim3_parse(cmd + sizeof pre - 1, &b);
		c->m.threads_block = b;
	}
	model_take_table(&c->m, (enum model_table)op->index, &t);
}

static void fetch_table(struct dbg_ctl *c, enum model_table which,
			const char *cmd)
{
	send2(c, table_fetched, cmd, NULL, which);
}

void ctl_refresh_threads(struct dbg_ctl *c)
{
	struct dec_dim3 b = c->m.focus.block;
	if (!c->m.cuda)
		return;
	if (!b.valid) {
		send2(c, table_fetched, "-cuda-info-threads", NULL,
		      MODEL_T_THREADS);
		return;
	}
	/* Paged by block: the whole grid's table can be 10 MB (1.2 s in
	 * cuda-gdb 13 for 264 blocks). */
	char cmd[128];
	snprintf(cmd, sizeof cmd, "-cuda-info-threads block (%u,%u,%u)", b.x,
		 b.y, b.z);
	send2(c, table_fetched, cmd, "-cuda-info-threads", MODEL_T_THREADS);
}

int64_t ctl_threads_page(struct dbg_ctl *c, struct dec_dim3 block)
{
	if (c->m.state != MODEL_STOPPED || !c->m.cuda)
		return CTL_ESTATE;
	struct ctl_op *op = ctl_op_new(c, table_fetched, false);
	if (!op)
		return MI_ENOMEM;
	op->index = MODEL_T_THREADS;
	if (!(op->rows = dec_table_builder_new())) {
		free(op);
		return MI_ENOMEM;
	}
	char cmd[128];
	if (block.valid)
		snprintf(cmd, sizeof cmd, "-cuda-info-threads block (%u,%u,%u)",
			 block.x, block.y, block.z);
	else
		snprintf(cmd, sizeof cmd, "-cuda-info-threads");
	return ctl_send_op(c, op, 0, cmd);
}

int64_t ctl_hang_tables(struct dbg_ctl *c)
{
	struct dbg_model *m = &c->m;
	if (m->state != MODEL_STOPPED || !device_context(m))
		return CTL_ESTATE;
	fetch_table(c, MODEL_T_KERNELS, "-cuda-info-kernels");
	struct ctl_op *op = ctl_op_new(c, table_fetched, false);
	if (!op)
		return MI_ENOMEM;
	op->index = MODEL_T_THREADS;
	if (!(op->rows = dec_table_builder_new())) {
		free(op);
		return MI_ENOMEM;
	}
	/* Coalesced and filtered to the stopped kernel: one row per run of
	 * threads at one PC (cuda-gdb 13: 42,023 rows, 1.2 s for a full
	 * H200; uncoalesced it is 60 MB and 24.7 s, never asked for). */
	char cmd[128];
	if (m->focus.kernel >= 0)
		snprintf(cmd, sizeof cmd, "-cuda-info-threads kernel %d",
			 m->focus.kernel);
	else
		snprintf(cmd, sizeof cmd, "-cuda-info-threads");
	return ctl_send_op(c, op, 0, cmd);
}

int64_t ctl_threads_uncoalesced(struct dbg_ctl *c, struct dec_dim3 block)
{
	if (c->m.state != MODEL_STOPPED || !c->m.cuda)
		return CTL_ESTATE;
	if (!block.valid)
		return CTL_EINVAL;
	/* One block only: the whole grid of a full H200 uncoalesced is one
	 * 60 MB line and 24.7 s in cuda-gdb 13 (big_grid.mi.log).  The
	 * setting is put back at once, so later tables are coalesced. */
	ctl_sendf(c, NULL, false, "-gdb-set cuda coalescing off");
	struct ctl_op *op = ctl_op_new(c, table_fetched, false);
	if (!op)
		return MI_ENOMEM;
	op->index = MODEL_T_THREADS;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "-cuda-info-threads block (%u,%u,%u)", block.x,
		 block.y, block.z);
	int64_t tok = ctl_send_op(c, op, 0, cmd);
	ctl_sendf(c, NULL, false, "-gdb-set cuda coalescing on");
	return tok;
}

void ctl_refresh_wanted(struct dbg_ctl *c, unsigned want)
{
	struct dbg_model *m = &c->m;
	if (m->state != MODEL_STOPPED)
		return;
	if (device_context(m)) {
		if (want & MODEL_WANT_BLOCKS)
			fetch_table(c, MODEL_T_BLOCKS, "-cuda-info-blocks");
		if (want & MODEL_WANT_DEVICES)
			fetch_table(c, MODEL_T_DEVICES, "-cuda-info-devices");
		if (want & MODEL_WANT_SMS)
			fetch_table(c, MODEL_T_SMS, "-cuda-info-sms");
		if (want & MODEL_WANT_WARPS)
			fetch_table(c, MODEL_T_WARPS, "-cuda-info-warps");
		if (want & MODEL_WANT_LANES)
			fetch_table(c, MODEL_T_LANES, "-cuda-info-lanes");
		if (want & MODEL_WANT_CONTEXTS)
			fetch_table(c, MODEL_T_CONTEXTS, "-cuda-info-contexts");
	}
	if (want & (MODEL_WANT_HOST_THREADS | MODEL_WANT_REGS |
		    MODEL_WANT_MEMORY))
		ctl_refresh_frame_data(c);
}

/* ---- focus, frames, variables ---- */

static void focus_queried(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	(void)op;
	struct dec_focus f;
	if (done(r) && dec_focus_decode(r->rec->results, &f) == 0)
		model_set_focus(&c->m, &f);
	if (!c->lean)
		ctl_refresh_threads(c);
}

static void vars_listed(struct dbg_ctl *c, struct ctl_op *op,
			const struct session_reply *r)
{
	(void)op;
	struct dec_vars v;
	if (done(r) && dec_vars_decode(r->rec->results, &v) == 0)
		model_take_vars(&c->m, &v);
	else if (r->kind == SESSION_REPLY_ERROR) {
		struct dec_vars none = { 0 };
		model_take_vars(&c->m, &none);
	}
}

static void watch_fetched(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	/* the watch list may have changed while this was in flight */
	if (op->index >= c->m.nwatches ||
	    strcmp(c->m.watches[op->index].expr, op->expr) != 0)
		return;
	if (done(r)) {
		const char *v = dec_value(r->rec->results);
		model_set_watch_value(&c->m, op->index, v ? v : "", false);
	} else if (r->kind == SESSION_REPLY_ERROR) {
		model_set_watch_value(&c->m, op->index, r->msg ? r->msg : "error",
				      true);
	}
}

void ctl_fetch_watch(struct dbg_ctl *c, size_t i, bool refresh)
{
	char *q = ctl_quote_expr(c->m.watches[i].expr);
	char *cmd = NULL;
	struct ctl_op *op = ctl_op_new(c, watch_fetched, refresh);
	if (!q || !op || !(op->expr = strdup(c->m.watches[i].expr)) ||
	    asprintf(&cmd, "-data-evaluate-expression %s", q) < 0) {
		free(q);
		if (op)
			free(op->expr);
		free(op);
		return;
	}
	op->index = i;
	ctl_send_op(c, op, 0, cmd);
	free(cmd);
	free(q);
}

static void regvals_fetched(struct dbg_ctl *c, struct ctl_op *op,
			    const struct session_reply *r)
{
	(void)op;
	struct dec_regvals v;
	if (done(r) && dec_regvals_decode(r->rec->results, &v) == 0) {
		model_set_regvals(&c->m, &v);
		dec_regvals_free(&v);
	}
}

static void fetch_regvals(struct dbg_ctl *c)
{
	send2(c, regvals_fetched,
	      "-data-list-register-values --skip-unavailable x",
	      "-data-list-register-values x", 0);
}

static const char *frame_arch(const struct dbg_model *m)
{
	const struct dec_frame *f = model_frame(m);
	if (f && f->arch)
		return f->arch;
	return m->has_stop && m->stop.has_frame ? m->stop.frame.arch : NULL;
}

static void regnames_fetched(struct dbg_ctl *c, struct ctl_op *op,
			     const struct session_reply *r)
{
	(void)op;
	struct dec_regnames n;
	if (!done(r) || dec_regnames_decode(r->rec->results, &n) != 0)
		return;
	model_take_regnames(&c->m, &n, frame_arch(&c->m));
	fetch_regvals(c);
}

/* Register names differ between host and device frames: fetch them again
 * when the frame's architecture changed. */
static void refresh_regs(struct dbg_ctl *c)
{
	const char *arch = frame_arch(&c->m);
	const char *have = c->m.regnames_arch;
	bool same = c->m.regnames.n > 0 &&
		    ((!arch && !have) || (arch && have && !strcmp(arch, have)));
	if (same)
		fetch_regvals(c);
	else
		send2(c, regnames_fetched, "-data-list-register-names", NULL, 0);
}

static void memory_fetched(struct dbg_ctl *c, struct ctl_op *op,
			   const struct session_reply *r)
{
	(void)op;
	struct dbg_model *m = &c->m;
	free(m->mem_error);
	m->mem_error = NULL;
	dec_memory_free(&m->memory);
	if (done(r))
		dec_memory_decode(r->rec->results, &m->memory);
	else if (r->kind == SESSION_REPLY_ERROR)
		m->mem_error = strdup(r->msg ? r->msg : "error");
	m->changes |= MODEL_CH_MEMORY;
}

static void refresh_memory(struct dbg_ctl *c)
{
	char *q = ctl_quote_expr(c->m.mem_expr);
	char *cmd = NULL;
	if (q && asprintf(&cmd, "-data-read-memory-bytes %s %zu", q,
			  c->m.mem_len) >= 0)
		send2(c, memory_fetched, cmd, NULL, 0);
	free(cmd);
	free(q);
}

static void host_threads_listed(struct dbg_ctl *c, struct ctl_op *op,
				const struct session_reply *r)
{
	(void)op;
	struct dec_threads t;
	if (!done(r) || dec_threads_decode(r->rec->results, &t) != 0)
		return;
	dec_threads_free(&c->m.host_threads);
	c->m.host_threads = t;
	c->m.changes |= MODEL_CH_TABLES;
}

void ctl_refresh_frame_data(struct dbg_ctl *c)
{
	struct dbg_model *m = &c->m;
	if (m->state != MODEL_STOPPED)
		return;
	send2(c, vars_listed, "-stack-list-variables --simple-values",
	      "-stack-list-variables --all-values", 0);
	for (size_t i = 0; i < m->nwatches; i++)
		ctl_fetch_watch(c, i, true);
	if (c->want & MODEL_WANT_REGS)
		refresh_regs(c);
	if ((c->want & MODEL_WANT_MEMORY) && m->mem_expr)
		refresh_memory(c);
	if (c->want & MODEL_WANT_HOST_THREADS)
		send2(c, host_threads_listed, "-thread-info", NULL, 0);
}

static void frame_auto_selected(struct dbg_ctl *c, struct ctl_op *op,
				const struct session_reply *r)
{
	if (done(r)) {
		c->m.selected_frame = op->level;
		c->m.changes |= MODEL_CH_FRAMES;
	}
	ctl_refresh_frame_data(c);
}

/* A device assert or trap stops in __assert_fail / __trap, which has no
 * source; the kernel's frame with its line is the one to show (cuda-gdb
 * 13, fixtures assert_label and trap).  A CPU crash in a library (abort()
 * from assert(), raise(), a memcpy on a bad pointer) shows the program's
 * own frame that called it, as an IDE's "show the user's code" does. */
static int auto_frame(struct dbg_ctl *c)
{
	struct dbg_model *m = &c->m;
	if (m->frames.n == 0)
		return -1;
	const struct dec_frame *f0 = &m->frames.frames[0];
	if (model_host_fault_stop(m)) {
		/* a replay chooses what its recording chose: the program's
		 * sources need not be here */
		int level = session_next_user_frame(c->s);
		if (level == SESSION_NO_CHOICE) {
			const struct dec_frame *u = model_user_frame(m);
			level = u ? u->level : -1;
		}
		session_note_user_frame(c->s, level);
		m->user_frame = level;
		return level >= 0 ? level : f0->level;
	}
	if (f0->file || !m->focus.valid)
		return f0->level;
	const struct dec_frame *src = model_source_frame(m);
	return src && src->level > 0 ? src->level : f0->level;
}

static const char *acopy(struct dec_arena *a, const char *s)
{
	return s ? dec_arena_strndup(a, s, strlen(s)) : NULL;
}

/* Copies a frame (strings and arguments) into arena a. */
static void frame_copy(struct dec_arena *a, struct dec_frame *dst,
		       const struct dec_frame *src)
{
	int level = dst->level;
	*dst = *src;
	dst->level = level;
	dst->func = acopy(a, src->func);
	dst->file = acopy(a, src->file);
	dst->fullname = acopy(a, src->fullname);
	dst->from = acopy(a, src->from);
	dst->arch = acopy(a, src->arch);
	dst->args = src->nargs ? dec_arena_alloc(a, src->nargs *
						    sizeof *dst->args) : NULL;
	dst->nargs = dst->args ? src->nargs : 0;
	for (size_t i = 0; i < dst->nargs; i++) {
		dst->args[i] = src->args[i];
		dst->args[i].name = acopy(a, src->args[i].name);
		dst->args[i].type = acopy(a, src->args[i].type);
		dst->args[i].value = acopy(a, src->args[i].value);
	}
}

/* The stop names frame 0 itself; a stack that disagrees is from another
 * moment (a replay answers a command the recording made elsewhere), so
 * the stop's frame wins. */
static void stack_agree(const struct dec_frame *sf, struct dec_stack *st)
{
	if (!sf || !sf->has_addr || !st->n || !st->frames[0].has_addr ||
	    st->frames[0].addr == sf->addr)
		return;
	frame_copy(st->arena, &st->frames[0], sf);
}

static void frames_listed(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	(void)op;
	struct dec_stack st;
	if (!done(r) || dec_stack_decode(r->rec->results, &st) != 0) {
		ctl_refresh_frame_data(c);
		return;
	}
	const struct dbg_model *m = &c->m;
	if (c->anchor.n)
		stack_agree(&c->anchor.frames[0], &st);
	else if (c->auto_frame && m->has_stop && m->stop.has_frame)
		stack_agree(&m->stop.frame, &st);
	dec_stack_free(&c->anchor);
	model_take_frames(&c->m, &st);
	int level = c->auto_frame ? auto_frame(c) : -1;
	c->auto_frame = false;
	if (level > 0) {
		struct ctl_op *sel = ctl_op_new(c, frame_auto_selected, true);
		char cmd[64];
		snprintf(cmd, sizeof cmd, "-stack-select-frame %d", level);
		if (sel) {
			sel->level = level;
			ctl_send_op(c, sel, 0, cmd);
			return;
		}
	}
	ctl_refresh_frame_data(c);
}

void ctl_refresh_frames(struct dbg_ctl *c)
{
	send2(c, frames_listed, "-stack-list-frames", NULL, 0);
}

/* A lazy session's `sharedlibrary` command cmd, sent when libraries
 * loaded since *read_at; fn gets its answer.  The token, or 0 when there
 * is nothing to read. */
static int64_t read_symbols(struct dbg_ctl *c, const char *cmd,
			    unsigned *read_at, ctl_op_fn fn)
{
	if (!cmd || *read_at == c->libs_loaded)
		return 0;
	*read_at = c->libs_loaded;
	return ctl_sendf(c, fn, false, "%s", cmd);
}

static void late_symbols_read(struct dbg_ctl *c, struct ctl_op *op,
			      const struct session_reply *r)
{
	(void)op;
	if (r->kind == SESSION_REPLY_GONE)
		return;
	c->m.symbols_read++;
	ctl_refresh(c);
}

/* Each of torch's libraries loaded and not yet read from its lean copy
 * (session_lean_command): cmds[i], NULL when it cannot be (then the late
 * regex names the library).  The lean mask: the libraries read from
 * copies, now or before. */
static unsigned lean_commands(struct dbg_ctl *c, char *cmds[SESSION_LEAN_LIBS])
{
	unsigned mask = 0;
	for (unsigned i = 0; i < SESSION_LEAN_LIBS; i++) {
		struct ctl_lean_lib *l = &c->leans[i];
		cmds[i] = NULL;
		if (l->read) {
			mask |= 1u << i;
			continue;
		}
		if (!l->path)
			continue;
		char err[256] = "";
		cmds[i] = session_lean_command(c->s, i, l->path, l->text, err,
					       sizeof err);
		if (cmds[i])
			mask |= 1u << i;
		else if (err[0])
			session_note(c->s, "lean symbols: %s", err);
	}
	return mask;
}

int64_t ctl_read_late_symbols(struct dbg_ctl *c)
{
	bool lazy = session_lazy_symbols(c->s);
	if (c->m.state != MODEL_STOPPED)
		return lazy ? CTL_ESTATE : 0;
	if (!lazy || c->libs_read_late == c->libs_loaded)
		return 0;
	char *lean[SESSION_LEAN_LIBS];
	unsigned mask = lean_commands(c, lean);
	int last = -1;
	for (int i = 0; i < SESSION_LEAN_LIBS; i++)
		if (lean[i])
			last = i;
	/* the refresh follows the last command's answer */
	const char *late = session_late_symbols_command(c->s, mask);
	int64_t tok = read_symbols(c, late, &c->libs_read_late,
				   last < 0 ? late_symbols_read : NULL);
	c->libs_read_late = c->libs_loaded;
	for (int i = 0; i < SESSION_LEAN_LIBS; i++) {
		if (!lean[i])
			continue;
		c->leans[i].read = true;
		int64_t t2 = ctl_sendf(c, i == last ? late_symbols_read : NULL,
				       false, "%s", lean[i]);
		free(lean[i]);
		if (t2 != 0)
			tok = t2;
	}
	return tok;
}

void ctl_refresh_stop(struct dbg_ctl *c)
{
	struct dbg_model *m = &c->m;
	dec_stack_free(&c->anchor);
	c->gen++;
	c->refreshing = 0;
	c->auto_frame = true;
	/* A lazy session reads the symbols the report needs now, before
	 * any stack is listed (the host stack names the ATen operator), and
	 * again only after more libraries loaded.  The answer is not
	 * waited for: the commands after it are answered after it. */
	read_symbols(c, session_symbols_command(c->s, false), &c->libs_read, NULL);
	/* cuda-gdb 13 answers "invalid" for every field not named: ask for
	 * all of them. */
	if (device_context(m))
		send2(c, focus_queried,
		      "-cuda-focus-query device sm warp lane kernel grid block "
		      "thread", NULL, 0);
	ctl_refresh_frames(c);
	if (device_context(m) && !c->lean)
		fetch_table(c, MODEL_T_KERNELS, "-cuda-info-kernels");
	ctl_refresh_wanted(c, c->want & ~(MODEL_WANT_REGS | MODEL_WANT_MEMORY |
					  MODEL_WANT_HOST_THREADS));
}

/* After a console command: gdb's selected frame may have moved. */
static void frame_info(struct dbg_ctl *c, struct ctl_op *op,
		       const struct session_reply *r)
{
	(void)op;
	struct dec_stack st;
	if (done(r) && dec_frame_result_decode(r->rec->results, &st) == 0) {
		c->m.selected_frame = st.frames[0].level;
		dec_stack_free(&st);
	}
	c->auto_frame = false;
	ctl_refresh_frames(c);
}

int ctl_refresh(struct dbg_ctl *c)
{
	struct dbg_model *m = &c->m;
	if (m->state != MODEL_STOPPED)
		return CTL_ESTATE;
	c->gen++;
	c->refreshing = 0;
	if (device_context(m))
		send2(c, focus_queried,
		      "-cuda-focus-query device sm warp lane kernel grid block "
		      "thread", NULL, 0);
	send2(c, frame_info, "-stack-info-frame", NULL, 0);
	if (device_context(m))
		fetch_table(c, MODEL_T_KERNELS, "-cuda-info-kernels");
	ctl_refresh_wanted(c, c->want & ~(MODEL_WANT_REGS | MODEL_WANT_MEMORY |
					  MODEL_WANT_HOST_THREADS));
	return 0;
}

int ctl_memory_view(struct dbg_ctl *c, const char *addr_expr, size_t len)
{
	if (!addr_expr || !*addr_expr || strpbrk(addr_expr, "\r\n") ||
	    len == 0 || len > (1u << 20))
		return CTL_EINVAL;
	char *e = strdup(addr_expr);
	if (!e)
		return MI_ENOMEM;
	free(c->m.mem_expr);
	c->m.mem_expr = e;
	c->m.mem_len = len;
	c->want |= MODEL_WANT_MEMORY;
	if (c->m.state == MODEL_STOPPED)
		refresh_memory(c);
	return 0;
}

/* ---- disassembly ---- */

static void disassembled(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	struct dec_disasm d;
	if (!done(r) || dec_disasm_decode(r->rec->results, &d) != 0) {
		if (op->disasm_fn)
			op->disasm_fn(op->user, &c->m, done(r)
				      ? "its answer could not be read"
				      : r->msg && *r->msg ? r->msg
				      : "the debugger refused");
		return;
	}
	dec_disasm_free(&c->m.disasm);
	c->m.disasm = d;
	free(c->m.disasm_func);
	c->m.disasm_func = op->expr;
	op->expr = NULL;
	c->m.changes |= MODEL_CH_DISASM;
	if (op->disasm_fn)
		op->disasm_fn(op->user, &c->m, NULL);
}

static bool disasm_covers(const struct dbg_model *m, uint64_t pc)
{
	return m->disasm.n && m->disasm.v[0].addr <= pc &&
	       m->disasm.v[m->disasm.n - 1].addr >= pc;
}

int64_t ctl_disassemble(struct dbg_ctl *c, ctl_disasm_fn fn, void *ctx)
{
	const struct dec_frame *f = model_frame(&c->m);
	if (c->m.state != MODEL_STOPPED || !f)
		return CTL_ESTATE;
	if (f->func && c->m.disasm_func && !strcmp(f->func, c->m.disasm_func) &&
	    f->has_addr && disasm_covers(&c->m, f->addr))
		return 0;
	struct ctl_op *op = ctl_op_new(c, disassembled, false);
	if (!op)
		return MI_ENOMEM;
	op->disasm_fn = fn;
	op->user = ctx;
	op->expr = strdup(f->func ? f->func : "");
	op->fallback = strdup("-data-disassemble -s $pc-64 -e $pc+64 -- 5");
	if (!op->expr || !op->fallback) {
		free(op->expr);
		free(op->fallback);
		free(op);
		return MI_ENOMEM;
	}
	/* The whole function with source lines; cuda-gdb takes about 0.5 s
	 * the first time in a device function, hence the cache. */
	return ctl_send_op(c, op, 0, "-data-disassemble -a $pc -- 4");
}

/* ---- warp watch ---- */

static void lane_value(struct dbg_ctl *c, struct ctl_op *op,
		       const struct session_reply *r)
{
	if (op->gen != c->gen || op->index >= c->m.nlanes)
		return;
	if (op->level == 1)
		c->m.warp_busy = false;
	c->m.changes |= MODEL_CH_WARP_WATCH;
	struct model_lane_value *l = &c->m.lanes[op->index];
	/* The switch to this lane failed: the answer is the previous
	 * lane's value, not this one's. */
	if (l->error && l->value)
		return;
	const char *v = done(r) ? dec_value(r->rec->results) : r->msg;
	free(l->value);
	l->value = strdup(v ? v : "");
	l->error = !done(r);
	c->m.changes |= MODEL_CH_WARP_WATCH;
}

static void lane_switched(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	if (op->gen != c->gen || op->index >= c->m.nlanes ||
	    r->kind != SESSION_REPLY_ERROR)
		return;
	struct model_lane_value *l = &c->m.lanes[op->index];
	char *msg = NULL;
	if (asprintf(&msg, "cannot switch to lane %d: %s", l->lane,
		     r->msg ? r->msg : "error") < 0)
		msg = NULL;
	free(l->value);
	l->value = msg;
	l->error = true;
	c->m.changes |= MODEL_CH_WARP_WATCH;
}

static void warp_finished(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	(void)op;
	(void)r;
	c->m.warp_busy = false;
	c->m.changes |= MODEL_CH_WARP_WATCH;
}

/* "-cuda-focus-switch lane N" or "-stack-select-frame N". */
static void send_plain(struct dbg_ctl *c, ctl_op_fn fn, size_t index,
		       const char *verb, int arg)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "%s %d", verb, arg);
	struct ctl_op *op = ctl_op_new(c, fn, false);
	if (op) {
		op->index = index;
		ctl_send_op(c, op, 0, cmd);
	}
}

/* last: this answer ends the watch (op->level 1 marks it). */
static void send_lane_eval(struct dbg_ctl *c, size_t index, const char *eval,
			   bool last)
{
	struct ctl_op *ev = ctl_op_new(c, lane_value, false);
	if (ev) {
		ev->index = index;
		ev->level = last ? 1 : -1;
		ctl_send_op(c, ev, 0, eval);
	}
}

/* The lanes worth evaluating: those the table lists, less inactive ones
 * (cuda-gdb 13 lists only lanes that exist in the warp; evaluating in an
 * inactive lane reads stale registers). */
static void lanes_collect(struct dbg_model *m, const struct dec_table *t)
{
	for (size_t i = 0; i < t->nr_rows; i++) {
		struct dec_lane_row row;
		if (dec_table_lane(t, i, &row) != 0 || row.lane < 0)
			continue;
		m->lanes[m->nlanes++] = (struct model_lane_value){
			.lane = row.lane, .thread = row.thread,
			.active = row.state && !strcmp(row.state, "active"),
			.divergent = row.state && !strcmp(row.state, "divergent"),
		};
	}
}

static void warp_lanes_listed(struct dbg_ctl *c, struct ctl_op *op,
			      const struct session_reply *r)
{
	struct dbg_model *m = &c->m;
	struct dec_table t;
	if (op->gen != c->gen || !done(r) ||
	    dec_table_decode(r->rec->results, &t) != 0) {
		if (op->gen == c->gen && r->kind == SESSION_REPLY_ERROR)
			model_set_error(m, "warp watch: -cuda-info-lanes: %s",
					r->msg ? r->msg : "error");
		m->warp_busy = false;
		m->changes |= MODEL_CH_WARP_WATCH;
		return;
	}
	m->lanes = calloc(t.nr_rows ? t.nr_rows : 1, sizeof *m->lanes);
	char *q = ctl_quote_expr(m->warp_expr);
	char *eval = NULL;
	if (!m->lanes || !q ||
	    asprintf(&eval, "-data-evaluate-expression %s", q) < 0) {
		free(q);
		dec_table_free(&t);
		m->warp_busy = false;
		return;
	}
	lanes_collect(m, &t);
	/* The focused lane first, where the debugger already is; then per
	 * lane: switch, select the frame shown, evaluate (about 1 ms a lane
	 * in cuda-gdb 13, warp_watch.mi.log); then switch back. */
	size_t others = 0, here = 0;
	for (size_t i = 0; i < m->nlanes; i++) {
		const struct model_lane_value *l = &m->lanes[i];
		if (l->lane == m->focus.lane)
			here++;
		else if (l->active || l->divergent)
			others++;
	}
	for (size_t i = 0; i < m->nlanes; i++)
		if (m->lanes[i].lane == m->focus.lane)
			send_lane_eval(c, i, eval, others == 0);
	for (size_t i = 0; i < m->nlanes; i++) {
		struct model_lane_value *l = &m->lanes[i];
		if (l->lane == m->focus.lane || (!l->active && !l->divergent))
			continue;
		send_plain(c, lane_switched, i, "-cuda-focus-switch lane",
			   l->lane);
		if (m->selected_frame > 0)
			send_plain(c, NULL, 0, "-stack-select-frame",
				   m->selected_frame);
		send_lane_eval(c, i, eval, false);
	}
	/* back to where the user was; the last answer ends the watch */
	if (others) {
		send_plain(c, m->selected_frame > 0 ? NULL : warp_finished, 0,
			   "-cuda-focus-switch lane", m->focus.lane);
		if (m->selected_frame > 0)
			send_plain(c, warp_finished, 0, "-stack-select-frame",
				   m->selected_frame);
	} else if (!here) {
		m->warp_busy = false;
	}
	free(eval);
	free(q);
	dec_table_free(&t);
	m->changes |= MODEL_CH_WARP_WATCH;
}

int ctl_warp_watch(struct dbg_ctl *c, const char *expr)
{
	struct dbg_model *m = &c->m;
	if (!expr || !*expr || strpbrk(expr, "\r\n"))
		return CTL_EINVAL;
	if (m->state != MODEL_STOPPED || !m->cuda || !m->focus.valid ||
	    m->focus.lane < 0) {
		model_set_error(m, "the warp watch needs a program stopped in "
				"device code");
		return CTL_ESTATE;
	}
	char *e = strdup(expr);
	if (!e)
		return MI_ENOMEM;
	free(m->warp_expr);
	m->warp_expr = e;
	for (size_t i = 0; i < m->nlanes; i++)
		free(m->lanes[i].value);
	free(m->lanes);
	m->lanes = NULL;
	m->nlanes = 0;
	m->warp_busy = true;
	m->changes |= MODEL_CH_WARP_WATCH;
	struct ctl_op *op = ctl_op_new(c, warp_lanes_listed, false);
	if (!op)
		return MI_ENOMEM;
	int64_t tok = ctl_send_op(c, op, 0, "-cuda-info-lanes");
	return tok < 0 ? (int)tok : 0;
}
