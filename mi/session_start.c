/* Starting a session: checks, the debugger or the fake, the start
 * sequence of probes and settings, the backend's first command. */
#include "cudbg/base.h"
#include "cudbg/model.h"
#include "cudbg/session.h"
#include "cudbg/transcript.h"
#include "mi/session_int.h"
#include "mi/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- capabilities ------------------------------------------------------- */

/* "X.Y" at s, if it starts with a digit. */
static bool parse_xy(const char *s, int *major, int *minor)
{
	int a, b;
	if (!(*s >= '0' && *s <= '9') || sscanf(s, "%d.%d", &a, &b) != 2)
		return false;
	*major = a;
	*minor = b;
	return true;
}

/* The version of a "... GNU gdb ... 13.1" line: its last word that
 * starts with a digit ("GNU gdb (Debian 13.1-3) 13.1", "Based on GNU gdb
 * 14.2" in cuda-gdb 13.0). */
static void parse_gdb_line(struct session_caps *c, const char *line,
			   size_t len)
{
	char buf[200];
	text_ascii_copy(buf, sizeof buf, line, len);
	char *last = NULL;
	for (char *w = strtok(buf, " "); w; w = strtok(NULL, " "))
		if (*w >= '0' && *w <= '9')
			last = w;
	if (last)
		parse_xy(last, &c->gdb_major, &c->gdb_minor);
}

static void parse_version(struct session *s, const char *text, size_t len)
{
	struct session_caps *c = &s->caps;
	const char *nl = memchr(text, '\n', len);
	text_ascii_copy(c->version, sizeof c->version, text,
		       nl ? (size_t)(nl - text) : len);
	const char *p = text, *end = text + len;
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *cg = memmem(p, ll, "cuda-gdb ", 9);
		if (!cg)
			cg = memmem(p, ll, "CUDA-GDB ", 9);
		if (cg) {
			c->is_cuda_gdb = true;
			char tmp[32];
			text_ascii_copy(tmp, sizeof tmp, cg + 9,
				       (size_t)(p + ll - cg - 9));
			parse_xy(tmp, &c->cuda_major, &c->cuda_minor);
		}
		if (memmem(p, ll, "GNU gdb", 7))
			parse_gdb_line(c, p, ll);
		p += ll + 1;
	}
}

/* ---- start sequence continuations --------------------------------------- */

static void start_step_done(struct session *s, const struct session_reply *r)
{
	if (r->kind == SESSION_REPLY_GONE)
		return;
	s->answered = true;
	if (--s->start_left > 0 || s->ready)
		return;
	s->ready = true;
	if (s->h.on_ready && !s->closing)
		s->h.on_ready(s->h.ctx, s->ready_status,
			      s->ready_status ? s->ready_msg : NULL);
}

static void on_version(void *ctx, const struct session_reply *r)
{
	struct session *s = ctx;
	if (r->kind == SESSION_REPLY_DONE) {
		parse_version(s, r->console, r->console_len);
	} else if (r->kind == SESSION_REPLY_ERROR &&
		   s->backend == SESSION_REPLAY) {
		/* Most fixtures never asked: judge by what they hold. */
		s->caps.is_cuda_gdb = s->replay_cuda;
		snprintf(s->caps.version, sizeof s->caps.version,
			 "unknown (the recording has no -gdb-version)");
	}
	start_step_done(s, r);
}

static void on_features(void *ctx, const struct session_reply *r)
{
	struct session *s = ctx;
	if (r->kind == SESSION_REPLY_DONE) {
		const struct mi_node *n = mi_find_children(r->rec->results,
							   "features");
		for (; n; n = n->next)
			if (n->kind == MI_NODE_STRING &&
			    strcmp(n->str, "python") == 0)
				s->caps.has_python = true;
	}
	start_step_done(s, r);
}

static void on_mi_command(void *ctx, const struct session_reply *r)
{
	struct session *s = ctx;
	if (r->kind == SESSION_REPLY_DONE) {
		const struct mi_node *c = mi_find_children(r->rec->results,
							   "command");
		const char *ex = c ? mi_find_str(c, "exists") : NULL;
		s->caps.has_cuda_tables = ex && strcmp(ex, "true") == 0;
	} else if (r->kind == SESSION_REPLY_ERROR) {
		/* A replay that never asked, or a gdb without the probe:
		 * cuda-gdb 13 has the tables. */
		s->caps.has_cuda_tables = s->caps.is_cuda_gdb;
	}
	if (r->kind != SESSION_REPLY_GONE)
		s->caps.probed = true;
	start_step_done(s, r);
}

