/*
 * test_perms.c - permission checks against the local kernel, differentially.
 *
 * The same fixtures (directories and files over a matrix of owners, groups,
 * modes and sticky bits) are built in a local temp dir and in PVFS.  Then a
 * child per identity (owner, group member through a supplementary group,
 * stranger, root) drops to that identity with setgroups/setresgid/setresuid
 * BEFORE its first PVFS call, so every connection it makes is its own, and
 * runs the same operations on both trees.  Each operation's return value
 * and errno must agree, and so must the resulting trees (existence, mode,
 * owner, group, size).  Needs root; skips (77) otherwise.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"

/* ---- identities and fixtures ---- */

struct ident {
	const char *name;
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t groups[2];
};

/* Every fixture object is in group 1001, U1's primary group. */
#define U1 1001
#define U2 1002
#define U3 1003
#define GRP 1001
static const struct ident idents[] = {
	{ "owner", U1, U1, 1, { U1 } },
	{ "member", U2, U2, 2, { U2, GRP } }, /* in GRP as a supplementary */
	{ "stranger", U3, U3, 1, { U3 } },
	{ "root", 0, 0, 1, { 0 } },
};
#define NIDENTS (sizeof(idents) / sizeof(idents[0]))

struct owned {
	uid_t uid;
	mode_t mode;
};
/* The directory d the operations work in (e, the other end of renames,
 * is root's, 0777). */
static const struct owned dcfgs[] = {
	{ U1, 0755 }, { U1, 0775 }, { U1, 0730 }, { U1, 0500 }, { U1, 0300 },
	{ U1, 0644 }, { U1, 0711 }, { U1, 01770 }, { U2, 01777 }, { 0, 01777 },
	{ 0, 0777 }, { U1, 02775 },
};
/* The files (and, with x added, the subdirectories) in d. */
static const struct owned fcfgs[] = {
	{ U1, 0644 }, { U1, 0600 }, { U1, 0460 }, { U2, 0640 }, { U1, 06755 },
	{ U2, 0000 },
};
#define NDCFG (sizeof(dcfgs) / sizeof(dcfgs[0]))
#define NFCFG (sizeof(fcfgs) / sizeof(fcfgs[0]))
#define NFIX (NIDENTS * NDCFG * NFCFG)

static const char *const d_files[] = {
	"d/f", "d/f_chmod", "d/f_chown", "d/f_give", "d/f_unlink", "d/f_ren",
	"d/f_mv", "d/f_over", "d/f_victim",
};
static const char *const d_dirs[] = { "d/s_rm", "d/s_mv", "d/s_keep" };
/* Paths whose state is compared after the operations. */
static const char *const outcome[] = {
	"d", "d/f", "d/f_chmod", "d/f_chown", "d/f_give", "d/f_unlink",
	"d/f_ren", "d/f_ren2", "d/f_mv", "e/f_mv", "d/f_over", "e/t",
	"d/f_victim", "e/src", "e/src2", "d/fresh", "d/s_rm", "d/s_mv",
	"e/s_mv", "d/s_keep", "d/new", "d/newdir",
};
#define NOUTCOME (sizeof(outcome) / sizeof(outcome[0]))

/* ---- the two file systems behind one interface ---- */

struct fsys {
	const char *name;
	int (*open)(const char *, int, ...);
	int (*close)(int);
	int (*stat)(const char *, struct stat *);
	int (*access)(const char *, int);
	int (*truncate)(const char *, off_t);
	int (*utimes)(const char *, const struct timeval[2]);
	int (*mkdir)(const char *, mode_t);
	int (*rmdir)(const char *);
	int (*unlink)(const char *);
	int (*rename)(const char *, const char *);
	int (*chmod)(const char *, mode_t);
	int (*chown)(const char *, uid_t, gid_t);
	int (*fstat)(int, struct stat *);
	int (*fchmod)(int, mode_t);
	int (*count)(const char *); /* entries but . and .., or -1 */
};

