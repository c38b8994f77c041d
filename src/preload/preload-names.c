/*
 * preload-names.c - calls that make, remove and move names: unlink,
 * rmdir, remove, mkdir, rename, symlink and readlink, and the link and
 * mknod families (clean errors: PVFS has none of those objects yet).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload.h"

/* ---- names ---- */

/* unlink, unlinkat, rmdir (flags AT_REMOVEDIR) and remove (a directory
 * too: after EISDIR). */
static int
pl_unlink_at(enum pl_call which, int dirfd, const char *path, int flags)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);
	int rc;

	if (r == PL_PVFS) {
		if (flags & AT_REMOVEDIR)
			rc = PL_BUSY(pvfs_rmdir(abs));
		else if ((rc = PL_BUSY(pvfs_unlink(abs))) != 0 &&
		    which == PL_REMOVE && errno == EISDIR)
			rc = PL_BUSY(pvfs_rmdir(abs));
		if (!PL_ESCAPED(rc))
			return rc;
		use = pvfs_local_path(); /* a directory link led out */
	}
	return which == PL_UNLINK ? REAL(unlink)(use) :
	    which == PL_RMDIR ? REAL(rmdir)(use) :
	    which == PL_REMOVE ? REAL(remove)(use) :
	    REAL(unlinkat)(dirfd, use, flags);
}

int
unlink(const char *path)
{
	return pl_unlink_at(PL_UNLINK, AT_FDCWD, path, 0);
}

int
unlinkat(int dirfd, const char *path, int flags)
{
	return pl_unlink_at(PL_UNLINKAT, dirfd, path, flags);
}

int
rmdir(const char *path)
{
	return pl_unlink_at(PL_RMDIR, AT_FDCWD, path, AT_REMOVEDIR);
}

int
remove(const char *path)
{
	return pl_unlink_at(PL_REMOVE, AT_FDCWD, path, 0);
}

static int
pl_mkdir_at(enum pl_call which, int dirfd, const char *path, mode_t mode)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);
	int rc;

	if (r == PL_PVFS) {
		if (!PL_ESCAPED(rc = PL_BUSY(pvfs_path_mkdir(abs,
		    mode & ~__atomic_load_n(&pl_umask, __ATOMIC_RELAXED)))))
			return rc;
		use = pvfs_local_path();
	}
	return which == PL_MKDIR ? REAL(mkdir)(use, mode) :
	    REAL(mkdirat)(dirfd, use, mode);
}

int
mkdir(const char *path, mode_t mode)
{
	return pl_mkdir_at(PL_MKDIR, AT_FDCWD, path, mode);
}

int
mkdirat(int dirfd, const char *path, mode_t mode)
{
	return pl_mkdir_at(PL_MKDIRAT, dirfd, path, mode);
}

/* rename, renameat, renameat2, and link, linkat.  A rename or link between
 * PVFS and a local file system is EXDEV, so mv copies. */
static int
pl_rename_at(enum pl_call which, int od, const char *o, int nd, const char *n,
    unsigned flags)
{
	char ao[PL_ABS_MAX], an[PL_ABS_MAX];
	enum pl_route ro, rn;
	const char *uo, *un;
	struct stat st;

	/* Before routing: one bad name must not make the pair look like a
	 * cross-device rename (EXDEV). */
	if (PL_BAD_PTR(o) || PL_BAD_PTR(n)) {
		errno = EFAULT;
		return -1;
	}
	/* linkat checks its flags before any name. */
	if (which == PL_LINKAT && (flags & ~(unsigned)(AT_SYMLINK_FOLLOW |
	    AT_EMPTY_PATH))) {
		errno = EINVAL;
		return -1;
	}
	ro = pl_route(od, o, ao);
	rn = pl_route(nd, n, an);
	uo = PL_USE(ro, o, ao);
	un = PL_USE(rn, n, an);
	if (ro == PL_TOOLONG || rn == PL_TOOLONG) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (ro != PL_PVFS && rn != PL_PVFS)
		return which == PL_RENAME ? REAL(rename)(uo, un) :
		    which == PL_RENAMEAT ? REAL(renameat)(od, uo, nd, un) :
		    which == PL_RENAMEAT2 ? REAL(renameat2)(od, uo, nd, un, flags) :
		    which == PL_LINK ? REAL(link)(uo, un) :
		    REAL(linkat)(od, uo, nd, un, (int)flags);
	if (ro != rn) {
		errno = EXDEV;
		return -1;
	}
	/* link never follows a symlink in oldpath (Linux), linkat only with
	 * AT_SYMLINK_FOLLOW.  Hook for symlinks: pass that flag on to a
	 * following pvfs_link when the name space has links to follow. */
	if (which == PL_LINK || which == PL_LINKAT)
		return PL_BUSY(pvfs_link(ao, an));
	if (flags & ~RENAME_NOREPLACE) {
		errno = EINVAL;
		return -1;
	}
	if (flags & RENAME_NOREPLACE) {
		if (pl_stat_abs(an, &st) == 0) {
			errno = EEXIST;
			return -1;
		}
		if (errno == PVFS_ELOCAL)
			errno = EXDEV; /* a link led the new name out of PVFS */
		if (errno != ENOENT)
			return -1;
	}
	return PL_BUSY(pvfs_rename(ao, an));
}

