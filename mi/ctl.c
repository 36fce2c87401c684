/* The controller: owns the session and the model, sends the user's
 * commands, routes records.  The refresh pipeline is in ctl_refresh.c.
 * See include/cudbg/model.h. */
#include "mi/ctl_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- ops ---- */

static void busy_sync(struct dbg_ctl *c)
{
	if (c->m.busy != c->busy) {
		c->m.busy = c->busy;
		c->m.changes |= MODEL_CH_BUSY;
	}
}

struct ctl_op *ctl_op_new(struct dbg_ctl *c, ctl_op_fn fn, bool refresh)
{
	struct ctl_op *op = calloc(1, sizeof *op);
	if (!op)
		return NULL;
	op->c = c;
	op->fn = fn;
	op->gen = c->gen;
	op->refresh = refresh;
	op->level = -1;
	return op;
}

static void op_free(struct ctl_op *op)
{
	dec_table_builder_free(op->rows);
	free(op->fallback);
	free(op->expr);
	free(op);
}

/* A row of a streamed table (a threads table of a full device). */
static void op_row(void *ctx, const struct mi_node *row)
{
	struct ctl_op *op = ctx;
	dec_table_builder_row(op->rows, row);
}

static void op_reply(void *ctx, const struct session_reply *r)
{
	struct ctl_op *op = ctx;
	struct dbg_ctl *c = op->c;
	bool stale = op->refresh && op->gen != c->gen;
	c->busy--;
	if (op->refresh && !stale)
		c->refreshing--;
	/* A command this debugger (or this recording) lacks: try the
	 * simpler form once. */
	if (r->kind == SESSION_REPLY_ERROR && op->fallback && !stale &&
	    !c->closing) {
		char *fb = op->fallback;
		op->fallback = NULL;
		ctl_send_op(c, op, 0, fb);
		free(fb);
		busy_sync(c);
		return;
	}
	if (!stale && !c->closing && op->fn)
		op->fn(c, op, r);
	op_free(op);
	busy_sync(c);
}

int64_t ctl_send_op(struct dbg_ctl *c, struct ctl_op *op, unsigned flags,
		    const char *cmd)
{
	if (!op)
		return MI_ENOMEM;
	int64_t tok = op->rows
		? session_send_rows(c->s, op_row, op_reply, op, "%s", cmd)
		: session_send_flags(c->s, flags, op_reply, op, "%s", cmd);
	if (tok < 0) {
		op_free(op);
		return tok;
	}
	c->busy++;
	if (op->refresh)
		c->refreshing++;
	busy_sync(c);
	return tok;
}

int64_t ctl_sendf(struct dbg_ctl *c, ctl_op_fn fn, bool refresh,
		  const char *fmt, ...)
{
	char *cmd;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return MI_ENOMEM;
	int64_t tok = ctl_send_op(c, ctl_op_new(c, fn, refresh), 0, cmd);
	free(cmd);
	return tok;
}

char *ctl_quote(const char *s)
{
	size_t len = strlen(s);
	size_t need = mi_quote(NULL, 0, s, len) + 1;
	char *q = malloc(need);
	if (q)
		mi_quote(q, need, s, len);
	return q;
}

char *ctl_quote_expr(const char *s)
{
	/* A bare word goes as it is, as cuda-gdb users and the recorded
	 * transcripts write it (-data-evaluate-expression xi); anything
	 * gdb's MI would split or read as an option is quoted. */
	if (*s == '-' || strpbrk(s, " \t\"\\'"))
		return ctl_quote(s);
	return strdup(s);
}

char *ctl_quote_loc(const char *s)
{
	if (strpbrk(s, " \t\"\\'"))
		return ctl_quote(s);
	return strdup(s);
}

/* ---- session events ---- */

/* torch's libraries, read from lean copies at the late read
 * (ctl_read_late_symbols): each one's path, and its .text's address
 * (gdb's `ranges` of a library are its .text section). */
static void note_lean_library(struct dbg_ctl *c, const struct mi_record *rec)
{
	const char *path = mi_find_str(rec->results, "host-name");
	if (!path)
		return;
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	struct ctl_lean_lib *l = NULL;
	for (unsigned i = 0; i < SESSION_LEAN_LIBS && !l; i++) {
		const char *f = session_lean_libs[i].file;
		if (strncmp(base, f, strlen(f)) == 0)
			l = &c->leans[i];
	}
	if (!l || l->path)
		return;
	const struct mi_node *r = mi_find_children(rec->results, "ranges");
	const char *from = r ? mi_find_str(r->child, "from") : NULL;
	char *end = NULL;
	unsigned long long at = from ? strtoull(from, &end, 0) : 0;
	if (!from || end == from || *end || !at)
		return;
	l->path = strdup(path);
	l->text = at;
}

