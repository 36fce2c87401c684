/* The session against real GNU gdb on the C programs in tests/progs:
 * breakpoint, run, next, step, finish, locals, program output through
 * the pty, exit code, interrupt, attach, CPU core, and the ways a
 * debugger can fail (killed mid-command, missing, not executable, not a
 * debugger, exiting at start). */
#include "cudbg/base.h"
#include "cudbg/session.h"
#include "tests/harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct ev {
	struct session *s;
	char out[65536];        /* program output */
	size_t out_len;
	char stop[8192];        /* the last *stopped, as MI text */
	bool ready;
	int ready_status;
	char ready_msg[512];
	bool exited;
	char exit_reason[600];
	bool replied;
	enum session_reply_kind kind;
	char reply[8192];       /* the last reply, as MI text or msg */
	char stderr_text[4096];
};

static void copy_text(char *dst, size_t cap, const char *s, size_t len)
{
	size_t k = len < cap - 1 ? len : cap - 1;
	memcpy(dst, s, k);
	dst[k] = 0;
}

static void on_record(void *ctx, const struct mi_record *rec)
{
	struct ev *e = ctx;
	if (rec->kind == MI_REC_EXEC && strcmp(rec->klass, "stopped") == 0) {
		size_t len;
		char *t = session_format_record(rec, &len);
		if (t)
			copy_text(e->stop, sizeof e->stop, t, len);
		free(t);
	}
}

static void on_output(void *ctx, const char *buf, size_t len)
{
	struct ev *e = ctx;
	size_t room = sizeof e->out - 1 - e->out_len;
	if (len > room)
		len = room;
	memcpy(e->out + e->out_len, buf, len);
	e->out_len += len;
	e->out[e->out_len] = 0;
}

static void on_stderr(void *ctx, const char *line, size_t len)
{
	struct ev *e = ctx;
	size_t have = strlen(e->stderr_text);
	if (have + len + 2 < sizeof e->stderr_text) {
		memcpy(e->stderr_text + have, line, len);
		e->stderr_text[have + len] = '\n';
		e->stderr_text[have + len + 1] = 0;
	}
}

static void on_ready(void *ctx, int status, const char *msg)
{
	struct ev *e = ctx;
	e->ready = true;
	e->ready_status = status;
	if (msg)
		copy_text(e->ready_msg, sizeof e->ready_msg, msg, strlen(msg));
}

static void on_exit_ev(void *ctx, const struct session_exit *ex)
{
	struct ev *e = ctx;
	CHECK(!e->exited); /* exactly once */
	e->exited = true;
	copy_text(e->exit_reason, sizeof e->exit_reason, ex->reason,
		  strlen(ex->reason));
}

static void on_reply(void *ctx, const struct session_reply *r)
{
	struct ev *e = ctx;
	e->replied = true;
	e->kind = r->kind;
	char *t = r->rec ? session_format_record(r->rec, NULL) : NULL;
	const char *src = t ? t : r->msg ? r->msg : "";
	copy_text(e->reply, sizeof e->reply, src, strlen(src));
	free(t);
}

static const struct session_handlers handlers = {
	.on_record = on_record, .on_output = on_output,
	.on_stderr = on_stderr, .on_ready = on_ready, .on_exit = on_exit_ev,
};

static bool have_gdb(void)
{
	return system("command -v gdb >/dev/null 2>&1") == 0;
}

static const char *prog(const char *name)
{
	static char path[2][4096];
	static int which;
	const char *b = getenv("CUDBG_BUILD");
	char *p = path[which++ & 1];
	snprintf(p, 4096, "%s/progs/%s", b ? b : "build", name);
	if (access(p, X_OK) != 0)
		test_skip("%s not built", p);
	return p;
}

static void start(struct ev *e, struct session_config *cfg)
{
	if (!have_gdb())
		test_skip("gdb not installed");
	struct session_handlers h = handlers;
	h.ctx = e;
	if (!cfg->debugger)
		cfg->debugger = "gdb";
	char err[512];
	e->s = session_new(cfg, &h, err, sizeof err, NULL);
	CHECK_MSG(e->s != NULL, "session_new: %s", err);
}

