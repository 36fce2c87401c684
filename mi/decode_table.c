/* The generic table decoder (-cuda-info-*, BreakpointTable) and the typed
 * row accessors over it. */
#include "cudbg/decode.h"
#include "mi/decode_int.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	enum dec_table_kind kind;
} table_names[] = {
	{ "InfoCudaDevicesTable", DEC_TABLE_DEVICES },
	{ "InfoCudaSmsTable", DEC_TABLE_SMS },
	{ "InfoCudaWarpsTable", DEC_TABLE_WARPS },
	{ "InfoCudaLanesTable", DEC_TABLE_LANES },
	{ "InfoCudaKernelsTable", DEC_TABLE_KERNELS },
	{ "CoalescedInfoCudaBlocksTable", DEC_TABLE_BLOCKS },
	{ "UncoalescedInfoCudaBlocksTable", DEC_TABLE_BLOCKS_UNCOAL },
	{ "CoalescedInfoCudaThreadsTable", DEC_TABLE_THREADS },
	{ "UncoalescedInfoCudaThreadsTable", DEC_TABLE_THREADS_UNCOAL },
	{ "InfoCudaContextsTable", DEC_TABLE_CONTEXTS },
	{ "BreakpointTable", DEC_TABLE_BREAKPOINTS },
};

enum dec_table_kind dec_table_kind_of(const char *name)
{
	if (!name)
		return DEC_TABLE_UNKNOWN;
	for (size_t i = 0; i < sizeof table_names / sizeof table_names[0]; i++)
		if (strcmp(name, table_names[i].name) == 0)
			return table_names[i].kind;
	/* Not seen in a recording yet; named as cuda-gdb names the others. */
	if (strstr(name, "LaunchTrace"))
		return DEC_TABLE_LAUNCH_TRACE;
	if (strstr(name, "Managed"))
		return DEC_TABLE_MANAGED;
	return DEC_TABLE_UNKNOWN;
}

static const char *const known_cols[] = {
#define DEC_COL_NAME(n) #n,
	DEC_COLUMNS(DEC_COL_NAME)
#undef DEC_COL_NAME
};

int dec_table_col(const struct dec_table *t, const char *name)
{
	if (!t || !name)
		return -1;
	for (size_t i = 0; i < t->nr_cols; i++)
		if (strcmp(t->col_names[i], name) == 0)
			return (int)i;
	return -1;
}

const char *dec_table_cell(const struct dec_table *t, size_t row, int col)
{
	if (!t || col < 0 || (size_t)col >= t->nr_cols || row >= t->nr_rows)
		return NULL;
	return t->cells[row * t->nr_cols + (size_t)col];
}

const char *dec_table_get(const struct dec_table *t, size_t row,
			  const char *col_name)
{
	return dec_table_cell(t, row, dec_table_col(t, col_name));
}

/* The table: the first result that is a tuple with a body. */
static const struct mi_node *table_find(const struct mi_node *results)
{
	for (const struct mi_node *n = results; n; n = n->next)
		if (n->kind == MI_NODE_TUPLE && mi_find(n->child, "body"))
			return n;
	return NULL;
}

static int cols_alloc(struct dec_table *t, size_t cap)
{
	struct dec_arena *a = t->arena;
	t->col_names = dec_arena_alloc(a, cap * sizeof *t->col_names);
	t->col_hdrs = dec_arena_alloc(a, cap * sizeof *t->col_hdrs);
	t->widths = dec_arena_alloc(a, cap * sizeof *t->widths);
	t->aligns = dec_arena_alloc(a, cap * sizeof *t->aligns);
	if (!t->col_names || !t->col_hdrs || !t->widths || !t->aligns)
		return MI_ENOMEM;
	return 0;
}

