/* The user's configuration file: $XDG_CONFIG_HOME/cudbg-tui/config
 * (else ~/.config/cudbg-tui/config; $CUDBG_CONFIG names another file, and
 * an empty $CUDBG_CONFIG reads none).  Format: docs/config.md.
 *
 * Code: app/config.c.  main.c loads it after the
 * options, config_apply() merges the memcheck default and the source
 * directories into the options (the command line wins), and the screen
 * takes the key bindings and colours from o->config.
 *
 * Nothing here prints or exits: errors come back as one line
 * "FILE:LINE: what is wrong" in err.
 */
#ifndef CUDBG_CONFIG_H
#define CUDBG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "cudbg/options.h"

/* A key binding: pressing `key` (a TK_* code or a byte, tui/keys.h) does
 * what the default key `does` does on the debugger screen. */
struct config_bind {
	int key;
	int does;
};

/* A colour override for one role of the screen (enum ui_color of
 * tui/cells.h); fg/bg are 0..255, or -1 for the terminal's default. */
struct config_colour {
	int role;
	short fg, bg;
};

struct cudbg_config {
	char *path;              /* the file read (malloc'd), NULL when none */
	bool memcheck_set;       /* the file has a memcheck line */
	enum cudbg_memcheck memcheck;
	char **dirs;             /* source directories, in order (malloc'd) */
	size_t ndirs;
	bool gdbinit;            /* `gdbinit yes`: source ~/.gdbinit at start */
	struct config_bind *binds; /* later lines win over earlier ones */
	size_t nbinds;
	struct config_colour *colours;
	size_t ncolours;
	char **san_flags;        /* `sanitizer-flags`: extra compute-sanitizer
				  * words, in order (malloc'd, NULL ended) */
	size_t nsan_flags;
};

/* Parses the text of a config file; name is used in messages.  On error
 * *c holds what was read before the bad line (free it anyway) and err
 * says "NAME:LINE: ...".  Returns 0 or -1. */
int config_parse(struct cudbg_config *c, const char *name, const char *text,
		 size_t len, char *err, size_t cap);

/* The default path into buf: $CUDBG_CONFIG when set (NULL when it is
 * empty: no file), else $XDG_CONFIG_HOME/cudbg-tui/config, else
 * $HOME/.config/cudbg-tui/config; NULL when none can be formed. */
const char *config_default_path(char *buf, size_t cap);

/* Loads the file at path (zeroing *c first).  A missing file is not an
 * error (returns 0 with c->path NULL); an unreadable or malformed one is
 * (-1, err "FILE:LINE: ..." or "FILE: ..."). */
int config_load(struct cudbg_config *c, const char *path, char *err,
		size_t cap);

/* Merges the file into the options: the memcheck default (unless
 * --memcheck was given), the source directories (after the -d ones) and
 * the sanitizer flags (copied, before the --sanitizer-flags ones).
 * Sets o->config = c.  c must outlive o.  Returns 0 or -1 (no memory). */
int config_apply(const struct cudbg_config *c, struct cudbg_options *o);

void config_free(struct cudbg_config *c); /* accepts a zeroed struct */

/* The actions a key can be bound to ("continue", "next", ...): name i,
 * NULL past the end; and the default key of the action named. */
const char *config_action_name(size_t i);
int config_action_key(const char *name);
/* Colour roles ("status", "fault", ...) by enum ui_color value. */
const char *config_role_name(int role);

#endif
