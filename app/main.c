/* cudbg-tui entry point: options, then the screen, batch mode, or the
 * developer's --mi-log mode. */
#include "cudbg/base.h"
#include "cudbg/batch.h"
#include "cudbg/config.h"
#include "cudbg/dap.h"
#include "cudbg/memcheck.h"
#include "cudbg/options.h"
#include "cudbg/session.h"
#include "cudbg/transcript.h"
#include "cudbg/tui.h"
#include "tui/demo.h"
#include "app/job_main.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- --mi-log: the session as sanitised lines ------------------------ */

struct milog {
	struct session *s;
	struct dbuf tline;    /* partial program output line */
	bool ready;
	int ready_status;
	bool replied;         /* the last command we sent was answered */
	enum session_reply_kind last_kind;
};

/* Text from the debugger or the program never reaches the terminal raw:
 * one line each, through base's terminal escaper (docs/text-safety.md). */
static void put_line(const char *tag, const char *s, size_t len)
{
	text_write_line_n(stdout, tag, s, len);
	fflush(stdout);
}

static void log_record(void *ctx, const struct mi_record *rec)
{
	(void)ctx;
	size_t len;
	char *text = session_format_record(rec, &len);
	if (text)
		put_line("< ", text, len);
	free(text);
}

static void log_output(void *ctx, const char *buf, size_t len)
{
	struct milog *m = ctx;
	for (size_t i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			dbuf_putc(&m->tline, buf[i]);
			continue;
		}
		size_t n = m->tline.len;
		if (n && m->tline.s[n - 1] == '\r')
			n--;
		put_line("T ", m->tline.s ? m->tline.s : "", n);
		m->tline.len = 0;
	}
}

static void log_stderr(void *ctx, const char *line, size_t len)
{
	(void)ctx;
	put_line("E ", line, len);
}

static void log_ready(void *ctx, int status, const char *msg)
{
	struct milog *m = ctx;
	m->ready = true;
	m->ready_status = status;
	const struct session_caps *c = session_caps(m->s);
	printf("ready status=%d cuda-gdb=%d gdb=%d.%d cuda=%d.%d tables=%d "
	       "python=%d async=%d\n", status, c->is_cuda_gdb, c->gdb_major,
	       c->gdb_minor, c->cuda_major, c->cuda_minor, c->has_cuda_tables,
	       c->has_python, c->async);
	if (msg)
		put_line("ready-error ", msg, strlen(msg));
	fflush(stdout);
}

static void log_exit(void *ctx, const struct session_exit *ex)
{
	(void)ctx;
	put_line("exit ", ex->reason, strlen(ex->reason));
}

static const char *kind_name(enum session_reply_kind k)
{
	static const char *const names[] = { "done", "running", "connected",
					     "error", "exit", "gone" };
	return k <= SESSION_REPLY_GONE ? names[k] : "?";
}

static void log_reply(void *ctx, const struct session_reply *r)
{
	struct milog *m = ctx;
	m->replied = true;
	m->last_kind = r->kind;
	char head[64];
	snprintf(head, sizeof head, "reply %s ", kind_name(r->kind));
	size_t len = 0;
	char *text = r->rec ? session_format_record(r->rec, &len) : NULL;
	if (text)
		put_line(head, text, len);
	else
		put_line(head, r->msg ? r->msg : "", r->msg ? strlen(r->msg) : 0);
	free(text);
}

static bool is_ready(void *ctx)
{
	return ((struct milog *)ctx)->ready;
}

static bool is_replied(void *ctx)
{
	return ((struct milog *)ctx)->replied;
}

struct stop_wait {
	struct session *s;
	unsigned stops;
};

static bool has_stopped(void *ctx)
{
	struct stop_wait *w = ctx;
	return session_stop_count(w->s) > w->stops;
}

/* Sends one command and waits for its answer; after ^running, for the
 * next stop too. */
static int log_command(struct milog *m, const char *cmd, int timeout_ms)
{
	struct stop_wait w = { m->s, session_stop_count(m->s) };
	m->replied = false;
	int64_t tok = session_send(m->s, log_reply, m, "%s", cmd);
	if (tok < 0) {
		printf("send-error %s\n", session_error(m->s));
		return -1;
	}
	if (session_run_until(m->s, is_replied, m, timeout_ms) != 1)
		return -1;
	if (m->last_kind == SESSION_REPLY_RUNNING &&
	    session_run_until(m->s, has_stopped, &w, timeout_ms) != 1)
		return -1;
	return 0;
}