static void on_async(void *ctx, const struct session_reply *r)
{
	struct session *s = ctx;
	s->caps.async = r->kind == SESSION_REPLY_DONE;
	start_step_done(s, r);
}

static void on_setting(void *ctx, const struct session_reply *r)
{
	start_step_done(ctx, r);
}

static void on_backend(void *ctx, const struct session_reply *r)
{
	struct session *s = ctx;
	if (r->kind == SESSION_REPLY_ERROR && s->ready_status == 0) {
		s->ready_status = -1;
		char msg[300];
		text_ascii_copy(msg, sizeof msg, r->msg, strlen(r->msg));
		if (s->gpu_core && !s->caps.is_cuda_gdb)
			snprintf(s->ready_msg, sizeof s->ready_msg, "this looks "
				 "like a GPU coredump and needs cuda-gdb (%s "
				 "is not): %s", s->name, msg);
		else
			snprintf(s->ready_msg, sizeof s->ready_msg, "'%s' "
				 "failed: %s", r->command, msg);
	}
	start_step_done(s, r);
}

__attribute__((format(printf, 3, 4)))
static void start_cmd(struct session *s, session_reply_fn fn,
		      const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	unsigned flags = fn == on_version ? SESSION_CAPTURE : 0;
	if (session_sendv(s, flags, fn, s, fmt, ap) > 0)
		s->start_left++;
	va_end(ap);
}

/* ---- backend commands -------------------------------------------------- */

static char *quoted(const char *text)
{
	size_t len = strlen(text);
	size_t need = mi_quote(NULL, 0, text, len) + 1;
	char *q = malloc(need);
	if (q)
		mi_quote(q, need, text, len);
	return q;
}

/* GPU coredumps are opened with `target cudacore`; a CPU core is an ELF
 * file of type ET_CORE for a host machine.  (EM_CUDA, 190, is what a
 * GPU ELF names; the coredump format itself is not documented, so
 * anything that is not a host ELF core counts as a GPU one.) */
static bool is_gpu_core(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	ssize_t n = read(fd, h, sizeof h);
	close(fd);
	if (n < (ssize_t)sizeof h || memcmp(h, "\177ELF", 4) != 0)
		return true;
	unsigned type = h[5] == 2 ? (unsigned)(h[16] << 8 | h[17])
				  : (unsigned)(h[17] << 8 | h[16]);
	unsigned mach = h[5] == 2 ? (unsigned)(h[18] << 8 | h[19])
				  : (unsigned)(h[19] << 8 | h[18]);
	return !(type == 4 && mach != 190);
}

/* A directory, a device or an empty file is no coredump: refused here,
 * before the debugger is asked and its refusal is blamed on the
 * debugger ("needs cuda-gdb").  The content of a regular file is left to
 * the debugger (the GPU coredump format is not documented).  Returns 0
 * or SESSION_ENOTFOUND with a message naming the file. */
static int check_core_file(const char *path, char *err, size_t cap)
{
	struct stat st;
	if (stat(path, &st) < 0 || (S_ISREG(st.st_mode) &&
				    access(path, R_OK) < 0)) {
		snprintf(err, cap, "cannot read coredump '%s': %s", path,
			 strerror(errno));
		return SESSION_ENOTFOUND;
	}
	if (S_ISDIR(st.st_mode))
		snprintf(err, cap, "coredump '%s' is a directory; give the "
			 "core file itself", path);
	else if (!S_ISREG(st.st_mode))
		snprintf(err, cap, "coredump '%s' is not a core file (not a "
			 "regular file)", path);
	else if (st.st_size == 0)
		snprintf(err, cap, "coredump '%s' is not a core file (it is "
			 "empty)", path);
	else
		return 0;
	return SESSION_ENOTFOUND;
}

static void send_file(struct session *s, const struct session_config *cfg)
{
	if (!cfg->argv || !cfg->argv[0])
		return;
	/* a script's interpreter (start_child): gdb loads no script */
	char *q = quoted(s->launch_argv ? s->launch_argv[0] : cfg->argv[0]);
	if (q)
		start_cmd(s, on_backend, "-file-exec-and-symbols %s", q);
	free(q);
}

/* The command that opens a coredump: gdb's own `-target-select core` for
 * a host ELF core, `target cudacore` through the console for a GPU one.
 * malloc'd (without a token); NULL when out of memory. */
