/*
 * preload-meta.c - attributes and names: the stat, statfs, access, chmod,
 * chown and utime families, truncate, unlink, rename, mkdir, rmdir,
 * remove, links (clean errors: PVFS has none), xattrs (ENOTSUP), the
 * mkstemp family and pathconf.
 *
 * struct stat and struct stat64 (statfs, statvfs) are one layout on the
 * 64-bit targets glibc 2.36 has; the 64 names share one implementation.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <utime.h>

#include "preload.h"

_Static_assert(sizeof(struct stat) == sizeof(struct stat64), "stat layouts differ");
_Static_assert(sizeof(struct statfs) == sizeof(struct statfs64), "statfs layouts differ");
_Static_assert(sizeof(struct statvfs) == sizeof(struct statvfs64), "statvfs layouts differ");

#define PL_BUSY(expr) ({ int rc_; pl_busy++; rc_ = (expr); pl_busy--; rc_; })

int
pl_stat_abs(const char *abs, struct stat *st)
{
	return PL_BUSY(pvfs_stat(abs, st));
}

static int
pl_fstat_fd(int fd, struct stat *st)
{
	struct pl_file *f = pl_get(fd);
	int rc;

	if (f == NULL) {
		errno = EBADF;
		return -1;
	}
	rc = f->h == NULL ? (errno = EIO, -1) : PL_BUSY(pvfs_file_stat(f->h, st));
	pl_put(f);
	return rc;
}

/* ---- stat ---- */

int
stat(const char *path, struct stat *st)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? pl_stat_abs(abs, st) : REAL(stat)(PL_USE(r, path, abs), st);
}

int
stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)st);
}

int
lstat(const char *path, struct stat *st)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? pl_stat_abs(abs, st) : REAL(lstat)(PL_USE(r, path, abs), st);
}

int
lstat64(const char *path, struct stat64 *st)
{
	return lstat(path, (struct stat *)st);
}

int
fstat(int fd, struct stat *st)
{
	return pl_fd_hit(fd) ? pl_fstat_fd(fd, st) : REAL(fstat)(fd, st);
}

int
fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

int
fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char abs[PATH_MAX];
	enum pl_route r;

	if (path != NULL && path[0] == '\0' && (flags & AT_EMPTY_PATH) && pl_fd_hit(dirfd))
		return pl_fstat_fd(dirfd, st);
	r = pl_route(dirfd, path, abs);
	if (r == PL_PVFS)
		return pl_stat_abs(abs, st);
	return REAL(fstatat)(dirfd, PL_USE(r, path, abs), st, flags);
}

int
fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

int
__xstat(int ver, const char *path, struct stat *st)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? pl_stat_abs(abs, st) :
	    REAL(__xstat)(ver, PL_USE(r, path, abs), st);
}

int
__xstat64(int ver, const char *path, struct stat64 *st)
{
	return __xstat(ver, path, (struct stat *)st);
}

int
__lxstat(int ver, const char *path, struct stat *st)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? pl_stat_abs(abs, st) :
	    REAL(__lxstat)(ver, PL_USE(r, path, abs), st);
}

int
__lxstat64(int ver, const char *path, struct stat64 *st)
{
	return __lxstat(ver, path, (struct stat *)st);
}

int
__fxstat(int ver, int fd, struct stat *st)
{
	return pl_fd_hit(fd) ? pl_fstat_fd(fd, st) : REAL(__fxstat)(ver, fd, st);
}

int
__fxstat64(int ver, int fd, struct stat64 *st)
{
	return __fxstat(ver, fd, (struct stat *)st);
}

int
__fxstatat(int ver, int dirfd, const char *path, struct stat *st, int flags)
{
	char abs[PATH_MAX];
	enum pl_route r;

	if (path != NULL && path[0] == '\0' && (flags & AT_EMPTY_PATH) && pl_fd_hit(dirfd))
		return pl_fstat_fd(dirfd, st);
	r = pl_route(dirfd, path, abs);
	if (r == PL_PVFS)
		return pl_stat_abs(abs, st);
	return REAL(__fxstatat)(ver, dirfd, PL_USE(r, path, abs), st, flags);
}

int
__fxstatat64(int ver, int dirfd, const char *path, struct stat64 *st, int flags)
{
	return __fxstatat(ver, dirfd, path, (struct stat *)st, flags);
}

