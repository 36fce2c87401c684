/* --job and --core-dir: a job of many processes.  The job runs once,
 * fault-first (diag/job.c), or a directory of coredumps is read; then the
 * first faulting process's coredump opens in the debugger through the
 * ordinary --core path, in batch mode or the screen, with the job's table
 * beside it (the report's "job" part, the Processes pane).  See
 * docs/multiprocess.md. */
#include "cudbg/base.h"
#include "cudbg/batch.h"
#include "cudbg/diag.h"
#include "cudbg/job.h"
#include "cudbg/options.h"
#include "cudbg/report.h"
#include "cudbg/tui.h"
#include "app/job_main.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t job_signalled;

static void on_signal(int sig)
{
	job_signalled = sig;
}

/* SIGINT/SIGTERM/SIGHUP stop the job (its whole tree) and end here. */
static void catch_signals(struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction old[3])
{
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	for (int i = 0; i < 3; i++)
		sigaction(sigs[i], &old[i], NULL);
}

static struct job *get_job(const struct cudbg_options *o, char *err,
			   size_t cap)
{
	if (o->core_dir)
		return job_from_core_dir(o->core_dir, err, cap);
	struct job_config cfg = {
		.keep_dir = o->keep_temp,
		.timeout_ms = o->timeout_s > 0 ? o->timeout_s * 1000 : 0,
		.cancel = &job_signalled,
		/* batch: stdout is the report's alone */
		.stdout_to_stderr = o->batch,
	};
	const char *g = getenv("CUDBG_JOB_GRACE_MS");
	if (g && *g)
		cfg.grace_ms = atoi(g);
	fprintf(stderr, "cudbg-tui: running the job once with a GPU coredump "
		"per faulting process (--job)...\n");
	struct sigaction old[3];
	catch_signals(old);
	struct job *j = job_run(o->argv, &cfg, err, cap);
	restore_signals(old);
	return j;
}

/* No coredump to open: the table alone, with the job's outcome. */
static int report_without_core(const struct cudbg_options *o,
			       const struct job *j)
{
	struct batch_report r = { .mode = "job", .state = "exited",
				  .bkptno = -1, .exited = true };
	const struct job_proc *f = job_faulting(j);
	for (size_t i = 0; i < j->nprocs; i++) {
		const struct job_proc *p = &j->procs[i];
		if (p->pid != j->leader)
			continue;
		r.exit_signalled = p->state == JOB_SIGNALLED;
		r.exit_code = p->state == JOB_EXITED ? p->status : 0;
		r.fault = f || p->state == JOB_SIGNALLED ||
			  (p->state == JOB_EXITED && p->status != 0);
		if (r.exit_signalled) {
			char sb[64];
			r.exit_signal = strdup(job_state_text(p, sb, sizeof sb));
		}
	}
	if (f)
		r.fault = true;
	r.program = j->command ? strdup(j->command) : NULL;
	r.summary = strdup(f ? "a process of the job faulted without a GPU "
				"coredump (a CPU fault; see its state)"
			      : "no process of the job wrote a GPU coredump");
	if (j->timed_out)
		r.error = strdup("the job was stopped early (--timeout or a "
				 "signal)");
	r.job = o->json ? job_report_json(j) : job_report_text(j);
	/* the JSON's diagnosis, as every report has one: the job's outcome
	 * as its kind (a process killed by a fault signal, else a failed
	 * command, else none), nothing more known without a coredump */
	struct diag_fault df = { .exception_code = -1 };
	df.kind = f ? DIAG_FAULT_HOST_SIGNAL
		    : r.fault ? DIAG_FAULT_EXIT : DIAG_FAULT_NONE;
	struct diag_report_in in = { .fault = &df, .mode = "job",
				     .memcheck_seconds = -1 };
	if (o->json) {
		r.diagnosis = diag_report_json(&in);
		r.diagnosis_exit = diag_report_exit_code(&in);
	}
	if (o->json)
		batch_print_json(stdout, &r);
	else
		batch_print_text(stdout, &r);
	fflush(stdout);
	int code = batch_exit_code(&r);
	batch_report_free(&r);
	return code;
}

/* The options of the faulting process's coredump session. */
static void core_options(const struct cudbg_options *o, const struct job *j,
			 const struct job_proc *f, struct cudbg_options *c,
			 char *exe[2])
{
	*c = *o;
	c->job = false;
	c->core_dir = NULL;
	c->backend = SESSION_CORE;
	c->core = f->core;
	c->memcheck = CUDBG_MEMCHECK_NEVER;
	c->breaks = NULL;
	c->nbreaks = 0;
	c->no_run = false;
	c->job_table = j;
	/* the program whose symbols the debugger reads: the one given with
	 * --core-dir, else the faulting process's own executable */
	exe[0] = o->core_dir && o->argv ? o->argv[0] : f->exe;
	exe[1] = NULL;
	c->argv = exe[0] ? exe : NULL;
	c->argc = exe[0] ? 1 : 0;
}

static bool have_terminal(void)
{
	const char *script = getenv("CUDBG_TEST_SCRIPT");
	return (script && *script) || (isatty(0) && isatty(1));
}

int job_main(const struct cudbg_options *o)
{
	char err[512] = "";
	if (!o->batch && !have_terminal()) {
		fputs("cudbg-tui: the screen needs a terminal on stdin and "
		      "stdout; use --batch for a report without one\n", stderr);
		return 2;
	}
	struct job *j = get_job(o, err, sizeof err);
	if (!j) {
		text_write_line(stderr, "cudbg-tui: ", err);
		if (o->json) { /* JSON stays parseable on an error too */
			struct batch_report r = { .mode = "job", .state = "error",
						  .bkptno = -1 };
			r.error = strdup(err);
			struct diag_report_in in = { .mode = "job", .error = err,
						     .memcheck_seconds = -1 };
			r.diagnosis = diag_report_json(&in);
			r.diagnosis_exit = DIAG_EXIT_USAGE;
			batch_print_json(stdout, &r);
			batch_report_free(&r);
		}
		return 2;
	}
	if (o->keep_temp && j->command)
	{
		/* (paths are written through the escaper: a directory name
		 * may hold any byte) */
		char line[PATH_MAX + 64];
		snprintf(line, sizeof line, "%s (--keep-temp)", j->core_dir);
		text_write_line(stderr, "cudbg-tui: kept the job's core directory ",
				line);
	}
	const struct job_proc *f = job_faulting(j);
	int rc;
	if (!f || !f->core) {
		if (!o->batch) /* nothing to open: say it without a screen */
			fputs("cudbg-tui: no process of the job wrote a GPU "
			      "coredump; the job's processes:\n", stderr);
		rc = report_without_core(o, j);
	} else {
		struct cudbg_options c;
		char *exe[2];
		core_options(o, j, f, &c, exe);
		rc = o->batch ? batch_main(&c) : tui_main(&c);
	}
	job_free(j);
	return rc;
}