static int
local_count(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

static int
pvfs_count(const char *path)
{
	PVFS_DIR *d = pvfs_opendir(path);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = pvfs_readdir(d)) != NULL)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	pvfs_closedir(d);
	return n;
}

static const struct fsys local_fs = {
	"local", open, close, stat, access, truncate, utimes, mkdir, rmdir,
	unlink, rename, chmod, chown, fstat, fchmod, local_count,
};
static const struct fsys pvfs_fs = {
	"pvfs", pvfs_open, pvfs_close, pvfs_stat, pvfs_access, pvfs_truncate,
	pvfs_utimes, pvfs_mkdir, pvfs_rmdir, pvfs_unlink, pvfs_rename,
	pvfs_chmod, pvfs_chown, pvfs_fstat, pvfs_fchmod, pvfs_count,
};

/* ---- the operations ---- */

enum op_kind {
	OP_STAT, OP_ACCESS, OP_OPEN, OP_TRUNC, OP_UTIMES_NOW, OP_UTIMES_SET,
	OP_COUNT, OP_MKDIR, OP_RMDIR, OP_UNLINK, OP_RENAME, OP_CHMOD, OP_CHOWN,
	OP_FSTAT, OP_FCHMOD, /* on a descriptor opened O_RDONLY */
};
#define SELF ((uid_t)-2) /* chown to the caller's own uid */

struct op {
	enum op_kind kind;
	const char *a, *b;
	int arg;            /* open flags, access mode, chmod mode */
	uid_t uid;
	gid_t gid;
};

/* In order: what does not change the tree first, then one object per
 * change, so that each case meets the fixture it was designed for. */
static const struct op ops[] = {
	{ OP_STAT, "d/f", NULL, 0, 0, 0 },
	{ OP_STAT, "d/s_keep/none", NULL, 0, 0, 0 },
	{ OP_ACCESS, "d/f", NULL, R_OK, 0, 0 },
	{ OP_ACCESS, "d/f", NULL, W_OK, 0, 0 },
	{ OP_ACCESS, "d/f", NULL, X_OK, 0, 0 },
	{ OP_ACCESS, "d/f", NULL, F_OK, 0, 0 },
	{ OP_ACCESS, "d", NULL, W_OK | X_OK, 0, 0 },
	{ OP_ACCESS, "d/s_keep", NULL, R_OK | X_OK, 0, 0 },
	{ OP_OPEN, "d/f", NULL, O_RDONLY, 0, 0 },
	{ OP_OPEN, "d/f", NULL, O_WRONLY, 0, 0 },
	{ OP_OPEN, "d/f", NULL, O_RDWR, 0, 0 },
	{ OP_OPEN, "d/f", NULL, O_CREAT | O_EXCL | O_WRONLY, 0, 0 },
	{ OP_OPEN, "d/s_keep", NULL, O_RDONLY | O_DIRECTORY, 0, 0 },
	{ OP_OPEN, "d/s_keep", NULL, O_WRONLY, 0, 0 },
	{ OP_COUNT, "d", NULL, 0, 0, 0 },
	{ OP_COUNT, "d/s_keep", NULL, 0, 0, 0 },
	{ OP_UTIMES_NOW, "d/f", NULL, 0, 0, 0 },
	{ OP_UTIMES_SET, "d/f", NULL, 0, 0, 0 },
	{ OP_OPEN, "d/f", NULL, O_WRONLY | O_TRUNC, 0, 0 },
	{ OP_TRUNC, "d/f", NULL, 0, 0, 0 },
	{ OP_OPEN, "d/new", NULL, O_CREAT | O_WRONLY, 0, 0 },
	{ OP_MKDIR, "d/newdir", NULL, 0, 0, 0 },
	{ OP_MKDIR, "d/s_keep", NULL, 0, 0, 0 },
	{ OP_CHMOD, "d/f_chmod", NULL, 0640, 0, 0 },
	{ OP_CHMOD, "d/f_chmod", NULL, 02755, 0, 0 },
	{ OP_FSTAT, "d/f_chmod", NULL, 0, 0, 0 },
	{ OP_FCHMOD, "d/f_chmod", NULL, 0604, 0, 0 },
	{ OP_CHOWN, "d/f_chown", NULL, 0, SELF, (gid_t)-1 },
	{ OP_CHOWN, "d/f_chown", NULL, 0, (uid_t)-1, GRP },
	{ OP_CHOWN, "d/f_chown", NULL, 0, (uid_t)-1, U3 },
	{ OP_CHOWN, "d/f_give", NULL, 0, U2, (gid_t)-1 },
	{ OP_UNLINK, "d/s_rm", NULL, 0, 0, 0 },
	{ OP_RMDIR, "d/f", NULL, 0, 0, 0 },
	{ OP_UNLINK, "d/f_unlink", NULL, 0, 0, 0 },
	{ OP_RMDIR, "d/s_rm", NULL, 0, 0, 0 },
	{ OP_RENAME, "d/f_ren", "d/f_ren2", 0, 0, 0 },
	{ OP_RENAME, "d/f_mv", "e/f_mv", 0, 0, 0 },
	{ OP_RENAME, "d/f_over", "e/t", 0, 0, 0 },
	{ OP_RENAME, "e/src", "d/f_victim", 0, 0, 0 },
	{ OP_RENAME, "e/src2", "d/fresh", 0, 0, 0 },
	{ OP_RENAME, "d/s_mv", "e/s_mv", 0, 0, 0 },
	{ OP_RENAME, "d/f", "d/s_keep", 0, 0, 0 },
	{ OP_RENAME, "d/s_keep", "d/f", 0, 0, 0 },
};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static const char *const kind_names[] = {
	"stat", "access", "open", "truncate", "utimes(NULL)", "utimes(t)",
	"readdir", "mkdir", "rmdir", "unlink", "rename", "chmod", "chown",
	"open+fstat", "open+fchmod",
};