static void on_record(void *ctx, const struct mi_record *rec)
{
	struct dbg_ctl *c = ctx;
	for (int i = 0; i < 2; i++)
		if (c->hooks[i].on_record)
			c->hooks[i].on_record(c->hooks[i].ctx, rec);
	if (rec->kind == MI_REC_NOTIFY && strcmp(rec->klass, "library-loaded") == 0) {
		c->libs_loaded++;
		note_lean_library(c, rec);
	}
	unsigned ch = model_on_record(&c->m, rec);
	if ((ch & MODEL_CH_STOP) && c->m.state == MODEL_STOPPED)
		ctl_refresh_stop(c);
	if (rec->kind == MI_REC_CONSOLE)
		ctl_alloc_watch_budget(c);
}

static void on_output(void *ctx, const char *buf, size_t len)
{
	struct dbg_ctl *c = ctx;
	for (int i = 0; i < 2; i++)
		if (c->hooks[i].on_output)
			c->hooks[i].on_output(c->hooks[i].ctx, buf, len);
	model_add_output(&c->m, buf, len);
}

static void on_stderr(void *ctx, const char *line, size_t len)
{
	struct dbg_ctl *c = ctx;
	for (int i = 0; i < 2; i++)
		if (c->hooks[i].on_stderr)
			c->hooks[i].on_stderr(c->hooks[i].ctx, line, len);
	model_add_console(&c->m, line, len);
	model_add_console(&c->m, "\n", 1);
}

static void on_ready(void *ctx, int status, const char *msg)
{
	struct dbg_ctl *c = ctx;
	const struct session_caps *caps = session_caps(c->s);
	c->m.cuda = caps && (caps->is_cuda_gdb || caps->has_cuda_tables);
	if (status < 0)
		model_set_error(&c->m, "%s", msg ? msg : "the debugger failed "
				"to start the target");
	for (int i = 0; i < 2; i++)
		if (c->hooks[i].on_ready)
			c->hooks[i].on_ready(c->hooks[i].ctx, status, msg);
	c->m.target = session_replay_of(c->s);
	/* A coredump never runs and sends no *stopped: show it now. */
	if (c->m.target == SESSION_CORE && status >= 0) {
		c->m.is_core = true;
		model_set_state(&c->m, MODEL_STOPPED);
		ctl_refresh_stop(c);
	} else if (c->m.state == MODEL_STARTING &&
		   (session_needs_run(c->s) || status < 0)) {
		/* Ready to run, or the target (a core, an attach, a remote)
		 * could not be opened: nothing will stop by itself. */
		model_set_state(&c->m, MODEL_NOT_STARTED);
	}
}

static void on_gone(void *ctx, const struct session_exit *ex)
{
	struct dbg_ctl *c = ctx;
	for (int i = 0; i < 2; i++)
		if (c->hooks[i].on_exit)
			c->hooks[i].on_exit(c->hooks[i].ctx, ex);
	c->m.gone_failed = !ex->exited || ex->status != 0;
	model_set_gone(&c->m, ex->reason);
}

/* ---- lifetime ---- */

struct dbg_ctl *ctl_new(const struct dbg_ctl_config *cfg, char *err,
			size_t cap, int *code)
{
	struct dbg_ctl *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, cap, "out of memory");
		if (code)
			*code = MI_ENOMEM;
		return NULL;
	}
	model_init(&c->m, cfg->output_cap, cfg->console_cap);
	c->hooks[0] = cfg->diag_hooks;
	c->hooks[1] = cfg->hooks;
	c->want = cfg->want;
	c->lean = cfg->lean;
	c->m.backend = c->m.target = cfg->session->backend;
	c->m.state = MODEL_STARTING;
	struct session_handlers h = {
		.ctx = c, .on_record = on_record, .on_output = on_output,
		.on_stderr = on_stderr, .on_ready = on_ready, .on_exit = on_gone,
	};
	c->s = session_new(cfg->session, &h, err, cap, code);
	if (!c->s) {
		model_free(&c->m);
		free(c);
		return NULL;
	}
	return c;
}

void ctl_free(struct dbg_ctl *c)
{
	if (!c)
		return;
	c->closing = true;
	session_free(c->s);
	dec_stack_free(&c->anchor);
	model_free(&c->m);
	for (unsigned i = 0; i < SESSION_LEAN_LIBS; i++)
		free(c->leans[i].path);
	free(c);
}

struct session *ctl_session(struct dbg_ctl *c)
{
	return c->s;
}

const struct dbg_model *ctl_model(const struct dbg_ctl *c)
{
	return &c->m;
}

unsigned ctl_take_changes(struct dbg_ctl *c)
{
	return model_take_changes(&c->m);
}

bool ctl_busy(const struct dbg_ctl *c)
{
	return c->busy > 0;
}

bool ctl_refreshed(const struct dbg_ctl *c)
{
	return c->refreshing == 0;
}

int ctl_run_until(struct dbg_ctl *c, bool (*pred)(void *ctx), void *ctx,
		  int timeout_ms)
{
	return session_run_until(c->s, pred, ctx, timeout_ms);
}

