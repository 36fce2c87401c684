/* GDB/MI parser: grammar, escapes, chunking, every fixture line, malformed
 * input and resynchronisation. */
#include "cudbg/mi.h"
#include "tests/harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A canonical dump of records, to compare parses of the same bytes. */
struct dump {
	char *buf;
	size_t len, cap;
	size_t records, errors;
};

static void dump_put(struct dump *d, const char *s, size_t n)
{
	if (d->len + n + 1 > d->cap) {
		d->cap = (d->len + n + 1) * 2;
		d->buf = realloc(d->buf, d->cap);
	}
	memcpy(d->buf + d->len, s, n);
	d->len += n;
	d->buf[d->len] = '\0';
}

static void dump_str(struct dump *d, const char *s)
{
	dump_put(d, s, strlen(s));
}

static void dump_node(struct dump *d, const struct mi_node *n)
{
	if (n->name) {
		dump_str(d, n->name);
		dump_str(d, "=");
	}
	switch (n->kind) {
	case MI_NODE_STRING: {
		char q[64];
		snprintf(q, sizeof q, "s%u:", n->len);
		dump_str(d, q);
		dump_put(d, n->str, n->len);
		break;
	}
	case MI_NODE_TUPLE:
	case MI_NODE_LIST:
		dump_str(d, n->kind == MI_NODE_TUPLE ? "{" : "[");
		for (const struct mi_node *c = n->child; c; c = c->next) {
			dump_node(d, c);
			if (c->next)
				dump_str(d, ",");
		}
		dump_str(d, n->kind == MI_NODE_TUPLE ? "}" : "]");
		break;
	}
}

static void dump_record(void *ctx, const struct mi_record *r)
{
	struct dump *d = ctx;
	char head[128];
	snprintf(head, sizeof head, "%d|%d|%llu|%s|", (int)r->kind,
		 (int)r->has_token, (unsigned long long)r->token, r->klass);
	dump_str(d, head);
	if (r->kind == MI_REC_ERROR) {
		d->errors++;
		snprintf(head, sizeof head, "err%d@%zu", r->error, r->error_at);
		dump_str(d, head);
	}
	dump_put(d, r->text, r->text_len);
	for (const struct mi_node *n = r->results; n; n = n->next)
		dump_node(d, n);
	dump_str(d, "\n");
	d->records++;
}

static struct dump parse_chunks(const char *buf, size_t len, size_t chunk,
				unsigned seed)
{
	struct dump d = { 0 };
	struct mi_parser *p = mi_parser_new(dump_record, &d);
	size_t off = 0;
	srand(seed);
	while (off < len) {
		size_t n = chunk ? chunk : 1 + (size_t)rand() % 97;
		if (n > len - off)
			n = len - off;
		CHECK_INT(mi_parser_push(p, buf + off, n), MI_OK);
		off += n;
	}
	mi_parser_finish(p);
	mi_parser_free(p);
	return d;
}

static struct dump parse_text(const char *text)
{
	return parse_chunks(text, strlen(text), strlen(text) + 1, 0);
}

TEST(result_record_with_token)
{
	struct dump d = parse_text("12^done,value=\"42\"\n");
	CHECK_STR(d.buf, "0|1|12|done|value=s2:42\n");
	free(d.buf);
}

TEST(record_kinds)
{
	struct dump d = parse_text("*stopped,reason=\"exited\"\n+download\n"
				   "=thread-created,id=\"1\"\n~\"a\"\n@\"b\"\n"
				   "&\"c\"\n(gdb) \n^running\n");
	CHECK_STR(d.buf, "1|0|0|stopped|reason=s6:exited\n"
			 "2|0|0|download|\n"
			 "3|0|0|thread-created|id=s1:1\n"
			 "4|0|0||a\n5|0|0||b\n6|0|0||c\n7|0|0||\n"
			 "0|0|0|running|\n");
	free(d.buf);
}

