/* The lean copy of a host library (include/cudbg/leansym.h says why).
 * The library is mapped read-only and never written; the copy is written
 * beside its cache name and renamed onto it, so a crash leaves no
 * half-written copy under the name a later run would trust. */
#include "cudbg/leansym.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

/* An allocated section this large loses its bytes in the copy; the unwind
 * tables (and C++'s exception tables, which gdb's unwinder never reads
 * but which are small) keep theirs whatever their size. */
enum { LEAN_BIG = 1 << 20 };

static const char STUB[] = "__device_stub_";

/* LEANSYM_OPERATORS' C++ names, by their mangled beginnings: at::_ops::,
 * at::native:: (and its local entities, _ZZ), const members of either,
 * torch::autograd:: */
static const char *const OPERATOR_PREFIX[] = {
	"_ZN2at4_ops", "_ZN2at6native", "_ZNK2at4_ops", "_ZNK2at6native",
	"_ZZN2at6native", "_ZN5torch8autograd", "_ZNK5torch8autograd",
	"_ZZN5torch8autograd",
};

bool leansym_keeps(enum leansym_names names, const char *name, size_t len)
{
	if (len >= sizeof STUB - 1 && memmem(name, len, STUB, sizeof STUB - 1))
		return false;
	if (names == LEANSYM_NO_STUBS || len < 2 || name[0] != '_' ||
	    name[1] != 'Z')
		return true;
	for (size_t i = 0; i < sizeof OPERATOR_PREFIX / sizeof *OPERATOR_PREFIX; i++) {
		size_t n = strlen(OPERATOR_PREFIX[i]);
		if (len >= n && memcmp(name, OPERATOR_PREFIX[i], n) == 0)
			return true;
	}
	return false;
}

struct elf_in {
	const unsigned char *map;
	size_t size;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;   /* e_shnum entries, inside map */
	const char *shstr;      /* section names */
	size_t shstr_size;
};

static const char *sec_name(const struct elf_in *e, const Elf64_Shdr *s)
{
	return s->sh_name < e->shstr_size ? e->shstr + s->sh_name : "";
}

static bool in_file(const struct elf_in *e, uint64_t off, uint64_t len)
{
	return off <= e->size && len <= e->size - off;
}

/* Checks the header and the section table; fills e's pointers. */
static int elf_open(struct elf_in *e, char *err, size_t cap)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->map;
	if (e->size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) {
		snprintf(err, cap, "not an ELF file");
		return -1;
	}
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB) {
		snprintf(err, cap, "not a 64-bit little-endian ELF file");
		return -1;
	}
	if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum == 0 ||
	    eh->e_shstrndx == SHN_UNDEF || eh->e_shstrndx >= eh->e_shnum ||
	    !in_file(e, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    eh->e_shoff % 8 != 0) {
		snprintf(err, cap, "no usable section table");
		return -1;
	}
	e->eh = eh;
	e->sh = (const Elf64_Shdr *)(e->map + eh->e_shoff);
	const Elf64_Shdr *ss = &e->sh[eh->e_shstrndx];
	if (ss->sh_type != SHT_STRTAB || !in_file(e, ss->sh_offset, ss->sh_size) ||
	    ss->sh_size == 0 || e->map[ss->sh_offset + ss->sh_size - 1] != '\0') {
		snprintf(err, cap, "bad section name table");
		return -1;
	}
	e->shstr = (const char *)e->map + ss->sh_offset;
	e->shstr_size = ss->sh_size;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		const Elf64_Shdr *s = &e->sh[i];
		if (s->sh_type != SHT_NOBITS && s->sh_type != SHT_NULL &&
		    !in_file(e, s->sh_offset, s->sh_size)) {
			snprintf(err, cap, "section %u lies past the end of the file", i);
			return -1;
		}
	}
	return 0;
}

