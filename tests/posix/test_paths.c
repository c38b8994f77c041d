/*
 * test_paths.c - the differential suite's path rows (doc/api.md, issue
 * 14): each call runs on a fresh tree in a local temp directory and on a
 * fresh tree in PVFS, and the return value, errno and the tree left
 * behind must be the same.  The PVFS side runs through the native API
 * (absolute paths) and, in a child started with LD_PRELOAD, through the
 * shim (absolute paths, then relative ones under a virtual cwd).
 *
 *   test_paths                       start a file system, run both sides
 *   test_paths --libc LOCAL PVFSDIR  the shim's side (run preloaded)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pvfs.h"
#include "../integration/cluster.h"

#define BAD_PTR ((const char *)1)   /* an unmapped path: libc sides only */

enum op { MKDIR, RMDIR, UNLINK, RENAME, OPEN, STAT, ACCESS, TRUNC, CHMOD,
	LINK };

struct tcase {
	enum op op;
	const char *a, *b;   /* relative to the case directory; NULL, BAD_PTR */
	int flags;           /* open's; PRE_LINK: link f to h before the call */
};
#define PRE_LINK 0x40000000

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
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Names whose kind is compared after each call. */
static const char *const watch[] = { "d", "d/s", "d/s/g", "e", "f", "x",
	"n", "n2", "e/x", "d/s/g/x", "h", "d/s/h" };
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
	int (*link)(const char *, const char *);
	ssize_t (*write)(int, const void *, size_t);
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
	libc_open, close, stat, access, truncate, chmod, link, write };
static const struct ops native_ops = { "native", 1, pvfs_mkdir, pvfs_rmdir,
	pvfs_unlink, pvfs_rename, native_open, pvfs_close, pvfs_stat,
	pvfs_access, pvfs_truncate, pvfs_chmod, pvfs_link, pvfs_write };

/* Per watched name: its kind, link count and (files) size. */
struct result {
	int rc, err;
	char kinds[NWATCH * 32];
};

static int failures, ran;

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

/* The tree every case starts from: d/ d/s/ d/s/g e/ f ("hello"). */
static int
make_tree(const struct ops *o, const char *dir)
{
	char p[PATH_MAX];
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
	return 0;
}

/* Run case t in dir (absolute) or, with dir NULL, relative to the cwd. */
static void
run_case(const struct ops *o, const struct tcase *t, const char *dir,
    struct result *r)
{
	char pa[PATH_MAX], pb[PATH_MAX];
	const char *a = join(pa, sizeof(pa), dir, t->a);
	const char *b = join(pb, sizeof(pb), dir, t->b);
	char pf[PATH_MAX], ph[PATH_MAX];
	struct stat st;
	size_t i, n;

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
		r->rc = o->open(a, t->flags, 0644);
		if (r->rc >= 0) {
			o->close(r->rc);
			r->rc = 0;
		}
		break;
	case STAT: r->rc = o->stat(a, &st); break;
	case ACCESS: r->rc = o->access(a, F_OK); break;
	case TRUNC: r->rc = o->truncate(a, 0); break;
	case CHMOD: r->rc = o->chmod(a, 0644); break;
	case LINK: r->rc = o->link(a, b); break;
	}
	r->err = r->rc < 0 ? errno : 0;
	for (i = n = 0; i < NWATCH; i++) {
		const char *w = dir ? join(pa, sizeof(pa), dir, watch[i]) : watch[i];

		if (o->stat(w, &st) != 0)
			n += (size_t)snprintf(r->kinds + n, sizeof(r->kinds) - n, "- ");
		else if (S_ISDIR(st.st_mode))
			n += (size_t)snprintf(r->kinds + n, sizeof(r->kinds) - n,
			    "d%lu ", (unsigned long)st.st_nlink);
		else
			n += (size_t)snprintf(r->kinds + n, sizeof(r->kinds) - n,
			    "f%lu:%lld ", (unsigned long)st.st_nlink,
			    (long long)st.st_size);
	}
}

static const char *
opname(enum op op)
{
	static const char *const n[] = { "mkdir", "rmdir", "unlink", "rename",
		"open", "stat", "access", "truncate", "chmod", "link" };

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
	for (i = 0; i < NCASES; i++) {
		const struct tcase *t = &cases[i];

		if (o->native && (t->a == BAD_PTR || t->b == BAD_PTR))
			continue; /* the native API checks NULL only */
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
		    strcmp(lr.kinds, pr.kinds) != 0)
			fail("not ok - %s: %s(%s%s%s): local %d %s [%s], "
			    "pvfs %d %s [%s]\n", tag, opname(t->op), show(t->a),
			    t->b || t->op == RENAME || t->op == LINK ? ", " : "",
			    t->op == RENAME || t->op == LINK ? show(t->b) : "",
			    lr.rc, lr.err ? strerrorname_np(lr.err) : "-", lr.kinds,
			    pr.rc, pr.err ? strerrorname_np(pr.err) : "-", pr.kinds);
		else
			printf("ok - %s: %s(%s%s%s)%s = %d %s\n", tag, opname(t->op),
			    show(t->a), t->op == RENAME || t->op == LINK ? ", " : "",
			    t->op == RENAME || t->op == LINK ? show(t->b) : "",
			    (t->flags & PRE_LINK) ? " after link(f, h)" : "", lr.rc,
			    lr.err ? strerrorname_np(lr.err) : "");
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

/* A relative AF_UNIX name under a virtual cwd is refused (EPERM: PVFS has
 * no socket nodes), never bound in the kernel's unrelated cwd; and
 * copy_file_range and sendfile move bytes between PVFS and local files. */
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
	errno = 0;
	check(bind(s, (struct sockaddr *)&un, sizeof(un)) < 0 && errno == EPERM,
	    "bind(\"sock\") under a PVFS cwd: EPERM");
	check(stat("/sock", &st) != 0, "... nothing bound in the kernel's cwd");
	errno = 0;
	check(connect(s, (struct sockaddr *)&un, sizeof(un)) < 0 &&
	    errno == ENOENT, "connect(\"sock\") under a PVFS cwd: ENOENT");
	close(s);
	if (chdir("/") != 0)
		abort();
	snprintf(lf, sizeof(lf), "%s/copy-src", local);
	snprintf(pf, sizeof(pf), "%s/copy-dst", pvfs);
	in = open(lf, O_CREAT | O_RDWR | O_TRUNC, 0644);
	check(in >= 0 && write(in, "0123456789", 10) == 10, "local source");
	out = open(pf, O_CREAT | O_RDWR | O_TRUNC, 0644);
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
	printf("shim: %d compared, %d failed\n", ran, failures);
	return failures != 0;
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
	snprintf(local, sizeof(local), "%s/pvfs-posix.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(local) == NULL || cluster_start(&c, 2) != 0)
		return 1;
	if (pvfs_mkdir(cluster_path(&c, "native", pvfs), 0755) != 0) {
		printf("not ok - %s: %s\n", pvfs, strerror(errno));
		return cluster_finish(&c, 1);
	}
	compare(&native_ops, local, pvfs, 0);
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
	cluster_stop(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", local);
	if (system(cmd) != 0)
		rc = 1;
	return cluster_finish(&c, rc);
}
