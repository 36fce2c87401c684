/* The job's processes as report text and JSON (include/cudbg/job.h,
 * docs/report-schema.md "job").  Command lines and paths are untrusted:
 * escaped here. */
#include "cudbg/job.h"
#include "cudbg/session.h"
#include "diag/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_esc(struct dbuf *b, const char *s)
{
	if (s)
		text_escape(b, s, strlen(s), 0);
	else
		dbuf_putc(b, '-');
}

/* "rank 1 (RANK), local rank 1" or "" */
static void put_rank(struct dbuf *b, const struct job_proc *p)
{
	if (p->rank)
		dbuf_printf(b, "rank %s (%s)", p->rank, p->rank_var);
	if (p->local_rank)
		dbuf_printf(b, "%slocal rank %s", p->rank ? ", " : "",
			    p->local_rank);
	if (!p->rank && !p->local_rank)
		dbuf_puts(b, "no rank variable");
}

static size_t count_faulted(const struct job *j)
{
	size_t n = 0;
	for (size_t i = 0; i < j->nprocs; i++)
		n += j->procs[i].faulted;
	return n;
}

/* Killed by a signal that is no fault and not ours (SIGKILL from the OOM
 * killer, a kill -9): not a fault, never healthy either. */
static bool killed_not_faulted(const struct job_proc *p)
{
	return p->state == JOB_SIGNALLED && !p->faulted && !p->killed_by_us;
}

static size_t count_killed(const struct job *j)
{
	size_t n = 0;
	for (size_t i = 0; i < j->nprocs; i++)
		n += killed_not_faulted(&j->procs[i]);
	return n;
}

/* The processes killed_not_faulted() names, one line. */
static void text_killed(struct dbuf *b, const struct job *j)
{
	size_t shown = 0;
	for (size_t i = 0; i < j->nprocs && shown < 8; i++) {
		const struct job_proc *p = &j->procs[i];
		if (!killed_not_faulted(p))
			continue;
		char st[96];
		dbuf_puts(b, shown ? ", pid " : "  killed:      pid ");
		dbuf_printf(b, "%ld %s", p->pid, job_state_text(p, st, sizeof st));
		if (p->cmdline) {
			dbuf_puts(b, " (");
			put_esc(b, p->cmdline);
			dbuf_putc(b, ')');
		}
		shown++;
	}
	if (shown)
		dbuf_puts(b, count_killed(j) > shown ? ", ...\n" : "\n");
}

/* The Python stack the process printed when it died (innermost first),
 * the user's own line first. */
static void text_python(struct dbuf *b, const struct job_proc *p)
{
	if (!p->npy)
		return;
	if (p->py_user >= 0 && (size_t)p->py_user < p->npy) {
		const struct job_pyframe *u = &p->py[p->py_user];
		dbuf_puts(b, "  python:      ");
		put_esc(b, u->file);
		dbuf_printf(b, ":%d in ", u->line);
		put_esc(b, u->func);
		dbuf_puts(b, " (your line, from the Python stack the process "
			  "printed when it died)\n");
	}
	dbuf_puts(b, "  python stack:\n");
	for (size_t i = 0; i < p->npy && i < 12; i++) {
		dbuf_printf(b, "    #%zu %s", i, (int)i == p->py_user ? "> " : "");
		put_esc(b, p->py[i].func);
		dbuf_puts(b, " at ");
		put_esc(b, p->py[i].file);
		dbuf_printf(b, ":%d\n", p->py[i].line);
	}
	if (p->npy > 12)
		dbuf_printf(b, "    ... %zu more\n", p->npy - 12);
}

static size_t count_unseen(const struct job *j)
{
	size_t n = 0;
	for (size_t i = 0; i < j->nprocs; i++)
		n += j->procs[i].state == JOB_ENDED;
	return n;
}

static void text_events_off(struct dbuf *b, const struct job *j);

/* Processes whose end we did not see: "no process faulted" alone would
 * call them healthy, and one of them may be the one that died. */