static int col_add(struct dec_table *t, const char *name, size_t len,
		   const struct mi_node *hdr_fields)
{
	int err = 0;
	size_t i = t->nr_cols;
	t->col_names[i] = dec_arena_strndup(t->arena, name, len);
	if (!t->col_names[i])
		return MI_ENOMEM;
	const char *h = hdr_fields ? dec_str(t->arena, hdr_fields, "colhdr",
					     &err) : NULL;
	t->col_hdrs[i] = h ? h : "";
	t->widths[i] = dec_find_int(hdr_fields, "width", 0);
	const char *al = mi_find_str(hdr_fields, "alignment");
	t->aligns[i] = al && al[0] == '-' ? -dec_int_or(al + 1, 0)
					  : dec_int_or(al, 0);
	t->nr_cols++;
	return err;
}

/* Columns from hdr, then fields of the first row that hdr lacks. */
static int cols_decode(struct dec_table *t, const struct mi_node *hdr,
		       const struct mi_node *first_row)
{
	size_t cap = (hdr && hdr->kind != MI_NODE_STRING ? hdr->count : 0) +
		     (first_row ? first_row->count : 0) + 1;
	int err = cols_alloc(t, cap);
	if (err)
		return err;
	if (hdr && hdr->kind != MI_NODE_STRING) {
		for (const struct mi_node *h = hdr->child; h; h = h->next) {
			const char *name = h->kind == MI_NODE_TUPLE ?
				mi_find_str(h->child, "col_name") : NULL;
			if (name && (err = col_add(t, name, strlen(name),
						   h->child)))
				return err;
		}
	}
	for (const struct mi_node *f = first_row ? first_row->child : NULL; f;
	     f = f->next) {
		if (f->name && dec_table_col(t, f->name) < 0 &&
		    (err = col_add(t, f->name, strlen(f->name), NULL)))
			return err;
	}
	return 0;
}

/* Rows list their fields in hdr order, so the next column is tried first
 * and the whole decode stays linear; a mismatch falls back to a scan. */
static int col_match(const struct dec_table *t, const char *name,
		     size_t expect)
{
	if (expect < t->nr_cols && strcmp(t->col_names[expect], name) == 0)
		return (int)expect;
	return dec_table_col(t, name);
}

static int row_decode(struct dec_table *t, const struct mi_node *row,
		      const char **cells)
{
	size_t expect = 0;
	for (const struct mi_node *f = row->child; f; f = f->next) {
		if (!f->name || f->kind != MI_NODE_STRING)
			continue;
		int c = col_match(t, f->name, expect);
		if (c < 0)
			continue;
		cells[c] = dec_arena_strndup(t->arena, f->str, f->len);
		if (!cells[c])
			return MI_ENOMEM;
		expect = (size_t)c + 1;
	}
	return 0;
}

static int body_decode(struct dec_table *t, const struct mi_node *body)
{
	size_t rows = body->count;
	t->cells = dec_arena_alloc(t->arena, (rows ? rows : 1) * t->nr_cols *
						     sizeof *t->cells + 1);
	if (!t->cells)
		return MI_ENOMEM;
	for (const struct mi_node *r = body->child; r; r = r->next) {
		if (r->kind != MI_NODE_TUPLE)
			continue;
		int err = row_decode(t, r, t->cells + t->nr_rows * t->nr_cols);
		if (err)
			return err;
		t->nr_rows++;
	}
	return 0;
}

static const struct mi_node *first_tuple(const struct mi_node *body)
{
	for (const struct mi_node *r = body->child; r; r = r->next)
		if (r->kind == MI_NODE_TUPLE)
			return r;
	return NULL;
}

static int table_fill(struct dec_table *t, const struct mi_node *tn)
{
	int err = 0;
	const struct mi_node *c = tn->child;
	const struct mi_node *body = mi_find(c, "body");
	if (!body || body->kind == MI_NODE_STRING)
		return DEC_ESHAPE;
	const char *name = tn->name ? tn->name : "";
	t->name = dec_arena_strndup(t->arena, name, strlen(name));
	if (!t->name)
		return MI_ENOMEM;
	t->kind = dec_table_kind_of(tn->name);
	const char *nr = mi_find_str(c, "nr_rows");
	t->declared_rows = nr ? dec_int_or(nr, -1) : -1;
	err = cols_decode(t, mi_find(c, "hdr"), first_tuple(body));
	if (!err)
		err = body_decode(t, body);
	for (int k = 0; k < DEC_COL_COUNT; k++)
		t->col[k] = dec_table_col(t, known_cols[k]);
	return err;
}

