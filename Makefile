# cudbg-tui: GNU Make, flags from pkg-config.  See README.md.
#
#   make              build $(BUILD)/cudbg-tui
#   make test         the plain and ASan+UBSan suites side by side, one
#                     closing line (the README's test command; ~5 min)
#   make gauntlet     the full ASan sweep of every recording, valgrind and
#                     libFuzzer passes (CI runs it after test)
#   make test-all     all five passes in sequence (PASSES= picks passes)
#   make quick        the plain suite only (the fast loop)
#   make asan         the suite again with ASan+UBSan (in build-asan/)
#   make valgrind     the suite under valgrind (unit binaries, fuzz corpora,
#                     and the shell tests with the binary under valgrind)
#   make fuzz         build libFuzzer targets with clang and run each for
#                     FUZZ_TIME seconds (default 30)
#   make bench        benchmarks, one `measure=` line each
#   make check-layers fails when a layer includes a higher one, or when
#                     anything but tui/ includes curses or readline
#   make install      PREFIX=/usr/local DESTDIR=
#   make gpu-test     needs a GPU, nvcc, cuda-gdb, compute-sanitizer

PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANPREFIX ?= $(PREFIX)/share/man
DATADIR   ?= $(PREFIX)/share/cudbg-tui
# the death reporter --job preloads into its processes (preload/death.c);
# found beside the binary, else in ../lib/cudbg-tui from it
LIBDIR    ?= $(PREFIX)/lib/cudbg-tui
BUILD     ?= build
CC        ?= cc
PKG_CONFIG ?= pkg-config

