/* The glue: model and controller on one side, the screen on the other. */
#include "tui/glue.h"
#include "opts/startcmds.h"
#include "tui/source.h"
#include "tui/glue_int.h"
#include "tui/sanitize.h"

#include "cudbg/assertline.h"
#include "cudbg/diagrun.h"
#include "cudbg/model.h"
#include "cudbg/options.h"
#include "cudbg/session.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static struct glue *glue_of(struct ui *ui)
{
	return ui->actions_ctx;
}


/* "FILE:LINE" (the file may hold colons) into its parts. */
static bool split_location(const char *loc, char *file, size_t cap, int *line)
{
	const char *colon = strrchr(loc, ':');

	if (!colon || colon == loc || (size_t)(colon - loc) >= cap)
		return false;
	memcpy(file, loc, (size_t)(colon - loc));
	file[colon - loc] = '\0';
	*line = atoi(colon + 1);
	return *line > 0;
}


static int glue_act(struct ui *ui, enum ui_action a, const char *arg)
{
	struct dbg_ctl *c = glue_of(ui)->ctl;
	char file[1024];
	int line;

	if (glue_steps_queues(a))
		return glue_steps_act(glue_of(ui), a);
	switch (a) {
	case UA_CONTINUE: case UA_NEXT: case UA_STEP: case UA_FINISH:
		return -1; /* glue_steps.c */
	case UA_RUN:
		glue_steps_clear(glue_of(ui));
		if (ctl_model(c)->is_core) {
			ui_message(ui, UC_WARN, "a coredump does not run: T replays the "
				   "program to the fault, M shows the memcheck findings");
			return -1;
		}
		return ui_refused(ui, ctl_run(c));
	case UA_INTERRUPT:
		glue_steps_clear(glue_of(ui));
		glue_diag_stop_refault(glue_of(ui));
		return glue_hang_interrupt(glue_of(ui));
	case UA_MEMCHECK: return glue_diag_memcheck(glue_of(ui));
	case UA_TO_FAULT: return glue_diag_to_fault(glue_of(ui), arg);
	case UA_SAN_TOOL: return glue_diag_next_tool(glue_of(ui));
	case UA_FAULT_THREAD:
		return ui_pane_request(ui, PANE_REQ_FAULT_THREAD) == PR_IGNORED ? -1 : 0;
	case UA_UNTIL:
		if (arg && split_location(arg, file, sizeof file, &line))
			return ui_refused(ui, ctl_until(c, file, line));
		return ui_refused(ui, ctl_until(c, NULL, 0));
	}
	return -1;
}

static const struct diag_run_view *glue_diagnosis(struct ui *ui, bool update)
{
	struct glue *g = glue_of(ui);

	if (update) {
		glue_diag_update(g);
		ui->diag_runs++;
	}
	return diag_run_view(g->dr);
}

static const struct ui_actions glue_actions = {
	.act = glue_act,
	.diagnosis = glue_diagnosis,
	.open_process = glue_open_process,
};

/* ---- model to UI ---- */

/* Copies the bytes appended to a model ring since *seen into a log. */
static void copy_ring(const struct model_ring *r, uint64_t *seen, struct textlog *log)
{
	uint64_t fresh = r->total - *seen;
	size_t n = fresh > r->len ? r->len : (size_t)fresh;
	char *buf;

	*seen = r->total;
	if (!n || !(buf = malloc(n)))
		return;
	model_ring_copy(r, buf, n); /* the newest n bytes */
	textlog_append(log, buf, n, 0);
	free(buf);
}

/* What the program's assertion message says, for a frame without source
 * (PyTorch kernels have no device line info: the message is the only
 * place that names Loss.cu:245): the pipeline's first assertion, read
 * from the account its hooks stream into. */
static void sync_assert(struct glue *g)
{
	const struct diag_assert_entry *e = diag_run_first_assert(g->dr);
	struct ui_where *w = &g->ui->where;

	if (!e)
		return;
	snprintf(w->assert_loc, sizeof w->assert_loc, "%s:%u", e->file ? e->file : "?", e->line);
	snprintf(w->assert_expr, sizeof w->assert_expr, "%s", e->expr ? e->expr : "");
}