static bool keeps_bytes(const struct elf_in *e, const Elf64_Shdr *s)
{
	if (s->sh_type == SHT_NOBITS || s->sh_type == SHT_NULL)
		return false;
	if (!(s->sh_flags & SHF_ALLOC) || s->sh_type != SHT_PROGBITS ||
	    s->sh_size <= LEAN_BIG)
		return true;
	const char *n = sec_name(e, s);
	return strcmp(n, ".eh_frame") == 0 || strcmp(n, ".eh_frame_hdr") == 0 ||
	       strcmp(n, ".gcc_except_table") == 0;
}

static const Elf64_Shdr *find_text(const struct elf_in *e)
{
	for (unsigned i = 0; i < e->eh->e_shnum; i++)
		if (strcmp(sec_name(e, &e->sh[i]), ".text") == 0)
			return &e->sh[i];
	return NULL;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int pad_to(int fd, uint64_t *at, uint64_t to)
{
	static const unsigned char zeros[4096];
	while (*at < to) {
		size_t n = to - *at < sizeof zeros ? (size_t)(to - *at) : sizeof zeros;
		if (write_all(fd, zeros, n) < 0)
			return -1;
		*at += n;
	}
	return 0;
}

/* A symbol table's bytes with every name the copy does not keep cut to
 * "" (st_name 0); *blanked counts them.  malloc'd, NULL when out of
 * memory. */
static unsigned char *symbols_kept(const struct elf_in *e, const Elf64_Shdr *s,
				   enum leansym_names names, unsigned *blanked)
{
	unsigned char *copy = malloc(s->sh_size ? s->sh_size : 1);
	if (!copy)
		return NULL;
	memcpy(copy, e->map + s->sh_offset, s->sh_size);
	if (s->sh_link >= e->eh->e_shnum || s->sh_entsize != sizeof(Elf64_Sym))
		return copy;
	const Elf64_Shdr *st = &e->sh[s->sh_link];
	if (st->sh_type != SHT_STRTAB || st->sh_size == 0)
		return copy;
	const char *str = (const char *)e->map + st->sh_offset;
	size_t n = s->sh_size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym sym;
		memcpy(&sym, copy + i * sizeof sym, sizeof sym);
		if (sym.st_name == 0 || sym.st_name >= st->sh_size)
			continue;
		/* bounded: the name may run to the table's end unended */
		const char *name = str + sym.st_name;
		size_t room = st->sh_size - sym.st_name;
		size_t len = strnlen(name, room);
		if (!leansym_keeps(names, name, len)) {
			sym.st_name = 0;
			memcpy(copy + i * sizeof sym, &sym, sizeof sym);
			(*blanked)++;
		}
	}
	return copy;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	if (a < 2)
		return v;
	if (a > 4096)
		a = 4096;
	return (v + a - 1) / a * a;
}

/* Writes the copy to fd.  Layout: header, the kept sections' bytes in
 * section order, the section table. */
