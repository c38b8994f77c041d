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
 *
 * The rows and the sides are here; posix-times.c holds the times, mode
 * bits and special files, posix-extra.c the checks beyond a row.
 */
#include "posix.h"

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

const struct ops libc_ops = { "libc", 0, mkdir, rmdir, unlink, rename,
	libc_open, close, stat, access, truncate, chmod, write, pwrite, ftruncate,
	chown, utimes, mknod, symlink, readlink, lstat, lchown, link };
const struct ops native_ops = { "native", 1, pvfs_mkdir, pvfs_rmdir,
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

int failures, ran;
int on_mount;

void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stdout, fmt, ap);
	va_end(ap);
	failures++;
}

const char *
join(char *buf, size_t len, const char *dir, const char *rel)
{
	if (rel == NULL || rel == BAD_PTR || dir == NULL)
		return rel;
	snprintf(buf, len, "%s/%s", dir, rel);
	return buf;
}

void
check(int ok, const char *what)
{
	ran++;
	if (ok)
		printf("ok - %s\n", what);
	else
		fail("not ok - %s (%s)\n", what, strerrorname_np(errno));
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
int
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