static int log_first_stop(struct milog *m, int timeout_ms)
{
	struct stop_wait w = { m->s, 0 };
	if (session_replay_of(m->s) == SESSION_CORE)
		return 0; /* a core is stopped once it is open */
	if (session_needs_run(m->s)) {
		w.stops = session_stop_count(m->s);
		m->replied = false;
		if (session_run(m->s, log_reply, m) < 0)
			return -1;
	}
	return session_run_until(m->s, has_stopped, &w, timeout_ms) == 1 ? 0
									  : -1;
}

static int mi_log_main(const struct cudbg_options *o)
{
	struct milog m = { 0 };
	struct session_config cfg;
	options_session_config(o, &cfg);
	struct session_handlers h = {
		.ctx = &m, .on_record = log_record, .on_output = log_output,
		.on_stderr = log_stderr, .on_ready = log_ready,
		.on_exit = log_exit,
	};
	char err[600];
	m.s = session_new(&cfg, &h, err, sizeof err, NULL);
	if (!m.s) {
		text_write_line(stderr, "cudbg-tui: ", err);
		return 2;
	}
	int ms = (o->timeout_s ? o->timeout_s : 60) * 1000;
	int rc = session_run_until(m.s, is_ready, &m, ms) == 1 ? 0 : -1;
	for (size_t i = 0; rc == 0 && i < o->nmi_exec; i++)
		rc = log_command(&m, o->mi_exec[i], ms);
	if (rc == 0 && o->nmi_exec == 0)
		rc = log_first_stop(&m, ms);
	if (rc != 0 && session_alive(m.s))
		printf("timeout after %d s\n", ms / 1000);
	/* Records that trail the last answer (a replay sends them at once,
	 * gdb a moment later): print them before closing. */
	if (rc == 0)
		session_run_until(m.s, NULL, NULL, 300);
	bool alive = session_alive(m.s);
	session_free(m.s);
	if (m.tline.len)
		put_line("T ", m.tline.s, m.tline.len);
	dbuf_free(&m.tline);
	printf("end\n");
	return rc == 0 && alive ? 0 : 1;
}

/* CUDBG_REPLAY_MAX_MB: the largest recording (decompressed) a replay
 * reads; the default (4096) keeps a runaway .gz from filling the disk
 * (its private copy) and the index from outgrowing memory. */
static int replay_limit(void)
{
	const char *v = getenv("CUDBG_REPLAY_MAX_MB");
	if (!v || !*v)
		return 0;
	char *end;
	errno = 0;
	unsigned long long mb = strtoull(v, &end, 10);
	if (errno || *end || mb == 0 || *v == '-' || mb > ((size_t)-1 >> 20)) {
		fprintf(stderr, "cudbg-tui: CUDBG_REPLAY_MAX_MB='%.40s' is not "
			"a size in MB (a whole number, e.g. 2048)\n", v);
		return -1;
	}
	transcript_set_max_bytes((size_t)mb << 20);
	return 0;
}

/* CUDBG_PASS_CORE_WAIT: refused at start, not read as 2 s in silence
 * (the pass reads it through diag_memcheck_core_wait). */
static int core_wait_check(void)
{
	const char *v = getenv("CUDBG_PASS_CORE_WAIT");
	double wait;
	if (diag_memcheck_core_wait_parse(v, &wait) == 0)
		return 0;
	fprintf(stderr, "cudbg-tui: CUDBG_PASS_CORE_WAIT='%.40s' is not "
		"a number of seconds (e.g. 5) or \"never\"\n", v);
	return -1;
}

/* ---- dispatch ---------------------------------------------------------- */

/* The screen (include/cudbg/tui.h). */
static int run_screen(const struct cudbg_options *o)
{
	/* CUDBG_TEST_SCRIPT drives the screen headless (tests/screens). */
	const char *script = getenv("CUDBG_TEST_SCRIPT");
	if (o->backend == SESSION_NONE && !o->demo && o->sanitizer_report) {
		/* The screen shows a session; a report alone has none. */
		char line[PATH_MAX + 256];
		snprintf(line, sizeof line, "%s without a program: add --batch "
			 "to print the report's diagnosis, or give the program "
			 "after it to open the fault in the screen",
			 o->sanitizer_report);
		text_write_line(stderr, "cudbg-tui: --sanitizer-report ", line);
		return 2;
	}
	if ((!script || !*script) && (!isatty(0) || !isatty(1))) {
		if (o->demo) {
			fputs("cudbg-tui: the demo needs a terminal on stdin "
			      "and stdout; without one, 'cudbg-tui --demo "
			      "--batch NAME' prints a demo's report (NAME:",
			      stderr);
			for (size_t i = 0; i < demo_count(); i++)
				fprintf(stderr, "%s %s", i ? "," : "",
					demo_get(i)->name);
			fputs(")\n", stderr);
		} else
			fputs("cudbg-tui: the screen needs a terminal on stdin "
			      "and stdout; use --batch for a report without "
			      "one\n", stderr);
		return 2;
	}
	return tui_main(o);
}