struct result {
	int32_t ret, err; /* 0 or -1 (readdir: the count), errno */
};

static struct cluster c;
static char local_root[PATH_MAX];
static unsigned long ncases;

static void
join(char *buf, const char *root, size_t fix, const char *rel)
{
	if (snprintf(buf, PATH_MAX, "%s/c%zu/%s", root, fix, rel) >= PATH_MAX)
		abort(); /* roots are short temp paths */
}

static int
op_on_fd(const struct fsys *fs, const char *a, const struct op *o)
{
	struct stat st;
	int fd, rc, e;

	if ((fd = fs->open(a, O_RDONLY)) < 0)
		return -1;
	rc = o->kind == OP_FSTAT ? fs->fstat(fd, &st) :
	    fs->fchmod(fd, (mode_t)o->arg);
	e = errno;
	fs->close(fd);
	errno = e;
	return rc;
}

/* Run op on one side; only plain calls here: this runs in the child. */
static int
op_run(const struct fsys *fs, const char *a, const char *b,
    const struct op *o)
{
	struct timeval tv[2] = { { 1000000, 0 }, { 2000000, 0 } };
	int fd;

	switch (o->kind) {
	case OP_STAT: {
		struct stat st;
		return fs->stat(a, &st);
	}
	case OP_ACCESS: return fs->access(a, o->arg);
	case OP_OPEN:
		if ((fd = fs->open(a, o->arg, 0644)) < 0)
			return -1;
		return fs->close(fd);
	case OP_TRUNC: return fs->truncate(a, 10);
	case OP_UTIMES_NOW: return fs->utimes(a, NULL);
	case OP_UTIMES_SET: return fs->utimes(a, tv);
	case OP_COUNT: return fs->count(a);
	case OP_MKDIR: return fs->mkdir(a, 0755);
	case OP_RMDIR: return fs->rmdir(a);
	case OP_UNLINK: return fs->unlink(a);
	case OP_RENAME: return fs->rename(a, b);
	case OP_CHMOD: return fs->chmod(a, (mode_t)o->arg);
	case OP_CHOWN:
		return fs->chown(a, o->uid == SELF ? getuid() : o->uid, o->gid);
	case OP_FSTAT:
	case OP_FCHMOD:
		return op_on_fd(fs, a, o);
	}
	errno = EINVAL;
	return -1;
}

