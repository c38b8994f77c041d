/*
 * preload-meta.c - attributes: the stat, statfs, access, chmod, chown and
 * utime families, truncate, xattrs (ENOTSUP), the mkstemp family and
 * pathconf (names: preload-names.c).
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

int
pl_at_self(int dirfd, const char *path, int flags)
{
	/* Flags first: path may be a bad pointer (the kernel's EFAULT). */
	return (flags & AT_EMPTY_PATH) && !PL_BAD_PTR(path) && path[0] == '\0' &&
	    pl_fd_hit(dirfd);
}

int
pl_stat_abs(const char *abs, struct stat *st)
{
	return PL_BUSY(pvfs_stat(abs, st));
}

static int
pl_fstat_fd(int fd, struct stat *st)
{
	struct pl_file *f = pl_file_get(fd);
	int rc = f == NULL ? -1 : PL_BUSY(pvfs_file_stat(f->h, st));

	pl_put(f);
	return rc;
}

/* ---- stat ---- */

/* stat or lstat of a PVFS path, as nofollow says. */
static int
pl_lstat_abs(const char *abs, struct stat *st, int nofollow)
{
	return nofollow ? PL_BUSY(pvfs_lstat(abs, st)) : pl_stat_abs(abs, st);
}

/* stat, lstat, fstatat and the __xstat forms (ver). */
static int
pl_stat_at(enum pl_call which, int ver, int dirfd, const char *path,
    struct stat *st, int flags)
{
	char abs[PL_ABS_MAX];
	enum pl_route r;
	const char *use;
	int rc, nofollow = which == PL_LSTAT || which == PL_LXSTAT ||
	    ((which == PL_FSTATAT || which == PL_FXSTATAT) &&
	    (flags & AT_SYMLINK_NOFOLLOW));

	if (pl_at_self(dirfd, path, flags))
		return pl_fstat_fd(dirfd, st);
	r = pl_route(dirfd, path, abs);
	use = PL_USE(r, path, abs);
	if (r == PL_PVFS) {
		if (!PL_ESCAPED(rc = pl_lstat_abs(abs, st, nofollow)))
			return rc;
		use = pvfs_local_path();
	}
	return which == PL_STAT ? REAL(stat)(use, st) :
	    which == PL_LSTAT ? REAL(lstat)(use, st) :
	    which == PL_FSTATAT ? REAL(fstatat)(dirfd, use, st, flags) :
	    which == PL_XSTAT ? REAL(__xstat)(ver, use, st) :
	    which == PL_LXSTAT ? REAL(__lxstat)(ver, use, st) :
	    REAL(__fxstatat)(ver, dirfd, use, st, flags);
}

int
stat(const char *path, struct stat *st)
{
	return pl_stat_at(PL_STAT, 0, AT_FDCWD, path, st, 0);
}

int
stat64(const char *path, struct stat64 *st)
{
	return stat(path, (struct stat *)st);
}

int
lstat(const char *path, struct stat *st)
{
	return pl_stat_at(PL_LSTAT, 0, AT_FDCWD, path, st, 0);
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
	return pl_stat_at(PL_FSTATAT, 0, dirfd, path, st, flags);
}

int
fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	return fstatat(dirfd, path, (struct stat *)st, flags);
}

int
__xstat(int ver, const char *path, struct stat *st)
{
	return pl_stat_at(PL_XSTAT, ver, AT_FDCWD, path, st, 0);
}

int
__xstat64(int ver, const char *path, struct stat64 *st)
{
	return __xstat(ver, path, (struct stat *)st);
}

int
__lxstat(int ver, const char *path, struct stat *st)
{
	return pl_stat_at(PL_LXSTAT, ver, AT_FDCWD, path, st, 0);
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
	return pl_stat_at(PL_FXSTATAT, ver, dirfd, path, st, flags);
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
	*x = (struct statx){
		.stx_mask = STATX_BASIC_STATS,
		.stx_blksize = (uint32_t)st->st_blksize,
		.stx_nlink = (uint32_t)st->st_nlink,
		.stx_uid = st->st_uid,
		.stx_gid = st->st_gid,
		.stx_mode = (uint16_t)st->st_mode,
		.stx_ino = st->st_ino,
		.stx_size = (uint64_t)st->st_size,
		.stx_blocks = (uint64_t)st->st_blocks,
		.stx_atime = pl_stx_ts(st->st_atim),
		.stx_ctime = pl_stx_ts(st->st_ctim),
		.stx_mtime = pl_stx_ts(st->st_mtim),
		.stx_dev_major = major(st->st_dev),
		.stx_dev_minor = minor(st->st_dev),
	};
}

