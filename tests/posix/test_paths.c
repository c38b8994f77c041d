/*
 * test_paths.c - the differential suite's path rows (doc/api.md, issue
 * 14): each call runs on a fresh tree in a local temp directory and on a
 * fresh tree in PVFS, and the return value, errno and the tree left
 * behind must be the same.  The PVFS side runs through the native API
 * (absolute paths); in a child started with LD_PRELOAD, through the shim
 * (absolute paths, then relative ones under a virtual cwd); and in a
 * child without it, on a pvfs-fuse mount of the same file system.
 *
 *   test_paths                        start a file system, run every side
 *   test_paths --libc LOCAL PVFSDIR   the shim's side (run preloaded)
 *   test_paths --mount LOCAL MOUNTDIR the mount's side
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <poll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvfs.h"
#include "../integration/cluster.h"

#define BAD_PTR ((const char *)1)   /* an unmapped path: libc sides only */

enum op { MKDIR, RMDIR, UNLINK, RENAME, OPEN, STAT, ACCESS, TRUNC, CHMOD,
	SYMLINK, READLINK, LSTAT, LCHOWN, LINK };

struct tcase {
	enum op op;
	const char *a, *b;   /* relative to the case directory; NULL, BAD_PTR
	                      * (SYMLINK: a is the link's text, b its name) */
	int flags;           /* open's, SHIM_ONLY and PRE_LINK */
};
/* A link out of PVFS: local through the shim (native: native_escape). */
#define SHIM_ONLY (1 << 30)
/* Link f to h before the call. */
#define PRE_LINK (1 << 29)