static int write_copy(const struct elf_in *e, int fd, enum leansym_names names,
		      unsigned *blanked, char *err, size_t cap)
{
	unsigned nsec = e->eh->e_shnum;
	Elf64_Shdr *out = calloc(nsec, sizeof *out);
	if (!out) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	Elf64_Ehdr eh = *e->eh;
	eh.e_phoff = 0;
	eh.e_phnum = 0;
	uint64_t at = 0;
	int rc = -1;
	if (write_all(fd, &eh, sizeof eh) < 0)
		goto io;
	at = sizeof eh;
	for (unsigned i = 0; i < nsec; i++) {
		const Elf64_Shdr *s = &e->sh[i];
		out[i] = *s;
		if (!keeps_bytes(e, s)) {
			if (s->sh_type != SHT_NULL)
				out[i].sh_type = SHT_NOBITS;
			out[i].sh_offset = at;
			continue;
		}
		if (pad_to(fd, &at, align_up(at, s->sh_addralign)) < 0)
			goto io;
		out[i].sh_offset = at;
		if (s->sh_type == SHT_SYMTAB || s->sh_type == SHT_DYNSYM) {
			unsigned char *syms = symbols_kept(e, s, names, blanked);
			if (!syms) {
				snprintf(err, cap, "out of memory");
				goto done;
			}
			int w = write_all(fd, syms, s->sh_size);
			free(syms);
			if (w < 0)
				goto io;
		} else if (write_all(fd, e->map + s->sh_offset, s->sh_size) < 0) {
			goto io;
		}
		at += s->sh_size;
	}
	if (pad_to(fd, &at, align_up(at, 8)) < 0)
		goto io;
	eh.e_shoff = at;
	if (write_all(fd, out, nsec * sizeof *out) < 0 ||
	    pwrite(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh)
		goto io;
	rc = 0;
	goto done;
io:
	snprintf(err, cap, "cannot write the copy: %s", strerror(errno));
done:
	free(out);
	return rc;
}

static int mkdir_p(const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		return -1;
	for (char *q = p + 1; *q; q++) {
		if (*q != '/')
			continue;
		*q = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*q = '/';
	}
	int rc = mkdir(p, 0700) < 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return rc;
}

/* The cache's directory is trusted only when it is ours alone: a real
 * directory (not a link), owned by us, writable by no group or other.
 * cuda-gdb loads the symbols it finds there, so a shared directory
 * (CUDBG_SYMBOL_CACHE or XDG_CACHE_HOME on /tmp, say) would let another
 * user plant them. */
static int check_private_dir(const char *dir, char *err, size_t cap)
{
	struct stat sb;
	if (lstat(dir, &sb) < 0) {
		snprintf(err, cap, "cannot use %s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(sb.st_mode) || sb.st_uid != geteuid() ||
	    (sb.st_mode & 022)) {
		snprintf(err, cap, "the symbol cache %s is not private (%s, "
			 "owner %ld, mode %03o): not used; point "
			 "CUDBG_SYMBOL_CACHE at a directory of your own",
			 dir, S_ISLNK(sb.st_mode) ? "a link"
			 : S_ISDIR(sb.st_mode) ? "a directory" : "not a directory",
			 (long)sb.st_uid, (unsigned)(sb.st_mode & 0777));
		return -1;
	}
	return 0;
}

/* A copy found in the cache is used only when it is a regular file of
 * ours that no one else may write. */
static bool usable_copy(const char *path)
{
	struct stat sb;
	return lstat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
	       sb.st_uid == geteuid() && !(sb.st_mode & 022);
}

/* The cache name: the library's base name, size and modification time,
 * so a rebuilt or upgraded library gets a copy of its own, and which
 * names it keeps (".ops.lean": LEANSYM_OPERATORS). */
static char *cache_name(const char *lib, const char *dir, const struct stat *st,
			enum leansym_names names)
{
	const char *base = strrchr(lib, '/');
	base = base ? base + 1 : lib;
	char *path = NULL;
	if (asprintf(&path, "%s/%s-%lld-%lld.%09ld%s.lean", dir, base,
		     (long long)st->st_size, (long long)st->st_mtim.tv_sec,
		     (long)st->st_mtim.tv_nsec,
		     names == LEANSYM_OPERATORS ? ".ops" : "") < 0)
		return NULL;
	return path;
}

static int make_copy(const struct elf_in *e, const char *dest,
		     enum leansym_names names, unsigned *blanked, char *err,
		     size_t cap)
{
	char *tmp = NULL;
	if (asprintf(&tmp, "%s.%ld.tmp", dest, (long)getpid()) < 0) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	/* O_EXCL|O_NOFOLLOW: never through a link someone left under this
	 * name; a stale file of ours (a crash with this pid) goes first */
	int flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
	int fd = open(tmp, flags, 0600);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0)
		fd = open(tmp, flags, 0600);
	if (fd < 0) {
		snprintf(err, cap, "cannot create %s: %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	int rc = write_copy(e, fd, names, blanked, err, cap);
	if (close(fd) < 0 && rc == 0) {
		snprintf(err, cap, "cannot write the copy: %s", strerror(errno));
		rc = -1;
	}
	if (rc == 0 && rename(tmp, dest) < 0) {
		snprintf(err, cap, "cannot name the copy %s: %s", dest, strerror(errno));
		rc = -1;
	}
	if (rc < 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* After a new copy of LIB: the older copies of a library of the same
 * name (an upgraded torch) go, so the cache holds one per library name
 * and does not grow by 90 MB with every upgrade. */
static void drop_older_copies(const char *dir, const char *lib,
			      const char *keep)
{
	const char *base = strrchr(lib, '/');
	base = base ? base + 1 : lib;
	const char *keep_name = strrchr(keep, '/');
	keep_name = keep_name ? keep_name + 1 : keep;
	size_t blen = strlen(base);
	DIR *d = opendir(dir);
	if (!d)
		return;
	for (struct dirent *e; (e = readdir(d));) {
		size_t n = strlen(e->d_name);
		if (n <= blen + 6 || strncmp(e->d_name, base, blen) != 0 ||
		    e->d_name[blen] != '-' ||
		    strcmp(e->d_name + n - 5, ".lean") != 0 ||
		    strcmp(e->d_name, keep_name) == 0)
			continue;
		char *path = NULL;
		if (asprintf(&path, "%s/%s", dir, e->d_name) >= 0) {
			unlink(path);
			free(path);
		}
	}
	closedir(d);
}

int leansym_make(const char *lib, const char *cache_dir,
		 enum leansym_names names, struct leansym *out, char *err,
		 size_t cap)
{
	memset(out, 0, sizeof *out);
	int fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, cap, "cannot open %s: %s", lib, strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
		snprintf(err, cap, "%s is not a regular file", lib);
		close(fd);
		return -1;
	}
	struct elf_in e = { .size = (size_t)st.st_size };
	void *map = mmap(NULL, e.size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, cap, "cannot map %s: %s", lib, strerror(errno));
		return -1;
	}
	e.map = map;
	int rc = -1;
	const Elf64_Shdr *text;
	if (elf_open(&e, err, cap) < 0)
		goto done;
	if (!(text = find_text(&e))) {
		snprintf(err, cap, "%s has no .text section", lib);
		goto done;
	}
	out->text_addr = text->sh_addr;
	if (mkdir_p(cache_dir) < 0) {
		snprintf(err, cap, "cannot make %s: %s", cache_dir, strerror(errno));
		goto done;
	}
	if (check_private_dir(cache_dir, err, cap) < 0)
		goto done;
	if (!(out->path = cache_name(lib, cache_dir, &st, names))) {
		snprintf(err, cap, "out of memory");
		goto done;
	}
	if (usable_copy(out->path)) {
		rc = 0;
		goto done;
	}
	rc = make_copy(&e, out->path, names, &out->blanked, err, cap);
	out->made = rc == 0;
	if (out->made)
		drop_older_copies(cache_dir, lib, out->path);
done:
	munmap(map, e.size);
	if (rc < 0) {
		free(out->path);
		out->path = NULL;
	}
	return rc;
}

char *leansym_cache_dir(void)
{
	const char *v = getenv("CUDBG_SYMBOL_CACHE");
	if (v)
		return *v ? strdup(v) : NULL;
	char *dir = NULL;
	const char *xdg = getenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	if (xdg && *xdg == '/') {
		if (asprintf(&dir, "%s/cudbg-tui/symbols", xdg) < 0)
			dir = NULL;
	} else if (home && *home == '/') {
		if (asprintf(&dir, "%s/.cache/cudbg-tui/symbols", home) < 0)
			dir = NULL;
	}
	return dir;
}