static char *core_command(const char *core, bool gpu)
{
	char *console = NULL, *cmd = NULL;
	/* -target-select passes its words on unparsed, so a quoted path
	 * keeps its quotes; a path with blanks goes through the console
	 * command. */
	if (!gpu && !strpbrk(core, " \t\"\\")) {
		if (asprintf(&cmd, "-target-select core %s", core) < 0)
			return NULL;
		return cmd;
	}
	if (asprintf(&console, "%s %s", gpu ? "target cudacore" : "core-file",
		     core) < 0)
		return NULL;
	char *q = quoted(console);
	free(console);
	if (q && asprintf(&cmd, "-interpreter-exec console %s", q) < 0)
		cmd = NULL;
	free(q);
	return cmd;
}

static void send_backend(struct session *s, const struct session_config *cfg)
{
	switch (s->backend) {
	case SESSION_ATTACH:
		send_file(s, cfg);
		start_cmd(s, on_backend, "-target-attach %ld", cfg->pid);
		break;
	case SESSION_REMOTE:
		send_file(s, cfg);
		start_cmd(s, on_backend, "-target-select remote %s",
			  cfg->remote);
		break;
	case SESSION_CORE: {
		send_file(s, cfg);
		s->gpu_core = is_gpu_core(cfg->core);
		char *cmd = core_command(cfg->core, s->gpu_core);
		if (cmd)
			start_cmd(s, on_backend, "%s", cmd);
		free(cmd);
		break;
	}
	case SESSION_REPLAY:
		for (size_t i = 0; i < s->nreplay_start; i++)
			start_cmd(s, on_backend, "%s", s->replay_start[i]);
		break;
	default:
		break;
	}
}

/* ---- a coredump opened later (session_open_core) ----------------------- */

struct core_open {
	struct session *s;
	session_reply_fn fn;
	void *ctx;
};

static void on_core_opened(void *ctx, const struct session_reply *r)
{
	struct core_open *o = ctx;
	struct session *s = o->s;
	struct session_reply rr = *r;
	char msg[700];
	if (r->kind == SESSION_REPLY_ERROR) {
		/* Refused: still a launch that has not run. */
		s->backend = SESSION_LAUNCH;
		s->inferior_pid = 0;
		char why[300];
		text_ascii_copy(why, sizeof why, r->msg ? r->msg : "error",
			       strlen(r->msg ? r->msg : "error"));
		if (s->gpu_core && !s->caps.is_cuda_gdb)
			snprintf(msg, sizeof msg, "this looks like a GPU "
				 "coredump and needs cuda-gdb (%s is not): %s",
				 s->name, why);
		else
			snprintf(msg, sizeof msg, "'%s' failed: %s",
				 r->command ? r->command : "open the core", why);
		session_set_error(s, "%s", msg);
		rr.msg = msg;
	}
	if (o->fn)
		o->fn(o->ctx, &rr);
	free(o);
}

int64_t session_open_core(struct session *s, const char *core,
			  session_reply_fn fn, void *ctx)
{
	if (s->gone)
		return SESSION_EGONE;
	if (s->backend != SESSION_LAUNCH || !s->ready || s->running ||
	    s->inferior_pid > 0) {
		session_set_error(s, "a coredump can be opened only in a "
				  "launch session that is ready and has no "
				  "program running");
		return SESSION_EINVAL;
	}
	char why[600];
	if (!core || check_core_file(core, why, sizeof why)) {
		session_set_error(s, "%s", core ? why : "no coredump given");
		return SESSION_ENOTFOUND;
	}
	bool gpu = is_gpu_core(core);
	char *cmd = core_command(core, gpu);
	struct core_open *o = cmd ? malloc(sizeof *o) : NULL;
	if (!o) {
		free(cmd);
		return SESSION_ENOMEM;
	}
	*o = (struct core_open){ s, fn, ctx };
	/* From now on this is a core: nothing runs, and the pid a core
	 * names (=thread-group-started) is not a program of ours to kill
	 * at the end. */
	s->backend = SESSION_CORE;
	s->gpu_core = gpu;
	int64_t tok = session_send(s, on_core_opened, o, "%s", cmd);
	free(cmd);
	if (tok < 0) {
		s->backend = SESSION_LAUNCH;
		free(o);
	}
	return tok;
}

static void send_alloc_watch(struct session *s)
{
	for (size_t i = 0; i < alloc_watch_api_count(); i++) {
		char *cmd = alloc_watch_command(i);
		if (cmd)
			start_cmd(s, on_setting, "%s", cmd);
		free(cmd);
	}
}

