/* The config file parser (app/config.c): every setting, every error with
 * its FILE:LINE, the default path, merging into the options, and the
 * colour override reaching curses. */
#include "cudbg/config.h"
#include "cudbg/memcheck.h"
#include "tests/harness.h"
#include "tui/backend.h"
#include "tui/cells.h"
#include "tui/keys.h"

#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse(struct cudbg_config *c, const char *text, char *err,
		 size_t cap)
{
	memset(c, 0, sizeof *c);
	err[0] = '\0';
	return config_parse(c, "cfg", text, strlen(text), err, cap);
}

TEST(every_setting)
{
	struct cudbg_config c;
	char err[512];
	setenv("HOME", "/home/u", 1);
	const char *text =
		"# a comment\n"
		"   # an indented comment\n"
		"\n"
		"memcheck never\r\n"
		"directory /src/my kernels#1  \n"
		"directory ~/cuda\n"
		"directory ~\n"
		"directory ~other/x\n"
		"bind F6 continue\n"
		"bind <F7> next\n"
		"bind x step\n"
		"bind C-n next-tab\n"
		"bind Space zoom\n"
		"bind S-Tab prev-area\n"
		"color fault white red\n"
		"colour status 208\n"
		"color cursor default 17\n"
		"\tmemcheck   always";
	CHECK_MSG(parse(&c, text, err, sizeof err) == 0, "%s", err);
	CHECK(c.memcheck_set);
	CHECK_INT(c.memcheck, CUDBG_MEMCHECK_ALWAYS); /* the later line */
	CHECK_INT(c.ndirs, 4);
	CHECK_STR(c.dirs[0], "/src/my kernels#1");
	CHECK_STR(c.dirs[1], "/home/u/cuda");
	CHECK_STR(c.dirs[2], "/home/u");
	CHECK_STR(c.dirs[3], "~other/x");
	CHECK_INT(c.nbinds, 6);
	CHECK_INT(c.binds[0].key, TK_F(6));
	CHECK_INT(c.binds[0].does, 'c');
	CHECK_INT(c.binds[1].key, TK_F(7));
	CHECK_INT(c.binds[1].does, 'n');
	CHECK_INT(c.binds[2].key, 'x');
	CHECK_INT(c.binds[2].does, 's');
	CHECK_INT(c.binds[3].key, TK_CTRL('n'));
	CHECK_INT(c.binds[3].does, ']');
	CHECK_INT(c.binds[4].key, ' ');
	CHECK_INT(c.binds[4].does, 'z');
	CHECK_INT(c.binds[5].key, TK_BTAB);
	CHECK_INT(c.binds[5].does, TK_BTAB);
	CHECK_INT(c.ncolours, 3);
	CHECK_INT(c.colours[0].role, UC_FAULT);
	CHECK_INT(c.colours[0].fg, 7);
	CHECK_INT(c.colours[0].bg, 1);
	CHECK_INT(c.colours[1].role, UC_STATUS);
	CHECK_INT(c.colours[1].fg, 208);
	CHECK_INT(c.colours[1].bg, -1);
	CHECK_INT(c.colours[2].role, UC_CURSOR);
	CHECK_INT(c.colours[2].fg, -1);
	CHECK_INT(c.colours[2].bg, 17);
	config_free(&c);
}

TEST(empty_text_is_fine)
{
	struct cudbg_config c;
	char err[256];
	CHECK(parse(&c, "", err, sizeof err) == 0);
	CHECK(!c.memcheck_set && !c.ndirs && !c.nbinds && !c.ncolours);
	CHECK(parse(&c, "\n\n# only comments\n   \n", err, sizeof err) == 0);
	config_free(&c);
}

/* Each bad line: the message names the file and the line, and says what
 * is wrong in words a user can act on. */