int dec_table_decode(const struct mi_node *results, struct dec_table *out)
{
	*out = (struct dec_table){ .declared_rows = -1 };
	for (int k = 0; k < DEC_COL_COUNT; k++)
		out->col[k] = -1;
	const struct mi_node *tn = table_find(results);
	if (!tn)
		return DEC_EMISSING;
	int err = dec_begin(&out->arena);
	if (!err)
		err = table_fill(out, tn);
	if (err)
		dec_table_free(out);
	return err;
}

void dec_table_free(struct dec_table *t)
{
	if (!t)
		return;
	dec_arena_free(t->arena);
	*t = (struct dec_table){ .declared_rows = -1 };
	for (int k = 0; k < DEC_COL_COUNT; k++)
		t->col[k] = -1;
}

/* ---- typed rows ---- */

static const char *cell(const struct dec_table *t, size_t row, enum dec_col c)
{
	return dec_table_cell(t, row, t->col[c]);
}

static int icell(const struct dec_table *t, size_t row, enum dec_col c)
{
	return dec_int_or(cell(t, row, c), -1);
}

static uint64_t ucell(const struct dec_table *t, size_t row, enum dec_col c)
{
	uint64_t v = 0;
	dec_u64_parse(cell(t, row, c), &v);
	return v;
}

static struct dec_dim3 dcell(const struct dec_table *t, size_t row,
			     enum dec_col c)
{
	struct dec_dim3 d;
	dec_dim3_parse(cell(t, row, c), &d);
	return d;
}

static bool current(const struct dec_table *t, size_t row)
{
	const char *s = cell(t, row, DEC_COL_current);
	return s && s[0] == '*';
}

static bool row_ok(const struct dec_table *t, size_t row,
		   enum dec_table_kind a, enum dec_table_kind b)
{
	return t && (t->kind == a || t->kind == b) && row < t->nr_rows;
}

int dec_table_device(const struct dec_table *t, size_t row,
		     struct dec_device_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_DEVICES, DEC_TABLE_DEVICES))
		return DEC_ESHAPE;
	*out = (struct dec_device_row){
		.current = current(t, row),
		.device = icell(t, row, DEC_COL_device),
		.pci_bus = cell(t, row, DEC_COL_pci_bus),
		.name = cell(t, row, DEC_COL_name),
		.description = cell(t, row, DEC_COL_description),
		.sm_type = cell(t, row, DEC_COL_sm_type),
		.num_sms = icell(t, row, DEC_COL_num_sms),
		.num_warps = icell(t, row, DEC_COL_num_warps),
		.num_lanes = icell(t, row, DEC_COL_num_lanes),
		.num_regs = icell(t, row, DEC_COL_num_regs),
		.active_sms_mask = cell(t, row, DEC_COL_active_sms_mask),
	};
	return 0;
}

int dec_table_sm(const struct dec_table *t, size_t row, struct dec_sm_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_SMS, DEC_TABLE_SMS))
		return DEC_ESHAPE;
	*out = (struct dec_sm_row){
		.current = current(t, row),
		.sm = icell(t, row, DEC_COL_sm),
		.active_warps_mask = ucell(t, row, DEC_COL_active_warps_mask),
	};
	return 0;
}

int dec_table_warp(const struct dec_table *t, size_t row,
		   struct dec_warp_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_WARPS, DEC_TABLE_WARPS))
		return DEC_ESHAPE;
	*out = (struct dec_warp_row){
		.current = current(t, row),
		.warp = icell(t, row, DEC_COL_warp),
		.active_lanes_mask =
			(uint32_t)ucell(t, row, DEC_COL_active_lanes_mask),
		.divergent_lanes_mask =
			(uint32_t)ucell(t, row, DEC_COL_divergent_lanes_mask),
		.active_pc = ucell(t, row, DEC_COL_active_physical_pc),
		.kernel = icell(t, row, DEC_COL_kernel),
		.block = dcell(t, row, DEC_COL_blockIdx),
		.thread = dcell(t, row, DEC_COL_threadIdx),
	};
	return 0;
}