static const struct tcase cases[] = {
	/* The destructive rows of issue 14. */
	{ RMDIR, "d/.", NULL, 0 },
	{ RMDIR, "d/..", NULL, 0 },
	{ RMDIR, "d/missing/..", NULL, 0 },
	{ RMDIR, "d/s/g/..", NULL, 0 },
	{ RMDIR, "f/", NULL, 0 },
	{ RMDIR, "e/", NULL, 0 },
	{ RMDIR, "e/.", NULL, 0 },
	{ RENAME, "d/s/.", "x", 0 },
	{ RENAME, "d/s/..", "x", 0 },
	{ RENAME, "d/missing", "d/s/.", 0 },
	{ RENAME, "d/missing/.", "x", 0 },
	{ RENAME, "f", "d/s/..", 0 },
	{ RENAME, "f/", "x", 0 },
	{ RENAME, "f", "x/", 0 },
	{ RENAME, "d/s/g/..", "x", 0 },
	{ RENAME, "e/", "x", 0 },
	{ RENAME, "d/s/../s", "e/x", 0 },
	{ UNLINK, "f/", NULL, 0 },
	{ UNLINK, "d/", NULL, 0 },
	{ UNLINK, "missing/", NULL, 0 },
	{ UNLINK, "d/.", NULL, 0 },
	{ UNLINK, "d/..", NULL, 0 },
	{ UNLINK, "d/s/../../f", NULL, 0 },
	{ OPEN, "n/", NULL, O_CREAT | O_WRONLY },
	{ OPEN, "n/", NULL, O_CREAT | O_RDONLY },
	{ OPEN, "n/", NULL, O_RDONLY },
	{ OPEN, "f/", NULL, O_RDONLY },
	{ OPEN, "f/", NULL, O_CREAT | O_WRONLY },
	{ OPEN, "d/", NULL, O_CREAT | O_WRONLY },
	{ OPEN, "d/.", NULL, O_CREAT | O_WRONLY },
	{ OPEN, "d/.", NULL, O_CREAT | O_RDONLY },
	{ OPEN, "d/s/..", NULL, O_RDONLY },
	{ OPEN, "d/missing/../n", NULL, O_CREAT | O_WRONLY },
	{ OPEN, "d/s/../n", NULL, O_CREAT | O_WRONLY },
	{ STAT, "f/..", NULL, 0 },
	{ STAT, "f/.", NULL, 0 },
	{ STAT, "f/", NULL, 0 },
	{ STAT, "d/missing/..", NULL, 0 },
	{ STAT, "d/s/..", NULL, 0 },
	{ STAT, "d//s///g", NULL, 0 },
	{ MKDIR, "d/.", NULL, 0 },
	{ MKDIR, "d/..", NULL, 0 },
	{ MKDIR, "d/missing/..", NULL, 0 },
	{ MKDIR, "n2/", NULL, 0 },
	{ MKDIR, "f/", NULL, 0 },
	{ MKDIR, "d/s/g/x", NULL, 0 },
	{ ACCESS, "f/", NULL, 0 },
	{ ACCESS, "d/missing/..", NULL, 0 },
	{ TRUNC, "f/", NULL, 0 },
	{ TRUNC, "d/s/../s/g", NULL, 0 },
	{ CHMOD, "f/", NULL, 0 },
	{ CHMOD, "f/..", NULL, 0 },
	/* Invalid pointers: EFAULT, and never EXDEV for a pair. */
	{ RMDIR, NULL, NULL, 0 },
	{ UNLINK, NULL, NULL, 0 },
	{ STAT, NULL, NULL, 0 },
	{ OPEN, NULL, NULL, O_RDONLY },
	{ MKDIR, NULL, NULL, 0 },
	{ RENAME, NULL, "x", 0 },
	{ RENAME, "f", NULL, 0 },
	{ RMDIR, BAD_PTR, NULL, 0 },
	{ STAT, BAD_PTR, NULL, 0 },
	{ RENAME, "f", BAD_PTR, 0 },
	{ RENAME, BAD_PTR, "x", 0 },
	/* Symbolic links (make_tree: ld -> d, lf -> f, dang -> t, d/up ->
	 * ../f, loop -> loop, abs -> DIR/d/s/g, out -> /dev/null, outd -> /;
	 * ../chain/c0 -> c1 ... c40 -> z: 41 links). */
	{ READLINK, "lf", NULL, 0 },
	{ READLINK, "d/up", NULL, 0 },
	{ READLINK, "ld/up", NULL, 0 },
	{ READLINK, "ld/", NULL, 0 },
	{ READLINK, "f", NULL, 0 },
	{ READLINK, "missing", NULL, 0 },
	{ READLINK, "lf/", NULL, 0 },
	{ LSTAT, "lf", NULL, 0 },
	{ STAT, "lf", NULL, 0 },
	{ LSTAT, "dang", NULL, 0 },
	{ STAT, "dang", NULL, 0 },
	{ LSTAT, "ld/", NULL, 0 },
	{ LSTAT, "ld", NULL, 0 },
	{ STAT, "ld/s/g", NULL, 0 },
	{ STAT, "lf/", NULL, 0 },
	{ STAT, "ld/.", NULL, 0 },
	{ STAT, "ld/s/../../f", NULL, 0 },
	{ OPEN, "ld/s/g", NULL, O_RDONLY },
	{ OPEN, "ld/", NULL, O_RDONLY },
	{ MKDIR, "ld/new", NULL, 0 },
	{ MKDIR, "ld", NULL, 0 },
	{ MKDIR, "dang", NULL, 0 },
	{ UNLINK, "ld/", NULL, 0 },
	{ RMDIR, "ld/", NULL, 0 },
	{ RMDIR, "ld", NULL, 0 },
	{ OPEN, "lf", NULL, O_RDONLY | O_NOFOLLOW },
	{ OPEN, "ld", NULL, O_RDONLY | O_NOFOLLOW | O_DIRECTORY },
	{ OPEN, "ld/", NULL, O_RDONLY | O_NOFOLLOW },
	{ OPEN, "d/s/g", NULL, O_RDONLY | O_NOFOLLOW },
	{ OPEN, "dang", NULL, O_CREAT | O_WRONLY },
	{ OPEN, "dang", NULL, O_CREAT | O_EXCL | O_WRONLY },
	{ OPEN, "lf", NULL, O_CREAT | O_EXCL | O_WRONLY },
	{ OPEN, "lf", NULL, O_CREAT | O_WRONLY | O_TRUNC },
	{ OPEN, "dang/", NULL, O_CREAT | O_WRONLY },
	{ STAT, "loop", NULL, 0 },
	{ LSTAT, "loop", NULL, 0 },
	{ STAT, "loop/x", NULL, 0 },
	{ STAT, "../chain/c0", NULL, 0 },
	{ STAT, "../chain/c1", NULL, 0 },
	{ LSTAT, "../chain/c0", NULL, 0 },
	{ STAT, "d/up", NULL, 0 },
	{ STAT, "abs", NULL, 0 },
	{ STAT, "abs/", NULL, 0 },
	{ ACCESS, "dang", NULL, 0 },
	{ ACCESS, "lf", NULL, 0 },
	{ TRUNC, "lf", NULL, 0 },
	{ UNLINK, "lf", NULL, 0 },
	{ UNLINK, "dang", NULL, 0 },
	{ UNLINK, "ld", NULL, 0 },
	{ RENAME, "lf", "x", 0 },
	{ RENAME, "ld", "e/x", 0 },
	{ RENAME, "f", "lf", 0 },
	{ RENAME, "lf", "ld", 0 },
	{ RENAME, "ld/s", "x", 0 },
	{ RENAME, "ld/", "x", 0 },
	{ CHMOD, "lf", NULL, 0 },
	{ CHMOD, "dang", NULL, 0 },
	{ LCHOWN, "dang", NULL, 0 },
	{ LCHOWN, "lf", NULL, 0 },
	{ LCHOWN, "missing", NULL, 0 },
	{ SYMLINK, "f", "f", 0 },
	{ SYMLINK, "", "nl", 0 },
	{ SYMLINK, "x", "n/", 0 },
	{ SYMLINK, "x", "f/", 0 },
	{ SYMLINK, "d", "nl", 0 },
	{ SYMLINK, "g", "ld/s/nl", 0 },
	{ SYMLINK, "x", "missing/nl", 0 },
	{ SYMLINK, "x", "f/nl", 0 },
	{ SYMLINK, "x", "lf/nl", 0 },
	{ SYMLINK, "x", "dang", 0 },
	{ SYMLINK, "x", "d/.", 0 },
	/* Out of PVFS: the shim carries the call on locally. */
	{ STAT, "out", NULL, SHIM_ONLY },
	{ OPEN, "out", NULL, O_RDONLY | SHIM_ONLY },
	{ STAT, "outd/dev/null", NULL, SHIM_ONLY },
	{ LSTAT, "outd/dev", NULL, SHIM_ONLY },
	{ ACCESS, "outd/dev/null", NULL, SHIM_ONLY },
	{ MKDIR, "outd/proc", NULL, SHIM_ONLY },
	/* Hard links (f holds 5 bytes: its size shows the data is alive). */
	{ LINK, "f", "h", 0 },
	{ LINK, "f", "d/s/h", 0 },
	{ LINK, "d", "x", 0 },
	{ LINK, "d/s", "x", 0 },
	{ LINK, "f", "e", 0 },
	{ LINK, "f", "d/s/g", 0 },
	{ LINK, "f", "d/.", 0 },
	{ LINK, "missing", "x", 0 },
	{ LINK, "f", "missing/x", 0 },
	{ LINK, "f/", "x", 0 },
	{ LINK, "f", "x/", 0 },
	{ LINK, "f", "f", 0 },
	{ LINK, "f", "h", PRE_LINK },
	{ LINK, "h", "x", PRE_LINK },
	{ UNLINK, "f", NULL, PRE_LINK },
	{ UNLINK, "h", NULL, PRE_LINK },
	{ RENAME, "d/s/g", "h", PRE_LINK },
	{ RENAME, "d/s/g", "f", PRE_LINK },
	{ RENAME, "f", "h", PRE_LINK },
	{ RENAME, "h", "x", PRE_LINK },
	{ RENAME, "h", "e", PRE_LINK },
	{ TRUNC, "h", NULL, PRE_LINK },
	{ CHMOD, "h", NULL, PRE_LINK },
	{ LINK, NULL, "x", 0 },
	{ LINK, "f", NULL, 0 },
	{ LINK, "f", BAD_PTR, 0 },
	{ LINK, "lf", "h", 0 },     /* the link itself, not its target */
	{ LINK, "dang", "h", 0 },
	{ LINK, "ld", "h", 0 },
	{ LINK, "ld/", "h", 0 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Names whose kind is compared after each call. */
static const char *const watch[] = { "d", "d/s", "d/s/g", "e", "f", "x",
	"n", "n2", "e/x", "d/s/g/x", "ld", "lf", "dang", "t", "nl", "d/up",
	"d/s/nl", "d/new", "h", "d/s/h" };
#define NWATCH (sizeof(watch) / sizeof(watch[0]))

struct ops {
	const char *name;
	int native;
	int (*mkdir)(const char *, mode_t);
	int (*rmdir)(const char *);
	int (*unlink)(const char *);
	int (*rename)(const char *, const char *);
	int (*open)(const char *, int, mode_t);
	int (*close)(int);
	int (*stat)(const char *, struct stat *);
	int (*access)(const char *, int);
	int (*truncate)(const char *, off_t);
	int (*chmod)(const char *, mode_t);
	ssize_t (*write)(int, const void *, size_t);
	ssize_t (*pwrite)(int, const void *, size_t, off_t);
	int (*ftruncate)(int, off_t);
	int (*chown)(const char *, uid_t, gid_t);
	int (*utimes)(const char *, const struct timeval *);
	int (*mknod)(const char *, mode_t, dev_t);
	int (*symlink)(const char *, const char *);
	ssize_t (*readlink)(const char *, char *, size_t);
	int (*lstat)(const char *, struct stat *);
	int (*lchown)(const char *, uid_t, gid_t);
	int (*link)(const char *, const char *);
};

/* Called through a pointer the compiler cannot see through: glibc marks
 * the path nonnull, and UBSan would stop the NULL case before the kernel
 * (or the shim) can say EFAULT.  The other calls are pointers already. */
static int (*volatile libc_open_fn)(const char *, int, ...) = open;

static int
libc_open(const char *p, int flags, mode_t mode)
{
	return libc_open_fn(p, flags, mode);
}

static int
native_open(const char *p, int flags, mode_t mode)
{
	return pvfs_open(p, flags, mode);
}

static const struct ops libc_ops = { "libc", 0, mkdir, rmdir, unlink, rename,
	libc_open, close, stat, access, truncate, chmod, write, pwrite, ftruncate,
	chown, utimes, mknod, symlink, readlink, lstat, lchown, link };
static const struct ops native_ops = { "native", 1, pvfs_mkdir, pvfs_rmdir,
	pvfs_unlink, pvfs_rename, native_open, pvfs_close, pvfs_stat,
	pvfs_access, pvfs_truncate, pvfs_chmod, pvfs_write, pvfs_pwrite,
	pvfs_ftruncate, pvfs_chown, pvfs_utimes, pvfs_mknod, pvfs_symlink,
	pvfs_readlink, pvfs_lstat, pvfs_lchown, pvfs_link };

/* Per watched name: its kind, link count and (files) size. */
struct result {
	int rc, err;
	char kinds[NWATCH * 32];
	char info[PATH_MAX + 32]; /* what the call answered beyond rc */
};

static int failures, ran;
static int on_mount; /* the libc side runs on a FUSE mount, not the shim */

static void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	failures++;
}

/* dir/rel into buf; NULL and BAD_PTR pass through. */
static const char *
join(char *buf, size_t len, const char *dir, const char *rel)
{
	if (rel == NULL || rel == BAD_PTR || dir == NULL)
		return rel;
	snprintf(buf, len, "%s/%s", dir, rel);
	return buf;
}

/* The links of every tree (make_tree): name, text ("=" + rest: dir's
 * absolute path + rest). */
static const char *const links[][2] = {
	{ "ld", "d" }, { "lf", "f" }, { "dang", "t" }, { "d/up", "../f" },
	{ "loop", "loop" }, { "abs", "=/d/s/g" }, { "out", "/dev/null" },
	{ "outd", "/" },
};

/* The tree every case starts from: d/ d/s/ d/s/g e/ f ("hello"), and
 * the links. */
static int
make_tree(const struct ops *o, const char *dir)
{
	char p[PATH_MAX], t[PATH_MAX];
	size_t i;
	int fd;

	if (o->mkdir(dir, 0755) != 0 ||
	    o->mkdir(join(p, sizeof(p), dir, "d"), 0755) != 0 ||
	    o->mkdir(join(p, sizeof(p), dir, "d/s"), 0755) != 0 ||
	    o->mkdir(join(p, sizeof(p), dir, "e"), 0755) != 0)
		return -1;
	if ((fd = o->open(join(p, sizeof(p), dir, "d/s/g"), O_CREAT | O_WRONLY,
	    0644)) < 0 || o->close(fd) != 0)
		return -1;
	if ((fd = o->open(join(p, sizeof(p), dir, "f"), O_CREAT | O_WRONLY,
	    0644)) < 0 || o->write(fd, "hello", 5) != 5 || o->close(fd) != 0)
		return -1;
	for (i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		if (links[i][1][0] == '=')
			join(t, sizeof(t), dir, links[i][1] + 2);
		else
			snprintf(t, sizeof(t), "%s", links[i][1]);
		if (o->symlink(t, join(p, sizeof(p), dir, links[i][0])) != 0)
			return -1;
	}
	return 0;
}

/* dir/chain/c0 -> c1 -> ... -> c40 -> z, once per directory: following
 * c0 takes 41 links, one more than Linux allows. */
static int
make_chain(const struct ops *o, const char *dir)
{
	char p[PATH_MAX], t[32];
	struct stat st;
	int i, fd;

	if (o->stat(join(p, sizeof(p), dir, "chain"), &st) == 0)
		return 0;
	if (o->mkdir(p, 0755) != 0 ||
	    (fd = o->open(join(p, sizeof(p), dir, "chain/z"), O_CREAT | O_WRONLY,
	    0644)) < 0 || o->close(fd) != 0)
		return -1;
	for (i = 0; i <= 40; i++) {
		char n[32];

		snprintf(n, sizeof(n), "chain/c%d", i);
		if (i == 40)
			snprintf(t, sizeof(t), "z");
		else
			snprintf(t, sizeof(t), "c%d", i + 1);
		if (o->symlink(t, join(p, sizeof(p), dir, n)) != 0)
			return -1;
	}
	return 0;
}

/* What stat or lstat answered beyond rc: the type, and a link's size. */
static void
stat_info(const struct stat *st, char *buf, size_t len)
{
	snprintf(buf, len, "%c%lld", S_ISLNK(st->st_mode) ? 'l' :
	    S_ISDIR(st->st_mode) ? 'd' : S_ISREG(st->st_mode) ? 'f' : 'o',
	    S_ISLNK(st->st_mode) ? (long long)st->st_size : 0LL);
}

/* Run case t in dir (absolute) or, with dir NULL, relative to the cwd. */
static void
run_case(const struct ops *o, const struct tcase *t, const char *dir,
    struct result *r)
{
	char pa[PATH_MAX], pb[PATH_MAX];
	const char *a = t->op == SYMLINK ? t->a : join(pa, sizeof(pa), dir, t->a);
	const char *b = join(pb, sizeof(pb), dir, t->b);
	char pf[PATH_MAX], ph[PATH_MAX];
	struct stat st;
	ssize_t n;
	size_t i, k;

	r->info[0] = '\0';
	if ((t->flags & PRE_LINK) && o->link(join(pf, sizeof(pf), dir, "f"),
	    join(ph, sizeof(ph), dir, "h")) != 0)
		fail("not ok - %s: link f h before the case: %s\n", o->name,
		    strerror(errno));
	errno = 0;
	switch (t->op) {
	case MKDIR: r->rc = o->mkdir(a, 0755); break;
	case RMDIR: r->rc = o->rmdir(a); break;
	case UNLINK: r->rc = o->unlink(a); break;
	case RENAME: r->rc = o->rename(a, b); break;
	case OPEN:
		r->rc = o->open(a, t->flags & ~SHIM_ONLY, 0644);
		if (r->rc >= 0) {
			o->close(r->rc);
			r->rc = 0;
		}
		break;
	case STAT:
	case LSTAT:
		r->rc = (t->op == STAT ? o->stat : o->lstat)(a, &st);
		if (r->rc == 0)
			stat_info(&st, r->info, sizeof(r->info));
		break;
	case ACCESS: r->rc = o->access(a, F_OK); break;
	case TRUNC: r->rc = o->truncate(a, 0); break;
	case CHMOD: r->rc = o->chmod(a, 0600); break;
	case SYMLINK: r->rc = o->symlink(a, b); break;
	case READLINK:
		n = o->readlink(a, r->info, sizeof(r->info) - 1);
		r->rc = n < 0 ? -1 : 0;
		r->info[n < 0 ? 0 : n] = '\0';
		break;
	case LCHOWN: r->rc = o->lchown(a, getuid(), getgid()); break;
	case LINK: r->rc = o->link(a, b); break;
	}
	r->err = r->rc < 0 ? errno : 0;
	/* chmod through a link changes what it leads to. */
	if (t->op == CHMOD && o->stat(dir ? join(pa, sizeof(pa), dir, "f") : "f",
	    &st) == 0)
		snprintf(r->info, sizeof(r->info), "%o", st.st_mode & 07777);
	/* Each watched name: its type, link count and (files) size. */
	for (i = k = 0; i < NWATCH; i++) {
		const char *w = dir ? join(pa, sizeof(pa), dir, watch[i]) : watch[i];

		if (o->lstat(w, &st) != 0)
			k += (size_t)snprintf(r->kinds + k, sizeof(r->kinds) - k, "- ");
		else if (S_ISLNK(st.st_mode))
			k += (size_t)snprintf(r->kinds + k, sizeof(r->kinds) - k,
			    "l%lu ", (unsigned long)st.st_nlink);
		else if (S_ISDIR(st.st_mode))
			k += (size_t)snprintf(r->kinds + k, sizeof(r->kinds) - k,
			    "d%lu ", (unsigned long)st.st_nlink);
		else
			k += (size_t)snprintf(r->kinds + k, sizeof(r->kinds) - k,
			    "f%lu:%lld ", (unsigned long)st.st_nlink,
			    (long long)st.st_size);
	}
}

static const char *
opname(enum op op)
{
	static const char *const n[] = { "mkdir", "rmdir", "unlink", "rename",
		"open", "stat", "access", "truncate", "chmod", "symlink",
		"readlink", "lstat", "lchown", "link" };

	return n[op];
}

static const char *
show(const char *p)
{
	return p == NULL ? "NULL" : p == BAD_PTR ? "(bad)" : p;
}

/* Each case on a fresh local tree and a fresh PVFS tree; relative: chdir
 * into the case directory first (the shim's virtual cwd). */
static void
compare(const struct ops *o, const char *local, const char *pvfs, int relative)
{
	char ld[PATH_MAX], pd[PATH_MAX], tag[64];
	struct result lr, pr;
	size_t i;

	snprintf(tag, sizeof(tag), "%s%s", o->name, relative ? " relative" : "");
	if (make_chain(&libc_ops, local) != 0 || make_chain(o, pvfs) != 0) {
		fail("not ok - %s: chain of links: %s\n", tag, strerror(errno));
		return;
	}
	for (i = 0; i < NCASES; i++) {
		const struct tcase *t = &cases[i];
		int two = t->op == RENAME || t->op == SYMLINK || t->op == LINK;

		if (o->native && (t->a == BAD_PTR || t->b == BAD_PTR))
			continue; /* the native API checks NULL only */
		if (o->native && (t->flags & SHIM_ONLY))
			continue; /* native_escape() checks these */
		snprintf(ld, sizeof(ld), "%s/%s%zu", local, relative ? "r" : "a", i);
		snprintf(pd, sizeof(pd), "%s/%s%zu", pvfs, relative ? "r" : "a", i);
		if (make_tree(&libc_ops, ld) != 0 || make_tree(o, pd) != 0) {
			fail("not ok - %s: tree for case %zu: %s\n", tag, i,
			    strerror(errno));
			continue;
		}
		if (relative) {
			if (chdir(ld) != 0)
				abort();
			run_case(&libc_ops, t, NULL, &lr);
			if (chdir(pd) != 0)
				abort();
			run_case(o, t, NULL, &pr);
			if (chdir("/") != 0)
				abort();
		} else {
			run_case(&libc_ops, t, ld, &lr);
			run_case(o, t, pd, &pr);
		}
		ran++;
		if (lr.rc != pr.rc || lr.err != pr.err ||
		    strcmp(lr.kinds, pr.kinds) != 0 || strcmp(lr.info, pr.info) != 0)
			fail("not ok - %s: %s(%s%s%s): local %d %s [%s] %s, "
			    "pvfs %d %s [%s] %s\n", tag, opname(t->op), show(t->a),
			    two ? ", " : "", two ? show(t->b) : "",
			    lr.rc, lr.err ? strerrorname_np(lr.err) : "-", lr.kinds,
			    lr.info, pr.rc, pr.err ? strerrorname_np(pr.err) : "-",
			    pr.kinds, pr.info);
		else
			printf("ok - %s: %s(%s%s%s)%s = %d %s %s\n", tag, opname(t->op),
			    show(t->a), two ? ", " : "", two ? show(t->b) : "",
			    (t->flags & PRE_LINK) ? " after link(f, h)" : "", lr.rc,
			    lr.err ? strerrorname_np(lr.err) : "", lr.info);
	}
}

/* Under a virtual cwd, a relative path is limited as the kernel limits
 * it (its own length), and where the joined name passes PVFS_PATH_MAX
 * under the prefix the answer is ENAMETOOLONG, never a local ENOENT or
 * EXDEV. */
static void
long_relative(const char *pvfs)
{
	char name[201], cwd[PATH_MAX], rel[PATH_MAX + 16];
	struct stat st;
	size_t len;
	int i, rc;

	memset(name, 'a', 200);
	name[200] = '\0';
	snprintf(cwd, sizeof(cwd), "%s/long", pvfs);
	if (mkdir(cwd, 0755) != 0 || chdir(cwd) != 0) {
		fail("not ok - long: %s: %s\n", cwd, strerror(errno));
		return;
	}
	/* 15 levels down: the cwd is some 3,000 bytes long. */
	for (i = 0; i < 15; i++)
		if (mkdir(name, 0755) != 0 || chdir(name) != 0) {
			fail("not ok - long: level %d: %s\n", i, strerror(errno));
			return;
		}
	/* "../" x 15 then 4 names: short joined after the cwd's "..". */
	rel[0] = '\0';
	for (i = 0; i < 15; i++)
		strcat(rel, "../");
	for (i = 0; i < 4; i++) {
		strcat(rel, name);
		rc = mkdir(rel, 0755);
		strcat(rel, "/");
		if (rc != 0 && errno != EEXIST) {
			fail("not ok - long: mkdir up-and-down: %s\n", strerror(errno));
			return;
		}
	}
	ran++;
	printf("ok - long: \"../\"x15 from a 3,000-byte cwd\n");
	/* 6 more names (1,200 bytes) below the cwd: past the wire's limit. */
	rel[0] = '\0';
	for (i = 0; i < 6; i++) {
		strcat(rel, name);
		errno = 0;
		rc = mkdir(rel, 0755);
		if (rc != 0 && errno != ENAMETOOLONG) {
			fail("not ok - long: mkdir at %zu bytes: %s\n", strlen(rel),
			    strerrorname_np(errno));
			return;
		}
		strcat(rel, "/");
	}
	errno = 0;
	rc = stat(rel, &st);
	ran++;
	if (rc == 0 || errno != ENAMETOOLONG)
		fail("not ok - long: stat past PVFS_PATH_MAX: %d %s\n", rc,
		    strerrorname_np(errno));
	else
		printf("ok - long: past PVFS_PATH_MAX under the prefix: ENAMETOOLONG\n");
	/* The caller's own string at PATH_MAX: the kernel's ENAMETOOLONG. */
	for (len = strlen(rel); len < PATH_MAX + 8; len++)
		rel[len] = 'b';
	rel[len] = '\0';
	errno = 0;
	rc = stat(rel, &st);
	ran++;
	if (rc == 0 || errno != ENAMETOOLONG)
		fail("not ok - long: relative string of %zu bytes: %d %s\n", len,
		    rc, strerrorname_np(errno));
	else
		printf("ok - long: a relative string over PATH_MAX: ENAMETOOLONG\n");
	if (chdir("/") != 0)
		abort();
}

static void
check(int ok, const char *what)
{
	ran++;
	if (ok)
		printf("ok - %s\n", what);
	else
		fail("not ok - %s (%s)\n", what, strerrorname_np(errno));
}

/* A relative AF_UNIX name under a virtual cwd is bound in PVFS (a
 * socket node there, doc/api.md), never in the kernel's unrelated cwd;
 * and copy_file_range and sendfile move bytes between PVFS and local
 * files. */
static void
sockets_and_copies(const char *local, const char *pvfs)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "sock" };
	char lf[PATH_MAX + 16], pf[PATH_MAX + 16], buf[64];
	struct stat st;
	off64_t off = 0;
	int s, in, out;

	if (chdir(pvfs) != 0)
		abort();
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	check(bind(s, (struct sockaddr *)&un, sizeof(un)) == 0 && listen(s, 1) == 0,
	    "bind(\"sock\") under a PVFS cwd: a socket in PVFS");
	check(stat("/sock", &st) != 0, "... nothing bound in the kernel's cwd");
	check(stat("sock", &st) == 0 && S_ISSOCK(st.st_mode),
	    "... stat(\"sock\") is a socket");
	close(s);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	errno = 0;
	check(connect(s, (struct sockaddr *)&un, sizeof(un)) < 0 &&
	    errno == ECONNREFUSED, "connect(\"sock\") after its socket closed: "
	    "ECONNREFUSED");
	un.sun_path[0] = 'x';
	errno = 0;
	check(connect(s, (struct sockaddr *)&un, sizeof(un)) < 0 &&
	    errno == ENOENT, "connect(\"xock\"): ENOENT");
	close(s);
	if (chdir("/") != 0)
		abort();
	snprintf(lf, sizeof(lf), "%s/copy-src", local);
	snprintf(pf, sizeof(pf), "%s/copy-dst", pvfs);
	in = open(lf, O_CREAT | O_RDWR | O_TRUNC, 0644);
	check(in >= 0 && write(in, "0123456789", 10) == 10, "local source");
	out = open(pf, O_CREAT | O_RDWR | O_TRUNC, 0644);
	/* Through a mount the kernel itself refuses a copy across file
	 * systems (EXDEV), and callers (cp) fall back to read and write. */
	if (on_mount && copy_file_range(in, &off, out, NULL, 100, 0) < 0 &&
	    errno == EXDEV) {
		ran++;
		printf("ok - copy_file_range local -> mount: EXDEV, the kernel's\n");
		close(in);
		close(out);
		return;
	}
	check(copy_file_range(in, &off, out, NULL, 100, 0) == 10 && off == 10,
	    "copy_file_range local -> PVFS: 10 bytes");
	check(copy_file_range(in, &off, out, NULL, 100, 0) == 0,
	    "... then 0 at end of file");
	off = 2;
	check(sendfile(in, out, &off, 3) == 3 && off == 5,
	    "sendfile PVFS -> local: 3 bytes");
	check(pread(out, buf, 10, 0) == 10 && memcmp(buf, "0123456789", 10) == 0 &&
	    pread(in, buf, 13, 0) == 13 && memcmp(buf, "0123456789234", 13) == 0,
	    "... the bytes arrived");
	close(in);
	close(out);
}

