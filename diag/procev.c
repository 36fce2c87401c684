/* The kernel's process events over the netlink process connector
 * (include/cudbg/procev.h).  Facts used: a listener binds a
 * NETLINK_CONNECTOR socket to the group CN_IDX_PROC and sends
 * PROC_CN_MCAST_LISTEN; each event then comes as a netlink message
 * holding a cn_msg whose data is a struct proc_event.  An exit's
 * exit_code is the task's exit code, the same word wait() returns. */
#include "cudbg/procev.h"
#include "cudbg/job.h"
#include "diag/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* The listen request: a netlink header, the connector's header and the
 * operation, laid end to end as the connector reads them. */
static int send_listen(int fd)
{
	enum proc_cn_mcast_op op = PROC_CN_MCAST_LISTEN;
	union {
		struct nlmsghdr align;
		char b[NLMSG_HDRLEN + sizeof(struct cn_msg) + sizeof op];
	} m;
	memset(&m, 0, sizeof m);
	struct nlmsghdr nl = { .nlmsg_len = sizeof m.b,
			       .nlmsg_type = NLMSG_DONE,
			       .nlmsg_pid = (unsigned)getpid() };
	struct cn_msg cn;
	memset(&cn, 0, sizeof cn);
	cn.id.idx = CN_IDX_PROC;
	cn.id.val = CN_VAL_PROC;
	cn.len = sizeof op;
	memcpy(m.b, &nl, sizeof nl);
	memcpy(m.b + NLMSG_HDRLEN, &cn, sizeof cn);
	memcpy(m.b + NLMSG_HDRLEN + sizeof cn, &op, sizeof op);
	return send(fd, m.b, sizeof m.b, 0) == (ssize_t)sizeof m.b ? 0 : -1;
}