TEST(errors_name_file_and_line)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "memcheck sometimes\n", "cfg:1: memcheck takes auto, always or never, not 'sometimes'" },
		{ "\nmemcheck\n", "cfg:2: memcheck takes one word" },
		{ "memcheck auto never\n", "cfg:1: memcheck takes one word" },
		{ "# c\n\ndirectory\n", "cfg:3: directory needs a path" },
		{ "directory    \t\n", "cfg:1: directory needs a path" },
		{ "bind F6\n", "cfg:1: bind takes a key and an action" },
		{ "bind F6 continue now\n", "cfg:1: bind takes a key and an action" },
		{ "bind F99 next\n", "cfg:1: unknown key 'F99'" },
		{ "bind Hyper-x next\n", "cfg:1: unknown key 'Hyper-x'" },
		{ "bind <Resize> next\n", "cfg:1: unknown key '<Resize>'" },
		{ "bind \xc3\xa9 next\n", "cfg:1: unknown key '\\xc3\\xa9'" },
		{ "bind F6 explode\n", "cfg:1: unknown action 'explode'; actions: continue next" },
		{ "color\n", "cfg:1: color takes a role" },
		{ "color sky blue\n", "cfg:1: unknown colour role 'sky'" },
		{ "color fault pink\n", "cfg:1: a colour is black, red" },
		{ "color fault red 256\n", "not '256'" },
		{ "color fault red -2\n", "not '-2'" },
		{ "color fault red blue green\n", "cfg:1: color takes a role" },
		{ "theme dark\n", "cfg:1: unknown setting 'theme' (memcheck, directory, bind, keys, gdbinit, color, sanitizer-flags)" },
		{ "\x1b[31mred\n", "cfg:1: unknown setting '\\x1b[31mred'" },
		{ "a b c d e f g h i\n", "cfg:1: too many words" },
		{ "memcheck auto\nmemcheck\0never\n", "cfg:2: a NUL byte" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct cudbg_config c;
		char err[512];
		size_t len = strlen(cases[i].text);
		if (strstr(cases[i].text, "auto\nmemcheck"))
			len = sizeof "memcheck auto\nmemcheck\0never\n" - 1;
		memset(&c, 0, sizeof c);
		err[0] = '\0';
		CHECK_MSG(config_parse(&c, "cfg", cases[i].text, len, err,
				       sizeof err) == -1,
			  "case %zu parsed", i);
		CHECK_MSG(strstr(err, cases[i].want), "case %zu: got '%s', "
			  "want '%s'", i, err, cases[i].want);
		CHECK_MSG(!strchr(err, '\n') && !strchr(err, '\x1b'),
			  "case %zu: not one clean line: %s", i, err);
		config_free(&c);
	}
}

TEST(long_lines_are_refused)
{
	size_t n = 5000;
	char *t = malloc(n + 16);
	CHECK(t);
	memcpy(t, "memcheck auto\ndirectory /", 25);
	memset(t + 25, 'a', n - 25);
	t[n] = '\0';
	struct cudbg_config c;
	char err[512];
	CHECK(parse(&c, t, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "cfg:2: line longer than 4096 bytes"), "%s", err);
	config_free(&c);
	free(t);
}

TEST(default_path_follows_xdg)
{
	char buf[4096];
	unsetenv("CUDBG_CONFIG");
	setenv("XDG_CONFIG_HOME", "/xdg", 1);
	setenv("HOME", "/home/u", 1);
	CHECK_STR(config_default_path(buf, sizeof buf),
		  "/xdg/cudbg-tui/config");
	/* a relative XDG_CONFIG_HOME is invalid by the spec */
	setenv("XDG_CONFIG_HOME", "rel", 1);
	CHECK_STR(config_default_path(buf, sizeof buf),
		  "/home/u/.config/cudbg-tui/config");
	unsetenv("XDG_CONFIG_HOME");
	CHECK_STR(config_default_path(buf, sizeof buf),
		  "/home/u/.config/cudbg-tui/config");
	setenv("CUDBG_CONFIG", "/etc/x.conf", 1);
	CHECK_STR(config_default_path(buf, sizeof buf), "/etc/x.conf");
	setenv("CUDBG_CONFIG", "", 1);
	CHECK(config_default_path(buf, sizeof buf) == NULL);
	unsetenv("CUDBG_CONFIG");
	unsetenv("HOME");
	CHECK(config_default_path(buf, sizeof buf) == NULL);
}

TEST(load_files)
{
	char dir[] = "/tmp/cudbg-cfg-XXXXXX", path[256], err[512];
	struct cudbg_config c;
	CHECK(mkdtemp(dir));
	snprintf(path, sizeof path, "%s/config", dir);
	/* missing: no error, nothing read */
	CHECK(config_load(&c, path, err, sizeof err) == 0);
	CHECK(c.path == NULL);
	CHECK(config_load(&c, NULL, err, sizeof err) == 0);
	FILE *f = fopen(path, "w");
	CHECK(f);
	fputs("memcheck never\nbind F6 continue\nbogus line\n", f);
	fclose(f);
	CHECK(config_load(&c, path, err, sizeof err) == -1);
	char want[300];
	snprintf(want, sizeof want, "%s:3: unknown setting 'bogus'", path);
	CHECK_MSG(strstr(err, want), "%s", err);
	config_free(&c);
	f = fopen(path, "w");
	CHECK(f);
	fputs("memcheck never\n", f);
	fclose(f);
	CHECK(config_load(&c, path, err, sizeof err) == 0);
	CHECK_STR(c.path, path);
	CHECK(c.memcheck_set && c.memcheck == CUDBG_MEMCHECK_NEVER);
	config_free(&c);
	/* a directory where the file should be */
	CHECK(config_load(&c, dir, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "cannot read the config file"), "%s", err);
	config_free(&c);
	unlink(path);
	rmdir(dir);
}

