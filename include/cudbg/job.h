/* Jobs of many processes: run a command that starts a process tree
 * (DataLoader workers, torch.multiprocessing, torchrun, mpirun) once,
 * fault-first, and learn which process faulted.  See docs/multiprocess.md.
 *
 * Code: diag/job.c, diag/job_report.c.
 *
 * job_run() starts the command under a small keeper process (a child
 * subreaper, so every orphaned descendant is reaped by it and its exit
 * status is seen) with the driver's coredump-on-exception settings in the
 * environment, polls /proc for every descendant (pid, parent, command
 * line, rank variables) and the private core directory for per-process
 * GPU coredumps, and returns when the whole tree has ended.  Nothing is
 * ptraced and no debugger runs during the job.
 *
 * job_from_core_dir() builds the same table from a directory of
 * per-process coredumps left by a job that already died.
 *
 * Error convention (diag/): NULL with a one-line message in err.  Every
 * string in the structs is malloc'd and owned by the job (job_free);
 * command lines and paths are untrusted text (escape before showing).
 */
#ifndef CUDBG_JOB_H
#define CUDBG_JOB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/* How often a running job's /proc and core directory are read (ms). */
#define JOB_POLL_MS 50

enum job_state {
	JOB_RUNNING,    /* still running when last seen */
	JOB_EXITED,     /* exited; status holds the exit code */
	JOB_SIGNALLED,  /* killed by a signal; status holds the signal */
	JOB_ENDED,      /* ended, but its status was reaped by its own
			 * parent before we could read it */
	JOB_UNKNOWN,    /* only known from a coredump (--core-dir) */
};

/* A Python frame from the stack a Python process of the job printed when
 * it died of a fatal signal or was stopped by SIGTERM (faulthandler; see
 * docs/multiprocess.md). */
struct job_pyframe {
	char *file;
	int line;
	char *func;
};

/* When a process printed its Python stack. */
enum job_py_when {
	JOB_PY_NONE,
	JOB_PY_FATAL,   /* a fatal signal (SIGSEGV, SIGABRT...): its own death */
	JOB_PY_SIGTERM, /* SIGTERM from its launcher or from us: what it was
			 * doing while another process had failed */
};

struct job_proc {
	long pid;
	long ppid;            /* 0 when unknown */
	char *cmdline;        /* argv joined by spaces, NULL when unknown */
	bool cmd_inherited;      /* cmdline is its parent's, copied at its
				  * fork (the kernel's events): untrue once
				  * it execs */
	bool exec_heard;         /* an exec of it was heard (the events) */
	bool status_from_events; /* state/status are a thread's end heard
				  * in the events: a later thread's end
				  * replaces them */
	unsigned long long cmd_read_ns; /* when the last read of cmdline
					 * from /proc began (CLOCK_MONOTONIC
					 * ns), 0 never */
	char *exe;            /* /proc/PID/exe, NULL when unknown */
	char *rank;           /* the rank's value, NULL when none */
	const char *rank_var; /* RANK, OMPI_COMM_WORLD_RANK, PMI_RANK,
			       * PMIX_RANK or SLURM_PROCID (static) */
	char *local_rank;     /* LOCAL_RANK / OMPI_COMM_WORLD_LOCAL_RANK */
	enum job_state state;
	int status;           /* exit code or signal number */
	bool killed_by_us;    /* stopped after the grace period */
	unsigned long long start; /* its start time (/proc) when it was seen
				   * running as the job's descendant; 0 when
				   * only a coredump's name told of it.  Only
				   * a process with a start time that still
				   * matches is ever signalled. */
	double seen_s;        /* first seen, seconds since the job began */
	double end_s;         /* ended, seconds since the job began; 0 */
	char *core;           /* its coredump, NULL when none */
	double core_time;     /* the coredump's mtime (seconds since the
			       * epoch, with nanoseconds) */
	bool faulted;         /* wrote a coredump or died of SIGSEGV,
			       * SIGBUS, SIGILL, SIGFPE or SIGABRT */
	bool death_from_report; /* its end known from a report, its status
				 * unseen (its parent reaped it) */
	const char *death_by;   /* whose report: "its report" (its own
				 * fatal-error report), "its parent's
				 * wait" (the death reporter in the parent
				 * that reaped it: SIGKILL), "its
				 * launcher's report" (DataLoader,
				 * torchrun, mpirun on stderr); static,
				 * NULL */
	struct job_pyframe *py; /* its Python stack, innermost first, when
				 * it printed one at its death; else NULL */
	size_t npy;
	enum job_py_when py_when; /* which death printed py */
	int py_user;          /* index of the user's own frame (the first
			       * outside the Python library and site-packages),
			       * -1 when none */
};

