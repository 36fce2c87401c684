/* Transcripts: line format, writer/reader round trip, errors with file
 * and line, streaming scan, and the replay engine's matching rules. */
#include "cudbg/transcript.h"
#include "tests/harness.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

TEST(parse_line_forms)
{
	struct transcript_entry e;
	const char *l = "   0.151 < ^done,value=\"on\"";
	CHECK_INT(transcript_parse_line(l, strlen(l), &e), 0);
	CHECK(e.tag == '<');
	CHECK(e.t > 0.150 && e.t < 0.152);
	CHECK_INT(e.len, strlen("^done,value=\"on\""));
	CHECK(memcmp(e.text, "^done", 5) == 0);
	l = "  31.598 # wait-stop TIMEOUT after 31.598";
	CHECK_INT(transcript_parse_line(l, strlen(l), &e), 0);
	CHECK(e.tag == '#' && e.t > 31.5);
	l = "0.5 T"; /* empty text */
	CHECK_INT(transcript_parse_line(l, strlen(l), &e), 0);
	CHECK(e.tag == 'T' && e.len == 0);
	l = "   0.150 < (gdb) "; /* trailing blank kept */
	CHECK_INT(transcript_parse_line(l, strlen(l), &e), 0);
	CHECK_INT(e.len, 6);
	const char *bad[] = { "", "abc", "0.1", "0.1 X text", "0.1  < x",
			      "0.1<x", ".5 < x", "1. < x", "0.1 <x" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		CHECK_MSG(transcript_parse_line(bad[i], strlen(bad[i]), &e) ==
			  TRANSCRIPT_EFORMAT, "accepted '%s'", bad[i]);
}

TEST(command_body_strips_token)
{
	size_t len;
	uint64_t tok;
	const char *c = "12-exec-run  ";
	const char *b = transcript_command_body(c, strlen(c), &len, &tok);
	CHECK_INT(tok, 12);
	CHECK_INT(len, 9);
	CHECK(memcmp(b, "-exec-run", 9) == 0);
	c = "-gdb-version";
	b = transcript_command_body(c, strlen(c), &len, &tok);
	CHECK_INT(tok, 0);
	CHECK(b == c && len == 12);
}

static char *tmp_path(const char *suffix)
{
	static char buf[4][128];
	static int i;
	char *p = buf[i++ & 3];
	snprintf(p, 128, "/tmp/cudbg-tr-%d-%d%s", (int)getpid(), i, suffix);
	unlink(p);
	return p;
}

static void write_file(const char *path, const char *s, size_t len)
{
	FILE *f = fopen(path, "wb");
	CHECK(f != NULL);
	CHECK(fwrite(s, 1, len, f) == len);
	fclose(f);
}

TEST(writer_reader_round_trip)
{
	char *path = tmp_path(".mi.log");
	char err[512];
	struct transcript_writer *w = transcript_writer_open(path, false, err,
							     sizeof err);
	CHECK_MSG(w != NULL, "%s", err);
	const char bin[] = { 'a', 0, 'b', '\x1b', '\xff', '\r' };
	CHECK_INT(transcript_write(w, 0.0, '>', "1-gdb-version", 13), 0);
	CHECK_INT(transcript_write(w, 0.0015, '<', "1^done", 6), 0);
	CHECK_INT(transcript_write(w, 1.25, 'T', bin, sizeof bin), 0);
	CHECK_INT(transcript_write(w, 2, 'E', "", 0), 0);
	CHECK_INT(transcript_write(w, 12345.678, '#', "cut\nhere", 8), 0);
	transcript_writer_close(w);

	struct transcript *t;
	CHECK_MSG(transcript_load(path, &t, err, sizeof err) == 0, "%s", err);
	CHECK_INT(transcript_count(t), 5);
	struct transcript_entry e;
	CHECK_INT(transcript_get(t, 0, &e), 0);
	CHECK(e.tag == '>' && e.len == 13 && memcmp(e.text, "1-gdb-version",
						    13) == 0);
	CHECK_INT(transcript_get(t, 1, &e), 0);
	CHECK(e.tag == '<' && e.t > 0.0009 && e.t < 0.0021);
	CHECK_INT(transcript_get(t, 2, &e), 0);
	CHECK(e.tag == 'T' && e.len == sizeof bin);
	CHECK(memcmp(e.text, bin, sizeof bin) == 0);
	CHECK_INT(transcript_get(t, 3, &e), 0);
	CHECK(e.tag == 'E' && e.len == 0);
	CHECK_INT(transcript_get(t, 4, &e), 0);
	CHECK(e.len == 3 && e.line == 5 && memcmp(e.text, "cut", 3) == 0);
	CHECK(e.t > 12345.6);
	/* Out of order, as a replay asks: each text read where it is. */
	CHECK_INT(transcript_get(t, 0, &e), 0);
	CHECK(e.len == 13 && memcmp(e.text, "1-gdb-version", 13) == 0);
	transcript_free(t);

	/* The file is never overwritten unless asked. */
	w = transcript_writer_open(path, false, err, sizeof err);
	CHECK(w == NULL);
	CHECK(strstr(err, "exists") && strstr(err, "--force"));
	w = transcript_writer_open(path, true, err, sizeof err);
	CHECK(w != NULL);
	transcript_writer_close(w);
	struct stat st;
	CHECK(stat(path, &st) == 0 && st.st_size == 0);
	unlink(path);
}

static void expect_load_error(const char *text, int code, const char *part)
{
	char *path = tmp_path(".mi.log");
	write_file(path, text, strlen(text));
	struct transcript *t = NULL;
	char err[512] = "";
	CHECK_INT(transcript_load(path, &t, err, sizeof err), code);
	CHECK(t == NULL);
	CHECK_MSG(strstr(err, part) != NULL, "'%s' lacks '%s'", err, part);
	CHECK(strstr(err, path) != NULL);
	/* The streaming reader says the same. */
	CHECK_INT(transcript_scan(path, 16, NULL, NULL, err, sizeof err),
		  code);
	CHECK_MSG(strstr(err, part) != NULL, "scan: '%s' lacks '%s'", err,
		  part);
	unlink(path);
}

TEST(bad_transcripts_name_file_and_line)
{
	expect_load_error("   0.1 < ^done\nnot a line\n", TRANSCRIPT_EFORMAT,
			  ":2: not a transcript line");
	expect_load_error("   0.1 < ^done\n   0.2 < ^do", TRANSCRIPT_ETRUNC,
			  ":2: the transcript is cut short");
	expect_load_error("   0.1 > -gdb-version\n", TRANSCRIPT_EEMPTY,
			  "no debugger output");
	expect_load_error("", TRANSCRIPT_EEMPTY, "no debugger output");
	struct transcript *t;
	char err[256];
	CHECK_INT(transcript_load("/nonexistent/x.mi.log", &t, err, sizeof err),
		  TRANSCRIPT_EOPEN);
	CHECK(strstr(err, "cannot open transcript /nonexistent/x.mi.log"));
}

TEST(devices_directories_and_oversized_files_are_refused)
{
	struct transcript *t = NULL;
	char err[512] = "";
	CHECK_INT(transcript_load("/dev/zero", &t, err, sizeof err),
		  TRANSCRIPT_EOPEN);
	CHECK_MSG(strstr(err, "/dev/zero: is a device"), "%s", err);
	CHECK_INT(transcript_load("/", &t, err, sizeof err), TRANSCRIPT_EOPEN);
	CHECK_MSG(strstr(err, "/: is a directory"), "%s", err);
	const char *text = "   0.1 < ^done\n   0.2 < (gdb) \n";
	char *path = tmp_path(".mi.log");
	write_file(path, text, strlen(text));
	transcript_set_max_bytes(16);
	int rc = transcript_load(path, &t, err, sizeof err);
	transcript_set_max_bytes(0);
	CHECK_INT(rc, TRANSCRIPT_ETOOBIG);
	CHECK_MSG(strstr(err, path) && strstr(err, "CUDBG_REPLAY_MAX_MB"),
		  "%s", err);
	CHECK_INT(transcript_load(path, &t, err, sizeof err), 0);
	CHECK_INT((long)transcript_count(t), 2);
	transcript_free(t);
	unlink(path);
}

TEST(truncated_gzip_is_reported)
{
	char src[4096];
	snprintf(src, sizeof src, "%s/big_grid.mi.log.gz", test_fixtures_dir());
	FILE *f = fopen(src, "rb");
	if (!f)
		test_skip("no fixture %s", src);
	static char buf[200000];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	char *path = tmp_path(".mi.log.gz");
	write_file(path, buf, n);
	struct transcript *t;
	char err[512];
	int rc = transcript_load(path, &t, err, sizeof err);
	CHECK_MSG(rc == TRANSCRIPT_ETRUNC, "%d %s", rc, err);
	CHECK(strstr(err, "cut short") != NULL);
	unlink(path);
}

/* A .gz is read with zlib into a private copy that is unlinked at once
 * (nothing is left in TMPDIR, even while it is loaded), and its texts
 * are read back from that copy in any order. */
TEST(gzip_is_read_with_zlib_into_an_unlinked_copy)
{
	char dir[128];
	snprintf(dir, sizeof dir, "/tmp/cudbg-trdir-%d", (int)getpid());
	CHECK(mkdir(dir, 0700) == 0);
	char *path = tmp_path(".mi.log.gz");
	/* A gzip member for "0 < ^done\n0 > -gdb-exit\n0 < ^exit\n"
	 * written by zlib's own writer would hide a reader bug behind the
	 * same library: these bytes are gzip(1)'s. */
	static const unsigned char gz[] = {
		0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03,
		0x33, 0x50, 0xb0, 0x51, 0x88, 0x4b, 0xc9, 0xcf, 0x4b, 0xe5,
		0x32, 0x50, 0xb0, 0x53, 0xd0, 0x4d, 0x4f, 0x49, 0xd2, 0x4d,
		0xad, 0xc8, 0x2c, 0x01, 0xf2, 0x80, 0xe2, 0x60, 0x16, 0x00,
		0x13, 0xce, 0x9f, 0xc3, 0x22, 0x00, 0x00, 0x00 };
	write_file(path, (const char *)gz, sizeof gz);
	char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", dir, 1);
	struct transcript *t = NULL;
	char err[512] = "";
	int rc = transcript_load(path, &t, err, sizeof err);
	CHECK_MSG(rc == 0, "%s", err);
	if (rc == 0) {
		DIR *d = opendir(dir);
		int files = 0;
		for (struct dirent *de; d && (de = readdir(d));)
			files += de->d_name[0] != '.';
		if (d)
			closedir(d);
		CHECK_INT(files, 0);
		CHECK(transcript_fd(t) >= 0);
		CHECK_INT(transcript_count(t), 3);
		struct transcript_entry e;
		CHECK_INT(transcript_get(t, 2, &e), 0);
		CHECK(e.len == 5 && memcmp(e.text, "^exit", 5) == 0);
		CHECK_INT(transcript_get(t, 0, &e), 0);
		CHECK(e.len == 5 && memcmp(e.text, "^done", 5) == 0);
		transcript_free(t);
	}
	/* A TMPDIR that cannot take the copy is named. */
	snprintf(err, sizeof err, "%s/none", dir);
	setenv("TMPDIR", err, 1);
	CHECK_INT(transcript_load(path, &t, err, sizeof err), TRANSCRIPT_EOPEN);
	CHECK_MSG(strstr(err, "TMPDIR") && strstr(err, path), "%s", err);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	free(old);
	unlink(path);
	rmdir(dir);
}

/* Line numbers count blank lines too, though they are no records. */
TEST(line_numbers_count_blank_lines)
{
	const char *text = "0 < a\n\n  \n0 < b\n0 < c\n\n0 > d\n";
	struct transcript *t;
	char err[256];
	CHECK_MSG(transcript_parse(text, strlen(text), "x", &t, err,
				   sizeof err) == 0, "%s", err);
	unsigned long want[] = { 1, 4, 5, 7 };
	CHECK_INT(transcript_count(t), 4);
	for (size_t i = 0; i < 4; i++) {
		struct transcript_entry e;
		CHECK_INT(transcript_get(t, i, &e), 0);
		CHECK_INT(e.line, want[i]);
		CHECK(e.len == 1 && e.text[0] == "abcd"[i]);
		CHECK(e.tag == (i == 3 ? '>' : '<'));
	}
	transcript_free(t);
}

/* A plain file is read where it is: a file cut after loading gives an
 * error and an empty text for the records that are gone. */
TEST(texts_read_on_demand_from_the_file)
{
	char *path = tmp_path(".mi.log");
	const char *text = "0 < first\n0 < second\n0 < third-line\n";
	write_file(path, text, strlen(text));
	struct transcript *t;
	char err[256];
	CHECK_MSG(transcript_load(path, &t, err, sizeof err) == 0, "%s", err);
	struct transcript_entry e;
	CHECK(truncate(path, 14) == 0);
	CHECK_INT(transcript_get(t, 0, &e), 0);
	CHECK(e.len == 5 && memcmp(e.text, "first", 5) == 0);
	CHECK_INT(transcript_get(t, 2, &e), TRANSCRIPT_EOPEN);
	CHECK_INT(e.len, 0);
	CHECK_INT(transcript_get(t, 1, &e), TRANSCRIPT_EOPEN);
	transcript_free(t);
	unlink(path);
}

static int count_entry(void *ctx, const struct transcript_entry *e,
		       size_t full)
{
	size_t *c = ctx;
	CHECK(e->len <= 64 && e->len <= full);
	c[0]++;
	c[1] += e->tag == '>';
	return 0;
}

/* Every fixture loads, and the streaming scan agrees with it. */
TEST_TIMEOUT(every_fixture_loads, 120)
{
	DIR *d = opendir(test_fixtures_dir());
	if (!d)
		test_skip("no fixtures at %s", test_fixtures_dir());
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d)) != NULL) {
		if (!strstr(de->d_name, ".mi.log"))
			continue;
		char path[4096], err[512];
		snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(),
			 de->d_name);
		struct transcript *t;
		CHECK_MSG(transcript_load(path, &t, err, sizeof err) == 0,
			  "%s", err);
		size_t cmds = 0, n = transcript_count(t);
		for (size_t i = 0; i < n; i++)
			cmds += transcript_tag(t, i) == '>';
		size_t counts[2] = { 0, 0 };
		CHECK_MSG(transcript_scan(path, 64, count_entry, counts, err,
					  sizeof err) == 0, "%s", err);
		CHECK_INT(counts[0], n);
		CHECK_INT(counts[1], cmds);
		CHECK(cmds > 0);
		transcript_free(t);
		files++;
	}
	closedir(d);
	CHECK(files >= 15);
}