static bool pred_ready(void *ctx)
{
	struct ev *e = ctx;
	return e->ready || e->exited;
}

static bool pred_replied(void *ctx)
{
	return ((struct ev *)ctx)->replied;
}

static void wait_ready(struct ev *e)
{
	CHECK_INT(session_run_until(e->s, pred_ready, e, 20000), 1);
	CHECK_MSG(e->ready, "no ready; exit: %s", e->exit_reason);
}

struct stopw {
	struct ev *e;
	unsigned stops;
};

static bool pred_stopped(void *ctx)
{
	struct stopw *w = ctx;
	return session_stop_count(w->e->s) > w->stops || w->e->exited;
}

/* Sends a command and waits for its reply (and for the stop after
 * ^running).  Returns the reply kind. */
__attribute__((format(printf, 2, 3)))
static enum session_reply_kind cmd(struct ev *e, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	struct stopw w = { e, session_stop_count(e->s) };
	e->replied = false;
	CHECK(session_send(e->s, on_reply, e, "%s", buf) > 0);
	CHECK_MSG(session_run_until(e->s, pred_replied, e, 20000) == 1,
		  "no reply to %s", buf);
	if (e->kind == SESSION_REPLY_RUNNING)
		CHECK_MSG(session_run_until(e->s, pred_stopped, &w, 20000) == 1,
			  "no stop after %s", buf);
	return e->kind;
}

static void run_to_stop(struct ev *e)
{
	struct stopw w = { e, session_stop_count(e->s) };
	e->replied = false;
	CHECK(session_run(e->s, on_reply, e) > 0);
	CHECK(session_run_until(e->s, pred_replied, e, 20000) == 1);
	CHECK_MSG(e->kind == SESSION_REPLY_RUNNING, "run: %s", e->reply);
	CHECK(session_run_until(e->s, pred_stopped, &w, 20000) == 1);
}

#define CHECK_HAS(hay, needle) \
	CHECK_MSG(strstr((hay), (needle)) != NULL, "'%s' not in: %.600s", \
		  (needle), (hay))

/* A process that is gone or a zombie (nobody may reap it in a
 * container) counts as dead. */
static bool proc_alive(pid_t pid)
{
	struct proc_info pi;
	return proc_read(pid, &pi) && pi.state != 'Z' && pi.state != 'X';
}

static bool wait_dead(pid_t pid, int ms)
{
	for (int i = 0; i < ms / 10; i++) {
		if (!proc_alive(pid))
			return true;
		usleep(10000);
	}
	return !proc_alive(pid);
}

