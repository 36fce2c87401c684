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
		dbuf_put_escaped(b, s, strlen(s));
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

static void text_head(struct dbuf *b, const struct job *j)
{
	const struct job_proc *f = job_faulting(j);
	if (j->command) {
		dbuf_puts(b, "job:           ");
		put_esc(b, j->command);
		dbuf_printf(b, "\n               %zu process%s, %zu faulted, "
			    "%.1f s%s%s\n", j->nprocs, j->nprocs == 1 ? "" : "es",
			    count_faulted(j), j->secs,
			    j->stopped_rest ? "; the rest were stopped after the "
					      "grace period" : "",
			    j->timed_out ? "; stopped early (timeout or signal)"
					 : "");
	} else {
		dbuf_printf(b, "core-dir:      ");
		put_esc(b, j->core_dir);
		dbuf_printf(b, " (%zu coredump%s)\n", j->nprocs,
			    j->nprocs == 1 ? "" : "s");
	}
	if (!f) {
		dbuf_puts(b, "faulting:      no process faulted (no coredump, "
			  "no fault signal)\n");
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

static void text_row(struct dbuf *b, const struct job *j, size_t i)
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
	dbuf_printf(b, "%-28s ", state);
	dbuf_puts(b, p->core ? "core " : "     ");
	put_esc(b, p->cmdline);
	dbuf_putc(b, '\n');
}

char *job_report_text(const struct job *j)
{
	struct dbuf b = {0};
	text_head(&b, j);
	dbuf_puts(&b, "processes:\n    PID     PPID    RANK  STATE"
		  "                        CORE COMMAND\n");
	for (size_t i = 0; i < j->nprocs; i++)
		text_row(&b, j, i);
	const struct job_proc *f = job_faulting(j);
	if (j->nprocs > 1 && f)
		dbuf_puts(&b, f->core ? "  ('>' marks the faulting process; the "
					"diagnosis below is its coredump's)\n"
				      : "  ('>' marks the faulting process)\n");
	dbuf_putc(&b, '\n');
	return dbuf_take(&b);
}

/* ---- JSON ---- */

static void json_key_str(struct dbuf *b, const char *key, const char *v)
{
	dbuf_printf(b, ",\"%s\":", key);
	if (v)
		dbuf_put_json(b, v);
	else
		dbuf_puts(b, "null");
}

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

static void json_pyframe(struct dbuf *b, const struct job_pyframe *f)
{
	dbuf_puts(b, "{\"function\":");
	dbuf_put_json(b, f->func);
	json_key_str(b, "file", f->file);
	dbuf_printf(b, ",\"line\":%d}", f->line);
}

static void json_python(struct dbuf *b, const struct job_proc *p)
{
	dbuf_puts(b, ",\"python_line\":");
	if (p->npy && p->py_user >= 0 && (size_t)p->py_user < p->npy)
		json_pyframe(b, &p->py[p->py_user]);
	else
		dbuf_puts(b, "null");
	dbuf_puts(b, ",\"python_stack\":");
	if (!p->npy) {
		dbuf_puts(b, "null");
		return;
	}
	dbuf_putc(b, '[');
	for (size_t i = 0; i < p->npy; i++) {
		if (i)
			dbuf_putc(b, ',');
		json_pyframe(b, &p->py[i]);
	}
	dbuf_putc(b, ']');
}

static void json_proc(struct dbuf *b, const struct job *j, size_t i)
{
	const struct job_proc *p = &j->procs[i];
	dbuf_printf(b, "{\"pid\":%ld", p->pid);
	if (p->ppid)
		dbuf_printf(b, ",\"ppid\":%ld", p->ppid);
	else
		dbuf_puts(b, ",\"ppid\":null");
	json_key_str(b, "command", p->cmdline);
	json_key_str(b, "exe", p->exe);
	json_key_str(b, "rank", p->rank);
	json_key_str(b, "rank_var", p->rank_var);
	json_key_str(b, "local_rank", p->local_rank);
	json_key_str(b, "state", state_name(p->state));
	if (p->state == JOB_EXITED)
		dbuf_printf(b, ",\"exit_code\":%d", p->status);
	else
		dbuf_puts(b, ",\"exit_code\":null");
	if (p->state == JOB_SIGNALLED) {
		const char *a = sigabbrev_np(p->status);
		char sig[32];
		snprintf(sig, sizeof sig, "SIG%s", a ? a : "?");
		json_key_str(b, "signal", a ? sig : NULL);
	} else {
		dbuf_puts(b, ",\"signal\":null");
	}
	dbuf_printf(b, ",\"stopped_by_us\":%s", p->killed_by_us ? "true" : "false");
	json_python(b, p);
	json_key_str(b, "core", p->core);
	dbuf_printf(b, ",\"faulted\":%s,\"faulting\":%s",
		    p->faulted ? "true" : "false",
		    (int)i == j->faulting ? "true" : "false");
	if (j->command)
		dbuf_printf(b, ",\"seen_s\":%.3f,\"end_s\":%.3f", p->seen_s,
			    p->end_s);
	dbuf_putc(b, '}');
}

char *job_report_json(const struct job *j)
{
	struct dbuf b = {0};
	const struct job_proc *f = job_faulting(j);
	dbuf_puts(&b, "{\"source\":");
	dbuf_put_json(&b, j->command ? "run" : "core-dir");
	json_key_str(&b, "command", j->command);
	json_key_str(&b, "core_dir", j->core_dir);
	if (j->leader)
		dbuf_printf(&b, ",\"leader\":%ld", j->leader);
	else
		dbuf_puts(&b, ",\"leader\":null");
	if (f)
		dbuf_printf(&b, ",\"faulting_pid\":%ld", f->pid);
	else
		dbuf_puts(&b, ",\"faulting_pid\":null");
	dbuf_printf(&b, ",\"seconds\":%.3f,\"stopped_rest\":%s,"
		    "\"stopped_early\":%s,\"processes\":[", j->secs,
		    j->stopped_rest ? "true" : "false",
		    j->timed_out ? "true" : "false");
	for (size_t i = 0; i < j->nprocs; i++) {
		if (i)
			dbuf_putc(&b, ',');
		json_proc(&b, j, i);
	}
	dbuf_puts(&b, "]}");
	return dbuf_take(&b);
}

void job_note_recording(struct session *s, const struct job *j)
{
	if (!s || !j)
		return;
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