/* No arguments: the demo on a machine without a GPU (a newcomer's first
 * run), the usage where there is one. */
static bool no_arguments(int argc, char **argv, char ***demo_argv)
{
	static char *words[3];
	if (argc != 1)
		return false;
	if (demo_gpu_present()) {
		fputs(options_usage(), stderr);
		return true;
	}
	fputs("cudbg-tui: no GPU or cuda-gdb on this machine: starting the "
	      "demo of recorded sessions (cudbg-tui --help for the options)\n",
	      stderr);
	words[0] = argv[0];
	words[1] = (char *)(uintptr_t)"--demo";
	words[2] = NULL;
	*demo_argv = words;
	return true;
}

/* The config file: the memcheck default and source directories join the
 * options; key bindings and colours go to the screen through o->config. */
static int load_config(struct cudbg_options *o, struct cudbg_config *cfg)
{
	char path[4096], err[1024];
	const char *p = config_default_path(path, sizeof path);
	/* The default place under a $HOME we may not search (a shared
	 * account, a sandbox) holds no config we could use: none, not an
	 * error that stops the program.  A file that is there but
	 * unreadable, or a path named by $CUDBG_CONFIG, is still one. */
	struct stat sb;
	if (p && !getenv("CUDBG_CONFIG") && lstat(p, &sb) < 0 &&
	    errno == EACCES)
		p = NULL;
	if (config_load(cfg, p, err, sizeof err) < 0) {
		text_write_line(stderr, "cudbg-tui: ", err);
		return -1;
	}
	if (config_apply(cfg, o) < 0) {
		fprintf(stderr, "cudbg-tui: out of memory\n");
		return -1;
	}
	return 0;
}

/* A standard descriptor the caller closed (`<&-`, `2>&-`) would be the
 * number the next open() gets: the replay's transcript, a pipe to the
 * debugger or the sanitizer's report would land on 0, 1 or 2 and then be
 * overwritten by a child's dup2() onto its standard descriptors (a
 * replay read its own commands instead of the recording: "not in this
 * recording: -exec-run").  Each closed one is /dev/null instead, before
 * anything else is opened. */
static void keep_standard_fds_open(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		int n = open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
		if (n >= 0 && n != fd) { /* cannot happen: fd was the lowest */
			dup2(n, fd);
			close(n);
		}
	}
}

int main(int argc, char **argv)
{
	keep_standard_fds_open();
	struct cudbg_options o;
	struct cudbg_config cfg;
	char err[512];
	char **demo_argv = NULL;
	if (no_arguments(argc, argv, &demo_argv)) {
		if (!demo_argv)
			return 2;
		argc = 2;
		argv = demo_argv;
	}
	if (options_parse(&o, argc, argv, err, sizeof err)) {
		text_write_line(stderr, "cudbg-tui: ", err);
		return 2;
	}
	memset(&cfg, 0, sizeof cfg);
	int rc;
	if (o.help) {
		fputs(options_usage(), stdout);
		rc = 0;
	} else if (o.version) {
		printf("cudbg-tui %s\n", CUDBG_VERSION);
		rc = 0;
	} else if (load_config(&o, &cfg) < 0 || replay_limit() < 0 ||
		   core_wait_check() < 0) {
		rc = 2;
	} else if (o.dap) {
		rc = dap_main(&o);
	} else if (o.mi_log) {
		rc = mi_log_main(&o);
	} else if (o.job || o.core_dir) {
		rc = job_main(&o);
	} else if (o.demo && o.batch) {
		rc = demo_batch(&o);
	} else if (o.batch) {
		rc = batch_main(&o);
	} else {
		rc = run_screen(&o);
	}
	options_free(&o);
	config_free(&cfg);
	return rc;
}