TEST(escapes_decode_in_place)
{
	struct dump d = parse_text("~\"a\\n\\t\\\"q\\\"\\\\\\101\\302\\251z\"\n");
	CHECK_STR(d.buf, "4|0|0||a\n\t\"q\"\\A\xc2\xa9z\n");
	free(d.buf);
}

TEST(raw_utf8_passes_through)
{
	struct dump d = parse_text("~\"\xe2\x9c\x93 ok\"\n");
	CHECK_STR(d.buf, "4|0|0||\xe2\x9c\x93 ok\n");
	free(d.buf);
}

TEST(tuples_lists_and_repeated_keys)
{
	struct dump d = parse_text(
		"^done,stack=[frame={level=\"0\",func=\"f\"},frame={level=\"1\"}],"
		"l=[\"a\",\"b\"],e=[],t={},n=[[\"x\"],{a=\"1\"}]\n");
	CHECK_STR(d.buf, "0|0|0|done|stack=[frame={level=s1:0,func=s1:f},"
			 "frame={level=s1:1}]l=[s1:a,s1:b]e=[]t={}"
			 "n=[[s1:x],{a=s1:1}]\n");
	free(d.buf);
}

TEST(lookup_helpers)
{
	struct dump d = { 0 };
	(void)d;
	struct mi_parser *p = mi_parser_new(dump_record, &d);
	mi_parser_free(p);
	mi_parser_free(NULL);
}

struct first_stop {
	char reason[64], sig[64], block[32];
};

static void grab_stop(void *ctx, const struct mi_record *r)
{
	struct first_stop *fs = ctx;
	if (r->kind != MI_REC_EXEC || strcmp(r->klass, "stopped") != 0)
		return;
	snprintf(fs->reason, sizeof fs->reason, "%s",
		 mi_find_str(r->results, "reason"));
	snprintf(fs->sig, sizeof fs->sig, "%s",
		 mi_find_str(r->results, "signal-name"));
	const struct mi_node *focus = mi_find_children(r->results, "CudaFocus");
	snprintf(fs->block, sizeof fs->block, "%s",
		 mi_find_str(focus, "blockIdx"));
}

TEST(find_helpers_on_cuda_stop)
{
	const char *line = "*stopped,reason=\"signal-received\",signal-name="
			   "\"CUDA_EXCEPTION_12\",CudaFocus={device=\"0\","
			   "blockIdx=\"(0,0,0)\"},frame={addr=\"0x1\"}";
	struct first_stop fs = { 0 };
	CHECK_INT(mi_parse_line(line, strlen(line), grab_stop, &fs), MI_OK);
	CHECK_STR(fs.reason, "signal-received");
	CHECK_STR(fs.sig, "CUDA_EXCEPTION_12");
	CHECK_STR(fs.block, "(0,0,0)");
}

TEST(junk_before_record_is_skipped)
{
	/* cuda-gdb 13, attach.mi.log line 36. */
	struct dump d = parse_text("\xef\xbf\xbd\xef\xbf\xbd^running\n");
	CHECK_STR(d.buf, "0|0|0|running|\n");
	free(d.buf);
}

TEST(crlf_line_endings)
{
	struct dump d = parse_text("^done\r\n(gdb) \r\n");
	CHECK_STR(d.buf, "0|0|0|done|\n7|0|0||\n");
	free(d.buf);
}

/* gdb 13 writes a breakpoint's commands as bare values in a tuple,
 * against its own grammar (a dprintf's script): read as a tuple whose
 * items have no names, not as a malformed line the reply is lost with. */
TEST(bare_values_in_a_tuple)
{
	struct dump d = parse_text("^done,bkpt={number=\"1\",script={\"silent\",\"bt\"}}\n");
	CHECK_MSG(d.errors == 0, "%zu errors", d.errors);
	CHECK_MSG(strstr(d.buf, "silent") && strstr(d.buf, "bt"), "%s", d.buf);
	free(d.buf);
}

/* A tuple's name="text" cells take a shorter path (parse_plain_cell):
 * the cells beside it (an escape, a raw NUL, a bare value, a nested
 * value) and its bad forms must read as the general parse reads them. */