static struct result
op_side(const struct fsys *fs, const char *root, size_t fix,
    const struct op *o)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct result r;

	join(a, root, fix, o->a);
	join(b, root, fix, o->b != NULL ? o->b : "");
	errno = 0;
	r.ret = op_run(fs, a, b, o);
	r.err = r.ret == -1 ? errno : 0;
	return r;
}

/* ---- building the fixtures (as root, in the parent) ---- */

/* Fixture numbers: an identity's NDCFG * NFCFG fixtures are in a row. */
#define PER_IDENT (NDCFG * NFCFG)
static size_t
fix_index(size_t id, size_t dc, size_t fc)
{
	return id * PER_IDENT + dc * NFCFG + fc;
}

/* "as owner (uid 1001), d 1001:0755, files 1001:0644" */
static void
fix_describe(size_t fix, char *buf, size_t n)
{
	const struct ident *who = &idents[fix / PER_IDENT];
	const struct owned *d = &dcfgs[fix / NFCFG % NDCFG], *f = &fcfgs[fix % NFCFG];

	snprintf(buf, n, "as %s (uid %u), d %u:%04o, files %u:%04o, group %u",
	    who->name, (unsigned)who->uid, (unsigned)d->uid, (unsigned)d->mode,
	    (unsigned)f->uid, (unsigned)f->mode, GRP);
}

