/* The job table (diag/job.c, diag/job_parse.c): the /proc parsers, the
 * coredump names, and job_run() over real process trees of /bin/sh. */
#include "cudbg/job.h"
#include "tests/harness.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A parsed stack's frames, freed. */
static void py_free(struct job_proc *p)
{
	for (size_t i = 0; i < p->npy; i++) {
		free(p->py[i].file);
		free(p->py[i].func);
	}
	free(p->py);
	p->py = NULL;
	p->npy = 0;
}

TEST(stat_fields_after_the_last_paren)
{
	/* a comm with spaces and parentheses; field 52 a zombie's status */
	char buf[512];
	int n = snprintf(buf, sizeof buf, "77 (a) b (c)) Z 12 77 77 0 -1 0 0 0 "
			 "0 0 0 0 0 0 20 0 1 0 4242");
	for (int f = 23; f <= 51; f++)
		n += snprintf(buf + n, sizeof buf - (size_t)n, " %d", f);
	snprintf(buf + n, sizeof buf - (size_t)n, " 139\n");
	struct job_stat st;
	CHECK_INT(job_parse_stat(buf, strlen(buf), &st), 0);
	CHECK_INT(st.ppid, 12);
	CHECK_INT(st.state, 'Z');
	CHECK_INT((int)st.starttime, 4242);
	CHECK_INT(st.exit_code, 139);
	/* field 20: a zombie leader counts the threads still running */
	CHECK_INT((int)st.threads, 1);
	char *t20 = strstr(buf, " 20 0 1 0 4242");
	CHECK(t20 != NULL);
	if (t20)
		t20[6] = '3';
	CHECK_INT(job_parse_stat(buf, strlen(buf), &st), 0);
	CHECK_INT((int)st.threads, 3);
	/* an old kernel's shorter line: no exit code */
	const char *old = "5 (x) S 1 5 5 0";
	CHECK_INT(job_parse_stat(old, strlen(old), &st), 0);
	CHECK_INT(st.exit_code, -1);
	CHECK(job_parse_stat("5 (x", 4, &st) < 0);
	CHECK(job_parse_stat("5 (x) S", 7, &st) < 0);
}

TEST(environ_ranks_most_specific_first)
{
	static const char env[] = "PMI_RANK=7\0PATH=/bin\0RANK=3\0"
				  "LOCAL_RANK=1\0RANKX=9\0";
	struct job_proc p;
	memset(&p, 0, sizeof p);
	CHECK_INT(job_parse_environ(env, sizeof env - 1, &p), 0);
	CHECK_STR(p.rank, "3");
	CHECK_STR(p.rank_var, "RANK");
	CHECK_STR(p.local_rank, "1");
	free(p.rank);
	free(p.local_rank);
	/* Open MPI without RANK; a non-number is no rank */
	static const char ompi[] = "RANK=abc\0OMPI_COMM_WORLD_RANK=12\0"
				   "OMPI_COMM_WORLD_LOCAL_RANK=0";
	memset(&p, 0, sizeof p);
	CHECK_INT(job_parse_environ(ompi, sizeof ompi - 1, &p), 0);
	CHECK_STR(p.rank, "12");
	CHECK_STR(p.rank_var, "OMPI_COMM_WORLD_RANK");
	CHECK_STR(p.local_rank, "0");
	free(p.rank);
	free(p.local_rank);
}

TEST(core_names)
{
	CHECK_INT(job_core_pid("core.4242.nvcudmp"), 4242);
	CHECK_INT(job_core_pid("core.4242"), 4242);
	CHECK_INT(job_core_pid("core_1700000000_node12_77.nvcudmp"), 77);
	CHECK_INT(job_core_pid("core.nvcudmp"), -1);
	CHECK_INT(job_core_pid("core123abc"), -1);
	CHECK_INT(job_core_pid("notes.txt"), -1);
	char *s = job_join_cmdline("python3\0-c\0x\0", 13);
	CHECK_STR(s, "python3 -c x");
	free(s);
}