static void text_unseen(struct dbuf *b, const struct job *j)
{
	size_t n = count_unseen(j), shown = 0;
	if (!n) {
		text_events_off(b, j);
		return;
	}
	dbuf_printf(b, "  unseen:      %zu process%s ended with %s status "
		    "unseen (%s parent reaped %s first; a death by a signal "
		    "there is not seen):", n, n == 1 ? "" : "es",
		    n == 1 ? "its" : "their", n == 1 ? "its" : "their",
		    n == 1 ? "it" : "them");
	for (size_t i = 0; i < j->nprocs && shown < 8; i++) {
		const struct job_proc *p = &j->procs[i];
		if (p->state != JOB_ENDED)
			continue;
		dbuf_printf(b, "%s pid %ld", shown ? "," : "", p->pid);
		if (p->cmdline) {
			dbuf_puts(b, " (");
			put_esc(b, p->cmdline);
			dbuf_putc(b, ')');
		}
		shown++;
	}
	dbuf_puts(b, n > shown ? ", ...\n" : "\n");
	text_events_off(b, j);
}

/* Without the kernel's process events a process its parent reaped with
 * no reporter loaded is unseen, and one that lived less than a poll is
 * not even listed: the table cannot be called complete. */
static void text_events_off(struct dbuf *b, const struct job *j)
{
	if (!j->process_events_off)
		return;
	dbuf_puts(b, "  not heard:   the kernel's process events (");
	put_esc(b, j->process_events_off);
	dbuf_printf(b, "): a process reaped by a parent with no death "
		    "reporter (a static binary, the raw wait system call) "
		    "ends unseen, and one that lived under %d ms is not "
		    "listed\n", JOB_POLL_MS);
}

static void text_head(struct dbuf *b, const struct job *j)
{
	const struct job_proc *f = job_faulting(j);
	if (j->command) {
		size_t unseen = count_unseen(j), killed = count_killed(j);
		char un[96] = "";
		if (killed)
			snprintf(un, sizeof un, ", %zu killed", killed);
		if (unseen)
			snprintf(un + strlen(un), sizeof un - strlen(un),
				 ", %zu ended unseen", unseen);
		dbuf_puts(b, "job:           ");
		put_esc(b, j->command);
		dbuf_printf(b, "\n               %zu process%s, %zu faulted%s, "
			    "%.1f s%s%s\n", j->nprocs, j->nprocs == 1 ? "" : "es",
			    count_faulted(j), un, j->secs,
			    j->stopped_rest ? "; the rest were stopped after the "
					      "grace period" : "",
			    j->timed_out ? "; stopped early (timeout or signal)"
					 : "");
	} else {
		/* (a job's log beside the cores can add processes that
		 * wrote none) */
		size_t ncores = 0;
		for (size_t i = 0; i < j->nprocs; i++)
			ncores += j->procs[i].core != NULL;
		dbuf_printf(b, "core-dir:      ");
		put_esc(b, j->core_dir);
		dbuf_printf(b, " (%zu coredump%s)\n", ncores,
			    ncores == 1 ? "" : "s");
	}
	if (!f) {
		dbuf_puts(b, "faulting:      no process faulted (no coredump, "
			  "no fault signal seen)\n");
		text_killed(b, j);
		text_unseen(b, j);
		return;
	}
	dbuf_printf(b, "faulting:      pid %ld, ", f->pid);
	put_rank(b, f);
	dbuf_putc(b, '\n');
	if (f->cmdline) {
		dbuf_puts(b, "  command:     ");
		put_esc(b, f->cmdline);
		dbuf_putc(b, '\n');
	}
	if (f->core) {
		dbuf_puts(b, "  coredump:    ");
		put_esc(b, f->core);
		dbuf_putc(b, '\n');
	}
	text_python(b, f);
}

