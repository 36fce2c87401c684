/* Sanitizer XML reader: every shared report, any chunking, the text
 * output's allocation sentences, malformed input and bounds. */
#include "cudbg/sanitizer.h"
#include "tests/harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct diag_san *load_chunked(const char *name, size_t chunk)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(), name);
	size_t len;
	char *xml = test_read_file(path, &len);
	struct diag_san *s = diag_san_new();
	for (size_t off = 0; off < len; off += chunk) {
		size_t n = len - off < chunk ? len - off : chunk;
		CHECK_MSG(diag_san_feed(s, xml + off, n) == 0, "%s: %s", name,
			  diag_san_error(s));
	}
	CHECK_MSG(diag_san_finish(s) == 0, "%s: %s", name, diag_san_error(s));
	free(xml);
	return s;
}

TEST(small_oob_precise_and_api)
{
	struct diag_san *s = load_chunked("small_oob.sanitizer.xml", 1 << 20);
	CHECK_INT(diag_san_count(s), 2);
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK_INT(r->kind, DIAG_SAN_PRECISE);
	CHECK_STR(r->level, "Error");
	CHECK(r->has_who);
	CHECK_INT(r->thread.x, 99);
	CHECK_INT(r->block.x, 0);
	CHECK_INT(r->size, 4);
	CHECK_STR(r->direction, "read");
	CHECK_STR(r->space, "__global__");
	CHECK_STR(r->error, "out of bounds");
	CHECK(r->has_address);
	CHECK(r->address == 0x7fa670800190ULL);
	CHECK_STR(r->func, "sum_next");
	CHECK_STR(r->path, "/src/examples/small_oob.cu");
	CHECK_INT(r->line, 7);
	CHECK(r->has_pc && r->pc == 0x430);
	CHECK_STR(r->save_location, "kernel launch time");
	CHECK_INT(r->n_host, 10);
	CHECK_STR(r->host[0].func, "cuLaunchKernel");
	CHECK_STR(r->host[0].module, "/usr/local/nvidia/lib64/libcuda.so.1");
	CHECK(r->host[7].func == NULL);
	CHECK_STR(r->host[6].func, "main");
	CHECK_INT(r->host[6].line, 16);
	CHECK_INT(r->host[6].python, 0);
	r = diag_san_get(s, 1);
	CHECK_INT(r->kind, DIAG_SAN_API);
	CHECK_STR(r->api, "cudaDeviceSynchronize");
	CHECK_STR(r->error, "cudaErrorLaunchFailure");
	CHECK_STR(r->message, "unspecified launch failure");
	CHECK_INT(r->result, 719);
	CHECK_INT(r->has_who, 0);
	CHECK(strstr(r->text, "\"unspecified launch failure\""));
	CHECK_INT(diag_san_errors(s), 2);
	diag_san_free(s);
}

TEST(seed_py_python_frames_in_any_chunking)
{
	size_t chunks[] = {1, 3, 64, 1 << 20};
	for (size_t c = 0; c < 4; c++) {
		struct diag_san *s =
			load_chunked("seed_py.sanitizer.xml", chunks[c]);
		CHECK_INT(diag_san_count(s), 3);
		const struct diag_san_record *r = diag_san_get(s, 0);
		CHECK_INT(r->kind, DIAG_SAN_IMPRECISE);
		CHECK_STR(r->exception, "Warp assert");
		CHECK_INT(r->thread.x, 23);
		CHECK_STR(r->func, "__assertfail");
		CHECK_INT(r->n_device, 1);
		CHECK_STR(r->device[0].func, "__assertfail");
		size_t py = 0;
		const struct diag_san_frame *last = NULL;
		for (size_t i = 0; i < r->n_host; i++)
			if (r->host[i].python) {
				py++;
				last = &r->host[i];
			}
		CHECK_INT(py, 3);
		CHECK_STR(last->func, "<module>");
		CHECK_STR(last->path, "/src/examples/seed_repro.py");
		CHECK_INT(last->line, 12);
		/* Entities decoded: &lt; in C++ templates. */
		int templ = 0;
		for (size_t i = 0; i < r->n_host; i++)
			if (r->host[i].func && strstr(r->host[i].func, "_<c10::"))
				templ = 1;
		CHECK(templ);
		CHECK_INT(diag_san_get(s, 1)->kind, DIAG_SAN_API);
		CHECK_STR(diag_san_get(s, 1)->error, "cudaErrorAssert");
		diag_san_free(s);
	}
}