void ctl_want(struct dbg_ctl *c, unsigned want)
{
	unsigned added = want & ~c->want;
	c->want = want;
	if (added && c->m.state == MODEL_STOPPED)
		ctl_refresh_wanted(c, added);
}

/* ---- execution ---- */

static void exec_reply(struct dbg_ctl *c, struct ctl_op *op,
		       const struct session_reply *r)
{
	(void)op;
	if (r->kind == SESSION_REPLY_ERROR) {
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
		/* a run that did not start leaves nothing running */
		if (c->m.state == MODEL_STARTING)
			model_set_state(&c->m, MODEL_NOT_STARTED);
	}
	else if (r->kind == SESSION_REPLY_RUNNING &&
		 c->m.state != MODEL_EXITED && c->m.state != MODEL_GONE)
		model_set_state(&c->m, MODEL_RUNNING);
}

static bool refuse(struct dbg_ctl *c, const char *why)
{
	model_set_error(&c->m, "%s", why);
	return false;
}

static bool can_resume(struct dbg_ctl *c)
{
	switch (c->m.state) {
	case MODEL_STOPPED:
		if (c->m.is_core)
			return refuse(c, "a coredump cannot run; start the "
				      "program live to step it");
		return true;
	case MODEL_RUNNING:
		return refuse(c, "the program is running; interrupt it first "
			      "(Ctrl-C)");
	case MODEL_EXITED:
		return refuse(c, "the program has exited; run it again (r)");
	case MODEL_GONE:
		return refuse(c, "the debugger is gone; restart cudbg-tui");
	default:
		return refuse(c, "the program is not running; run it first (r)");
	}
}

static int64_t exec_cmd(struct dbg_ctl *c, const char *cmd)
{
	if (!can_resume(c))
		return CTL_ESTATE;
	model_set_error(&c->m, NULL);
	return ctl_sendf(c, exec_reply, false, "%s", cmd);
}

int64_t ctl_continue(struct dbg_ctl *c)
{
	return exec_cmd(c, "-exec-continue");
}

int64_t ctl_next(struct dbg_ctl *c)
{
	return exec_cmd(c, "-exec-next");
}

int64_t ctl_step(struct dbg_ctl *c)
{
	return exec_cmd(c, "-exec-step");
}

int64_t ctl_next_instruction(struct dbg_ctl *c)
{
	return exec_cmd(c, "-exec-next-instruction");
}

int64_t ctl_step_instruction(struct dbg_ctl *c)
{
	return exec_cmd(c, "-exec-step-instruction");
}

int64_t ctl_finish(struct dbg_ctl *c)
{
	/* cuda-gdb 13: ^error,msg="\"finish\" not meaningful in the
	 * outermost frame." for a kernel's own frame; gdb says the same for
	 * main.  Say so before asking. */
	if (c->m.state == MODEL_STOPPED && model_finish_refused(&c->m)) {
		refuse(c, "finish is not possible in the outermost frame (the "
		       "debugger refuses it); use next or continue");
		return CTL_ESTATE;
	}
	return exec_cmd(c, "-exec-finish");
}

int64_t ctl_until(struct dbg_ctl *c, const char *file, int line)
{
	if (!file)
		return exec_cmd(c, "-exec-until");
	if (line <= 0 || !*file)
		return CTL_EINVAL;
	char loc[4096];
	snprintf(loc, sizeof loc, "%s:%d", file, line);
	char *q = ctl_quote_loc(loc);
	if (!q)
		return MI_ENOMEM;
	char cmd[4200];
	snprintf(cmd, sizeof cmd, "-exec-until %s", q);
	free(q);
	return exec_cmd(c, cmd);
}

int64_t ctl_interrupt(struct dbg_ctl *c)
{
	/* Not running, but the debugger is busy with a long command: ^C
	 * asks it to drop the command (its ^error comes to the command's
	 * own continuation). */
	if (c->m.state != MODEL_RUNNING && c->m.state != MODEL_STARTING &&
	    session_interrupt_command(c->s) == 0)
		return 0;
	if (c->m.state != MODEL_RUNNING && c->m.state != MODEL_STARTING)
		return refuse(c, "the program is not running"), CTL_ESTATE;
	struct ctl_op *op = ctl_op_new(c, exec_reply, false);
	if (!op)
		return MI_ENOMEM;
	int64_t tok = session_interrupt(c->s, op_reply, op);
	if (tok < 0) {
		op_free(op);
		return tok;
	}
	c->busy++;
	busy_sync(c);
	return tok;
}

/* A new run forgets the previous one's end. */
static void run_reset(struct dbg_model *m)
{
	dec_stop_free(&m->stop);
	m->has_stop = false;
	m->had_device_exception = false;
	m->resumed_after_exception = false;
	m->libs_seen = m->cuda_loaded = m->forked = false;
	m->exited_signalled = false;
	m->exit_code = 0;
	free(m->exit_signal);
	m->exit_signal = NULL;
	model_allocs_free(m); /* the new run's allocations are its own */
	m->changes |= MODEL_CH_STOP;
}