TEST_TIMEOUT(break_run_next_step_finish_locals, 60)
{
	struct ev e = { 0 };
	char *argv[] = { (char *)(uintptr_t)prog("steps"), (char *)(uintptr_t)"one",
			 NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv };
	start(&e, &cfg);
	wait_ready(&e);
	CHECK_INT(e.ready_status, 0);
	const struct session_caps *c = session_caps(e.s);
	CHECK(c->probed && !c->is_cuda_gdb && !c->has_cuda_tables);
	CHECK(c->gdb_major >= 10);
	CHECK(session_needs_run(e.s));

	CHECK_INT(cmd(&e, "-break-insert square"), SESSION_REPLY_DONE);
	CHECK_HAS(e.reply, "bkpt={number=\"1\"");
	run_to_stop(&e);
	CHECK_HAS(e.stop, "reason=\"breakpoint-hit\"");
	CHECK_HAS(e.stop, "func=\"square\"");
	CHECK_HAS(e.stop, "line=\"7\"");

	CHECK_INT(cmd(&e, "-exec-next"), SESSION_REPLY_RUNNING);
	CHECK_HAS(e.stop, "reason=\"end-stepping-range\"");
	CHECK_HAS(e.stop, "line=\"8\"");
	CHECK_INT(cmd(&e, "-stack-list-locals --all-values"),
		  SESSION_REPLY_DONE);
	CHECK_HAS(e.reply, "{name=\"y\",value=\"9\"}");

	CHECK_INT(cmd(&e, "-exec-finish"), SESSION_REPLY_RUNNING);
	CHECK_HAS(e.stop, "reason=\"function-finished\"");
	CHECK_HAS(e.stop, "return-value=\"9\"");
	CHECK_HAS(e.stop, "func=\"main\"");

	CHECK_INT(cmd(&e, "-exec-next"), SESSION_REPLY_RUNNING);
	CHECK_INT(cmd(&e, "-exec-step"), SESSION_REPLY_RUNNING);
	CHECK_HAS(e.stop, "func=\"square\"");
	CHECK_HAS(e.stop, "{name=\"x\",value=\"4\"}");

	CHECK_INT(cmd(&e, "-exec-continue"), SESSION_REPLY_RUNNING);
	CHECK_HAS(e.stop, "reason=\"exited\"");
	CHECK_HAS(e.stop, "exit-code=\"07\"");
	/* The program's output came through its own pty. */
	CHECK_HAS(e.out, "arg1=[one]");
	CHECK_HAS(e.out, "hello from steps");
	CHECK_HAS(e.out, "total=25");
	CHECK(!e.exited);

	pid_t dbg = session_debugger_pid(e.s);
	session_free(e.s);
	CHECK(!proc_alive(dbg));
}

TEST(errors_reach_the_continuation)
{
	struct ev e = { 0 };
	char *argv[] = { (char *)(uintptr_t)prog("steps"), NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv };
	start(&e, &cfg);
	wait_ready(&e);
	CHECK_INT(cmd(&e, "-exec-finish"), SESSION_REPLY_ERROR);
	CHECK_HAS(e.reply, "The program is not being run.");
	CHECK_INT(cmd(&e, "-no-such-command"), SESSION_REPLY_ERROR);
	/* A newline would smuggle a second command in. */
	CHECK_INT(session_send(e.s, NULL, NULL, "-gdb-version\n-gdb-exit"),
		  SESSION_EINVAL);
	session_free(e.s);
}

static void capture_reply(void *ctx, const struct session_reply *r)
{
	char *dst = ctx;
	copy_text(dst, 256, r->console, r->console_len);
}

TEST(capture_hands_console_text_to_the_command)
{
	struct ev e = { 0 };
	char *argv[] = { (char *)(uintptr_t)prog("steps"), NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv };
	start(&e, &cfg);
	wait_ready(&e);
	char got[256] = "unset";
	CHECK(session_send_flags(e.s, SESSION_CAPTURE, capture_reply, got,
				 "-interpreter-exec console \"echo hi there\\n\"")
	      > 0);
	while (strcmp(got, "unset") == 0)
		CHECK(session_run_until(e.s, NULL, NULL, 100) != SESSION_EGONE);
	CHECK_STR(got, "hi there\n");
	session_free(e.s);
}

TEST_TIMEOUT(interrupt_a_running_program, 60)
{
	struct ev e = { 0 };
	char *argv[] = { (char *)(uintptr_t)prog("sleeper"), NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv };
	start(&e, &cfg);
	wait_ready(&e);
	e.replied = false;
	CHECK(session_run(e.s, on_reply, &e) > 0);
	CHECK(session_run_until(e.s, pred_replied, &e, 20000) == 1);
	CHECK(session_target_running(e.s));
	while (!strstr(e.out, "sleeper "))
		CHECK(session_run_until(e.s, NULL, NULL, 50) != SESSION_EGONE);
	struct stopw w = { &e, session_stop_count(e.s) };
	CHECK(session_interrupt(e.s, NULL, NULL) > 0);
	CHECK(session_run_until(e.s, pred_stopped, &w, 20000) == 1);
	CHECK(!session_target_running(e.s));
	CHECK_HAS(e.stop, "signal-received");
	/* Closing kills the program gdb started. */
	int pid = atoi(strstr(e.out, "sleeper ") + 8);
	CHECK(pid > 0 && proc_alive(pid));
	session_free(e.s);
	CHECK_MSG(wait_dead(pid, 3000), "program %d outlived the session", pid);
}

