/* The main loop.  Signal handlers only set flags and poke a self-pipe;
 * everything else happens here, between ppoll calls. */
#include "tui/loop.h"
#include "tui/keys.h"
#include "tui/script.h"
#include "cudbg/transcript.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_POLL 32
#define KEYS_PER_PASS 256
#define SPIN_MS 100
/* The longest a step in flight holds a redraw (ui->hold_draw). */
#define HOLD_MS 150

static volatile sig_atomic_t sig_winch, sig_chld, sig_quit, sig_tstp;
static int self_pipe[2] = { -1, -1 };
static struct sigaction old_fatal[NSIG];

static void poke(void)
{
	int e = errno;

	if (self_pipe[1] >= 0) {
		ssize_t r = write(self_pipe[1], "x", 1);
		(void)r; /* a full pipe already wakes the loop */
	}
	errno = e;
}

static void on_signal(int sig)
{
	switch (sig) {
	case SIGWINCH: sig_winch = 1; break;
	case SIGCHLD: sig_chld = 1; break;
	case SIGTSTP: sig_tstp = 1; break;
	default: sig_quit = sig; break; /* SIGTERM, SIGHUP, SIGINT ... */
	}
	poke();
}

static void on_ignored(int sig)
{
	/* SIGPIPE: a write to a dead debugger fails with EPIPE instead.
	 * SIGXFSZ: a write past `ulimit -f` (the recording) fails with
	 * EFBIG instead, and the recording stops with a message.  Caught,
	 * not ignored: a caught signal is reset for exec'd children, so the
	 * debugger and the program keep the defaults. */
	(void)sig;
}

static volatile pid_t crash_pgid, crash_pass_pgid, crash_program_pgid;

void loop_set_crash_pgid(pid_t pgid)
{
	crash_pgid = pgid;
}

void loop_set_crash_pass_pgid(pid_t pgid)
{
	crash_pass_pgid = pgid;
}

void loop_set_crash_program_pgid(pid_t pgid)
{
	crash_program_pgid = pgid;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	term_emergency_restore();
	/* The debugger runs in its own session, so nothing else would stop
	 * it: take its process group down with us. */
	if (crash_pgid > 1)
		kill(-crash_pgid, SIGKILL);
	if (crash_pass_pgid > 1)
		kill(-crash_pass_pgid, SIGKILL);
	/* The program's own group: a child of it that ignores the pty's
	 * hangup would outlive us. */
	if (crash_program_pgid > 1)
		kill(-crash_program_pgid, SIGKILL);
	sigaction(sig, &old_fatal[sig], NULL);
	/* A real fault (SEGV, BUS, FPE, ILL from the kernel) re-executes
	 * its instruction and meets the previous handler (or the default);
	 * any other signal (sent by kill() or abort(), a CPU limit, a
	 * breakpoint trap) is sent again. */
	bool fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE ||
		     sig == SIGILL;
	if (si->si_code <= 0 || !fault)
		raise(sig);
}

