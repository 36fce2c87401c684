/* The Python stack read from memory (diag/pymem.c): the line tables of
 * CPython 3.10 to 3.13 against the lines the interpreters themselves
 * computed (tests/data/pylines, written by make.py there), and the walk
 * over a small memory image: thread choice, strings, bounds, corruption.
 * tests/sh/python_memory.sh reads real processes' coredumps. */
#include "tests/harness.h"
#include "cudbg/pymem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f'
		? c - 'a' + 10 : -1;
}

/* Checks every code block of one vectors file; returns the mismatches
 * (first one described in msg), or -1 when the file is not there. */
static int check_vectors(const char *name, unsigned minor, int *blocks,
			 char *msg, size_t cap)
{
	char path[512];
	snprintf(path, sizeof path, "%s/tests/data/pylines/%s",
		 getenv("CUDBG_ROOT") ? getenv("CUDBG_ROOT") : ".", name);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	static char line[1 << 16];
	unsigned char table[1 << 15];
	size_t tlen = 0;
	int first = 0, bad = 0;
	char func[64] = "";
	*blocks = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "code ", 5) == 0) {
			char hex[1 << 15];
			if (sscanf(line, "code %63s %d %32767s", func, &first,
				   hex) != 3)
				hex[0] = '\0';
			tlen = 0;
			for (size_t i = 0; hex[i] && hex[i + 1]; i += 2)
				table[tlen++] = (unsigned char)(hexval(hex[i]) << 4 |
								hexval(hex[i + 1]));
			continue;
		}
		if (strncmp(line, "lines", 5) != 0)
			continue;
		(*blocks)++;
		char *p = line + 5, *end;
		for (long i = 0;; i++) {
			long want = strtol(p, &end, 10);
			if (end == p)
				break;
			p = end;
			int got = diag_pymem_line(minor, table, tlen, first, i);
			if (got != want && bad++ == 0)
				snprintf(msg, cap, "%s %s unit %ld: line %d, the "
					 "interpreter said %ld", name, func, i, got,
					 want);
		}
	}
	fclose(f);
	return bad;
}

TEST(line_tables_agree_with_each_interpreter)
{
	static const struct { const char *file; unsigned minor; } v[] = {
		{"py310.txt", 10}, {"py311.txt", 11}, {"py312.txt", 12},
		{"py313.txt", 13},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		char msg[300] = "";
		int blocks = 0;
		int bad = check_vectors(v[i].file, v[i].minor, &blocks, msg,
					sizeof msg);
		CHECK_MSG(bad == 0, "%s: %d mismatches (%s)", v[i].file, bad,
			  bad < 0 ? "file missing" : msg);
		CHECK_MSG(blocks >= 4, "%s: %d code objects", v[i].file, blocks);
	}
}

TEST(line_tables_any_bytes_are_safe)
{
	unsigned char t[64];
	for (int seed = 0; seed < 2000; seed++) {
		for (size_t i = 0; i < sizeof t; i++)
			t[i] = (unsigned char)((seed * 131 + i * 7919) >> (i % 5));
		for (size_t len = 0; len <= sizeof t; len += 7)
			for (long idx = -2; idx < 40; idx += 3) {
				int a = diag_pymem_line(11, t, len, 1, idx);
				int b = diag_pymem_line(10, t, len, 1, idx);
				CHECK(a >= -1 && b >= -1);
			}
	}
	CHECK_INT(diag_pymem_line(12, NULL, 0, 5, 0), -1);
	/* 3.10: an instruction before the first (f_lasti -1) is the first
	 * line */
	CHECK_INT(diag_pymem_line(10, (const unsigned char *)"\x02\x01", 2, 7, -1), 7);
}

/* ---- a memory image in the 3.12 layout ---- */

enum { IMG_BASE = 0x10000, IMG_SIZE = 0x10000 };

struct image {
	unsigned char b[IMG_SIZE];
	int reads;
};

static int image_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct image *im = ctx;
	im->reads++;
	if (addr < IMG_BASE || addr - IMG_BASE > IMG_SIZE ||
	    len > IMG_SIZE - (addr - IMG_BASE))
		return -1;
	memcpy(buf, im->b + (addr - IMG_BASE), len);
	return 0;
}

