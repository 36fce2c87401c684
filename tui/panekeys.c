/* The panes' key tables (struct pane_key, tui/panes/pane.h): one row gives a
 * key's handler and its help line, so a pane's help cannot drift from
 * what its keys do. */
#include "tui/keys.h"
#include "tui/panes/pane.h"

#include <stdio.h>
#include <string.h>

/* The help lines of the search every searchable pane shares
 * (pane_search_key in tui/listview.c). */
static const struct pane_key search_keys[] = {
	{ '/', TK_CTRL('r'), NULL, NULL,
	  "search forward / back (capitals: exact case)" },
	{ 'n', 'N', NULL, NULL, "next / previous match while a search is on" },
	{ TK_ESC, TK_NONE, NULL, NULL, "end the search (n is `next` again)" },
	PANE_KEYS_END,
};

static bool row_is_end(const struct pane_key *k)
{
	return !k->fn && !k->what;
}

static bool row_takes(const struct pane_key *k, int key)
{
	return k->fn && key != TK_NONE && (k->key == key || k->alt == key);
}

int pane_keys_run(struct pane *p, struct ui *ui, int key)
{
	const struct pane_key *k = p->ops->keys;

	if (key == '\n')
		key = TK_ENTER; /* the same key to every pane */
	for (; k && !row_is_end(k); k++)
		if (row_takes(k, key)) {
			int r = k->fn(p, ui, key);
			if (r != PR_IGNORED)
				return r;
		}
	return PR_IGNORED;
}

/* A row's keys as the help writes them: "a  Insert". */
static void row_keys(const struct pane_key *k, char *keys, size_t cap)
{
	char a[32], b[32];

	if (k->keys)
		snprintf(keys, cap, "%s", k->keys);
	else if (k->alt != TK_NONE)
		snprintf(keys, cap, "%s  %s", tk_label(k->key, a, sizeof a),
			 tk_label(k->alt, b, sizeof b));
	else
		snprintf(keys, cap, "%s", tk_label(k->key, a, sizeof a));
}

int pane_help_next(const struct pane_ops *o, size_t *i, char *keys, size_t cap,
		   const char **what)
{
	size_t nsearch = o->search ? sizeof search_keys / sizeof search_keys[0] - 1 : 0;
	const struct pane_key *k;

	for (;; (*i)++) {
		if (*i < nsearch) {
			k = &search_keys[*i];
		} else {
			k = o->keys ? &o->keys[*i - nsearch] : NULL;
			if (!k || row_is_end(k))
				return 0;
		}
		if (!k->what)
			continue; /* a key that has no help line of its own */
		row_keys(k, keys, cap);
		*what = k->what;
		(*i)++;
		return 1;
	}
}