static int
make_obj(const struct fsys *fs, const char *path, int dir, uid_t uid,
    gid_t gid, mode_t mode)
{
	int fd;

	if (dir) {
		if (fs->mkdir(path, 0700) != 0)
			return -1;
	} else {
		if ((fd = fs->open(path, O_CREAT | O_EXCL | O_WRONLY, 0600)) < 0 ||
		    fs->close(fd) != 0)
			return -1;
	}
	/* The mode last: a chown clears set-id bits. */
	if (fs->chown(path, uid, gid) != 0 || fs->chmod(path, mode) != 0) {
		fprintf(stderr, "%s: %s: %s\n", fs->name, path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
build_fixture(const struct fsys *fs, const char *root, size_t id,
    size_t dc, size_t fc)
{
	const struct owned *dcf = &dcfgs[dc], *fcf = &fcfgs[fc];
	size_t fix = fix_index(id, dc, fc), i;
	mode_t smode = (fcf->mode | 0111) & 0777;
	uid_t me = idents[id].uid;
	char p[PATH_MAX];
	int rc = 0;

	join(p, root, fix, "");
	rc |= make_obj(fs, p, 1, 0, 0, 0755);
	join(p, root, fix, "d");
	rc |= make_obj(fs, p, 1, dcf->uid, GRP, 0777);
	join(p, root, fix, "e");
	rc |= make_obj(fs, p, 1, 0, 0, 0777);
	for (i = 0; i < sizeof(d_files) / sizeof(d_files[0]); i++) {
		join(p, root, fix, d_files[i]);
		rc |= make_obj(fs, p, 0, fcf->uid, GRP, fcf->mode);
	}
	for (i = 0; i < sizeof(d_dirs) / sizeof(d_dirs[0]); i++) {
		join(p, root, fix, d_dirs[i]);
		rc |= make_obj(fs, p, 1, fcf->uid, GRP, smode);
	}
	join(p, root, fix, "e/t");
	rc |= make_obj(fs, p, 0, fcf->uid, GRP, fcf->mode);
	join(p, root, fix, "e/src");
	rc |= make_obj(fs, p, 0, me, idents[id].gid, 0644);
	join(p, root, fix, "e/src2");
	rc |= make_obj(fs, p, 0, me, idents[id].gid, 0644);
	/* d's own mode once everything inside exists. */
	join(p, root, fix, "d");
	rc |= fs->chmod(p, dcf->mode);
	return rc != 0 ? -1 : 0;
}

/* One root child per identity builds that identity's fixtures: the mgr
 * commits concurrent requests together, so this takes a fraction of the
 * time one process would. */
static int
build_all(void)
{
	pid_t pids[NIDENTS];
	size_t id, dc, fc;
	char p[PATH_MAX];
	int status, rc = 0;

	cluster_path(&c, "perm", p);
	if (pvfs_mkdir(p, 0755) != 0)
		return -1;
	for (id = 0; id < NIDENTS; id++) {
		if ((pids[id] = fork()) != 0)
			continue;
		for (dc = 0; dc < NDCFG; dc++)
			for (fc = 0; fc < NFCFG; fc++)
				if (build_fixture(&local_fs, local_root, id, dc, fc) ||
				    build_fixture(&pvfs_fs, p, id, dc, fc))
					_exit(1);
		_exit(0);
	}
	for (id = 0; id < NIDENTS; id++) {
		if (pids[id] < 0 || waitpid(pids[id], &status, 0) != pids[id] ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = -1;
	}
	return rc;
}

/* ---- the identities' children ---- */

static int
become(const struct ident *who)
{
	if (setgroups((size_t)who->ngroups, who->groups) != 0 ||
	    setresgid(who->gid, who->gid, who->gid) != 0 ||
	    setresuid(who->uid, who->uid, who->uid) != 0)
		return -1;
	/* Dropped for good: no way back to root. */
	if (who->uid != 0 && setresuid(0, 0, 0) == 0)
		return -1;
	return 0;
}

static int
write_all(int fd, const void *p, size_t n)
{
	const char *b = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, b, n)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The child's whole life: become who, run every op of its fixtures on
 * both sides, send the results (local then pvfs per op) down the pipe. */
static void
child_run(size_t id, int out)
{
	char pvfs_root[PATH_MAX];
	struct result r[2];
	size_t fix, i;

	if (become(&idents[id]) != 0)
		_exit(3);
	cluster_path(&c, "perm", pvfs_root);
	for (fix = id * PER_IDENT; fix < (id + 1) * PER_IDENT; fix++) {
		for (i = 0; i < NOPS; i++) {
			r[0] = op_side(&local_fs, local_root, fix, &ops[i]);
			r[1] = op_side(&pvfs_fs, pvfs_root, fix, &ops[i]);
			if (write_all(out, r, sizeof(r)) != 0)
				_exit(4);
		}
	}
	_exit(0);
}

/* Read one identity's results and compare them; the number that differ. */
static int
compare_results(size_t id, int in)
{
	struct result r[2];
	char what[256];
	size_t fix, i;
	int bad = 0;

	for (fix = id * PER_IDENT; fix < (id + 1) * PER_IDENT; fix++) {
		for (i = 0; i < NOPS; i++) {
			const struct op *o = &ops[i];

			assert_int_equal(raw_read(in, r, sizeof(r)), 0);
			ncases++;
			if (r[0].ret == r[1].ret && r[0].err == r[1].err)
				continue;
			fix_describe(fix, what, sizeof(what));
			fprintf(stderr, "MISMATCH %s(%s%s%s, 0%o) %s: local %d "
			    "(%s), pvfs %d (%s)\n", kind_names[o->kind], o->a,
			    o->b ? " -> " : "", o->b ? o->b : "",
			    (unsigned)o->arg, what, r[0].ret, strerror(r[0].err),
			    r[1].ret, strerror(r[1].err));
			bad++;
		}
	}
	return bad;
}

/* Start who's child; its results come through the returned pipe. */
static int
start_ident(size_t id, pid_t *pid)
{
	int p[2];

	assert_int_equal(pipe(p), 0);
	if ((*pid = fork()) == 0) {
		close(p[0]);
		child_run(id, p[1]);
	}
	assert_true(*pid > 0);
	close(p[1]);
	return p[0];
}

/* The children run at once (each one's results fit in its pipe); read
 * them in turn. */
static int
run_idents(void)
{
	pid_t pids[NIDENTS];
	int fds[NIDENTS], status, bad = 0;
	size_t id;

	for (id = 0; id < NIDENTS; id++)
		fds[id] = start_ident(id, &pids[id]);
	for (id = 0; id < NIDENTS; id++) {
		bad += compare_results(id, fds[id]);
		close(fds[id]);
		assert_int_equal(waitpid(pids[id], &status, 0), pids[id]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			fail_msg("%s's child: status 0x%x", idents[id].name,
			    status);
	}
	return bad;
}

/* ---- the trees after the operations ---- */

static void
state_of(const struct fsys *fs, const char *path, char *buf, size_t n)
{
	struct stat st;

	if (fs->stat(path, &st) != 0) {
		snprintf(buf, n, "missing (%s)", strerror(errno));
		return;
	}
	snprintf(buf, n, "%s mode %05o uid %u gid %u size %lld",
	    S_ISDIR(st.st_mode) ? "dir" : "file", (unsigned)(st.st_mode & 07777),
	    (unsigned)st.st_uid, (unsigned)st.st_gid,
	    S_ISDIR(st.st_mode) ? 0 : (long long)st.st_size);
}

static int
compare_trees(void)
{
	char pvfs_root[PATH_MAX], a[PATH_MAX], b[PATH_MAX], sa[128], sb[128];
	char what[256];
	size_t fix, i;
	int bad = 0;

	cluster_path(&c, "perm", pvfs_root);
	for (fix = 0; fix < NFIX; fix++) {
		for (i = 0; i < NOUTCOME; i++) {
			join(a, local_root, fix, outcome[i]);
			join(b, pvfs_root, fix, outcome[i]);
			state_of(&local_fs, a, sa, sizeof(sa));
			state_of(&pvfs_fs, b, sb, sizeof(sb));
			ncases++;
			if (strcmp(sa, sb) == 0)
				continue;
			fix_describe(fix, what, sizeof(what));
			fprintf(stderr, "MISMATCH after the ops, c%zu/%s %s: "
			    "local %s, pvfs %s\n", fix, outcome[i], what, sa, sb);
			bad++;
		}
	}
	return bad;
}

static void
test_same_answers_as_the_kernel(void **state)
{
	double t0 = mono_now();
	int bad = 0;

	assert_int_equal(build_all(), 0);
	fprintf(stderr, "built %zu fixtures on both sides in %.1f s\n",
	    (size_t)NFIX, mono_now() - t0);
	bad += run_idents();
	bad += compare_trees();
	fprintf(stderr, "compared %lu cases (%zu ops x %zu fixtures, then "
	    "%zu paths each) in %.1f s: %d differ\n", ncases, (size_t)NOPS,
	    (size_t)NFIX, (size_t)NOUTCOME, mono_now() - t0, bad);
	assert_int_equal(bad, 0);
}

/* ---- setup ---- */

/* A child that takes a test identity: can this machine switch uids? */
static int
can_switch(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		_exit(become(&idents[1]) == 0 ? 0 : 1);
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int
rm_local(void)
{
	char cmd[PATH_MAX + 32];

	if (local_root[0] == '\0')
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", local_root);
	return system(cmd) == 0 ? 0 : -1;
}

static int
group_setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(local_root, sizeof(local_root), "%s/pvfs-perm.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(local_root) == NULL || chmod(local_root, 0755) != 0) {
		local_root[0] = '\0';
		return -1;
	}
	if (cluster_start(&c, 2) != 0)
		return -1;
	/* The children reach the daemons (and any socket the cluster keeps
	 * in its dir) as themselves. */
	return chmod(c.dir, 0755);
}

static int
group_teardown(void **state)
{
	int rc = cluster_stop(&c);

	return rm_local() != 0 ? -1 : rc;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_answers_as_the_kernel),
	};
	int rc;

	if (geteuid() != 0 || !can_switch()) {
		fprintf(stderr, "test_perms: needs root and setresuid; skipped\n");
		return 77;
	}
	umask(022); /* before libpvfs reads it: both sides create alike */
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return cluster_finish(&c, rc);
}