static void put64(struct image *im, uint64_t addr, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		im->b[addr - IMG_BASE + i] = (unsigned char)(v >> (8 * i));
}

static void put32(struct image *im, uint64_t addr, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		im->b[addr - IMG_BASE + i] = (unsigned char)(v >> (8 * i));
}

enum {
	RUNTIME = 0x11000, INTERP = 0x12000, TS1 = 0x13000, TS2 = 0x13400,
	CF1 = 0x13800, CF2 = 0x13900, FR1 = 0x14000, FR2 = 0x14100,
	FR3 = 0x14200, CODE = 0x15000, FILE_S = 0x16000, NAME_S = 0x16100,
	WIDE_S = 0x16200, TABLE = 0x16400, CODE_TYPE = 0x19000,
};

/* A compact str: ASCII (kind 1) or kind 2 (UCS-2). */
static void put_str(struct image *im, uint64_t at, const char *ascii,
		    const uint16_t *wide, size_t n)
{
	put64(im, at + 16, n);
	if (ascii) {
		put32(im, at + 32, 1u << 2 | 1u << 5 | 1u << 6);
		memcpy(im->b + (at + 40 - IMG_BASE), ascii, n);
	} else {
		put32(im, at + 32, 2u << 2 | 1u << 5);
		for (size_t i = 0; i < n; i++) {
			im->b[at + 56 - IMG_BASE + 2 * i] = (unsigned char)wide[i];
			im->b[at + 56 - IMG_BASE + 2 * i + 1] =
				(unsigned char)(wide[i] >> 8);
		}
	}
}

/* One frame per thread: TS1 (native id 111) runs FR1 -> FR3, TS2 (222)
 * runs FR2; one code object "train.py" named "step", first line 10, whose
 * table gives unit k line 10 + k (one-line entries of delta 1). */
static void build(struct image *im)
{
	memset(im, 0, sizeof *im);
	put64(im, RUNTIME + 40, INTERP);
	put64(im, INTERP + 72, TS2);            /* newest first */
	put64(im, TS2 + 8, TS1);
	put64(im, TS2 + 144, 222);
	put64(im, TS2 + 56, CF2);
	put64(im, CF2, FR2);
	put64(im, TS1 + 144, 111);
	put64(im, TS1 + 56, CF1);
	put64(im, CF1, FR1);
	put64(im, FR1, CODE);
	put64(im, FR1 + 8, FR3);
	put64(im, FR1 + 56, CODE + 192 + 2 * 3);  /* unit 3 */
	put64(im, FR3, CODE);
	put64(im, FR3 + 56, CODE + 192 + 2 * 1);  /* unit 1 */
	put64(im, FR2, CODE);
	put64(im, FR2 + 56, CODE + 192);          /* unit 0 */
	put64(im, CODE + 8, CODE_TYPE);
	put64(im, CODE + 112, FILE_S);
	put64(im, CODE + 120, NAME_S);
	put32(im, CODE + 68, 10);
	put64(im, CODE + 136, TABLE);
	put_str(im, FILE_S, "/home/u/train.py", NULL, 16);
	put_str(im, NAME_S, "step", NULL, 4);
	/* bytes: size at 16, data at 32: entries 1 1011 000 (code 11: one
	 * line, delta +1, 1 unit) with two column bytes; the first entry
	 * code 10 (delta 0) */
	put64(im, TABLE + 16, 12);
	unsigned char t[] = { 0xd0, 0, 1, 0xd8, 0, 1, 0xd8, 0, 1, 0xd8, 0, 1 };
	memcpy(im->b + (TABLE + 32 - IMG_BASE), t, sizeof t);
}

static struct image img;