/* The state column's width: the longest state, at least 28. */
static int state_width(const struct job *j)
{
	size_t w = 28;
	for (size_t i = 0; i < j->nprocs; i++) {
		char sb[64];
		size_t n = strlen(job_state_text(&j->procs[i], sb, sizeof sb));
		w = n > w ? n : w;
	}
	return (int)w;
}

static void text_row(struct dbuf *b, const struct job *j, size_t i, int sw)
{
	const struct job_proc *p = &j->procs[i];
	char sb[64];
	const char *state = job_state_text(p, sb, sizeof sb);
	dbuf_printf(b, "  %c %-7ld ", (int)i == j->faulting ? '>' : ' ', p->pid);
	if (p->ppid)
		dbuf_printf(b, "%-7ld ", p->ppid);
	else
		dbuf_puts(b, "-       ");
	dbuf_printf(b, "%-5s ", p->rank ? p->rank : "-");
	dbuf_printf(b, "%-*s ", sw, state);
	dbuf_puts(b, p->core ? "core " : "     ");
	put_esc(b, p->cmdline);
	dbuf_putc(b, '\n');
}

/* A library file by its part after site-packages (or the Python
 * library's folder): torch/distributed/c10d_logger.py. */
static const char *lib_tail(const char *f)
{
	static const char *const roots[] = { "/site-packages/",
					     "/dist-packages/" };
	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++) {
		const char *r = strstr(f, roots[i]);
		if (r)
			return r + strlen(roots[i]);
	}
	const char *lib = strstr(f, "/lib/python");
	const char *slash = lib ? strchr(lib + 11, '/') : NULL;
	return slash ? slash + 1 : f;
}

/* "in barrier (torch/distributed/c10d_logger.py:83), from your line
 * F:L in main": where a process was when it printed its stack. */
static void text_where(struct dbuf *b, const struct job_proc *p)
{
	const struct job_pyframe *in = &p->py[0];
	bool user_in = p->py_user == 0;
	dbuf_puts(b, user_in ? "at your line " : "in ");
	if (user_in) {
		put_esc(b, in->file);
		dbuf_printf(b, ":%d in ", in->line);
		put_esc(b, in->func);
		return;
	}
	put_esc(b, in->func);
	dbuf_puts(b, " (");
	put_esc(b, lib_tail(in->file));
	dbuf_printf(b, ":%d)", in->line);
	if (p->py_user > 0 && (size_t)p->py_user < p->npy) {
		const struct job_pyframe *u = &p->py[p->py_user];
		dbuf_puts(b, ", from your line ");
		put_esc(b, u->file);
		dbuf_printf(b, ":%d in ", u->line);
		put_esc(b, u->func);
	}
}

/* What the other processes were doing when they ended: the ranks that
 * waited for the failed one (their stacks at SIGTERM) and any other that
 * died of a fatal signal. */
/* "raised RuntimeError: ... at your line F:L in FUNC (its traceback on
 * stderr)": a rank's own traceback, printed before it ended. */
static void text_rank_error(struct dbuf *b, const struct job_rank_error *e)
{
	dbuf_puts(b, "raised ");
	put_esc(b, e->exception);
	if (e->file[0]) {
		dbuf_puts(b, " at your line ");
		put_esc(b, e->file);
		dbuf_printf(b, ":%d in ", e->line);
		put_esc(b, e->func);
	}
	dbuf_puts(b, " (its traceback on stderr)\n");
}