TEST(assert_label_report)
{
	struct diag_san *s = load_chunked("assert_label.sanitizer.xml", 100);
	CHECK_INT(diag_san_count(s), 2);
	CHECK_INT(diag_san_get(s, 0)->block.x, 1);
	CHECK_INT(diag_san_get(s, 0)->thread.x, 5);
	diag_san_free(s);
}

TEST(allocation_distance_from_text)
{
	struct diag_san *s = load_chunked("small_oob.sanitizer.xml", 1 << 20);
	const char *text =
		"========= Invalid __global__ read of size 4 bytes\n"
		"=========     at sum_next(const float *, float *, int)+0x430 in "
		"/src/examples/small_oob.cu:7\n"
		"=========     by thread (99,0,0) in block (0,0,0)\n"
		"=========     Access to 0x7fa670800190 is out of bounds\n"
		"=========     and is 1 bytes after the nearest allocation at "
		"0x7fa670800000 of size 400 bytes\n";
	CHECK_INT(diag_san_add_text(s, text, strlen(text)), 1);
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK(r->has_alloc);
	CHECK_INT(r->distance, 1);
	CHECK_INT(r->alloc_size, 400);
	CHECK(r->alloc_address == 0x7fa670800000ULL);
	/* Unrelated addresses and garbage do nothing. */
	const char *other = "Access to 0x1234 is out of bounds and is 8 bytes "
			    "before the nearest allocation at 0x2000 of size 4 "
			    "bytes\n 99 bytes after the nearest allocation at 0x";
	CHECK_INT(diag_san_add_text(s, other, strlen(other)), 0);
	diag_san_free(s);
}

/* compute-sanitizer 2025.3 groups digits ("4,185,984 bytes"); the scan
 * read the last group only (issue 10, item 2). */
TEST(allocation_distance_with_thousands_separators)
{
	struct diag_san *s = load_chunked("small_oob.sanitizer.xml", 1 << 20);
	const char *text =
		"=========     Access to 0x7fa670800190 is out of bounds\n"
		"=========     and is 4,185,984 bytes before the nearest "
		"allocation at 0x7ff866c00000 of size 4,194,304 bytes\n";
	CHECK_INT(diag_san_add_text(s, text, strlen(text)), 1);
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK(r->has_alloc);
	CHECK(r->distance == -4185984LL);
	CHECK(r->alloc_size == 4194304ULL);
	CHECK(r->alloc_address == 0x7ff866c00000ULL);
	diag_san_free(s);
	/* A comma that is not a separator ends the number. */
	s = load_chunked("small_oob.sanitizer.xml", 1 << 20);
	const char *odd = "Access to 0x7fa670800190 is out of bounds and is "
			  "1,23 bytes after the nearest allocation at 0x10 of "
			  "size 400 bytes\n";
	CHECK_INT(diag_san_add_text(s, odd, strlen(odd)), 1);
	CHECK(diag_san_get(s, 0)->distance == 23);
	diag_san_free(s);
}

/* The text of one pass and the XML of another run of the same program
 * (CI replays a pass recording with an earlier run's report): device
 * addresses differ, the failing thread does not; the text joins by
 * "by thread (x,y,z) in block (x,y,z)" when no address matches. */
TEST(text_joins_by_thread_when_addresses_differ)
{
	struct diag_san *s = load_chunked("small_oob.sanitizer.xml", 1 << 20);
	const struct diag_san_record *r0 = diag_san_get(s, 0);
	char text[512];
	snprintf(text, sizeof text,
		 "=========     by thread (%u,%u,%u) in block (%u,%u,%u)\n"
		 "=========     Access to 0x1234500 is out of bounds\n"
		 "=========     and is 1 bytes after the nearest allocation at "
		 "0x12344fc of size 400 bytes\n",
		 r0->thread.x, r0->thread.y, r0->thread.z, r0->block.x,
		 r0->block.y, r0->block.z);
	CHECK_INT(diag_san_add_text(s, text, strlen(text)), 1);
	CHECK(r0->has_alloc);
	CHECK(r0->distance == 1);
	CHECK(r0->alloc_size == 400);
	diag_san_free(s);
	/* another thread's text joins nothing */
	s = load_chunked("small_oob.sanitizer.xml", 1 << 20);
	const char *other =
		"by thread (7,7,7) in block (9,9,9)\n"
		"Access to 0x1234500 is out of bounds and is 1 bytes after the "
		"nearest allocation at 0x12344fc of size 400 bytes\n";
	CHECK_INT(diag_san_add_text(s, other, strlen(other)), 0);
	diag_san_free(s);
}