int dec_table_lane(const struct dec_table *t, size_t row,
		   struct dec_lane_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_LANES, DEC_TABLE_LANES))
		return DEC_ESHAPE;
	*out = (struct dec_lane_row){
		.current = current(t, row),
		.lane = icell(t, row, DEC_COL_lane),
		.state = cell(t, row, DEC_COL_state),
		.pc = ucell(t, row, DEC_COL_physical_pc),
		.thread = dcell(t, row, DEC_COL_threadIdx),
		.exception = cell(t, row, DEC_COL_exception),
	};
	return 0;
}

int dec_table_kernel(const struct dec_table *t, size_t row,
		     struct dec_kernel_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_KERNELS, DEC_TABLE_KERNELS))
		return DEC_ESHAPE;
	uint64_t grid;
	bool has_grid = dec_u64_parse(cell(t, row, DEC_COL_grid), &grid) &&
			grid <= INT64_MAX;
	*out = (struct dec_kernel_row){
		.current = current(t, row),
		.kernel = icell(t, row, DEC_COL_kernel),
		.parent = cell(t, row, DEC_COL_parent),
		.device = icell(t, row, DEC_COL_device),
		.grid = has_grid ? (int64_t)grid : -1,
		.status = cell(t, row, DEC_COL_status),
		.sms_mask = cell(t, row, DEC_COL_sms_mask),
		.grid_dim = dcell(t, row, DEC_COL_gridDim),
		.block_dim = dcell(t, row, DEC_COL_blockDim),
		.invocation = cell(t, row, DEC_COL_invocation),
	};
	return 0;
}

int dec_table_block(const struct dec_table *t, size_t row,
		    struct dec_block_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_BLOCKS, DEC_TABLE_BLOCKS_UNCOAL))
		return DEC_ESHAPE;
	*out = (struct dec_block_row){
		.current = current(t, row),
		.kernel = icell(t, row, DEC_COL_kernel),
		.state = cell(t, row, DEC_COL_state),
		.device = -1,
		.sm = -1,
	};
	if (t->kind == DEC_TABLE_BLOCKS) {
		out->from = dcell(t, row, DEC_COL_from);
		out->to = dcell(t, row, DEC_COL_to);
		uint64_t n;
		out->count = dec_u64_parse(cell(t, row, DEC_COL_count), &n) &&
					     n <= INT32_MAX ? (long)n : -1;
	} else {
		out->from = out->to = dcell(t, row, DEC_COL_blockIdx);
		out->count = 1;
		out->device = icell(t, row, DEC_COL_device);
		out->sm = icell(t, row, DEC_COL_sm);
	}
	return 0;
}

int dec_table_thread(const struct dec_table *t, size_t row,
		     struct dec_thread_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_THREADS, DEC_TABLE_THREADS_UNCOAL))
		return DEC_ESHAPE;
	const char *file = cell(t, row, DEC_COL_filename);
	*out = (struct dec_thread_row){
		.current = current(t, row),
		.kernel = icell(t, row, DEC_COL_kernel),
		.pc = ucell(t, row, DEC_COL_virtual_pc),
		.filename = file ? file : "",
		.line = dec_int_or(cell(t, row, DEC_COL_line), 0),
		.device = -1, .sm = -1, .warp = -1, .lane = -1,
	};
	if (t->kind == DEC_TABLE_THREADS) {
		out->from_block = dcell(t, row, DEC_COL_from_blockIdx);
		out->from_thread = dcell(t, row, DEC_COL_from_threadIdx);
		out->to_block = dcell(t, row, DEC_COL_to_blockIdx);
		out->to_thread = dcell(t, row, DEC_COL_to_threadIdx);
		out->count = icell(t, row, DEC_COL_count);
	} else {
		out->from_block = out->to_block = dcell(t, row, DEC_COL_blockIdx);
		out->from_thread = out->to_thread =
			dcell(t, row, DEC_COL_threadIdx);
		out->count = 1;
		out->device = icell(t, row, DEC_COL_device);
		out->sm = icell(t, row, DEC_COL_sm);
		out->warp = icell(t, row, DEC_COL_warp);
		out->lane = icell(t, row, DEC_COL_lane);
	}
	return 0;
}