/* A run or a core open is under way: the model restarts from a clean
 * slate until the debugger answers.  Returns tok. */
static int64_t starting(struct dbg_ctl *c, int64_t tok)
{
	c->busy++;
	busy_sync(c);
	run_reset(&c->m);
	model_set_error(&c->m, NULL);
	model_set_state(&c->m, MODEL_STARTING);
	return tok;
}

int64_t ctl_run(struct dbg_ctl *c)
{
	if (!session_needs_run(c->s))
		return refuse(c, "only a launched program can be run; this "
			      "session attached to one or opened a core"),
		       CTL_ESTATE;
	if (c->m.state == MODEL_GONE)
		return refuse(c, "the debugger is gone; restart cudbg-tui"),
		       CTL_ESTATE;
	struct ctl_op *op = ctl_op_new(c, exec_reply, false);
	if (!op)
		return MI_ENOMEM;
	int64_t tok = session_run(c->s, op_reply, op);
	if (tok < 0) {
		op_free(op);
		return tok;
	}
	return starting(c, tok);
}

/* ---- a coredump opened in a debugger started earlier ---- */

static void core_opened(struct dbg_ctl *c, struct ctl_op *op,
			const struct session_reply *r)
{
	/* gdb answers -target-select core with ^connected, cuda-gdb's
	 * console `target cudacore` with ^done. */
	if (r->kind == SESSION_REPLY_DONE ||
	    r->kind == SESSION_REPLY_CONNECTED) {
		/* As a CORE session's start: no *stopped comes, the core
		 * is the stop. */
		c->m.backend = c->m.target = SESSION_CORE;
		c->m.is_core = true;
		model_set_state(&c->m, MODEL_STOPPED);
		ctl_refresh_stop(c);
	} else if (r->kind == SESSION_REPLY_ERROR) {
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
		model_set_state(&c->m, (enum model_state)op->index);
	}
}

int64_t ctl_open_core(struct dbg_ctl *c, const char *core)
{
	enum model_state was = c->m.state;
	if (was != MODEL_NOT_STARTED && was != MODEL_EXITED)
		return refuse(c, "a coredump can be opened only before the "
			      "program runs or after it ended"), CTL_ESTATE;
	struct ctl_op *op = ctl_op_new(c, core_opened, false);
	if (!op)
		return MI_ENOMEM;
	op->index = (size_t)was;
	int64_t tok = session_open_core(c->s, core, op_reply, op);
	if (tok < 0) {
		op_free(op);
		const char *e = session_error(c->s);
		model_set_error(&c->m, "%s", e && *e ? e : "cannot open the "
				"coredump");
		return tok;
	}
	return starting(c, tok);
}

/* ---- breakpoints ---- */

static void bkpt_inserted(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	(void)op;
	if (r->kind == SESSION_REPLY_ERROR) {
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
		return;
	}
	struct dec_bkpts one;
	if (r->rec && dec_bkpt_decode(r->rec->results, &one) == 0)
		model_put_bkpt(&c->m, &one);
}

static void bkpt_listed(struct dbg_ctl *c, struct ctl_op *op,
			const struct session_reply *r)
{
	(void)op;
	if (r->kind == SESSION_REPLY_DONE && r->rec)
		model_set_bkpt_list(&c->m, r->rec->results);
}

/* MI-made changes raise no =breakpoint-modified: re-read the list. */
static void bkpt_changed(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	(void)op;
	if (r->kind == SESSION_REPLY_ERROR)
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
	if (r->kind != SESSION_REPLY_GONE)
		ctl_sendf(c, bkpt_listed, false, "-break-list");
}

static void bkpt_deleted(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	if (r->kind == SESSION_REPLY_ERROR)
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
	else if (r->kind == SESSION_REPLY_DONE)
		model_del_bkpt(&c->m, (int)op->index);
}

static bool cmd_text_ok(struct dbg_ctl *c, const char *s)
{
	if (s && !strpbrk(s, "\r\n"))
		return true;
	refuse(c, "a command cannot hold a line break");
	return false;
}

int64_t ctl_break_insert(struct dbg_ctl *c, const char *location,
			 const char *cond)
{
	if (!location || !*location || !cmd_text_ok(c, location) ||
	    (cond && !cmd_text_ok(c, cond)))
		return CTL_EINVAL;
	char *loc = ctl_quote_loc(location);
	char *qc = cond && *cond ? ctl_quote(cond) : NULL;
	int64_t tok = MI_ENOMEM;
	if (loc && (qc || !cond || !*cond))
		tok = ctl_sendf(c, bkpt_inserted, false, "-break-insert -f%s%s %s",
				qc ? " -c " : "", qc ? qc : "", loc);
	free(loc);
	free(qc);
	return tok;
}