/* What a rank's communication library said of a collective that could
 * not complete (the job's stderr; job_parse_collective). */
enum job_coll_kind {
	JOB_COLL_TIMEOUT,   /* NCCL's watchdog or gloo's wait timed out */
	JOB_COLL_PEER_GONE, /* gloo: the peer closed its connection */
	JOB_COLL_ERROR,     /* NCCL refused or failed the operation */
};

struct job_collective {
	enum job_coll_kind kind;
	char backend[8];      /* "NCCL" or "gloo" */
	long rank;            /* the rank that said it, -1 unknown */
	char op[32];          /* ALLREDUCE, BROADCAST, recv...; "" unknown */
	long long seq;        /* NCCL's SeqNum, -1 unknown */
	long long timeout_ms; /* the limit, -1 unknown */
	long long ran_ms;     /* how long it ran, -1 unknown */
	char text[160];       /* the library's own words after its prefix
			       * (untrusted: escape before showing) */
};

/* The Python traceback a rank printed on the job's stderr behind
 * torchrun's "[rankN]: " prefix: its exception and its innermost frame
 * in the user's own code (job_parse_rank_traceback). */
struct job_rank_error {
	long rank;
	char exception[200];  /* "RuntimeError: ..." (untrusted) */
	char file[256];       /* "" when no frame was the user's */
	int line;
	char func[64];
};

/* The reader's state between lines: each rank's traceback in progress. */
struct job_tb_rank {
	bool in;           /* inside "Traceback (most recent ...)" */
	char file[256];    /* its innermost user frame so far */
	int line;
	char func[64];
};
struct job_tb_state {
	struct job_tb_rank r[64];
};

struct job {
	struct job_proc *procs;  /* in the order first seen */
	size_t nprocs;
	long leader;             /* the command's own pid (0: --core-dir) */
	int faulting;            /* index of the first faulting process
				  * (earliest coredump, else earliest fault
				  * signal), -1 when none */
	char *core_dir;          /* where the coredumps are */
	bool own_dir;            /* a private directory job_free removes */
	bool stopped_rest;       /* the rest were stopped after the grace */
	bool timed_out;          /* the timeout or a signal ended it */
	double secs;             /* the job's wall time */
	char *command;           /* the command line (NULL: --core-dir) */
	struct job_collective colls[8]; /* the first distinct collective
					 * failures its stderr told of */
	size_t ncolls;
	struct job_rank_error rank_errors[8]; /* each rank's first traceback */
	size_t nrank_errors;
	/* why the kernel's process events (include/cudbg/procev.h) were not
	 * heard, NULL when they were (or --core-dir): without them a
	 * process reaped by a parent with no reporter ends unseen */
	char *process_events_off;
};

struct job_config {
	const char *core_dir;    /* NULL: a private mkdtemp directory */
	bool keep_dir;           /* keep the private directory */
	/* After the first faulting process ended, how long the others may
	 * run on before they are stopped (a collective waits forever for a
	 * dead rank); 0: 10 s. */
	int grace_ms;
	int timeout_ms;          /* <= 0: none */
	volatile sig_atomic_t *cancel; /* non-zero: stop the job now */
	bool stdout_to_stderr;   /* the job's stdout goes to our stderr
				  * (batch: the report alone on stdout) */
	/* CUDA_COREDUMP_GENERATION_FLAGS when the environment has none;
	 * NULL: none set (the driver's full coredump: cuda-gdb 13.0 aborted
	 * opening the small ones skip_global_memory,skip_shared_memory
	 * gave, on the H200). */
	const char *core_flags;
};

/* Runs argv (argv[0] looked up in PATH) to its end.  NULL on failure to
 * start (err says why). */
struct job *job_run(char *const argv[], const struct job_config *cfg,
		    char *err, size_t cap);
/* The coredumps in dir (regular files whose name holds a pid: core.PID,
 * core.PID.nvcudmp, core_TIME_HOST_PID.nvcudmp), first by time. */
struct job *job_from_core_dir(const char *dir, char *err, size_t cap);
void job_free(struct job *j); /* removes a private directory; NULL ok */

/* The faulting process or NULL. */
const struct job_proc *job_faulting(const struct job *j);
/* "exited 1", "killed by SIGABRT", "running", "ended (status reaped by
 * its parent)", "unknown" (static or in buf). */
const char *job_state_text(const struct job_proc *p, char *buf, size_t cap);

/* The signal a Python process died of, from the first line of the
 * report faulthandler writes at a fatal signal ("Fatal Python error:
 * Segmentation fault"): SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT; 0
 * when the text is no such report.  It tells the death of a worker its
 * own parent reaped (a DataLoader worker), whose status we never see. */