/* ---- the replay engine ------------------------------------------------- */

struct emitted {
	char text[8192];
};

static void collect(void *ctx, char tag, const char *text, size_t len,
		    bool more, double t)
{
	(void)t;
	(void)more;
	struct emitted *o = ctx;
	if (tag == '>')
		return;
	size_t have = strlen(o->text);
	snprintf(o->text + have, sizeof o->text - have, "%c %.*s|", tag,
		 (int)len, text);
}

static struct replay *engine(const char *text)
{
	struct transcript *t;
	char err[256];
	CHECK_MSG(transcript_parse(text, strlen(text), "test", &t, err,
				   sizeof err) == 0, "%s", err);
	struct replay *r = replay_new(t);
	CHECK(r != NULL);
	return r;
}

static const char *ask(struct replay *r, const char *cmd)
{
	static struct emitted o;
	o.text[0] = 0;
	replay_answer(r, cmd, strlen(cmd), collect, &o);
	return o.text;
}

static const char fixture_like[] =
	"0.1 < =thread-group-added,id=\"i1\"\n"
	"0.1 < (gdb) \n"
	"0.2 > -inferior-tty-set /dev/pts/0\n"
	"0.2 < ^done\n"
	"0.3 > -exec-run\n"
	"0.3 < =thread-group-started,id=\"i1\",pid=\"5\"\n"
	"0.3 < ^running\n"
	"0.3 < *running,thread-id=\"all\"\n"
	"0.4 T program says hi\n"
	"0.5 < *stopped,reason=\"breakpoint-hit\"\n"
	"0.5 # wait-stop ok\n"
	"0.6 > -stack-list-frames\n"
	"0.6 < ^done,stack=[frame={level=\"0\"}]\n"
	"0.7 > -exec-next\n"
	"0.7 < ^running\n"
	"0.8 < *stopped,reason=\"end-stepping-range\",line=\"8\"\n"
	"0.9 > -stack-list-frames\n"
	"0.9 < ^done,stack=[frame={level=\"1\"}]\n"
	"1.0 > -exec-next\n"
	"1.0 < ^running\n"
	"1.1 < *stopped,reason=\"end-stepping-range\",line=\"9\"\n"
	"1.2 > -gdb-exit\n"
	"1.2 < ^exit\n";

