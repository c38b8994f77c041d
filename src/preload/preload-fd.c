/*
 * preload-fd.c - the open family and every call on a descriptor: data,
 * offsets, close and dup, sync, allocation, copies, mmap (fcntl and locks:
 * preload-fcntl.c).
 *
 * Data calls on a PVFS descriptor go to the library's handle; the offset
 * lives in the placeholder, read and moved with the real lseek under the
 * file's lock.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "preload.h"

#define PL_COPY_CHUNK (256 * 1024)
#define PL_SPLICE_MAX (64 * 1024) /* a pipe's default capacity */

/* ---- open ---- */

static int
pl_openat(int dirfd, const char *path, int flags, mode_t mode)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd, path, abs);
	const char *use = PL_USE(r, path, abs);
	int fd;

	if (r == PL_PVFS) {
		if (!PL_ESCAPED(fd = pl_open_abs(abs, flags, mode)))
			return fd;
		use = pvfs_local_path();
	}
	return REAL(openat)(dirfd, use, flags, mode);
}

#define PL_MODE_ARG(flags, mode) do { \
	va_list ap_; \
	(mode) = 0; \
	if ((flags) & O_CREAT || ((flags) & O_TMPFILE) == O_TMPFILE) { \
		va_start(ap_, flags); \
		(mode) = (mode_t)va_arg(ap_, int); \
		va_end(ap_); \
	} \
} while (0)

int
open(const char *path, int flags, ...)
{
	mode_t mode;

	PL_MODE_ARG(flags, mode);
	return pl_openat(AT_FDCWD, path, flags, mode);
}

int
open64(const char *path, int flags, ...)
{
	mode_t mode;

	PL_MODE_ARG(flags, mode);
	return pl_openat(AT_FDCWD, path, flags, mode);
}

int
openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	PL_MODE_ARG(flags, mode);
	return pl_openat(dirfd, path, flags, mode);
}

int
openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode;

	PL_MODE_ARG(flags, mode);
	return pl_openat(dirfd, path, flags, mode);
}

/* The fortified forms: O_CREAT or O_TMPFILE without a mode is a fortify
 * failure, which libc's own function reports (and aborts). */