int64_t ctl_break_toggle(struct dbg_ctl *c, const char *file, int line)
{
	if (!file || !*file || line <= 0)
		return CTL_EINVAL;
	const struct dec_bkpt *b = model_bkpt_at(&c->m, file, line);
	if (b)
		return ctl_break_delete(c, b->number);
	char loc[4096];
	snprintf(loc, sizeof loc, "%s:%d", file, line);
	return ctl_break_insert(c, loc, NULL);
}

int64_t ctl_break_enable(struct dbg_ctl *c, int number, bool enable)
{
	if (!model_bkpt_by_number(&c->m, number))
		return CTL_ENOTFOUND;
	return ctl_sendf(c, bkpt_changed, false, "-break-%s %d",
			 enable ? "enable" : "disable", number);
}

int64_t ctl_break_delete(struct dbg_ctl *c, int number)
{
	if (!model_bkpt_by_number(&c->m, number))
		return CTL_ENOTFOUND;
	struct ctl_op *op = ctl_op_new(c, bkpt_deleted, false);
	if (!op)
		return MI_ENOMEM;
	op->index = (size_t)number;
	char cmd[64];
	snprintf(cmd, sizeof cmd, "-break-delete %d", number);
	return ctl_send_op(c, op, 0, cmd);
}

int64_t ctl_break_condition(struct dbg_ctl *c, int number, const char *cond)
{
	if (!model_bkpt_by_number(&c->m, number))
		return CTL_ENOTFOUND;
	if (cond && !cmd_text_ok(c, cond))
		return CTL_EINVAL;
	/* -break-condition takes the rest of the line as the expression. */
	return ctl_sendf(c, bkpt_changed, false, "-break-condition %d%s%s",
			 number, cond && *cond ? " " : "", cond ? cond : "");
}

/* ---- focus and frames ---- */

static void focus_switched(struct dbg_ctl *c, struct ctl_op *op,
			   const struct session_reply *r)
{
	(void)op;
	if (r->kind == SESSION_REPLY_ERROR) {
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
		return;
	}
	if (r->kind != SESSION_REPLY_DONE || !r->rec)
		return;
	struct dec_focus f;
	if (dec_focus_decode(r->rec->results, &f) == 0) {
		bool block_moved = !dec_dim3_eq(f.block, c->m.focus.block);
		dec_stack_free(&c->anchor);
		dec_frame_result_decode(r->rec->results, &c->anchor);
		model_set_focus(&c->m, &f);
		c->gen++;
		c->refreshing = 0;
		c->m.selected_frame = -1;
		c->auto_frame = false;
		ctl_refresh_frames(c);
		if (block_moved)
			ctl_refresh_threads(c);
		ctl_refresh_wanted(c, c->want & (MODEL_WANT_WARPS |
						 MODEL_WANT_LANES));
	}
}

static bool stopped_for(struct dbg_ctl *c, const char *what)
{
	if (c->m.state == MODEL_STOPPED)
		return true;
	model_set_error(&c->m, "%s needs a stopped program", what);
	return false;
}

int64_t ctl_focus_thread(struct dbg_ctl *c, struct dec_dim3 block,
			 struct dec_dim3 thread)
{
	if (!block.valid || !thread.valid)
		return CTL_EINVAL;
	if (!stopped_for(c, "a focus switch"))
		return CTL_ESTATE;
	return ctl_sendf(c, focus_switched, false,
			 "-cuda-focus-switch block (%u,%u,%u) thread (%u,%u,%u)",
			 block.x, block.y, block.z, thread.x, thread.y, thread.z);
}

int64_t ctl_focus_lane(struct dbg_ctl *c, int lane)
{
	if (lane < 0 || lane > 63)
		return CTL_EINVAL;
	if (!stopped_for(c, "a focus switch"))
		return CTL_ESTATE;
	return ctl_sendf(c, focus_switched, false, "-cuda-focus-switch lane %d",
			 lane);
}

static void frame_selected(struct dbg_ctl *c, struct ctl_op *op,
			   const struct session_reply *r)
{
	if (r->kind == SESSION_REPLY_ERROR) {
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
		return;
	}
	if (r->kind != SESSION_REPLY_DONE)
		return;
	c->m.selected_frame = op->level;
	c->m.changes |= MODEL_CH_FRAMES;
	c->gen++;
	c->refreshing = 0;
	ctl_refresh_frame_data(c);
}

int64_t ctl_select_frame(struct dbg_ctl *c, int level)
{
	if (level < 0)
		return CTL_EINVAL;
	if (!stopped_for(c, "selecting a frame"))
		return CTL_ESTATE;
	struct ctl_op *op = ctl_op_new(c, frame_selected, false);
	if (!op)
		return MI_ENOMEM;
	op->level = level;
	char cmd[64];
	snprintf(cmd, sizeof cmd, "-stack-select-frame %d", level);
	return ctl_send_op(c, op, 0, cmd);
}