int procev_open(char *err, size_t cap)
{
	const char *off = getenv("CUDBG_NO_PROC_EVENTS");
	if (off && strcmp(off, "1") == 0) {
		snprintf(err, cap, "turned off by CUDBG_NO_PROC_EVENTS=1");
		return -1;
	}
	int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			NETLINK_CONNECTOR);
	if (fd < 0) {
		snprintf(err, cap, "no process connector: %s", strerror(errno));
		return -1;
	}
	/* room for every process of a busy machine between two reads (the
	 * live mode reads at stops only): events past a full buffer are
	 * lost.  SO_RCVBUF is capped by net.core.rmem_max (208 KiB, some
	 * 270 events); the capability listening needs lifts the cap. */
	int rcv = 16 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof rcv) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	struct sockaddr_nl a = { .nl_family = AF_NETLINK,
				 .nl_groups = CN_IDX_PROC };
	if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || send_listen(fd) < 0) {
		snprintf(err, cap, "%s", errno == EPERM || errno == EACCES
			 ? "they need CAP_NET_ADMIN (root)"
			 : strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

bool procev_is_fork_of(const struct procev *e, long pid, long parent)
{
	return e->kind == PROCEV_FORK && e->pid == pid && e->ppid == parent;
}

static int hand_out(const struct proc_event *ev, procev_fn fn, void *ctx)
{
	struct procev e = { 0 };
	switch (ev->what) {
	case PROC_EVENT_FORK:
		/* a thread is a fork whose child shares its parent's tgid */
		if (ev->event_data.fork.child_pid != ev->event_data.fork.child_tgid)
			return 0;
		e.kind = PROCEV_FORK;
		e.pid = ev->event_data.fork.child_tgid;
		e.ppid = ev->event_data.fork.parent_tgid;
		break;
	case PROC_EVENT_EXEC:
		e.kind = PROCEV_EXEC;
		e.pid = ev->event_data.exec.process_tgid;
		break;
	case PROC_EVENT_EXIT:
		/* every thread's: a process ends with its last thread, which
		 * need not be its leader (a main() that called pthread_exit
		 * ends with status 0 while its threads run on) */
		e.kind = PROCEV_EXIT;
		e.pid = ev->event_data.exit.process_tgid;
		e.ppid = ev->event_data.exit.parent_tgid;
		e.status = (int)ev->event_data.exit.exit_code;
		break;
	default:
		return 0;
	}
	if (e.pid <= 0)
		return 0;
	e.ns = ev->timestamp_ns;
	fn(ctx, &e);
	return 1;
}

int procev_parse(const void *buf, size_t len, procev_fn fn, void *ctx)
{
	int count = 0;
	const char *at = buf, *end = at + len;
	while ((size_t)(end - at) >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr h;
		memcpy(&h, at, sizeof h);
		if (h.nlmsg_len < sizeof h || h.nlmsg_len > (size_t)(end - at))
			break;
		size_t body = h.nlmsg_len - NLMSG_HDRLEN;
		const char *data = at + NLMSG_HDRLEN;
		struct cn_msg cn;
		if (h.nlmsg_len >= NLMSG_HDRLEN && body >= sizeof cn) {
			memcpy(&cn, data, sizeof cn);
			struct proc_event ev;
			if (cn.id.idx == CN_IDX_PROC && cn.id.val == CN_VAL_PROC &&
			    cn.len >= sizeof ev && body - sizeof cn >= sizeof ev) {
				memcpy(&ev, data + sizeof cn, sizeof ev);
				count += hand_out(&ev, fn, ctx);
			}
		}
		size_t step = NLMSG_ALIGN(h.nlmsg_len);
		if (step > (size_t)(end - at))
			break;
		at += step;
	}
	return count;
}

int procev_drain(int fd, procev_fn fn, void *ctx)
{
	int count = 0;
	for (;;) {
		/* aligned as netlink messages are */
		union { struct nlmsghdr h; char b[8192]; } buf;
		ssize_t n = recv(fd, buf.b, sizeof buf.b, 0);
		if (n > 0) {
			count += procev_parse(buf.b, (size_t)n, fn, ctx);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOBUFS)
			continue; /* some were lost; the rest are still good */
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return count;
		return -1;
	}
}

/* ---- a live session's descendants ---- */

#define CHILD_MAX 512

struct child {
	long pid;
	char *cmd; /* NULL: not read */
};

struct child_events {
	int fd;
	long root;   /* the program whose descendants are followed */
	long debugger;  /* its debugger, whose fork of it proves root */
	bool root_seen; /* that fork was heard */
	struct child kids[CHILD_MAX];
	size_t n;
	/* while reading: */
	const char *root_cmd;
	child_death_fn fn;
	void *ctx;
	bool probe_seen;
	long probe;
};

/* (the last entry takes its place) */
static void drop_kid(struct child_events *ce, struct child *k)
{
	free(k->cmd);
	*k = ce->kids[--ce->n];
}

static struct child *find_kid(struct child_events *ce, long pid)
{
	for (size_t i = 0; i < ce->n; i++)
		if (ce->kids[i].pid == pid)
			return &ce->kids[i];
	return NULL;
}

static void on_child_event(void *ctx, const struct procev *e)
{
	struct child_events *ce = ctx;
	if (!ce->probe_seen) {
		ce->probe_seen = procev_is_fork_of(e, ce->probe, (long)getpid());
		return;
	}
	if (ce->root <= 0)
		return;
	if (!ce->root_seen) {
		ce->root_seen = procev_is_fork_of(e, ce->root, ce->debugger);
		return;
	}
	struct child *k = find_kid(ce, e->pid);
	switch (e->kind) {
	case PROCEV_FORK: {
		if (k) /* its pid taken again: that one ended unseen */
			drop_kid(ce, k);
		/* (after the drop, which may have moved it) */
		const struct child *parent = find_kid(ce, e->ppid);
		if ((e->ppid != ce->root && !parent) || ce->n == CHILD_MAX)
			return;
		/* a fork runs its parent's program until it execs */
		const char *cmd = e->ppid == ce->root ? ce->root_cmd
			: parent->cmd;
		ce->kids[ce->n++] = (struct child){
			.pid = e->pid, .cmd = cmd ? strdup(cmd) : NULL };
		break;
	}
	case PROCEV_EXEC:
		if (k) {
			free(k->cmd);
			k->cmd = job_read_cmdline(k->pid);
		}
		break;
	case PROCEV_EXIT:
		/* a death by a signal ends the whole process: said once (a
		 * later fork of the same pid is another process, below) */
		if (k && WIFSIGNALED(e->status)) {
			ce->fn(ce->ctx, k->pid, WTERMSIG(e->status),
			       k->cmd ? k->cmd : "");
			drop_kid(ce, k);
		}
		break;
	}
}

static void no_death(void *ctx, long pid, int sig, const char *cmd)
{
	(void)ctx, (void)pid, (void)sig, (void)cmd;
}

struct child_events *child_events_open(char *err, size_t cap)
{
	int fd = procev_open(err, cap);
	if (fd < 0)
		return NULL;
	struct child_events *ce = calloc(1, sizeof *ce);
	if (!ce) {
		close(fd);
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	ce->fd = fd;
	ce->fn = no_death;
	/* a fork of our own, heard with our pids before any other event is
	 * trusted (on_child_event): else the pids are another namespace's
	 * and nothing they say can be put on our processes.  Not waited
	 * for: it is in the queue long before the program's first fork. */
	/* (spawned, not forked: a fork of ours would carry a copy of our
	 * memory to its exit, which valgrind calls leaked) */
	pid_t probe;
	char name[] = "true";
	char *const argv[] = { name, NULL };
	char *const envp[] = { NULL };
	int rc = posix_spawn(&probe, "/bin/true", NULL, NULL, argv, envp);
	if (rc != 0) {
		snprintf(err, cap, "cannot start /bin/true: %s", strerror(rc));
		child_events_free(ce);
		return NULL;
	}
	ce->probe = probe;
	waitpid(probe, NULL, 0);
	return ce;
}

void child_events_read(struct child_events *ce, long root, long debugger,
		       const char *root_cmd, child_death_fn fn, void *ctx)
{
	/* (nothing drained before the program is known: its fork, still
	 * queued, is what proves it) */
	if (!ce || ce->fd < 0 || root <= 0 || debugger <= 0)
		return;
	if (root != ce->root) { /* a new run: another program */
		for (size_t i = 0; i < ce->n; i++)
			free(ce->kids[i].cmd);
		ce->n = 0;
		ce->root = root;
		ce->debugger = debugger;
		ce->root_seen = false;
	}
	ce->root_cmd = root_cmd;
	ce->fn = fn;
	ce->ctx = ctx;
	if (procev_drain(ce->fd, on_child_event, ce) < 0) {
		close(ce->fd);
		ce->fd = -1;
	}
	ce->fn = no_death;
	ce->root_cmd = NULL;
}

void child_events_free(struct child_events *ce)
{
	if (!ce)
		return;
	if (ce->fd >= 0)
		close(ce->fd);
	for (size_t i = 0; i < ce->n; i++)
		free(ce->kids[i].cmd);
	free(ce);
}
