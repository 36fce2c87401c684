/* Transcripts: the project's record of a debugger session, and the engine
 * that answers commands from one (the fake debugger behind --replay).
 *
 * Code: mi/transcript.c, mi/replay.c.
 *
 * Format (docs in ../shared/fixtures/README.md), one line per event:
 *
 *     SECONDS TAG TEXT
 *
 * SECONDS since the debugger started (right-aligned, 3 decimals), one
 * space, TAG, one space, TEXT verbatim to the end of the line:
 *   '>' a command written to the debugger (with its MI token if it had one)
 *   '<' a line the debugger wrote on stdout
 *   'E' a line the debugger wrote on stderr
 *   'T' a line the program wrote to its terminal
 *   '#' a note of the recorder
 * A file whose name ends in ".gz", or that starts with gzip's magic
 * bytes, is read through zlib (no gzip program is run).
 *
 * Error convention of mi/: 0/positive on success, negative TRANSCRIPT_E*
 * on failure with a one-line message in the caller's err buffer, which
 * names the file and line ("seed.mi.log:12: ...").
 */
#ifndef CUDBG_TRANSCRIPT_H
#define CUDBG_TRANSCRIPT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	TRANSCRIPT_ENOMEM = -200,
	TRANSCRIPT_EOPEN = -201,   /* cannot open / decompress */
	TRANSCRIPT_EFORMAT = -202, /* a line that is not SECONDS TAG TEXT */
	TRANSCRIPT_ETRUNC = -203,  /* the file ends in the middle of a line,
				    * or the .gz stream is cut short */
	TRANSCRIPT_EEMPTY = -204,  /* no debugger output at all */
	TRANSCRIPT_EEXIST = -205,  /* writer: file exists and !force */
	TRANSCRIPT_EWRITE = -206,  /* writer: write failed */
	TRANSCRIPT_ETOOBIG = -207, /* over transcript_max_bytes() */
	TRANSCRIPT_ECANCEL = -208, /* the cancel flag was raised */
};

/* Reading is bounded: a transcript (decompressed) over this many bytes
 * is refused with a message naming the file.  Memory no longer depends
 * on the size (a loaded transcript keeps an index, not the bytes; see
 * struct transcript below); what the bound still limits is the time to
 * index it and, for a .gz or a pipe, the disk its private copy takes
 * (docs/hardening.md, item 17).  A record (line) over the 128 MB MI line
 * cap of a live session is dropped while reading and a '#' note takes
 * its place.  Directories, terminals and devices (/dev/zero) are
 * refused; a pipe is read once, as it comes (a compressed pipe is
 * refused: give the .gz file). */
#define TRANSCRIPT_MAX_BYTES_DEFAULT ((size_t)4 << 30)
/* The index is bounded by the same setting: at most max/2 bytes of it
 * (16 bytes a record), so a file of tiny lines (4 bytes the shortest)
 * cannot make it six times the file. */
void transcript_set_max_bytes(size_t max); /* 0: the default */
size_t transcript_max_bytes(void);
/* A flag a signal handler raises (a termination request): every read of
 * a transcript checks it, also while waiting on a silent pipe, and stops
 * with TRANSCRIPT_ECANCEL.  NULL: none. */
void transcript_set_cancel(volatile sig_atomic_t *flag);

enum transcript_tag {
	TRANSCRIPT_CMD = '>',
	TRANSCRIPT_OUT = '<',
	TRANSCRIPT_ERR = 'E',
	TRANSCRIPT_TERM = 'T',
	TRANSCRIPT_NOTE = '#',
};

struct transcript_entry {
	double t;          /* SECONDS */
	char tag;          /* enum transcript_tag */
	const char *text;  /* TEXT, not NUL ended inside a loaded transcript
			    * (use len); may hold any byte but '\n' */
	size_t len;
	unsigned long line; /* 1-based line number in the file */
};

/* A loaded transcript: an index of its records (16 bytes each: where
 * the text is, its length, tag, time and line number) over the bytes,
 * which stay on disk.  A plain file is read where it is (pread); a .gz
 * or a pipe is copied, decompressed, to a private temporary file in
 * $TMPDIR (else /tmp) that is unlinked as soon as it is created, so it
 * goes when the last descriptor closes, whatever way the process ends.
 * transcript_parse keeps its bytes in memory instead.  A forked child
 * inherits the descriptor (pread does not move a shared offset).
 * Opaque; owned by the caller of transcript_load/parse, or by the
 * replay it is given to. */
