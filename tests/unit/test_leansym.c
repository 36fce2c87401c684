/* The lean copy of a host library (mi/leansym.c): made from a real ELF
 * file (this test's own binary), found again in the cache, and refused
 * with a reason for what is not a usable ELF file; a cache others could
 * write is not trusted. */
#include "cudbg/leansym.h"
#include "tests/harness.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *scratch(const char *name)
{
	char *p = NULL;
	if (asprintf(&p, "%s/%s", getenv("CUDBG_TEST_TMP"), name) < 0)
		test_fail(__FILE__, __LINE__, "out of memory");
	return p;
}

static void write_file(const char *path, const void *buf, size_t len)
{
	FILE *f = fopen(path, "wb");
	CHECK(f);
	CHECK(fwrite(buf, 1, len, f) == len);
	CHECK(fclose(f) == 0);
}

/* This binary, copied: an ELF file with a .text section. */
static char *self_copy(size_t *len)
{
	char *bytes = test_read_file("/proc/self/exe", len);
	char *path = scratch("lib.so");
	write_file(path, bytes, *len);
	free(bytes);
	return path;
}

/* leansym_make that must succeed */
static void make_ok(const char *lib, const char *cache, struct leansym *ls)
{
	char err[256] = "";
	CHECK_MSG(leansym_make(lib, cache, LEANSYM_NO_STUBS, ls, err, sizeof err) == 0, "%s", err);
}

TEST(copies_an_elf_file_and_finds_it_again)
{
	size_t len;
	char *lib = self_copy(&len);
	char *cache = scratch("cache/symbols");
	struct leansym a, b;
	make_ok(lib, cache, &a);
	CHECK(a.made);
	CHECK(a.text_addr != 0);
	CHECK(strncmp(a.path, cache, strlen(cache)) == 0);
	size_t clen;
	char *copy = test_read_file(a.path, &clen);
	CHECK(clen > sizeof(Elf64_Ehdr) && memcmp(copy, ELFMAG, SELFMAG) == 0);
	Elf64_Ehdr eh;
	memcpy(&eh, copy, sizeof eh);
	CHECK_INT(eh.e_phnum, 0);
	CHECK(eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) <= clen);
	free(copy);
	make_ok(lib, cache, &b);
	CHECK(!b.made);
	CHECK_STR(b.path, a.path);
	CHECK(b.text_addr == a.text_addr);
	free(a.path);
	free(b.path);
	free(cache);
	free(lib);
}

/* A new copy of a library replaces the older copies of one of its name
 * (an upgrade), and leaves other libraries' alone. */
TEST(a_new_copy_replaces_the_older_one)
{
	size_t len;
	char *lib = self_copy(&len);
	char *cache = scratch("cache");
	struct leansym a, b;
	make_ok(lib, cache, &a);
	char *other = NULL;
	CHECK(asprintf(&other, "%s/libother.so-1-2.000000003.lean", cache) > 0);
	FILE *f = fopen(other, "w");
	CHECK(f && fclose(f) == 0);
	/* the library changes: a new size and time */
	FILE *g = fopen(lib, "ab");
	CHECK(g && fputc(0, g) == 0 && fclose(g) == 0);
	make_ok(lib, cache, &b);
	CHECK(b.made);
	CHECK(strcmp(a.path, b.path) != 0);
	CHECK(access(a.path, F_OK) != 0);
	CHECK(access(b.path, F_OK) == 0);
	CHECK(access(other, F_OK) == 0);
	free(other);
	free(a.path);
	free(b.path);
	free(cache);
	free(lib);
}

TEST(refuses_what_is_not_a_usable_elf_file)
{
	char *cache = scratch("cache");
	char *txt = scratch("notes.so");
	write_file(txt, "hello\n", 6);
	struct leansym ls;
	char err[256] = "";
	CHECK(leansym_make(txt, cache, LEANSYM_NO_STUBS, &ls, err, sizeof err) < 0);
	CHECK_STR(err, "not an ELF file");
	CHECK(ls.path == NULL);
	/* the same file cut short: its section table is gone */
	size_t len;
	char *lib = self_copy(&len);
	CHECK(truncate(lib, (off_t)(len / 2)) == 0);
	CHECK(leansym_make(lib, cache, LEANSYM_NO_STUBS, &ls, err, sizeof err) < 0);
	CHECK_STR(err, "no usable section table");
	char *none = scratch("missing.so");
	CHECK(leansym_make(none, cache, LEANSYM_NO_STUBS, &ls, err, sizeof err) < 0);
	CHECK(strstr(err, "cannot open"));
	free(none);
	free(lib);
	free(txt);
	free(cache);
}

/* issue 33 item 10: cuda-gdb loads what the cache holds, so a cache
 * directory another user could write (mode 0777, a link, not ours) is
 * refused with the reason, and a copy under the expected name that is not
 * ours alone is made again, never used. */
