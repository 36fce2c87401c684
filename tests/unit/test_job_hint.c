/* The job-child-failed hint (data/hints.rules): a live run that ended
 * without a device stop, whose launcher said a child process died, points
 * at --job with the whole command line.  The lines are what the real
 * launchers print (torch.multiprocessing.spawn, torchrun, the DataLoader,
 * Open MPI's mpirun, MPICH); docs/multiprocess.md. */
#include "cudbg/diag.h"
#include "cudbg/diagrun.h"
#include "cudbg/model.h"
#include "cudbg/hints.h"
#include "cudbg/mi.h"
#include "tests/harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The exit goes through a model, as the controller's does. */
static void on_rec(void *ctx, const struct mi_record *rec)
{
	model_on_record(ctx, rec);
}

/* The hint chosen for a run of argv that printed `text` and exited 1
 * without a device stop; its run step in *run (static). */
static const char *hint_for(char *const argv[], const char *text,
			    const char **run)
{
	static char id[64], runbuf[512];
	char path[4096], err[512];
	struct diag *d = diag_new();
	struct diag_rules *rules;
	struct diag_hints hints = { 0 };
	struct dbg_model m;
	char *envp[] = { NULL };
	const char *exit_lines[] = {
		"*running,thread-id=\"all\"",
		"*stopped,reason=\"exited\",exit-code=\"01\"",
	};
	snprintf(path, sizeof path, "%s/data/hints.rules", test_root_dir());
	CHECK_MSG(diag_rules_load_file(path, &rules, err, sizeof err) == 0,
		  "%s", err);
	diag_set_program(d, argv, envp);
	diag_on_program_output(d, text, strlen(text));
	CHECK_INT(model_init(&m, 0, 0), 0);
	for (int i = 0; i < 2; i++)
		mi_parse_line(exit_lines[i], strlen(exit_lines[i]), on_rec, &m);
	diag_feed_model(d, &m);
	model_free(&m);
	const struct diag_fault *f = diag_analyze(d);
	CHECK(diag_hints_match(rules, f, &hints) >= 0);
	snprintf(id, sizeof id, "(none)");
	runbuf[0] = '\0';
	for (size_t i = 0; i < hints.n; i++) {
		if (strcmp(hints.v[i].id, "job-child-failed") != 0)
			continue;
		snprintf(id, sizeof id, "%s", hints.v[i].id);
		for (size_t k = 0; k < hints.v[i].n_steps; k++)
			if (hints.v[i].steps[k].kind == DIAG_STEP_RUN)
				snprintf(runbuf, sizeof runbuf, "%s",
					 hints.v[i].steps[k].text);
	}
	*run = runbuf;
	diag_hints_clear(&hints);
	diag_rules_free(rules);
	diag_free(d);
	return id;
}

TEST(launchers_that_lost_a_child)
{
	static const char *const texts[] = {
		"torch.multiprocessing.spawn.ProcessExitedException: process 1 "
		"terminated with signal SIGABRT\r\n",
		"torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \r\n",
		"RuntimeError: DataLoader worker (pid 4242) is killed by signal: "
		"Aborted. \r\n",
		"mpirun noticed that process rank 1 with PID 4242 on node gpu1 "
		"exited on signal 6 (Aborted).\r\n",
		"=   BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES\r\n",
	};
	char a0[] = "python3", a1[] = "train.py", a2[] = "--lr", a3[] = "it's 1";
	char *argv[] = { a0, a1, a2, a3, NULL };
	for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		const char *run;
		CHECK_MSG(strcmp(hint_for(argv, texts[i], &run),
				 "job-child-failed") == 0, "no hint for: %s",
			  texts[i]);
		CHECK_STR(run, "cudbg-tui --job python3 train.py --lr 'it'\\''s 1'");
	}
}

TEST(no_hint_without_a_lost_child)
{
	char a0[] = "./app";
	char *argv[] = { a0, NULL };
	const char *run;
	CHECK_STR(hint_for(argv, "sync: unspecified launch failure\r\n", &run),
		  "(none)");
}