static struct statx_timestamp
pl_stx_ts(struct timespec ts)
{
	struct statx_timestamp t = { .tv_sec = ts.tv_sec, .tv_nsec = (uint32_t)ts.tv_nsec };

	return t;
}

static void
pl_statx_fill(const struct stat *st, struct statx *x)
{
	memset(x, 0, sizeof(*x));
	x->stx_mask = STATX_BASIC_STATS;
	x->stx_blksize = (uint32_t)st->st_blksize;
	x->stx_nlink = (uint32_t)st->st_nlink;
	x->stx_uid = st->st_uid;
	x->stx_gid = st->st_gid;
	x->stx_mode = (uint16_t)st->st_mode;
	x->stx_ino = st->st_ino;
	x->stx_size = (uint64_t)st->st_size;
	x->stx_blocks = (uint64_t)st->st_blocks;
	x->stx_atime = pl_stx_ts(st->st_atim);
	x->stx_ctime = pl_stx_ts(st->st_ctim);
	x->stx_mtime = pl_stx_ts(st->st_mtim);
	x->stx_dev_major = major(st->st_dev);
	x->stx_dev_minor = minor(st->st_dev);
}

int
statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *x)
{
	char abs[PATH_MAX];
	struct stat st;
	enum pl_route r;
	int rc;

	if (path != NULL && path[0] == '\0' && (flags & AT_EMPTY_PATH) && pl_fd_hit(dirfd)) {
		rc = pl_fstat_fd(dirfd, &st);
	} else {
		r = pl_route(dirfd, path, abs);
		if (r != PL_PVFS)
			return REAL(statx)(dirfd, PL_USE(r, path, abs), flags, mask, x);
		rc = pl_stat_abs(abs, &st);
	}
	if (rc == 0)
		pl_statx_fill(&st, x);
	return rc;
}

/* ---- statfs ---- */

static int
pl_statfs_abs(const char *abs, struct statfs *b)
{
	return PL_BUSY(pvfs_statfs(abs, b));
}

static int
pl_fstatfs_fd(int fd, struct statfs *b)
{
	struct pl_file *f = pl_get(fd);
	char root[PATH_MAX];

	if (f == NULL) {
		errno = EBADF;
		return -1;
	}
	pl_path_root(f->path, root, sizeof(root));
	pl_put(f);
	return pl_statfs_abs(root, b);
}

static void
pl_statvfs_fill(const struct statfs *s, struct statvfs *v)
{
	memset(v, 0, sizeof(*v));
	v->f_bsize = (unsigned long)s->f_bsize;
	v->f_frsize = (unsigned long)(s->f_frsize ? s->f_frsize : s->f_bsize);
	v->f_blocks = s->f_blocks;
	v->f_bfree = s->f_bfree;
	v->f_bavail = s->f_bavail;
	v->f_files = s->f_files;
	v->f_ffree = s->f_ffree;
	v->f_favail = s->f_ffree;
	memcpy(&v->f_fsid, &s->f_fsid, sizeof(v->f_fsid) < sizeof(s->f_fsid) ?
	    sizeof(v->f_fsid) : sizeof(s->f_fsid));
	v->f_namemax = (unsigned long)s->f_namelen;
}

int
statfs(const char *path, struct statfs *b)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? pl_statfs_abs(abs, b) : REAL(statfs)(PL_USE(r, path, abs), b);
}

int
statfs64(const char *path, struct statfs64 *b)
{
	return statfs(path, (struct statfs *)b);
}

int
fstatfs(int fd, struct statfs *b)
{
	return pl_fd_hit(fd) ? pl_fstatfs_fd(fd, b) : REAL(fstatfs)(fd, b);
}

int
fstatfs64(int fd, struct statfs64 *b)
{
	return fstatfs(fd, (struct statfs *)b);
}

int
statvfs(const char *path, struct statvfs *v)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	struct statfs s;

	if (r != PL_PVFS)
		return REAL(statvfs)(PL_USE(r, path, abs), v);
	if (pl_statfs_abs(abs, &s) != 0)
		return -1;
	pl_statvfs_fill(&s, v);
	return 0;
}

int
statvfs64(const char *path, struct statvfs64 *v)
{
	return statvfs(path, (struct statvfs *)v);
}