int job_parse_fatal_signal(const char *buf, size_t len);

/* The Python stack of a faulthandler dump ("Fatal Python error: ..."
 * then "Current thread 0x... (most recent call first):" and "  File
 * "F", line N in FUNC" lines).  At a fatal signal (main_first false): the
 * current thread's frames when it has any, else the thread whose
 * outermost frame is <module> (the main thread; the driver may abort from
 * a thread of its own).  At SIGTERM (main_first true) the main thread
 * first: a process-wide signal lands on any thread, and the main one is
 * the one the user's script runs on.  Fills p->py, npy and py_user.  0,
 * or -1 when out of memory. */
int job_parse_pystack(const char *buf, size_t len, bool main_first,
		      struct job_proc *p);

/* A line of a job's stderr that tells of a collective that could not
 * complete: NCCL's watchdog ("[Rank 0] Watchdog caught collective
 * operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, ...,
 * Timeout(ms)=600000) ran for 600013 milliseconds before timing out."),
 * an NCCL error ("NCCL error in: FILE:LINE, MESSAGE", "Duplicate GPU
 * detected : ..."), gloo's "Timed out waiting 30000ms for recv operation
 * to complete" and "Connection closed by peer [ADDR]:PORT".  A "[rankN]:"
 * prefix (torchrun's) gives the rank where the message has none.  true
 * and *out filled when it is one. */
bool job_parse_collective(const char *line, size_t len,
			  struct job_collective *out);
/* Adds c to j->colls unless one alike (kind, backend, rank, op, seq) is
 * there or the table is full. */
void job_add_collective(struct job *j, const struct job_collective *c);

/* A launcher's words about a worker's end, on the job's stderr: the
 * DataLoader's "DataLoader worker (pid 18325) is killed by signal:
 * Aborted.", torchrun's "exitcode  : -6 (pid: 17830)" and "failed
 * (exitcode: -6) local_rank: 1 (pid: 17830)", mpirun's "process rank 1
 * with PID 0 on node vm exited on signal 6 (Aborted)."  They name a
 * death whose status went to the launcher, not to us. */
struct job_death {
	long pid;      /* 0 when the message gives none (mpirun's PID 0) */
	long rank;     /* mpirun's rank, -1 none */
	bool signalled;
	int status;    /* the signal, or the exit code */
};
bool job_parse_death(const char *line, size_t len, struct job_death *out);

/* One line of the job's stderr into the traceback reader: true, with
 * *out filled, at the exception line that ends a "[rankN]: " prefixed
 * traceback (the innermost frame outside the Python library and
 * site-packages is the user's).  Ranks 0-63. */
bool job_parse_rank_traceback(struct job_tb_state *st, const char *line,
			      size_t len, struct job_rank_error *out);
/* The rank error of rank (first seen), NULL; by the rank variable's
 * text (NULL or not a number: NULL). */
const struct job_rank_error *job_rank_error_by_rank(const struct job *j,
						    long rank);
const struct job_rank_error *job_rank_error_of(const struct job *j,
					       const char *rank);

/* Parsers of what /proc gives (exposed for tests and fuzzing). */
struct job_stat {
	long ppid;
	char state;           /* R, S, Z... */
	int exit_code;        /* field 52: a zombie's wait status, -1 */
	unsigned long long starttime;
	long threads;         /* field 20; a zombie leader whose other
			       * threads run on counts them (more than 1):
			       * its process has not ended */
};
int job_parse_stat(const char *buf, size_t len, struct job_stat *out);
/* Fills p->rank, rank_var and local_rank from an environ block (NUL
 * separated).  0, or -1 when out of memory. */
int job_parse_environ(const char *buf, size_t len, struct job_proc *p);
/* NUL-separated argv to one line (malloc'd). */
char *job_join_cmdline(const char *buf, size_t len);
/* A live process's command line as one line (malloc'd), read from
 * /proc/PID/cmdline, or from another of its threads where its leader's
 * reads empty (a leader that called pthread_exit); NULL when gone. */
char *job_read_cmdline(long pid);
/* The pid a coredump's file name holds (its last run of digits before
 * any .nvcudmp / .core extension), or -1. */
long job_core_pid(const char *name);

/* The job as report text (escaped, lines end in \n) and as a JSON object
 * (the "job" member of the batch report).  malloc'd; NULL when out of
 * memory. */
char *job_report_text(const struct job *j);
char *job_report_json(const struct job *j);

/* Writes the job's text report into the session's recording as "#"
 * notes ("# job| LINE"), so a recording of the faulting process's
 * coredump says which process of which job it is.  No-op when not
 * recording or j is NULL. */
struct session;
void job_note_recording(struct session *s, const struct job *j);

#endif
