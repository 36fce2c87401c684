/* Private to mi/: child processes and the program's pty for the session. */
#ifndef CUDBG_MI_SPAWN_H
#define CUDBG_MI_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* The debugger's end of things, seen from the session. */
struct spawn_child {
	pid_t pid;  /* also its process group and session id (setsid) */
	int in;     /* we write commands here (a socket: send(MSG_NOSIGNAL)
		     * never raises SIGPIPE in the UI) */
	int out;    /* its stdout */
	int err;    /* its stderr */
};

/* `name` as given when it holds a '/', else looked up in PATH.  Returns a
 * malloc'd path of an executable regular file, or NULL (errno set:
 * ENOENT not found, EACCES not executable, EISDIR a directory). */
char *spawn_which(const char *name);
/* The program as gdb finds it: a bare name in the current directory
 * first, then spawn_which (its errno when NULL); malloc'd. */
char *spawn_find_program(const char *name);

/* The program as execvp() would run it: a script (a "#!" first line,
 * found as gdb finds a program: the current directory, then PATH) gets
 * its interpreter and that line's argument in front, the script's path
 * after them, as often as the interpreter is a script itself (pyenv's
 * `python3` is a bash script; `./train.sh` a sh one); an executable text
 * file with no "#!" gets /bin/sh, as execvp() and every shell give it.  gdb and cuda-gdb
 * cannot load a script ("No executable file specified"), but follow the
 * interpreter's exec to the real program.  A new vector of new strings
 * (spawn_argv_free), argv unchanged where nothing is a script; NULL when
 * out of memory. */
char **spawn_resolve_scripts(char *const *argv);
void spawn_argv_free(char **argv);

/* False when the file at path is readable and neither an ELF file nor a
 * script of any kind (a binary gdb cannot load: "No executable file
 * specified"). */
bool spawn_loadable(const char *path);

/* The debugger to run (rules in session.h).  NULL with a one-line reason
 * in err. */
char *spawn_find_debugger(const char *choice, char *err, size_t cap);

/* Opens a pty pair for the program: master non-blocking, both close on
 * exec; name gets the slave's path.  0 or -errno. */
int spawn_pty(int *master, int *slave, char *name, size_t cap);

/* Starts argv[0] (a path) in a new session with fresh pipes.  Returns 0,
 * or -errno with err filled ("cannot run X: ..."), exec failures
 * included (reported through a close-on-exec pipe). */
int spawn_exec(struct spawn_child *c, char *const argv[], char *err,
	       size_t cap);

/* Forks a child in a new session that runs fn(ctx, 0, 1, 2) on fresh
 * pipes and exits with its result (the fake debugger of a replay).
 * Descriptors from 3 up are closed in the child, but keep_fd (-1: none;
 * the transcript the replay reads its texts from; a keep_fd of 0..2 is
 * refused with -EBADF: the child's set-up would overwrite it). */
int spawn_fork(struct spawn_child *c, int (*fn)(void *ctx), void *ctx,
	       int keep_fd, char *err, size_t cap);

/* Closes our ends. */
void spawn_close(struct spawn_child *c);

#endif