int
fstatvfs(int fd, struct statvfs *v)
{
	struct statfs s;

	if (!pl_fd_hit(fd))
		return REAL(fstatvfs)(fd, v);
	if (pl_fstatfs_fd(fd, &s) != 0)
		return -1;
	pl_statvfs_fill(&s, v);
	return 0;
}

int
fstatvfs64(int fd, struct statvfs64 *v)
{
	return fstatvfs(fd, (struct statvfs *)v);
}

/* ---- access ---- */

int
access(const char *path, int mode)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? PL_BUSY(pvfs_access(abs, mode)) :
	    REAL(access)(PL_USE(r, path, abs), mode);
}

int
faccessat(int dirfd, const char *path, int mode, int flags)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	return r == PL_PVFS ? PL_BUSY(pvfs_access(abs, mode)) :
	    REAL(faccessat)(dirfd, PL_USE(r, path, abs), mode, flags);
}

int
euidaccess(const char *path, int mode)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? PL_BUSY(pvfs_access(abs, mode)) :
	    REAL(euidaccess)(PL_USE(r, path, abs), mode);
}

int
eaccess(const char *path, int mode)
{
	return euidaccess(path, mode);
}

/* ---- chmod, chown, times ---- */

static int
pl_fsetattr(int fd, struct pvfs_setattr *req)
{
	struct pl_file *f = pl_get(fd);
	int rc;

	if (f == NULL) {
		errno = EBADF;
		return -1;
	}
	rc = f->h == NULL ? (errno = EIO, -1) : PL_BUSY(pvfs_file_setattr(f->h, req));
	pl_put(f);
	return rc;
}

static void
pl_req_mode(struct pvfs_setattr *req, mode_t mode)
{
	memset(req, 0, sizeof(*req));
	req->mask = PVFS_SET_MODE;
	req->mode = mode & 07777;
}

static void
pl_req_owner(struct pvfs_setattr *req, uid_t uid, gid_t gid)
{
	memset(req, 0, sizeof(*req));
	if (uid != (uid_t)-1) {
		req->mask |= PVFS_SET_UID;
		req->uid = uid;
	}
	if (gid != (gid_t)-1) {
		req->mask |= PVFS_SET_GID;
		req->gid = gid;
	}
}

/* -1/EINVAL for a bad timespec; UTIME_OMIT leaves a time alone. */
static int
pl_req_times(struct pvfs_setattr *req, const struct timespec ts[2])
{
	int i;

	memset(req, 0, sizeof(*req));
	if (ts == NULL) {
		req->mask = PVFS_SET_ATIME_NOW | PVFS_SET_MTIME_NOW;
		return 0;
	}
	for (i = 0; i < 2; i++) {
		if (ts[i].tv_nsec == UTIME_OMIT)
			continue;
		if (ts[i].tv_nsec == UTIME_NOW) {
			req->mask |= i ? PVFS_SET_MTIME_NOW : PVFS_SET_ATIME_NOW;
			continue;
		}
		if (ts[i].tv_nsec < 0 || ts[i].tv_nsec >= 1000000000) {
			errno = EINVAL;
			return -1;
		}
		req->mask |= i ? PVFS_SET_MTIME : PVFS_SET_ATIME;
		*(i ? &req->mtime : &req->atime) = ts[i];
	}
	return 0;
}

static int
pl_setattr_abs(const char *abs, struct pvfs_setattr *req)
{
	if (req->mask == 0)
		return pl_stat_abs(abs, &(struct stat){ 0 });
	return PL_BUSY(pvfs_path_setattr(abs, req));
}

int
chmod(const char *path, mode_t mode)
{
	struct pvfs_setattr req;
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(chmod)(PL_USE(r, path, abs), mode);
	pl_req_mode(&req, mode);
	return pl_setattr_abs(abs, &req);
}

int
fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	struct pvfs_setattr req;
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	if (r != PL_PVFS)
		return REAL(fchmodat)(dirfd, PL_USE(r, path, abs), mode, flags);
	pl_req_mode(&req, mode);
	return pl_setattr_abs(abs, &req);
}

int
fchmod(int fd, mode_t mode)
{
	struct pvfs_setattr req;

	if (!pl_fd_hit(fd))
		return REAL(fchmod)(fd, mode);
	pl_req_mode(&req, mode);
	return pl_fsetattr(fd, &req);
}

