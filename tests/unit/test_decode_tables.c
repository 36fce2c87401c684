/* The generic table decoder and the typed row accessors, on every
 * -cuda-info-* table the fixtures hold. */
#include "cudbg/decode.h"
#include "tests/harness.h"
#include "tests/unit/fixture.h"

#include <stdlib.h>
#include <string.h>

static void do_table(const struct mi_record *r, void *out)
{
	CHECK_INT(dec_table_decode(r->results, out), 0);
}

static void table_of(const char *fixture, const char *cmd, int nth,
		     struct dec_table *t)
{
	fx_decode(fixture, cmd, "^done", nth, do_table, t);
}

#define CHECK_DIM(d, X, Y, Z)                                               \
	do {                                                                \
		CHECK((d).valid);                                           \
		CHECK_INT((d).x, X);                                        \
		CHECK_INT((d).y, Y);                                        \
		CHECK_INT((d).z, Z);                                        \
	} while (0)

TEST(assert_label_devices)
{
	struct dec_table t;
	table_of("assert_label.mi.log", "-cuda-info-devices", 0, &t);
	CHECK_INT(t.kind, DEC_TABLE_DEVICES);
	CHECK_STR(t.name, "InfoCudaDevicesTable");
	CHECK_INT(t.nr_cols, 11);
	CHECK_INT(t.nr_rows, 1);
	CHECK_INT(t.declared_rows, 1);
	CHECK_STR(t.col_hdrs[2], "PCI Bus/Dev ID");
	CHECK_INT(t.widths[2], 14);
	CHECK_STR(dec_table_get(&t, 0, "sm_type"), "sm_90");
	struct dec_device_row d;
	CHECK_INT(dec_table_device(&t, 0, &d), 0);
	CHECK(d.current);
	CHECK_INT(d.device, 0);
	CHECK_STR(d.name, "NVIDIA H200");
	CHECK_STR(d.description, "GH100GL-A");
	CHECK_INT(d.num_sms, 132);
	CHECK_INT(d.num_warps, 64);
	CHECK_INT(d.num_lanes, 32);
	CHECK_INT(d.num_regs, 255);
	CHECK_STR(d.active_sms_mask, "0x0040000000000000000000000000000000");
	/* wrong accessor for the kind, row out of range */
	struct dec_sm_row s;
	CHECK_INT(dec_table_sm(&t, 0, &s), DEC_ESHAPE);
	CHECK_INT(dec_table_device(&t, 1, &d), DEC_ESHAPE);
	CHECK(dec_table_cell(&t, 1, 0) == NULL);
	CHECK(dec_table_get(&t, 0, "nope") == NULL);
	dec_table_free(&t);
	CHECK(t.arena == NULL);
	dec_table_free(&t);
}

TEST(assert_label_sms_warps_lanes)
{
	struct dec_table t;
	table_of("assert_label.mi.log", "-cuda-info-sms", 0, &t);
	struct dec_sm_row s;
	CHECK_INT(t.kind, DEC_TABLE_SMS);
	CHECK_INT(dec_table_sm(&t, 0, &s), 0);
	CHECK(s.current);
	CHECK_INT(s.sm, 126);
	CHECK(s.active_warps_mask == 1);
	dec_table_free(&t);

	table_of("assert_label.mi.log", "-cuda-info-warps", 0, &t);
	struct dec_warp_row w;
	CHECK_INT(dec_table_warp(&t, 0, &w), 0);
	CHECK(!w.current);
	CHECK_INT(w.warp, 0);
	CHECK(w.active_lanes_mask == 0x20);
	CHECK(w.divergent_lanes_mask == 0);
	CHECK(w.active_pc == 0x7ffddb7a2aa0ull);
	CHECK_DIM(w.block, 1, 0, 0);
	CHECK_DIM(w.thread, 5, 0, 0);
	dec_table_free(&t);

	table_of("assert_label.mi.log", "-cuda-info-lanes", 0, &t);
	struct dec_lane_row l;
	CHECK_INT(dec_table_lane(&t, 0, &l), 0);
	CHECK(l.current);
	CHECK_INT(l.lane, 5);
	CHECK_STR(l.state, "active");
	CHECK(l.pc == 0x7ffddb7a2aa0ull);
	CHECK_DIM(l.thread, 5, 0, 0);
	CHECK_STR(l.exception, "Warp Assert");
	dec_table_free(&t);
}