/* The driver aborts from a thread of its own: the current thread has no
 * Python frame, the main thread's stack (ending in <module>) is the one;
 * the user's frame is the first outside the library. */
TEST(pystack_from_a_faulthandler_dump)
{
	static const char dump[] =
		"Fatal Python error: Aborted\n\n"
		"Thread 0x00007f0000000001 (most recent call first):\n"
		"  File \"/usr/lib/python3.12/threading.py\", line 355 in wait\n"
		"  File \"/usr/lib/python3.12/threading.py\", line 1009 in _bootstrap\n\n"
		"Current thread 0x00007f0000000002 (most recent call first):\n"
		"  <no Python frame>\n\n"
		"Thread 0x00007f0000000003 (most recent call first):\n"
		"  File \"/usr/lib/python3/dist-packages/torch/_tensor.py\", line 40 in __getitem__\n"
		"  File \"/src/a \\\"b\\\".py\", line 24 in lookup\n"
		"  File \"/src/train.py\", line 31 in worker\n"
		"  File \"/src/train.py\", line 40 in <module>\n\n"
		"Extension modules: torch._C (total: 1)\n";
	struct job_proc p;
	memset(&p, 0, sizeof p);
	CHECK_INT(job_parse_pystack(dump, sizeof dump - 1, false, &p), 0);
	CHECK_INT((int)p.npy, 4);
	CHECK_INT(p.py_user, 1);
	CHECK_STR(p.py[0].func, "__getitem__");
	CHECK_STR(p.py[1].file, "/src/a \\\"b\\\".py");
	CHECK_INT(p.py[1].line, 24);
	CHECK_STR(p.py[3].func, "<module>");
	py_free(&p);
	/* nothing that looks like a stack: no frames */
	memset(&p, 0, sizeof p);
	CHECK_INT(job_parse_pystack("hello\n", 6, false, &p), 0);
	CHECK_INT((int)p.npy, 0);
	CHECK_INT(p.py_user, -1);
}

/* An MPI rank aborted by the driver after its GPU coredump (H200, run
 * 10): no "Current thread" block (the abort came on the driver's thread),
 * and the main thread, run by `python -m mpi4py`, ends in runpy's frames:
 * it is still the one taken, its user frame mp_mpi.py:11. */
TEST(pystack_of_a_rank_run_by_python_m)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/data/job/pystack-mpi-rank.txt",
		 getenv("CUDBG_ROOT") ? getenv("CUDBG_ROOT") : ".");
	FILE *f = fopen(path, "r");
	CHECK_MSG(f != NULL, "%s", path);
	if (!f)
		return;
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	struct job_proc p;
	memset(&p, 0, sizeof p);
	CHECK_INT(job_parse_pystack(buf, n, false, &p), 0);
	CHECK_INT((int)p.npy, 10);
	CHECK_INT(p.py_user, 0);
	if (p.npy == 10) {
		CHECK_STR(p.py[0].file, "mp_mpi.py");
		CHECK_INT(p.py[0].line, 11);
		CHECK_STR(p.py[0].func, "lookup");
		CHECK_STR(p.py[9].func, "_run_module_as_main");
	}
	py_free(&p);
}

static const struct job_proc *by_cmd(const struct job *j, const char *cmd)
{
	for (size_t i = 0; i < j->nprocs; i++)
		if (j->procs[i].cmdline &&
		    strncmp(j->procs[i].cmdline, cmd, strlen(cmd)) == 0)
			return &j->procs[i];
	return NULL;
}

/* The orphans of a launcher that exits first are reaped by the keeper:
 * their statuses are exact; the one killed by SIGSEGV is the faulting
 * process. */