static void text_others(struct dbuf *b, const struct job *j)
{
	size_t shown = 0;
	for (size_t i = 0; i < j->nprocs; i++) {
		const struct job_proc *p = &j->procs[i];
		const struct job_rank_error *e = job_rank_error_of(j, p->rank);
		/* its stack when it names the user's line, else its own
		 * traceback (a rank that raised and was exiting when its
		 * SIGTERM came dumps only "Garbage-collecting") */
		bool stack = p->npy && (p->py_user >= 0 || !e);
		if ((int)i == j->faulting || (!stack && !e))
			continue;
		if (!shown++)
			dbuf_puts(b, "others (where each was as it ended):\n");
		char sb[64];
		dbuf_printf(b, "    pid %ld", p->pid);
		if (p->rank)
			dbuf_printf(b, " rank %s", p->rank);
		dbuf_printf(b, ", %s: ", job_state_text(p, sb, sizeof sb));
		if (!stack) {
			text_rank_error(b, e);
			continue;
		}
		text_where(b, p);
		dbuf_puts(b, p->py_when == JOB_PY_SIGTERM ? " (at SIGTERM)\n"
							  : "\n");
	}
}

static const char *coll_kind_name(enum job_coll_kind k)
{
	switch (k) {
	case JOB_COLL_TIMEOUT: return "timeout";
	case JOB_COLL_PEER_GONE: return "peer-gone";
	case JOB_COLL_ERROR: break;
	}
	return "error";
}

/* "rank 0, NCCL watchdog: ALLREDUCE (SeqNum 5) timed out, ran 600013 ms
 * of Timeout(ms) 600000" and the like. */
static void text_collective(struct dbuf *b, const struct job_collective *c)
{
	dbuf_puts(b, "    ");
	if (c->rank >= 0)
		dbuf_printf(b, "rank %ld, ", c->rank);
	dbuf_printf(b, "%s: ", c->backend);
	if (c->kind == JOB_COLL_TIMEOUT) {
		if (c->op[0])
			put_esc(b, c->op);
		else
			dbuf_puts(b, "a collective");
		if (c->seq >= 0)
			dbuf_printf(b, " (SeqNum %lld)", c->seq);
		dbuf_puts(b, " timed out");
		if (c->ran_ms >= 0)
			dbuf_printf(b, " after %lld ms", c->ran_ms);
		if (c->timeout_ms >= 0)
			dbuf_printf(b, " (its timeout %lld ms)", c->timeout_ms);
		dbuf_puts(b, ": a rank it waits for never joined\n");
		return;
	}
	if (c->kind == JOB_COLL_PEER_GONE)
		dbuf_puts(b, "a peer's connection closed (that process "
			  "ended): ");
	put_esc(b, c->text);
	dbuf_putc(b, '\n');
}

static void text_collectives(struct dbuf *b, const struct job *j)
{
	if (!j->ncolls)
		return;
	dbuf_puts(b, "collectives (what the communication library said on "
		  "stderr):\n");
	for (size_t i = 0; i < j->ncolls; i++)
		text_collective(b, &j->colls[i]);
}

static long proc_index(const struct job *j, long pid)
{
	for (size_t i = 0; i < j->nprocs; i++)
		if (j->procs[i].pid == pid)
			return (long)i;
	return -1;
}

/* A helper a launcher ran (pyenv's shim runs some thirty, a shell script
 * its uname and date): it exited within HELPER_S of its start with no
 * fault, no coredump, no rank, no stack printed, and is not the command
 * itself; with status 0, or with a failure its parent, such a helper
 * too, went on past to status 0 (`readlink x || ...`).  Its row says
 * nothing about the failure.  A death by a signal is never one. */
#define HELPER_S 1.0
static bool quiet_exit(const struct job *j, const struct job_proc *p)
{
	return p->pid != j->leader && p->state == JOB_EXITED && !p->faulted &&
	       !p->core && !p->rank && !p->local_rank && !p->npy &&
	       p->end_s > 0 && p->end_s - p->seen_s < HELPER_S;
}

static bool short_helper(const struct job *j, size_t i)
{
	const struct job_proc *p = &j->procs[i];
	if ((int)i == j->faulting || !quiet_exit(j, p))
		return false;
	if (p->status == 0)
		return true;
	long up = proc_index(j, p->ppid);
	return up >= 0 && up != j->faulting &&
	       quiet_exit(j, &j->procs[up]) && j->procs[up].status == 0;
}