int dec_table_context(const struct dec_table *t, size_t row,
		      struct dec_context_row *out)
{
	if (!row_ok(t, row, DEC_TABLE_CONTEXTS, DEC_TABLE_CONTEXTS))
		return DEC_ESHAPE;
	*out = (struct dec_context_row){
		.current = current(t, row),
		.context = ucell(t, row, DEC_COL_context),
		.device = icell(t, row, DEC_COL_device),
		.state = cell(t, row, DEC_COL_state),
	};
	return 0;
}

/* ---- streamed tables ---- */

/* Interned strings: open addressing over pointers into the arena. */
struct intern {
	const char **slot;
	size_t cap, used;
};

struct dec_table_builder {
	struct dec_table t;     /* columns from the first row; cells below */
	const char **cells;     /* malloc'd, rows * nr_cols, grown doubling */
	size_t cells_cap;       /* in rows */
	struct intern in;
	int error;
};

static uint64_t str_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int intern_grow(struct intern *in)
{
	size_t cap = in->cap ? in->cap * 2 : 1024;
	const char **slot = calloc(cap, sizeof *slot);
	if (!slot)
		return MI_ENOMEM;
	for (size_t i = 0; i < in->cap; i++) {
		const char *s = in->slot[i];
		if (!s)
			continue;
		size_t k = str_hash(s, strlen(s)) & (cap - 1);
		while (slot[k])
			k = (k + 1) & (cap - 1);
		slot[k] = s;
	}
	free(in->slot);
	in->slot = slot;
	in->cap = cap;
	return 0;
}

/* The interned copy of s[0..n) (cells hold no NUL bytes in practice; one
 * that did would intern as its prefix, like dec_arena_strndup's users). */
static const char *intern(struct dec_table_builder *b, const char *s, size_t n)
{
	struct intern *in = &b->in;
	if ((in->used + 1) * 2 > in->cap && intern_grow(in))
		return NULL;
	size_t k = str_hash(s, n) & (in->cap - 1);
	for (; in->slot[k]; k = (k + 1) & (in->cap - 1))
		if (strncmp(in->slot[k], s, n) == 0 && in->slot[k][n] == '\0')
			return in->slot[k];
	const char *copy = dec_arena_strndup(b->t.arena, s, n);
	if (copy) {
		in->slot[k] = copy;
		in->used++;
	}
	return copy;
}

struct dec_table_builder *dec_table_builder_new(void)
{
	struct dec_table_builder *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->t.declared_rows = -1;
	if (dec_begin(&b->t.arena)) {
		free(b);
		return NULL;
	}
	return b;
}

void dec_table_builder_free(struct dec_table_builder *b)
{
	if (!b)
		return;
	dec_arena_free(b->t.arena);
	free(b->cells);
	free(b->in.slot);
	free(b);
}

static int builder_room(struct dec_table_builder *b)
{
	if (b->t.nr_rows < b->cells_cap)
		return 0;
	size_t cap = b->cells_cap ? b->cells_cap * 2 : 256;
	const char **n = realloc(b->cells, cap * b->t.nr_cols * sizeof *n);
	if (!n)
		return MI_ENOMEM;
	b->cells = n;
	b->cells_cap = cap;
	return 0;
}

