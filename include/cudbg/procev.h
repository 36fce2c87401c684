/* The kernel's process events (the netlink process connector): every
 * fork, exec and exit on the machine, each exit with its wait status.
 * --job uses them to see the end of a process whose parent reaped it
 * with no death reporter loaded (a static binary, a cleared LD_PRELOAD)
 * or by the raw system call (docs/multiprocess.md).
 *
 * Code: diag/procev.c.
 *
 * Listening needs CAP_NET_ADMIN (root, as in most containers); without
 * it procev_open() fails with a reason and the job runs as before.  Pids
 * are the kernel's (the initial pid namespace): in a pid namespace of
 * its own the frontend sees other numbers, so it refuses there too.
 *
 * Error convention (diag/): -1 with a one-line reason in err.  No
 * allocation: the events are handed to the callback, which owns nothing
 * of them past its return.
 */
#ifndef CUDBG_PROCEV_H
#define CUDBG_PROCEV_H

#include <stdbool.h>
#include <stddef.h>

enum procev_kind {
	PROCEV_FORK, /* pid is a new process (not a thread); ppid forked it */
	PROCEV_EXEC, /* pid exec'd: its command line changed */
	PROCEV_EXIT, /* a thread of process pid ended, with status: the
		      * process's end is its last thread's (a group exit
		      * gives every thread the same status) */
};

struct procev {
	enum procev_kind kind;
	long pid;
	long ppid;  /* FORK: the parent; EXIT: the parent, 0 if not given */
	int status; /* EXIT: as wait() gives it (WIFSIGNALED, WTERMSIG...) */
	unsigned long long ns; /* when, CLOCK_MONOTONIC in ns */
};

typedef void (*procev_fn)(void *ctx, const struct procev *e);

/* Whether e is PARENT's fork of PID: the proof, heard, that the events'
 * pids are ours (a process we know we started). */
bool procev_is_fork_of(const struct procev *e, long pid, long parent);

/* A listening socket, non-blocking and close-on-exec, or -1 (err says
 * why: no permission, no connector, another pid namespace).  The
 * environment variable CUDBG_NO_PROC_EVENTS=1 refuses it on purpose (the
 * tests of the path without it). */
int procev_open(char *err, size_t cap);

/* Reads every event queued on fd now and hands each to fn; returns the
 * count, or -1 when the socket failed (events were lost when the
 * socket's buffer overflowed: the count goes on from there). */
int procev_drain(int fd, procev_fn fn, void *ctx);

/* The events in one datagram of netlink messages; anything short or
 * malformed is skipped.  Returns the count.  (Apart for the fuzzer.) */
int procev_parse(const void *buf, size_t len, procev_fn fn, void *ctx);

/* ---- a live session's descendants (diag/procev.c) ----
 *
 * The default live mode's other way to see a child's death (beside the
 * death reporter's files): every process descended from the program,
 * and the signal each died of.  child_events_open() listens and forks
 * once itself: no event is trusted before that fork's is heard with our
 * pids (in another pid namespace it never is, and nothing is claimed);
 * NULL when it cannot listen (why in err).  Open it before the program
 * starts.  child_events_read() hands out, once each, every
 * descendant of ROOT (the program's pid, as its debugger announced it:
 * trusted once ROOT's own fork is heard from DEBUGGER, the debugger's
 * pid, which starts it) that ended by a signal since
 * the last read, with its command line: ROOT_CMD for a fork that did not
 * exec, what /proc held after an exec, "" when it ended first.  The
 * caller owns the struct (child_events_free). */
struct child_events;

typedef void (*child_death_fn)(void *ctx, long pid, int sig, const char *cmd);

struct child_events *child_events_open(char *err, size_t cap);
void child_events_read(struct child_events *ce, long root, long debugger,
		       const char *root_cmd, child_death_fn fn, void *ctx);
void child_events_free(struct child_events *ce);

#endif