TEST(replay_answers_in_order_with_tokens_rewritten)
{
	struct replay *r = engine(fixture_like);
	struct emitted o = { "" };
	replay_banner(r, collect, &o);
	CHECK_STR(o.text, "< =thread-group-added,id=\"i1\"|< (gdb) |");
	/* The pty name differs: any -inferior-tty-set matches. */
	CHECK_STR(ask(r, "1-inferior-tty-set /dev/pts/7"), "< 1^done|");
	/* Records after ^running (the stop, the program's line) come too;
	 * notes do not. */
	CHECK_STR(ask(r, "2-exec-run"),
		  "< =thread-group-started,id=\"i1\",pid=\"5\"|< 2^running|"
		  "< *running,thread-id=\"all\"|T program says hi|"
		  "< *stopped,reason=\"breakpoint-hit\"|");
	CHECK_STR(ask(r, "3-stack-list-frames"),
		  "< 3^done,stack=[frame={level=\"0\"}]|");
	CHECK_STR(ask(r, "-exec-next"), "< ^running|"
		  "< *stopped,reason=\"end-stepping-range\",line=\"8\"|");
	/* Out of order: the query is answered from the current stop, a
	 * command that moves the program goes forward. */
	CHECK_STR(ask(r, "5-exec-next"), "< 5^running|"
		  "< *stopped,reason=\"end-stepping-range\",line=\"9\"|");
	CHECK_STR(ask(r, "6-stack-list-frames"),
		  "< 6^done,stack=[frame={level=\"1\"}]|");
	CHECK(strstr(ask(r, "7-data-evaluate-expression x"),
		     "7^error,msg=\"not in this recording: "
		     "-data-evaluate-expression x\"") != NULL);
	CHECK_STR(ask(r, "8-gdb-exit"), "< 8^exit|");
	replay_free(r);
}