static bool pred_exited(void *ctx)
{
	return ((struct ev *)ctx)->exited;
}

static void late_reply(void *ctx, const struct session_reply *r)
{
	struct ev *e = ctx;
	e->replied = true;
	e->kind = r->kind;
	copy_text(e->reply, sizeof e->reply, r->msg ? r->msg : "",
		  r->msg ? strlen(r->msg) : 0);
}

TEST_TIMEOUT(debugger_killed_mid_command_gives_an_exit_event, 60)
{
	struct ev e = { 0 };
	char *argv[] = { (char *)(uintptr_t)prog("sleeper"), NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv };
	start(&e, &cfg);
	wait_ready(&e);
	CHECK(session_run(e.s, NULL, NULL) > 0);
	while (!strstr(e.out, "sleeper "))
		CHECK(session_run_until(e.s, NULL, NULL, 50) != SESSION_EGONE);
	int prog_pid = atoi(strstr(e.out, "sleeper ") + 8);
	/* gdb is busy in `shell sleep 30` when it is killed. */
	e.replied = false;
	CHECK(session_send(e.s, late_reply, &e, "-interpreter-exec console "
			   "\"shell sleep 30\"") > 0);
	CHECK(session_run_until(e.s, NULL, NULL, 300) == SESSION_ETIMEOUT);
	CHECK_INT(session_pending(e.s), 1);
	time_t t0 = time(NULL);
	CHECK(kill(session_debugger_pid(e.s), SIGKILL) == 0);
	CHECK_INT(session_run_until(e.s, pred_exited, &e, 10000), 1);
	CHECK(time(NULL) - t0 < 8);
	CHECK_HAS(e.exit_reason, "killed by signal 9");
	CHECK_HAS(e.exit_reason, "shell sleep 30");
	CHECK(e.replied && e.kind == SESSION_REPLY_GONE);
	CHECK(!session_alive(e.s));
	CHECK_INT(session_send(e.s, NULL, NULL, "-gdb-version"), SESSION_EGONE);
	CHECK_INT(session_run_until(e.s, NULL, NULL, 100), SESSION_EGONE);
	session_free(e.s);
	CHECK_MSG(wait_dead(prog_pid, 3000), "program %d outlived gdb",
		  prog_pid);
}

static void expect_new_fails(struct session_config *cfg, const char *part)
{
	struct ev e = { 0 };
	struct session_handlers h = handlers;
	h.ctx = &e;
	char err[512] = "";
	int code = 0;
	struct session *s = session_new(cfg, &h, err, sizeof err, &code);
	CHECK_MSG(s == NULL, "session_new succeeded, want '%s'", part);
	CHECK(code < 0);
	CHECK_HAS(err, part);
	CHECK(strchr(err, '\n') == NULL);
}

TEST(missing_or_unusable_debugger_is_a_clear_error)
{
	char *argv[] = { (char *)(uintptr_t)prog("steps"), NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv };
	cfg.debugger = "/nonexistent/dir/gdb";
	expect_new_fails(&cfg, "debugger '/nonexistent/dir/gdb' not found");
	cfg.debugger = "no-such-debugger-zz";
	expect_new_fails(&cfg, "not found in PATH");
	char tmp[] = "/tmp/cudbg-notexec-XXXXXX";
	int fd = mkstemp(tmp);
	CHECK(fd >= 0);
	close(fd);
	cfg.debugger = tmp;
	expect_new_fails(&cfg, "is not an executable file");
	unlink(tmp);
	/* No --debugger: cuda-gdb only, never a silent fallback to gdb. */
	cfg.debugger = NULL;
	setenv("PATH", "/nonexistent", 1);
	setenv("CUDA_HOME", "/nonexistent/cuda", 1);
	expect_new_fails(&cfg, "cuda-gdb not found in PATH or $CUDA_HOME/bin");
}

