/* The documents name what the program has: every key of the help overlay
 * is in docs/keys.md under its pane, every option of --help is in the man
 * page, every config action and colour role is in docs/config.md. */
#include "cudbg/config.h"
#include "cudbg/options.h"
#include "tests/harness.h"
#include "tui/keys.h"
#include "tui/ui.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *doc(const char *name)
{
	char path[4096];
	size_t len;
	snprintf(path, sizeof path, "%s/docs/%s", test_root_dir(), name);
	return test_read_file(path, &len);
}

/* The text of "## TITLE" up to the next "## ". */
static char *section(const char *text, const char *title)
{
	char head[128];
	snprintf(head, sizeof head, "\n## %s\n", title);
	const char *s = strstr(text, head);
	if (!s)
		return NULL;
	s += strlen(head);
	const char *e = strstr(s, "\n## ");
	size_t n = e ? (size_t)(e - s) : strlen(s);
	char *out = malloc(n + 1);
	if (out) {
		memcpy(out, s, n);
		out[n] = '\0';
	}
	return out;
}

/* The keys column of a section's table, in order: "c  F5\nn  F10\n". */
static void doc_keys(const char *sec, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	for (const char *l = sec; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "| `", 3) != 0)
			continue;
		const char *e = strstr(l + 3, "` |");
		const char *eol = strchr(l, '\n');
		if (!e || (eol && e > eol))
			continue;
		n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%.*s\n",
				      (int)(e - l - 3), l + 3);
	}
}

/* A section of docs/keys.md lists exactly the keys the binary's table
 * gives, in its order (both ways: a key missing from the page, or a row
 * the program no longer has, fails). */
static void check_section(const char *text, const char *title, const char *want)
{
	char *sec = section(text, title);
	char got[4096];

	CHECK_MSG(sec, "docs/keys.md has no section '## %s'", title);
	doc_keys(sec, got, sizeof got);
	CHECK_MSG(strcmp(got, want) == 0, "docs/keys.md, section %s, lists the "
		  "keys\n%s\nbut the program has\n%s(write the rows in that order)",
		  title, got, want);
	free(sec);
}

TEST(keys_md_lists_the_key_tables)
{
	struct ui ui;
	char *text = doc("keys.md");
	char want[4096], keys[64];
	const char *what;
	size_t n = 0;

	for (size_t i = 0; key_help_next(&i, NULL, 0, keys, sizeof keys, &what);)
		n += (size_t)snprintf(want + n, sizeof want - n, "%s\n", keys);
	check_section(text, "Global keys", want);
	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	for (int p = 0; p < ui.npanes; p++) {
		const struct pane_ops *o = ui.panes[p].ops;
		n = 0;
		want[0] = '\0';
		for (size_t i = 0; pane_help_next(o, &i, keys, sizeof keys, &what);)
			n += (size_t)snprintf(want + n, sizeof want - n, "%s\n", keys);
		if (n)
			check_section(text, o->title, want);
	}
	ui_free(&ui);
	free(text);
}

/* Fails on a drift: a doc with a row the program lacks, or lacking one. */
TEST(keys_md_check_sees_drift)
{
	char got[256];

	doc_keys("intro\n| key | what |\n| --- | --- |\n| `c  F5` | continue |\n"
		 "| `n` | next |\nprose `x` |\n", got, sizeof got);
	CHECK_STR(got, "c  F5\nn\n");
}

/* The config file's actions are those of tui/keys.def with their default
 * keys, in its order: docs/config.md's action table, both ways. */
TEST(config_md_lists_the_action_table)
{
	char *text = doc("config.md");
	char want[2048], got[2048], b[32];
	size_t n = 0, m = 0;

	for (size_t i = 0; i < key_nrows; i++)
		if (key_rows[i].name)
			n += (size_t)snprintf(want + n, sizeof want - n, "| `%s` | `%s` |\n",
					      key_rows[i].name,
					      tk_label(key_rows[i].key, b, sizeof b));
	const char *t = strstr(text, "| action | default key |");
	CHECK_MSG(t, "docs/config.md has no action table");
	got[0] = '\0';
	/* its rows, up to the first line that is not one */
	for (const char *l = strchr(t, '\n') + 1; l && *l == '|'; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *c2 = strstr(l + 1, " | ");
		const char *c3 = c2 ? strstr(c2 + 3, " |") : NULL;
		if (strncmp(l, "| ---", 5) == 0 || !c3)
			continue;
		m += (size_t)snprintf(got + m, sizeof got - m, "%.*s\n",
				      (int)(c3 + 2 - l), l);
	}
	CHECK_MSG(strcmp(got, want) == 0, "docs/config.md's action table has\n%s"
		  "but tui/keys.def has\n%s", got, want);
	free(text);
}

TEST(man_page_names_every_option)
{
	char *man = doc("cudbg-tui.1");
	const char *u = options_usage();
	int seen = 0;
	for (const char *p = strstr(u, "--"); p; p = strstr(p + 2, "--")) {
		char name[64], want[80];
		size_t n = 0;
		p += 2;
		while (n + 1 < sizeof name && (islower((unsigned char)p[n]) ||
					       p[n] == '-'))
			n++;
		if (n == 0)
			continue; /* the bare "--" */
		memcpy(name, p, n);
		name[n] = '\0';
		/* groff writes a dash as \- */
		size_t o = 0;
		o += (size_t)snprintf(want, sizeof want, "\\-\\-");
		for (size_t i = 0; i < n && o + 3 < sizeof want; i++) {
			if (name[i] == '-')
				want[o++] = '\\';
			want[o++] = name[i];
		}
		want[o] = '\0';
		CHECK_MSG(strstr(man, want), "docs/cudbg-tui.1 does not "
			  "document --%s (looked for %s)", name, want);
		seen++;
	}
	CHECK(seen >= 20);
	free(man);
}

TEST(config_md_names_every_action_and_role)
{
	char *text = doc("config.md");
	for (size_t i = 0; config_action_name(i); i++) {
		char want[64];
		snprintf(want, sizeof want, "`%s`", config_action_name(i));
		CHECK_MSG(strstr(text, want), "docs/config.md lacks the "
			  "action %s", want);
	}
	for (int r = 1; config_role_name(r); r++) {
		char want[64];
		snprintf(want, sizeof want, "`%s`", config_role_name(r));
		CHECK_MSG(strstr(text, want), "docs/config.md lacks the "
			  "colour role %s", want);
	}
	free(text);
}