TEST(assert_label_kernels_invocation_is_text)
{
	struct dec_table t;
	table_of("assert_label.mi.log", "-cuda-info-kernels", 0, &t);
	struct dec_kernel_row k;
	CHECK_INT(dec_table_kernel(&t, 0, &k), 0);
	CHECK(k.current);
	CHECK_INT(k.kernel, 0);
	CHECK_STR(k.parent, "-");
	CHECK_INT(k.grid, 2);
	CHECK_STR(k.status, "Active");
	CHECK_DIM(k.grid_dim, 2, 1, 1);
	CHECK_DIM(k.block_dim, 128, 1, 1);
	/* Not well-formed MI inside: kept verbatim, escapes resolved once. */
	CHECK_STR(k.invocation,
		  "nll_loss(,args=[{name=\"logp\",value=\"0x7ffdd3e00000\"},"
		  "{name=\"labels\",value=\"0x7ffdd3e02c00\"},{name=\"loss\","
		  "value=\"0x7ffdd3e02800\"},{name=\"n\",value=\"256\"},"
		  "{name=\"num_classes\",value=\"10\"}])");
	dec_table_free(&t);
	table_of("core_small_oob.mi.log", "-cuda-info-kernels", 0, &t);
	CHECK_INT(dec_table_kernel(&t, 0, &k), 0);
	CHECK_STR(k.invocation,
		  "sum_next(in=0x7fe55e800000, out=0x7fe55e800200, n=100)");
	dec_table_free(&t);
}

TEST(assert_label_blocks_threads_contexts)
{
	struct dec_table t;
	table_of("assert_label.mi.log", "-cuda-info-blocks", 0, &t);
	CHECK_INT(t.kind, DEC_TABLE_BLOCKS);
	struct dec_block_row b;
	CHECK_INT(dec_table_block(&t, 0, &b), 0);
	CHECK(b.current);
	CHECK_DIM(b.from, 1, 0, 0);
	CHECK_DIM(b.to, 1, 0, 0);
	CHECK_INT(b.count, 1);
	CHECK_STR(b.state, "running");
	CHECK_INT(b.sm, -1);
	dec_table_free(&t);

	table_of("assert_label.mi.log", "-cuda-info-threads", 0, &t);
	CHECK_INT(t.kind, DEC_TABLE_THREADS);
	struct dec_thread_row r;
	CHECK_INT(dec_table_thread(&t, 0, &r), 0);
	CHECK(r.current);
	CHECK_DIM(r.from_block, 1, 0, 0);
	CHECK_DIM(r.from_thread, 5, 0, 0);
	CHECK_DIM(r.to_thread, 5, 0, 0);
	CHECK_INT(r.count, 1);
	CHECK(r.pc == 0x7ffddb7a2aa0ull);
	CHECK_STR(r.filename, "");
	CHECK_INT(r.line, 0);
	CHECK_INT(r.lane, -1);
	dec_table_free(&t);

	table_of("assert_label.mi.log", "-cuda-info-contexts", 0, &t);
	CHECK_INT(t.kind, DEC_TABLE_CONTEXTS);
	struct dec_context_row c;
	CHECK_INT(dec_table_context(&t, 0, &c), 0);
	CHECK(c.current);
	CHECK(c.context == 0x55555567fc90ull);
	CHECK_INT(c.device, 0);
	CHECK_STR(c.state, "active");
	dec_table_free(&t);
}

