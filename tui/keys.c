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