TEST_TIMEOUT(run_orphans_statuses, 60)
{
	char sh[] = "/bin/sh", c[] = "-c", script[] =
		"RANK=0 sh -c 'sleep 0.4; exit 0' & "
		"RANK=1 sh -c 'sleep 0.2; kill -SEGV $$' & exit 5";
	char *argv[] = { sh, c, script, NULL };
	struct job_config cfg = { .grace_ms = 5000 };
	char err[256] = "";
	struct job *j = job_run(argv, &cfg, err, sizeof err);
	CHECK_MSG(j != NULL, "%s", err);
	const struct job_proc *lead = NULL;
	for (size_t i = 0; i < j->nprocs; i++)
		if (j->procs[i].pid == j->leader)
			lead = &j->procs[i];
	CHECK(lead != NULL);
	CHECK_INT(lead->state, JOB_EXITED);
	CHECK_INT(lead->status, 5);
	const struct job_proc *f = job_faulting(j);
	CHECK(f != NULL);
	CHECK_INT(f->state, JOB_SIGNALLED);
	CHECK_INT(f->status, SIGSEGV);
	CHECK_STR(f->rank, "1");
	const struct job_proc *ok = by_cmd(j, "sh -c sleep 0.4");
	CHECK(ok != NULL);
	CHECK_INT(ok->state, JOB_EXITED);
	CHECK_INT(ok->status, 0);
	CHECK(!j->stopped_rest);
	/* the private directory goes with the job */
	char dir[4096];
	snprintf(dir, sizeof dir, "%s", j->core_dir);
	struct stat sb;
	CHECK(stat(dir, &sb) == 0 && (sb.st_mode & 0777) == 0700);
	job_free(j);
	CHECK(stat(dir, &sb) < 0);
}

/* The driver's settings reach every process; a core named by pid marks
 * its process; a process still running after the grace is stopped. */
TEST_TIMEOUT(run_core_and_grace, 60)
{
	char sh[] = "/bin/sh", c[] = "-c", script[] =
		"sh -c 'echo \"$CUDA_ENABLE_COREDUMP_ON_EXCEPTION $CUDA_LAUNCH_BLOCKING $OMPI_MCA_opal_signal\" "
		"> \"${CUDA_COREDUMP_FILE%/*}/env\"; "
		"f=$(echo \"$CUDA_COREDUMP_FILE\" | sed \"s/%p/$$/\"); "
		"echo core > \"$f\"; kill -ABRT $$' & "
		"sleep 30; wait";
	char *argv[] = { sh, c, script, NULL };
	struct job_config cfg = { .grace_ms = 300 };
	char err[256] = "";
	struct job *j = job_run(argv, &cfg, err, sizeof err);
	CHECK_MSG(j != NULL, "%s", err);
	const struct job_proc *f = job_faulting(j);
	CHECK(f != NULL && f->core != NULL);
	CHECK_INT(job_core_pid(strrchr(f->core, '/') + 1), (int)f->pid);
	CHECK(j->stopped_rest);
	CHECK(j->secs < 20);
	const struct job_proc *sl = by_cmd(j, "sleep 30");
	CHECK(sl != NULL && sl->killed_by_us);
	char path[4200];
	snprintf(path, sizeof path, "%s/env", j->core_dir);
	FILE *e = fopen(path, "r");
	char line[64] = "";
	CHECK(e != NULL && fgets(line, sizeof line, e));
	if (e)
		fclose(e);
	/* Open MPI leaves SIGABRT to faulthandler (diag/job.c) */
	CHECK_STR(line, "1 1 7,8,11\n");
	job_free(j);
}

TEST(run_missing_program)
{
	char prog[] = "/nonexistent/x";
	char *argv[] = { prog, NULL };
	struct job_config cfg = { 0 };
	char err[256] = "";
	CHECK(job_run(argv, &cfg, err, sizeof err) == NULL);
	CHECK(strstr(err, "cannot run /nonexistent/x") != NULL);
}

/* faulthandler's first line names the fatal signal; anything else is not
 * such a report. */