TEST(tuple_cells_of_every_form)
{
	struct dump d = parse_text(
		"^done,r={a=\"1\",b=\"x\\\"y\",c=\"\",d={e=\"2\"},"
		"f=[\"3\"],\"bare\",g-h.i=\"\\101\",j=\"(0,0,0)\"}\n");
	CHECK_STR(d.buf, "0|0|0|done|r={a=s1:1,b=s3:x\"y,c=s0:,d={e=s1:2},"
			 "f=[s1:3],s4:bare,g-h.i=s1:A,j=s7:(0,0,0)}\n");
	free(d.buf);
	static const char raw_nul[] = "^done,r={a=\"x\0y\",b=\"z\"}\n";
	d = parse_chunks(raw_nul, sizeof raw_nul - 1, sizeof raw_nul, 0);
	CHECK_MSG(d.errors == 0 && d.len > 0 && memchr(d.buf, 'z', d.len),
		  "%zu errors", d.errors);
	free(d.buf);
	/* bad cells: a name with no '=', a name cut by a comma, a quote in
	 * the name, a string never closed (found at the line's end); each
	 * one error at its byte */
	const char *bad[] = { "^done,r={a}\n", "^done,r={a,b=\"1\"}\n",
			      "^done,r={a\"b=\"1\"}\n", "^done,r={a=\"1}\n" };
	const size_t at[] = { 10, 10, 10, 14 };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		d = parse_text(bad[i]);
		char want[32];
		snprintf(want, sizeof want, "err%d@%zu", MI_ESYNTAX, at[i]);
		CHECK_MSG(d.errors == 1 && strstr(d.buf, want),
			  "case %zu: %s", i, d.buf);
		free(d.buf);
	}
}

TEST(malformed_lines_error_then_resync)
{
	const char *bad[] = {
		"^done,a=\"unterminated\n", "^done,a=\n", "^done,=\"x\"\n",
		"^done,a={b=\"1\"\n", "^done,a=[\"1\"\n", "garbage here\n",
		"~\"x\" trailing\n", "^done,a=\"1\"junk\n", "^\n",
		"~\"bad escape \\", "123\n", "^done,a=\"x\",\n",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[256];
		snprintf(text, sizeof text, "%s\n^done,ok=\"1\"\n", bad[i]);
		struct dump d = parse_text(text);
		CHECK_MSG(d.errors == 1, "case %zu: %zu errors", i, d.errors);
		CHECK_MSG(strstr(d.buf, "0|0|0|done|ok=s1:1\n") != NULL,
			  "case %zu: no resync: %s", i, d.buf);
		free(d.buf);
	}
}

TEST(deep_nesting_is_bounded)
{
	size_t depth = 100000;
	char *text = malloc(depth * 2 + 32);
	size_t n = (size_t)sprintf(text, "^done,a=");
	for (size_t i = 0; i < depth; i++)
		text[n++] = '[';
	for (size_t i = 0; i < depth; i++)
		text[n++] = ']';
	strcpy(text + n, "\n^done\n");
	struct dump d = parse_text(text);
	CHECK_INT(d.errors, 1);
	CHECK(strstr(d.buf, "err-3@") != NULL);
	CHECK(strstr(d.buf, "0|0|0|done|\n") != NULL);
	free(d.buf);
	free(text);
}

TEST(depth_just_under_bound_parses)
{
	char text[2 * MI_MAX_DEPTH + 64];
	size_t n = (size_t)sprintf(text, "^done,a=");
	for (int i = 0; i < MI_MAX_DEPTH - 1; i++)
		text[n++] = '[';
	for (int i = 0; i < MI_MAX_DEPTH - 1; i++)
		text[n++] = ']';
	strcpy(text + n, "\n");
	struct dump d = parse_text(text);
	CHECK_INT(d.errors, 0);
	free(d.buf);
}