static void send_start(struct session *s, const struct session_config *cfg)
{
	if (s->pty_master >= 0)
		start_cmd(s, on_setting, "-inferior-tty-set %s", s->tty);
	start_cmd(s, on_version, "-gdb-version");
	start_cmd(s, on_features, "-list-features");
	start_cmd(s, on_mi_command, "-info-gdb-mi-command cuda-info-threads");
	start_cmd(s, on_async, "-gdb-set mi-async on");
	start_cmd(s, on_setting, "-gdb-set pagination off");
	start_cmd(s, on_setting, "-gdb-set confirm off");
	for (size_t i = 0; i < s->nreplay_env; i++)
		start_cmd(s, on_setting, "%s", s->replay_env[i]);
	/* (gdb takes the rest of the line as the value: no quotes) */
	if (cfg->child_dir && cfg->child_preload &&
	    s->backend == SESSION_LAUNCH &&
	    !strpbrk(cfg->child_dir, "\"\\\n") &&
	    !strpbrk(cfg->child_preload, "\"\\\n")) {
		start_cmd(s, on_setting, "-gdb-set environment CUDBG_JOB_DIR=%s",
			  cfg->child_dir);
		start_cmd(s, on_setting, "-gdb-set environment LD_PRELOAD=%s",
			  cfg->child_preload);
	}
	/* Hydra (the config framework of many training scripts) shortens
	 * a traceback to its last frame unless asked: the whole one holds
	 * the user's line.  A value the user set is theirs.  (Beside the
	 * other environment commands, which a replay sends again.) */
	if (s->backend == SESSION_LAUNCH && !getenv("HYDRA_FULL_ERROR"))
		start_cmd(s, on_setting, "-gdb-set environment HYDRA_FULL_ERROR=1");
	start_cmd(s, on_setting, "-gdb-set breakpoint pending on");
	if (cfg->launch_blocking && s->backend == SESSION_LAUNCH) {
		start_cmd(s, on_setting, "-gdb-set cuda launch_blocking on");
		/* cuda-gdb's setting does not cover a CUDA graph's launch
		 * (GPU run 25: graph_stale's host had gone on to
		 * cudaStreamSynchronize); the driver's variable does.  A
		 * value the user set is theirs. */
		if (!getenv("CUDA_LAUNCH_BLOCKING"))
			start_cmd(s, on_setting, "-gdb-set environment CUDA_LAUNCH_BLOCKING=1");
	}
	if (s->lazy_symbols && s->backend == SESSION_LAUNCH)
		start_cmd(s, on_setting, "-gdb-set auto-solib-add off");
	/* (the API lives in libraries a lazy session does not read) */
	if (cfg->alloc_watch && s->backend == SESSION_LAUNCH &&
	    !s->lazy_symbols && alloc_watch_supported())
		send_alloc_watch(s);
	if (cfg->ndirs) {
		size_t len = 0;
		char *line = NULL;
		for (size_t i = 0; i < cfg->ndirs; i++) {
			char *q = quoted(cfg->dirs[i]);
			char *nl = q ? realloc(line, len + strlen(q) + 2) : NULL;
			if (!nl) {
				free(q);
				break;
			}
			line = nl;
			len += (size_t)sprintf(line + len, " %s", q);
			free(q);
		}
		if (line)
			start_cmd(s, on_setting, "-environment-directory%s",
				  line);
		free(line);
	}
	send_backend(s, cfg);
}

/* ---- replay: what the recording did ------------------------------------ */

struct replay_scan {
	struct session *s;
	bool past_start;     /* an -exec-* command was seen */
	int rc;
};

static int add_replay_start(struct session *s, const char *body, size_t len)
{
	char **n = realloc(s->replay_start,
			   (s->nreplay_start + 1) * sizeof *n);
	if (!n)
		return -1;
	s->replay_start = n;
	n[s->nreplay_start] = strndup(body, len);
	if (!n[s->nreplay_start])
		return -1;
	s->nreplay_start++;
	return 0;
}

static enum session_backend start_kind(const char *b, size_t len)
{
	if (text_starts(b, len, "-target-attach"))
		return SESSION_ATTACH;
	if (text_starts(b, len, "-target-select remote") ||
	    text_starts(b, len, "-target-select extended-remote"))
		return SESSION_REMOTE;
	if (text_starts(b, len, "-target-select core") ||
	    text_starts(b, len, "-interpreter-exec console \"target cudacore") ||
	    text_starts(b, len, "-interpreter-exec console \"target core"))
		return SESSION_CORE;
	if (text_starts(b, len, "-file-exec-and-symbols"))
		return SESSION_NONE; /* part of any backend */
	return SESSION_LAUNCH;     /* meaning: not a start command */
}