/* Labels of one or two letters are written without a space ("sm124"). */
static const char *label_gap(const char *what)
{
	return strlen(what) > 2 ? " " : "";
}

static void put_dim3(char *buf, size_t cap, const char *what, struct dec_dim3 d)
{
	size_t n = strlen(buf);

	if (d.valid)
		snprintf(buf + n, cap - n, "%s%s%s(%u,%u,%u)", n ? " " : "", what,
			 label_gap(what), d.x, d.y, d.z);
}

static void put_int(char *buf, size_t cap, const char *what, long long v)
{
	size_t n = strlen(buf);

	if (v >= 0)
		snprintf(buf + n, cap - n, "%s%s%s%lld", n ? " " : "", what, label_gap(what), v);
}

/* The focus in words; `labels` are the long or the short names. */
static void focus_text(char *b, size_t cap, const struct dec_focus *f,
		       const char *const labels[9])
{
	b[0] = '\0';
	if (!f->valid)
		return;
	put_int(b, cap, labels[0], f->kernel);
	put_int(b, cap, labels[1], f->grid);
	put_dim3(b, cap, labels[2], f->cluster_idx);
	put_dim3(b, cap, labels[3], f->block);
	put_dim3(b, cap, labels[4], f->thread);
	put_int(b, cap, labels[5], f->device);
	put_int(b, cap, labels[6], f->sm);
	put_int(b, cap, labels[7], f->warp);
	put_int(b, cap, labels[8], f->lane);
}

static void sync_focus(struct ui_status *st, const struct dec_focus *f)
{
	static const char *const lng[9] = { "kernel", "grid", "cluster", "block", "thread",
					    "dev", "sm", "warp", "lane" };
	static const char *const shrt[9] = { "k", "g", "c", "b", "t", "d", "sm", "w", "l" };

	focus_text(st->focus, sizeof st->focus, f, lng);
	focus_text(st->focus_short, sizeof st->focus_short, f, shrt);
}

unsigned glue_stop_key(const struct dbg_model *m)
{
	return m->stop_count + (m->is_core ? 1u : 0u);
}

/* At a warp-level address fault the lane that made the access is found
 * from every lane's registers (ctl_culprit_search), once a stop; the
 * focus then moves to it, so Locals, Registers and Source show the
 * thread that faulted, not the lane cuda-gdb happened to focus.  A GPU
 * coredump holds every lane's registers too: its search starts once
 * its focus is known (it has no stop record). */
static void culprit_sync(struct glue *g, const struct dbg_model *m,
			 unsigned ch)
{
	bool due = m->is_core ? m->focus.valid && !ctl_busy(g->ctl)
			      : (ch & MODEL_CH_STOP) != 0;
	if (due && g->culprit_stop != glue_stop_key(m)) {
		g->culprit_stop = glue_stop_key(m);
		g->culprit_moved = false;
		/* CTL_ESTATE: not such a fault */
		diag_run_culprit_search(g->dr, g->ctl);
	}
	/* the -G load wrote over its address register: the faulting
	 * line's access, asked in every lane */
	if ((ch & MODEL_CH_CULPRIT) && m->culprit.addr_gone &&
	    !m->culprit.lvalue && m->culprit.state == MODEL_CULPRIT_FAILED)
		diag_run_culprit_by_lvalue(g->dr, g->ctl);
	int lane = model_culprit_lane(&m->culprit);
	if (!(ch & MODEL_CH_CULPRIT) || lane < 0 || g->culprit_moved)
		return;
	g->culprit_moved = true;
	const struct model_lane_addr *l = NULL;
	for (size_t i = 0; i < m->culprit.n; i++)
		if (m->culprit.lanes[i].lane == lane)
			l = &m->culprit.lanes[i];
	ui_message(g->ui, UC_ACCENT, "lane %d, thread (%u,%u,%u), made the "
		   "faulting access: its address 0x%llx lies far from the "
		   "other lanes' (the focus moves there)", lane, l ? l->thread.x : 0,
		   l ? l->thread.y : 0, l ? l->thread.z : 0,
		   l ? (unsigned long long)l->addr : 0ULL);
	if (lane != m->focus.lane)
		ui_refused(g->ui, ctl_focus_lane(g->ctl, lane));
}

