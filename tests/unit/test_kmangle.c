/* diag/kmangle.c: a kernel's mangled name from the signature an
 * assertion line or the sanitizer's text prints, checked against the
 * launch stubs nvcc emitted for the corpus (the H200's XML reports,
 * tests/fixtures/gpu), and the stub found in a program's binary. */
#include "diag/internal.h"
#include "tests/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *mangled(const char *sig)
{
	static char out[512];
	return diag_kernel_mangle(sig, out, sizeof out) ? out : "";
}

/* The signature as cuda-gdb 13 / compute-sanitizer printed it, and the
 * __device_stub_ suffix of that kernel in the same run's XML. */
TEST(corpus_signatures_mangle_as_nvcc_did)
{
	static const struct { const char *sig, *stub; } c[] = {
		{ "void class_weights(const unsigned char *, const float *, int, int, int, float *)",
		  "_Z13class_weightsPKhPKfiiiPf" },
		{ "void density_to_alpha(const float *, int, float, float *)",
		  "_Z16density_to_alphaPKfifPf" },
		{ "void histogram(const int *, int, int *, int, int)",
		  "_Z9histogramPKiiPiii" },
		{ "gather_rows(const float *, const int *, int, float *)",
		  "_Z11gather_rowsPKfPKiiPf" },
		{ "warp_partials(const float *, float *)", "_Z13warp_partialsPKfPf" },
		{ "stamp_records(unsigned char *, int, unsigned char)",
		  "_Z13stamp_recordsPhih" },
		{ "eval_poly(const int *, const float *, int, float *)",
		  "_Z9eval_polyPKiPKfiPf" },
		{ "read_points(const unsigned char *, float *, int)",
		  "_Z11read_pointsPKhPfi" },
		/* the ABI's substitution: the second float * is S_ */
		{ "row_sums(float **, int, float *)", "_Z8row_sumsPPfiS_" },
		{ "clear_scratch(float *, int)", "_Z13clear_scratchPfi" },
		{ "scatter_rows_kernel(const float *, const long *, float *, int)",
		  "_Z19scatter_rows_kernelPKfPKlPfi" },
		{ "finish_stats(const float *, unsigned long, float *)",
		  "_Z12finish_statsPKfmPf" },
		{ "void fill(float *, float)", "_Z4fillPff" },
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++)
		CHECK_MSG(strcmp(mangled(c[i].sig), c[i].stub) == 0,
			  "%s: %s, want %s", c[i].sig, mangled(c[i].sig),
			  c[i].stub);
}

TEST(substitutions_qualifiers_and_no_parameters)
{
	CHECK_STR(mangled("void k(float *, float *)"), "_Z1kPfS_");
	CHECK_STR(mangled("void k(const float *, const float *, float *)"),
		  "_Z1kPKfS0_Pf");
	CHECK_STR(mangled("void k(const int *const *, const int *const *)"),
		  "_Z1kPKPKiS2_");
	CHECK_STR(mangled("void k(int *const *)"), "_Z1kPKPi");
	/* top-level qualifiers are not part of the signature */
	CHECK_STR(mangled("void k(const int, float *const, float *__restrict__)"),
		  "_Z1kiPfS_");
	CHECK_STR(mangled("void k(volatile int *)"), "_Z1kPVi");
	CHECK_STR(mangled("void k()"), "_Z1kv");
	CHECK_STR(mangled("void k(void)"), "_Z1kv");
	CHECK_STR(mangled("void k(size_t, unsigned int, long long)"), "_Z1kmjx");
}

TEST(what_it_does_not_mangle_is_no_name)
{
	static const char *const no[] = {
		"void ns::k(int)", "void k<int>(int *)", "void k(float2 *)",
		"void k(int &)", "void k(void (*)(int))", "void k(int [4])",
		"operator()", "void k(int, void)", "(int)", "", "void 9k(int)",
		"void k(struct Params)",
	};
	char out[512];
	for (size_t i = 0; i < sizeof no / sizeof *no; i++)
		CHECK_MSG(diag_kernel_mangle(no[i], out, sizeof out) == 0,
			  "%s gave %s", no[i], out);
	CHECK(diag_kernel_mangle(NULL, out, sizeof out) == 0);
	/* an output too small is no name, not a cut one */
	CHECK(diag_kernel_mangle("void histogram(const int *, int)", out, 8) == 0);
}

/* The stub as a symbol name: NUL on each side, so a longer symbol that
 * begins with it is no match. */