/* The recorded `sharedlibrary` commands of a lazy session: the first
 * distinct one is a stop's first read, the next its late read. */
static int scan_symbols_command(struct session *s, const char *b, size_t len)
{
	if (s->syms_first && (strlen(s->syms_first) == len &&
			      memcmp(s->syms_first, b, len) == 0))
		return 0;
	if (s->syms_late)
		return 0;
	char **slot = s->syms_first ? &s->syms_late : &s->syms_first;
	*slot = strndup(b, len);
	return *slot ? 0 : -1;
}

/* A recorded lean copy's add-symbol-file (session_lean_command answers
 * a replay with it, by the library's name in the copy's); each once. */
static int add_replay_lean(struct session *s, const char *b, size_t len)
{
	for (size_t i = 0; i < s->nlean; i++)
		if (strlen(s->syms_lean[i]) == len && memcmp(s->syms_lean[i], b, len) == 0)
			return 0;
	char **v = realloc(s->syms_lean, (s->nlean + 1) * sizeof *v);
	if (!v)
		return -1;
	s->syms_lean = v;
	if (!(v[s->nlean] = strndup(b, len)))
		return -1;
	s->nlean++;
	return 0;
}

/* A "userframe| LEVEL" note (session_note_user_frame). */
static int add_replay_user_frame(struct session *s, const char *t, size_t len)
{
	char num[16];
	size_t k = strlen(SESSION_USER_FRAME_NOTE);
	size_t n = len - k < sizeof num - 1 ? len - k : sizeof num - 1;
	memcpy(num, t + k, n);
	num[n] = '\0';
	char *end;
	long level = strtol(num, &end, 10);
	if (end == num || level < -1 || level > 100000)
		return 0; /* not ours: ignored, as any other note */
	int *v = realloc(s->replay_user_frames,
			 (s->nreplay_user_frames + 1) * sizeof *v);
	if (!v)
		return -1;
	s->replay_user_frames = v;
	v[s->nreplay_user_frames++] = (int)level;
	return 0;
}

static int scan_entry(void *ctx, const struct transcript_entry *e)
{
	struct replay_scan *rs = ctx;
	struct session *s = rs->s;
	if (e->tag == '<' && !s->replay_cuda &&
	    memmem(e->text, e->len, "CudaFocus", 9))
		s->replay_cuda = true;
	if (e->tag == '#' && text_starts(e->text, e->len, SESSION_USER_FRAME_NOTE))
		return add_replay_user_frame(s, e->text, e->len);
	if (e->tag == '#' && text_starts(e->text, e->len, SESSION_PYSTACK_NOTE) &&
	    session_keep_pystack_line(s, e->text + strlen(SESSION_PYSTACK_NOTE),
				      e->len - strlen(SESSION_PYSTACK_NOTE)) < 0)
		return -1;
	if (e->tag != '>')
		return 0;
	size_t len;
	const char *b = transcript_command_body(e->text, e->len, &len, NULL);
	if (text_starts(b, len, "-exec-run") && !s->replay_run) {
		s->replay_run = strndup(b, len);
		if (s->replay_of == SESSION_NONE)
			s->replay_of = SESSION_LAUNCH;
	}
	if (text_starts(b, len, "-exec-"))
		rs->past_start = true;
	if (text_starts(b, len, "-cuda-"))
		s->replay_cuda = true;
	if (!rs->past_start && text_starts(b, len, "-gdb-set auto-solib-add off"))
		s->lazy_symbols = true;
	if (!rs->past_start &&
	    (text_starts(b, len, "-gdb-set environment CUDBG_JOB_DIR=") ||
	     text_starts(b, len, "-gdb-set environment LD_PRELOAD=") ||
	     text_starts(b, len, "-gdb-set environment HYDRA_FULL_ERROR="))) {
		char **n = realloc(s->replay_env, (s->nreplay_env + 1) * sizeof *n);
		if (!n)
			return -1;
		s->replay_env = n;
		if (!(n[s->nreplay_env] = strndup(b, len)))
			return -1;
		s->nreplay_env++;
		return 0;
	}
	if (text_starts(b, len, "-interpreter-exec console \"sharedlibrary ") &&
	    scan_symbols_command(s, b, len) < 0)
		return -1;
	if (text_starts(b, len, "-interpreter-exec console \"add-symbol-file ") &&
	    add_replay_lean(s, b, len) < 0)
		return -1;
	if (rs->past_start)
		return 0;
	enum session_backend k = start_kind(b, len);
	if (k == SESSION_LAUNCH)
		return 0;
	if (k != SESSION_NONE && s->replay_of == SESSION_NONE)
		s->replay_of = k;
	return add_replay_start(s, b, len) ? -1 : 0;
}