/* At a host crash (SIGSEGV, SIGBUS), its address and the line's
 * dereference there (diag_run_host_access), once a stop; the Hints pane
 * names them when they come (MODEL_CH_ACCESS), as batch does. */
static void access_sync(struct glue *g, const struct dbg_model *m, unsigned ch)
{
	if (!(ch & MODEL_CH_STOP) || g->access_stop == m->stop_count)
		return;
	g->access_stop = m->stop_count;
	diag_run_host_access(g->dr, g->ctl); /* -1: not such a stop */
}

/* Once the culprit-lane search has settled (or at a host crash), whether
 * the bad address lies in memory the program freed
 * (diag_run_freed_lookup), once a stop. */
static void freed_sync(struct glue *g, const struct dbg_model *m)
{
	const struct model_culprit *cu = &m->culprit;
	if (g->freed_stop == m->stop_count || m->state != MODEL_STOPPED ||
	    !m->allocs.n || cu->state == MODEL_CULPRIT_BUSY ||
	    m->freed.state != MODEL_FREED_NONE)
		return;
	g->freed_stop = m->stop_count;
	diag_run_freed_lookup(g->dr, g->ctl);
}

static void sync_status(struct glue *g, const struct dbg_model *m)
{
	struct ui_status *st = &g->ui->status;
	enum ui_state before = st->state;

	switch (m->state) {
	case MODEL_NOT_STARTED: st->state = UST_NONE; break;
	case MODEL_STARTING: st->state = UST_STARTING; break;
	case MODEL_RUNNING: st->state = UST_RUNNING; break;
	case MODEL_STOPPED: st->state = UST_STOPPED; break;
	case MODEL_EXITED: st->state = UST_EXITED; break;
	case MODEL_GONE: st->state = UST_GONE; break;
	}
	if (st->state != before)
		clock_gettime(CLOCK_MONOTONIC, &st->state_since);
	st->exit_code = m->exit_code;
	/* A coredump being opened is one too (the status line says
	 * "opening the coredump", not "starting the debugger"). */
	st->core = m->is_core ||
		   (m->state == MODEL_STARTING && m->target == SESSION_CORE);
	st->fault = model_continue_loses_error(m);
	st->reason[0] = '\0';
	if (m->state == MODEL_GONE && m->gone_reason)
		snprintf(st->reason, sizeof st->reason, "%s", m->gone_reason);
	else if (m->state == MODEL_EXITED && m->exited_signalled)
		snprintf(st->reason, sizeof st->reason, "killed by %s",
			 m->exit_signal ? m->exit_signal : "a signal");
	else if (m->state == MODEL_STOPPED && m->has_stop)
		model_describe_stop(m, st->reason, sizeof st->reason);
	if (m->state == MODEL_STOPPED)
		sync_focus(st, &m->focus);
	else
		st->focus[0] = st->focus_short[0] = '\0';
}

static void copy_str(char *dst, size_t cap, const char *s)
{
	snprintf(dst, cap, "%s", s ? s : "");
}

/* The error PC's line, when the exception names one other than the
 * current line of the same file. */
static int fault_line_of(const struct dec_stop *s, const struct ui_where *w)
{
	if (!s->has_error_pc || s->line <= 0 || !s->filename || !w->file[0])
		return 0;
	if (w->has_pc && s->error_pc == w->pc)
		return 0;
	if (strcmp(path_base(s->filename), path_base(w->file)) != 0 || s->line == w->line)
		return 0;
	return s->line;
}

static bool same_focus(const struct dec_focus *a, const struct dec_focus *b)
{
	if (!a->valid || !b->valid)
		return a->valid == b->valid;
	return a->kernel == b->kernel && dec_dim3_eq(a->block, b->block) &&
	       dec_dim3_eq(a->thread, b->thread);
}