struct transcript;

/* Called once per record while a transcript is loaded, with the whole
 * text (e->len bytes, valid during the call only), except for a line
 * over 64 KiB read in pieces: its first 64 KiB (the load keeps no copy
 * of a long line; transcript_len has its length).  Returns 0 to go on,
 * non-zero to stop the load (it then fails with TRANSCRIPT_ENOMEM). */
typedef int (*transcript_each_fn)(void *ctx, const struct transcript_entry *e);

/* Reads, checks and indexes a whole file.  Returns 0 and *out, or a
 * negative code with a message in err.  `fn` (may be NULL) sees every
 * record as it is indexed, so a caller needs no second pass. */
int transcript_load(const char *path, struct transcript **out,
		    char *err, size_t cap);
int transcript_load_each(const char *path, struct transcript **out,
			 transcript_each_fn fn, void *ctx, char *err,
			 size_t cap);
/* The same over bytes in memory (copied); `name` is used in messages. */
int transcript_parse(const char *buf, size_t len, const char *name,
		     struct transcript **out, char *err, size_t cap);
void transcript_free(struct transcript *t); /* accepts NULL */

/* How many records; the path or name it came from. */
size_t transcript_count(const struct transcript *t);
const char *transcript_name(const struct transcript *t);
/* Record i (< transcript_count) into *e.  Its text is read on demand
 * into a window the transcript owns: valid until the next
 * transcript_get on the same transcript.  Records read in order cost
 * one read per 256 KiB.  Returns 0, or TRANSCRIPT_EOPEN when the bytes
 * can no longer be read (the file was cut or changed under us: e holds
 * an empty text then), or TRANSCRIPT_ENOMEM (the same). */
int transcript_get(struct transcript *t, size_t i,
		   struct transcript_entry *e);
/* The same with at most the first `max` bytes of the text (e->len says
 * how many): a look at a record's head without reading a 60 MB line. */
int transcript_peek(struct transcript *t, size_t i, size_t max,
		    struct transcript_entry *e);
/* The same from byte `off` of the text on (a long record read a piece at
 * a time: the window never holds more than max bytes of it). */
int transcript_peek_at(struct transcript *t, size_t i, size_t off,
		       size_t max, struct transcript_entry *e);
/* Record i's whole text length, without reading it. */
size_t transcript_len(const struct transcript *t, size_t i);
/* The descriptor its texts are read from, or -1 (bytes in memory): a
 * forked reader must keep it open. */
int transcript_fd(const struct transcript *t);
/* Only the tag, without reading anything. */
char transcript_tag(const struct transcript *t, size_t i);

/* Streams a file without holding it: calls fn once per line with at most
 * `keep` bytes of its text in e->text/e->len (full_len is the real
 * length), so a 60 MB line costs `keep` bytes.  fn returns 0 to go on,
 * non-zero to stop (that value is returned).  Same checks and messages
 * as transcript_load. */
int transcript_scan(const char *path, size_t keep,
		    int (*fn)(void *ctx, const struct transcript_entry *e,
			      size_t full_len),
		    void *ctx, char *err, size_t cap);

/* Parses one line (no newline) into *e (text points into `line`).
 * Returns 0 or TRANSCRIPT_EFORMAT. */
int transcript_parse_line(const char *line, size_t len,
			  struct transcript_entry *e);

/* The command without its leading MI token: for "12-exec-run" returns a
 * pointer to "-exec-run" and sets *token (may be NULL) to 12, or to 0
 * when there was none.  Also skips leading blanks. */
const char *transcript_command_body(const char *cmd, size_t len,
				    size_t *body_len, uint64_t *token);

/* Writer: line by line, each line one write(2), so a crash leaves a
 * readable file.  Refuses an existing file unless `force` (then it is
 * truncated).  Returns NULL with a message in err. */
struct transcript_writer;
struct transcript_writer *transcript_writer_open(const char *path, bool force,
						 char *err, size_t cap);
