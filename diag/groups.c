/* Groups sanitizer findings: one bad line in a warp-wide error gives one
 * record per thread (misaligned.sanitizer.xml: 48 records, one line), so
 * the report lists groups with their count and ranges, each group's first
 * record still reachable by its number (replay to fault uses it). */
#include "diag/state.h"
#include "cudbg/sanitizer.h"

#include <stdlib.h>
#include <string.h>

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool same_group(const struct diag_san_record *a,
		       const struct diag_san_record *b)
{
	return a->kind == b->kind && a->line == b->line &&
	       a->size == b->size && same_str(a->text, b->text) &&
	       same_str(a->exception, b->exception) &&
	       same_str(a->error, b->error) && same_str(a->path, b->path) &&
	       same_str(a->func, b->func) && same_str(a->api, b->api) &&
	       same_str(a->direction, b->direction) &&
	       same_str(a->space, b->space) && same_str(a->message, b->message);
}

static unsigned umin(unsigned a, unsigned b) { return a < b ? a : b; }
static unsigned umax(unsigned a, unsigned b) { return a > b ? a : b; }

static void dim_widen(struct diag_dim3 *lo, struct diag_dim3 *hi,
		      struct diag_dim3 v)
{
	lo->x = umin(lo->x, v.x);
	lo->y = umin(lo->y, v.y);
	lo->z = umin(lo->z, v.z);
	hi->x = umax(hi->x, v.x);
	hi->y = umax(hi->y, v.y);
	hi->z = umax(hi->z, v.z);
}

static void group_start(struct diag_finding_group *g, size_t i,
			const struct diag_san_record *r)
{
	memset(g, 0, sizeof *g);
	g->first = i;
	g->count = 1;
	g->has_who = r->has_who;
	g->thread_min = g->thread_max = r->thread;
	g->block_min = g->block_max = r->block;
	g->has_address = r->has_address;
	g->address_min = g->address_max = r->address;
	g->has_alloc = r->has_alloc;
	g->alloc_address = r->alloc_address;
	g->alloc_size = r->alloc_size;
	g->distance_min = g->distance_max = r->distance;
}

/* An allocation part holds only while every record with one agrees. */

/* The allocation part holds while every record that has one agrees. */
static void group_add(struct diag_finding_group *g,
		      const struct diag_san_record *r, bool *alloc_mixed)
{
	g->count++;
	if (r->has_who && g->has_who) {
		dim_widen(&g->thread_min, &g->thread_max, r->thread);
		dim_widen(&g->block_min, &g->block_max, r->block);
	}
	if (r->has_address && g->has_address) {
		if (r->address < g->address_min)
			g->address_min = r->address;
		if (r->address > g->address_max)
			g->address_max = r->address;
	}
	if (!r->has_alloc || *alloc_mixed)
		return;
	if (!g->has_alloc) {
		g->has_alloc = true;
		g->alloc_address = r->alloc_address;
		g->alloc_size = r->alloc_size;
		g->distance_min = g->distance_max = r->distance;
	} else if (g->alloc_address != r->alloc_address) {
		g->has_alloc = false;
		*alloc_mixed = true;
	} else {
		if (r->distance < g->distance_min)
			g->distance_min = r->distance;
		if (r->distance > g->distance_max)
			g->distance_max = r->distance;
	}
}

void diag_group_findings(struct diag_fault *f)
{
	free(f->groups);
	f->groups = NULL;
	f->n_groups = 0;
	if (!f->n_findings)
		return;
	struct diag_finding_group *g = calloc(f->n_findings, sizeof *g);
	bool *mixed = calloc(f->n_findings, sizeof *mixed);
	if (!g || !mixed) {
		free(g);
		free(mixed);
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < f->n_findings; i++) {
		const struct diag_san_record *r = f->findings[i];
		size_t k = 0;
		while (k < n && !same_group(f->findings[g[k].first], r))
			k++;
		if (k == n)
			group_start(&g[n++], i, r);
		else
			group_add(&g[k], r, &mixed[k]);
	}
	free(mixed);
	f->groups = g;
	f->n_groups = n;
}

bool diag_finding_in_group(const struct diag_fault *f,
			   const struct diag_finding_group *g, size_t i)
{
	if (!g || i >= f->n_findings || g->first >= f->n_findings)
		return false;
	/* a record joins the first group it matches (diag_group_findings),
	 * and matching is an equivalence: its group is the one whose first
	 * record it matches */
	return same_group(f->findings[g->first], f->findings[i]);
}