int
statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *x)
{
	char abs[PL_ABS_MAX];
	struct stat st;
	enum pl_route r;
	int rc;

	if (pl_at_self(dirfd, path, flags)) {
		rc = pl_fstat_fd(dirfd, &st);
	} else {
		r = pl_route(dirfd, path, abs);
		if (r != PL_PVFS)
			return REAL(statx)(dirfd, PL_USE(r, path, abs), flags, mask, x);
		rc = pl_lstat_abs(abs, &st, flags & AT_SYMLINK_NOFOLLOW);
		if (PL_ESCAPED(rc))
			return REAL(statx)(dirfd, pvfs_local_path(), flags, mask, x);
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

/* What statvfs answers when rc is what statfs into s answered. */
static int
pl_statvfs_from(int rc, const struct statfs *s, struct statvfs *v)
{
	if (rc != 0)
		return -1;
	*v = (struct statvfs){
		.f_bsize = (unsigned long)s->f_bsize,
		.f_frsize = (unsigned long)(s->f_frsize ? s->f_frsize : s->f_bsize),
		.f_blocks = s->f_blocks,
		.f_bfree = s->f_bfree,
		.f_bavail = s->f_bavail,
		.f_files = s->f_files,
		.f_ffree = s->f_ffree,
		.f_favail = s->f_ffree,
		.f_namemax = (unsigned long)s->f_namelen,
	};
	memcpy(&v->f_fsid, &s->f_fsid, sizeof(v->f_fsid) < sizeof(s->f_fsid) ?
	    sizeof(v->f_fsid) : sizeof(s->f_fsid));
	return 0;
}

int
statfs(const char *path, struct statfs *b)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	int rc;

	if (r == PL_PVFS && !PL_ESCAPED(rc = pl_statfs_abs(abs, b)))
		return rc;
	return REAL(statfs)(r == PL_PVFS ? pvfs_local_path() :
	    PL_USE(r, path, abs), b);
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
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	struct statfs s;

	int rc;

	if (r != PL_PVFS)
		return REAL(statvfs)(PL_USE(r, path, abs), v);
	if (PL_ESCAPED(rc = pl_statfs_abs(abs, &s)))
		return REAL(statvfs)(pvfs_local_path(), v);
	return pl_statvfs_from(rc, &s, v);
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
	return pl_statvfs_from(pl_fstatfs_fd(fd, &s), &s, v);
}

int
fstatvfs64(int fd, struct statvfs64 *v)
{
	return fstatvfs(fd, (struct statvfs *)v);
}

/* ---- access ---- */

static int
pl_access_at(enum pl_call which, int dirfd, const char *path, int mode,
    int flags)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);
	int rc;

	if (r == PL_PVFS) {
		/* AT_SYMLINK_NOFOLLOW asks about a last link itself, whose
		 * mode is 0777: it may be done whatever is asked. */
		if (which == PL_FACCESSAT && (flags & AT_SYMLINK_NOFOLLOW)) {
			struct stat st;

			if (!PL_ESCAPED(rc = pl_lstat_abs(abs, &st, 1)) &&
			    (rc != 0 || S_ISLNK(st.st_mode)))
				return rc;
		}
		if (!PL_ESCAPED(rc = PL_BUSY(pvfs_access(abs, mode))))
			return rc;
		use = pvfs_local_path();
	}
	return which == PL_ACCESS ? REAL(access)(use, mode) :
	    which == PL_EUIDACCESS ? REAL(euidaccess)(use, mode) :
	    REAL(faccessat)(dirfd, use, mode, flags);
}

int
access(const char *path, int mode)
{
	return pl_access_at(PL_ACCESS, AT_FDCWD, path, mode, 0);
}

int
faccessat(int dirfd, const char *path, int mode, int flags)
{
	return pl_access_at(PL_FACCESSAT, dirfd, path, mode, flags);
}

int
euidaccess(const char *path, int mode)
{
	return pl_access_at(PL_EUIDACCESS, AT_FDCWD, path, mode, 0);
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
	struct pl_file *f = pl_file_get(fd);
	int rc = f == NULL ? -1 : PL_BUSY(pvfs_file_setattr(f->h, req));

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
	req->mask = PVFS_SET_CHOWN;
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
	if ((req->mask & ~PVFS_SET_NOFOLLOW) == 0)
		return pl_lstat_abs(abs, &(struct stat){ 0 },
		    req->mask & PVFS_SET_NOFOLLOW);
	return PL_BUSY(pvfs_path_setattr(abs, req));
}

/* chmod, fchmodat (mode) and chown, lchown, fchownat (uid, gid). */
static int
pl_chattr_at(enum pl_call which, int dirfd, const char *path, mode_t mode,
    uid_t uid, gid_t gid, int flags)
{
	struct pvfs_setattr req;
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);
	int rc;

	if (r == PL_PVFS) {
		if (which == PL_CHMOD || which == PL_FCHMODAT)
			pl_req_mode(&req, mode);
		else
			pl_req_owner(&req, uid, gid);
		if (which == PL_LCHOWN || (flags & AT_SYMLINK_NOFOLLOW))
			req.mask |= PVFS_SET_NOFOLLOW;
		if (!PL_ESCAPED(rc = pl_setattr_abs(abs, &req)))
			return rc;
		use = pvfs_local_path();
	}
	return which == PL_CHMOD ? REAL(chmod)(use, mode) :
	    which == PL_FCHMODAT ? REAL(fchmodat)(dirfd, use, mode, flags) :
	    which == PL_CHOWN ? REAL(chown)(use, uid, gid) :
	    which == PL_LCHOWN ? REAL(lchown)(use, uid, gid) :
	    REAL(fchownat)(dirfd, use, uid, gid, flags);
}