TEST(a_cache_others_could_write_is_not_trusted)
{
	size_t len;
	char *lib = self_copy(&len);
	struct leansym ls;
	char err[512] = "";
	char *open_dir = scratch("shared-cache");
	CHECK(mkdir(open_dir, 0777) == 0 && chmod(open_dir, 0777) == 0);
	CHECK(leansym_make(lib, open_dir, LEANSYM_NO_STUBS, &ls, err, sizeof err) < 0);
	CHECK_MSG(strstr(err, "is not private") && strstr(err, "mode 777"),
		  "%s", err);
	CHECK(ls.path == NULL);
	char *own = scratch("own-cache");
	char *link = scratch("linked-cache");
	CHECK(mkdir(own, 0700) == 0 && symlink(own, link) == 0);
	CHECK(leansym_make(lib, link, LEANSYM_NO_STUBS, &ls, err, sizeof err) < 0);
	CHECK_MSG(strstr(err, "a link"), "%s", err);
	/* a planted file under the copy's own name, owned by another user */
	struct leansym a, b;
	make_ok(lib, own, &a);
	write_file(a.path, "planted\n", 8);
	if (geteuid() == 0)
		CHECK(chown(a.path, 65534, 65534) == 0);
	else
		CHECK(chmod(a.path, 0666) == 0);
	make_ok(lib, own, &b);
	CHECK(b.made); /* made again, not used */
	size_t clen;
	char *copy = test_read_file(b.path, &clen);
	CHECK(clen > SELFMAG && memcmp(copy, ELFMAG, SELFMAG) == 0);
	free(copy);
	free(a.path);
	free(b.path);
	free(link);
	free(own);
	free(open_dir);
	free(lib);
}

TEST(cache_directory_from_the_environment)
{
	setenv("CUDBG_SYMBOL_CACHE", "", 1);
	CHECK(leansym_cache_dir() == NULL);
	setenv("CUDBG_SYMBOL_CACHE", "/x/y", 1);
	char *d = leansym_cache_dir();
	CHECK_STR(d, "/x/y");
	free(d);
	unsetenv("CUDBG_SYMBOL_CACHE");
	setenv("XDG_CACHE_HOME", "/c", 1);
	d = leansym_cache_dir();
	CHECK_STR(d, "/c/cudbg-tui/symbols");
	free(d);
	unsetenv("XDG_CACHE_HOME");
	setenv("HOME", "/h", 1);
	d = leansym_cache_dir();
	CHECK_STR(d, "/h/.cache/cudbg-tui/symbols");
	free(d);
}

/* Which names each kind of copy keeps: stubs never; the operator copy
 * only C names and at::_ops, at::native, torch::autograd C++ names (the
 * frames of torch_index_put's stack in GPU run 31, by their mangled
 * spelling). */
TEST(names_kept)
{
	static const struct {
		const char *name;
		bool no_stubs, operators;
	} cases[] = {
		{ "_Z24__device_stub__Z6kernelv", false, false },
		{ "__device_stub__Z6kernelv", false, false },
		{ "cudaLaunchKernel", true, true },
		{ "tc_call", true, true },
		{ "_ZN2at4_ops13_assert_async4callERKNS_6TensorE", true, true },
		{ "_ZN2at6native23_assert_async_msg_cudaERKNS_6TensorESt17basic_string_viewIcSt11char_traitsIcEE", true, true },
		{ "_ZN2at6native12_GLOBAL__N_126index_put_with_sort_kernelERNS_6TensorE", true, true },
		{ "_ZZN2at6native4mainEvENKUlvE_clEv", true, true },
		{ "_ZN5torch8autograd22THPVariable_index_put_EP7_objectS2_S2_", true, true },
		{ "_ZN3c104impl28wrap_kernel_functor_unboxed_IvE4callEv", true, false },
		{ "_ZN2at4cuda4blasEv", true, false },
		{ "_ZN2at", true, false },
		{ "_Z", true, false },
		{ "", true, true },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const char *n = cases[i].name;
		CHECK_MSG(leansym_keeps(LEANSYM_NO_STUBS, n, strlen(n)) ==
			  cases[i].no_stubs, "no-stubs %s", n);
		CHECK_MSG(leansym_keeps(LEANSYM_OPERATORS, n, strlen(n)) ==
			  cases[i].operators, "operators %s", n);
	}
	/* the length bounds the name (a string table's last name may run
	 * to its end unended) */
	CHECK(!leansym_keeps(LEANSYM_OPERATORS, "_ZN2at4_ops", 8));
	CHECK(leansym_keeps(LEANSYM_OPERATORS, "_ZN2at4_opsX", 11));
}

/* An operator copy has a cache name of its own (.ops.lean): the two
 * kinds never answer for each other. */
TEST(operator_copy_has_its_own_name)
{
	size_t len;
	char *lib = self_copy(&len);
	char *cache = scratch("cache/ops");
	struct leansym a, b;
	char err[256] = "";
	CHECK_MSG(leansym_make(lib, cache, LEANSYM_OPERATORS, &a, err, sizeof err) == 0, "%s", err);
	CHECK(a.made && strstr(a.path, ".ops.lean"));
	/* made once, then found under that name */
	CHECK_MSG(leansym_make(lib, cache, LEANSYM_OPERATORS, &b, err, sizeof err) == 0, "%s", err);
	CHECK(!b.made && strcmp(a.path, b.path) == 0);
	free(a.path);
	free(b.path);
	free(cache);
	free(lib);
}