/* hide[i]: the row of a short helper none of the shown rows descends
 * from (a parent's row stays, so every PPID shown is in the table).
 * Returns how many are hidden; NULL when the table is short enough to
 * read whole or memory ran out. */
#define TABLE_WHOLE 16
static bool *helpers_to_hide(const struct job *j, size_t *hidden)
{
	*hidden = 0;
	if (j->nprocs <= TABLE_WHOLE)
		return NULL;
	bool *hide = calloc(j->nprocs, sizeof *hide);
	if (!hide)
		return NULL;
	for (size_t i = 0; i < j->nprocs; i++)
		hide[i] = short_helper(j, i);
	for (size_t i = 0; i < j->nprocs; i++) {
		if (hide[i])
			continue;
		long at = proc_index(j, j->procs[i].ppid);
		for (size_t steps = 0; at >= 0 && steps < j->nprocs; steps++) {
			hide[at] = false;
			at = proc_index(j, j->procs[at].ppid);
		}
	}
	for (size_t i = 0; i < j->nprocs; i++)
		*hidden += hide[i];
	return hide;
}

/* The first word's base name: "bash", "cat", "uname". */
static size_t program_name(const char *cmd, const char **at)
{
	if (!cmd) {
		*at = "-";
		return 1;
	}
	size_t n = strcspn(cmd, " ");
	const char *base = cmd;
	for (const char *c = cmd; c < cmd + n; c++)
		if (*c == '/' && c + 1 < cmd + n)
			base = c + 1;
	*at = base;
	return (size_t)(cmd + n - base);
}

/* The hidden helpers' program names, most run first (ties in the
 * order first run). */
struct helper_name {
	const char *at;
	size_t len, count;
};

static size_t helper_names(const struct job *j, const bool *hide,
			   struct helper_name *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < j->nprocs; i++) {
		if (!hide[i])
			continue;
		const char *name;
		size_t len = program_name(j->procs[i].cmdline, &name), k = 0;
		while (k < n && !(out[k].len == len &&
				  memcmp(out[k].at, name, len) == 0))
			k++;
		if (k < n)
			out[k].count++;
		else if (n < cap)
			out[n++] = (struct helper_name){ name, len, 1 };
	}
	for (size_t i = 1; i < n; i++) /* insertion sort: stable */
		for (size_t k = i; k > 0 && out[k].count > out[k - 1].count; k--) {
			struct helper_name t = out[k];
			out[k] = out[k - 1];
			out[k - 1] = t;
		}
	return n;
}

/* "    (and 45 short helpers, each ended within 1 s with status 0 or a
 * failure its parent went past: bash 31, env 6, cat 3, uname, ...;
 * --json lists every process)" */
static void text_hidden(struct dbuf *b, const struct job *j, const bool *hide,
			size_t hidden)
{
	dbuf_printf(b, "    (and %zu short helper%s, each ended within %.0f s "
		    "with status 0 or a failure its parent went past:", hidden,
		    hidden == 1 ? "" : "s", HELPER_S);
	struct helper_name names[64];
	size_t n = helper_names(j, hide, names, 64);
	for (size_t i = 0; i < n && i < 6; i++) {
		dbuf_puts(b, i ? ", " : " ");
		text_escape(b, names[i].at, names[i].len, 0);
		if (names[i].count > 1)
			dbuf_printf(b, " %zu", names[i].count);
	}
	dbuf_puts(b, n > 6 ? ", ...; " : "; ");
	dbuf_puts(b, "--json lists every process)\n");
}