TEST(apply_merges_into_options)
{
	struct cudbg_config c;
	struct cudbg_options o;
	char err[512];
	char *argv[] = { (char *)(uintptr_t)"cudbg-tui", (char *)(uintptr_t)"-d",
			 (char *)(uintptr_t)"/cli", (char *)(uintptr_t)"prog",
			 NULL };
	CHECK(parse(&c, "memcheck never\ndirectory /cfg1\ndirectory /cfg2\n",
		    err, sizeof err) == 0);
	CHECK(options_parse(&o, 4, argv, err, sizeof err) == 0);
	CHECK(config_apply(&c, &o) == 0);
	CHECK(o.config == &c);
	CHECK_INT(o.memcheck, CUDBG_MEMCHECK_NEVER);
	CHECK_INT(o.ndirs, 3);
	CHECK_STR(o.dirs[0], "/cli"); /* the command line's first */
	CHECK_STR(o.dirs[1], "/cfg1");
	CHECK_STR(o.dirs[2], "/cfg2");
	options_free(&o);

	/* --memcheck on the command line wins over the file */
	char *argv2[] = { (char *)(uintptr_t)"cudbg-tui",
			  (char *)(uintptr_t)"--memcheck=always",
			  (char *)(uintptr_t)"prog", NULL };
	CHECK(options_parse(&o, 3, argv2, err, sizeof err) == 0);
	CHECK(config_apply(&c, &o) == 0);
	CHECK_INT(o.memcheck, CUDBG_MEMCHECK_ALWAYS);
	CHECK_INT(o.ndirs, 2);
	options_free(&o);
	config_free(&c);
}

TEST(action_and_role_names)
{
	size_t n = 0;
	for (; config_action_name(n); n++)
		CHECK(config_action_key(config_action_name(n)) != TK_NONE);
	CHECK(n >= 17);
	CHECK_INT(config_action_key("continue"), 'c');
	CHECK_INT(config_action_key("nope"), TK_NONE);
	CHECK_STR(config_role_name(UC_FAULT), "fault");
	CHECK(config_role_name(0) == NULL);
	CHECK(config_role_name(UC__COUNT) == NULL);
	for (int r = 1; r < UC__COUNT; r++)
		CHECK_MSG(config_role_name(r), "role %d has no name", r);
}

/* A colour from the file reaches the curses colour pair of its role. */
TEST(colour_override_reaches_curses)
{
	FILE *out = fopen("/dev/null", "w");
	FILE *in = fopen("/dev/null", "r");
	struct backend b;
	char err[256];
	short fg = 0, bg = 0;
	CHECK(out && in);
	setenv("TERM", "xterm-256color", 1);
	unsetenv("NO_COLOR");
	term_colour_set(UC_FAULT, 3, 4);
	term_colour_set(UC_STATUS, 208, -1);
	term_colour_set(UC__COUNT, 1, 1); /* ignored */
	term_backend_on(&b, out, in);
	CHECK_MSG(b.start(&b, err, sizeof err) == 0, "%s", err);
	if (b.mono)
		test_skip("no colours on this terminal description");
	CHECK(pair_content(UC_FAULT, &fg, &bg) == OK);
	CHECK_INT(fg, 3);
	CHECK_INT(bg, 4);
	CHECK(pair_content(UC_STATUS, &fg, &bg) == OK);
	CHECK_INT(fg, 208);
	b.stop(&b);
	fclose(out);
	fclose(in);
}

/* keys cgdb: cgdb's function keys as binds at that line (a later bind
 * wins, being searched from the end); keys ide adds none; gdbinit. */
