/* racecheck, initcheck and synccheck records (diag/santools.c): the
 * hand-made reports in tests/data/santools/ (marked as such; to be
 * replaced by recordings from the GPU), the documented sentences in both
 * racecheck modes, and the diagnosis with its hints. */
#include "cudbg/diag.h"
#include "cudbg/hints.h"
#include "cudbg/sanitizer.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct diag_san *load(const char *name)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/tests/data/santools/%s",
		 test_root_dir(), name);
	struct diag_san *s = NULL;
	CHECK_MSG(diag_san_load_file(path, &s, err, sizeof err) == 0, "%s", err);
	return s;
}

static struct diag_san *parse(const char *xml)
{
	struct diag_san *s = diag_san_new();
	CHECK_INT(diag_san_feed(s, xml, strlen(xml)), 0);
	CHECK_INT(diag_san_finish(s), 0);
	return s;
}

/* The real racecheck and initcheck reports from the H200 (the corpus's
 * race_shared and uninit_read, tests/fixtures/gpu/run1/). */
static struct diag_san *load_real(const char *name)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/tests/fixtures/gpu/run1/%s",
		 test_root_dir(), name);
	struct diag_san *s = NULL;
	CHECK_MSG(diag_san_load_file(path, &s, err, sizeof err) == 0, "%s", err);
	return s;
}

TEST(real_racecheck_report)
{
	struct diag_san *s = load_real("race_shared.racecheck.sanitizer.xml");
	CHECK_INT(diag_san_count(s), 1);
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK_INT(r->kind, DIAG_SAN_RACE);
	CHECK_STR(r->func, "block_sum");
	CHECK_INT(r->line, 16);
	CHECK_STR(r->direction, "Read");
	CHECK_STR(r->direction2, "Write");
	CHECK_STR(r->func2, "block_sum");
	CHECK_INT(r->line2, 16);
	CHECK_INT(r->hazards, 2032);
	/* a read/write pair: the order is not in the report */
	CHECK_STR(r->hazard, "RAW/WAR");
	CHECK_STR(r->space, "__shared__");
	diag_san_free(s);
}

TEST(real_initcheck_report)
{
	struct diag_san *s = load_real("uninit_read.initcheck.sanitizer.xml");
	CHECK(diag_san_count(s) > 0);
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK_INT(r->kind, DIAG_SAN_UNINIT);
	CHECK_STR(r->func, "accumulate");
	CHECK_INT(r->line, 15);
	CHECK_INT(r->size, 4);
	CHECK_STR(r->space, "__global__");
	CHECK_INT(r->block.x, 4);
	diag_san_free(s);
}

TEST(race_report)
{
	struct diag_san *s = load("race.sanitizer.xml");
	CHECK_INT(diag_san_count(s), 1);
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK_INT(r->kind, DIAG_SAN_RACE);
	CHECK_STR(diag_san_kind_name(r->kind), "Race");
	CHECK_STR(r->hazard, "RAW");
	CHECK_INT(r->hazards, 62);
	CHECK_STR(r->space, "__shared__");
	CHECK_STR(r->direction, "write");
	CHECK_INT(r->line, 10);
	CHECK_STR(r->direction2, "read");
	CHECK_INT(r->line2, 11);
	CHECK_STR(r->path2, "/src/gpu/santools/race.cu");
	CHECK(r->has_pc2 && r->pc2 == 0x260);
	CHECK_INT(diag_san_errors(s), 1);
	diag_san_free(s);
}

/* The analysis-mode sentence alone, with no <where>s: both accesses
 * come from it; two writes make a WAW. */
TEST(race_sentence_only)
{
	struct diag_san *s = parse(
		"<ComputeSanitizerOutput><record><kind>RaceReport</kind>"
		"<what><text>Race reported between Write access at 0x1fe0 in "
		"/home/u/conv.cu:63:convolution(pixel const*, int) and Write "
		"access at 0x26d0 in /home/u/conv.cu:68:convolution(pixel "
		"const*, int) [64 hazards]</text></what></record>"
		"</ComputeSanitizerOutput>");
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK_INT(r->kind, DIAG_SAN_RACE);
	CHECK_STR(r->path, "/home/u/conv.cu");
	CHECK_INT(r->line, 63);
	CHECK_STR(r->func, "convolution(pixel const*, int)");
	CHECK(r->has_pc && r->pc == 0x1fe0);
	CHECK_INT(r->line2, 68);
	CHECK_STR(r->hazard, "WAW");
	CHECK_INT(r->hazards, 64);
	diag_san_free(s);
}

/* Hazard mode names the type in its sentence; a lower-case element is
 * upper-cased. */