char *job_report_text(const struct job *j)
{
	struct dbuf b = {0};
	text_head(&b, j);
	int sw = state_width(j);
	dbuf_printf(&b, "processes:\n    PID     PPID    RANK  %-*s CORE "
		    "COMMAND\n", sw, "STATE");
	size_t hidden;
	bool *hide = helpers_to_hide(j, &hidden);
	for (size_t i = 0; i < j->nprocs; i++)
		if (!hide || !hide[i])
			text_row(&b, j, i, sw);
	if (hidden)
		text_hidden(&b, j, hide, hidden);
	free(hide);
	const struct job_proc *f = job_faulting(j);
	if (j->nprocs > 1 && f)
		dbuf_puts(&b, f->core ? "  ('>' marks the faulting process; the "
					"diagnosis below is its coredump's)\n"
				      : "  ('>' marks the faulting process)\n");
	text_others(&b, j);
	text_collectives(&b, j);
	dbuf_putc(&b, '\n');
	return dbuf_take(&b);
}

/* ---- JSON ---- */

static const char *state_name(enum job_state s)
{
	switch (s) {
	case JOB_RUNNING: return "running";
	case JOB_EXITED: return "exited";
	case JOB_SIGNALLED: return "signalled";
	case JOB_ENDED: return "ended";
	case JOB_UNKNOWN: break;
	}
	return "unknown";
}

static void json_pyframe(struct jw *w, const char *key,
			 const struct job_pyframe *f)
{
	jw_obj(w, key);
	jw_str(w, "function", f->func);
	jw_str(w, "file", f->file);
	jw_int(w, "line", f->line);
	jw_end(w);
}

static void json_python(struct jw *w, const struct job_proc *p)
{
	if (p->npy && p->py_user >= 0 && (size_t)p->py_user < p->npy)
		json_pyframe(w, "python_line", &p->py[p->py_user]);
	else
		jw_null(w, "python_line");
	if (!p->npy) {
		jw_null(w, "python_stack");
		return;
	}
	jw_arr(w, "python_stack");
	for (size_t i = 0; i < p->npy; i++)
		json_pyframe(w, NULL, &p->py[i]);
	jw_end(w);
}

static const char *py_when_name(enum job_py_when w)
{
	switch (w) {
	case JOB_PY_FATAL: return "fatal-signal";
	case JOB_PY_SIGTERM: return "sigterm";
	case JOB_PY_NONE: break;
	}
	return NULL;
}

static void json_signal(struct jw *w, const struct job_proc *p)
{
	char sig[32];
	bool named = p->state == JOB_SIGNALLED &&
		     diag_signal_name(p->status, sig, sizeof sig);
	jw_str(w, "signal", named ? sig : NULL);
}

/* The traceback the process's rank printed on the job's stderr. */
static void json_rank_error(struct jw *w, const struct job_rank_error *e)
{
	if (!e) {
		jw_null(w, "stderr_traceback");
		return;
	}
	jw_obj(w, "stderr_traceback");
	jw_str(w, "exception", e->exception);
	jw_str(w, "file", e->file[0] ? e->file : NULL);
	jw_int_or_null(w, "line", e->line, e->file[0] != '\0');
	jw_str(w, "function", e->file[0] ? e->func : NULL);
	jw_end(w);
}

static void json_proc(struct jw *w, const struct job *j, size_t i)
{
	const struct job_proc *p = &j->procs[i];
	jw_obj(w, NULL);
	jw_int(w, "pid", p->pid);
	jw_int_or_null(w, "ppid", p->ppid, p->ppid != 0);
	jw_str(w, "command", p->cmdline);
	jw_str(w, "exe", p->exe);
	jw_str(w, "rank", p->rank);
	jw_str(w, "rank_var", p->rank_var);
	jw_str(w, "local_rank", p->local_rank);
	jw_str(w, "state", state_name(p->state));
	jw_int_or_null(w, "exit_code", p->status, p->state == JOB_EXITED);
	json_signal(w, p);
	jw_bool(w, "stopped_by_us", p->killed_by_us);
	/* signalled: known from its own fatal-error report, not a status */
	jw_bool(w, "death_from_report", p->death_from_report);
	json_python(w, p);
	jw_str(w, "python_stack_at", py_when_name(p->py_when));
	json_rank_error(w, job_rank_error_of(j, p->rank));
	jw_str(w, "core", p->core);
	jw_bool(w, "faulted", p->faulted);
	jw_bool(w, "faulting", (int)i == j->faulting);
	if (j->command) {
		jw_fixed(w, "seen_s", p->seen_s, 3);
		jw_fixed(w, "end_s", p->end_s, 3);
	} else { /* core-dir: no times known */
		jw_null(w, "seen_s");
		jw_null(w, "end_s");
	}
	jw_end(w);
}