TEST(keys_preset_and_gdbinit)
{
	struct cudbg_config c;
	char err[512];
	CHECK_INT(parse(&c, "keys cgdb\nbind F8 step\ngdbinit yes\n", err, sizeof err), 0);
	CHECK_INT(c.nbinds, 6);
	CHECK_INT(c.binds[0].key, TK_F(5));
	CHECK_INT(c.binds[0].does, 'r');
	CHECK_INT(c.binds[3].key, TK_F(8));
	CHECK_INT(c.binds[3].does, 'n');
	CHECK_INT(c.binds[5].key, TK_F(8)); /* the later bind */
	CHECK_INT(c.binds[5].does, 's');
	CHECK(c.gdbinit);
	struct cudbg_options o = { 0 };
	CHECK_INT(config_apply(&c, &o), 0);
	CHECK(o.gdbinit);
	free(o.dirs);
	config_free(&c);
	CHECK_INT(parse(&c, "keys ide\n", err, sizeof err), 0);
	CHECK_INT(c.nbinds, 0);
	config_free(&c);
	CHECK_INT(parse(&c, "keys emacs\n", err, sizeof err), -1);
	CHECK_STR(err, "cfg:1: keys takes cgdb or ide");
	config_free(&c);
	CHECK_INT(parse(&c, "gdbinit maybe\n", err, sizeof err), -1);
	CHECK_STR(err, "cfg:1: gdbinit takes yes or no");
	config_free(&c);
}

/* The actions are the rows of tui/keys.def: every global key that has a
 * name can be bound (jump, repaint and sanitizer-tool were missing from
 * the old list), the error names them all, and the cgdb preset binds the
 * table's CGDB column. */
TEST(actions_come_from_the_key_table)
{
	struct cudbg_config c;
	char err[1024];
	CHECK_INT(parse(&c, "bind F2 jump\nbind F3 repaint\nbind F4 sanitizer-tool\n",
			err, sizeof err), 0);
	CHECK_INT(c.nbinds, 3);
	CHECK_INT(c.binds[0].does, '\'');
	CHECK_INT(c.binds[1].does, TK_CTRL('l'));
	CHECK_INT(c.binds[2].does, 'K');
	config_free(&c);
	CHECK_INT(parse(&c, "bind x nope\n", err, sizeof err), -1);
	for (size_t i = 0; config_action_name(i); i++)
		CHECK_MSG(strstr(err, config_action_name(i)), "the error lacks %s: %s",
			  config_action_name(i), err);
	config_free(&c);
	CHECK_INT(parse(&c, "keys cgdb\n", err, sizeof err), 0);
	size_t want = 0;
	for (size_t r = 0; r < key_nrows; r++)
		if (key_rows[r].cgdb != TK_NONE) {
			want++;
			bool found = false;
			for (size_t b = 0; b < c.nbinds; b++)
				found |= c.binds[b].key == key_rows[r].cgdb &&
					 c.binds[b].does == key_rows[r].key;
			CHECK_MSG(found, "keys cgdb lacks %s", key_rows[r].name);
		}
	CHECK_INT(c.nbinds, want);
	config_free(&c);
}

/* sanitizer-flags: the rest of the line split at blanks (more than the
 * eight words of other lines), lines add up, the file's go before the
 * command line's; a flag the pass sets itself names the line. */
TEST(sanitizer_flags_line)
{
	struct cudbg_config c;
	char err[512];
	CHECK_INT(parse(&c, "sanitizer-flags --kernel-name kns=a --print-level "
			"error -q --check-device-heap no --error-exitcode 3\n"
			"sanitizer-flags\t--force-blocking-launches\n", err,
			sizeof err), 0);
	CHECK_INT(c.nsan_flags, 10);
	CHECK_STR(c.san_flags[1], "kns=a");
	CHECK_STR(c.san_flags[9], "--force-blocking-launches");
	struct cudbg_options o = { 0 };
	CHECK_INT(diag_san_flags_add(&o.san_flags, &o.nsan_flags, "--quiet",
				     err, sizeof err), 0);
	CHECK_INT(config_apply(&c, &o), 0);
	CHECK_INT(o.nsan_flags, 11);
	CHECK_STR(o.san_flags[0], "--kernel-name");
	CHECK_STR(o.san_flags[10], "--quiet");
	CHECK(o.san_flags[11] == NULL);
	options_free(&o);
	config_free(&c);
	CHECK_INT(parse(&c, "\n sanitizer-flags --print-level error --save=x\n",
			err, sizeof err), -1);
	CHECK_STR(err, "cfg:2: sanitizer flag '--save=x' conflicts with the "
		  "memcheck pass: the pass saves the report in its private "
		  "directory");
	config_free(&c);
	CHECK_INT(parse(&c, "sanitizer-flags\n", err, sizeof err), -1);
	CHECK_STR(err, "cfg:1: sanitizer flags are empty");
	config_free(&c);
}