#define PL_NEEDS_MODE(flags) \
	(((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE)

int
__open_2(const char *path, int flags)
{
	if (PL_NEEDS_MODE(flags))
		return REAL(__open_2)(path, flags);
	return pl_openat(AT_FDCWD, path, flags, 0);
}

int
__open64_2(const char *path, int flags)
{
	if (PL_NEEDS_MODE(flags))
		return REAL(__open64_2)(path, flags);
	return pl_openat(AT_FDCWD, path, flags, 0);
}

int
__openat_2(int dirfd, const char *path, int flags)
{
	if (PL_NEEDS_MODE(flags))
		return REAL(__openat_2)(dirfd, path, flags);
	return pl_openat(dirfd, path, flags, 0);
}

int
__openat64_2(int dirfd, const char *path, int flags)
{
	if (PL_NEEDS_MODE(flags))
		return REAL(__openat64_2)(dirfd, path, flags);
	return pl_openat(dirfd, path, flags, 0);
}

int
creat(const char *path, mode_t mode)
{
	return pl_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

int
creat64(const char *path, mode_t mode)
{
	return pl_openat(AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* ---- data ---- */

/* usepos: at the placeholder's offset (and move it); else at off. */
static ssize_t
pl_io(int fd, int write, const struct iovec *iov, int cnt, off_t off, int usepos)
{
	struct pl_file *f = pl_file_get(fd);
	uint64_t size;
	ssize_t n = -1;
	off_t pos;

	if (f == NULL)
		return -1;
	if (f->isdir) {
		pl_put(f);
		errno = EISDIR;
		return -1;
	}
	if (!usepos) {
		pl_busy++;
		n = off < 0 ? (errno = EINVAL, -1) : write ?
		    pvfs_file_pwritev(f->h, iov, cnt, (uint64_t)off) :
		    pvfs_file_preadv(f->h, iov, cnt, (uint64_t)off);
		pl_busy--;
		pl_put(f);
		return n;
	}
	pthread_mutex_lock(&f->lock);
	pl_busy++;
	pos = REAL(lseek)(fd, 0, SEEK_CUR);
	if (pos >= 0 && write && (f->flags & O_APPEND))
		pos = pvfs_file_size(f->h, &size) == 0 ? (off_t)size : -1;
	if (pos >= 0)
		n = write ? pvfs_file_pwritev(f->h, iov, cnt, (uint64_t)pos) :
		    pvfs_file_preadv(f->h, iov, cnt, (uint64_t)pos);
	if (n > 0 || (n == 0 && write))
		REAL(lseek)(fd, pos + n, SEEK_SET);
	pl_busy--;
	pthread_mutex_unlock(&f->lock);
	pl_put(f);
	return n;
}

ssize_t
pl_fd_read(int fd, void *buf, size_t n)
{
	struct iovec v = { buf, n > SSIZE_MAX ? SSIZE_MAX : n };

	if (!pl_fd_hit(fd))
		return REAL(read)(fd, buf, n);
	return pl_io(fd, 0, &v, 1, 0, 1);
}

ssize_t
pl_fd_write(int fd, const void *buf, size_t n)
{
	struct iovec v = { (void *)buf, n > SSIZE_MAX ? SSIZE_MAX : n };

	if (!pl_fd_hit(fd))
		return REAL(write)(fd, buf, n);
	return pl_io(fd, 1, &v, 1, 0, 1);
}

ssize_t
read(int fd, void *buf, size_t n)
{
	return pl_fd_read(fd, buf, n);
}

ssize_t
__read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return pl_fd_read(fd, buf, n);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	return pl_fd_write(fd, buf, n);
}

ssize_t
readv(int fd, const struct iovec *iov, int cnt)
{
	if (!pl_fd_hit(fd))
		return REAL(readv)(fd, iov, cnt);
	return pl_io(fd, 0, iov, cnt, 0, 1);
}

ssize_t
writev(int fd, const struct iovec *iov, int cnt)
{
	if (!pl_fd_hit(fd))
		return REAL(writev)(fd, iov, cnt);
	return pl_io(fd, 1, iov, cnt, 0, 1);
}

#define PL_PIO(name, write, bufq, realcall) \
ssize_t \
name(int fd, bufq void *buf, size_t n, off_t off) \
{ \
	struct iovec v = { (void *)buf, n > SSIZE_MAX ? SSIZE_MAX : n }; \
	if (!pl_fd_hit(fd)) \
		return realcall; \
	return pl_io(fd, write, &v, 1, off, 0); \
}

PL_PIO(pread, 0, , REAL(pread)(fd, buf, n, off))
PL_PIO(pread64, 0, , REAL(pread64)(fd, buf, n, off))
PL_PIO(pwrite, 1, const, REAL(pwrite)(fd, buf, n, off))
PL_PIO(pwrite64, 1, const, REAL(pwrite64)(fd, buf, n, off))

ssize_t
__pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return pread(fd, buf, n, off);
}

ssize_t
__pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
	if (n > buflen)
		__chk_fail();
	return pread64(fd, buf, n, off);
}

#define PL_PIOV(name, write, realcall) \
ssize_t \
name(int fd, const struct iovec *iov, int cnt, off_t off) \
{ \
	if (!pl_fd_hit(fd)) \
		return realcall; \
	return pl_io(fd, write, iov, cnt, off, 0); \
}

PL_PIOV(preadv, 0, REAL(preadv)(fd, iov, cnt, off))
PL_PIOV(preadv64, 0, REAL(preadv64)(fd, iov, cnt, off))
PL_PIOV(pwritev, 1, REAL(pwritev)(fd, iov, cnt, off))
PL_PIOV(pwritev64, 1, REAL(pwritev64)(fd, iov, cnt, off))

/* Offset -1 means the current position; the RWF_* hints are ignored. */
#define PL_PIOV2(name, write, realcall) \
ssize_t \
name(int fd, const struct iovec *iov, int cnt, off_t off, int flags) \
{ \
	if (!pl_fd_hit(fd)) \
		return realcall; \
	return pl_io(fd, write, iov, cnt, off, off == -1); \
}

PL_PIOV2(preadv2, 0, REAL(preadv2)(fd, iov, cnt, off, flags))
PL_PIOV2(preadv64v2, 0, REAL(preadv64v2)(fd, iov, cnt, off, flags))
PL_PIOV2(pwritev2, 1, REAL(pwritev2)(fd, iov, cnt, off, flags))
PL_PIOV2(pwritev64v2, 1, REAL(pwritev64v2)(fd, iov, cnt, off, flags))

/* ---- offsets ---- */

/* SEEK_DATA/SEEK_HOLE see one data extent, as file.c reports. */
static off_t
pl_seek_pvfs(int fd, struct pl_file *f, off_t off, int whence)
{
	uint64_t size;
	off_t to;

	if (whence == SEEK_SET || whence == SEEK_CUR)
		return REAL(lseek)(fd, off, whence);
	if (whence != SEEK_END && whence != SEEK_DATA && whence != SEEK_HOLE) {
		errno = EINVAL;
		return -1;
	}
	if (pvfs_file_size(f->h, &size) != 0)
		return -1;
	if (whence == SEEK_END) {
		if (__builtin_add_overflow((off_t)size, off, &to)) {
			errno = EOVERFLOW;
			return -1;
		}
	} else if (off < 0 || (uint64_t)off >= size) {
		errno = off < 0 ? EINVAL : ENXIO;
		return -1;
	} else {
		to = whence == SEEK_DATA ? off : (off_t)size;
	}
	return REAL(lseek)(fd, to, SEEK_SET);
}

off_t
pl_fd_lseek(int fd, off_t off, int whence)
{
	struct pl_file *f;
	off_t r;

	if (!pl_fd_hit(fd) || (f = pl_get(fd)) == NULL)
		return REAL(lseek)(fd, off, whence);
	if (f->h == NULL) {
		pl_put(f);
		errno = EIO;
		return -1;
	}
	pthread_mutex_lock(&f->lock);
	pl_busy++;
	r = pl_seek_pvfs(fd, f, off, whence);
	pl_busy--;
	pthread_mutex_unlock(&f->lock);
	pl_put(f);
	return r;
}

off_t
lseek(int fd, off_t off, int whence)
{
	return pl_fd_lseek(fd, off, whence);
}

off64_t
lseek64(int fd, off64_t off, int whence)
{
	return pl_fd_lseek(fd, off, whence);
}

/* ---- close and dup ---- */

/* POSIX: closing any descriptor of a file drops the process's locks. */
void
pl_lock_release(struct pl_file *f)
{
	struct flock u = { .l_type = F_UNLCK, .l_whence = SEEK_SET };

	if (f->lockfd != -1)
		REAL(fcntl)(f->lockfd, F_SETLK, &u);
}

/* What a table slot pointed at before close or dup2 over it. */
static void
pl_drop(struct pl_file *prev)
{
	if (prev != NULL) {
		pl_lock_release(prev);
		pl_put(prev);
	}
}

/* close, dup and F_DUPFD change the table: 1 when fd is the shim's to
 * handle, 0 when it is libc's, -1 (EBADF) for one of the shim's own. */
int
pl_fd_claim(int fd)
{
	if (pl_busy)
		return 0;
	if (pl_own_fd(fd)) {
		errno = EBADF;
		return -1;
	}
	return pl_fd_hit(fd) && !pl_in_vfork();
}

int
pl_fd_close(int fd)
{
	struct pl_file *prev;
	int rc, saved;

	pl_std_flush(fd);
	pl_tab_lock();
	prev = pl_tab_set(fd, NULL);
	rc = REAL(close)(fd);
	saved = errno;
	pl_tab_unlock();
	pl_drop(prev);
	pl_std_sync(fd);
	errno = saved;
	return rc;
}

int
close(int fd)
{
	int c = pl_fd_claim(fd);

	return c == 0 ? REAL(close)(fd) : c < 0 ? -1 : pl_fd_close(fd);
}

/* Close [lo, hi] around the shim's own descriptors (all of them lie in
 * [floor, floor + PL_OWN_SPAN)). */
static int
pl_close_span(unsigned lo, unsigned hi, int flags)
{
	unsigned fd, start = lo, from, to;
	int rc = 0;

	from = lo > (unsigned)pl_own_floor() ? lo : (unsigned)pl_own_floor();
	to = (unsigned)pl_own_floor() + PL_OWN_SPAN - 1;
	to = hi < to ? hi : to;
	for (fd = from; pl_own_floor() > 0 && fd <= to; fd++) {
		if (!pl_own_fd((int)fd))
			continue;
		if (fd > start && REAL(close_range)(start, fd - 1, flags) != 0)
			rc = -1;
		start = fd + 1;
	}
	if (start <= hi && REAL(close_range)(start, hi, flags) != 0)
		rc = -1;
	return rc;
}

int
close_range(unsigned first, unsigned last, int flags)
{
	struct pl_file *prev;
	unsigned fd;
	int rc;

	if (pl_busy || !pl_active() || pl_in_vfork() || first > last ||
	    (flags & ~CLOSE_RANGE_UNSHARE))
		return REAL(close_range)(first, last, flags);
	/* Only a stream of ours: the program's own stdout is not flushed. */
	for (fd = first; fd <= 2 && fd <= last; fd++)
		if (pl_is_pvfs_fd((int)fd))
			pl_std_flush((int)fd);
	for (fd = first; fd <= last && fd < PL_FD_LIMIT; fd++) {
		if (!pl_is_pvfs_fd((int)fd))
			continue;
		pl_tab_lock();
		prev = pl_tab_set((int)fd, NULL);
		pl_tab_unlock();
		pl_drop(prev);
	}
	rc = pl_close_span(first, last, flags);
	for (fd = first; fd <= 2 && fd <= last; fd++)
		pl_std_sync((int)fd);
	return rc;
}

void
closefrom(int lowfd)
{
	(void)close_range(lowfd < 0 ? 0 : (unsigned)lowfd, ~0u, 0);
}

/* dup/F_DUPFD: the kernel picks the number; it shares old's file. */
int
pl_dupfd(int old, int cmd, int minfd)
{
	struct pl_file *f = pl_get(old), *prev;
	int nfd;

	pl_tab_lock();
	nfd = REAL(fcntl)(old, cmd, minfd);
	prev = nfd >= 0 ? pl_tab_set(nfd, f) : NULL;
	pl_tab_unlock();
	pl_put(prev);
	pl_put(f);
	pl_std_sync(nfd);
	return nfd;
}

int
dup(int fd)
{
	int c = pl_fd_claim(fd);

	return c == 0 ? REAL(dup)(fd) : c < 0 ? -1 : pl_dupfd(fd, F_DUPFD, 0);
}

static int
pl_dup3(int old, int nfd, int flags, int is_dup2)
{
	struct pl_file *f, *prev;
	int rc;

	if (pl_own_fd(old)) {
		errno = EBADF;
		return -1;
	}
	if (pl_own_fd(nfd)) {
		errno = EBUSY;
		return -1;
	}
	/* Between local descriptors (0..2 too): exactly libc's dup2, with no
	 * flush of the program's stdout/stderr. */
	if (pl_in_vfork() || (!pl_is_pvfs_fd(old) && !pl_is_pvfs_fd(nfd)))
		return is_dup2 ? REAL(dup2)(old, nfd) : REAL(dup3)(old, nfd, flags);
	if (old != nfd)
		pl_std_flush(nfd);
	f = pl_get(old);
	pl_tab_lock();
	rc = is_dup2 ? REAL(dup2)(old, nfd) : REAL(dup3)(old, nfd, flags);
	prev = rc == nfd && old != nfd ? pl_tab_set(nfd, f) : NULL;
	pl_tab_unlock();
	pl_drop(prev);
	pl_put(f);
	pl_std_sync(rc);
	return rc;
}

int
dup2(int old, int nfd)
{
	if (pl_busy || !pl_active())
		return REAL(dup2)(old, nfd);
	return pl_dup3(old, nfd, 0, 1);
}

int
dup3(int old, int nfd, int flags)
{
	if (pl_busy || !pl_active())
		return REAL(dup3)(old, nfd, flags);
	return pl_dup3(old, nfd, flags, 0);
}

/* ---- size, sync, allocation, advice ---- */

static int
pl_ftruncate(int fd, off_t len)
{
	struct pl_file *f = pl_file_get(fd);
	int rc = -1;

	if (f == NULL)
		return -1;
	if (len < 0 || f->isdir) {
		errno = EINVAL;
	} else {
		pl_busy++;
		rc = pvfs_file_truncate(f->h, (uint64_t)len);
		pl_busy--;
	}
	pl_put(f);
	return rc;
}

int
ftruncate(int fd, off_t len)
{
	return pl_fd_hit(fd) ? pl_ftruncate(fd, len) : REAL(ftruncate)(fd, len);
}

int
ftruncate64(int fd, off64_t len)
{
	return pl_fd_hit(fd) ? pl_ftruncate(fd, len) : REAL(ftruncate64)(fd, len);
}

static int
pl_sync(int fd, int datasync)
{
	struct pl_file *f = pl_get(fd);
	int rc;

	if (f == NULL)
		return REAL(fsync)(fd);
	pl_busy++;
	rc = f->h == NULL ? (errno = EIO, -1) : pvfs_file_sync(f->h, datasync);
	pl_busy--;
	pl_put(f);
	return rc;
}

int
fsync(int fd)
{
	return pl_fd_hit(fd) ? pl_sync(fd, 0) : REAL(fsync)(fd);
}

int
fdatasync(int fd)
{
	return pl_fd_hit(fd) ? pl_sync(fd, 1) : REAL(fdatasync)(fd);
}

int
syncfs(int fd)
{
	return pl_fd_hit(fd) ? 0 : REAL(syncfs)(fd);
}

/* Mode 0 grows the file to off + len (holes read as zeros). */
static int
pl_fallocate(int fd, int mode, off_t off, off_t len)
{
	struct pl_file *f = pl_get(fd);
	uint64_t size;
	int rc = 0;

	if (f == NULL || f->h == NULL) {
		pl_put(f);
		return EBADF;
	}
	pl_busy++;
	if (off < 0 || len <= 0)
		rc = EINVAL;
	else if (mode & ~FALLOC_FL_KEEP_SIZE)
		rc = EOPNOTSUPP;
	else if (!(mode & FALLOC_FL_KEEP_SIZE) &&
	    (pvfs_file_size(f->h, &size) != 0 ||
	    ((uint64_t)off + (uint64_t)len > size &&
	    pvfs_file_truncate(f->h, (uint64_t)off + (uint64_t)len) != 0)))
		rc = errno;
	pl_busy--;
	pl_put(f);
	return rc;
}

int
fallocate(int fd, int mode, off_t off, off_t len)
{
	int rc;

	if (!pl_fd_hit(fd))
		return REAL(fallocate)(fd, mode, off, len);
	if ((rc = pl_fallocate(fd, mode, off, len)) != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

int
fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	return fallocate(fd, mode, off, len);
}

int
posix_fallocate(int fd, off_t off, off_t len)
{
	if (!pl_fd_hit(fd))
		return REAL(posix_fallocate)(fd, off, len);
	return pl_fallocate(fd, 0, off, len);
}

int
posix_fallocate64(int fd, off64_t off, off64_t len)
{
	if (!pl_fd_hit(fd))
		return REAL(posix_fallocate64)(fd, off, len);
	return pl_fallocate(fd, 0, off, len);
}

int
posix_fadvise(int fd, off_t off, off_t len, int advice)
{
	return pl_fd_hit(fd) ? 0 : REAL(posix_fadvise)(fd, off, len, advice);
}

int
posix_fadvise64(int fd, off64_t off, off64_t len, int advice)
{
	return pl_fd_hit(fd) ? 0 : REAL(posix_fadvise64)(fd, off, len, advice);
}

/* ---- copies between descriptors ---- */

/* The kernel's copies (copy_file_range, sendfile) cannot reach PVFS: the
 * shim copies through a buffer.  An offset pointer reads or writes there
 * and moves it, leaving the descriptor's offset alone; without one the
 * descriptor's offset is used and moved.  Stops at end of file; a short
 * count after an error, or -1 when nothing was copied. */
static ssize_t
pl_copy_pass(int in, off64_t *in_off, int out, off64_t *out_off, size_t count,
    int once);

static ssize_t
pl_copy(int in, off64_t *in_off, int out, off64_t *out_off, size_t count)
{
	return pl_copy_pass(in, in_off, out, out_off, count, 0);
}

/* once: a single read and its writes, for a pipe that may hold less than
 * count and must not be waited on for more. */
static ssize_t
pl_copy_pass(int in, off64_t *in_off, int out, off64_t *out_off, size_t count,
    int once)
{
	size_t chunk = count < PL_COPY_CHUNK ? count : PL_COPY_CHUNK;
	char *buf = malloc(chunk ? chunk : 1);
	ssize_t n, w, total = 0;

	if (buf == NULL)
		return -1;
	while ((size_t)total < count) {
		chunk = count - (size_t)total < PL_COPY_CHUNK ?
		    count - (size_t)total : PL_COPY_CHUNK;
		n = in_off != NULL ? pread64(in, buf, chunk, *in_off) :
		    pl_fd_read(in, buf, chunk);
		if (n <= 0) {
			if (n < 0 && total == 0)
				total = -1;
			break;
		}
		for (w = 0; w < n; ) {
			ssize_t k = out_off != NULL ?
			    pwrite64(out, buf + w, (size_t)(n - w), *out_off) :
			    pl_fd_write(out, buf + w, (size_t)(n - w));

			if (k <= 0) {
				/* The bytes read but not written are
				 * unread again where an offset moved. */
				if (in_off == NULL && n - w > 0)
					(void)lseek64(in, -(off64_t)(n - w), SEEK_CUR);
				free(buf);
				return total > 0 ? total : -1;
			}
			w += k;
			total += k;
			if (out_off != NULL)
				*out_off += k;
			if (in_off != NULL)
				*in_off += k;
		}
		if (once)
			break;
	}
	free(buf);
	return total;
}

/* copy_file_range: PVFS on either side is copied by the shim (callers
 * such as cp loop until it returns 0, so it must move the bytes). */
ssize_t
copy_file_range(int in, off64_t *in_off, int out, off64_t *out_off, size_t len,
    unsigned flags)
{
	if (!pl_fd_hit(in) && !pl_fd_hit(out))
		return REAL(copy_file_range)(in, in_off, out, out_off, len, flags);
	if (flags != 0) {
		errno = EINVAL;
		return -1;
	}
	if (pl_fd_hit(out) && (fcntl(out, F_GETFL) & O_APPEND)) {
		errno = EBADF; /* as the kernel: no appending copies */
		return -1;
	}
	return pl_copy(in, in_off, out, out_off, len);
}

static int
pl_is_pipe(int fd)
{
	struct stat st;

	return REAL(fstat)(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/* splice between a PVFS file and a pipe: the shim moves one buffer's
 * worth per call, as the kernel moves at most a pipe's worth.  The
 * kernel's rules stay: a pipe on one side (EINVAL), no offset for the
 * pipe (ESPIPE).  SPLICE_F_NONBLOCK is the pipe's own O_NONBLOCK here. */
ssize_t
splice(int in, off64_t *in_off, int out, off64_t *out_off, size_t len,
    unsigned flags)
{
	int pin = pl_fd_hit(in), pout = pl_fd_hit(out);

	if (!pin && !pout)
		return REAL(splice)(in, in_off, out, out_off, len, flags);
	if (pin == pout || !pl_is_pipe(pin ? out : in)) {
		errno = EINVAL;
		return -1;
	}
	if ((pin ? out_off : in_off) != NULL) {
		errno = ESPIPE;
		return -1;
	}
	if (len > PL_SPLICE_MAX)
		len = PL_SPLICE_MAX;
	return pl_copy_pass(in, in_off, out, out_off, len, 1);
}

ssize_t
sendfile(int out, int in, off_t *off, size_t count)
{
	off64_t o;
	ssize_t n;

	if (!pl_fd_hit(in) && !pl_fd_hit(out))
		return REAL(sendfile)(out, in, off, count);
	if (off == NULL)
		return pl_copy(in, NULL, out, NULL, count);
	o = *off;
	n = pl_copy(in, &o, out, NULL, count);
	*off = (off_t)o;
	return n;
}

ssize_t
sendfile64(int out, int in, off64_t *off, size_t count)
{
	if (pl_fd_hit(in) || pl_fd_hit(out))
		return pl_copy(in, off, out, NULL, count);
	return REAL(sendfile64)(out, in, off, count);
}

/* ---- mmap: a private copy; shared writable mappings cannot work ---- */

static void *
pl_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p;
	ssize_t n = 0;
	size_t got = 0;

	if ((flags & MAP_SHARED) && (prot & PROT_WRITE)) {
		errno = ENODEV;
		return MAP_FAILED;
	}
	flags = (flags & ~(MAP_SHARED | MAP_SHARED_VALIDATE)) | MAP_PRIVATE | MAP_ANONYMOUS;
	p = REAL(mmap)(addr, len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED)
		return p;
	while (got < len && (n = pread(fd, (char *)p + got, len - got,
	    off + (off_t)got)) > 0)
		got += (size_t)n;
	if (n < 0 || mprotect(p, len, prot) != 0) {
		int saved = errno;

		munmap(p, len);
		errno = saved;
		return MAP_FAILED;
	}
	return p;
}

void *
mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if ((flags & MAP_ANONYMOUS) || !pl_fd_hit(fd))
		return REAL(mmap)(addr, len, prot, flags, fd, off);
	return pl_mmap(addr, len, prot, flags, fd, off);
}

void *
mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if ((flags & MAP_ANONYMOUS) || !pl_fd_hit(fd))
		return REAL(mmap64)(addr, len, prot, flags, fd, off);
	return pl_mmap(addr, len, prot, flags, fd, off);
}