/* splice between a PVFS file and a pipe moves the bytes, either way; the
 * kernel's rules stay (a pipe on one side, no offset for the pipe). */
static void
splices(const char *pvfs)
{
	char pf[PATH_MAX + 16], buf[64];
	off64_t off = 4;
	int p[2], fd;

	snprintf(pf, sizeof(pf), "%s/splice", pvfs);
	fd = open(pf, O_CREAT | O_RDWR | O_TRUNC, 0644);
	if (fd < 0 || pipe(p) != 0)
		abort();
	check(write(p[1], "abcdefgh", 8) == 8 &&
	    splice(p[0], NULL, fd, NULL, 100, 0) == 8,
	    "splice pipe -> PVFS: the 8 bytes in the pipe, no wait for more");
	check(splice(fd, &off, p[1], NULL, 3, 0) == 3 && off == 7 &&
	    read(p[0], buf, sizeof(buf)) == 3 && memcmp(buf, "efg", 3) == 0,
	    "splice PVFS -> pipe at an offset: 3 bytes, offset moved");
	check(lseek(fd, 0, SEEK_CUR) == 8 && pread(fd, buf, 8, 0) == 8 &&
	    memcmp(buf, "abcdefgh", 8) == 0, "... the file has them, offset kept");
	errno = 0;
	check(splice(fd, NULL, fd, NULL, 1, 0) < 0 && errno == EINVAL,
	    "splice PVFS -> PVFS: EINVAL (no pipe)");
	errno = 0;
	off = 0;
	check(splice(p[0], &off, fd, NULL, 1, 0) < 0 && errno == ESPIPE,
	    "splice with an offset for the pipe: ESPIPE");
	close(p[0]);
	close(p[1]);
	close(fd);
}