/* The frame the screen shows as current.  While the focus is the stop's
 * and the innermost frame is selected, the *stopped record's own frame is
 * the truth: a stack fetched for an earlier stop (a replay answers a
 * command it did not record with another stop's answer) must not move the
 * current line back. */
static const struct dec_frame *current_frame(const struct dbg_model *m,
					     const struct dec_frame **src)
{
	const struct dec_frame *f = model_frame(m), *sf = &m->stop.frame;

	*src = model_source_frame(m);
	if (!m->has_stop || !m->stop.has_frame || m->selected_frame > 0 ||
	    !same_focus(&m->focus, &m->stop.focus))
		return f;
	if (sf->line > 0 && (sf->file || sf->fullname))
		*src = sf;
	return sf;
}

static void sync_where(struct glue *g, const struct dbg_model *m)
{
	struct ui_where *w = &g->ui->where;
	const struct dec_frame *src, *f = current_frame(m, &src);
	char assert_loc[sizeof w->assert_loc], assert_expr[sizeof w->assert_expr];

	/* The assertion text comes from the program's output (set below
	 * from the diagnosis when it is there); keep it across stops. */
	copy_str(assert_loc, sizeof assert_loc, w->assert_loc);
	copy_str(assert_expr, sizeof assert_expr, w->assert_expr);
	memset(w, 0, sizeof(*w));
	copy_str(w->assert_loc, sizeof w->assert_loc, assert_loc);
	copy_str(w->assert_expr, sizeof w->assert_expr, assert_expr);
	if (m->state != MODEL_STOPPED || !f)
		return;
	copy_str(w->func, sizeof w->func, f->func);
	w->pc = f->addr;
	w->has_pc = f->has_addr;
	if (src) {
		copy_str(w->file, sizeof w->file, src->file);
		copy_str(w->fullname, sizeof w->fullname, src->fullname);
		w->line = src->line;
	}
	if (m->has_stop && m->stop.has_error_pc) {
		w->error_pc = m->stop.error_pc;
		w->has_error_pc = true;
		w->fault_line = fault_line_of(&m->stop, w);
	}
}

static void sync_bps(struct glue *g, const struct dbg_model *m)
{
	if (m->nbkpts > g->capbps) {
		struct ui_bp *v = realloc(g->bps, m->nbkpts * sizeof(*v));
		if (!v)
			return;
		g->bps = v;
		g->capbps = m->nbkpts;
	}
	size_t n = 0;
	for (size_t i = 0; i < m->nbkpts; i++) {
		const struct dec_bkpt *b = model_bkpt(m, i);
		const char *file = NULL, *full = NULL;
		int line = 0;
		if (!b)
			continue;
		struct ui_bp *u = &g->bps[n++];
		memset(u, 0, sizeof(*u));
		u->number = b->number;
		if (dec_bkpt_where(b, &file, &full, &line)) {
			copy_str(u->file, sizeof u->file, full ? full : file);
			u->line = line;
		}
		u->addr = b->addr;
		u->enabled = b->enabled;
		u->pending = b->pending;
	}
	g->ui->bps = g->bps;
	g->ui->nbps = n;
}

static void sync_busy(struct glue *g)
{
	struct ui *ui = g->ui;
	struct session *s = ctl_session(g->ctl);
	const char *cmd = NULL;
	double secs = session_busy_seconds(s, &cmd);
	bool busy = ctl_busy(g->ctl) || session_pending(s) > 0;

	if (busy && !ui->busy) {
		clock_gettime(CLOCK_MONOTONIC, &ui->busy_since);
		ui->busy_since.tv_sec -= (time_t)secs;
	}
	if (busy && cmd)
		snprintf(ui->busy_what, sizeof ui->busy_what, "%s", cmd);
	if (busy != ui->busy)
		ui->dirty = true;
	ui->busy = busy;
}

/* The controller drops a failed disassembly silently: once it is idle
 * with the answer still missing, the pane says why. */