int loop_signals_init(void)
{
	/* Every signal whose default action ends the process is caught, so
	 * the terminal is restored whichever one comes: those that only
	 * terminate end the loop like SIGTERM; those that dump core (and
	 * may be real faults) go through the crash handler. */
	static const int soft[] = {
		SIGWINCH, SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGUSR1, SIGUSR2,
		SIGALRM, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT,
		SIGTSTP, /* kill -TSTP: suspended like C-z, terminal restored */
	};
	static const int fatal[] = {
		SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGQUIT, SIGTRAP,
		SIGSYS, SIGXCPU,
	};
	static const int ignored[] = { SIGPIPE, SIGXFSZ };
	struct sigaction sa;

	if (self_pipe[0] < 0) {
		if (pipe2(self_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
			return -1;
	}
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof soft / sizeof soft[0]; i++)
		sigaction(soft[i], &sa, NULL);
	/* Reading a --replay happens before the loop runs: it checks the
	 * flag itself. */
	transcript_set_cancel(&sig_quit);
	/* The real-time signals end the process by default too (those
	 * glibc keeps for itself lie below SIGRTMIN). */
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaction(sig, &sa, NULL);
	sa.sa_handler = on_ignored;
	for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
		sigaction(ignored[i], &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &sa, &old_fatal[fatal[i]]);
	return 0;
}

static void drain_self_pipe(void)
{
	char buf[64];

	while (self_pipe[0] >= 0 && read(self_pipe[0], buf, sizeof buf) > 0)
		;
}

static void loop_resize(struct loop *L)
{
	int cols, rows;

	L->be->size(L->be, &cols, &rows);
	ui_resize(L->ui, cols, rows);
}

static void loop_suspend(struct loop *L);

static void loop_keys(struct loop *L)
{
	for (int i = 0; i < KEYS_PER_PASS && !L->ui->quit; i++) {
		struct ui_mouse m = { 0, 0, 0 };
		int k = L->be->read_key(L->be, &m);
		if (k == TK_NONE)
			break;
		if (k == TK_RESIZE)
			loop_resize(L);
		else
			ui_key(L->ui, k, &m);
		if (L->ui->suspend) {
			L->ui->suspend = false;
			loop_suspend(L);
		}
	}
}

/* C-z or SIGTSTP: the terminal restored, then a real stop (SIGTSTP with
 * its default action: the shell's job control sees a stopped job); after
 * SIGCONT the screen comes back whole, at the terminal's size now.  The
 * debugger and the program run in sessions of their own and are not
 * stopped.  In an orphaned process group (no shell to resume us) the
 * kernel drops the stop and we simply go on. */
static void loop_suspend(struct loop *L)
{
	struct sigaction dfl, ours;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	if (L->be->suspend)
		L->be->suspend(L->be);
	fflush(stdout);
	sigaction(SIGTSTP, &dfl, &ours);
	kill(getpid(), SIGTSTP);
	/* here after SIGCONT */
	sigaction(SIGTSTP, &ours, NULL);
	if (L->be->resume)
		L->be->resume(L->be);
	loop_resize(L);
	L->ui->dirty = true;
}

static void loop_signals(struct loop *L)
{
	if (sig_tstp) {
		sig_tstp = 0;
		loop_suspend(L);
	}
	if (sig_winch) {
		sig_winch = 0;
		loop_resize(L);
	}
	if (sig_chld) {
		sig_chld = 0;
		if (L->src.child)
			L->src.child(L->src.ctx);
	}
}

static void loop_redraw(struct loop *L)
{
	struct ui *ui = L->ui;

	if (ui->busy) {
		/* The spinner moves with time, not with events. */
		double t = ui_elapsed(&ui->busy_since);
		unsigned spin = (unsigned)(t * 1000 / SPIN_MS);
		if (spin != ui->spin) {
			ui->spin = spin;
			ui->dirty = true;
		}
	}
	/* A step in flight draws once, at its stop; a slow one shows its
	 * spinner after HOLD_MS. */
	if (ui->dirty && ui->hold_draw && ui_elapsed(&ui->hold_since) * 1000 < HOLD_MS)
		return;
	if (ui->repaint) {
		L->be->repaint = true;
		ui->repaint = false;
		ui->dirty = true;
	}
	if (ui->dirty) {
		ui_draw(ui);
		L->be->flush(L->be, &ui->grid);
	}
}

static int min_timeout(int a, int b)
{
	if (a < 0)
		return b;
	if (b < 0)
		return a;
	return a < b ? a : b;
}

/* Polls once; timeout_ms -1 blocks until something happens. */
static void loop_wait(struct loop *L, int timeout_ms)
{
	struct pollfd pfd[MAX_POLL];
	int n = 0, src_at, nsrc = 0;
	struct timespec ts, *tsp = NULL;
	int kfd = L->be->key_fd(L->be);

	if (kfd >= 0)
		pfd[n++] = (struct pollfd){ kfd, POLLIN, 0 };
	if (self_pipe[0] >= 0)
		pfd[n++] = (struct pollfd){ self_pipe[0], POLLIN, 0 };
	src_at = n;
	if (L->src.fds)
		nsrc = L->src.fds(L->src.ctx, pfd + n, MAX_POLL - n);
	n += nsrc;
	if (timeout_ms >= 0) {
		ts.tv_sec = timeout_ms / 1000;
		ts.tv_nsec = (long)(timeout_ms % 1000) * 1000000L;
		tsp = &ts;
	}
	if (ppoll(pfd, (nfds_t)n, tsp, NULL) < 0 && errno != EINTR) {
		snprintf(L->error, sizeof L->error, "poll failed: %s", strerror(errno));
		L->ui->quit = true;
		return;
	}
	drain_self_pipe();
	/* The terminal hung up without a SIGHUP reaching us (it was not our
	 * controlling terminal, or we were not its foreground job): no key
	 * can come any more, and the poll would return at once for ever.
	 * End as SIGHUP ends. */
	if (kfd >= 0 && (pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)))
		sig_quit = SIGHUP;
	if (L->src.ready)
		L->src.ready(L->src.ctx, pfd + src_at, nsrc);
}

void loop_step(struct loop *L, int max_ms)
{
	int timeout = max_ms;

	loop_signals(L);
	loop_keys(L);
	loop_redraw(L);
	if (L->ui->busy)
		timeout = min_timeout(timeout, SPIN_MS);
	if (L->src.timeout_ms)
		timeout = min_timeout(timeout, L->src.timeout_ms(L->src.ctx));
	loop_wait(L, timeout);
	loop_keys(L);
	loop_redraw(L);
}

/* Runs the script's next steps; returns false when the loop must end. */
static bool loop_script(struct loop *L, int *status)
{
	enum script_status r = script_run(L->script, L);

	if (r == SCRIPT_FAIL) {
		char *d;
		ui_draw(L->ui);
		d = grid_dump(&L->ui->grid);
		snprintf(L->error, sizeof L->error, "%s", script_error(L->script));
		fprintf(stderr, "cudbg-tui: %s\n--- screen ---\n%s--- end ---\n",
			L->error, d ? d : "");
		free(d);
		*status = 1;
		return false;
	}
	if (r == SCRIPT_DONE)
		L->ui->quit = true;
	return true;
}

int loop_run(struct loop *L)
{
	int status = 0;

	loop_resize(L);
	for (;;) {
		int timeout = -1;
		if (sig_quit) {
			status = 128 + sig_quit;
			break;
		}
		loop_signals(L);
		loop_keys(L);
		if (L->script && !L->ui->quit && !loop_script(L, &status))
			break;
		if (L->ui->quit)
			break;
		loop_redraw(L);
		if (L->ui->busy)
			timeout = SPIN_MS;
		if (L->src.timeout_ms)
			timeout = min_timeout(timeout, L->src.timeout_ms(L->src.ctx));
		if (L->script)
			timeout = min_timeout(timeout, script_timeout_ms(L->script));
		loop_wait(L, timeout);
	}
	if (L->src.shutdown)
		L->src.shutdown(L->src.ctx);
	if (!status && L->ui->exit_code)
		status = L->ui->exit_code;
	return status;
}