int
chmod(const char *path, mode_t mode)
{
	return pl_chattr_at(PL_CHMOD, AT_FDCWD, path, mode, (uid_t)-1, (gid_t)-1, 0);
}

int
fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	return pl_chattr_at(PL_FCHMODAT, dirfd, path, mode, (uid_t)-1, (gid_t)-1,
	    flags);
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

int
chown(const char *path, uid_t uid, gid_t gid)
{
	return pl_chattr_at(PL_CHOWN, AT_FDCWD, path, 0, uid, gid, 0);
}

int
lchown(const char *path, uid_t uid, gid_t gid)
{
	return pl_chattr_at(PL_LCHOWN, AT_FDCWD, path, 0, uid, gid, 0);
}

int
fchownat(int dirfd, const char *path, uid_t uid, gid_t gid, int flags)
{
	if (pl_at_self(dirfd, path, flags))
		return fchown(dirfd, uid, gid);
	return pl_chattr_at(PL_FCHOWNAT, dirfd, path, 0, uid, gid, flags);
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
	char abs[PL_ABS_MAX];
	enum pl_route r;
	int rc;

	if (path == NULL && pl_fd_hit(dirfd))
		return futimens(dirfd, ts);
	r = pl_route(dirfd, path, abs);
	if (r != PL_PVFS)
		return REAL(utimensat)(dirfd, PL_USE(r, path, abs), ts, flags);
	if (pl_req_times(&req, ts) != 0)
		return -1;
	if (flags & AT_SYMLINK_NOFOLLOW)
		req.mask |= PVFS_SET_NOFOLLOW;
	if (!PL_ESCAPED(rc = pl_setattr_abs(abs, &req)))
		return rc;
	return REAL(utimensat)(dirfd, pvfs_local_path(), ts, flags);
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

/* utimes, lutimes and futimesat: utimensat's work for a PVFS path. */
static int
pl_utimes_at(enum pl_call which, int dirfd, const char *path,
    const struct timeval tv[2])
{
	struct timespec ts[2];
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);

	if (r == PL_PVFS)
		return utimensat(AT_FDCWD, abs, pl_tv_ts(tv, ts),
		    which == PL_LUTIMES ? AT_SYMLINK_NOFOLLOW : 0);
	return which == PL_UTIMES ? REAL(utimes)(use, tv) :
	    which == PL_LUTIMES ? REAL(lutimes)(use, tv) :
	    REAL(futimesat)(dirfd, use, tv);
}

int
utimes(const char *path, const struct timeval tv[2])
{
	return pl_utimes_at(PL_UTIMES, AT_FDCWD, path, tv);
}

int
lutimes(const char *path, const struct timeval tv[2])
{
	return pl_utimes_at(PL_LUTIMES, AT_FDCWD, path, tv);
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
	return pl_utimes_at(PL_FUTIMESAT, dirfd, path, tv);
}

int
utime(const char *path, const struct utimbuf *ub)
{
	struct timespec ts[2];
	char abs[PL_ABS_MAX];
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
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	int rc;

	if (r == PL_PVFS && !PL_ESCAPED(rc = PL_BUSY(pvfs_truncate(abs, len))))
		return rc;
	return REAL(truncate)(r == PL_PVFS ? pvfs_local_path() :
	    PL_USE(r, path, abs), len);
}

int
truncate64(const char *path, off64_t len)
{
	return truncate(path, len);
}

/* ---- extended attributes: not supported by PVFS ---- */

#define PL_XATTR_PATH(ret, name, params, args, path) \
ret \
name params \
{ \
	char abs[PL_ABS_MAX]; \
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
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	int rc;

	if (r != PL_PVFS)
		return REAL(pathconf)(PL_USE(r, path, abs), name);
	if (PL_ESCAPED(rc = pl_stat_abs(abs, &(struct stat){ 0 })))
		return REAL(pathconf)(pvfs_local_path(), name);
	return rc != 0 ? -1 : pl_pathconf_pvfs(name);
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
	char abs[PL_ABS_MAX];
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
		if (PL_ESCAPED(rc)) /* a directory link led out of PVFS */
			rc = dir ? REAL(mkdir)(pvfs_local_path(), 0700) :
			    REAL(open)(pvfs_local_path(), (flags & ~O_ACCMODE) |
			    O_RDWR | O_CREAT | O_EXCL, 0600);
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