TEST(walks_the_wanted_thread)
{
	build(&img);
	struct diag_pymem_syms s = { .runtime = RUNTIME,
				     .code_type = CODE_TYPE,
				     .version = 0x030c01f0 };
	struct diag_pymem_thread want = { .lwp = 111 };
	struct diag_pystack ps;
	char why[200];
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, &want, &ps, why,
				   sizeof why), 0);
	CHECK_INT(ps.n_frames, 2);
	CHECK_STR(ps.frames[0].file, "/home/u/train.py");
	CHECK_STR(ps.frames[0].func, "step");
	CHECK_INT(ps.frames[0].line, 13);
	CHECK_INT(ps.frames[1].line, 11);
	CHECK(!ps.frames[0].library);
	diag_pystack_free(&ps);
	/* the other thread by its id; with none wanted, the oldest (the
	 * main thread, last in the list) */
	want.lwp = 222;
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, &want, &ps, why,
				   sizeof why), 0);
	CHECK_INT(ps.n_frames, 1);
	CHECK_INT(ps.frames[0].line, 10);
	diag_pystack_free(&ps);
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, why,
				   sizeof why), 0);
	CHECK_INT(ps.n_frames, 2);
	diag_pystack_free(&ps);
}

TEST(wide_names_become_utf8)
{
	build(&img);
	static const uint16_t wide[] = { 0x65e5, 'x', 0xe9 };
	put_str(&img, WIDE_S, NULL, wide, 3);
	put64(&img, CODE + 120, WIDE_S);
	struct diag_pymem_syms s = { .runtime = RUNTIME,
				     .version = 0x030c0000 };
	struct diag_pystack ps;
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, NULL, 0), 0);
	CHECK_STR(ps.frames[0].func, "\xe6\x97\xa5" "x\xc3\xa9");
	diag_pystack_free(&ps);
}

TEST(corruption_is_an_error_not_a_frame)
{
	struct diag_pymem_syms s = { .runtime = RUNTIME,
				     .code_type = CODE_TYPE,
				     .version = 0x030c0000 };
	struct diag_pystack ps;
	char why[200];
	/* not a code object */
	build(&img);
	put64(&img, CODE + 8, 0x4242);
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, why,
				   sizeof why), -1);
	CHECK(strstr(why, "code object") != NULL);
	CHECK_INT(ps.n_frames, 0);
	/* a frame that is its own caller ends the walk */
	build(&img);
	put64(&img, FR3 + 8, FR3);
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, why,
				   sizeof why), 0);
	CHECK_INT(ps.n_frames, 2);
	diag_pystack_free(&ps);
	/* a name longer than any real one */
	build(&img);
	put64(&img, NAME_S + 16, 1u << 30);
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, why,
				   sizeof why), -1);
	/* no interpreter yet */
	build(&img);
	put64(&img, RUNTIME + 40, 0);
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, why,
				   sizeof why), -1);
	CHECK(strstr(why, "not running") != NULL);
	/* a runtime outside the process */
	s.runtime = 8;
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, why,
				   sizeof why), -1);
	CHECK(strstr(why, "not readable") != NULL);
	/* versions without a layout */
	s.runtime = RUNTIME;
	s.version = 0x030900f0;
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, why,
				   sizeof why), -1);
	CHECK(strstr(why, "3.9") != NULL);
	CHECK(!diag_pymem_supported(0x030e0000));
	CHECK(diag_pymem_supported(0x030a0df0));
}

/* _PyRuntime.initialized as tests/data/pylines/offsets.c printed it with
 * each version's headers (and gdb read it from their debug information). */
TEST(initialized_flag_offsets)
{
	CHECK_INT(diag_pymem_initialized_offset(0x030a0df0), 12);
	CHECK_INT(diag_pymem_initialized_offset(0x030b07f0), 16);
	CHECK_INT(diag_pymem_initialized_offset(0x030c01f0), 16);
	CHECK_INT(diag_pymem_initialized_offset(0x030d00f0), 600);
	CHECK_INT(diag_pymem_initialized_offset(0x030900f0), -1);
	CHECK_INT(diag_pymem_initialized_offset(0x030e0000), -1);
	CHECK_INT(diag_pymem_initialized_offset(0x020712f0), -1);
}

TEST(reads_are_few)
{
	build(&img);
	img.reads = 0;
	struct diag_pymem_syms s = { .runtime = RUNTIME,
				     .code_type = CODE_TYPE,
				     .version = 0x030c0000 };
	struct diag_pystack ps;
	CHECK_INT(diag_pymem_stack(image_read, &img, &s, NULL, &ps, NULL, 0), 0);
	/* the same code object twice is read once (the cache) */
	CHECK_MSG(img.reads <= 16, "%d reads", img.reads);
	diag_pystack_free(&ps);
}