/* A recording cut while its program ran (no *stopped that parses after
 * the last ^running) is told apart from one that stops. */
TEST(replay_knows_a_recording_that_ends_running)
{
	static const char head[] =
		"0.1 < (gdb) \n"
		"0.2 > -exec-run\n"
		"0.2 < ^running\n"
		"0.2 < *running,thread-id=\"all\"\n";
	static const char *const tails[] = {
		"",                                    /* cut */
		"0.3 < *stopped,reason=\n",            /* does not parse */
		"0.3 < *stopped,reason=\"exited-normally\"\n",
	};
	for (int i = 0; i < 3; i++) {
		char text[512];
		snprintf(text, sizeof text, "%s%s", head, tails[i]);
		struct replay *r = engine(text);
		struct emitted o = { .text = "" };
		long k = replay_answer(r, "5-exec-run", 10, collect, &o);
		CHECK(k >= 0);
		CHECK_MSG(replay_ends_running(r, k) == (i < 2), "tail %d", i);
		replay_free(r);
	}
}

TEST(replay_made_up_answers)
{
	struct replay *r = engine("0.1 < (gdb) \n0.2 > -gdb-version\n");
	/* A command the recording holds without an answer. */
	CHECK(strstr(ask(r, "4-gdb-version"),
		     "4^error,msg=\"no answer to this command") != NULL);
	CHECK_STR(ask(r, "5-inferior-tty-set /dev/pts/3"), "< 5^done|< (gdb) |");
	CHECK_STR(ask(r, "6-gdb-exit"), "< 6^exit|< (gdb) |");
	replay_free(r);
}