static int
pl_chown_at(int dirfd, const char *path, uid_t uid, gid_t gid, int flags,
    int which)
{
	struct pvfs_setattr req;
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);

	if (r != PL_PVFS)
		return which == 0 ? REAL(chown)(use, uid, gid) :
		    which == 1 ? REAL(lchown)(use, uid, gid) :
		    REAL(fchownat)(dirfd, use, uid, gid, flags);
	pl_req_owner(&req, uid, gid);
	return pl_setattr_abs(abs, &req);
}

int
chown(const char *path, uid_t uid, gid_t gid)
{
	return pl_chown_at(AT_FDCWD, path, uid, gid, 0, 0);
}

int
lchown(const char *path, uid_t uid, gid_t gid)
{
	return pl_chown_at(AT_FDCWD, path, uid, gid, 0, 1);
}

int
fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	if (path != NULL && path[0] == '\0' && (flags & AT_EMPTY_PATH) && pl_fd_hit(dirfd))
		return fchown(dirfd, uid, gid);
	return pl_chown_at(dirfd, path, uid, gid, flags, 2);
}

int
fchown(int fd, uid_t uid, gid_t gid)
{
	struct pvfs_setattr req;

	if (!pl_fd_hit(fd))
		return REAL(fchown)(fd, uid, gid);
	pl_req_owner(&req, uid, gid);
	return pl_fsetattr(fd, &req);
}

int
utimensat(int dirfd, const char *path, const struct timespec ts[2], int flags)
{
	struct pvfs_setattr req;
	char abs[PATH_MAX];
	enum pl_route r;

	if (path == NULL && pl_fd_hit(dirfd))
		return futimens(dirfd, ts);
	r = pl_route(dirfd, path, abs);
	if (r != PL_PVFS)
		return REAL(utimensat)(dirfd, PL_USE(r, path, abs), ts, flags);
	if (pl_req_times(&req, ts) != 0)
		return -1;
	return pl_setattr_abs(abs, &req);
}

int
futimens(int fd, const struct timespec ts[2])
{
	struct pvfs_setattr req;

	if (!pl_fd_hit(fd))
		return REAL(futimens)(fd, ts);
	if (pl_req_times(&req, ts) != 0)
		return -1;
	return req.mask == 0 ? 0 : pl_fsetattr(fd, &req);
}

static const struct timespec *
pl_tv_ts(const struct timeval tv[2], struct timespec ts[2])
{
	int i;

	if (tv == NULL)
		return NULL;
	for (i = 0; i < 2; i++) {
		ts[i].tv_sec = tv[i].tv_sec;
		ts[i].tv_nsec = tv[i].tv_usec >= 0 && tv[i].tv_usec < 1000000 ?
		    tv[i].tv_usec * 1000 : -1;
	}
	return ts;
}

int
utimes(const char *path, const struct timeval tv[2])
{
	struct timespec ts[2];
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(utimes)(PL_USE(r, path, abs), tv);
	return utimensat(AT_FDCWD, abs, pl_tv_ts(tv, ts), 0);
}

int
lutimes(const char *path, const struct timeval tv[2])
{
	struct timespec ts[2];
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(lutimes)(PL_USE(r, path, abs), tv);
	return utimensat(AT_FDCWD, abs, pl_tv_ts(tv, ts), 0);
}

int
futimes(int fd, const struct timeval tv[2])
{
	struct timespec ts[2];

	if (!pl_fd_hit(fd))
		return REAL(futimes)(fd, tv);
	return futimens(fd, pl_tv_ts(tv, ts));
}

int
futimesat(int dirfd, const char *path, const struct timeval tv[2])
{
	struct timespec ts[2];
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	if (r != PL_PVFS)
		return REAL(futimesat)(dirfd, PL_USE(r, path, abs), tv);
	return utimensat(AT_FDCWD, abs, pl_tv_ts(tv, ts), 0);
}

int
utime(const char *path, const struct utimbuf *ub)
{
	struct timespec ts[2];
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(utime)(PL_USE(r, path, abs), ub);
	if (ub == NULL)
		return utimensat(AT_FDCWD, abs, NULL, 0);
	ts[0].tv_sec = ub->actime;
	ts[1].tv_sec = ub->modtime;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	return utimensat(AT_FDCWD, abs, ts, 0);
}

/* ---- truncate ---- */

int
truncate(const char *path, off_t len)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? PL_BUSY(pvfs_truncate(abs, len)) :
	    REAL(truncate)(PL_USE(r, path, abs), len);
}