/* The recording is read once, here, and checked whole (a bad line, a
 * cut, a size over the limit are refused before anything starts); what
 * the session needs from it (scan_entry) is taken from each line as it
 * is indexed.  The forked fake debugger inherits the loaded transcript:
 * its index, and the descriptor its texts are read from (the file
 * itself, or for a pipe or a .gz a private decompressed copy), so a
 * pipe (--replay <(zcat F.gz), /dev/stdin), which could not be read a
 * second time, and a .gz are read once. */
static int load_replay(struct session *s, const char *path, char *err,
		       size_t cap)
{
	struct replay_scan rs = { .s = s };
	s->replay_of = SESSION_NONE;
	int rc = transcript_load_each(path, &s->replay_t, scan_entry, &rs,
				      err, cap);
	if (rc == TRANSCRIPT_ENOMEM)
		return SESSION_ENOMEM;
	if (rc)
		return SESSION_ETRANSCRIPT;
	return 0;
}

struct fake_args {
	struct transcript *t;
	bool realtime;
};

/* The fake debugger's main, in the forked child: the transcript the
 * parent loaded is its own copy now. */
static int fake_main(void *ctx)
{
	struct fake_args *a = ctx;
	struct replay *r = replay_new(a->t);
	if (!r) {
		dprintf(2, "cudbg-tui replay: out of memory\n");
		return 3;
	}
	int rc = replay_serve(r, 0, 1, 2, a->realtime);
	replay_free(r); /* for valgrind, which follows the fork */
	return rc;
}

/* ---- checks before starting --------------------------------------------- */

static int check_program(const char *prog, char *err, size_t cap)
{
	char *p = spawn_find_program(prog);
	if (p) {
		free(p);
		return 0;
	}
	size_t n = strlen(prog);
	bool py = n > 3 && strcmp(prog + n - 3, ".py") == 0;
	bool sh = n > 3 && strcmp(prog + n - 3, ".sh") == 0;
	if (errno == EISDIR)
		snprintf(err, cap, "program '%s' is a directory: name the "
			 "program to run", prog);
	else if (errno == EACCES && (py || sh))
		/* the usual case: a script given without its interpreter */
		snprintf(err, cap, "program '%s' is not executable: run it "
			 "with its interpreter (cudbg-tui %s %s) or chmod +x it",
			 prog, py ? "python3" : "bash", prog);
	else if (errno == EACCES)
		snprintf(err, cap, "program '%s' is not an executable file "
			 "(chmod +x it, or name its interpreter first)", prog);
	else
		snprintf(err, cap, "program '%s' not found%s", prog,
			 strchr(prog, '/') ? "" : " (not in the current "
			 "directory or PATH)");
	return SESSION_ENOTFOUND;
}

/* (gdb says only "No executable file specified" for such a script, and
 * for a binary that is not ELF: issue 29 item 3) */
int session_check_interpreter(char *const *argv, char *err, size_t cap)
{
	char **v = spawn_resolve_scripts(argv);
	if (!v)
		return 0; /* out of memory: the start says so */
	int rc = 0;
	bool script = strcmp(v[0], argv[0]) != 0;
	char *found = script ? spawn_which(v[0]) : spawn_find_program(v[0]);
	if (script && !found) {
		size_t n = strlen(argv[0]);
		bool py = n > 3 && strcmp(argv[0] + n - 3, ".py") == 0;
		snprintf(err, cap, "program '%s' names the interpreter '%s' in "
			 "its #! line, and that is not an executable file: fix "
			 "the line, or put an interpreter before it (%s %s)",
			 argv[0], v[0], py ? "python3" : "bash", argv[0]);
		rc = SESSION_ENOTFOUND;
	} else if (found && !spawn_loadable(found)) {
		snprintf(err, cap, "program '%s' is neither an ELF executable "
			 "nor a script, and the debugger loads only those: give "
			 "the command that starts it", found);
		rc = SESSION_ENOTFOUND;
	}
	free(found);
	spawn_argv_free(v);
	return rc;
}