TEST(race_hazard_mode_and_types)
{
	struct diag_san *s = parse(
		"<ComputeSanitizerOutput>"
		"<record><kind>Hazard</kind><what><text>Potential WAR hazard "
		"detected at __shared__ 0x8 in block (1,0,0) :</text></what>"
		"</record>"
		"<record><kind>RaceReport</kind><what><text>Race reported "
		"between Write access at 0x10 in a.cu:3:k and Read access at "
		"0x20 in a.cu:4:k</text><hazardType>raw</hazardType></what>"
		"</record>"
		"<record><kind>RaceReport</kind><what><text>Race reported "
		"between Read access at 0x10 in a.cu:3:k and Write access at "
		"0x20 in a.cu:4:k</text></what></record>"
		"</ComputeSanitizerOutput>");
	CHECK_INT(diag_san_count(s), 3);
	CHECK_STR(diag_san_get(s, 0)->hazard, "WAR");
	CHECK_STR(diag_san_get(s, 1)->hazard, "RAW");
	/* a read and a write with no type given: the order is not known,
	 * so it is either (never "(unknown)" in the hint's title) */
	CHECK_STR(diag_san_get(s, 2)->hazard, "RAW/WAR");
	CHECK_STR(diag_san_get(s, 2)->direction, "read");
	diag_san_free(s);
}

TEST(initcheck_and_synccheck)
{
	struct diag_san *s = load("initcheck.sanitizer.xml");
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK_INT(r->kind, DIAG_SAN_UNINIT);
	CHECK_STR(r->space, "__global__");
	CHECK_INT(r->size, 4);
	CHECK_STR(r->direction, "read");
	CHECK_INT(r->thread.x, 3);
	diag_san_free(s);
	s = load("synccheck.sanitizer.xml");
	r = diag_san_get(s, 0);
	CHECK_INT(r->kind, DIAG_SAN_SYNC);
	CHECK_INT(r->line, 9);
	CHECK_INT(r->thread.x, 32);
	diag_san_free(s);
}

/* memcheck's records keep their kinds. */
TEST(memcheck_records_unchanged)
{
	char path[4096], err[512];
	snprintf(path, sizeof path, "%s/small_oob.sanitizer.xml",
		 test_fixtures_dir());
	struct diag_san *s = NULL;
	CHECK_INT(diag_san_load_file(path, &s, err, sizeof err), 0);
	CHECK_INT(diag_san_get(s, 0)->kind, DIAG_SAN_PRECISE);
	CHECK_INT(diag_san_get(s, 1)->kind, DIAG_SAN_API);
	CHECK(diag_san_get(s, 0)->hazard == NULL);
	diag_san_free(s);
}

static const char *first_hint(const char *file, char *kind, size_t cap)
{
	char path[4096], err[512];
	static char id[64];
	snprintf(path, sizeof path, "%s/data/hints.rules", test_root_dir());
	struct diag_rules *rules = NULL;
	CHECK_MSG(diag_rules_load_file(path, &rules, err, sizeof err) == 0,
		  "%s", err);
	struct diag *d = diag_new();
	diag_add_sanitizer(d, load(file));
	const struct diag_fault *f = diag_analyze(d);
	snprintf(kind, cap, "%s", diag_fault_kind_name(f->kind));
	struct diag_hints h = { 0 };
	diag_hints_match(rules, f, &h);
	snprintf(id, sizeof id, "%s", h.n ? h.v[0].id : "");
	/* a race names its block, not a thread: no focus is made up */
	if (strcmp(file, "race.sanitizer.xml") == 0)
		CHECK(!f->focus.valid);
	diag_hints_clear(&h);
	diag_free(d);
	diag_rules_free(rules);
	return id;
}

TEST(hints_for_each_tool)
{
	char kind[32];
	CHECK_STR(first_hint("race.sanitizer.xml", kind, sizeof kind),
		  "san-race");
	CHECK_STR(kind, "memcheck");
	CHECK_STR(first_hint("initcheck.sanitizer.xml", kind, sizeof kind),
		  "san-uninit");
	CHECK_STR(first_hint("synccheck.sanitizer.xml", kind, sizeof kind),
		  "san-sync");
}

TEST(tool_names)
{
	CHECK_STR(diag_san_tool_parse("racecheck"), "racecheck");
	CHECK_STR(diag_san_tool_parse("memcheck"), "memcheck");
	CHECK(diag_san_tool_parse("RaceCheck") == NULL);
	CHECK(diag_san_tool_parse("") == NULL);
	CHECK(diag_san_tool_parse(NULL) == NULL);
}