TEST(missing_program_is_a_clear_error)
{
	if (!have_gdb())
		test_skip("gdb not installed");
	char *argv[] = { (char *)(uintptr_t)"/nonexistent/prog", NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv, .debugger = "gdb" };
	expect_new_fails(&cfg, "program '/nonexistent/prog' not found");
	/* a script given without its interpreter: the line to run instead */
	char py[] = "/tmp/cudbg-script-XXXXXX.py";
	int fd = mkstemps(py, 3);
	CHECK(fd >= 0);
	close(fd);
	argv[0] = py;
	expect_new_fails(&cfg, "is not executable: run it with its "
			 "interpreter (cudbg-tui python3 /tmp/cudbg-script-");
	unlink(py);
	/* a script whose #! interpreter is not there: named, never gdb's
	 * "No executable file specified" */
	char sh[] = "/tmp/cudbg-script-XXXXXX.sh";
	fd = mkstemps(sh, 3);
	CHECK(fd >= 0);
	static const char bang[] = "#!/nonexistent/interp -x\necho hi\n";
	CHECK(write(fd, bang, sizeof bang - 1) == (ssize_t)(sizeof bang - 1));
	fchmod(fd, 0755);
	close(fd);
	argv[0] = sh;
	expect_new_fails(&cfg, "names the interpreter '/nonexistent/interp' "
			 "in its #! line, and that is not an executable file: "
			 "fix the line, or put an interpreter before it (bash "
			 "/tmp/cudbg-script-");
	unlink(sh);
	/* an executable binary that is not ELF: ours, not gdb's words */
	char other[] = "/tmp/cudbg-binary-XXXXXX";
	fd = mkstemp(other);
	CHECK(fd >= 0);
	static const char blob[] = "\0\1\2 not a program";
	CHECK(write(fd, blob, sizeof blob) == (ssize_t)sizeof blob);
	fchmod(fd, 0755);
	close(fd);
	argv[0] = other;
	expect_new_fails(&cfg, "is neither an ELF executable nor a script, "
			 "and the debugger loads only those: give the command "
			 "that starts it");
	unlink(other);
	argv[0] = (char *)(uintptr_t)"/tmp";
	expect_new_fails(&cfg, "program '/tmp' is a directory");
	struct session_config core = { .backend = SESSION_CORE,
				       .core = "/nonexistent/core",
				       .debugger = "gdb" };
	expect_new_fails(&core, "cannot read coredump '/nonexistent/core'");
}

static void expect_exit(const char *debugger, const char *part)
{
	struct ev e = { 0 };
	char *argv[] = { (char *)(uintptr_t)prog("steps"), NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv, .debugger = debugger,
				      .start_timeout_ms = 3000 };
	struct session_handlers h = handlers;
	h.ctx = &e;
	char err[512];
	e.s = session_new(&cfg, &h, err, sizeof err, NULL);
	CHECK_MSG(e.s != NULL, "%s", err);
	CHECK_INT(session_run_until(e.s, pred_exited, &e, 10000), 1);
	CHECK(!e.ready);
	CHECK_HAS(e.exit_reason, part);
	session_free(e.s);
}

static void write_script(char *path, const char *body)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	CHECK(fd >= 0);
	CHECK(write(fd, body, strlen(body)) == (ssize_t)strlen(body));
	close(fd);
	chmod(path, 0755);
}