/* Our recordings write the start sequence ahead of the answers: each
 * command still gets its own output and result. */
TEST(replay_pipelined_tokened_recording)
{
	struct replay *r = engine(
		"0.0 > 1-gdb-version\n"
		"0.0 > 2-list-features\n"
		"0.1 < =thread-group-added,id=\"i1\"\n"
		"0.1 < ~\"GNU gdb 13.1\\n\"\n"
		"0.1 < 1^done\n"
		"0.1 < (gdb) \n"
		"0.1 < 2^done,features=[\"python\"]\n"
		"0.1 < (gdb) \n"
		"0.2 > 3-exec-run\n"
		"0.2 < 3^running\n"
		"0.3 < *stopped,reason=\"exited-normally\"\n");
	CHECK_STR(ask(r, "1-gdb-version"), "< =thread-group-added,id=\"i1\"|"
		  "< ~\"GNU gdb 13.1\\n\"|< 1^done|");
	CHECK_STR(ask(r, "2-list-features"),
		  "< (gdb) |< 2^done,features=[\"python\"]|< (gdb) |");
	CHECK_STR(ask(r, "9-exec-run"),
		  "< 9^running|< *stopped,reason=\"exited-normally\"|");
	replay_free(r);
}

TEST(replay_keeps_junk_before_a_result)
{
	/* attach.mi.log: bytes that are not UTF-8 in front of ^running. */
	struct replay *r = engine("0.1 > -exec-continue\n"
				  "0.1 < \xef\xbf\xbd\xef\xbf\xbd^running\n");
	CHECK_STR(ask(r, "42-exec-continue"),
		  "< \xef\xbf\xbd\xef\xbf\xbd" "42^running|");
	replay_free(r);
}

