/* A small test harness: each test runs in a forked child with a timeout,
 * so a crash or hang fails that test alone.  Output, one line per test:
 *   PASS suite/name
 *   FAIL suite/name: why
 *   SKIP suite/name: why
 * tests/run.sh counts these lines across every test binary and script.
 *
 * Usage:
 *   TEST(parses_prompt) { ... CHECK(x == 1); CHECK_STR(a, "b"); }
 * Tests register themselves; the harness's main runs them (a name given on
 * the command line runs only tests whose name contains it).  Each test
 * has a scratch directory, $CUDBG_TEST_TMP, removed after it. */
#ifndef CUDBG_TEST_HARNESS_H
#define CUDBG_TEST_HARNESS_H

#include <stdbool.h>
#include <stddef.h>

typedef void (*test_fn)(void);

void test_register(const char *name, test_fn fn, unsigned timeout_s);
void test_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
void test_skip(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* Where the shared fixtures (tests/shared/fixtures, a copy of the
 * project's real cuda-gdb recordings) and the repository root are; from the
 * environment (CUDBG_FIXTURES, CUDBG_ROOT) or relative defaults. */
const char *test_fixtures_dir(void);
const char *test_root_dir(void);
/* Reads a whole file (gunzips *.gz through `gzip -dc`).  Caller frees.
 * Fails the test when it cannot. */
char *test_read_file(const char *path, size_t *len);

#define TEST_TIMEOUT(name, secs)                                            \
	static void test_##name(void);                                      \
	__attribute__((constructor)) static void test_reg_##name(void)      \
	{                                                                   \
		test_register(#name, test_##name, secs);                    \
	}                                                                   \
	static void test_##name(void)

#define TEST(name) TEST_TIMEOUT(name, 30)

#define CHECK(cond)                                                         \
	do {                                                                \
		if (!(cond))                                                \
			test_fail(__FILE__, __LINE__, "%s", #cond);         \
	} while (0)

#define CHECK_MSG(cond, ...)                                                \
	do {                                                                \
		if (!(cond))                                                \
			test_fail(__FILE__, __LINE__, __VA_ARGS__);         \
	} while (0)

#define CHECK_INT(a, b)                                                     \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		if (a_ != b_)                                               \
			test_fail(__FILE__, __LINE__, "%s == %lld, want %lld", \
				  #a, a_, b_);                              \
	} while (0)

#define CHECK_STR(a, b)                                                     \
	do {                                                                \
		const char *a_ = (a), *b_ = (b);                            \
		if (!a_ || !b_ || strcmp(a_, b_) != 0)                      \
			test_fail(__FILE__, __LINE__, "%s == \"%s\", want \"%s\"", \
				  #a, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
	} while (0)

#endif
