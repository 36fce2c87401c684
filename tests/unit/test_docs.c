/* The documents name what the program has: every key of the help overlay
 * is in docs/keys.md under its pane, every option of --help is in the man
 * page, every config action and colour role is in docs/config.md. */
#include "cudbg/config.h"
#include "cudbg/options.h"
#include "tests/harness.h"
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

static void check_keys(const char *text, const char *title,
		       const struct key_help *h)
{
	char *sec = section(text, title);
	CHECK_MSG(sec, "docs/keys.md has no section '## %s'", title);
	for (; h && h->keys; h++) {
		char want[128];
		snprintf(want, sizeof want, "| `%s` |", h->keys);
		CHECK_MSG(strstr(sec, want), "docs/keys.md, section %s, lacks "
			  "the key `%s` (%s): add a row", title, h->keys,
			  h->what);
	}
	free(sec);
}

TEST(keys_md_names_every_key)
{
	struct ui ui;
	char *text = doc("keys.md");
	memset(&ui, 0, sizeof ui);
	CHECK(ui_init(&ui) == 0);
	check_keys(text, "Global keys", ui_global_help);
	for (int i = 0; i < ui.npanes; i++)
		if (ui.panes[i].ops->help)
			check_keys(text, ui.panes[i].ops->title,
				   ui.panes[i].ops->help);
	ui_free(&ui);
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