struct cmp {
	struct transcript *want;
	size_t next;      /* entry index after the last matched '<' */
	size_t off;       /* bytes of it matched by pieces so far */
	size_t matched;
	size_t pieces;    /* pieces seen of lines sent in pieces */
	char why[300];
};

/* Each emitted line (or piece of one) against the same bytes of the next
 * recorded '<' line. */
static void compare_emit(void *ctx, char tag, const char *text, size_t len,
			 bool more, double t)
{
	(void)t;
	struct cmp *c = ctx;
	if (tag != '<' || c->why[0])
		return;
	size_t n = transcript_count(c->want);
	while (c->off == 0 && c->next < n &&
	       transcript_tag(c->want, c->next) != '<')
		c->next++;
	struct transcript_entry got;
	const struct transcript_entry *e = NULL;
	if (c->next < n &&
	    transcript_peek_at(c->want, c->next, c->off, len, &got) == 0)
		e = &got;
	size_t total = c->next < n ? transcript_len(c->want, c->next) : 0;
	if (!e || e->len != len || memcmp(e->text, text, len) != 0 ||
	    (!more && c->off + len != total)) {
		snprintf(c->why, sizeof c->why, "line %lu differs at byte %zu: "
			 "got '%.80s'", e ? e->line : 0, c->off, text);
		return;
	}
	if (more || c->off) {
		c->pieces++;
		CHECK(len <= REPLAY_PIECE);
	}
	if (more) {
		c->off += len;
		return;
	}
	c->off = 0;
	c->next++;
	c->matched++;
}

/* Sending a fixture's own commands in order gives back every '<' line
 * of it, in order: the fixtures replay exactly. */