TEST(filters_and_empty_tables)
{
	struct dec_table t;
	table_of("filters.mi.log", "-cuda-info-threads block (132,0,0)", 0, &t);
	CHECK_INT(t.nr_rows, 9);
	bool saw_current = false;
	for (size_t i = 0; i < t.nr_rows; i++) {
		struct dec_thread_row r;
		CHECK_INT(dec_table_thread(&t, i, &r), 0);
		CHECK_DIM(r.from_block, 132, 0, 0);
		if (r.current) {
			/* the asserting thread sits in __assert_fail */
			saw_current = true;
			CHECK_DIM(r.from_thread, 77, 0, 0);
			CHECK_STR(r.filename, "");
		} else {
			CHECK_STR(r.filename, "/src/examples/big_grid.cu");
			CHECK_INT(r.line, 17);
		}
	}
	CHECK(saw_current);
	dec_table_free(&t);
	table_of("filters.mi.log", "-cuda-info-threads block (132,0,0) thread",
		 0, &t);
	CHECK_INT(t.nr_rows, 0);
	CHECK_INT(t.declared_rows, 0);
	CHECK_INT(t.nr_cols, 10);
	struct dec_thread_row r;
	CHECK_INT(dec_table_thread(&t, 0, &r), DEC_ESHAPE);
	dec_table_free(&t);
	table_of("filters.mi.log", "-cuda-info-warps sm 90", 0, &t);
	CHECK_INT(t.nr_rows, 64);
	struct dec_warp_row w;
	CHECK_INT(dec_table_warp(&t, 0, &w), 0);
	CHECK(w.active_lanes_mask == 0xffffffffu);
	dec_table_free(&t);
}

/* The full device: 42,023 coalesced rows in one 10.5 MB line. */
TEST_TIMEOUT(big_grid_threads, 120)
{
	struct dec_table t;
	table_of("big_grid.mi.log.gz", "-cuda-info-threads", 0, &t);
	CHECK_INT(t.kind, DEC_TABLE_THREADS);
	CHECK_INT(t.nr_rows, 42023);
	CHECK_INT(t.declared_rows, 42023);
	long total = 0;
	size_t current = 0, cur_row = 0;
	for (size_t i = 0; i < t.nr_rows; i++) {
		struct dec_thread_row r;
		CHECK_INT(dec_table_thread(&t, i, &r), 0);
		CHECK(r.from_block.valid && r.to_thread.valid);
		total += r.count;
		if (r.current) {
			current++;
			cur_row = i;
		}
	}
	/* 264 blocks x 1024 threads, minus those that already exited */
	CHECK(total > 200000 && total <= 264 * 1024);
	CHECK_INT(current, 1);
	struct dec_thread_row r;
	dec_table_thread(&t, cur_row, &r);
	CHECK_DIM(r.from_block, 132, 0, 0);
	CHECK(r.from_thread.x <= 77 && r.to_thread.x >= 77);
	dec_table_free(&t);

	table_of("big_grid.mi.log.gz", "-cuda-info-sms", 0, &t);
	CHECK_INT(t.nr_rows, 132);
	dec_table_free(&t);
}

/* set cuda coalescing off: 270,305 rows in one 60 MB line. */
TEST_TIMEOUT(big_grid_uncoalesced, 300)
{
	struct dec_table t;
	table_of("big_grid.mi.log.gz", "-cuda-info-blocks", 1, &t);
	CHECK_INT(t.kind, DEC_TABLE_BLOCKS_UNCOAL);
	CHECK_INT(t.nr_rows, 264);
	struct dec_block_row b;
	CHECK_INT(dec_table_block(&t, 5, &b), 0);
	CHECK_DIM(b.from, 5, 0, 0);
	CHECK(dec_dim3_eq(b.from, b.to));
	CHECK_INT(b.count, 1);
	CHECK(b.sm >= 0);
	dec_table_free(&t);

	table_of("big_grid.mi.log.gz", "-cuda-info-threads", 1, &t);
	CHECK_INT(t.kind, DEC_TABLE_THREADS_UNCOAL);
	CHECK_INT(t.nr_rows, (size_t)t.declared_rows);
	CHECK(t.nr_rows > 270000);
	struct dec_thread_row r;
	CHECK_INT(dec_table_thread(&t, 3, &r), 0);
	CHECK_DIM(r.from_thread, 3, 0, 0);
	CHECK_INT(r.lane, 3);
	CHECK_INT(r.sm, 128);
	CHECK_INT(r.line, 17);
	dec_table_free(&t);
}