void glue_sync(struct glue *g)
{
	const struct dbg_model *m = ctl_model(g->ctl);
	unsigned ch = ctl_take_changes(g->ctl), what = 0;
	struct ui *ui = g->ui;

	sync_busy(g);
	if (!ch) {
		glue_steps_pump(g);
		return;
	}
	if (ch & MODEL_CH_OUTPUT) {
		copy_ring(&m->output, &g->out_seen, &ui->output);
		what |= UCH_OUTPUT;
	}
	if (ch & MODEL_CH_CONSOLE) {
		copy_ring(&m->console, &g->con_seen, &ui->console);
		what |= UCH_CONSOLE;
	}
	if (ch & (MODEL_CH_STATE | MODEL_CH_STOP | MODEL_CH_FOCUS))
		what |= UCH_STATE;
	if (ch & (MODEL_CH_STOP | MODEL_CH_FOCUS | MODEL_CH_FRAMES | MODEL_CH_STATE))
		what |= UCH_STOP | UCH_FRAME;
	if (ch & MODEL_CH_BKPTS) {
		sync_bps(g, m);
		what |= UCH_BREAKPOINTS;
	}
	if (ch & (MODEL_CH_VARS | MODEL_CH_WATCHES | MODEL_CH_REGS | MODEL_CH_MEMORY |
		  MODEL_CH_WARP_WATCH))
		what |= UCH_VARS;
	if (ch & (MODEL_CH_KERNELS | MODEL_CH_BLOCKS | MODEL_CH_THREADS | MODEL_CH_TABLES))
		what |= UCH_GPU;
	/* the diagnosis names the lane, or the freed buffer, now */
	if (ch & (MODEL_CH_CULPRIT | MODEL_CH_FREED | MODEL_CH_ACCESS))
		what |= UCH_DIAG;
	if ((ch & MODEL_CH_ERROR) && m->error)
		ui_message(ui, UC_ERROR, "%s", m->error);
	sync_status(g, m);
	culprit_sync(g, m, ch);
	access_sync(g, m, ch);
	freed_sync(g, m);
	if (what & UCH_STOP)
		sync_where(g, m);
	if (what & (UCH_STOP | UCH_OUTPUT)) {
		char before[sizeof ui->where.assert_loc];
		snprintf(before, sizeof before, "%s", ui->where.assert_loc);
		sync_assert(g);
		if (strcmp(before, ui->where.assert_loc) != 0)
			what |= UCH_STOP;
	}
	ui->stops = m->stop_count;
	if (what)
		ui_changed(ui, what);
	glue_steps_pump(g);
}

/* ---- the loop source ---- */

static int src_fds(void *ctx, struct pollfd *pfd, int max)
{
	struct glue *g = ctx;
	g->nsession_fds = session_pollfds(ctl_session(g->ctl), pfd, max);
	return g->nsession_fds +
	       glue_diag_fds(g, pfd + g->nsession_fds, max - g->nsession_fds);
}

/* Once the debugger answered its start sequence: the -b breakpoints go
 * in, then a launched program runs (the point of `cudbg-tui PROG` is to
 * get to the fault; --no-run waits for `r`). */
static void start_program(struct glue *g)
{
	struct session *s = ctl_session(g->ctl);
	if (g->started || !session_ready(s) || !session_alive(s))
		return;
	g->started = true;
	char err[512];
	/* -x and -ex: only the first session's (a replay to fault or the
	 * pass's coredump runs without them, as with -b) */
	if (g->nbreaks == g->o->nbreaks && !g->cmds_sent) {
		g->cmds_sent = true;
		if (start_commands_send(g->o, g->ctl, err, sizeof err) < 0)
			ui_message(g->ui, UC_ERROR, "%s", err);
	}
	for (size_t i = 0; i < g->nbreaks; i++)
		if (ctl_break_insert(g->ctl, g->breaks[i], NULL) < 0)
			ui_message(g->ui, UC_ERROR, "cannot set a breakpoint at "
				   "'%s'", g->breaks[i]);
	if (g->autorun && session_needs_run(s))
		ui_refused(g->ui, ctl_run(g->ctl));
}

