/*
 * posix-times.c - the differential suite's times, mode bits and special
 * files (see test_paths.c): which of atime, mtime and ctime each call
 * changes and the set-id bits it clears, as a non-root caller too;
 * mknod and mkfifo of every type; a FIFO and a socket through the shim;
 * special files after a mgr restart.
 */
#include "posix.h"

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

void
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

void
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
void
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
void
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