static void json_collectives(struct jw *w, const struct job *j)
{
	jw_arr(w, "collectives");
	for (size_t i = 0; i < j->ncolls; i++) {
		const struct job_collective *c = &j->colls[i];
		jw_obj(w, NULL);
		jw_str(w, "backend", c->backend);
		jw_str(w, "kind", coll_kind_name(c->kind));
		jw_int_or_null(w, "rank", c->rank, c->rank >= 0);
		jw_str(w, "op", c->op[0] ? c->op : NULL);
		jw_int_or_null(w, "seq", c->seq, c->seq >= 0);
		jw_int_or_null(w, "timeout_ms", c->timeout_ms, c->timeout_ms >= 0);
		jw_int_or_null(w, "ran_ms", c->ran_ms, c->ran_ms >= 0);
		jw_str(w, "text", c->text);
		jw_end(w);
	}
	jw_end(w);
}

char *job_report_json(const struct job *j)
{
	struct jw w;
	const struct job_proc *f = job_faulting(j);
	jw_init(&w);
	jw_obj(&w, NULL);
	jw_str(&w, "source", j->command ? "run" : "core-dir");
	jw_str(&w, "command", j->command);
	jw_str(&w, "core_dir", j->core_dir);
	jw_int_or_null(&w, "leader", j->leader, j->leader != 0);
	jw_int_or_null(&w, "faulting_pid", f ? f->pid : 0, f != NULL);
	jw_fixed(&w, "seconds", j->secs, 3);
	jw_bool(&w, "stopped_rest", j->stopped_rest);
	jw_bool(&w, "stopped_early", j->timed_out);
	if (j->command)
		jw_str(&w, "process_events_off", j->process_events_off);
	jw_arr(&w, "processes");
	for (size_t i = 0; i < j->nprocs; i++)
		json_proc(&w, j, i);
	jw_end(&w);
	json_collectives(&w, j);
	jw_end(&w);
	return jw_take(&w);
}

/* A field of a pystack line: the separators (tab, line ends) become
 * spaces.  The text is the dump's (untrusted, but escaped where shown). */
static void py_field(char *dst, size_t cap, const char *src)
{
	size_t i = 0;
	for (; src && src[i] && i + 1 < cap; i++)
		dst[i] = (src[i] == '\t' || src[i] == '\n' || src[i] == '\r')
			 ? ' ' : src[i];
	dst[i] = '\0';
}

/* The faulting process's Python stack, from its own dump, for the
 * diagnosis of its coredump (session_note_pystack; diag_run reads it
 * back through session_noted_pystack, and so does a replay). */
static void note_faulting_pystack(struct session *s, const struct job *j)
{
	const struct job_proc *f = job_faulting(j);
	for (size_t i = 0; f && i < f->npy; i++) {
		char file[600], func[200], line[900];
		py_field(file, sizeof file, f->py[i].file);
		py_field(func, sizeof func, f->py[i].func);
		snprintf(line, sizeof line, "F\t%s\t%d\t%s\t", file,
			 f->py[i].line > 0 ? f->py[i].line : 0, func);
		session_note_pystack(s, line);
	}
}

void job_note_recording(struct session *s, const struct job *j)
{
	if (!s || !j)
		return;
	note_faulting_pystack(s, j);
	char *text = job_report_text(j); /* escaped: no control bytes */
	for (char *l = text; l && *l;) {
		char *nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (*l)
			session_note(s, "job| %s", l);
		l = nl ? nl + 1 : NULL;
	}
	free(text);
}