int
truncate64(const char *path, off64_t len)
{
	return truncate(path, len);
}

/* ---- names ---- */

int
unlink(const char *path)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? PL_BUSY(pvfs_unlink(abs)) : REAL(unlink)(PL_USE(r, path, abs));
}

int
unlinkat(int dirfd, const char *path, int flags)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	if (r != PL_PVFS)
		return REAL(unlinkat)(dirfd, PL_USE(r, path, abs), flags);
	return (flags & AT_REMOVEDIR) ? PL_BUSY(pvfs_rmdir(abs)) :
	    PL_BUSY(pvfs_unlink(abs));
}

int
rmdir(const char *path)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	return r == PL_PVFS ? PL_BUSY(pvfs_rmdir(abs)) : REAL(rmdir)(PL_USE(r, path, abs));
}

int
remove(const char *path)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(remove)(PL_USE(r, path, abs));
	if (PL_BUSY(pvfs_unlink(abs)) == 0)
		return 0;
	return errno == EISDIR ? PL_BUSY(pvfs_rmdir(abs)) : -1;
}

int
mkdir(const char *path, mode_t mode)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(mkdir)(PL_USE(r, path, abs), mode);
	return PL_BUSY(pvfs_path_mkdir(abs, mode & ~__atomic_load_n(&pl_umask, __ATOMIC_RELAXED)));
}

int
mkdirat(int dirfd, const char *path, mode_t mode)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	if (r != PL_PVFS)
		return REAL(mkdirat)(dirfd, PL_USE(r, path, abs), mode);
	return PL_BUSY(pvfs_path_mkdir(abs, mode & ~__atomic_load_n(&pl_umask, __ATOMIC_RELAXED)));
}

/* which: 0 rename, 1 renameat, 2 renameat2.  A rename between PVFS and a
 * local file system is EXDEV, so mv copies. */
static int
pl_rename(int od, const char *o, int nd, const char *n, unsigned flags, int which)
{
	char ao[PATH_MAX], an[PATH_MAX];
	enum pl_route ro = pl_route(od, o, ao), rn = pl_route(nd, n, an);
	struct stat st;

	if (ro != PL_PVFS && rn != PL_PVFS)
		return which == 0 ? REAL(rename)(PL_USE(ro, o, ao), PL_USE(rn, n, an)) :
		    which == 1 ? REAL(renameat)(od, PL_USE(ro, o, ao), nd, PL_USE(rn, n, an)) :
		    REAL(renameat2)(od, PL_USE(ro, o, ao), nd, PL_USE(rn, n, an), flags);
	if (ro != rn) {
		errno = EXDEV;
		return -1;
	}
	if (flags & ~RENAME_NOREPLACE) {
		errno = EINVAL;
		return -1;
	}
	if (flags & RENAME_NOREPLACE) {
		if (pl_stat_abs(an, &st) == 0) {
			errno = EEXIST;
			return -1;
		}
		if (errno != ENOENT)
			return -1;
	}
	return PL_BUSY(pvfs_rename(ao, an));
}

int
rename(const char *o, const char *n)
{
	return pl_rename(AT_FDCWD, o, AT_FDCWD, n, 0, 0);
}

int
renameat(int od, const char *o, int nd, const char *n)
{
	return pl_rename(od, o, nd, n, 0, 1);
}

int
renameat2(int od, const char *o, int nd, const char *n, unsigned flags)
{
	return pl_rename(od, o, nd, n, flags, 2);
}

/* PVFS has no links: EPERM inside it (as file systems without links
 * answer), EXDEV across. */
static int
pl_link_err(enum pl_route a, enum pl_route b)
{
	errno = a == PL_PVFS && b == PL_PVFS ? EPERM : EXDEV;
	return -1;
}

int
link(const char *o, const char *n)
{
	char ao[PATH_MAX], an[PATH_MAX];
	enum pl_route ro = pl_route(AT_FDCWD, o, ao), rn = pl_route(AT_FDCWD, n, an);

	if (ro != PL_PVFS && rn != PL_PVFS)
		return REAL(link)(PL_USE(ro, o, ao), PL_USE(rn, n, an));
	return pl_link_err(ro, rn);
}