static int check_config(const struct session_config *c, char *err,
			size_t cap)
{
	int rc;
	switch (c->backend) {
	case SESSION_LAUNCH:
		if (!c->argv || !c->argv[0] || !*c->argv[0]) {
			snprintf(err, cap, "no program to launch");
			return SESSION_EINVAL;
		}
		rc = check_program(c->argv[0], err, cap);
		return rc ? rc : session_check_interpreter(c->argv, err, cap);
	case SESSION_ATTACH:
		if (c->pid <= 0 || (kill((pid_t)c->pid, 0) < 0 &&
				    errno == ESRCH)) {
			snprintf(err, cap, "no process with id %ld to attach "
				 "to", c->pid);
			return SESSION_EINVAL;
		}
		return 0;
	case SESSION_REMOTE:
		if (!c->remote || !*c->remote) {
			snprintf(err, cap, "no HOST:PORT to connect to");
			return SESSION_EINVAL;
		}
		return 0;
	case SESSION_CORE:
		if (!c->core) {
			snprintf(err, cap, "no coredump given");
			return SESSION_ENOTFOUND;
		}
		return check_core_file(c->core, err, cap);
	case SESSION_REPLAY:
		if (!c->replay) {
			snprintf(err, cap, "no transcript to replay");
			return SESSION_EINVAL;
		}
		return 0;
	default:
		snprintf(err, cap, "no session to start");
		return SESSION_EINVAL;
	}
}

/* ---- creation ------------------------------------------------------------ */

static char **debugger_argv(const char *path, const struct session_config *c,
			    char *const *prog)
{
	size_t n = 0;
	if (c->backend == SESSION_LAUNCH)
		while (prog[n])
			n++;
	char **argv = calloc(n + 6, sizeof *argv);
	if (!argv)
		return NULL;
	size_t i = 0;
	argv[i++] = (char *)(uintptr_t)path;
	argv[i++] = (char *)(uintptr_t)"--interpreter=mi3";
	argv[i++] = (char *)(uintptr_t)"--nx";
	argv[i++] = (char *)(uintptr_t)"-q";
	if (c->backend == SESSION_LAUNCH) {
		/* Each word stays one argv word: no shell on our side. */
		argv[i++] = (char *)(uintptr_t)"--args";
		for (size_t k = 0; k < n; k++)
			argv[i++] = prog[k];
	}
	argv[i] = NULL;
	return argv;
}

static void note_command_line(struct session *s, char *const *argv)
{
	char line[2048];
	size_t len = (size_t)snprintf(line, sizeof line, "cudbg-tui started:");
	for (size_t i = 0; argv[i] && len < sizeof line - 1; i++)
		len += (size_t)snprintf(line + len, sizeof line - len, " %s",
					argv[i]);
	session_record(s, '#', line, strnlen(line, sizeof line));
}

/* The user's command line, one "program| WORD" note a word (escaped:
 * note_escape), so that a replay of the recording knows the program it
 * diagnoses (the hints' {command}) as the live run did. */
static void note_program(struct session *s, char *const *words)
{
	struct dbuf b = {0};
	for (size_t i = 0; words && words[i]; i++) {
		b.len = 0;
		dbuf_puts(&b, "program| ");
		note_escape(&b, words[i], strlen(words[i]));
		if (b.oom)
			break;
		session_record(s, '#', b.s, b.len);
	}
	dbuf_free(&b);
}

static int start_child(struct session *s, const struct session_config *c,
		       char *err, size_t cap)
{
	if (c->backend == SESSION_REPLAY) {
		/* The forked child runs fake_main inside this frame. */
		struct fake_args args = { s->replay_t, c->replay_realtime };
		session_note(s, "cudbg-tui started: replay of %s", s->path);
		int rc = spawn_fork(&s->child, fake_main, &args,
				    transcript_fd(s->replay_t), err, cap);
		/* The child has it; this process needs it no more. */
		transcript_free(s->replay_t);
		s->replay_t = NULL;
		return rc;
	}
	if (c->backend == SESSION_LAUNCH) {
		s->launch_argv = spawn_resolve_scripts(c->argv);
		if (!s->launch_argv)
			return SESSION_ENOMEM;
		if (strcmp(s->launch_argv[0], c->argv[0]) != 0)
			session_note(s, "%s is a script: the debugger runs its "
				     "interpreter %s and follows its exec",
				     c->argv[0], s->launch_argv[0]);
	}
	char **argv = debugger_argv(s->path, c, s->launch_argv);
	if (!argv)
		return SESSION_ENOMEM;
	note_command_line(s, argv);
	if (c->backend == SESSION_LAUNCH)
		note_program(s, c->argv);
	int rc = spawn_exec(&s->child, argv, err, cap);
	free(argv);
	return rc;
}

static void base_name(char *dst, size_t cap, const char *path)
{
	const char *slash = strrchr(path, '/');
	snprintf(dst, cap, "%s", slash ? slash + 1 : path);
}