TEST(unknown_columns_and_shapes)
{
	struct dec_table t;
	/* no hdr: columns come from the first row; a later row's extra field
	 * is dropped; a bare value in body is skipped */
	fx_with_record("^done,InfoCudaLaunchTraceTable={nr_rows=\"2\",body=["
		       "Row={level=\"0\",kernel=\"k\"},\"junk\","
		       "Row={kernel=\"j\",level=\"1\",extra=\"x\"}]}",
		       do_table, &t);
	CHECK_INT(t.kind, DEC_TABLE_LAUNCH_TRACE);
	CHECK_INT(t.nr_cols, 2);
	CHECK_INT(t.nr_rows, 2);
	CHECK_STR(dec_table_get(&t, 1, "level"), "1");
	CHECK_STR(dec_table_get(&t, 1, "kernel"), "j");
	CHECK(dec_table_get(&t, 1, "extra") == NULL);
	dec_table_free(&t);
	/* a row missing a column leaves that cell NULL; typed rows give -1 */
	fx_with_record("^done,InfoCudaSmsTable={hdr=[{col_name=\"sm\"},"
		       "{col_name=\"active_warps_mask\"}],body=[R={"
		       "active_warps_mask=\"0x3\"}]}", do_table, &t);
	struct dec_sm_row s;
	CHECK_INT(dec_table_sm(&t, 0, &s), 0);
	CHECK_INT(s.sm, -1);
	CHECK(s.active_warps_mask == 3);
	dec_table_free(&t);
	CHECK_INT(dec_table_kind_of("InfoCudaManagedTable"), DEC_TABLE_MANAGED);
	CHECK_INT(dec_table_kind_of("Whatever"), DEC_TABLE_UNKNOWN);
	CHECK_INT(dec_table_kind_of(NULL), DEC_TABLE_UNKNOWN);
}

/* Every table answer in every fixture decodes, with as many rows as it
 * declares. */
struct all_tables {
	int tables;
};

static void count_table(const struct mi_record *r, void *out)
{
	struct all_tables *a = out;
	struct dec_table t;
	if (dec_table_decode(r->results, &t) != 0)
		return;
	CHECK_MSG(t.declared_rows < 0 || (size_t)t.declared_rows == t.nr_rows,
		  "%s: %zu rows, declared %ld", t.name, t.nr_rows,
		  t.declared_rows);
	CHECK(t.kind != DEC_TABLE_UNKNOWN);
	a->tables++;
	dec_table_free(&t);
}

TEST(every_small_fixture_table)
{
	static const char *const files[] = {
		"assert_label.mi.log", "attach.mi.log", "cluster.mi.log",
		"core_seed_py.mi.log", "core_small_oob.mi.log",
		"filters.mi.log", "late_condition.mi.log", "null_write.mi.log",
		"recursion.mi.log", "remote.mi.log", "replay_to_fault.mi.log",
		"seed_py.mi.log", "step_kernel.mi.log", "trap.mi.log",
		"warp_watch.mi.log",
	};
	struct all_tables a = { 0 };
	for (size_t f = 0; f < sizeof files / sizeof files[0]; f++)
		fx_each(files[f], count_table, &a);
	CHECK_MSG(a.tables >= 60, "%d tables", a.tables);
}