PKGS := ncursesw expat zlib
# A missing pkg-config or missing development files would otherwise end in
# an obscure compile or link error; say what to install instead.
NOBUILD_GOALS := clean uninstall check-layers
ifneq ($(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
ifeq ($(shell command -v $(PKG_CONFIG) 2>/dev/null),)
$(error pkg-config not found: apt-get install pkg-config libncurses-dev libreadline-dev libexpat1-dev zlib1g-dev)
endif
ifneq ($(shell $(PKG_CONFIG) --exists $(PKGS) && echo yes),yes)
$(error pkg-config finds no $(PKGS) development files: apt-get install libncurses-dev libexpat1-dev libreadline-dev zlib1g-dev)
endif
endif
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
# Debian's readline ships a readline.pc since 8.1; fall back to -lreadline.
RL_LIBS    := $(shell $(PKG_CONFIG) --libs readline 2>/dev/null || echo -lreadline)

# Warnings: strict everywhere; errors (-Werror) for the test and CI targets
# only, so a packager's newer compiler does not fail a release build.
WARN := -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes \
	-Wmissing-prototypes -Wformat=2 -Wwrite-strings -Wundef \
	-Wpointer-arith -Wcast-qual -Wvla -Wimplicit-fallthrough
STRICT_GOALS := test gauntlet test-all quick asan asan-build valgrind check-build \
	test-build
ifneq ($(filter $(STRICT_GOALS),$(MAKECMDGOALS)),)
WERROR ?= -Werror
endif
WERROR   ?=
# The user's CC, CFLAGS, CPPFLAGS and LDFLAGS are respected (Debian's
# packaging sets them): ours come first, theirs last so they win.
CFLAGS   ?= -O2 -g
SANFLAGS ?=
ALL_CPPFLAGS = -D_GNU_SOURCE -Iinclude -I. $(CPPFLAGS)
ALL_CFLAGS   = -std=c11 $(WARN) $(WERROR) $(SANFLAGS) $(PKG_CFLAGS) -MMD -MP \
	$(CFLAGS)
ALL_LDFLAGS  = $(SANFLAGS) $(LDFLAGS)
LDLIBS   += $(PKG_LIBS) $(RL_LIBS) -lm

# The folders are the layers, lowest first; each builds one static library
# and a layer includes only its own and lower layers' headers (`make
# check-layers`, tests/sh/check_layers.sh; docs/development.md "Layers"):
#   base/        text safety (UTF-8, terminal and JSON escaping), the
#                growable buffer and the JSON writer; libc only
#   mi/          GDB/MI parser, debugger session, model
#   diag/        the diagnosis engine
#   dap/         the Debug Adapter Protocol server (--dap)
#   batch/       batch mode (--batch [--json]), and the start commands and
#                hang timing it shares with the screen; no curses
#   tui/         the screen: loop, layout, cells, terminal, keys, glue
#   tui/panes/   one file per pane (pane.h, panes.def)
#   app/         the entry point: command line, config file, --job
# include/cudbg/ holds the headers each layer offers the ones above it.
BASE_SRC  := $(wildcard base/*.c)
MI_SRC    := $(wildcard mi/*.c)
DIAG_SRC  := $(wildcard diag/*.c)
DAP_SRC   := $(wildcard dap/*.c)
BATCH_SRC := $(wildcard batch/*.c)
TUI_SRC   := $(wildcard tui/*.c tui/panes/*.c)
OPTS_SRC  := $(wildcard opts/*.c)
APP_SRC   := $(filter-out app/main.c,$(wildcard app/*.c))
TEST_SRC := $(wildcard tests/unit/test_*.c)
BENCH_SRC := $(wildcard tests/bench/bench_*.c)
TOOL_SRC := $(wildcard tests/tools/*.c)
FUZZ_SRC := $(wildcard tests/fuzz/fuzz_*.c)

BASE_OBJ  := $(BASE_SRC:%.c=$(BUILD)/%.o)
MI_OBJ    := $(MI_SRC:%.c=$(BUILD)/%.o)
DIAG_OBJ  := $(DIAG_SRC:%.c=$(BUILD)/%.o)
DAP_OBJ   := $(DAP_SRC:%.c=$(BUILD)/%.o)
BATCH_OBJ := $(BATCH_SRC:%.c=$(BUILD)/%.o)
TUI_OBJ   := $(TUI_SRC:%.c=$(BUILD)/%.o)
OPTS_OBJ  := $(OPTS_SRC:%.c=$(BUILD)/%.o)
APP_OBJ   := $(APP_SRC:%.c=$(BUILD)/%.o)
# Highest layer first, each library once (tests/check_symbols.sh checks
# what each one's objects import): the frontends (dap, batch, tui) read
# the parsed command line through opts/ (include/cudbg/options.h), which
# sits below them; base/ is under every layer: last.
LIBS     := $(BUILD)/libcudbg-app.a $(BUILD)/libcudbg-dap.a \
	$(BUILD)/libcudbg-tui.a $(BUILD)/libcudbg-batch.a \
	$(BUILD)/libcudbg-opts.a $(BUILD)/libcudbg-diag.a $(BUILD)/libcudbg-mi.a \
	$(BUILD)/libcudbg-base.a
BIN      := $(BUILD)/cudbg-tui
TESTS    := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCHES  := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
TOOLS    := $(TOOL_SRC:tests/tools/%.c=$(BUILD)/tools/%)
# Fuzz targets also build with the normal compiler against a corpus-replay
# main, so the committed corpora run in every test pass.
FUZZ_REPLAY := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz-replay/%)

PRELOAD  := $(BUILD)/libcudbg-death.so

all: $(BIN) $(PRELOAD)

# Not a layer: a shared object with no project header, preloaded into the
# processes of a --job run (never into cudbg-tui), built without the
# sanitizers (they must come first in a process's libraries).
$(PRELOAD): preload/death.c
	@mkdir -p $(@D)
	$(CC) -O2 -fPIC -shared $(WARN) $(WERROR) -o $@ $<

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

# The compiled-in data directory lives in one object, rebuilt when
# DATADIR changes (a stamp holds the last value); the binary looks beside
# itself first (diag/datadir.c), so an install under another PREFIX works.
$(BUILD)/diag/datadir.o: ALL_CPPFLAGS += -DCUDBG_DATADIR='"$(DATADIR)"'
$(BUILD)/diag/datadir.o: $(BUILD)/datadir.stamp
$(BUILD)/datadir.stamp: FORCE
	@mkdir -p $(@D)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' > $@
FORCE:

$(BUILD)/libcudbg-base.a: $(BASE_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libcudbg-mi.a: $(MI_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libcudbg-diag.a: $(DIAG_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libcudbg-dap.a: $(DAP_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libcudbg-batch.a: $(BATCH_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libcudbg-tui.a: $(TUI_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libcudbg-opts.a: $(OPTS_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^
$(BUILD)/libcudbg-app.a: $(APP_OBJ)
	@mkdir -p $(@D)
	rm -f $@ && $(AR) rcs $@ $^

$(BIN): $(BUILD)/app/main.o $(LIBS)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBS) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(BUILD)/tests/harness.o $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/tests/harness.o $(LIBS) $(LDLIBS)

# maintenance tools over the repository's data (tests/tools)
$(BUILD)/tools/%: $(BUILD)/tests/tools/%.o $(LIBS)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBS) $(LDLIBS)

$(BUILD)/bench/%: $(BUILD)/tests/bench/%.o $(BUILD)/tests/bench/util.o $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/tests/bench/util.o $(LIBS) $(LDLIBS)

$(BUILD)/fuzz-replay/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/replay_main.o $(LIBS)
	@mkdir -p $(@D)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/tests/fuzz/replay_main.o $(LIBS) $(LDLIBS)

# Test programs the gdb integration tests debug (plain C, -O0 -g).
$(BUILD)/progs/%: tests/progs/%.c
	@mkdir -p $(@D)
	$(CC) -O0 -g $(PROG_FLAGS) -o $@ $<
# (its stack-protector case needs the canary in every function)
$(BUILD)/progs/host_crash: PROG_FLAGS = -fstack-protector-all
# (fortified calls exist only with optimisation)
$(BUILD)/progs/host_fortify: PROG_FLAGS = -O1 -D_FORTIFY_SOURCE=2
# (C++ for what only C++ has: an exception nobody catches)
$(BUILD)/progs/%: tests/progs/%.cpp
	@mkdir -p $(@D)
	$(CXX) -O0 -g -o $@ $<
# (a parent the death reporter cannot be loaded into: only the kernel's
# process events see its worker's end; tests/sh/job_deaths.sh)
$(BUILD)/progs/silent_reap_static: tests/progs/silent_reap.c
	@mkdir -p $(@D)
	$(CC) -O0 -g -static -o $@ $<
PROGS := $(patsubst tests/progs/%.c,$(BUILD)/progs/%,$(wildcard tests/progs/*.c)) \
	 $(patsubst tests/progs/%.cpp,$(BUILD)/progs/%,$(wildcard tests/progs/*.cpp)) \
	 $(BUILD)/progs/silent_reap_static

# What the suite runs (the ASan build stops there); check-build adds the
# benchmarks, so they keep compiling.
test-build: $(BIN) $(PRELOAD) $(TESTS) $(FUZZ_REPLAY) $(PROGS) $(TOOLS)
check-build: test-build $(BENCHES) $(TOOLS)

quick: check-build
	BUILD=$(BUILD) ./tests/run.sh

# The passes build what they need themselves (asan-build, fuzz-build), so
# a missing clang is a SKIP line, not a failed build.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 30
# `make test` is the README's test command: the plain suite and the
# ASan+UBSan suite side by side (about 5 minutes on 2 cores); each pass
# makes its own build first (tests/check.sh), so the two builds run side
# by side too.  `make gauntlet` is the long run CI adds after it: the
# sweep of every recording under ASan (make test's ASan pass replays a
# sample of it), valgrind and libFuzzer.  `make test-all` runs all five
# passes one after another.
CHECK = BUILD='$(BUILD)' MAKE='$(MAKE)' CC='$(CC)' FUZZ_CC='$(FUZZ_CC)' \
	FUZZ_TIME='$(FUZZ_TIME)' FUZZ_BIN='$(FUZZ_BIN)' ./tests/check.sh
test:
	PASSES='$(or $(PASSES),plain asan)' PARALLEL=1 $(CHECK)
gauntlet: check-build
	PASSES='$(or $(PASSES),asan-sweep valgrind fuzz)' $(CHECK)
test-all: check-build
	PASSES='$(or $(PASSES),plain asan valgrind fuzz asan-sweep)' $(CHECK)

asan-build:
	$(MAKE) BUILD=build-asan CFLAGS='-O1 -g -fno-omit-frame-pointer' \
		SANFLAGS='-fsanitize=address,undefined -fno-sanitize-recover=all' \
		test-build
asan: asan-build
	BUILD=build-asan CUDBG_PASS=asan ./tests/run.sh

valgrind: check-build
	BUILD=$(BUILD) CUDBG_VALGRIND=1 ./tests/run.sh

FUZZ_BIN   := $(FUZZ_SRC:tests/fuzz/%.c=build-fuzz/%)
# -MMD: a changed header rebuilds the fuzz objects too (stale ones gave a
# false UBSan finding once struct layouts moved).
FUZZ_FLAGS := -std=c11 -g -O1 -D_GNU_SOURCE -Iinclude -I. $(PKG_CFLAGS) \
	-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all \
	-MMD -MP
FUZZ_OBJ   := $(MI_SRC:%.c=build-fuzz/%.o) $(DIAG_SRC:%.c=build-fuzz/%.o) \
	$(BASE_SRC:%.c=build-fuzz/%.o)
# the config parser is pure C beside the screen code (fuzz_config)
FUZZ_OBJ   += build-fuzz/app/config.o build-fuzz/opts/options.o build-fuzz/tui/keys.o
# the DAP JSON parser (fuzz_dap_json)
FUZZ_OBJ   += build-fuzz/dap/json.o
build-fuzz/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_FLAGS) -c -o $@ $<
# An archive, so each target pulls in only the objects it uses.
build-fuzz/libfuzzlibs.a: $(FUZZ_OBJ)
	rm -f $@ && $(AR) rcs $@ $^
build-fuzz/%: tests/fuzz/%.c build-fuzz/libfuzzlibs.a
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< \
		build-fuzz/libfuzzlibs.a $(PKG_LIBS)
fuzz-build: $(FUZZ_BIN)
fuzz: fuzz-build
	./tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZ_BIN)

# The include order of the layers (the comment above MI_SRC); the test
# command runs it too (tests/sh/check_layers.sh).
check-layers: $(LIBS)
	sh tests/check_layers.sh
	sh tests/check_symbols.sh $(BUILD)

bench: $(BENCHES) $(BIN)
	@for b in $(BENCHES); do $$b || exit 1; done

# The GPU end-to-end suite (tests/gpu/gpu-test.sh says what it checks).
gpu-test: $(BIN)
	bash tests/gpu/gpu-test.sh

DOCDIR    ?= $(PREFIX)/share/doc/cudbg-tui
install: $(BIN) $(PRELOAD)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANPREFIX)/man1 \
		$(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(LIBDIR)
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/cudbg-tui
	install -m 755 $(PRELOAD) $(DESTDIR)$(LIBDIR)/
	install -m 644 docs/cudbg-tui.1 $(DESTDIR)$(MANPREFIX)/man1/
	cp -R data/. $(DESTDIR)$(DATADIR)/
	install -m 644 README.md LICENSE docs/*.md $(DESTDIR)$(DOCDIR)/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/cudbg-tui $(DESTDIR)$(MANPREFIX)/man1/cudbg-tui.1
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(LIBDIR)

clean:
	rm -rf build build-asan build-fuzz

.PHONY: FORCE check-layers all test gauntlet test-all quick asan asan-build valgrind fuzz fuzz-build bench install uninstall clean check-build test-build gpu-test
.SECONDARY:

-include $(shell find $(BUILD) build-fuzz -name '*.d' 2>/dev/null)