static int parse_text(const char *xml, char *err, size_t cap)
{
	struct diag_san *s = diag_san_new();
	int rc = diag_san_feed(s, xml, strlen(xml));
	if (rc == 0)
		rc = diag_san_finish(s);
	snprintf(err, cap, "%s", diag_san_error(s));
	diag_san_free(s);
	return rc;
}

TEST(malformed_xml_gives_clear_errors)
{
	char err[256];
	struct {
		const char *xml, *want;
	} cases[] = {
		{"", "no element found"},
		{"<ComputeSanitizerOutput><record><kind>Precise</kind>", "line 1"},
		{"<ComputeSanitizerOutput></Other>", "mismatched tag"},
		{"<Other/>", "not a compute-sanitizer report"},
		{"<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"aaaa\">]>"
		 "<ComputeSanitizerOutput>&a;</ComputeSanitizerOutput>",
		 "DOCTYPE"},
		{"<ComputeSanitizerOutput>\x01</ComputeSanitizerOutput>", "line"},
		{"<ComputeSanitizerOutput><record><what><size>&#0;</size>", "line"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = parse_text(cases[i].xml, err, sizeof err);
		CHECK_MSG(rc < 0, "case %zu accepted", i);
		CHECK_MSG(strstr(err, cases[i].want), "case %zu: error '%s'", i,
			  err);
	}
}

TEST(unknown_elements_and_bad_numbers_are_skipped)
{
	const char *xml =
		"<ComputeSanitizerOutput><record><kind>Precise</kind>"
		"<newThing><x>5</x><record>1</record></newThing>"
		"<who><threadIdx><x>-3</x><y>zz</y><z>99999999999999999999</z>"
		"</threadIdx></who><what><address>0xZZ</address><size>4</size>"
		"</what></record></ComputeSanitizerOutput>";
	struct diag_san *s = diag_san_new();
	CHECK_INT(diag_san_feed(s, xml, strlen(xml)), 0);
	CHECK_INT(diag_san_finish(s), 0);
	CHECK_INT(diag_san_count(s), 1);
	const struct diag_san_record *r = diag_san_get(s, 0);
	CHECK_INT(r->thread.x, 0);
	CHECK_INT(r->has_address, 0);
	CHECK_INT(r->size, 4);
	diag_san_free(s);
}

TEST(bounds_cut_the_report)
{
	size_t cap = 64 << 20, len = 0;
	char *xml = malloc(cap);
	len += (size_t)snprintf(xml, cap, "<ComputeSanitizerOutput>");
	for (int i = 0; i < DIAG_SAN_MAX_RECORDS + 5; i++)
		len += (size_t)snprintf(xml + len, cap - len,
					"<record><kind>Api</kind></record>");
	len += (size_t)snprintf(xml + len, cap - len,
				"<record><kind>Api</kind><hostStack>");
	for (int i = 0; i < DIAG_SAN_MAX_FRAMES + 5; i++)
		len += (size_t)snprintf(xml + len, cap - len,
					"<frame><func>f</func></frame>");
	len += (size_t)snprintf(xml + len, cap - len,
				"</hostStack></record></ComputeSanitizerOutput>");
	struct diag_san *s = diag_san_new();
	CHECK_INT(diag_san_feed(s, xml, len), 0);
	CHECK_INT(diag_san_finish(s), 0);
	CHECK_INT(diag_san_count(s), DIAG_SAN_MAX_RECORDS);
	CHECK(diag_san_truncated(s));
	diag_san_free(s);

	/* Frames per stack. */
	len = (size_t)snprintf(xml, cap,
			       "<ComputeSanitizerOutput><record><hostStack>");
	for (int i = 0; i < DIAG_SAN_MAX_FRAMES + 5; i++)
		len += (size_t)snprintf(xml + len, cap - len,
					"<frame><func>f%d</func></frame>", i);
	len += (size_t)snprintf(xml + len, cap - len,
				"</hostStack></record></ComputeSanitizerOutput>");
	s = diag_san_new();
	CHECK_INT(diag_san_feed(s, xml, len), 0);
	CHECK_INT(diag_san_finish(s), 0);
	CHECK_INT(diag_san_get(s, 0)->n_host, DIAG_SAN_MAX_FRAMES);
	CHECK_STR(diag_san_get(s, 0)->host[DIAG_SAN_MAX_FRAMES - 1].func, "f511");
	CHECK(diag_san_truncated(s));
	diag_san_free(s);

	/* Nesting depth. */
	len = 0;
	for (int i = 0; i < 200; i++)
		len += (size_t)snprintf(xml + len, cap - len, "%s",
					i ? "<a>" : "<ComputeSanitizerOutput>");
	s = diag_san_new();
	CHECK(diag_san_feed(s, xml, len) < 0);
	CHECK(strstr(diag_san_error(s), "deep"));
	diag_san_free(s);
	free(xml);
}

TEST(load_file_errors_name_the_file)
{
	struct diag_san *s;
	char err[512];
	CHECK(diag_san_load_file("/nonexistent/r.xml", &s, err, sizeof err) < 0);
	CHECK(s == NULL);
	CHECK(strstr(err, "/nonexistent/r.xml"));
	char path[4096];
	snprintf(path, sizeof path, "%s/README.md", test_fixtures_dir());
	CHECK(diag_san_load_file(path, &s, err, sizeof err) < 0);
	CHECK(strstr(err, "README.md") && strstr(err, "--xml"));
	snprintf(path, sizeof path, "%s/seed_py.sanitizer.xml",
		 test_fixtures_dir());
	CHECK_INT(diag_san_load_file(path, &s, err, sizeof err), 0);
	CHECK_INT(diag_san_count(s), 3);
	diag_san_free(s);
}

/* diag_san_index_wrap: the bad address is 2^32 elements below a place
 * inside its nearest allocation (int_overflow's write, H200 run 21), for
 * the access's size or one byte; anything else is no wrap. */
static struct diag_san_record wrap_record(uint64_t addr, uint64_t base,
					  uint64_t size, unsigned access)
{
	static char global[] = "__global__";
	return (struct diag_san_record){
		.kind = DIAG_SAN_PRECISE, .has_address = true, .address = addr,
		.has_alloc = true, .alloc_address = base, .alloc_size = size,
		.distance = (long long)(addr - base), .size = access,
		.space = global,
	};
}

TEST(index_wrap_from_the_address)
{
	const uint64_t base = 0x7f5eb2000000ull, gib2 = 1ull << 31;
	struct diag_san_wrap w;
	/* int_overflow: 1-byte write 2^31 bytes before a 2 GiB + 4 KiB buffer */
	struct diag_san_record r = wrap_record(base - gib2, base, gib2 + 4096, 1);
	CHECK(diag_san_index_wrap(&r, &w));
	CHECK(w.index == -2147483648ll);
	CHECK(w.true_index == 2147483648ll);
	CHECK_INT(w.elem, 1);
	/* the last record's byte: 2^31 + 4095, wrapped to INT_MIN + 4095 */
	r = wrap_record(base - gib2 + 4095, base, gib2 + 4096, 1);
	CHECK(diag_san_index_wrap(&r, &w) && w.index == -2147483648ll + 4095);
	/* floats: a 4-byte read 4 * 2^31 bytes before a 9 GiB buffer */
	r = wrap_record(base - 4 * gib2, base, 9ull << 30, 4);
	CHECK(diag_san_index_wrap(&r, &w) && w.elem == 4 &&
	      w.true_index == 2147483648ll);
	/* the same read in a buffer of 2^31 floats (8 GiB) is one past its
	 * end: no element 2^31 to have meant */
	r = wrap_record(base - 4 * gib2, base, 8ull << 30, 4);
	CHECK(!diag_san_index_wrap(&r, &w));
	/* ... but a byte offset computed in int on a char pointer, cast to
	 * float *, wraps by 2^32 bytes: checked with one-byte elements */
	r = wrap_record(base - gib2, base, gib2 + 64, 4);
	CHECK(diag_san_index_wrap(&r, &w) && w.elem == 1);
	/* 1 GiB before: 2^32 bytes on is past the end */
	r = wrap_record(base - (1ull << 30), base, gib2 + 4096, 1);
	CHECK(!diag_san_index_wrap(&r, &w));
	/* after the allocation, inside it, or not a global access */
	r = wrap_record(base + gib2 + 8192, base, gib2 + 4096, 1);
	CHECK(!diag_san_index_wrap(&r, &w));
	r = wrap_record(base + 16, base, gib2 + 4096, 1);
	CHECK(!diag_san_index_wrap(&r, &w));
	r = wrap_record(base - gib2, base, gib2 + 4096, 1);
	static char shared[] = "__shared__";
	r.space = shared;
	CHECK(!diag_san_index_wrap(&r, &w));
	/* no allocation sentence (the XML alone) or no record */
	r = wrap_record(base - gib2, base, gib2 + 4096, 1);
	r.has_alloc = false;
	CHECK(!diag_san_index_wrap(&r, &w));
	CHECK(!diag_san_index_wrap(NULL, &w));
	/* a distance that is no whole number of 4-byte elements, with the
	 * byte wrap not inside either */
	r = wrap_record(base - 4 * gib2 + 2, base, 9ull << 30, 4);
	CHECK(!diag_san_index_wrap(&r, &w));
}
