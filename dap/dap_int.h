/* Internals of the DAP server shared by the files of dap/.
 *
 * One struct dap per client.  It owns the controller (and so the session
 * and model), the diagnosis run, the options built from the launch
 * arguments, and the reference tables handed to the editor (frames,
 * variables), which are dropped whenever the program resumes.
 */
#ifndef CUDBG_DAP_INT_H
#define CUDBG_DAP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cudbg/model.h"
#include "cudbg/options.h"
#include "dap/json.h"

struct diag_run;
struct diag_refault;

/* Bounds of the framing: a header block longer than this is refused and
 * skipped, and so is a body longer than DAP_MAX_BODY (the bytes are read
 * and thrown away, so the stream stays in step). */
enum {
	DAP_MAX_HEADER = 8192,
	DAP_MAX_BODY = 16 << 20,
	/* The DAP thread id of the CUDA focus (gdb's host thread ids are
	 * small numbers: they keep their own). */
	DAP_DEVICE_TID = 1000000,
	/* Most array elements one variables answer carries. */
	DAP_MAX_PAGE = 1000,
};

/* A variablesReference: locals or arguments of a frame, or the children
 * of an expression (struct members, array elements). */
enum dap_ref_kind { DAP_REF_LOCALS, DAP_REF_ARGS, DAP_REF_CHILDREN };
struct dap_ref {
	enum dap_ref_kind kind;
	int level;         /* frame level */
	char *expr;        /* DAP_REF_CHILDREN: the parent expression */
	long count;        /* arrays: elements; -1 otherwise */
};

/* One breakpoint the editor set: a gdb number per source line or
 * function, so the next setBreakpoints for that source replaces them. */
struct dap_bp {
	char *owner;       /* source path, or "" for function breakpoints */
	int number;
};

struct dap {
	int in_fd, out_fd;
	char *in;              /* bytes read, not yet handled */
	size_t in_len, in_cap;
	size_t discard;        /* body bytes still to throw away */
	int64_t seq;           /* our last seq */
	bool quit;
	bool in_eof;

	const struct cudbg_options *cli; /* the command line */
	struct cudbg_options o;          /* from the launch arguments; its
					  * strings point into args */
	struct dj *args;                 /* a copy of the launch/attach
					  * arguments, kept for the session */
	char **argv_store;               /* owned strings behind o.argv */
	char **env_store;                /* "NAME=VALUE" set before launch */
	char *mode;                      /* "live", "attach", "core", "replay" */
	struct dbg_ctl *ctl;
	struct diag_run *dr;
	struct diag_refault *rf;         /* cudbgReplayToFault under way */
	struct diag_run *mc_run;         /* cudbgMemcheck's pass: its core
					  * stays open in the debugger */
	int timeout_ms;

	bool launched;        /* launch/attach answered */
	bool configured;      /* configurationDone seen */
	bool started;         /* the program was run (or is a core/attach) */
	bool stop_on_entry;
	int entry_bkpt;       /* the temporary breakpoint at main, or -1 */
	bool api_stop;        /* exception filter "api" */
	bool pass_after_done; /* diag_run_after ran for this run */
	bool exited_sent, terminated_sent;
	unsigned stop_seen;   /* stop_count already reported */
	bool core_reported;   /* the stop of an opened coredump was sent */
	char stop_note[512];  /* the next stop's description, when we know
			       * better than the model (replay to fault) */
	bool pausing;         /* a pause request's interrupt is in flight:
			       * its stop gets the hang summary */
	double ran_since;     /* when the program last went running
			       * (monotonic seconds) */
	enum model_state last_state;
	uint64_t out_sent;    /* program output bytes sent */
	bool device_stop;     /* the last stop reported was on the device */
	int stop_tid;         /* DAP thread of the last stop */

	struct dap_ref *refs;
	size_t nrefs, refs_cap;
	struct dap_bp *bps;
	size_t nbps;
};