TEST(max_line_limit_drops_and_resyncs)
{
	struct dump d = { 0 };
	struct mi_parser *p = mi_parser_new(dump_record, &d);
	mi_parser_set_max_line(p, 100);
	char big[300];
	memset(big, 'x', sizeof big);
	mi_parser_push(p, "~\"", 2);
	mi_parser_push(p, big, sizeof big);
	mi_parser_push(p, big, sizeof big);
	mi_parser_push(p, "\"\n^done\n", 8);
	mi_parser_free(p);
	CHECK_INT(d.errors, 1);
	CHECK(strstr(d.buf, "err-4@100") != NULL);
	CHECK(strstr(d.buf, "0|0|0|done|\n") != NULL);
	free(d.buf);
}

/* A table of `rows` rows of three cells, as one tree-mode line. */
static void push_table(struct mi_parser *p, int rows)
{
	mi_parser_push(p, "^done,t={body=[", 15);
	for (int i = 0; i < rows; i++) {
		char row[64];
		int n = snprintf(row, sizeof row, "%s{a=\"%d\",b=\"x\",c=\"y\"}",
				 i ? "," : "", i);
		mi_parser_push(p, row, (size_t)n);
	}
	mi_parser_push(p, "]}\n", 3);
}

TEST(big_line_memory_kept_only_while_big_lines_come)
{
	struct dump d = { 0 };
	struct mi_parser *p = mi_parser_new(dump_record, &d);
	mi_parser_push(p, "^done,x=\"1\"\n", 12);
	size_t small = mi_parser_kept_bytes(p);
	CHECK(small > 0);
	push_table(p, 100000); /* 400k nodes */
	size_t big = mi_parser_kept_bytes(p);
	CHECK(big >= 400000 * sizeof(struct mi_node));
	push_table(p, 100000); /* the same again: reused, not grown */
	CHECK(mi_parser_kept_bytes(p) == big);
	mi_parser_push(p, "^done,x=\"1\"\n", 12);
	CHECK(mi_parser_kept_bytes(p) == small);
	CHECK_INT(d.errors, 0);
	mi_parser_free(p);
	free(d.buf);
}

TEST(nul_bytes_and_binary_garbage_never_crash)
{
	char text[512];
	for (int i = 0; i < 256; i++)
		text[i] = (char)i;
	memcpy(text + 256, "\n^done\n", 8);
	struct dump d = parse_chunks(text, 263, 7, 1);
	CHECK(strstr(d.buf, "0|0|0|done|\n") != NULL);
	free(d.buf);
}

TEST(unterminated_final_line_at_finish)
{
	struct dump d = parse_chunks("^done\n^exit", 11, 3, 0);
	CHECK_STR(d.buf, "0|0|0|done|\n0|0|0|exit|\n");
	free(d.buf);
}

TEST(quote_round_trips)
{
	const char *in = "a \"b\" \\ c\n\t\x01";
	char q[128];
	size_t n = mi_quote(q, sizeof q, in, strlen(in));
	CHECK(n < sizeof q);
	char back[128];
	long m = mi_unquote(back, sizeof back, q, n);
	CHECK_INT(m, (long)strlen(in));
	CHECK_STR(back, in);
	CHECK(mi_quote(q, 4, in, strlen(in)) > 4);
	CHECK_INT(strlen(q), 3);
}

/* Extracts the `<` lines (debugger stdout) of a transcript. */
static char *transcript_mi_lines(const char *path, size_t *out_len,
				 size_t *nlines)
{
	size_t len;
	char *t = test_read_file(path, &len);
	char *out = malloc(len + 1);
	size_t w = 0;
	*nlines = 0;
	for (char *line = t; line < t + len;) {
		char *nl = memchr(line, '\n', (size_t)(t + len - line));
		char *eol = nl ? nl : t + len;
		char *tag = line;
		while (tag < eol && *tag == ' ')
			tag++;
		while (tag < eol && *tag != ' ')
			tag++;
		if (eol - tag >= 3 && tag[1] == '<' && tag[2] == ' ') {
			memcpy(out + w, tag + 3, (size_t)(eol - tag - 3));
			w += (size_t)(eol - tag - 3);
			out[w++] = '\n';
			(*nlines)++;
		}
		line = eol + 1;
	}
	free(t);
	*out_len = w;
	return out;
}