/* ---- times and mode bits (issue 14, item 6) ---- */

#define OTHER_UID 1000 /* a non-root caller: no CAP_FSETID, CAP_MKNOD */
#define OTHER_GID 1000

enum top { T_WRITE, T_PWRITE, T_FTRUNC, T_TRUNC, T_OTRUNC, T_CHMOD,
	T_CHOWN_NOP, T_CHOWN_GID, T_UTIMES, T_MKDIR, T_RMDIR, T_RENAME_DIR,
	T_RENAME_FILE, T_CREATE, T_UNLINK };

struct tcase_t {
	const char *name;
	enum top op;
	mode_t mode;     /* of "f" before the call */
	uid_t uid;       /* who calls (and owns "f") */
	gid_t gid;       /* "f"'s group */
};

static const struct tcase_t tcases[] = {
	{ "write", T_WRITE, 0644, 0, 0 },
	{ "pwrite", T_PWRITE, 0644, 0, 0 },
	{ "ftruncate", T_FTRUNC, 0644, 0, 0 },
	{ "truncate", T_TRUNC, 0644, 0, 0 },
	{ "O_TRUNC", T_OTRUNC, 0644, 0, 0 },
	{ "chmod", T_CHMOD, 0644, 0, 0 },
	{ "chown -1 -1", T_CHOWN_NOP, 0644, 0, 0 },
	{ "utimes now", T_UTIMES, 0644, 0, 0 },
	{ "mkdir", T_MKDIR, 0644, 0, 0 },
	{ "rmdir", T_RMDIR, 0644, 0, 0 },
	{ "rename dir across", T_RENAME_DIR, 0644, 0, 0 },
	{ "rename file across", T_RENAME_FILE, 0644, 0, 0 },
	{ "create", T_CREATE, 0644, 0, 0 },
	{ "unlink", T_UNLINK, 0644, 0, 0 },
	/* set-id bits: root keeps them on write, others lose them */
	{ "root write 6755", T_WRITE, 06755, 0, 0 },
	{ "root truncate 6755", T_TRUNC, 06755, 0, 0 },
	{ "root chown -1 -1 6755", T_CHOWN_NOP, 06755, 0, 0 },
	{ "root chown 2745", T_CHOWN_GID, 02745, 0, 0 },
	{ "user write 6755", T_WRITE, 06755, OTHER_UID, 0 },
	{ "user write 6745", T_WRITE, 06745, OTHER_UID, 0 },
	{ "user write 2745 not in group", T_WRITE, 02745, OTHER_UID, 0 },
	{ "user write 2745 in group", T_WRITE, 02745, OTHER_UID, OTHER_GID },
	{ "user write 6765 in group", T_WRITE, 06765, OTHER_UID, OTHER_GID },
	{ "user pwrite 4755", T_PWRITE, 04755, OTHER_UID, OTHER_GID },
	{ "user ftruncate 6755", T_FTRUNC, 06755, OTHER_UID, 0 },
	{ "user truncate 6755", T_TRUNC, 06755, OTHER_UID, 0 },
	{ "user O_TRUNC 6755", T_OTRUNC, 06755, OTHER_UID, 0 },
	{ "user truncate 2755 in group", T_TRUNC, 02755, OTHER_UID, OTHER_GID },
	{ "user chown -1 -1 6755", T_CHOWN_NOP, 06755, OTHER_UID, 0 },
};
#define NTCASES (sizeof(tcases) / sizeof(tcases[0]))