TEST(fatal_signal_from_the_report)
{
	static const struct { const char *text; int sig; } v[] = {
		{ "Fatal Python error: Segmentation fault\n\nThread 0x7f", SIGSEGV },
		{ "Fatal Python error: Aborted\n", SIGABRT },
		{ "Fatal Python error: Bus error", SIGBUS },
		{ "Fatal Python error: Floating point exception\r\n", SIGFPE },
		{ "Fatal Python error: Illegal instruction\n", SIGILL },
		{ "Fatal Python error: Segmentation faults\n", 0 },
		{ "Fatal Python error: Cannot recover from stack overflow.\n", 0 },
		{ "Thread 0x7f (most recent call first):\n", 0 },
		{ "", 0 },
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		CHECK_MSG(job_parse_fatal_signal(v[i].text, strlen(v[i].text)) ==
			  v[i].sig, "%s", v[i].text);
}

/* At SIGTERM the signal lands on any thread: a dump whose "Current
 * thread" is a helper's still gives the main thread's stack (the one
 * with <module>) when main_first is asked; at a fatal signal the current
 * thread's. */
TEST(pystack_at_sigterm_takes_the_main_thread)
{
	static const char dump[] =
		"Current thread 0x00007f0000000002 (most recent call first):\n"
		"  File \"/usr/lib/python3.12/threading.py\", line 355 in wait\n"
		"  File \"/usr/lib/python3.12/threading.py\", line 1009 in _bootstrap\n\n"
		"Thread 0x00007f0000000001 (most recent call first):\n"
		"  File \"/usr/lib/python3/dist-packages/torch/distributed/c10d_logger.py\", line 83 in wrapper\n"
		"  File \"/src/train.py\", line 25 in main\n"
		"  File \"/src/train.py\", line 31 in <module>\n";
	struct job_proc p;
	memset(&p, 0, sizeof p);
	CHECK_INT(job_parse_pystack(dump, sizeof dump - 1, true, &p), 0);
	CHECK_INT((int)p.npy, 3);
	CHECK_INT(p.py_user, 1);
	if (p.npy == 3)
		CHECK_STR(p.py[1].file, "/src/train.py");
	py_free(&p);
	memset(&p, 0, sizeof p);
	CHECK_INT(job_parse_pystack(dump, sizeof dump - 1, false, &p), 0);
	CHECK_INT((int)p.npy, 2);
	if (p.npy == 2)
		CHECK_STR(p.py[0].func, "wait");
	py_free(&p);
}

/* What NCCL and gloo print when a collective cannot complete, in the
 * forms users' logs show (public bug reports of PyTorch 1.x to 2.x jobs:
 * pytorch/pytorch#118369, NVIDIA/Megatron-LM#1207, pytorch/gloo#511). */
TEST(collectives_from_the_libraries_words)
{
	struct job_collective c;
	static const char wd[] =
		"[rank1]:[E626 06:24:44.903881913 ProcessGroupNCCL.cpp:616] [Rank 1] "
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=808, "
		"OpType=ALLREDUCE, NumelIn=9801523, NumelOut=9801523, "
		"Timeout(ms)=600000) ran for 600020 milliseconds before timing out.";
	CHECK(job_parse_collective(wd, sizeof wd - 1, &c));
	CHECK_INT(c.kind, JOB_COLL_TIMEOUT);
	CHECK_STR(c.backend, "NCCL");
	CHECK_INT((int)c.rank, 1);
	CHECK_STR(c.op, "ALLREDUCE");
	CHECK_INT((int)c.seq, 808);
	CHECK_INT((int)c.timeout_ms, 600000);
	CHECK_INT((int)c.ran_ms, 600020);
	/* older PyTorch: no [rankN]: prefix, no Numel fields */
	static const char old[] =
		"[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught collective "
		"operation timeout: WorkNCCL(SeqNum=469508, OpType=ALLREDUCE, "
		"Timeout(ms)=1800000) ran for 1802212 milliseconds before timing out.";
	CHECK(job_parse_collective(old, sizeof old - 1, &c));
	CHECK_INT((int)c.rank, 3);
	CHECK_INT((int)c.seq, 469508);
	CHECK_INT((int)c.ran_ms, 1802212);
	/* the watchdog thread's own end names the same work */
	static const char pg[] =
		"[rank0]:[E321 02:07:08.4 ProcessGroupNCCL.cpp:1664] [PG ID 0 PG GUID "
		"0(default_pg) Rank 0] Process group watchdog thread terminated with "
		"exception: [Rank 0] Watchdog caught collective operation timeout: "
		"WorkNCCL(SeqNum=4, OpType=BROADCAST, NumelIn=112, NumelOut=112, "
		"Timeout(ms)=1800000) ran for 1800010 milliseconds before timing out.";
	CHECK(job_parse_collective(pg, sizeof pg - 1, &c));
	CHECK_INT((int)c.rank, 0);
	CHECK_STR(c.op, "BROADCAST");
	static const char gl[] =
		"[trainer22|6]:RuntimeError: [gloo/transport/tcp/unbound_buffer.cc:81] "
		"Timed out waiting 1800000ms for recv operation to complete";
	CHECK(job_parse_collective(gl, sizeof gl - 1, &c));
	CHECK_STR(c.backend, "gloo");
	CHECK_STR(c.op, "recv");
	CHECK_INT((int)c.timeout_ms, 1800000);
	CHECK_INT((int)c.rank, -1);
	static const char peer[] =
		"[rank0]:RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] "
		"Connection closed by peer [127.0.0.1]:29500";
	CHECK(job_parse_collective(peer, sizeof peer - 1, &c));
	CHECK_INT(c.kind, JOB_COLL_PEER_GONE);
	CHECK_INT((int)c.rank, 0);
	CHECK_STR(c.text, "Connection closed by peer [127.0.0.1]:29500");
	/* two NCCL ranks on one GPU, GPU run 29 (H100, NCCL 2.28.9):
	 * tests/fixtures/gpu/run29/results/explore/nccl_one_gpu.txt */
	static const char err[] =
		"[rank0]: torch.distributed.DistBackendError: NCCL error in: "
		"/pytorch/torch/csrc/distributed/c10d/NCCLUtils.cpp:93, invalid "
		"usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.28.9";
	CHECK(job_parse_collective(err, sizeof err - 1, &c));
	CHECK_INT(c.kind, JOB_COLL_ERROR);
	CHECK_INT((int)c.rank, 0);
	CHECK_STR(c.text, "invalid usage (run with NCCL_DEBUG=WARN for details)");
	static const char dup[] =
		"[rank1]: Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60";
	CHECK(job_parse_collective(dup, sizeof dup - 1, &c));
	CHECK_INT((int)c.rank, 1);
	CHECK_STR(c.text, "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60");
	/* gloo's, as rank 0 of GPU run 29's DDP job printed it */
	static const char peer29[] =
		"[rank0]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/"
		"tcp/pair.cc:547] Connection closed by peer [127.0.0.1]:18816";
	CHECK(job_parse_collective(peer29, sizeof peer29 - 1, &c));
	CHECK_INT(c.kind, JOB_COLL_PEER_GONE);
	CHECK_INT((int)c.rank, 0);
	/* not a collective: ordinary output, a truncated key */
	CHECK(!job_parse_collective("loss 0.25", 9, &c));
	CHECK(!job_parse_collective("Timed out waiting 5", 19, &c));
	CHECK(!job_parse_collective("Timed out waiting 5ms", 21, &c));
	/* a repeat of one rank's timeout is kept once */
	struct job j;
	memset(&j, 0, sizeof j);
	CHECK(job_parse_collective(wd, sizeof wd - 1, &c));
	job_add_collective(&j, &c);
	job_add_collective(&j, &c);
	CHECK(job_parse_collective(old, sizeof old - 1, &c));
	job_add_collective(&j, &c);
	CHECK_INT((int)j.ncolls, 2);
}

/* A launcher's words about a worker's end, as the GPU machine's runs
 * printed them (tests/fixtures/gpu/multiproc/mp_*.plain.txt, .job.err). */
TEST(deaths_a_launcher_names)
{
	struct job_death d;
	static const char dl[] =
		"RuntimeError: DataLoader worker (pid 18325) is killed by signal: Aborted. ";
	CHECK(job_parse_death(dl, sizeof dl - 1, &d));
	CHECK_INT((int)d.pid, 18325);
	CHECK(d.signalled);
	CHECK_INT(d.status, SIGABRT);
	static const char tab[] = "  exitcode  : -6 (pid: 17830)";
	CHECK(job_parse_death(tab, sizeof tab - 1, &d));
	CHECK_INT((int)d.pid, 17830);
	CHECK(d.signalled);
	CHECK_INT(d.status, 6);
	static const char ok1[] = "  exitcode  : 1 (pid: 17788)";
	CHECK(job_parse_death(ok1, sizeof ok1 - 1, &d));
	CHECK(!d.signalled);
	CHECK_INT(d.status, 1);
	static const char log[] =
		"E1203 18:12:59.254000 17806 torch/distributed/elastic/multiprocessing/"
		"api.py:986] failed (exitcode: -6) local_rank: 1 (pid: 17830) of "
		"binary: /opt/torch/.venv/bin/python3";
	CHECK(job_parse_death(log, sizeof log - 1, &d));
	CHECK_INT((int)d.pid, 17830);
	CHECK_INT(d.status, 6);
	static const char mpi[] =
		"mpirun noticed that process rank 1 with PID 0 on node vm exited on "
		"signal 6 (Aborted).";
	CHECK(job_parse_death(mpi, sizeof mpi - 1, &d));
	CHECK_INT((int)d.pid, 0);
	CHECK_INT((int)d.rank, 1);
	CHECK_INT(d.status, 6);
	/* not a death: the DataLoader's other line names no signal, a
	 * truncated table line, ordinary output */
	static const char ex[] = "RuntimeError: DataLoader worker (pid(s) 18325) exited unexpectedly";
	CHECK(!job_parse_death(ex, sizeof ex - 1, &d));
	CHECK(!job_parse_death("  exitcode  : -6", 16, &d));
	CHECK(!job_parse_death("epoch 3 loss 0.1", 16, &d));
}

/* A rank's own traceback behind torchrun's "[rankN]: " prefix, from the
 * real stderr of GPU run 29's DDP job (tests/fixtures/gpu/multiproc/
 * mp_ddp.job.err): rank 0 raised gloo's "Connection closed by peer" in
 * backward(), its user's line mp_ddp.py:21 in train_step. */
TEST(rank_traceback_from_the_ddp_job)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/tests/fixtures/gpu/multiproc/mp_ddp.job.err",
		 getenv("CUDBG_ROOT") ? getenv("CUDBG_ROOT") : ".");
	FILE *f = fopen(path, "r");
	CHECK_MSG(f != NULL, "%s", path);
	if (!f)
		return;
	static struct job_tb_state st;
	memset(&st, 0, sizeof st);
	struct job_rank_error e, got[4];
	size_t n = 0;
	char line[2048];
	while (fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\n");
		if (job_parse_rank_traceback(&st, line, len, &e) && n < 4)
			got[n++] = e;
	}
	fclose(f);
	CHECK_INT((int)n, 1);
	if (n) {
		CHECK_INT((int)got[0].rank, 0);
		CHECK(strstr(got[0].exception, "RuntimeError: ") == got[0].exception);
		CHECK(strstr(got[0].exception, "Connection closed by peer") != NULL);
		CHECK(strstr(got[0].file, "/mp_ddp.py") != NULL);
		CHECK_INT(got[0].line, 21);
		CHECK_STR(got[0].func, "train_step");
	}
	/* a traceback without the prefix (one process's own) is not a rank's */
	memset(&st, 0, sizeof st);
	CHECK(!job_parse_rank_traceback(&st, "Traceback (most recent call last):", 34, &e));
	CHECK(!job_parse_rank_traceback(&st, "ValueError: x", 13, &e));
}
