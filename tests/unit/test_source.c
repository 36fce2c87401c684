/* Source files: lookup through directories, loading, syntax colours. */
#include "tests/harness.h"
#include "tui/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct toks {
	char text[64][64];
	int cls[64];
	int n;
	const char *line;
};

static void tok(void *ctx, size_t start, size_t len, enum syn_class cls)
{
	struct toks *t = ctx;
	if (t->n >= 64)
		return;
	snprintf(t->text[t->n], sizeof t->text[0], "%.*s", (int)len, t->line + start);
	t->cls[t->n++] = (int)cls;
}

static int find(struct toks *t, const char *text)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->text[i], text) == 0)
			return t->cls[i];
	return -1;
}

static uint8_t colour(struct toks *t, enum src_lang lang, uint8_t st, const char *line)
{
	memset(t, 0, sizeof(*t));
	t->line = line;
	return syntax_line(lang, st, line, strlen(line), tok, t);
}

TEST(c_and_cuda_tokens)
{
	struct toks t;
	uint8_t st = colour(&t, LANG_C, 0,
			    "__global__ void k(float *x) { int i = threadIdx.x + 0x1f; // hi");
	CHECK_INT(st, 0);
	CHECK_INT(find(&t, "__global__"), SYN_KEYWORD);
	CHECK_INT(find(&t, "void"), SYN_TYPE);
	CHECK_INT(find(&t, "threadIdx"), SYN_TYPE);
	CHECK_INT(find(&t, "0x1f"), SYN_NUMBER);
	CHECK_INT(find(&t, "// hi"), SYN_COMMENT);
	CHECK_INT(find(&t, "k"), -1);
	colour(&t, LANG_C, 0, "  printf(\"a \\\" b\", 'c');");
	CHECK_INT(find(&t, "\"a \\\" b\""), SYN_STRING);
	CHECK_INT(find(&t, "'c'"), SYN_STRING);
	colour(&t, LANG_C, 0, "#include <cstdio>");
	CHECK_INT(find(&t, "#include <cstdio>"), SYN_PREPROC);
}

TEST(c_block_comment_spans_lines)
{
	struct toks t;
	CHECK_INT(colour(&t, LANG_C, 0, "int a; /* start"), 1);
	CHECK_INT(find(&t, "/* start"), SYN_COMMENT);
	CHECK_INT(colour(&t, LANG_C, 1, "still comment"), 1);
	CHECK_INT(colour(&t, LANG_C, 1, "end */ return 1;"), 0);
	CHECK_INT(find(&t, "end */"), SYN_COMMENT);
	CHECK_INT(find(&t, "return"), SYN_KEYWORD);
	CHECK_INT(find(&t, "1"), SYN_NUMBER);
}

TEST(python_tokens)
{
	struct toks t;
	colour(&t, LANG_PYTHON, 0, "@torch.no_grad()");
	CHECK_INT(find(&t, "@torch.no_grad"), SYN_PREPROC);
	colour(&t, LANG_PYTHON, 0, "def f(self, x=1.5): return f'{x}' # note");
	CHECK_INT(find(&t, "def"), SYN_KEYWORD);
	CHECK_INT(find(&t, "self"), SYN_TYPE);
	CHECK_INT(find(&t, "1.5"), SYN_NUMBER);
	CHECK_INT(find(&t, "'{x}'"), SYN_STRING);
	CHECK_INT(find(&t, "# note"), SYN_COMMENT);
	CHECK_INT(colour(&t, LANG_PYTHON, 0, "s = \"\"\"doc"), 1);
	CHECK_INT(colour(&t, LANG_PYTHON, 1, "more # not a comment"), 1);
	CHECK_INT(find(&t, "# not a comment"), -1);
	CHECK_INT(colour(&t, LANG_PYTHON, 1, "end\"\"\" + x"), 0);
}

TEST(lang_of)
{
	CHECK_INT(source_lang_of("/a/b/k.cu"), LANG_C);
	CHECK_INT(source_lang_of("x.cuh"), LANG_C);
	CHECK_INT(source_lang_of("x.cpp"), LANG_C);
	CHECK_INT(source_lang_of("seed_repro.py"), LANG_PYTHON);
	CHECK_INT(source_lang_of("Makefile"), LANG_NONE);
}

TEST(find_through_directories)
{
	char dir[] = "/tmp/cudbg-src-XXXXXX", path[4096], out[4096];
	CHECK(mkdtemp(dir) != NULL);
	snprintf(path, sizeof path, "%s/kern.cu", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	fputs("line one\r\nline two\nlast", f);
	fclose(f);
	const char *dirs[] = { "/nonexistent", dir, NULL };
	/* The recorded path does not exist here; the base name is found
	 * under a -d directory. */
	CHECK_INT(source_find("kern.cu", "/src/examples/kern.cu", dirs, out, sizeof out), 0);
	CHECK_STR(out, path);
	CHECK_INT(source_find("/src/examples/kern.cu", NULL, dirs, out, sizeof out), 0);
	CHECK_INT(source_find("nothere.cu", "/x/nothere.cu", dirs, out, sizeof out), -1);
	CHECK_INT(source_find(path, NULL, NULL, out, sizeof out), 0);

	int err = 0;
	struct srcfile *s = srcfile_load(path, &err);
	CHECK(s != NULL);
	CHECK_INT(s->nlines, 3);
	size_t len;
	const char *l = srcfile_line(s, 1, &len);
	CHECK_INT(len, 8); /* CR dropped */
	CHECK(strncmp(l, "line one", len) == 0);
	l = srcfile_line(s, 3, &len);
	CHECK(strncmp(l, "last", len) == 0 && len == 4);
	CHECK(srcfile_line(s, 4, &len) == NULL);
	CHECK(srcfile_line(s, 0, &len) == NULL);
	srcfile_free(s);
	f = fopen(path, "w");
	fputs("a\n\nlast\n", f);
	fclose(f);
	s = srcfile_load(path, &err);
	CHECK_INT(s->nlines, 3);
	l = srcfile_line(s, 2, &len);
	CHECK_INT(len, 0);
	l = srcfile_line(s, 3, &len);
	CHECK(len == 4 && strncmp(l, "last", 4) == 0);
	srcfile_free(s);
	CHECK(srcfile_load("/nonexistent/x.c", &err) == NULL);
	CHECK(err != 0);
	unlink(path);
	rmdir(dir);
}
