/* --demo: replays of the project's recordings of the classic GPU faults,
 * with their sources, chosen from a menu.
 *
 * The recordings live in data/demo/ (installed to $(DATADIR)/demo), the
 * sources in data/examples/.  The data directory is, in order:
 * $CUDBG_DATADIR, the data/ beside the build directory of the running
 * binary (a source tree), and the DATADIR the Makefile compiled in. */
#ifndef CUDBG_TUI_DEMO_H
#define CUDBG_TUI_DEMO_H

#include "cudbg/options.h"

#include <stdbool.h>
#include <stddef.h>

struct ui;

struct demo_entry {
	const char *name;      /* "seed": for --demo NAME */
	const char *title;     /* one line for the menu */
	const char *recording; /* file in demo/ */
	const char *report;    /* compute-sanitizer XML in demo/, or NULL */
	const char *source;    /* the example it recorded, in examples/ */
	const char *about;     /* what it shows and what to try */
	const char *greeting;  /* the hint line when the screen opens */
};

size_t demo_count(void);
const struct demo_entry *demo_get(size_t i);       /* NULL past the end */
const struct demo_entry *demo_find(const char *name); /* NULL: unknown */

/* Finds the data directory holding demo/ (see above); exe_dir is where
 * the binary is (NULL: from /proc/self/exe).  Returns buf, or NULL with a
 * one-line message in err. */
const char *demo_data_dir(const char *exe_dir, char *buf, size_t cap,
			  char *err, size_t errcap);

/* The options that replay one demo: base's, with the recording as
 * --replay, the sanitizer report, and examples/ first among the source
 * directories.  Free with demo_run_free(). */
struct demo_run {
	struct cudbg_options o;
	char *replay, *report, *examples;
};
int demo_run_init(struct demo_run *r, const struct cudbg_options *base,
		  const char *datadir, const struct demo_entry *e, char *err,
		  size_t cap);
void demo_run_free(struct demo_run *r);

/* Whether this machine shows signs of an NVIDIA GPU or its debugger:
 * /dev/nvidia0, or nvidia-smi or cuda-gdb on PATH or in $CUDA_HOME/bin. */
bool demo_gpu_present(void);

/* --demo in batch mode: the report of the demo o->demo_name (exit codes
 * as batch mode); without a name, a one-line error listing the names. */
int demo_batch(const struct cudbg_options *o);

/* The menu, as a full-screen modal on the screen's ui (ui->modal): it
 * draws everything and takes every key until a choice is made (*pick,
 * and ui->quit set so the loop returns) or it is left (*pick = -1). */
void demo_menu_open(struct ui *ui, int *pick);

#endif