static void src_ready(void *ctx, struct pollfd *pfd, int n)
{
	struct glue *g = ctx;
	int ns = g->nsession_fds < n ? g->nsession_fds : n;
	struct dbg_ctl *c = g->ctl;

	session_handle(ctl_session(c), pfd, ns);
	/* A recording that stopped (a full disk, `ulimit -f`) is said on
	 * the status line too, not only in the console. */
	const char *rec = session_record_error(ctl_session(c));
	if (rec && !g->rec_told) {
		g->rec_told = true;
		ui_message(g->ui, UC_ERROR, "%s", rec);
	}
	loop_set_crash_program_pgid(session_program_pid(ctl_session(g->ctl)));
	glue_diag_ready(g, pfd + ns, n - ns);
	if (g->ctl == c) /* not switched meanwhile */
		start_program(g);
	glue_sync(g);
	glue_diag_step(g);
	glue_py_step(g);
}

static int src_timeout(void *ctx)
{
	struct glue *g = ctx;
	int t = session_timeout_ms(ctl_session(g->ctl));
	int h = glue_hang_timeout_ms(g); /* --timeout of a running program */
	if (h >= 0 && (t < 0 || h < t))
		t = h;
	/* The pass's clock on the status line moves once a second, and so
	 * does the clock of a long start or run. */
	if (g->ui->pass[0] && (t < 0 || t > 500))
		t = 500;
	if (g->ui->status.state == UST_RUNNING || g->ui->status.state == UST_STARTING) {
		long secs = (long)ui_elapsed(&g->ui->status.state_since);
		if (secs != g->clock_shown) {
			g->clock_shown = secs;
			g->ui->dirty = true;
		}
		if (t < 0 || t > 1000)
			t = 1000;
	}
	return t;
}

static bool src_idle(void *ctx)
{
	struct glue *g = ctx;
	return !ctl_busy(g->ctl) && session_pending(ctl_session(g->ctl)) == 0 &&
	       ctl_refreshed(g->ctl) && !g->ui->pass[0];
}

struct loop_source glue_source(struct glue *g)
{
	return (struct loop_source){
		.fds = src_fds,
		.ready = src_ready,
		.timeout_ms = src_timeout,
		.idle = src_idle,
		.ctx = g,
	};
}

/* ---- lifetime ---- */

static void program_name(struct ui *ui, const struct cudbg_options *o)
{
	char *p = ui->status.program;
	size_t cap = sizeof ui->status.program;

	if (o->argv && o->argv[0])
		snprintf(p, cap, "%s", path_base(o->argv[0]));
	else if (o->replay) {
		const char *b = path_base(o->replay), *ext = strstr(b, ".mi.log");
		snprintf(p, cap, "%.*s (replay)", ext ? (int)(ext - b) : (int)strlen(b), b);
	}
	else if (o->core)
		snprintf(p, cap, "%s (core)", path_base(o->core));
	else if (o->backend == SESSION_ATTACH)
		snprintf(p, cap, "pid %ld", o->pid);
	else if (o->remote)
		snprintf(p, cap, "remote %s", o->remote);
}

/* Our controller hook beside the pipeline's (diag_run_hooks, which the
 * session's records, program output and stderr stream into as batch's
 * do): the records to a replay to fault. */
static void hook_record(void *ctx, const struct mi_record *rec)
{
	glue_diag_record(ctx, rec);
}

static struct dbg_ctl *start_ctl(struct glue *g, const struct session_config *sc,
				 char *err, size_t cap)
{
	struct dbg_ctl_config cc;

	memset(&cc, 0, sizeof cc);
	cc.session = sc;
	diag_run_hooks(g->dr, &cc.diag_hooks);
	cc.hooks.ctx = g;
	cc.hooks.on_record = hook_record;
	return ctl_new(&cc, err, cap, NULL);
}

/* Points the screen at the glue's controller. */
static void attach_ui(struct glue *g)
{
	struct ui *ui = g->ui;

	loop_set_crash_pgid(session_debugger_pid(ctl_session(g->ctl)));
	ui->model = ctl_model(g->ctl);
	ui->ctl = g->ctl;
	ui->status.state = UST_STARTING;
	clock_gettime(CLOCK_MONOTONIC, &ui->status.state_since);
	sync_status(g, ui->model); /* a coredump: "opening the coredump" */
}