/* What each case looks at: "f", the directories, the moved objects. */
static const char *const twatch[] = { "f", "d", "e", "d/s", "e/s", "e/g" };
#define NTWATCH (sizeof(twatch) / sizeof(twatch[0]))

static void
pause_tick(void)
{
	struct timespec t = { 0, 30 * 1000000 }; /* past any clock's tick */

	nanosleep(&t, NULL);
}

static int
ts_eq(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* The tree: f (1 byte, the case's mode and owner), d/ d/s/ d/g e/. */
static int
make_ttree(const struct ops *o, const char *dir, const struct tcase_t *t)
{
	char p[PATH_MAX];
	int fd;

	if (o->mkdir(dir, 0777) != 0 || o->chmod(dir, 0777) != 0 ||
	    o->mkdir(join(p, sizeof(p), dir, "d"), 0777) != 0 ||
	    o->chmod(p, 0777) != 0 ||
	    o->mkdir(join(p, sizeof(p), dir, "d/s"), 0755) != 0 ||
	    o->mkdir(join(p, sizeof(p), dir, "e"), 0777) != 0 ||
	    o->chmod(p, 0777) != 0)
		return -1;
	if ((fd = o->open(join(p, sizeof(p), dir, "d/g"), O_CREAT | O_WRONLY,
	    0644)) < 0 || o->close(fd) != 0)
		return -1;
	if ((fd = o->open(join(p, sizeof(p), dir, "f"), O_CREAT | O_WRONLY,
	    0644)) < 0 || o->write(fd, "x", 1) != 1 || o->close(fd) != 0)
		return -1;
	if (o->chown(p, t->uid, t->gid) != 0 || o->chmod(p, t->mode) != 0)
		return -1;
	return 0;
}

/* The call itself; 0 or an errno. */
static int
tcall(const struct ops *o, const char *dir, enum top op)
{
	char p[PATH_MAX], q[PATH_MAX];
	int fd, rc = 0;

	join(p, sizeof(p), dir, "f");
	switch (op) {
	case T_WRITE:
	case T_PWRITE:
	case T_FTRUNC:
		if ((fd = o->open(p, O_WRONLY, 0)) < 0)
			return errno;
		pause_tick();
		if (op == T_WRITE)
			rc = o->write(fd, "y", 1) == 1 ? 0 : errno;
		else if (op == T_PWRITE)
			rc = o->pwrite(fd, "yy", 2, 3) == 2 ? 0 : errno;
		else
			rc = o->ftruncate(fd, 5) == 0 ? 0 : errno;
		o->close(fd);
		return rc;
	case T_OTRUNC:
		if ((fd = o->open(p, O_WRONLY | O_TRUNC, 0)) < 0)
			return errno;
		o->close(fd);
		return 0;
	case T_TRUNC:
		return o->truncate(p, 1) == 0 ? 0 : errno;
	case T_CHMOD:
		return o->chmod(p, 0600) == 0 ? 0 : errno;
	case T_CHOWN_NOP:
		return o->chown(p, (uid_t)-1, (gid_t)-1) == 0 ? 0 : errno;
	case T_CHOWN_GID:
		return o->chown(p, (uid_t)-1, OTHER_GID) == 0 ? 0 : errno;
	case T_UTIMES:
		return o->utimes(p, NULL) == 0 ? 0 : errno;
	case T_MKDIR:
		return o->mkdir(join(p, sizeof(p), dir, "d/n"), 0755) == 0 ? 0 : errno;
	case T_RMDIR:
		return o->rmdir(join(p, sizeof(p), dir, "d/s")) == 0 ? 0 : errno;
	case T_RENAME_DIR:
	case T_RENAME_FILE:
		join(p, sizeof(p), dir, op == T_RENAME_DIR ? "d/s" : "d/g");
		join(q, sizeof(q), dir, op == T_RENAME_DIR ? "e/s" : "e/g");
		return o->rename(p, q) == 0 ? 0 : errno;
	case T_CREATE:
		if ((fd = o->open(join(p, sizeof(p), dir, "d/n"), O_CREAT | O_WRONLY,
		    0644)) < 0)
			return errno;
		o->close(fd);
		return 0;
	case T_UNLINK:
		return o->unlink(join(p, sizeof(p), dir, "d/g")) == 0 ? 0 : errno;
	}
	return EINVAL;
}

/* Drop to uid (and its group alone) in a child for the call: root's
 * CAP_FSETID would keep the set-id bits. */
static int
tcall_as(const struct ops *o, const char *dir, enum top op, uid_t uid)
{
	int st;
	pid_t pid;

	if (uid == 0)
		return tcall(o, dir, op);
	if ((pid = fork()) == 0) {
		gid_t g = OTHER_GID;

		if (setgroups(1, &g) != 0 || setresgid(g, g, g) != 0 ||
		    setresuid(uid, uid, uid) != 0)
			_exit(255);
		_exit(tcall(o, dir, op));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* "amc" for the times that changed ('-' for each that did not) and the
 * mode after, per watched name; "x" for a name that is not there. */
static void
tcase_run(const struct ops *o, const char *dir, const struct tcase_t *t,
    char *out, size_t len)
{
	struct stat before[NTWATCH], after;
	int ok[NTWATCH], rc;
	char p[PATH_MAX];
	size_t i, n;

	for (i = 0; i < NTWATCH; i++)
		ok[i] = o->stat(join(p, sizeof(p), dir, twatch[i]), &before[i]) == 0;
	pause_tick();
	rc = tcall_as(o, dir, t->op, t->uid);
	n = (size_t)snprintf(out, len, "rc %s:", rc ? strerrorname_np(rc) : "0");
	for (i = 0; i < NTWATCH && n < len; i++) {
		if (o->stat(join(p, sizeof(p), dir, twatch[i]), &after) != 0) {
			n += (size_t)snprintf(out + n, len - n, " %s=x", twatch[i]);
			continue;
		}
		n += (size_t)snprintf(out + n, len - n, " %s=%c%c%c/%04o", twatch[i],
		    !ok[i] ? 'n' : ts_eq(&before[i].st_atim, &after.st_atim) ? '-' : 'a',
		    !ok[i] ? 'n' : ts_eq(&before[i].st_mtim, &after.st_mtim) ? '-' : 'm',
		    !ok[i] ? 'n' : ts_eq(&before[i].st_ctim, &after.st_ctim) ? '-' : 'c',
		    (unsigned)(after.st_mode & 07777));
	}
}

static void
compare_times(const struct ops *o, const char *local, const char *pvfs)
{
	char ld[PATH_MAX], pd[PATH_MAX], lr[512], pr[512];
	size_t i;

	for (i = 0; i < NTCASES; i++) {
		const struct tcase_t *t = &tcases[i];

		/* libfuse's high-level API drops a setattr that changes only
		 * ctime, as chown(-1, -1) of a file without set-id bits is
		 * (doc/fuse.md). */
		if (on_mount && t->op == T_CHOWN_NOP && !(t->mode & 06000)) {
			printf("# mount: %s skipped (doc/fuse.md)\n", t->name);
			continue;
		}
		snprintf(ld, sizeof(ld), "%s/t%zu", local, i);
		snprintf(pd, sizeof(pd), "%s/t%zu", pvfs, i);
		if (make_ttree(&libc_ops, ld, t) != 0 || make_ttree(o, pd, t) != 0) {
			fail("not ok - %s: times tree for %s: %s\n", o->name, t->name,
			    strerror(errno));
			continue;
		}
		tcase_run(&libc_ops, ld, t, lr, sizeof(lr));
		tcase_run(o, pd, t, pr, sizeof(pr));
		ran++;
		if (strcmp(lr, pr) != 0)
			fail("not ok - %s: times %s:\n#  local %s\n#  pvfs  %s\n",
			    o->name, t->name, lr, pr);
		else
			printf("ok - %s: times %s: %s\n", o->name, t->name, lr);
	}
}

/* ---- special files (issue 14, item 4) ---- */

struct scase {
	const char *name;
	mode_t mode;
	dev_t dev;
	uid_t uid;
};

static const struct scase scases[] = {
	{ "fifo", S_IFIFO | 0640, 0, 0 },
	{ "sock", S_IFSOCK | 0755, 0, 0 },
	{ "chr", S_IFCHR | 0620, 0, 0 },   /* dev set below: makedev is no constant */
	{ "blk", S_IFBLK | 0660, 0, 0 },
	{ "reg", S_IFREG | 0600, 0, 0 },
	{ "zero", 0644, 0, 0 },
	{ "dir", S_IFDIR | 0755, 0, 0 },
	{ "bad", 0170000 | 0644, 0, 0 },
	{ "ufifo", S_IFIFO | 0644, 0, OTHER_UID },
	{ "uchr", S_IFCHR | 0644, 0, OTHER_UID },
	{ "ublk", S_IFBLK | 0644, 0, OTHER_UID },
	{ "f/", S_IFIFO | 0644, 0, 0 },
	{ "n/", S_IFIFO | 0644, 0, 0 },
	{ "d/s", S_IFIFO | 0644, 0, 0 },
};
#define NSCASES (sizeof(scases) / sizeof(scases[0]))

static int
smknod(const struct ops *o, const char *p, const struct scase *s)
{
	dev_t dev = S_ISCHR(s->mode) ? makedev(1, 3) :
	    S_ISBLK(s->mode) ? makedev(7, 200) : 0;
	int st;
	pid_t pid;

	if (s->uid == 0)
		return o->mknod(p, s->mode, dev) == 0 ? 0 : errno;
	if ((pid = fork()) == 0) {
		gid_t g = OTHER_GID;

		if (setgroups(1, &g) != 0 || setresgid(g, g, g) != 0 ||
		    setresuid(s->uid, s->uid, s->uid) != 0)
			_exit(255);
		_exit(o->mknod(p, s->mode, dev) == 0 ? 0 : errno);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
snode(const struct ops *o, const char *dir, const struct scase *s, char *out,
    size_t len)
{
	char p[PATH_MAX];
	struct stat st;
	int rc = smknod(o, join(p, sizeof(p), dir, s->name), s);

	if (rc != 0 || o->stat(p, &st) != 0) {
		snprintf(out, len, "%s", rc > 0 ? strerrorname_np(rc) : "failed");
		return;
	}
	snprintf(out, len, "mode %06o uid %u rdev %u,%u size %lld",
	    (unsigned)st.st_mode, (unsigned)st.st_uid, major(st.st_rdev),
	    minor(st.st_rdev), (long long)st.st_size);
}

static void
compare_special(const struct ops *o, const char *local, const char *pvfs)
{
	char ld[PATH_MAX], pd[PATH_MAX], lr[256], pr[256], np[PATH_MAX + 16];
	size_t i;
	int fd;

	snprintf(ld, sizeof(ld), "%s/special", local);
	snprintf(pd, sizeof(pd), "%s/special", pvfs);
	if (make_tree(&libc_ops, ld) != 0 || make_tree(o, pd) != 0 ||
	    chmod(ld, 0777) != 0 || o->chmod(pd, 0777) != 0) {
		fail("not ok - %s: special tree: %s\n", o->name, strerror(errno));
		return;
	}
	for (i = 0; i < NSCASES; i++) {
		snode(&libc_ops, ld, &scases[i], lr, sizeof(lr));
		snode(o, pd, &scases[i], pr, sizeof(pr));
		ran++;
		if (strcmp(lr, pr) != 0)
			fail("not ok - %s: mknod %s: local %s, pvfs %s\n", o->name,
			    scases[i].name, lr, pr);
		else
			printf("ok - %s: mknod %s: %s\n", o->name, scases[i].name, lr);
	}
	/* Devices open as on a nodev mount; a socket does not open. */
	snprintf(np, sizeof(np), "%s/chr", pd);
	errno = 0;
	fd = o->open(np, O_RDONLY, 0);
	check(fd < 0 && errno == EACCES, "device node opens as on nodev: EACCES");
	snprintf(np, sizeof(np), "%s/sock", pd);
	errno = 0;
	fd = o->open(np, O_RDONLY, 0);
	check(fd < 0 && errno == ENXIO, "socket node: open is ENXIO");
	if (o->native) {
		snprintf(np, sizeof(np), "%s/fifo", pd);
		errno = 0;
		fd = o->open(np, O_RDONLY | O_NONBLOCK, 0);
		check(fd < 0 && errno == ENXIO,
		    "native open of a FIFO: ENXIO (the shim opens a local one)");
	}
}

/* Through the shim: a FIFO between two processes, and a socket bound on
 * a PVFS name that another process connects to. */
static void
fifo_and_socket(const char *local, const char *pvfs)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	char p[PATH_MAX], buf[8] = { 0 };
	struct stat st, lst;
	int fd, s, c, status;
	pid_t pid;

	snprintf(p, sizeof(p), "%s/pipe", pvfs);
	check(mkfifo(p, 0600) == 0 && stat(p, &st) == 0 && S_ISFIFO(st.st_mode),
	    "mkfifo through the shim: a FIFO");
	if ((pid = fork()) == 0) {
		fd = open(p, O_WRONLY);
		_exit(fd >= 0 && write(fd, "hello", 5) == 5 ? 0 : 1);
	}
	/* Non-blocking, then a bounded wait: a writer that never comes
	 * fails the check instead of hanging the suite. */
	fd = open(p, O_RDONLY | O_NONBLOCK);
	check(fd >= 0 && poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1,
	    10000) == 1 && read(fd, buf, 5) == 5 && memcmp(buf, "hello", 5) == 0 &&
	    waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "a PVFS FIFO carries bytes between processes");
	if (fd >= 0)
		close(fd);

	/* bind: the node's mode is the kernel's (0777 & ~umask). */
	if (strlen(local) + 6 > sizeof(un.sun_path) ||
	    strlen(pvfs) + 6 > sizeof(un.sun_path)) {
		printf("# socket names too long for sun_path: skipped\n");
		return;
	}
	strcpy(un.sun_path, local);
	strcat(un.sun_path, "/sok2");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if (bind(s, (struct sockaddr *)&un, sizeof(un)) != 0 ||
	    stat(un.sun_path, &lst) != 0)
		lst.st_mode = 0;
	close(s);
	strcpy(un.sun_path, pvfs);
	strcat(un.sun_path, "/sok2");
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	check(bind(s, (struct sockaddr *)&un, sizeof(un)) == 0 && listen(s, 1) == 0,
	    "bind and listen on a PVFS name");
	check(stat(un.sun_path, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    st.st_mode == lst.st_mode, "... a socket node with the kernel's mode");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	errno = 0;
	check(bind(c, (struct sockaddr *)&un, sizeof(un)) != 0 &&
	    errno == EADDRINUSE, "... bound again: EADDRINUSE");
	close(c);
	if ((pid = fork()) == 0) {
		c = socket(AF_UNIX, SOCK_STREAM, 0);
		_exit(connect(c, (struct sockaddr *)&un, sizeof(un)) == 0 &&
		    write(c, "ping", 4) == 4 ? 0 : 1);
	}
	c = accept(s, NULL, NULL);
	memset(buf, 0, sizeof(buf));
	check(c >= 0 && read(c, buf, 4) == 4 && memcmp(buf, "ping", 4) == 0 &&
	    waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "... another process connects through it");
	if (c >= 0)
		close(c);
	close(s);
	check(unlink(un.sun_path) == 0, "... and its name unlinks");
}

/* The mgr's journal brings special files back with type and device. */
static void
replayed(struct cluster *c, const char *pvfs)
{
	char p[PATH_MAX + 32];
	struct stat st;

	check(cluster_restart(c) == 0, "mgr restarted");
	snprintf(p, sizeof(p), "%s/special/blk", pvfs);
	check(pvfs_stat(p, &st) == 0 && S_ISBLK(st.st_mode) &&
	    major(st.st_rdev) == 7 && minor(st.st_rdev) == 200,
	    "after replay: a block device 7,200");
	snprintf(p, sizeof(p), "%s/special/fifo", pvfs);
	check(pvfs_stat(p, &st) == 0 && S_ISFIFO(st.st_mode) &&
	    (st.st_mode & 07777) == 0640, "after replay: a FIFO 0640");
}

/* What the shim resolves itself: getcwd after chdir through a link is
 * the physical directory (and ".." climbs from it), realpath resolves
 * links, readdir says DT_LNK. */
static void
links_resolved(const char *pvfs)
{
	char p[PATH_MAX], want[PATH_MAX], got[PATH_MAX], *rp;
	struct dirent *de;
	DIR *d;
	int lnk = 0;

	snprintf(p, sizeof(p), "%s/rp", pvfs);
	check(mkdir(p, 0755) == 0 && chdir(p) == 0 && mkdir("a", 0755) == 0 &&
	    mkdir("a/b", 0755) == 0 && symlink("a/b", "lb") == 0,
	    "rp/a/b and rp/lb -> a/b");
	snprintf(want, sizeof(want), "%s/rp/a/b", pvfs);
	check(chdir("lb") == 0 && getcwd(got, sizeof(got)) != NULL &&
	    strcmp(got, want) == 0, "getcwd after chdir through a link: physical");
	snprintf(want, sizeof(want), "%s/rp/a", pvfs);
	check(chdir("..") == 0 && getcwd(got, sizeof(got)) != NULL &&
	    strcmp(got, want) == 0, "... and \"..\" climbs from there");
	snprintf(p, sizeof(p), "%s/rp/lb/..", pvfs);
	rp = realpath(p, NULL);
	check(rp != NULL && strcmp(rp, want) == 0, "realpath(rp/lb/..) = rp/a");
	free(rp);
	snprintf(p, sizeof(p), "%s/rp", pvfs);
	if ((d = opendir(p)) != NULL) {
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, "lb") == 0)
				lnk = de->d_type == DT_LNK;
		closedir(d);
	}
	check(lnk, "readdir: a link is DT_LNK");
	snprintf(p, sizeof(p), "%s/rp/dang", pvfs);
	check(symlink("nowhere", p) == 0 &&
	    faccessat(AT_FDCWD, p, W_OK, AT_SYMLINK_NOFOLLOW) == 0,
	    "faccessat(AT_SYMLINK_NOFOLLOW) of a dangling link: the link, 0");
	errno = 0;
	check(faccessat(AT_FDCWD, p, F_OK, 0) < 0 && errno == ENOENT,
	    "... and following it: ENOENT");
	if (chdir("/") != 0)
		abort();
}

/* The native API answers a link out of PVFS as it answers a local path
 * (ENOENT); the link itself is there. */
static void
native_escape(const char *pvfs)
{
	char p[PATH_MAX + 16];
	struct stat st;

	snprintf(p, sizeof(p), "%s/escape", pvfs);
	check(pvfs_symlink("/dev/null", p) == 0, "native: escape -> /dev/null");
	errno = 0;
	check(pvfs_stat(p, &st) != 0 && errno == ENOENT,
	    "native: stat through a link out of PVFS: ENOENT");
	check(pvfs_lstat(p, &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 9,
	    "native: lstat of it: a link of 9 bytes");
}

static int
libc_side(const char *local, const char *pvfs)
{
	char ld[PATH_MAX];

	snprintf(ld, sizeof(ld), "%s/shim", local);
	if (mkdir(ld, 0755) != 0 || mkdir(pvfs, 0755) != 0) {
		printf("not ok - shim: %s, %s: %s\n", ld, pvfs, strerror(errno));
		return 1;
	}
	compare(&libc_ops, ld, pvfs, 0);
	compare(&libc_ops, ld, pvfs, 1);
	long_relative(pvfs);
	sockets_and_copies(ld, pvfs);
	splices(pvfs);
	compare_times(&libc_ops, ld, pvfs);
	compare_special(&libc_ops, ld, pvfs);
	fifo_and_socket(ld, pvfs);
	links_resolved(pvfs);
	printf("%s: %d compared, %d failed\n", on_mount ? "mount" : "shim", ran,
	    failures);
	return failures != 0;
}

/* The libc side again, on a pvfs-fuse mount of the same file system (no
 * shim): the suite through the mount.  Skipped where pvfs-fuse is not
 * built or FUSE cannot be mounted; allow_other (root only) lets the
 * non-root cases' children in. */
static int
mount_side(struct cluster *c, const char *self, const char *local)
{
	const char *b = getenv("PVFS_BUILDDIR");
	char fuse[PATH_MAX], mnt[PATH_MAX + 16], ld[PATH_MAX + 16];
	char dir[PATH_MAX + 32];
	char cmd[4 * PATH_MAX + 128];
	int rc, st;
	pid_t pid;

	snprintf(fuse, sizeof(fuse), "%s/pvfs-fuse", b ? b : ".");
	if (access(fuse, X_OK) != 0 || access("/dev/fuse", R_OK | W_OK) != 0 ||
	    geteuid() != 0) {
		printf("# mount side skipped: no pvfs-fuse, /dev/fuse or root\n");
		return 0;
	}
	snprintf(mnt, sizeof(mnt), "%s/mnt", local);
	snprintf(ld, sizeof(ld), "%s/mount-local", local);
	if (mkdir(mnt, 0755) != 0 || mkdir(ld, 0755) != 0)
		return 1;
	snprintf(cmd, sizeof(cmd), "'%s' '%s' -o allow_other", fuse, mnt);
	if (system(cmd) != 0) {
		printf("not ok - mount side: %s failed\n", cmd);
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s/mount", mnt);
	if ((pid = fork()) == 0) {
		unsetenv("LD_PRELOAD");
		execl("/proc/self/exe", self, "--mount", ld, dir, (char *)NULL);
		_exit(127);
	}
	rc = pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0;
	if (rc)
		printf("not ok - the mount side failed\n");
	snprintf(cmd, sizeof(cmd), "fusermount3 -u '%s' || umount -l '%s'", mnt,
	    mnt);
	if (system(cmd) != 0)
		rc = 1;
	(void)c;
	return rc;
}

int
main(int argc, char **argv)
{
	static struct cluster c;
	char local[PATH_MAX], pvfs[PATH_MAX], shim[PATH_MAX], cmd[3 * PATH_MAX];
	const char *b = getenv("PVFS_BUILDDIR"), *tmp = getenv("TMPDIR");
	int rc, st;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "--libc") == 0)
		return libc_side(argv[2], argv[3]);
	if (argc == 4 && strcmp(argv[1], "--mount") == 0) {
		on_mount = 1;
		return libc_side(argv[2], argv[3]);
	}
	snprintf(local, sizeof(local), "%s/pvfs-posix.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(local) == NULL || cluster_start(&c, 2) != 0)
		return 1;
	/* The non-root cases' children must reach the local tree and the
	 * daemons' sockets (or they would act as an anonymous TCP client). */
	if (chmod(local, 0755) != 0 || chmod(c.dir, 0711) != 0) {
		printf("not ok - chmod %s, %s: %s\n", local, c.dir, strerror(errno));
		return cluster_finish(&c, 1);
	}
	if (pvfs_mkdir(cluster_path(&c, "native", pvfs), 0755) != 0) {
		printf("not ok - %s: %s\n", pvfs, strerror(errno));
		return cluster_finish(&c, 1);
	}
	compare(&native_ops, local, pvfs, 0);
	umask(022);
	compare_times(&native_ops, local, pvfs);
	compare_special(&native_ops, local, pvfs);
	replayed(&c, pvfs);
	native_escape(pvfs);
	printf("native: %d compared, %d failed\n", ran, failures);
	rc = failures != 0;
	snprintf(shim, sizeof(shim), "%s/.libs/libpvfs-preload.so", b ? b : ".");
	if (access(shim, R_OK) != 0) {
		printf("# shim side skipped: %s is not built\n", shim);
	} else if ((pid = fork()) == 0) {
		/* In an ASan build this program is instrumented and the shim
		 * comes first; the shim wraps no allocator, so ASan's order
		 * check can be waived. */
		const char *ao = getenv("ASAN_OPTIONS");

		snprintf(cmd, sizeof(cmd), "%s%sverify_asan_link_order=0",
		    ao != NULL ? ao : "", ao != NULL && *ao != '\0' ? ":" : "");
		setenv("ASAN_OPTIONS", cmd, 1);
		setenv("LD_PRELOAD", shim, 1);
		setenv("PVFS_PRELOAD_LOCKDIR", local, 1);
		execl("/proc/self/exe", argv[0], "--libc", local,
		    cluster_path(&c, "shim", pvfs), (char *)NULL);
		_exit(127);
	} else if (pid < 0 || waitpid(pid, &st, 0) != pid ||
	    !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("not ok - the shim side failed\n");
		rc = 1;
	}
	if (mount_side(&c, argv[0], local) != 0)
		rc = 1;
	cluster_stop(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", local);
	if (system(cmd) != 0)
		rc = 1;
	return cluster_finish(&c, rc);
}