TEST_TIMEOUT(fixtures_replay_exactly_in_recorded_order, 120)
{
	DIR *d = opendir(test_fixtures_dir());
	if (!d)
		test_skip("no fixtures");
	struct dirent *de;
	int files = 0;
	while ((de = readdir(d)) != NULL) {
		if (!strstr(de->d_name, ".mi.log"))
			continue;
		char path[4096], err[512];
		snprintf(path, sizeof path, "%s/%s", test_fixtures_dir(),
			 de->d_name);
		struct transcript *want, *t;
		CHECK_MSG(transcript_load(path, &want, err, sizeof err) == 0,
			  "%s", err);
		CHECK(transcript_load(path, &t, err, sizeof err) == 0);
		struct replay *r = replay_new(t);
		CHECK(r != NULL);
		struct cmp c = { .want = want };
		replay_banner(r, compare_emit, &c);
		size_t outs = 0, n = transcript_count(want);
		for (size_t i = 0; i < n; i++) {
			char tag = transcript_tag(want, i);
			outs += tag == '<';
			if (tag != '>')
				continue;
			/* compare_emit reads `want` too: the command is
			 * copied first */
			struct transcript_entry e;
			CHECK_INT(transcript_get(want, i, &e), 0);
			char *cmd = strndup(e.text, e.len);
			CHECK(replay_answer(r, cmd, e.len, compare_emit,
					    &c) >= 0);
			free(cmd);
		}
		CHECK_MSG(!c.why[0], "%s: %s", de->d_name, c.why);
		CHECK_MSG(c.matched == outs, "%s: %zu of %zu lines",
			  de->d_name, c.matched, outs);
		replay_free(r);
		transcript_free(want);
		files++;
	}
	closedir(d);
	CHECK(files >= 15);
}

/* A long result line goes out in pieces of at most REPLAY_PIECE bytes,
 * the sent token in place of the recorded one, every byte in order, and
 * a file's loader keeps no copy of it (issue 32 item 3). */
struct joined {
	char *buf;
	size_t len, pieces, lines;
	bool open;
};

static void join_emit(void *ctx, char tag, const char *text, size_t len,
		      bool more, double t)
{
	(void)t;
	struct joined *j = ctx;
	if (tag != '<')
		return;
	memcpy(j->buf + j->len, text, len);
	j->len += len;
	j->pieces++;
	CHECK(len <= REPLAY_PIECE);
	if (!more) {
		j->buf[j->len++] = '\n';
		j->lines++;
	}
	j->open = more;
}

TEST(long_line_replayed_in_pieces)
{
	size_t big = 3 * (size_t)REPLAY_PIECE + 12345;
	char *body = malloc(big + 1);
	CHECK(body != NULL);
	for (size_t i = 0; i < big; i++)
		body[i] = (char)('a' + i % 26);
	body[big] = 0;
	char path[] = "/tmp/cudbg-test-long-XXXXXX";
	int fd = mkstemp(path);
	CHECK(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "0.001 > 7-data-evaluate-expression x\n0.002 < 7^done,value=\"");
	fwrite(body, 1, big, f);
	fprintf(f, "\"\n0.003 < (gdb) \n");
	fclose(f);
	struct transcript *t;
	char err[256];
	CHECK_MSG(transcript_load(path, &t, err, sizeof err) == 0, "%s", err);
	unlink(path);
	struct replay *r = replay_new(t);
	struct joined j = { .buf = malloc(big + 4096) };
	CHECK(j.buf != NULL);
	replay_answer(r, "42-data-evaluate-expression x", 29, join_emit, &j);
	CHECK(!j.open);
	CHECK_INT(j.lines, 2);
	CHECK(j.pieces >= 5);
	CHECK(strncmp(j.buf, "42^done,value=\"", 15) == 0);
	CHECK(memcmp(j.buf + 15, body, big) == 0);
	CHECK(strncmp(j.buf + 15 + big, "\"\n(gdb) \n", 9) == 0);
	replay_free(r);
	free(j.buf);
	free(body);
}