int glue_switch(struct glue *g, const struct session_config *sc, bool autorun,
		char *err, size_t cap)
{
	struct dbg_ctl *c = start_ctl(g, sc, err, cap);
	struct ui *ui = g->ui;

	if (!c)
		return -1;
	if (g->rf)
		diag_refault_detach(g->rf, g->ctl);
	ctl_free(g->ctl);
	g->ctl = c;
	g->out_seen = g->con_seen = 0;
	g->nbreaks = 0; /* the -b breakpoints were the first session's */
	g->autorun = autorun;
	g->started = false;
	glue_steps_clear(g); /* typed for the old session */
	g->exec_sent = false;
	ui->hold_draw = false;
	g->auto_checked = false;
	g->core_from_pass = false;
	g->core_pending = false;
	/* A new account for the new session: the old one's stop, output
	 * and assertion text belong to the run that made them. */
	glue_diag_restart(g);
	ui->where.assert_loc[0] = ui->where.assert_expr[0] = '\0';
	/* The name the screen first showed ("demo refault" in the demo)
	 * stays; the pass's coredump adds its own mark after this. */
	if (!g->program[0])
		snprintf(g->program, sizeof g->program, "%s", ui->status.program);
	attach_ui(g);
	snprintf(ui->status.program, sizeof ui->status.program, "%s", g->program);
	/* (UCH_SESSION: the panes drop what they cached of the old
	 * session, the SASS pane its disassembly.) */
	ui_changed(ui, UCH_ALL & ~UCH_LAYOUT);
	return 0;
}

struct glue *glue_new(struct ui *ui, const struct cudbg_options *o, char *err,
		      size_t cap)
{
	struct glue *g = calloc(1, sizeof(*g));
	struct session_config sc;

	if (!g || !(g->dirs = calloc(o->ndirs + 1, sizeof(*g->dirs)))) {
		free(g);
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	for (size_t i = 0; i < o->ndirs; i++)
		g->dirs[i] = o->dirs[i];
	g->ui = ui;
	g->breaks = o->breaks;
	g->nbreaks = o->nbreaks;
	/* A replay plays the recorded run at once, as a launch does (the
	 * demo keeps its own flow); --no-run waits for `r` in both. */
	g->autorun = (o->backend == SESSION_LAUNCH ||
		      (o->backend == SESSION_REPLAY && !o->demo)) && !o->no_run;
	g->o = o;
	options_session_config(o, &sc);
	if (glue_diag_new(g, err, cap) == 0)
		g->ctl = start_ctl(g, &sc, err, cap);
	if (!g->ctl) {
		glue_diag_free(g);
		free(g->dirs);
		free(g);
		return NULL;
	}
	ui->source_dirs = g->dirs;
	ui->actions = &glue_actions;
	ui->actions_ctx = g;
	attach_ui(g);
	program_name(ui, o);
	glue_job_attach(g);
	/* --memcheck=always: the pass first; the live run waits for it. */
	if (glue_diag_start(g))
		g->autorun = false;
	/* A recording of a pass whose findings were the report: nothing
	 * ran live after it, so the screen would sit at "starting". */
	if (diag_run_pass_final(g->dr))
		ui_message(ui, UC_ACCENT, "the recorded memcheck pass was the "
			   "whole run: its findings are in Hints (no live run)");
	return g;
}

void glue_free(struct glue *g)
{
	if (!g)
		return;
	loop_set_crash_pgid(0);
	loop_set_crash_program_pgid(0);
	glue_diag_free(g);
	glue_py_free(g);
	ctl_free(g->ctl);
	g->ui->model = NULL;
	g->ui->ctl = NULL;
	g->ui->actions = NULL;
	g->ui->bps = NULL;
	g->ui->nbps = 0;
	free(g->bps);
	free(g->dirs);
	free(g);
}