int
linkat(int od, const char *o, int nd, const char *n, int flags)
{
	char ao[PATH_MAX], an[PATH_MAX];
	enum pl_route ro = pl_route(od, o, ao), rn = pl_route(nd, n, an);

	if (ro != PL_PVFS && rn != PL_PVFS)
		return REAL(linkat)(od, PL_USE(ro, o, ao), nd, PL_USE(rn, n, an), flags);
	return pl_link_err(ro, rn);
}

int
symlink(const char *target, const char *path)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(symlink)(target, PL_USE(r, path, abs));
	errno = EPERM;
	return -1;
}

int
symlinkat(const char *target, int dirfd, const char *path)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	if (r != PL_PVFS)
		return REAL(symlinkat)(target, dirfd, PL_USE(r, path, abs));
	errno = EPERM;
	return -1;
}

/* Nothing on PVFS is a link: EINVAL for what exists. */
static ssize_t
pl_readlink_abs(const char *abs)
{
	struct stat st;

	if (pl_stat_abs(abs, &st) == 0)
		errno = EINVAL;
	return -1;
}

ssize_t
readlink(const char *path, char *buf, size_t len)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(readlink)(PL_USE(r, path, abs), buf, len);
	return pl_readlink_abs(abs);
}

ssize_t
readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	if (r != PL_PVFS)
		return REAL(readlinkat)(dirfd, PL_USE(r, path, abs), buf, len);
	return pl_readlink_abs(abs);
}

ssize_t
__readlink_chk(const char *path, char *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		__chk_fail();
	return readlink(path, buf, len);
}

ssize_t
__readlinkat_chk(int dirfd, const char *path, char *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		__chk_fail();
	return readlinkat(dirfd, path, buf, len);
}

static int
pl_mknod_at(int dirfd, const char *path, mode_t mode, dev_t dev, int fifo)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);

	if (r != PL_PVFS)
		return fifo ? REAL(mkfifoat)(dirfd, PL_USE(r, path, abs), mode) :
		    REAL(mknodat)(dirfd, PL_USE(r, path, abs), mode, dev);
	errno = EPERM;
	return -1;
}

int
mknod(const char *path, mode_t mode, dev_t dev)
{
	return pl_mknod_at(AT_FDCWD, path, mode, dev, 0);
}

int
mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	return pl_mknod_at(dirfd, path, mode, dev, 0);
}

int
mkfifo(const char *path, mode_t mode)
{
	return pl_mknod_at(AT_FDCWD, path, mode, 0, 1);
}

int
mkfifoat(int dirfd, const char *path, mode_t mode)
{
	return pl_mknod_at(dirfd, path, mode, 0, 1);
}

/* ---- extended attributes: not supported by PVFS ---- */

#define PL_XATTR_PATH(ret, name, params, args, path) \
ret \
name params \
{ \
	char abs[PATH_MAX]; \
	enum pl_route r = pl_route(AT_FDCWD, path, abs); \
	if (r != PL_PVFS) \
		return REAL(name) args; \
	errno = ENOTSUP; \
	return -1; \
}

#define PL_XATTR_FD(ret, name, params, args) \
ret \
name params \
{ \
	if (!pl_fd_hit(fd)) \
		return REAL(name) args; \
	errno = ENOTSUP; \
	return -1; \
}

#define PL_P PL_USE(r, path, abs)
PL_XATTR_PATH(ssize_t, getxattr, (const char *path, const char *n, void *v, size_t s), (PL_P, n, v, s), path)
PL_XATTR_PATH(ssize_t, lgetxattr, (const char *path, const char *n, void *v, size_t s), (PL_P, n, v, s), path)
PL_XATTR_PATH(int, setxattr, (const char *path, const char *n, const void *v, size_t s, int f), (PL_P, n, v, s, f), path)
PL_XATTR_PATH(int, lsetxattr, (const char *path, const char *n, const void *v, size_t s, int f), (PL_P, n, v, s, f), path)
PL_XATTR_PATH(ssize_t, listxattr, (const char *path, char *l, size_t s), (PL_P, l, s), path)
PL_XATTR_PATH(ssize_t, llistxattr, (const char *path, char *l, size_t s), (PL_P, l, s), path)
PL_XATTR_PATH(int, removexattr, (const char *path, const char *n), (PL_P, n), path)
PL_XATTR_PATH(int, lremovexattr, (const char *path, const char *n), (PL_P, n), path)
PL_XATTR_FD(ssize_t, fgetxattr, (int fd, const char *n, void *v, size_t s), (fd, n, v, s))
PL_XATTR_FD(int, fsetxattr, (int fd, const char *n, const void *v, size_t s, int f), (fd, n, v, s, f))
PL_XATTR_FD(ssize_t, flistxattr, (int fd, char *l, size_t s), (fd, l, s))
PL_XATTR_FD(int, fremovexattr, (int fd, const char *n), (fd, n))