TEST_TIMEOUT(a_program_that_is_not_a_debugger, 40)
{
	/* cat refuses gdb's options. */
	expect_exit("/bin/cat", "cat exited with status 1 before answering: "
		    "Try '/bin/cat --help'");
	/* true exits at once. */
	expect_exit("/bin/true", "true exited with status 0 before answering");
	char script[] = "/tmp/cudbg-fakedbg-XXXXXX";
	int fd = mkstemp(script);
	CHECK(fd >= 0);
	close(fd);
	/* Exits at start with a complaint (bad arguments, old version). */
	write_script(script, "#!/bin/sh\necho 'unsupported option --nx' >&2\n"
		     "exit 3\n");
	expect_exit(script, "exited with status 3 before answering: "
		    "unsupported option --nx");
	/* Talks, but not MI. */
	write_script(script, "#!/bin/sh\necho 'Welcome!'\nexec cat\n");
	expect_exit(script, "does not speak GDB/MI (its first line was "
		    "'Welcome!')");
	/* Never answers: the start timeout ends it. */
	write_script(script, "#!/bin/sh\nexec sleep 30\n");
	char name[64];
	snprintf(name, sizeof name, "no answer from %s within 3 s",
		 strrchr(script, '/') + 1);
	expect_exit(script, name);
	unlink(script);
}

TEST_TIMEOUT(attach_to_a_running_process, 60)
{
	const char *path = prog("sleeper");
	if (!have_gdb())
		test_skip("gdb not installed");
	pid_t pid = fork();
	if (pid == 0) {
		int nul = open("/dev/null", O_WRONLY);
		dup2(nul, 1);
		execl(path, path, (char *)NULL);
		_exit(127);
	}
	CHECK(pid > 0);
	usleep(100000);
	struct ev e = { 0 };
	struct session_config cfg = { .backend = SESSION_ATTACH, .pid = pid };
	start(&e, &cfg);
	struct stopw w = { &e, 0 };
	wait_ready(&e);
	if (e.ready_status != 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		test_skip("attach refused here: %s", e.ready_msg);
	}
	CHECK(session_run_until(e.s, pred_stopped, &w, 20000) == 1);
	CHECK(!session_needs_run(e.s));
	CHECK_INT(cmd(&e, "-stack-list-frames"), SESSION_REPLY_DONE);
	CHECK_HAS(e.reply, "func=\"main\"");
	session_free(e.s);
	/* -gdb-exit detaches: the process lives on. */
	CHECK(proc_alive(pid));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST_TIMEOUT(attach_failure_reaches_on_ready, 60)
{
	struct ev e = { 0 };
	struct session_config cfg = { .backend = SESSION_ATTACH, .pid = 1 };
	if (getuid() == 0)
		test_skip("root may attach to pid 1");
	start(&e, &cfg);
	wait_ready(&e);
	CHECK(e.ready_status < 0);
	CHECK_HAS(e.ready_msg, "-target-attach 1");
	session_free(e.s);
}

TEST_TIMEOUT(cpu_core_opens_with_target_core, 90)
{
	struct ev e = { 0 };
	const char *path = prog("steps");
	char *argv[] = { (char *)(uintptr_t)path, NULL };
	struct session_config cfg = { .backend = SESSION_LAUNCH,
				      .argv = argv };
	start(&e, &cfg);
	wait_ready(&e);
	CHECK_INT(cmd(&e, "-break-insert square"), SESSION_REPLY_DONE);
	run_to_stop(&e);
	char core[] = "/tmp/cudbg-core-XXXXXX";
	int fd = mkstemp(core);
	CHECK(fd >= 0);
	close(fd);
	CHECK_INT(cmd(&e, "-interpreter-exec console \"gcore %s\"", core),
		  SESSION_REPLY_DONE);
	session_free(e.s);

	struct ev c = { 0 };
	struct session_config cc = { .backend = SESSION_CORE, .core = core,
				     .argv = argv };
	start(&c, &cc);
	wait_ready(&c);
	CHECK_MSG(c.ready_status == 0, "core: %s", c.ready_msg);
	CHECK(!session_needs_run(c.s));
	CHECK_INT(cmd(&c, "-stack-list-frames"), SESSION_REPLY_DONE);
	CHECK_HAS(c.reply, "func=\"square\"");
	session_free(c.s);
	unlink(core);
}