/* ---- the host stack of a device stop ---- */

static void host_restored(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	(void)op;
	if (r->kind == SESSION_REPLY_ERROR) {
		/* Where the debugger is now is unknown: show what it says. */
		model_set_error(&c->m, "could not return to the CUDA focus: %s",
				r->msg ? r->msg : "error");
		ctl_refresh(c);
	} else if (r->kind == SESSION_REPLY_DONE && c->m.selected_frame > 0) {
		char cmd[64];
		snprintf(cmd, sizeof cmd, "-stack-select-frame %d",
			 c->m.selected_frame);
		ctl_sendf(c, NULL, false, "%s", cmd);
	}
}

/* After calls into the program (ctl_restore_focus): cuda-gdb resumed the
 * GPU for them and a kernel stopped on an assert is gone, so "Invalid
 * coordinates requested" is the expected answer (H200, docs/tool-quirks.md,
 * "After a call at a Warp Assert the kernel is gone"), not an error to
 * put before the user: the refresh shows what is left. */
static void focus_back_after_calls(struct dbg_ctl *c, struct ctl_op *op,
				   const struct session_reply *r)
{
	if (r->kind == SESSION_REPLY_ERROR)
		ctl_refresh(c);
	else
		host_restored(c, op, r);
}

/* Selects again what the user looked at before the host thread. */
static void host_restore_with(struct dbg_ctl *c, ctl_op_fn fn)
{
	const struct dec_focus *f = &c->m.focus;
	if (f->valid && f->block.valid && f->thread.valid) {
		char kernel[32] = "";
		if (f->kernel >= 0)
			snprintf(kernel, sizeof kernel, "kernel %d ", f->kernel);
		ctl_sendf(c, fn, false,
			  "-cuda-focus-switch %sblock (%u,%u,%u) thread (%u,%u,%u)",
			  kernel, f->block.x, f->block.y, f->block.z,
			  f->thread.x, f->thread.y, f->thread.z);
	} else if (c->m.thread_id) {
		ctl_sendf(c, fn, false, "-thread-select %s", c->m.thread_id);
	}
}

static void host_restore(struct dbg_ctl *c)
{
	host_restore_with(c, host_restored);
}


static void host_listed(struct dbg_ctl *c, struct ctl_op *op,
			const struct session_reply *r)
{
	struct dec_stack st = { 0 };
	if (r->kind == SESSION_REPLY_GONE)
		return;
	if (r->kind == SESSION_REPLY_DONE && r->rec &&
	    dec_stack_decode(r->rec->results, &st) == 0)
		op->stack_fn(op->user, &st, NULL);
	else
		op->stack_fn(op->user, NULL, r->msg ? r->msg : "no stack");
	dec_stack_free(&st);
	host_restore(c);
}

static void host_selected(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r)
{
	if (r->kind == SESSION_REPLY_GONE)
		return;
	if (r->kind != SESSION_REPLY_DONE) {
		op->stack_fn(op->user, NULL, r->msg ? r->msg : "error");
		return;
	}
	/* Listed only once the selection held, else it would be the
	 * device stack. */
	struct ctl_op *list = ctl_op_new(c, host_listed, false);
	if (!list)
		return;
	list->stack_fn = op->stack_fn;
	list->user = op->user;
	ctl_send_op(c, list, 0, "-stack-list-frames");
}

int64_t ctl_host_stack(struct dbg_ctl *c, const char *thread_id,
		       ctl_stack_fn fn, void *ctx)
{
	if (!fn || (thread_id && (!*thread_id ||
				  strspn(thread_id, "0123456789") !=
					  strlen(thread_id))))
		return CTL_EINVAL;
	if (!stopped_for(c, "the host stack"))
		return CTL_ESTATE;
	struct ctl_op *op = ctl_op_new(c, host_selected, false);
	if (!op)
		return MI_ENOMEM;
	op->stack_fn = fn;
	op->user = ctx;
	char cmd[64];
	snprintf(cmd, sizeof cmd, "-thread-select %s",
		 thread_id ? thread_id : "1");
	return ctl_send_op(c, op, 0, cmd);
}

/* ---- raw commands ---- */

static void raw_replied(struct dbg_ctl *c, struct ctl_op *op,
			const struct session_reply *r)
{
	(void)c;
	if (!op->reply_fn)
		return;
	if (r->kind == SESSION_REPLY_DONE && r->rec)
		op->reply_fn(op->user, r->rec, NULL);
	else
		op->reply_fn(op->user, NULL, r->msg ? r->msg : "error");
}

int64_t ctl_raw(struct dbg_ctl *c, const char *cmd, ctl_reply_fn fn,
		void *ctx)
{
	if (!cmd || !*cmd || !cmd_text_ok(c, cmd))
		return CTL_EINVAL;
	struct ctl_op *op = ctl_op_new(c, raw_replied, false);
	if (!op)
		return MI_ENOMEM;
	op->reply_fn = fn;
	op->user = ctx;
	return ctl_send_op(c, op, 0, cmd);
}