int
rename(const char *o, const char *n)
{
	return pl_rename_at(PL_RENAME, AT_FDCWD, o, AT_FDCWD, n, 0);
}

int
renameat(int od, const char *o, int nd, const char *n)
{
	return pl_rename_at(PL_RENAMEAT, od, o, nd, n, 0);
}

int
renameat2(int od, const char *o, int nd, const char *n, unsigned flags)
{
	return pl_rename_at(PL_RENAMEAT2, od, o, nd, n, flags);
}

int
link(const char *o, const char *n)
{
	return pl_rename_at(PL_LINK, AT_FDCWD, o, AT_FDCWD, n, 0);
}

int
linkat(int od, const char *o, int nd, const char *n, int flags)
{
	return pl_rename_at(PL_LINKAT, od, o, nd, n, (unsigned)flags);
}

/* symlink, symlinkat, mknod, mknodat, mkfifo and mkfifoat: links, FIFOs,
 * sockets and device nodes are names in PVFS; a path whose links lead
 * out of PVFS makes them locally. */
static int
pl_mknod_at(enum pl_call which, int dirfd, const char *path, const char *target,
    mode_t mode, dev_t dev)
{
	char abs[PL_ABS_MAX];
	enum pl_route r;
	const char *use;
	mode_t um;
	int rc;

	/* The kernel reads the text first: a bad one is EFAULT anywhere. */
	if ((which == PL_SYMLINK || which == PL_SYMLINKAT) && PL_BAD_PTR(target)) {
		errno = EFAULT;
		return -1;
	}
	r = pl_route(dirfd, path, abs);
	use = PL_USE(r, path, abs);
	if (r == PL_PVFS && (which == PL_SYMLINK || which == PL_SYMLINKAT)) {
		if (!PL_ESCAPED(rc = PL_BUSY(pvfs_symlink(target, abs))))
			return rc;
		use = pvfs_local_path();
	} else if (r == PL_PVFS) {
		um = __atomic_load_n(&pl_umask, __ATOMIC_RELAXED);
		if (which == PL_MKFIFO || which == PL_MKFIFOAT)
			mode = S_IFIFO | (mode & 07777);
		if (!PL_ESCAPED(rc = PL_BUSY(pvfs_path_mknod(abs,
		    (mode & S_IFMT) | (mode & 07777 & ~um), dev))))
			return rc;
		use = pvfs_local_path();
	}
	return which == PL_SYMLINK ? REAL(symlink)(target, use) :
	    which == PL_SYMLINKAT ? REAL(symlinkat)(target, dirfd, use) :
	    which == PL_MKFIFO || which == PL_MKFIFOAT ?
	    REAL(mkfifoat)(dirfd, use, mode) :
	    REAL(mknodat)(dirfd, use, mode, dev);
}

int
symlink(const char *target, const char *path)
{
	return pl_mknod_at(PL_SYMLINK, AT_FDCWD, path, target, 0, 0);
}

int
symlinkat(const char *target, int dirfd, const char *path)
{
	return pl_mknod_at(PL_SYMLINKAT, dirfd, path, target, 0, 0);
}

int
mknod(const char *path, mode_t mode, dev_t dev)
{
	return pl_mknod_at(PL_MKNOD, AT_FDCWD, path, NULL, mode, dev);
}

int
mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	return pl_mknod_at(PL_MKNODAT, dirfd, path, NULL, mode, dev);
}

int
mkfifo(const char *path, mode_t mode)
{
	return pl_mknod_at(PL_MKFIFO, AT_FDCWD, path, NULL, mode, 0);
}

int
mkfifoat(int dirfd, const char *path, mode_t mode)
{
	return pl_mknod_at(PL_MKFIFOAT, dirfd, path, NULL, mode, 0);
}

static ssize_t
pl_readlink_at(enum pl_call which, int dirfd, const char *path, char *buf,
    size_t len)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);
	ssize_t n;

	if (r == PL_PVFS) {
		pl_busy++;
		n = pvfs_readlink(abs, buf, len);
		pl_busy--;
		if (!PL_ESCAPED(n))
			return n;
		use = pvfs_local_path();
	}
	return which == PL_READLINK ? REAL(readlink)(use, buf, len) :
	    REAL(readlinkat)(dirfd, use, buf, len);
}

ssize_t
readlink(const char *path, char *buf, size_t len)
{
	return pl_readlink_at(PL_READLINK, AT_FDCWD, path, buf, len);
}

ssize_t
readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	return pl_readlink_at(PL_READLINKAT, dirfd, path, buf, len);
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

