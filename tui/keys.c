/* Key names for the help overlay and the test script. */
#include "tui/keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{ "Enter", TK_ENTER },   { "Esc", TK_ESC },     { "Tab", TK_TAB },
	{ "S-Tab", TK_BTAB },    { "Up", TK_UP },       { "Down", TK_DOWN },
	{ "Left", TK_LEFT },     { "Right", TK_RIGHT }, { "Home", TK_HOME },
	{ "End", TK_END },       { "PgUp", TK_PGUP },   { "PgDn", TK_PGDN },
	{ "Ins", TK_INSERT },    { "Del", TK_DELETE },  { "BS", TK_BACKSPACE },
	{ "Space", ' ' },        { "Lt", '<' },         { "Resize", TK_RESIZE },
};

const char *tk_name(int key, char *buf, size_t cap)
{
	for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++) {
		if (key_names[i].key == key && key != ' ' && key != '<') {
			snprintf(buf, cap, "<%s>", key_names[i].name);
			return buf;
		}
	}
	if (key > TK_F0 && key < TK__MAX)
		snprintf(buf, cap, "<F%d>", key - TK_F0);
	else if (key >= 0 && key < 32)
		snprintf(buf, cap, "<C-%c>", key + 'a' - 1);
	else if (key >= 32 && key < 256)
		snprintf(buf, cap, "%c", key);
	else
		snprintf(buf, cap, "<0x%x>", (unsigned)key);
	return buf;
}

static int key_lookup(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
		if (strlen(key_names[i].name) == n &&
		    strncasecmp(key_names[i].name, name, n) == 0)
			return key_names[i].key;
	if (n == 3 && (name[0] == 'C' || name[0] == 'c') && name[1] == '-' &&
	    name[2] >= '@' && name[2] <= 'z')
		return TK_CTRL(name[2]);
	if (n >= 2 && n <= 3 && (name[0] == 'F' || name[0] == 'f')) {
		int f = atoi(name + 1);
		if (f >= 1 && f <= 24)
			return TK_F(f);
	}
	return TK_NONE;
}

int tk_parse(const char **s)
{
	const char *p = *s;

	if (*p == '<') {
		const char *end = strchr(p, '>');
		if (end && end > p + 1) {
			int k = key_lookup(p + 1, (size_t)(end - p - 1));
			if (k != TK_NONE)
				*s = end + 1;
			return k;
		}
	}
	*s = p + 1;
	return (unsigned char)*p;
}

const char *tk_label(int key, char *buf, size_t cap)
{
	if (key == ' ')
		snprintf(buf, cap, "Space");
	else if (key == TK_INSERT || key == TK_DELETE)
		snprintf(buf, cap, "%s", key == TK_INSERT ? "Insert" : "Delete");
	else if (key > TK_F(12) && key < TK__MAX)
		snprintf(buf, cap, "S-F%d", key - TK_F(12));
	else if (key > 255 || key < 32 || key == 127) {
		char tmp[32];
		size_t n = strlen(tk_name(key, tmp, sizeof tmp));
		/* "<Tab>" without its brackets */
		snprintf(buf, cap, "%.*s", (int)(n > 2 ? n - 2 : n),
			 n > 2 ? tmp + 1 : tmp);
	} else
		snprintf(buf, cap, "%c", key);
	return buf;
}

const struct key_row key_rows[] = {
#define KEY_ACTION(id, name, key, alt, cgdb, help) \
	{ KA_##id, name, key, alt, cgdb, NULL, help },
#define KEY_NOTE(keys, help) { -1, NULL, TK_NONE, TK_NONE, TK_NONE, keys, help },
#include "tui/keys.def"
#undef KEY_ACTION
#undef KEY_NOTE
};
const size_t key_nrows = sizeof key_rows / sizeof key_rows[0];

int key_action_of(int key)
{
	if (key == TK_NONE)
		return -1;
	for (size_t i = 0; i < key_nrows; i++)
		if (key_rows[i].action >= 0 &&
		    (key_rows[i].key == key || key_rows[i].alt == key))
			return key_rows[i].action;
	return -1;
}

/* Appends a row's keys to keys[*n..cap), two spaces apart. */
static void row_keys(const struct key_row *r, char *keys, size_t cap, size_t *n)
{
	int k[2] = { r->key, r->alt };
	char b[32];

	for (int j = 0; j < 2; j++) {
		const char *s = r->keys ? r->keys : k[j] != TK_NONE ? tk_label(k[j], b, sizeof b) : NULL;
		if (!s)
			continue;
		int w = snprintf(keys + *n, cap - *n, "%s%s", *n ? "  " : "", s);
		if (w > 0)
			*n = *n + (size_t)w < cap ? *n + (size_t)w : cap - 1;
		if (r->keys)
			break;
	}
}

int key_help_next(size_t *i, char *keys, size_t cap, const char **what)
{
	size_t n = 0;

	if (!cap)
		return 0;
	keys[0] = '\0';
	for (; *i < key_nrows; (*i)++) {
		const struct key_row *r = &key_rows[*i];
		if (!r->help)
			continue;
		row_keys(r, keys, cap, &n);
		if (r->help[0]) {
			*what = r->help;
			(*i)++;
			return 1;
		}
	}
	return 0;
}
