/* DAP requests that set up the session, breakpoints and execution.  The
 * launch arguments become a struct cudbg_options so the session, the
 * memcheck policy and the diagnosis are configured exactly as for the
 * command line (options_session_config, diag_run_new). */
#include "cudbg/diagrun.h"
#include "cudbg/refault.h"
#include "dap/dap_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- initialize ---- */

static void exception_filter(struct dj_w *w, const char *id, const char *label,
			     const char *desc, bool def)
{
	dj_w_obj(w);
	dj_w_kstr(w, "filter", id);
	dj_w_kstr(w, "label", label);
	dj_w_kstr(w, "description", desc);
	dj_w_kbool(w, "default", def);
	dj_w_obj_end(w);
}

static void req_initialize(struct dap *d, const struct dj *req,
			   const struct dj *a)
{
	(void)a;
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	static const char *const yes[] = {
		"supportsConfigurationDoneRequest",
		"supportsFunctionBreakpoints", "supportsConditionalBreakpoints",
		"supportsEvaluateForHovers", "supportsExceptionInfoRequest",
		"supportsDisassembleRequest", "supportsReadMemoryRequest",
		"supportsTerminateRequest", "supportsSteppingGranularity",
		NULL,
	};
	for (size_t i = 0; yes[i]; i++)
		dj_w_kbool(&w, yes[i], true);
	/* instruction breakpoints are not served: say so plainly */
	dj_w_kbool(&w, "supportsInstructionBreakpoints", false);
	dj_w_kbool(&w, "supportsSetVariable", false);
	dj_w_kbool(&w, "supportsRestartRequest", false);
	dj_w_key(&w, "exceptionBreakpointFilters");
	dj_w_arr(&w);
	exception_filter(&w, "gpu", "GPU exceptions",
			 "stop on a device exception, assert or trap "
			 "(cuda-gdb always does)", true);
	exception_filter(&w, "api", "CUDA API errors",
			 "stop when a CUDA API call fails (set cuda "
			 "api_failures stop)", false);
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
}

/* ---- launch / attach ---- */

void dap_free_session(struct dap *d)
{
	ctl_free(d->ctl);
	d->ctl = NULL;
	diag_run_free(d->dr);
	d->dr = NULL;
	diag_run_free(d->mc_run);
	d->mc_run = NULL;
	dap_refs_clear(d);
	free(d->refs);
	d->refs = NULL;
	d->refs_cap = 0;
	for (size_t i = 0; i < d->nbps; i++)
		free(d->bps[i].owner);
	free(d->bps);
	d->bps = NULL;
	d->nbps = 0;
	if (d->argv_store)
		for (char **p = d->argv_store; *p; p++)
			free(*p);
	free(d->argv_store);
	d->argv_store = NULL;
	free((void *)d->o.dirs);
	d->o.dirs = NULL;
	free(d->mode);
	d->mode = NULL;
	dj_free(d->args);
	d->args = NULL;
}

/* The request is freed once answered, but the options point into its
 * arguments for the whole session (a restart, the memcheck pass): keep
 * a copy. */
static const struct dj *keep_args(struct dap *d, const struct dj *a)
{
	struct dj_w w;
	char err[64];
	dj_w_init(&w);
	dj_w_value(&w, a);
	d->args = w.j.b.oom ? NULL : dj_parse(w.j.b.s, w.j.b.len, err, sizeof err);
	dj_w_free(&w);
	return d->args;
}

/* program + args into an owned argv. */
static int build_argv(struct dap *d, const char *program, const struct dj *args)
{
	size_t n = args && args->type == DJ_ARR ? args->len : 0;
	char **v = calloc(n + 2, sizeof *v);
	if (!v)
		return -1;
	d->argv_store = v;
	if (!(v[0] = strdup(program)))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (args->kids[i].type != DJ_STR || memchr(args->kids[i].str, 0,
							 args->kids[i].len))
			return -2;
		if (!(v[i + 1] = strdup(args->kids[i].str)))
			return -1;
	}
	d->o.argv = v;
	d->o.argc = (int)n + 1;
	return 0;
}

/* env: {"NAME": "value" | null}: set (or unset) in this process before
 * the debugger starts, so the debugger and the program inherit it. */