/* Writes one line.  The caller splits text into lines first; a '\n'
 * inside `text` ends it there.  Returns 0 or TRANSCRIPT_EWRITE. */
int transcript_write(struct transcript_writer *w, double t, char tag,
		     const char *text, size_t len);
/* Writes one line in pieces (a streamed MI line): the piece flagged
 * MI_RAW_FIRST (1) starts it with the time and tag, MI_RAW_LAST (2) ends
 * it with the newline.  Each piece is written at once. */
int transcript_write_piece(struct transcript_writer *w, double t, char tag,
			   const char *text, size_t len, unsigned piece);
void transcript_writer_close(struct transcript_writer *w); /* accepts NULL */

/* ---- Replay engine (what the fake debugger answers) ----
 *
 * Rules:
 *  - The banner (everything before the first '>') is emitted at start.
 *  - A command (compared without its token and without trailing blanks)
 *    that matches the next recorded command is answered with that
 *    command's records and the cursor moves past it.
 *  - Otherwise it is looked up elsewhere: for a command whose recorded
 *    answer was ^running (it moves the program), the first later
 *    occurrence, and the cursor moves past it (time goes forward); for
 *    other commands the occurrence nearest in time: the next one before
 *    the next running command, else the last earlier one, else the first
 *    later one; the cursor stays.
 *  - -inferior-tty-set matches any recorded -inferior-tty-set (the pty
 *    name differs every run), or gets ^done.
 *  - -exec-interrupt matches a recorded -exec-interrupt with or without
 *    options (--all).
 *  - Otherwise: ^error,msg="not in this recording: CMD".
 *  - A command's result is the first later result line with its token
 *    (our recordings), or the first untokened result after it that no
 *    earlier command took (the fixtures: gdb answers in order).
 *  - A command's records are the lines after it up to the next '>' (so
 *    the async records after ^running, *stopped included, come with
 *    it).  When the next command was written before this one's result
 *    (pipelined, as our start sequence is), the lines after the previous
 *    command's result up to its own result.  Results of other commands
 *    are left out.  The result's token is replaced by the token of the
 *    command sent (none if none was sent).  A command whose recording
 *    holds no result is answered with ^error.
 *  - '<' lines go to stdout, 'E' to stderr, 'T' to the program's pty;
 *    '#' notes are skipped.
 */
struct replay;

/* Takes ownership of t.  NULL when out of memory. */
struct replay *replay_new(struct transcript *t);
void replay_free(struct replay *r); /* accepts NULL */

/* Called per emitted line: tag '<', 'E' or 'T'; `t_rec` the recorded
 * time (for honouring delays).  A '<' line longer than REPLAY_PIECE comes
 * in pieces of at most that many bytes, `more` set on all but the last
 * (no copy of a 60 MB line is ever held whole). */
enum { REPLAY_PIECE = 1 << 20 };
typedef void (*replay_emit_fn)(void *ctx, char tag, const char *text,
			       size_t len, bool more, double t_rec);

void replay_banner(struct replay *r, replay_emit_fn fn, void *ctx);
/* Answers one command line (no newline, token optional).  Returns the
 * index of the recorded command used (>= 0) or -1 when it was not found
 * (the ^error was emitted). */
long replay_answer(struct replay *r, const char *cmd, size_t len,
		   replay_emit_fn fn, void *ctx);

/* True when recorded command k (a replay_answer result) set the program
 * running and the recording holds no *stopped that parses after it:
 * the recording ends before the program stopped. */
bool replay_ends_running(const struct replay *r, long k);

/* replay_serve's status when the recording ended before the program
 * stopped (it answered the run, then there was nothing more). */
#define REPLAY_EXIT_NO_STOP 4

/* The fake debugger's main loop, run in the forked child: reads commands
 * from fd `in`, writes stdout lines to `out`, stderr lines to `err_fd`,
 * and 'T' lines to the pty named by -inferior-tty-set.  Returns the exit
 * status for the child (0 at EOF or after -gdb-exit, REPLAY_EXIT_NO_STOP
 * right after answering a run that the recording never ends). */
int replay_serve(struct replay *r, int in, int out, int err_fd,
		 bool realtime);

#endif