/* ---- server.c ---- */
void dap_send(struct dap *d, struct dj_w *w);      /* frames and writes */
/* Starts a response to req (success); the caller writes "body" members
 * between dap_resp_begin and dap_resp_end (inside the body object). */
void dap_resp_begin(struct dj_w *w, struct dap *d, const struct dj *req);
void dap_resp_end(struct dap *d, struct dj_w *w);
void dap_resp_ok(struct dap *d, const struct dj *req); /* empty body */
void dap_resp_error(struct dap *d, const struct dj *req, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void dap_event_begin(struct dj_w *w, struct dap *d, const char *event);
void dap_event_end(struct dap *d, struct dj_w *w);
/* An output event; text is untrusted (made visible-safe). */
void dap_output(struct dap *d, const char *category, const char *text,
		size_t len);
/* Our own line for the console (an output event, category console). */
void dap_say(struct dap *d, const char *text);

/* ---- engine.c: the controller's loop and events ---- */
/* Waits (serving the session) until nothing is in flight and the stop's
 * refresh is in; false on timeout or when the debugger is gone. */
bool dap_settle(struct dap *d, int timeout_ms);
/* After every poll: output events, stopped / exited / terminated. */
void dap_engine_check(struct dap *d);
void dap_refs_clear(struct dap *d);
int dap_ref_add(struct dap *d, enum dap_ref_kind kind, int level,
		const char *expr, long count);
const struct dap_ref *dap_ref_get(const struct dap *d, long long id);
/* Resumes with fn (ctl_continue, ...): drops references, answers. */
void dap_resume(struct dap *d, const struct dj *req,
		int64_t (*fn)(struct dbg_ctl *));

/* ---- requests.c (session set-up, breakpoints, execution) ---- */
typedef void (*dap_handler)(struct dap *d, const struct dj *req,
			    const struct dj *args);
dap_handler dap_find_handler(const char *command);
void dap_free_session(struct dap *d);
/* Starts (or, with the program run already, restarts) the debugger for
 * the launch configuration in d->o; 0, or -1 with why in err. */
int dap_start_debugger(struct dap *d, char *err, size_t cap);

/* ---- inspect.c ---- */
void dap_req_threads(struct dap *d, const struct dj *req, const struct dj *a);
void dap_req_stack(struct dap *d, const struct dj *req, const struct dj *a);
void dap_req_scopes(struct dap *d, const struct dj *req, const struct dj *a);
void dap_req_variables(struct dap *d, const struct dj *req,
		       const struct dj *a);
void dap_req_evaluate(struct dap *d, const struct dj *req, const struct dj *a);
void dap_req_disassemble(struct dap *d, const struct dj *req,
			 const struct dj *a);
void dap_req_read_memory(struct dap *d, const struct dj *req,
			 const struct dj *a);
void dap_req_cuda_focus(struct dap *d, const struct dj *req,
			const struct dj *a);
/* "block (1,15,0) thread (0,10,0)" into buf. */
void dap_focus_name(const struct dec_focus *f, char *buf, size_t cap);
/* Splits a gdb aggregate value "{a = 1, b = {...}}" / "{1, 2 <repeats 3
 * times>}" into top-level items; calls fn(name or NULL, value) each.
 * Returns the number of items, or -1 when v is not an aggregate. */
long dap_split_value(const char *v, void (*fn)(void *ctx, const char *name,
		     size_t nlen, const char *val, size_t vlen), void *ctx,
		     long max);

/* ---- diagnose.c ---- */
void dap_req_exception_info(struct dap *d, const struct dj *req,
			    const struct dj *a);
void dap_req_memcheck(struct dap *d, const struct dj *req, const struct dj *a);
void dap_req_replay_to_fault(struct dap *d, const struct dj *req,
			     const struct dj *a);
/* The diagnosis of a fault stop: "Warp Illegal Address in k at f.cu:12"
 * into buf; the full report goes out as an output event. */
void dap_diagnose_stop(struct dap *d, char *summary, size_t cap);

#endif