int dec_table_builder_row(struct dec_table_builder *b,
			  const struct mi_node *row)
{
	if (b->error)
		return b->error;
	if (!row || row->kind != MI_NODE_TUPLE)
		return 0;
	if (b->t.nr_cols == 0 && (b->error = cols_decode(&b->t, NULL, row)))
		return b->error;
	if ((b->error = builder_room(b)))
		return b->error;
	const char **cells = b->cells + b->t.nr_rows * b->t.nr_cols;
	memset(cells, 0, b->t.nr_cols * sizeof *cells);
	size_t expect = 0;
	for (const struct mi_node *f = row->child; f; f = f->next) {
		if (!f->name || f->kind != MI_NODE_STRING)
			continue;
		int c = col_match(&b->t, f->name, expect);
		if (c < 0)
			continue; /* a field the first row lacked: dropped */
		if (!(cells[c] = intern(b, f->str, f->len)))
			return b->error = MI_ENOMEM;
		expect = (size_t)c + 1;
	}
	b->t.nr_rows++;
	return 0;
}

/* Header facts (name, nr_rows, colhdr/width/alignment of known columns)
 * from the final record; rows that came whole are added here too. */
static int builder_header(struct dec_table_builder *b,
			  const struct mi_node *tn)
{
	struct dec_table *t = &b->t;
	const struct mi_node *c = tn->child;
	const char *name = tn->name ? tn->name : "";
	if (!(t->name = dec_arena_strndup(t->arena, name, strlen(name))))
		return MI_ENOMEM;
	t->kind = dec_table_kind_of(name);
	const char *nr = mi_find_str(c, "nr_rows");
	t->declared_rows = nr ? dec_int_or(nr, -1) : -1;
	const struct mi_node *body = mi_find(c, "body");
	if (body && body->kind != MI_NODE_STRING)
		for (const struct mi_node *r = body->child; r; r = r->next)
			if (dec_table_builder_row(b, r))
				return b->error;
	const struct mi_node *hdr = mi_find(c, "hdr");
	if (t->nr_cols == 0)
		return cols_decode(t, hdr, NULL);
	for (const struct mi_node *h = hdr && hdr->kind != MI_NODE_STRING ?
					       hdr->child : NULL; h; h = h->next) {
		const char *cn = h->kind == MI_NODE_TUPLE ?
			mi_find_str(h->child, "col_name") : NULL;
		int k = cn ? dec_table_col(t, cn) : -1;
		if (k < 0)
			continue;
		int err = 0;
		const char *hd = dec_str(t->arena, h->child, "colhdr", &err);
		t->col_hdrs[k] = hd ? hd : "";
		t->widths[k] = dec_find_int(h->child, "width", 0);
		const char *al = mi_find_str(h->child, "alignment");
		t->aligns[k] = al && al[0] == '-' ? -dec_int_or(al + 1, 0)
						  : dec_int_or(al, 0);
	}
	return 0;
}

int dec_table_builder_finish(struct dec_table_builder *b,
			     const struct mi_node *results,
			     struct dec_table *out)
{
	*out = (struct dec_table){ .declared_rows = -1 };
	for (int k = 0; k < DEC_COL_COUNT; k++)
		out->col[k] = -1;
	const struct mi_node *tn = NULL;
	for (const struct mi_node *n = results; n && !tn; n = n->next)
		if (n->kind == MI_NODE_TUPLE && mi_find(n->child, "body"))
			tn = n;
	int err = b->error ? b->error : tn ? builder_header(b, tn) : DEC_EMISSING;
	if (!err && !b->cells && (err = builder_room(b)) == 0 && !b->cells)
		err = MI_ENOMEM;
	if (!err && (err = dec_arena_adopt(b->t.arena, b->cells,
					   b->cells_cap * b->t.nr_cols *
						   sizeof *b->cells)) == 0) {
		b->t.cells = b->cells;
		b->cells = NULL;
		*out = b->t;
		b->t.arena = NULL;
		for (int k = 0; k < DEC_COL_COUNT; k++)
			out->col[k] = dec_table_col(out, known_cols[k]);
	}
	dec_table_builder_free(b);
	return err;
}
