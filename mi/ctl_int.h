/* The controller's insides, shared by mi/ctl.c and mi/ctl_refresh.c (not
 * a public header). */
#ifndef CUDBG_MI_CTL_INT_H
#define CUDBG_MI_CTL_INT_H

#include "cudbg/model.h"

struct dbg_ctl {
	struct session *s;
	struct dbg_model m;
	struct session_handlers hooks[2]; /* diag_hooks, hooks */
	unsigned want;          /* MODEL_WANT_* */
	unsigned gen;           /* bumped by every stop and focus change */
	unsigned refreshing;    /* refresh commands of `gen` in flight */
	unsigned busy;          /* all commands in flight */
	bool auto_frame;        /* the refresh may pick the frame to show */
	bool closing;           /* ctl_free is running */
	bool lean;              /* a stop's refresh skips the kernels and
				 * threads tables (dbg_ctl_config.lean) */
	/* Lazy host symbols (session_symbols_command): =library-loaded
	 * records seen, and how many of them the last first and late reads
	 * covered */
	unsigned libs_loaded, libs_read, libs_read_late;
	/* torch's libraries read from lean copies (session_lean_libs[i]):
	 * each as =library-loaded named it (NULL until then) and where its
	 * .text lies; read once its copy's add-symbol-file was sent */
	struct ctl_lean_lib {
		char *path;
		uint64_t text;
		bool read;
	} leans[SESSION_LEAN_LIBS];
	/* Frame 0 as the focus switch answered it (n == 0 otherwise); the
	 * stack fetched after it must agree (see stack_agree). */
	struct dec_stack anchor;
};

/* One command in flight.  Freed by its continuation (which always runs,
 * with SESSION_REPLY_GONE at the latest). */
struct ctl_op;
typedef void (*ctl_op_fn)(struct dbg_ctl *c, struct ctl_op *op,
			  const struct session_reply *r);

struct ctl_op {
	struct dbg_ctl *c;
	ctl_op_fn fn;
	unsigned gen;           /* refresh ops: dropped when stale */
	bool refresh;           /* counts in c->refreshing */
	char *fallback;         /* sent instead when this one fails */
	struct dec_table_builder *rows; /* a table op: rows of a big answer
					 * arrive here one by one
					 * (session_send_rows) */
	char *expr;             /* evaluate/watch: the expression */
	size_t index;           /* watch or lane index */
	int level;              /* frame level */
	ctl_value_fn value_fn;  /* user callbacks */
	ctl_complete_fn complete_fn;
	ctl_disasm_fn disasm_fn;
	ctl_stack_fn stack_fn;
	ctl_reply_fn reply_fn;
	void *user;
};

/* Sends `cmd` (a complete MI command without token).  The op is taken
 * over (freed on failure).  Returns the token or a negative code. */
int64_t ctl_send_op(struct dbg_ctl *c, struct ctl_op *op, unsigned flags,
		    const char *cmd);
/* Allocates an op for fn; refresh ops carry the current gen. */
struct ctl_op *ctl_op_new(struct dbg_ctl *c, ctl_op_fn fn, bool refresh);
/* Formats and sends a command for a new op (no fallback). */
int64_t ctl_sendf(struct dbg_ctl *c, ctl_op_fn fn, bool refresh,
		  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* malloc'd MI string literal of s (quotes added); NULL on ENOMEM. */
char *ctl_quote(const char *s);
/* Quotes an expression only when gdb would split it or read it as an
 * option. */
char *ctl_quote_expr(const char *s);
/* Quotes a location only when gdb would split it (spaces, quotes). */
char *ctl_quote_loc(const char *s);

/* Ends the allocation watch once its log is full (mi/alloc_watch.c):
 * deletes its dprintfs, the program running or not. */
void ctl_alloc_watch_budget(struct dbg_ctl *c);

/* Refresh pipeline (mi/ctl_refresh.c). */
void ctl_refresh_stop(struct dbg_ctl *c);      /* after *stopped */
void ctl_refresh_frames(struct dbg_ctl *c);    /* stack and below */
void ctl_refresh_frame_data(struct dbg_ctl *c);/* vars, watches, regs */
void ctl_refresh_threads(struct dbg_ctl *c);   /* focused block */
void ctl_refresh_wanted(struct dbg_ctl *c, unsigned want);
void ctl_fetch_watch(struct dbg_ctl *c, size_t i, bool refresh);

#endif