static int apply_env(const struct dj *env, char *err, size_t cap)
{
	if (!env)
		return 0;
	if (env->type != DJ_OBJ) {
		snprintf(err, cap, "env must be an object of strings");
		return -1;
	}
	for (size_t i = 0; i < env->len; i++) {
		const char *k = env->keys[i];
		const struct dj *v = &env->kids[i];
		if (!*k || strchr(k, '=') || (v->type != DJ_STR && v->type != DJ_NULL)) {
			snprintf(err, cap, "env entry '%.60s' must map a name "
				 "to a string (or null)", k);
			return -1;
		}
		if (v->type == DJ_NULL ? unsetenv(k) : setenv(k, v->str, 1)) {
			snprintf(err, cap, "env entry '%.60s': %s", k, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int parse_memcheck(struct dap *d, const char *v, char *err, size_t cap)
{
	if (!v)
		return 0;
	if (strcmp(v, "auto") == 0)
		d->o.memcheck = CUDBG_MEMCHECK_AUTO;
	else if (strcmp(v, "always") == 0)
		d->o.memcheck = CUDBG_MEMCHECK_ALWAYS;
	else if (strcmp(v, "never") == 0)
		d->o.memcheck = CUDBG_MEMCHECK_NEVER;
	else {
		snprintf(err, cap, "memcheck must be auto, always or never, "
			 "not '%.40s'", v);
		return -1;
	}
	d->o.memcheck_given = true;
	return 0;
}

static int source_dirs(struct dap *d, const struct dj *dirs, char *err,
		       size_t cap)
{
	if (!dirs)
		return 0;
	if (dirs->type != DJ_ARR) {
		snprintf(err, cap, "sourceDirs must be an array of paths");
		return -1;
	}
	const char **v = calloc(dirs->len + 1, sizeof *v);
	if (!v)
		return -1;
	d->o.dirs = v;
	for (size_t i = 0; i < dirs->len; i++) {
		if (dirs->kids[i].type != DJ_STR) {
			snprintf(err, cap, "sourceDirs must be an array of paths");
			return -1;
		}
		v[d->o.ndirs++] = dirs->kids[i].str; /* lives in d->args */
	}
	return 0;
}

/* The configuration's kind: replay, coreFile, pid, or a program. */
static int pick_target(struct dap *d, const struct dj *a, bool attach,
		       char *err, size_t cap)
{
	const char *replay = dj_str(a, "replay", NULL);
	const char *core = dj_str(a, "coreFile", NULL);
	const char *program = dj_str(a, "program", NULL);
	long long pid = dj_int(a, "pid", dj_int(a, "processId", 0));
	if (replay) {
		d->o.backend = SESSION_REPLAY;
		d->o.replay = replay;
		d->mode = strdup("replay");
	} else if (core) {
		d->o.backend = SESSION_CORE;
		d->o.core = core;
		d->mode = strdup("core");
	} else if (attach || pid > 0) {
		if (pid <= 0 || pid > 0x7fffffff) {
			snprintf(err, cap, "attach needs \"pid\": the process id");
			return -1;
		}
		d->o.backend = SESSION_ATTACH;
		d->o.pid = (long)pid;
		d->mode = strdup("attach");
	} else if (program && *program) {
		d->o.backend = SESSION_LAUNCH;
		d->mode = strdup("live");
	} else {
		snprintf(err, cap, "launch needs \"program\" (or \"coreFile\" or "
			 "\"replay\"; attach needs \"pid\")");
		return -1;
	}
	if (program && *program) {
		int rc = build_argv(d, program, dj_get(a, "args"));
		if (rc == -2) {
			snprintf(err, cap, "args must be an array of strings");
			return -1;
		}
		if (rc < 0)
			return -1;
	}
	return d->mode ? 0 : -1;
}

static int options_from_args(struct dap *d, const struct dj *a, bool attach,
			     char *err, size_t cap)
{
	/* the command line's settings are the defaults (config, debugger) */
	d->o = *d->cli;
	d->o.dirs = NULL;
	d->o.ndirs = 0;
	d->o.breaks = NULL;
	d->o.nbreaks = 0;
	d->o.mi_exec = NULL;
	d->o.nmi_exec = 0;
	d->o.batch = d->o.json = d->o.mi_log = false;
	d->o.debugger = dj_str(a, "debugger", dj_str(a, "debuggerPath",
						     d->cli->debugger));
	d->o.sanitizer = dj_str(a, "sanitizer", d->cli->sanitizer);
	d->o.record = dj_str(a, "record", d->cli->record);
	d->o.sanitizer_report = dj_str(a, "sanitizerReport",
				       d->cli->sanitizer_report);
	long long t = dj_int(a, "timeout", 0);
	if (t > 0 && t <= 86400)
		d->o.timeout_s = (int)t;
	d->timeout_ms = d->o.timeout_s > 0 ? d->o.timeout_s * 1000 : 60000;
	d->stop_on_entry = dj_bool(a, "stopOnEntry", false);
	const char *cwd = dj_str(a, "cwd", NULL);
	if (cwd && *cwd && chdir(cwd) < 0) {
		snprintf(err, cap, "cwd '%.200s': %s", cwd, strerror(errno));
		return -1;
	}
	if (apply_env(dj_get(a, "env"), err, cap) < 0 ||
	    parse_memcheck(d, dj_str(a, "memcheck", NULL), err, cap) < 0 ||
	    source_dirs(d, dj_get(a, "sourceDirs"), err, cap) < 0)
		return -1;
	return pick_target(d, a, attach, err, cap);
}

static bool ready_pred(void *ctx)
{
	struct dap *d = ctx;
	struct session *s = ctl_session(d->ctl);
	return !session_alive(s) || session_ready(s);
}

/* Our controller hook beside the diagnosis's: every record to a replay
 * to fault under way (it needs the async ones). */
static void hook_record(void *ctx, const struct mi_record *rec)
{
	struct dap *d = ctx;
	if (d->rf)
		diag_refault_on_async(d->rf, rec);
}

int dap_start_debugger(struct dap *d, char *err, size_t cap)
{
	if (d->ctl) {
		/* a rerun: a fresh debugger, the events of a fresh run */
		ctl_free(d->ctl);
		d->ctl = NULL;
		dap_refs_clear(d);
		d->stop_seen = 0;
		d->core_reported = d->exited_sent = d->terminated_sent = false;
		d->out_sent = 0;
		d->pass_after_done = false;
	}
	struct session_config scfg;
	options_session_config(&d->o, &scfg);
	/* like batch mode: focus, stack and the frame's variables at each
	 * stop; the CUDA tables only on request (never the whole threads
	 * table: the editor is shown the focus) */
	struct dbg_ctl_config cfg = { .session = &scfg, .lean = true,
				      .want = MODEL_WANT_HOST_THREADS };
	diag_run_hooks(d->dr, &cfg.diag_hooks);
	cfg.hooks = (struct session_handlers){ .ctx = d, .on_record = hook_record };
	d->ctl = ctl_new(&cfg, err, cap, NULL);
	if (!d->ctl)
		return -1;
	if (ctl_run_until(d->ctl, ready_pred, d, d->timeout_ms) != 1 ||
	    !session_ready(ctl_session(d->ctl))) {
		const char *e = session_error(ctl_session(d->ctl));
		snprintf(err, cap, "the debugger did not start: %s",
			 e && *e ? e : "no answer");
		return -1;
	}
	return 0;
}

/* Starts the debugger (and the memcheck pass when the policy says
 * always, its coredump opened), waits for its start sequence. */
static int start_session(struct dap *d, char *err, size_t cap)
{
	struct diag_run_config dcfg;
	options_diag_config(&d->o, &dcfg);
	d->dr = diag_run_new(&dcfg, NULL, err, cap);
	if (!d->dr || dap_start_debugger(d, err, cap) < 0)
		return -1;
	diag_run_before(d->dr, d->ctl, d->timeout_ms);
	const char *core = diag_run_core_to_open(d->dr);
	if (core && d->o.backend == SESSION_LAUNCH && ctl_open_core(d->ctl, core) > 0)
		dap_settle(d, d->timeout_ms);
	return 0;
}

static void launch_or_attach(struct dap *d, const struct dj *req,
			     const struct dj *a, bool attach)
{
	char err[768] = "";
	if (d->launched) {
		dap_resp_error(d, req, "a session is running already: one "
			       "launch or attach per adapter");
		return;
	}
	static const struct dj no_args = { .type = DJ_OBJ };
	if (!a)
		a = &no_args;
	if (!(a = keep_args(d, a))) {
		dap_resp_error(d, req, "out of memory");
		return;
	}
	if (options_from_args(d, a, attach, err, sizeof err) < 0 ||
	    start_session(d, err, sizeof err) < 0) {
		dap_resp_error(d, req, "%s", err[0] ? err : "out of memory");
		dap_free_session(d);
		return;
	}
	d->launched = true;
	dap_resp_ok(d, req);
	struct dj_w w;
	dap_event_begin(&w, d, "initialized");
	dap_event_end(d, &w);
}

static void req_launch(struct dap *d, const struct dj *req, const struct dj *a)
{
	launch_or_attach(d, req, a, false);
}

static void req_attach(struct dap *d, const struct dj *req, const struct dj *a)
{
	launch_or_attach(d, req, a, true);
}

/* ---- breakpoints ---- */

static bool live_target(const struct dap *d)
{
	return d->o.backend == SESSION_LAUNCH || d->o.backend == SESSION_ATTACH ||
	       d->o.backend == SESSION_REMOTE;
}

static bool number_known(const int *nums, size_t n, int num)
{
	for (size_t i = 0; i < n; i++)
		if (nums[i] == num)
			return true;
	return false;
}

/* Inserts one breakpoint and waits for it: its model entry, or NULL with
 * the debugger's reason in msg. */
static const struct dec_bkpt *insert_one(struct dap *d, const char *loc,
					 const char *cond, char *msg, size_t cap)
{
	const struct dbg_model *m = ctl_model(d->ctl);
	size_t n = m->nbkpts;
	int *before = calloc(n + 1, sizeof *before);
	if (!before)
		return NULL;
	for (size_t i = 0; i < n; i++)
		before[i] = model_bkpt(m, i)->number;
	const struct dec_bkpt *found = NULL;
	if (ctl_break_insert(d->ctl, loc, cond && *cond ? cond : NULL) > 0 &&
	    dap_settle(d, d->timeout_ms)) {
		for (size_t i = 0; i < m->nbkpts && !found; i++)
			if (!number_known(before, n, model_bkpt(m, i)->number))
				found = model_bkpt(m, i);
	}
	free(before);
	if (!found)
		snprintf(msg, cap, "%s", m->error ? m->error : "not set");
	return found;
}

/* Deletes the breakpoints the editor set before for this owner. */
static void drop_owned(struct dap *d, const char *owner)
{
	size_t k = 0;
	for (size_t i = 0; i < d->nbps; i++) {
		if (strcmp(d->bps[i].owner, owner) == 0) {
			ctl_break_delete(d->ctl, d->bps[i].number);
			free(d->bps[i].owner);
		} else {
			d->bps[k++] = d->bps[i];
		}
	}
	d->nbps = k;
	dap_settle(d, d->timeout_ms);
}

static void remember(struct dap *d, const char *owner, int number)
{
	struct dap_bp *nb = realloc(d->bps, (d->nbps + 1) * sizeof *nb);
	if (!nb)
		return;
	d->bps = nb;
	if ((nb[d->nbps].owner = strdup(owner)))
		nb[d->nbps++].number = number;
}

static void write_bp(struct dj_w *w, const struct dec_bkpt *b,
		     const char *path, const char *msg)
{
	dj_w_obj(w);
	dj_w_kbool(w, "verified", b && !b->pending);
	if (b) {
		dj_w_kint(w, "id", b->number);
		if (b->line > 0)
			dj_w_kint(w, "line", b->line);
		const char *p = b->fullname ? b->fullname : path;
		if (p) {
			dj_w_key(w, "source");
			dj_w_obj(w);
			dj_w_ktext(w, "path", p);
			dj_w_obj_end(w);
		}
		if (b->pending)
			dj_w_ktext(w, "message", "pending: set when the "
				   "module loads");
	} else {
		dj_w_ktext(w, "message", msg);
	}
	dj_w_obj_end(w);
}

static bool can_break(struct dap *d, const struct dj *req)
{
	if (!d->ctl) {
		dap_resp_error(d, req, "no session: send launch or attach first");
		return false;
	}
	return true;
}

static void req_set_breakpoints(struct dap *d, const struct dj *req,
				const struct dj *a)
{
	const struct dj *src = dj_get(a, "source");
	const char *path = dj_str(src, "path", NULL);
	const struct dj *bps = dj_get(a, "breakpoints");
	if (!can_break(d, req))
		return;
	if (!path || (bps && bps->type != DJ_ARR)) {
		dap_resp_error(d, req, "setBreakpoints needs source.path and "
			       "a breakpoints array");
		return;
	}
	bool live = live_target(d);
	if (live)
		drop_owned(d, path);
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "breakpoints");
	dj_w_arr(&w);
	for (size_t i = 0; bps && i < bps->len; i++) {
		const struct dj *bp = &bps->kids[i];
		long long line = dj_int(bp, "line", 0);
		char loc[4200], msg[512] = "not a line number";
		const struct dec_bkpt *b = NULL;
		if (!live)
			snprintf(msg, sizeof msg, "a %s cannot take new "
				 "breakpoints", d->mode);
		else if (line > 0 && line < 10000000) {
			snprintf(loc, sizeof loc, "%s:%lld", path, line);
			b = insert_one(d, loc, dj_str(bp, "condition", NULL),
				       msg, sizeof msg);
		}
		if (b)
			remember(d, path, b->number);
		write_bp(&w, b, path, msg);
	}
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
}

static void req_set_function_breakpoints(struct dap *d, const struct dj *req,
					 const struct dj *a)
{
	const struct dj *bps = dj_get(a, "breakpoints");
	if (!can_break(d, req))
		return;
	if (!bps || bps->type != DJ_ARR) {
		dap_resp_error(d, req, "setFunctionBreakpoints needs a "
			       "breakpoints array");
		return;
	}
	bool live = live_target(d);
	if (live)
		drop_owned(d, "");
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "breakpoints");
	dj_w_arr(&w);
	for (size_t i = 0; i < bps->len; i++) {
		const struct dj *bp = &bps->kids[i];
		const char *name = dj_str(bp, "name", "");
		char msg[512] = "a function breakpoint needs a name";
		const struct dec_bkpt *b = NULL;
		if (!live)
			snprintf(msg, sizeof msg, "a %s cannot take new "
				 "breakpoints", d->mode);
		else if (*name && !strpbrk(name, "\n\r\""))
			b = insert_one(d, name, dj_str(bp, "condition", NULL),
				       msg, sizeof msg);
		if (b)
			remember(d, "", b->number);
		write_bp(&w, b, NULL, msg);
	}
	dj_w_arr_end(&w);
	dap_resp_end(d, &w);
}

static bool has_filter(const struct dj *filters, const char *id)
{
	for (size_t i = 0; filters && filters->type == DJ_ARR && i < filters->len; i++)
		if (filters->kids[i].type == DJ_STR &&
		    strcmp(filters->kids[i].str, id) == 0)
			return true;
	return false;
}

/* gpu: cuda-gdb stops on every device exception and has no setting to
 * stop it doing so; api: `set cuda api_failures stop|ignore` (cuda-gdb
 * 13; plain gdb has no such setting). */
static void req_set_exception_breakpoints(struct dap *d, const struct dj *req,
					  const struct dj *a)
{
	const struct dj *filters = dj_get(a, "filters");
	bool gpu = has_filter(filters, "gpu"), api = has_filter(filters, "api");
	bool cuda = d->ctl && session_caps(ctl_session(d->ctl))->is_cuda_gdb;
	const char *api_msg = NULL;
	if (d->ctl && cuda && live_target(d) && api != d->api_stop) {
		ctl_console(d->ctl, api ? "set cuda api_failures stop"
					: "set cuda api_failures ignore");
		dap_settle(d, d->timeout_ms);
		d->api_stop = api;
	} else if (api && !cuda) {
		api_msg = "CUDA API errors need cuda-gdb (set cuda api_failures)";
	}
	struct dj_w w;
	dap_resp_begin(&w, d, req);
	dj_w_key(&w, "breakpoints");
	dj_w_arr(&w);
	for (size_t i = 0; filters && filters->type == DJ_ARR && i < filters->len; i++) {
		const char *f = filters->kids[i].type == DJ_STR ? filters->kids[i].str : "";
		dj_w_obj(&w);
		bool ok = strcmp(f, "gpu") == 0 || (strcmp(f, "api") == 0 && !api_msg);
		dj_w_kbool(&w, "verified", ok);
		if (!ok)
			dj_w_ktext(&w, "message", strcmp(f, "api") == 0 ? api_msg
				   : "unknown filter (gpu, api)");
		dj_w_obj_end(&w);
	}
	dj_w_arr_end(&w);
	if (!gpu)
		dj_w_ktext(&w, "note", "cuda-gdb always stops on GPU exceptions");
	dap_resp_end(d, &w);
}

/* ---- configurationDone: the program runs ---- */

static void req_configuration_done(struct dap *d, const struct dj *req,
				   const struct dj *a)
{
	(void)a;
	if (!d->ctl) {
		dap_resp_error(d, req, "no session: send launch or attach first");
		return;
	}
	if (d->configured) {
		dap_resp_ok(d, req);
		return;
	}
	d->configured = true;
	char msg[256];
	if (d->stop_on_entry && d->o.backend == SESSION_LAUNCH) {
		const struct dec_bkpt *b = insert_one(d, "main", NULL, msg, sizeof msg);
		d->entry_bkpt = b ? b->number : -1;
	}
	dap_resp_ok(d, req);
	d->started = true;
	if (session_needs_run(ctl_session(d->ctl)) && ctl_run(d->ctl) < 0) {
		const char *e = ctl_model(d->ctl)->error;
		dap_output(d, "stderr", e ? e : "the program did not start",
			   strlen(e ? e : "the program did not start"));
	}
}

/* ---- execution ---- */

static void req_continue(struct dap *d, const struct dj *req, const struct dj *a)
{
	(void)a;
	dap_resume(d, req, ctl_continue);
}

static bool by_instruction(const struct dj *a)
{
	return strcmp(dj_str(a, "granularity", ""), "instruction") == 0;
}

static void req_next(struct dap *d, const struct dj *req, const struct dj *a)
{
	dap_resume(d, req, by_instruction(a) ? ctl_next_instruction : ctl_next);
}

static void req_step_in(struct dap *d, const struct dj *req, const struct dj *a)
{
	dap_resume(d, req, by_instruction(a) ? ctl_step_instruction : ctl_step);
}

static void req_step_out(struct dap *d, const struct dj *req, const struct dj *a)
{
	(void)a;
	dap_resume(d, req, ctl_finish);
}

static void req_pause(struct dap *d, const struct dj *req, const struct dj *a)
{
	(void)a;
	if (!d->ctl || ctl_model(d->ctl)->state != MODEL_RUNNING) {
		dap_resp_error(d, req, "the program is not running");
		return;
	}
	if (ctl_interrupt(d->ctl) < 0) {
		dap_resp_error(d, req, "the debugger refused to interrupt");
		return;
	}
	d->pausing = true;
	dap_resp_ok(d, req);
}

static void end_session(struct dap *d, bool detach)
{
	if (d->ctl && detach && d->o.backend == SESSION_ATTACH &&
	    session_alive(ctl_session(d->ctl))) {
		const struct dbg_model *m = ctl_model(d->ctl);
		if (m->state == MODEL_RUNNING && ctl_interrupt(d->ctl) >= 0)
			dap_settle(d, 5000);
		ctl_console(d->ctl, "detach");
		dap_settle(d, 5000);
	}
	if (d->ctl && !d->terminated_sent) {
		d->terminated_sent = true;
		struct dj_w w;
		dap_event_begin(&w, d, "terminated");
		dap_event_end(d, &w);
	}
	ctl_free(d->ctl);
	d->ctl = NULL;
}

static void req_terminate(struct dap *d, const struct dj *req, const struct dj *a)
{
	(void)a;
	dap_resp_ok(d, req);
	end_session(d, false);
}

static void req_disconnect(struct dap *d, const struct dj *req,
			   const struct dj *a)
{
	/* attach: detach unless the editor asks to end the process */
	bool kill = dj_bool(a, "terminateDebuggee", d->o.backend != SESSION_ATTACH);
	end_session(d, !kill);
	dap_resp_ok(d, req);
	d->quit = true;
}

/* ---- dispatch ---- */

static const struct {
	const char *name;
	dap_handler fn;
} handlers[] = {
	{ "initialize", req_initialize },
	{ "launch", req_launch },
	{ "attach", req_attach },
	{ "setBreakpoints", req_set_breakpoints },
	{ "setFunctionBreakpoints", req_set_function_breakpoints },
	{ "setExceptionBreakpoints", req_set_exception_breakpoints },
	{ "configurationDone", req_configuration_done },
	{ "continue", req_continue },
	{ "next", req_next },
	{ "stepIn", req_step_in },
	{ "stepOut", req_step_out },
	{ "pause", req_pause },
	{ "threads", dap_req_threads },
	{ "stackTrace", dap_req_stack },
	{ "scopes", dap_req_scopes },
	{ "variables", dap_req_variables },
	{ "evaluate", dap_req_evaluate },
	{ "disassemble", dap_req_disassemble },
	{ "readMemory", dap_req_read_memory },
	{ "exceptionInfo", dap_req_exception_info },
	{ "terminate", req_terminate },
	{ "disconnect", req_disconnect },
	{ "cudaFocus", dap_req_cuda_focus },
	{ "cudbgMemcheck", dap_req_memcheck },
	{ "cudbgReplayToFault", dap_req_replay_to_fault },
};

dap_handler dap_find_handler(const char *command)
{
	for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
		if (strcmp(handlers[i].name, command) == 0)
			return handlers[i].fn;
	return NULL;
}
