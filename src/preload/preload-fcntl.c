/*
 * preload-fcntl.c - fcntl and file locks on PVFS descriptors.
 *
 * fcntl locks are taken on a local lock file per PVFS file
 * (PVFS_PRELOAD_LOCKDIR, default /dev/shm), so they hold between the
 * processes of one host, not between hosts.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "preload.h"

/* ---- fcntl and locks ---- */

static int
pl_lockfd(struct pl_file *f)
{
	const char *dir = getenv("PVFS_PRELOAD_LOCKDIR");
	struct pvfs_file_info info;
	char path[PATH_MAX];
	int fd;

	pthread_mutex_lock(&f->lock);
	if (f->lockfd == -1) {
		if (dir == NULL || *dir == '\0')
			dir = REAL(access)("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
		pvfs_file_info(f->h, &info);
		snprintf(path, sizeof(path), "%s/pvfs-lock.%llx.%llu", dir,
		    (unsigned long long)info.fsid, (unsigned long long)info.ino);
		fd = REAL(openat)(AT_FDCWD, path, O_RDWR | O_CREAT | O_CLOEXEC |
		    O_NOFOLLOW, 0666);
		if (fd != -1) {
			(void)REAL(fchmod)(fd, 0666);
			f->lockfd = pl_own_place(fd);
		}
	}
	fd = f->lockfd;
	pthread_mutex_unlock(&f->lock);
	return fd;
}

static int
pl_fcntl_lock(int fd, struct pl_file *f, int cmd, struct flock *fl)
{
	struct flock l;
	uint64_t size;
	off_t base = 0;
	int lfd, rc;

	if (fl == NULL) {
		errno = EFAULT;
		return -1;
	}
	if (f->h == NULL || (lfd = pl_lockfd(f)) == -1) {
		errno = ENOLCK;
		return -1;
	}
	l = *fl;
	if (l.l_whence == SEEK_CUR)
		base = REAL(lseek)(fd, 0, SEEK_CUR);
	else if (l.l_whence == SEEK_END)
		base = pvfs_file_size(f->h, &size) == 0 ? (off_t)size : -1;
	else if (l.l_whence != SEEK_SET)
		base = -1;
	if (base < 0) {
		errno = EINVAL;
		return -1;
	}
	l.l_start += base;
	l.l_whence = SEEK_SET;
	if ((rc = REAL(fcntl)(lfd, cmd, &l)) == 0 &&
	    (cmd == F_GETLK || cmd == F_OFD_GETLK))
		*fl = l;
	return rc;
}

static int
pl_fcntl(int fd, struct pl_file *f, int cmd, unsigned long arg)
{
	const int settable = O_APPEND | O_NONBLOCK | O_ASYNC | O_DIRECT | O_NOATIME;
	int fl;

	switch (cmd) {
	case F_GETFL:
		return (f->flags & ~(O_CLOEXEC | O_PATH)) | O_LARGEFILE;
	case F_SETFL:
		fl = __atomic_load_n(&f->flags, __ATOMIC_RELAXED);
		__atomic_store_n(&f->flags, (fl & ~settable) | ((int)arg & settable),
		    __ATOMIC_RELAXED);
		return 0;
	case F_SETLK:
	case F_SETLKW:
	case F_GETLK:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
	case F_OFD_GETLK:
		return pl_fcntl_lock(fd, f, cmd, (struct flock *)arg);
	case F_ADD_SEALS:
	case F_GET_SEALS:
		errno = EINVAL;
		return -1;
	default:
		return REAL(fcntl)(fd, cmd, arg);
	}
}

static int
pl_fcntl_any(int fd, int cmd, unsigned long arg)
{
	struct pl_file *f;
	int c, rc;

	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) {
		c = pl_fd_claim(fd);
		return c == 0 ? REAL(fcntl)(fd, cmd, arg) : c < 0 ? -1 :
		    pl_dupfd(fd, cmd, (int)arg);
	}
	if (!pl_fd_hit(fd) || (f = pl_get(fd)) == NULL)
		return REAL(fcntl)(fd, cmd, arg);
	rc = pl_fcntl(fd, f, cmd, arg);
	pl_put(f);
	return rc;
}

int
fcntl(int fd, int cmd, ...)
{
	return pl_fcntl_any(fd, cmd, PL_VA_ONE(cmd, unsigned long));
}

int
fcntl64(int fd, int cmd, ...)
{
	return pl_fcntl_any(fd, cmd, PL_VA_ONE(cmd, unsigned long));
}

int
flock(int fd, int op)
{
	struct pl_file *f;
	int lfd, rc;

	if (!pl_fd_hit(fd) || (f = pl_get(fd)) == NULL)
		return REAL(flock)(fd, op);
	lfd = f->h == NULL ? -1 : pl_lockfd(f);
	rc = lfd == -1 ? (errno = ENOLCK, -1) : REAL(flock)(lfd, op);
	pl_put(f);
	return rc;
}

int
lockf(int fd, int cmd, off_t len)
{
	struct flock fl = { .l_whence = SEEK_CUR, .l_len = len };

	if (!pl_fd_hit(fd))
		return REAL(lockf)(fd, cmd, len);
	switch (cmd) {
	case F_TEST:
		fl.l_type = F_RDLCK;
		if (fcntl(fd, F_GETLK, &fl) != 0)
			return -1;
		if (fl.l_type == F_UNLCK || fl.l_pid == getpid())
			return 0;
		errno = EACCES;
		return -1;
	case F_ULOCK:
		fl.l_type = F_UNLCK;
		return fcntl(fd, F_SETLK, &fl);
	case F_LOCK:
		fl.l_type = F_WRLCK;
		return fcntl(fd, F_SETLKW, &fl);
	case F_TLOCK:
		fl.l_type = F_WRLCK;
		return fcntl(fd, F_SETLK, &fl);
	default:
		errno = EINVAL;
		return -1;
	}
}

int
lockf64(int fd, int cmd, off64_t len)
{
	return lockf(fd, cmd, len);
}

int
ioctl(int fd, unsigned long req, ...)
{
	struct pvfs_filestat *m;
	struct pvfs_file_info info;
	struct pl_file *f;
	void *arg = PL_VA_ONE(req, void *);
	int rc = -1;

	/* FIOCLEX/FIONCLEX set the descriptor's flag: the placeholder's. */
	if (!pl_fd_hit(fd) || req == FIOCLEX || req == FIONCLEX ||
	    (f = pl_get(fd)) == NULL)
		return REAL(ioctl)(fd, req, arg);
	if (req == PVFS_GETMETA && f->h != NULL && arg != NULL && !f->isdir) {
		m = arg;
		pvfs_file_info(f->h, &info);
		*m = info.dist;
		rc = 0;
	} else {
		errno = ENOTTY;
	}
	pl_put(f);
	return rc;
}