int ctl_restore_focus(struct dbg_ctl *c)
{
	const struct dec_focus *f = &c->m.focus;
	if (!(f->valid && f->block.valid && f->thread.valid) &&
	    !c->m.thread_id)
		return CTL_ESTATE;
	host_restore_with(c, focus_back_after_calls);
	return 0;
}

/* ---- expressions ---- */

static void evaluated(struct dbg_ctl *c, struct ctl_op *op,
		      const struct session_reply *r)
{
	(void)c;
	if (!op->value_fn)
		return;
	if (r->kind == SESSION_REPLY_DONE && r->rec) {
		const char *v = dec_value(r->rec->results);
		op->value_fn(op->user, op->expr, v ? v : "", false);
	} else {
		op->value_fn(op->user, op->expr, r->msg ? r->msg : "error", true);
	}
}

int64_t ctl_evaluate(struct dbg_ctl *c, const char *expr, ctl_value_fn fn,
		     void *ctx)
{
	if (!expr || !*expr || !cmd_text_ok(c, expr))
		return CTL_EINVAL;
	struct ctl_op *op = ctl_op_new(c, evaluated, false);
	char *q = ctl_quote_expr(expr);
	if (!op || !q || !(op->expr = strdup(expr))) {
		free(q);
		if (op)
			op_free(op);
		return MI_ENOMEM;
	}
	op->value_fn = fn;
	op->user = ctx;
	char *cmd;
	int64_t tok = MI_ENOMEM;
	if (asprintf(&cmd, "-data-evaluate-expression %s", q) >= 0) {
		tok = ctl_send_op(c, op, 0, cmd);
		free(cmd);
	} else {
		op_free(op);
	}
	free(q);
	return tok;
}

int ctl_watch_add(struct dbg_ctl *c, const char *expr)
{
	if (!expr || !*expr || !cmd_text_ok(c, expr))
		return CTL_EINVAL;
	struct dbg_model *m = &c->m;
	struct model_watch *w = realloc(m->watches,
					(m->nwatches + 1) * sizeof *w);
	if (!w)
		return MI_ENOMEM;
	m->watches = w;
	w[m->nwatches] = (struct model_watch){ .expr = strdup(expr) };
	if (!w[m->nwatches].expr)
		return MI_ENOMEM;
	m->nwatches++;
	m->changes |= MODEL_CH_WATCHES;
	if (m->state == MODEL_STOPPED)
		ctl_fetch_watch(c, m->nwatches - 1, false);
	return (int)(m->nwatches - 1);
}

int ctl_watch_remove(struct dbg_ctl *c, size_t index)
{
	struct dbg_model *m = &c->m;
	if (index >= m->nwatches)
		return CTL_ENOTFOUND;
	free(m->watches[index].expr);
	free(m->watches[index].value);
	free(m->watches[index].prev);
	memmove(m->watches + index, m->watches + index + 1,
		(m->nwatches - index - 1) * sizeof *m->watches);
	m->nwatches--;
	/* answers in flight carry indexes: a new generation drops them */
	c->gen++;
	c->refreshing = 0;
	m->changes |= MODEL_CH_WATCHES;
	return 0;
}

/* ---- console and completion ---- */

static void console_done(struct dbg_ctl *c, struct ctl_op *op,
			 const struct session_reply *r)
{
	(void)op;
	if (r->console_len)
		model_add_console(&c->m, r->console, r->console_len);
	if (r->kind == SESSION_REPLY_ERROR)
		model_set_error(&c->m, "%s", r->msg ? r->msg : "error");
	/* A console command may have changed anything (frame, focus,
	 * variables): show the state as it is now. */
	if (r->kind != SESSION_REPLY_GONE && c->m.state == MODEL_STOPPED)
		ctl_refresh(c);
}

/* The gdb commands that run a shell: `shell` (and `she`, `shel`), `!`,
 * `pipe` (`pip`) and `|`, `make` (`mak`): gdb 13's shortest unambiguous
 * prefixes, checked with gdb 13.  Their child gets the debugger's stdin
 * and stdout, which are our MI pipe: its output would be taken for MI
 * (and lost), it could read our next commands (`shell head -c 40` ate
 * the next command and left it in flight for good), and C-c, sent to
 * the debugger, does not reach it.  Returns the word, or NULL. */
static const char *shell_escape(const char *cmd)
{
	static const char *const words[] = {
		"she", "shel", "shell", "pip", "pipe", "mak", "make",
	};
	size_t n;

	cmd += strspn(cmd, " \t");
	if (*cmd == '!')
		return "!";
	if (*cmd == '|')
		return "|";
	n = strcspn(cmd, " \t!|");
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strlen(words[i]) == n && !strncmp(cmd, words[i], n))
			return words[i];
	return NULL;
}

