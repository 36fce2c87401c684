/* Child processes and the program's pty (see mi/spawn.h). */
#include "mi/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static bool executable_file(const char *path, int *why)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		*why = ENOENT;
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		*why = EISDIR;
		return false;
	}
	if (!S_ISREG(st.st_mode) || access(path, X_OK) < 0) {
		*why = EACCES;
		return false;
	}
	return true;
}

char *spawn_which(const char *name)
{
	int why = ENOENT;
	if (!name || !*name) {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/')) {
		if (executable_file(name, &why))
			return strdup(name);
		errno = why;
		return NULL;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	int best = ENOENT;
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		char *cand = malloc(n + strlen(name) + 3);
		if (!cand)
			return NULL;
		if (n == 0) /* an empty entry means the current directory */
			sprintf(cand, "./%s", name);
		else
			sprintf(cand, "%.*s/%s", (int)n, path, name);
		if (executable_file(cand, &why))
			return cand;
		if (why == EACCES)
			best = EACCES;
		free(cand);
		path += n + (colon ? 1 : 0);
	}
	errno = best;
	return NULL;
}

char *spawn_find_debugger(const char *choice, char *err, size_t cap)
{
	if (choice) {
		char *p = spawn_which(choice);
		if (p)
			return p;
		if (errno == EACCES || errno == EISDIR)
			snprintf(err, cap, "debugger '%s' is not an executable "
				 "file (check --debugger)", choice);
		else
			snprintf(err, cap, "debugger '%s' not found%s (check "
				 "--debugger)", choice,
				 strchr(choice, '/') ? "" : " in PATH");
		return NULL;
	}
	char *p = spawn_which("cuda-gdb");
	if (p)
		return p;
	const char *home = getenv("CUDA_HOME");
	char cand[4096];
	snprintf(cand, sizeof cand, "%s/bin/cuda-gdb",
		 home && *home ? home : "/usr/local/cuda");
	if ((p = spawn_which(cand)) != NULL)
		return p;
	char *gdb = spawn_which("gdb");
	snprintf(err, cap, "cuda-gdb not found in PATH or %s/bin; install the "
		 "CUDA toolkit or set CUDA_HOME%s",
		 home && *home ? "$CUDA_HOME" : "/usr/local/cuda",
		 gdb ? ", or use --debugger gdb for CPU programs"
		     : " (gdb was not found either)");
	free(gdb);
	return NULL;
}

int spawn_pty(int *master, int *slave, char *name, size_t cap)
{
	int m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -errno;
	if (grantpt(m) < 0 || unlockpt(m) < 0 || ptsname_r(m, name, cap)) {
		int e = errno;
		close(m);
		return -e;
	}
	int s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (s < 0) {
		int e = errno;
		close(m);
		return -e;
	}
	/* A sane size for programs that ask; the UI may change it. */
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	ioctl(s, TIOCSWINSZ, &ws);
	fcntl(m, F_SETFL, fcntl(m, F_GETFL) | O_NONBLOCK);
	*master = m;
	*slave = s;
	return 0;
}

/* Moves fd above 2 so the dup2 onto 0..2 in the child never meets
 * itself (dup2(n, n) would keep close-on-exec). */
static int above2(int fd)
{
	if (fd > 2 || fd < 0)
		return fd;
	int n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

struct pipes {
	int in[2], out[2], err[2];
};

static int make_pipes(struct pipes *p)
{
	p->in[0] = p->in[1] = p->out[0] = p->out[1] = -1;
	p->err[0] = p->err[1] = -1;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p->in) < 0 ||
	    pipe2(p->out, O_CLOEXEC) < 0 || pipe2(p->err, O_CLOEXEC) < 0)
		return -errno;
	for (int i = 0; i < 2; i++) {
		p->in[i] = above2(p->in[i]);
		p->out[i] = above2(p->out[i]);
		p->err[i] = above2(p->err[i]);
	}
	return 0;
}

static void close_pipes(struct pipes *p)
{
	int *all[] = { p->in, p->out, p->err };
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 2; j++)
			if (all[i][j] >= 0)
				close(all[i][j]);
}

/* In the child: its own session (a terminal ^C never reaches the
 * debugger; the whole group can be killed at the end), the pipes on
 * 0..2, default signals and an empty mask. */