/* ---- pathconf ---- */

static long
pl_pathconf_pvfs(int name)
{
	long v = pvfs_pathconf_limit(name);

	return v != -1 ? v : REAL(pathconf)("/", name);
}

long
pathconf(const char *path, int name)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	struct stat st;

	if (r != PL_PVFS)
		return REAL(pathconf)(PL_USE(r, path, abs), name);
	if (pl_stat_abs(abs, &st) != 0)
		return -1;
	return pl_pathconf_pvfs(name);
}

long
fpathconf(int fd, int name)
{
	return pl_fd_hit(fd) ? pl_pathconf_pvfs(name) : REAL(fpathconf)(fd, name);
}

/* ---- mkstemp and friends: glibc opens the file internally ---- */

static void
pl_tmp_fill(char *x)
{
	static const char set[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	int i;

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		struct timespec now;
		uint64_t v;

		clock_gettime(CLOCK_REALTIME, &now);
		v = ((uint64_t)now.tv_sec * 1000000000 + (uint64_t)now.tv_nsec) ^
		    ((uint64_t)getpid() << 32);

		memcpy(r, &v, sizeof(r));
	}
	for (i = 0; i < 6; i++)
		x[i] = set[r[i] % (sizeof(set) - 1)];
}

/* -2: not a PVFS template (use libc); else what mkstemp returns. */
static int
pl_mktemp(char *tmpl, int suffixlen, int flags, int dir)
{
	char abs[PATH_MAX];
	size_t len;
	int tries, rc;

	if (tmpl == NULL || pl_route(AT_FDCWD, tmpl, abs) != PL_PVFS)
		return -2;
	len = strlen(tmpl);
	if (suffixlen < 0 || len < 6 + (size_t)suffixlen ||
	    memcmp(tmpl + len - 6 - suffixlen, "XXXXXX", 6) != 0) {
		errno = EINVAL;
		return -1;
	}
	for (tries = 0; tries < 1000; tries++) {
		pl_tmp_fill(tmpl + len - 6 - suffixlen);
		if (pl_route(AT_FDCWD, tmpl, abs) != PL_PVFS) {
			errno = EINVAL;
			return -1;
		}
		rc = dir ? PL_BUSY(pvfs_path_mkdir(abs, 0700)) :
		    pl_open_abs(abs, (flags & ~O_ACCMODE) | O_RDWR | O_CREAT | O_EXCL, 0600);
		if (rc >= 0 || errno != EEXIST)
			return rc;
	}
	errno = EEXIST;
	return -1;
}

#define PL_MKSTEMP(name, params, sfx, flags, realargs) \
int \
name params \
{ \
	int rc = pl_mktemp(tmpl, sfx, flags, 0); \
	return rc == -2 ? REAL(name) realargs : rc; \
}

PL_MKSTEMP(mkstemp, (char *tmpl), 0, 0, (tmpl))
PL_MKSTEMP(mkstemp64, (char *tmpl), 0, 0, (tmpl))
PL_MKSTEMP(mkostemp, (char *tmpl, int flags), 0, flags, (tmpl, flags))
PL_MKSTEMP(mkostemp64, (char *tmpl, int flags), 0, flags, (tmpl, flags))
PL_MKSTEMP(mkstemps, (char *tmpl, int sfx), sfx, 0, (tmpl, sfx))
PL_MKSTEMP(mkstemps64, (char *tmpl, int sfx), sfx, 0, (tmpl, sfx))
PL_MKSTEMP(mkostemps, (char *tmpl, int sfx, int flags), sfx, flags, (tmpl, sfx, flags))
PL_MKSTEMP(mkostemps64, (char *tmpl, int sfx, int flags), sfx, flags, (tmpl, sfx, flags))

char *
mkdtemp(char *tmpl)
{
	int rc = pl_mktemp(tmpl, 0, 0, 1);

	if (rc == -2)
		return REAL(mkdtemp)(tmpl);
	return rc == 0 ? tmpl : NULL;
}