TEST(stub_found_in_the_binary_only_as_a_whole_symbol)
{
	char path[] = "/tmp/cudbg-kmangle-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	static const char body[] = "\x7f" "ELF junk\0main\0"
		"__device_stub__Z9histogramPKiiPiii\0"
		"__device_stub__Z4fillPffx\0_Z5otherv\0";
	CHECK(write(fd, body, sizeof body) == (ssize_t)sizeof body);
	close(fd);
	CHECK(diag_program_has_stub(path, "_Z9histogramPKiiPiii"));
	CHECK(!diag_program_has_stub(path, "_Z4fillPff"));
	CHECK(!diag_program_has_stub(path, "_Z5otherv")); /* no stub prefix */
	CHECK(!diag_program_has_stub(path, ""));
	CHECK(!diag_program_has_stub(NULL, "_Z9histogramPKiiPiii"));
	CHECK(!diag_program_has_stub("/nonexistent/prog", "_Z9histogramPKiiPiii"));
	unlink(path);
}

/* A minimal little-endian ELF64 with the sections named: .shstrtab,
 * .rodata.str1.1 holding RODATA, .strtab holding STRTAB (a symbol
 * table's names).  Written to a temp file whose path is put in path. */
static void put_le(unsigned char *p, uint64_t v, int bytes)
{
	for (int i = 0; i < bytes; i++, v >>= 8)
		p[i] = (unsigned char)v;
}

static void put_section(unsigned char *h, uint32_t name, uint32_t type,
			uint64_t off, uint64_t len)
{
	put_le(h, name, 4);
	put_le(h + 4, type, 4);
	put_le(h + 0x18, off, 8);
	put_le(h + 0x20, len, 8);
}

static void write_elf(char *path, const char *rodata, size_t rlen,
		      const char *strtab, size_t slen)
{
	static const char shstr[] = "\0.shstrtab\0.rodata.str1.1\0.strtab";
	unsigned char f[4096] = {0};
	memcpy(f, "\x7f" "ELF", 4);
	f[4] = 2; /* ELFCLASS64 */
	f[5] = 1; /* little endian */
	size_t at = 64;
	size_t o_shstr = at; memcpy(f + at, shstr, sizeof shstr); at += sizeof shstr;
	size_t o_ro = at; memcpy(f + at, rodata, rlen); at += rlen;
	size_t o_st = at; memcpy(f + at, strtab, slen); at += slen;
	at = (at + 7) & ~(size_t)7;
	put_le(f + 0x28, at, 8);  /* e_shoff */
	put_le(f + 0x3a, 64, 2);  /* e_shentsize */
	put_le(f + 0x3c, 4, 2);   /* e_shnum: null, shstrtab, rodata, strtab */
	put_le(f + 0x3e, 1, 2);   /* e_shstrndx */
	put_section(f + at + 64, 1, 3, o_shstr, sizeof shstr);
	put_section(f + at + 128, 11, 1, o_ro, rlen);
	put_section(f + at + 192, 27, 3, o_st, slen);
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	CHECK(write(fd, f, at + 256) == (ssize_t)(at + 256));
	close(fd);
}

/* A release build keeps no stub symbol: the kernel's registration string
 * in .rodata says it is a kernel; a name only in the symbol table (a
 * __host__ __device__ function) does not. */
TEST(kernel_found_by_its_registration_string_in_rodata_only)
{
	char path[] = "/tmp/cudbg-kmangle-XXXXXX";
	static const char ro[] = "_Z9histogramPKiiPiii\0%d\n\0_Z4fillPffx\0";
	static const char st[] = "\0main\0_Z6helperPi\0";
	write_elf(path, ro, sizeof ro, st, sizeof st);
	CHECK(diag_program_has_stub(path, "_Z9histogramPKiiPiii"));
	CHECK(!diag_program_has_stub(path, "_Z6helperPi"));  /* .strtab only */
	CHECK(!diag_program_has_stub(path, "_Z4fillPff"));   /* a longer one */
	CHECK(!diag_program_has_stub(path, "histogram"));
	unlink(path);
	/* a section table past the file's end is no ELF to read */
	char bad[] = "/tmp/cudbg-kmangle-XXXXXX";
	int fd = mkstemp(bad);
	CHECK(fd >= 0);
	unsigned char h[64] = {0x7f, 'E', 'L', 'F', 2, 1};
	put_le(h + 0x28, 1u << 30, 8);
	put_le(h + 0x3a, 64, 2);
	put_le(h + 0x3c, 100, 2);
	CHECK(write(fd, h, sizeof h) == (ssize_t)sizeof h);
	close(fd);
	CHECK(!diag_program_has_stub(bad, "_Z9histogramPKiiPiii"));
	unlink(bad);
}