static void child_setup(struct pipes *p)
{
	setsid();
	dup2(p->in[1], 0);
	dup2(p->out[1], 1);
	dup2(p->err[1], 2);
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

static void parent_ends(struct spawn_child *c, struct pipes *p, pid_t pid)
{
	close(p->in[1]);
	close(p->out[1]);
	close(p->err[1]);
	c->pid = pid;
	c->in = p->in[0];
	c->out = p->out[0];
	c->err = p->err[0];
	fcntl(c->in, F_SETFL, fcntl(c->in, F_GETFL) | O_NONBLOCK);
	fcntl(c->out, F_SETFL, fcntl(c->out, F_GETFL) | O_NONBLOCK);
	fcntl(c->err, F_SETFL, fcntl(c->err, F_GETFL) | O_NONBLOCK);
}

int spawn_exec(struct spawn_child *c, char *const argv[], char *err,
	       size_t cap)
{
	struct pipes p;
	int ep[2] = { -1, -1 };
	int rc = make_pipes(&p);
	if (rc == 0 && pipe2(ep, O_CLOEXEC) < 0)
		rc = -errno;
	if (rc) {
		close_pipes(&p);
		snprintf(err, cap, "cannot start %s: %s", argv[0],
			 strerror(-rc));
		return rc;
	}
	pid_t pid = fork();
	if (pid == 0) {
		close(ep[0]);
		child_setup(&p);
		execv(argv[0], argv);
		int e = errno;
		if (write(ep[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	close(ep[1]);
	if (pid < 0) {
		int e = errno;
		close(ep[0]);
		close_pipes(&p);
		snprintf(err, cap, "cannot start %s: fork: %s", argv[0],
			 strerror(e));
		return -e;
	}
	int e = 0;
	ssize_t n;
	while ((n = read(ep[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(ep[0]);
	if (n == (ssize_t)sizeof e) { /* exec failed */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		close_pipes(&p);
		snprintf(err, cap, "cannot run %s: %s", argv[0], strerror(e));
		return -e;
	}
	parent_ends(c, &p, pid);
	return 0;
}

/* Closes every descriptor from 3 up but `keep` (-1: none). */
static void close_all_but(int keep)
{
	if (keep < 3) {
		if (close_range(3, ~0U, 0) == 0)
			return;
	} else if ((keep == 3 || close_range(3, (unsigned)keep - 1, 0) == 0) &&
		   close_range((unsigned)keep + 1, ~0U, 0) == 0) {
		return;
	}
	for (int fd = 3; fd < 1024; fd++)
		if (fd != keep)
			close(fd);
}

int spawn_fork(struct spawn_child *c, int (*fn)(void *ctx), void *ctx,
	       int keep_fd, char *err, size_t cap)
{
	if (keep_fd >= 0 && keep_fd <= 2) {
		/* the child's dup2() onto 0..2 would replace it */
		snprintf(err, cap, "cannot start the replay: its file is on "
			 "descriptor %d (a standard descriptor was closed)",
			 keep_fd);
		return -EBADF;
	}
	struct pipes p;
	int rc = make_pipes(&p);
	if (rc) {
		close_pipes(&p);
		snprintf(err, cap, "cannot start the replay: %s", strerror(-rc));
		return rc;
	}
	pid_t pid = fork();
	if (pid == 0) {
		child_setup(&p);
		/* No exec follows, so close-on-exec does not help: drop
		 * every inherited descriptor (the UI's terminal, the pty
		 * master) by hand, but the one fn reads from. */
		close_all_but(keep_fd);
		_exit(fn(ctx));
	}
	if (pid < 0) {
		int e = errno;
		close_pipes(&p);
		snprintf(err, cap, "cannot start the replay: fork: %s",
			 strerror(e));
		return -e;
	}
	parent_ends(c, &p, pid);
	return 0;
}

void spawn_close(struct spawn_child *c)
{
	if (c->in >= 0)
		close(c->in);
	if (c->out >= 0)
		close(c->out);
	if (c->err >= 0)
		close(c->err);
	c->in = c->out = c->err = -1;
}

/* ---- scripts as programs ----------------------------------------------- */

/* What the start of an executable file says it is. */
enum file_kind {
	FILE_UNREADABLE,
	FILE_ELF,      /* a program gdb can load */
	FILE_SHEBANG,  /* a "#!" line */
	FILE_TEXT,     /* no "#!", no NUL: execvp() and every shell hand
			* such a file to /bin/sh (ENOEXEC) */
	FILE_OTHER,    /* a binary gdb cannot load */
};

/* The first bytes of path, NUL-terminated in head (cap - 1 at most); the
 * count, or -1 when the file cannot be read. */
static ssize_t read_head(const char *path, char *head, size_t cap)
{
	FILE *f = fopen(path, "rbe");
	if (!f)
		return -1;
	size_t n = fread(head, 1, cap - 1, f);
	fclose(f);
	head[n] = '\0';
	return (ssize_t)n;
}

static enum file_kind file_kind_of(const char *head, size_t n)
{
	if (n >= 4 && memcmp(head, "\177ELF", 4) == 0)
		return FILE_ELF;
	if (n >= 2 && head[0] == '#' && head[1] == '!')
		return FILE_SHEBANG;
	return memchr(head, '\0', n) ? FILE_OTHER : FILE_TEXT;
}

/* The "#!" line in head: interp and its one optional argument (Linux
 * passes the rest of the line as one word), malloc'd.  False when the
 * line is longer than head or names nothing. */
static bool shebang(char *head, char **interp, char **arg)
{
	*interp = *arg = NULL;
	char *p = head + 2, *nl = strchr(p, '\n');
	if (!nl)
		return false; /* a line longer than we read: not trusted */
	*nl = '\0';
	p += strspn(p, " \t");
	size_t il = strcspn(p, " \t");
	if (il == 0)
		return false;
	char *rest = p + il + strspn(p + il, " \t");
	size_t rl = strlen(rest);
	while (rl && (rest[rl - 1] == ' ' || rest[rl - 1] == '\t' ||
		      rest[rl - 1] == '\r'))
		rl--;
	*interp = strndup(p, il);
	*arg = rl ? strndup(rest, rl) : NULL;
	if (!*interp || (rl && !*arg)) {
		free(*interp);
		free(*arg);
		*interp = *arg = NULL;
		return false;
	}
	return true;
}

/* How execvp() would run the file at path: the interpreter (and its
 * argument) to put in front of it; false for a program gdb loads itself,
 * or one it cannot (FILE_OTHER: session_check_interpreter says so). */
static bool interpreter_of(const char *path, char **interp, char **arg)
{
	char head[256];
	*interp = *arg = NULL;
	ssize_t n = read_head(path, head, sizeof head);
	if (n < 0)
		return false;
	switch (file_kind_of(head, (size_t)n)) {
	case FILE_SHEBANG:
		return shebang(head, interp, arg);
	case FILE_TEXT:
		*interp = strdup("/bin/sh");
		return *interp != NULL;
	default:
		return false;
	}
}

bool spawn_loadable(const char *path)
{
	char head[256];
	ssize_t n = read_head(path, head, sizeof head);
	return n < 0 || file_kind_of(head, (size_t)n) != FILE_OTHER;
}

void spawn_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static char **argv_dup(char *const *argv)
{
	size_t n = 0;
	while (argv[n])
		n++;
	char **v = calloc(n + 1, sizeof *v);
	for (size_t i = 0; v && i < n; i++)
		if (!(v[i] = strdup(argv[i]))) {
			spawn_argv_free(v);
			return NULL;
		}
	return v;
}

/* v with interp [arg] in front and v[0] replaced by its path. */
static char **argv_interpose(char **v, char *interp, char *arg, char *path)
{
	size_t n = 0;
	while (v[n])
		n++;
	char **w = calloc(n + 3, sizeof *w);
	if (!w)
		return NULL;
	size_t i = 0;
	w[i++] = interp;
	if (arg)
		w[i++] = arg;
	w[i++] = path;
	for (size_t k = 1; k < n; k++)
		w[i++] = v[k];
	free(v[0]);
	free(v);
	return w;
}

char *spawn_find_program(const char *name)
{
	if (!strchr(name, '/') && access(name, F_OK) == 0) {
		char rel[4096];
		snprintf(rel, sizeof rel, "./%s", name);
		return spawn_which(rel);
	}
	return spawn_which(name);
}

char **spawn_resolve_scripts(char *const *argv)
{
	char **v = argv_dup(argv);
	/* binfmt_script's own limit on nested interpreters is 4 */
	for (int depth = 0; v && depth < 4; depth++) {
		char *path = spawn_find_program(v[0]);
		char *interp, *arg;
		if (!path || !interpreter_of(path, &interp, &arg)) {
			free(path);
			break;
		}
		char **w = argv_interpose(v, interp, arg, path);
		if (!w) {
			free(interp);
			free(arg);
			free(path);
			spawn_argv_free(v);
			return NULL;
		}
		v = w;
	}
	return v;
}
