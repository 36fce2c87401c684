/* The end of a session: noticing the debugger is gone, the exit event,
 * session_free(), no orphans. */
#include "cudbg/base.h"
#include "cudbg/session.h"
#include "cudbg/transcript.h"
#include "mi/session_int.h"
#include "mi/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds a debugger may live on after closing its stdout. */
#define EOF_GRACE 2.0
/* Seconds session_free() waits for -gdb-exit. */
#define EXIT_GRACE 1.5

/* Kills what is left of the debugger's process group.  Only while the
 * debugger is unreaped: its pid (the group id) cannot be reused then. */
static void kill_group(struct session *s)
{
	if (s->child.pid > 1 && !s->reaped)
		kill(-s->child.pid, SIGKILL);
}

/* True when the child has exited (it stays a zombie: WNOWAIT). */
static bool child_exited(struct session *s)
{
	if (s->child.pid <= 0 || s->reaped)
		return true;
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (waitid(P_PID, (id_t)s->child.pid, &si,
		   WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;
	return si.si_pid == s->child.pid;
}

static void reap(struct session *s)
{
	if (s->child.pid <= 0 || s->reaped)
		return;
	int st = 0;
	pid_t r;
	while ((r = waitpid(s->child.pid, &st, 0)) < 0 && errno == EINTR)
		;
	s->reaped = true;
	s->wstatus = r == s->child.pid ? st : 0;
}

/* A program launched by the debugger lives in a session of its own (gdb
 * gives it the pty as controlling terminal), so the group kill misses
 * it; gdb kills it on -gdb-exit, but not when gdb itself was killed.
 * Only the program session_note_program() checked to be the debugger's
 * descendant, and only while it is still that process (its start time):
 * never a bare number from the debugger. */
static void kill_orphan_program(struct session *s)
{
	s->inferior_pid = 0;
	if (s->backend != SESSION_LAUNCH || s->program_pid <= 1)
		return;
	if (proc_is_same(s->program_pid, s->program_start))
		kill(s->program_pid, SIGKILL);
}

void session_note_program(struct session *s, pid_t pid)
{
	struct proc_info pi;
	if (!proc_read(pid, &pi))
		return; /* gone already: nothing of it to end */
	s->program_pid = pid;
	s->program_start = pi.start;
}

/* The program's whole session: gdb kills only the program itself, so a
 * child of it that ignores SIGHUP (the pty's hangup) survived "Quit, and
 * kill it?" and SIGTERM, reparented to init.  gdb starts the program as
 * the leader of a session of its own (its pid is the session id, checked
 * with gdb 13), on our pty; the session id outlives the program in its
 * children.  Every process in that session goes, unless the pid was
 * taken by another process since (its start time differs) or the
 * program shares our session (then it is not a session of its own).
 * Linux: read from /proc. */
static void kill_program_session(struct session *s)
{
	pid_t sid = s->program_pid;
	struct proc_info pi;
	s->program_pid = 0;
	if (s->backend != SESSION_LAUNCH || sid <= 1 || sid == getsid(0))
		return;
	if (proc_read(sid, &pi) &&
	    (pi.start != s->program_start || pi.sid != sid))
		return; /* a reused pid, or no session of its own */
	DIR *d = opendir("/proc");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		pid_t pid;
		if (proc_parse_pid(e->d_name, &pid) && proc_read(pid, &pi) &&
		    pi.sid == sid && pid != getpid())
			kill(pid, SIGKILL);
	}
	closedir(d);
}

/* One line naming the cause and what to do about it. */
static void exit_reason(struct session *s, char *buf, size_t cap)
{
	char last[sizeof s->last_stderr];
	text_ascii_copy(last, sizeof last, s->last_stderr, SIZE_MAX);
	size_t ll = strlen(last);
	if (ll && last[ll - 1] == '.') /* a sentence of ours follows */
		last[ll - 1] = '\0';
	int st = s->wstatus;
	if (s->not_mi) {
		snprintf(buf, cap, "'%s' does not speak GDB/MI (its first line "
			 "was '%s'); is it a debugger? Point --debugger at "
			 "cuda-gdb or gdb", s->path, s->first_line);
	} else if (s->timed_out) {
		snprintf(buf, cap, "no answer from %s within %.0f s; is it a "
			 "debugger? Point --debugger at cuda-gdb or gdb",
			 s->name, s->start_timeout);
	} else if (s->stalled[0]) {
		snprintf(buf, cap, "%s stopped answering%s: no answer to '%s' "
			 "within %.0f s, so it was ended; start cudbg-tui "
			 "again (--timeout S waits longer)", s->name,
			 s->stalled_ready ? "" : " while starting", s->stalled,
			 s->start_timeout);
	} else if (s->backend == SESSION_REPLAY && WIFEXITED(st) &&
		   WEXITSTATUS(st) == REPLAY_EXIT_NO_STOP) {
		snprintf(buf, cap, "%s: the recording ends before the program "
			 "stopped (it was cut while the program ran); nothing "
			 "more to replay", s->path);
	} else if (WIFSIGNALED(st)) {
		const char *cmd = s->npend ? s->pend[0].command : NULL;
		snprintf(buf, cap, "%s was killed by signal %d (%s)%s%s%s; the "
			 "program went with it: start cudbg-tui again",
			 s->name, WTERMSIG(st), strsignal(WTERMSIG(st)),
			 cmd ? " while '" : "", cmd ? cmd : "", cmd ? "' was "
			 "in flight" : "");
	} else if (!s->answered) {
		/* gdb before 9 has no mi3 and says so on stderr. */
		snprintf(buf, cap, "%s exited with status %d before answering"
			 "%s%s; cudbg-tui needs GDB/MI 3 (cuda-gdb, or gdb 9 or "
			 "newer): check --debugger", s->name, WEXITSTATUS(st),
			 last[0] ? ": " : "", last);
	} else if (WEXITSTATUS(st) != 0) {
		snprintf(buf, cap, "%s exited with status %d%s%s; start "
			 "cudbg-tui again", s->name, WEXITSTATUS(st),
			 last[0] ? ": " : "", last);
	} else {
		snprintf(buf, cap, "%s exited", s->name);
	}
}

/* Everything that was read is delivered; now the end. */
static void report_gone(struct session *s)
{
	char why[600];
	exit_reason(s, why, sizeof why);
	session_flush_side_lines(s);
	session_note(s, "%s", why);
	s->gone_reported = true;
	session_fail_pending(s, why);
	struct session_exit ex = {
		.exited = WIFEXITED(s->wstatus),
		.status = WIFEXITED(s->wstatus) ? WEXITSTATUS(s->wstatus) : 0,
		.signaled = WIFSIGNALED(s->wstatus),
		.sig = WIFSIGNALED(s->wstatus) ? WTERMSIG(s->wstatus) : 0,
		.reason = why,
	};
	if (s->h.on_exit && !s->closing)
		s->h.on_exit(s->h.ctx, &ex);
}

/* The debugger has exited: finish reading, reap, report. */
static void finish(struct session *s)
{
	kill_group(s); /* helpers it left behind */
	reap(s);
	/* What it wrote before dying is in the pipes: deliver it first.
	 * Nothing can write any more, so this ends. */
	session_read_stdout(s, (size_t)1 << 30);
	session_read_stderr(s, (size_t)1 << 30);
	/* and what the program wrote last: a replay that ends mid-run had
	 * just written its last program line (lost under valgrind's pace) */
	session_drain_program_tail(s);
	s->gone = true;
	kill_orphan_program(s);
	report_gone(s);
}

/* Every command is bounded, not only the first answer: a debugger that
 * answered the start, or stopped the program, and then went quiet
 * (answering nothing to -stack-list-frames) was waited for forever in
 * batch mode.  The clock runs from the command's sending or from the
 * last bytes the debugger wrote, whichever is later, so a slow but
 * working command (symbols of a big program, a table streamed for
 * seconds) is not cut.  Commands the user typed in the console are
 * theirs to wait for or interrupt (SESSION_UNBOUNDED). */
static bool request_stalled(struct session *s, double now)
{
	if (s->stalled[0])
		return true;
	if (!s->answered || s->npend == 0 ||
	    (s->pend[0].flags & SESSION_UNBOUNDED))
		return false;
	const struct pending *p = &s->pend[0];
	double since = p->sent > s->last_heard_at ? p->sent : s->last_heard_at;
	if (now - since < s->start_timeout)
		return false;
	s->stalled_ready = s->ready;
	text_ascii_copy(s->stalled, sizeof s->stalled,
		  p->command ? p->command : "?", SIZE_MAX);
	return true;
}

bool session_give_up(struct session *s)
{
	if (s->gone || s->npend == 0 ||
	    (s->pend[0].flags & SESSION_UNBOUNDED))
		return false;
	if (!s->stalled[0]) { /* else our own check found it first */
		s->stalled_ready = s->ready;
		text_ascii_copy(s->stalled, sizeof s->stalled,
			  s->pend[0].command ? s->pend[0].command : "?", SIZE_MAX);
		kill_group(s); /* the next check reaps it and reports */
	}
	return true;
}

void session_check_child(struct session *s)
{
	if (s->gone) {
		if (!s->gone_reported)
			report_gone(s);
		return;
	}
	if (child_exited(s)) {
		finish(s);
		return;
	}
	double now = session_elapsed(s);
	bool too_slow = !s->answered && now >= s->start_timeout;
	bool lingering = s->out_eof_at > 0 && now - s->out_eof_at > EOF_GRACE;
	s->timed_out |= too_slow && s->out_eof_at == 0;
	if (s->not_mi || too_slow || lingering || request_stalled(s, now))
		kill_group(s); /* the next check reaps it */
}

void session_not_mi(struct session *s)
{
	s->not_mi = true;
	kill_group(s);
}

/* ---- session_free ------------------------------------------------------- */

/* Lets the debugger exit on its own for a moment after -gdb-exit. */
static void wait_exit(struct session *s, double grace)
{
	double until = session_elapsed(s) + grace;
	while (!s->gone && session_elapsed(s) < until) {
		struct pollfd fds[SESSION_MAX_POLLFDS];
		int n = session_pollfds(s, fds, SESSION_MAX_POLLFDS);
		int ms = (int)((until - session_elapsed(s)) * 1000) + 1;
		if (ms > 20)
			ms = 20;
		if (poll(fds, (nfds_t)n, ms) < 0 && errno != EINTR)
			break;
		session_handle(s, fds, n);
	}
}

static void free_strings(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void session_free(struct session *s)
{
	if (!s)
		return;
	s->closing = true;
	if (!s->gone && s->child.pid > 0) {
		session_send(s, NULL, NULL, "-gdb-exit");
		wait_exit(s, EXIT_GRACE);
	}
	if (!s->gone) {
		kill_group(s);
		reap(s);
		s->gone = true;
	}
	kill_orphan_program(s);
	kill_program_session(s);
	session_fail_pending(s, "the session was closed");
	session_flush_side_lines(s);
	spawn_close(&s->child);
	if (s->pty_master >= 0)
		close(s->pty_master);
	if (s->pty_slave >= 0)
		close(s->pty_slave);
	transcript_writer_close(s->rec);
	free(s->rec_path);
	mi_parser_free(s->parser);
	free(s->ob);
	free(s->pend);
	free(s->capture.buf);
	free(s->errline.buf);
	free(s->ttyline.buf);
	free(s->path);
	free(s->replay_run);
	spawn_argv_free(s->launch_argv);
	free(s->syms_first);
	free(s->syms_late);
	for (size_t i = 0; i < sizeof s->syms_late_by_mask / sizeof *s->syms_late_by_mask; i++)
		free(s->syms_late_by_mask[i]);
	free(s->symbol_cache);
	for (size_t i = 0; i < s->nlean; i++)
		free(s->syms_lean[i]);
	free(s->syms_lean);
	free(s->noted_pystack);
	free(s->replay_user_frames);
	transcript_free(s->replay_t);
	free_strings(s->replay_start, s->nreplay_start);
	free_strings(s->replay_env, s->nreplay_env);
	free(s);
}
