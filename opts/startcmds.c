/* The user's start-up debugger commands (batch/startcmds.h). */
#include "opts/startcmds.h"

#include "cudbg/model.h"
#include "cudbg/options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int send_line(struct dbg_ctl *c, const char *line, char *err, size_t cap)
{
	/* One console line each: a newline would start another command. */
	if (strpbrk(line, "\r\n")) {
		snprintf(err, cap, "'%s': one debugger command a -ex, without newlines", line);
		return -1;
	}
	if (ctl_console(c, line) < 0) {
		snprintf(err, cap, "the debugger refused '%s'", line);
		return -1;
	}
	return 0;
}

/* The home init file gdb 11 and later read, the first that exists of
 * $XDG_CONFIG_HOME/gdb/gdbinit, ~/.config/gdb/gdbinit, ~/.gdbinit (gdb's
 * manual, "Initialization Files"); 0 with its path in out, else -1. */
static int home_gdbinit(char *out, size_t cap)
{
	const char *home = getenv("HOME");
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && *xdg) {
		snprintf(out, cap, "%s/gdb/gdbinit", xdg);
		if (access(out, R_OK) == 0)
			return 0;
	}
	if (!home || !*home)
		return -1;
	snprintf(out, cap, "%s/.config/gdb/gdbinit", home);
	if (access(out, R_OK) == 0)
		return 0;
	snprintf(out, cap, "%s/.gdbinit", home);
	return access(out, R_OK) == 0 ? 0 : -1;
}

int start_commands_send(const struct cudbg_options *o, struct dbg_ctl *c,
			char *err, size_t cap)
{
	char line[4200], path[4096];

	if (o->backend == SESSION_REPLAY)
		return 0;
	/* The debugger runs with --nx, so that what the screen parses does
	 * not depend on the user's settings; `gdbinit yes` reads the user's
	 * init file all the same, first, as gdb would. */
	if (o->gdbinit && home_gdbinit(path, sizeof path) == 0) {
		snprintf(line, sizeof line, "source %s", path);
		if (send_line(c, line, err, cap) < 0)
			return -1;
	}
	for (size_t i = 0; i < o->ndbg_cmds; i++) {
		if (o->dbg_cmd_is_file[i])
			snprintf(line, sizeof line, "source %s", o->dbg_cmds[i]);
		else
			snprintf(line, sizeof line, "%s", o->dbg_cmds[i]);
		if (send_line(c, line, err, cap) < 0)
			return -1;
	}
	return 0;
}
