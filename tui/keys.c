/* Key names for the help overlay and the test script. */
#include "tui/keys.h"
#include "cudbg/config.h"

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

/* Appends label to keys[*n..cap), two spaces after what is there. */
static void add_label(const char *label, char *keys, size_t cap, size_t *n)
{
	int w = snprintf(keys + *n, cap - *n, "%s%s", *n ? "  " : "", label);

	if (w > 0)
		*n = *n + (size_t)w < cap ? *n + (size_t)w : cap - 1;
}

/* The action a bind's key does in the end: the last bind of that key. */
static bool bind_wins(const struct config_bind *b, size_t nb, size_t j)
{
	for (size_t k = j + 1; k < nb; k++)
		if (b[k].key == b[j].key)
			return false;
	return true;
}

/* Whether key is bound (in the end) to another action than the one
 * whose default key is does. */
static bool bound_elsewhere(const struct config_bind *b, size_t nb, int key, int does)
{
	for (size_t j = nb; j-- > 0;)
		if (b[j].key == key)
			return b[j].does != does;
	return false;
}

/* Appends a row's keys in force: its default keys not bound elsewhere,
 * then the keys bound to it. */
static void row_keys(const struct key_row *r, const struct config_bind *b, size_t nb,
		     char *keys, size_t cap, size_t *n)
{
	char l[32];

	if (r->keys) {
		add_label(r->keys, keys, cap, n);
		return;
	}
	if (r->key != TK_NONE && !bound_elsewhere(b, nb, r->key, r->key))
		add_label(tk_label(r->key, l, sizeof l), keys, cap, n);
	if (r->alt != TK_NONE && !bound_elsewhere(b, nb, r->alt, r->key))
		add_label(tk_label(r->alt, l, sizeof l), keys, cap, n);
	for (size_t j = 0; j < nb; j++)
		if (b[j].does == r->key && b[j].key != r->key && b[j].key != r->alt &&
		    bind_wins(b, nb, j))
			add_label(tk_label(b[j].key, l, sizeof l), keys, cap, n);
}

int key_help_next(size_t *i, const struct config_bind *binds, size_t nb,
		  char *keys, size_t cap, const char **what)
{
	size_t n = 0;

	if (!cap)
		return 0;
	keys[0] = '\0';
	for (; *i < key_nrows; (*i)++) {
		const struct key_row *r = &key_rows[*i];
		if (!r->help)
			continue;
		row_keys(r, binds, binds ? nb : 0, keys, cap, &n);
		if (r->help[0]) {
			*what = r->help;
			(*i)++;
			return 1;
		}
	}
	return 0;
}