static int is_fixture(const char *name)
{
	size_t n = strlen(name);
	return (n > 7 && strcmp(name + n - 7, ".mi.log") == 0) ||
	       (n > 10 && strcmp(name + n - 10, ".mi.log.gz") == 0);
}

static void check_fixture_dir(const char *dir, int with_random_splits)
{
	DIR *dp = opendir(dir);
	if (!dp)
		test_skip("no fixtures at %s", dir);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(dp)) != NULL) {
		if (!is_fixture(de->d_name))
			continue;
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		size_t len, nlines;
		char *mi = transcript_mi_lines(path, &len, &nlines);
		struct dump whole = parse_chunks(mi, len, len, 0);
		CHECK_MSG(whole.errors == 0, "%s: %zu lines fail to parse",
			  de->d_name, whole.errors);
		CHECK_MSG(whole.records == nlines, "%s: %zu records of %zu",
			  de->d_name, whole.records, nlines);
		int big = len > (1 << 20);
		if (with_random_splits && !big) {
			struct dump bytes = parse_chunks(mi, len, 1, 0);
			CHECK_MSG(strcmp(bytes.buf, whole.buf) == 0,
				  "%s: byte-by-byte differs", de->d_name);
			free(bytes.buf);
			for (unsigned seed = 1; seed <= 3; seed++) {
				struct dump r = parse_chunks(mi, len, 0, seed);
				CHECK_MSG(strcmp(r.buf, whole.buf) == 0,
					  "%s: split seed %u differs",
					  de->d_name, seed);
				free(r.buf);
			}
		} else if (big) {
			/* 60 MB: 4 KiB pipe-sized reads and odd splits. */
			struct dump r = parse_chunks(mi, len, 4096, 0);
			CHECK_MSG(strcmp(r.buf, whole.buf) == 0,
				  "%s: 4 KiB chunks differ", de->d_name);
			free(r.buf);
			r = parse_chunks(mi, len, 65521, 0);
			CHECK_MSG(strcmp(r.buf, whole.buf) == 0,
				  "%s: 65521-byte chunks differ", de->d_name);
			free(r.buf);
		}
		free(whole.buf);
		free(mi);
		files++;
	}
	closedir(dp);
	CHECK_MSG(files > 0, "no transcripts in %s", dir);
}

TEST_TIMEOUT(every_shared_fixture_line_parses_in_any_chunking, 300)
{
	check_fixture_dir(test_fixtures_dir(), 1);
}

TEST_TIMEOUT(every_project_fixture_line_parses_in_any_chunking, 300)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/fixtures", test_root_dir());
	DIR *dp = opendir(dir);
	if (!dp)
		test_skip("no project recordings yet in %s", dir);
	closedir(dp);
	check_fixture_dir(dir, 1);
}

TEST(malformed_corpus_directory)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/data/malformed", test_root_dir());
	DIR *dp = opendir(dir);
	CHECK_MSG(dp != NULL, "missing %s", dir);
	struct dirent *de;
	int files = 0;
	while ((de = readdir(dp)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		char path[4096 + 256]; /* the folder and a file name */
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		size_t len;
		char *t = test_read_file(path, &len);
		/* Each file holds bad lines; a good line appended after them
		 * must still parse. */
		char *text = malloc(len + 16);
		memcpy(text, t, len);
		memcpy(text + len, "\n^done,ok=\"1\"\n", 15);
		struct dump d = parse_chunks(text, len + 14, 0, 7);
		CHECK_MSG(d.errors >= 1, "%s: no error reported", de->d_name);
		CHECK_MSG(strstr(d.buf, "0|0|0|done|ok=s1:1\n") != NULL,
			  "%s: no resync", de->d_name);
		free(d.buf);
		free(text);
		free(t);
		files++;
	}
	closedir(dp);
	CHECK(files >= 5);
}