static int open_parts(struct session *s, const struct session_config *cfg,
		      char *err, size_t cap)
{
	int rc;
	if (cfg->backend == SESSION_REPLAY) {
		s->path = strdup(cfg->replay);
		snprintf(s->name, sizeof s->name, "the replay");
		if (!s->path)
			return SESSION_ENOMEM;
		if ((rc = load_replay(s, cfg->replay, err, cap)))
			return rc;
	} else {
		s->path = spawn_find_debugger(cfg->debugger, err, cap);
		if (!s->path)
			return SESSION_ENOTFOUND;
		base_name(s->name, sizeof s->name, s->path);
	}
	if (cfg->backend == SESSION_LAUNCH || cfg->backend == SESSION_REPLAY) {
		rc = spawn_pty(&s->pty_master, &s->pty_slave, s->tty,
			       sizeof s->tty);
		if (rc) {
			snprintf(err, cap, "cannot open a terminal for the "
				 "program: %s", strerror(-rc));
			return SESSION_ESPAWN;
		}
	}
	if (cfg->record) {
		s->rec = transcript_writer_open(cfg->record, cfg->record_force,
						err, cap);
		if (!s->rec)
			return SESSION_ERECORD;
		s->rec_path = strdup(cfg->record);
	}
	s->parser = session_make_parser(s);
	return s->parser ? 0 : SESSION_ENOMEM;
}

static char *symbols_command(const char *regex)
{
	char *cmd = NULL;
	if (asprintf(&cmd, "sharedlibrary %s", regex) < 0)
		return NULL;
	char *q = quoted(cmd);
	free(cmd);
	if (!q)
		return NULL;
	char *full = NULL;
	if (asprintf(&full, "-interpreter-exec console %s", q) < 0)
		full = NULL;
	free(q);
	return full;
}

static int lazy_commands(struct session *s, const struct session_config *cfg)
{
	s->lazy_symbols = true;
	s->syms_first = symbols_command(cfg->host_libs ? cfg->host_libs
						       : SESSION_HOST_LIBS);
	s->syms_late = symbols_command(SESSION_HOST_LIBS_LATE);
	if (!s->syms_first || !s->syms_late)
		return -1;
	/* the late read for each set of libraries read from lean copies:
	 * the others' words */
	for (unsigned m = 1; m + 1 < 1u << SESSION_LEAN_LIBS; m++) {
		char re[128] = "";
		for (unsigned i = 0; i < SESSION_LEAN_LIBS; i++)
			if (!(m & 1u << i))
				snprintf(re + strlen(re), sizeof re - strlen(re),
					 "%s%s", re[0] ? "\\|" : "",
					 session_lean_libs[i].word);
		if (!(s->syms_late_by_mask[m] = symbols_command(re)))
			return -1;
	}
	if (cfg->symbol_cache && !(s->symbol_cache = strdup(cfg->symbol_cache)))
		return -1;
	return 0;
}

struct session *session_new(const struct session_config *cfg,
			    const struct session_handlers *h,
			    char *err, size_t cap, int *code)
{
	int rc = check_config(cfg, err, cap);
	struct session *s = rc ? NULL : calloc(1, sizeof *s);
	if (!s) {
		if (code)
			*code = rc ? rc : SESSION_ENOMEM;
		if (!rc)
			snprintf(err, cap, "out of memory");
		return NULL;
	}
	s->t0 = proc_now_s();
	s->backend = cfg->backend;
	s->h = *h;
	s->next_token = 1;
	s->pty_master = s->pty_slave = -1;
	s->child = (struct spawn_child){ .pid = -1, .in = -1, .out = -1,
					 .err = -1 };
	s->start_timeout = (cfg->start_timeout_ms > 0 ? cfg->start_timeout_ms
						      : 60000) / 1000.0;
	rc = open_parts(s, cfg, err, cap);
	if (rc == 0)
		rc = start_child(s, cfg, err, cap);
	if (rc) {
		if (code)
			*code = rc < 0 ? rc : SESSION_ESPAWN;
		s->gone = s->gone_reported = true; /* nothing to end */
		session_free(s);
		return NULL;
	}
	if (cfg->lazy_host_symbols && s->backend == SESSION_LAUNCH &&
	    lazy_commands(s, cfg) < 0) {
		snprintf(err, cap, "out of memory");
		if (code)
			*code = SESSION_ENOMEM;
		session_free(s);
		return NULL;
	}
	send_start(s, cfg);
	return s;
}