/* gdb's Python has the same stdin: `python` or `pi` with no script
 * reads one from it (our next MI commands), and a script that starts a
 * process or asks for input does the same (`python os.system('head')`
 * ate the next command).  Refused: Python with no argument, and a script
 * that names what starts a child or reads standard input.  A list, so
 * not proof against every spelling; what it stops is what people type.
 * Returns the reason, or NULL. */
static const char *python_reads_stdin(const char *cmd)
{
	static const char *const pyword[] = {
		"py", "pyt", "pyth", "pytho", "python", "pi",
		"python-interactive",
	};
	static const char *const reads[] = {
		"os.system", "subprocess", "popen", "os.exec", "os.spawn",
		"pty.", "input(", "stdin", "pdb", "breakpoint(", "interact(",
		"help(",
	};
	cmd += strspn(cmd, " \t");
	size_t n = strcspn(cmd, " \t");
	bool py = false;
	for (size_t i = 0; i < sizeof pyword / sizeof pyword[0]; i++)
		py |= strlen(pyword[i]) == n && !strncmp(cmd, pyword[i], n);
	if (!py)
		return NULL;
	const char *arg = cmd + n + strspn(cmd + n, " \t");
	if (!*arg)
		return "Python with no script reads it from the debugger's "
		       "input, which is cudbg-tui's MI pipe: give the script "
		       "on the line (python print(1))";
	for (size_t i = 0; i < sizeof reads / sizeof reads[0]; i++)
		if (strstr(arg, reads[i]))
			return "this Python starts a process or reads standard "
			       "input, and both would get the debugger's input, "
			       "cudbg-tui's MI pipe: run it in another terminal";
	return NULL;
}

static int64_t console_send(struct dbg_ctl *c, const char *command,
			    unsigned flags)
{
	if (!command || !cmd_text_ok(c, command))
		return CTL_EINVAL;
	const char *sh = shell_escape(command);
	if (sh) {
		model_set_error(&c->m, "'%s' runs a shell command, which the "
				"console cannot give a terminal (the debugger's "
				"input and output are cudbg-tui's MI pipe): run "
				"it in another terminal", sh);
		return CTL_EINVAL;
	}
	const char *py = python_reads_stdin(command);
	if (py) {
		model_set_error(&c->m, "%s", py);
		return CTL_EINVAL;
	}
	char *q = ctl_quote(command);
	if (!q)
		return MI_ENOMEM;
	model_add_console(&c->m, "(gdb) ", 6);
	model_add_console(&c->m, command, strlen(command));
	model_add_console(&c->m, "\n", 1);
	char *cmd = NULL;
	int64_t tok = MI_ENOMEM;
	/* Not captured: the command's console records reach the console
	 * ring as they arrive, so a long command's output streams in. */
	if (asprintf(&cmd, "-interpreter-exec console %s", q) >= 0)
		tok = ctl_send_op(c, ctl_op_new(c, console_done, false),
				  flags, cmd);
	free(cmd);
	free(q);
	return tok;
}

int64_t ctl_console(struct dbg_ctl *c, const char *command)
{
	return console_send(c, command, 0);
}

int64_t ctl_cuda_switch(struct dbg_ctl *c, const char *what, long n)
{
	if (!what || n < 0 || (strcmp(what, "kernel") != 0 &&
			       strcmp(what, "device") != 0 &&
			       strcmp(what, "sm") != 0))
		return CTL_EINVAL;
	char cmd[48];
	snprintf(cmd, sizeof cmd, "cuda %s %ld", what, n);
	return console_send(c, cmd, 0);
}

int64_t ctl_console_typed(struct dbg_ctl *c, const char *command)
{
	return console_send(c, command, SESSION_UNBOUNDED);
}

static void completed(struct dbg_ctl *c, struct ctl_op *op,
		      const struct session_reply *r)
{
	(void)c;
	struct dec_complete done = { 0 };
	if (r->kind == SESSION_REPLY_DONE && r->rec)
		dec_complete_decode(r->rec->results, &done);
	if (op->complete_fn)
		op->complete_fn(op->user, &done);
	dec_complete_free(&done);
}

int64_t ctl_complete(struct dbg_ctl *c, const char *text, ctl_complete_fn fn,
		     void *ctx)
{
	if (!text || !cmd_text_ok(c, text))
		return CTL_EINVAL;
	struct ctl_op *op = ctl_op_new(c, completed, false);
	char *q = ctl_quote(text);
	char *cmd = NULL;
	if (!op || !q || asprintf(&cmd, "-complete %s", q) < 0) {
		free(q);
		free(op);
		return MI_ENOMEM;
	}
	op->complete_fn = fn;
	op->user = ctx;
	int64_t tok = ctl_send_op(c, op, 0, cmd);
	free(cmd);
	free(q);
	return tok;
}
