/*
 * file.c - descriptors and the calls on open files.
 *
 * Each pvfs descriptor is a real descriptor number, reserved by opening
 * /dev/null (CLOEXEC), so it can never collide with the process's own
 * files.  The table maps it to a refcounted open file description: an
 * open file of pvfs-file.c with the offset and the partition view that
 * dup'ed descriptors share, as in POSIX.  Everything else is done by
 * pvfs-file.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pvfs-internal.h"

#define FILE_OFF_MAX ((uint64_t)INT64_MAX)
#define FILE_SEGS 3 /* segments of a partitioned transfer kept on the stack */

static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER;
static struct file_desc **file_tab;
static int file_tab_size;

void
pvfs_fdtab_atfork_prepare(void)
{
	pthread_mutex_lock(&file_lock);
}

void
pvfs_fdtab_atfork_parent(void)
{
	pthread_mutex_unlock(&file_lock);
}

/* A thread of the parent may have held a description's pos_lock (it is
 * kept across network waits) or view_lock at the fork; that thread does
 * not exist here, so the child would wait on it forever.  file_lock is
 * held, so the table is stable.  pvfs-file.c resets the open files. */
void
pvfs_fdtab_atfork_child(void)
{
	int fd;

	for (fd = 0; fd < file_tab_size; fd++) {
		if (file_tab[fd] == NULL)
			continue;
		pthread_mutex_init(&file_tab[fd]->pos_lock, NULL);
		pthread_mutex_init(&file_tab[fd]->view_lock, NULL);
	}
	pthread_mutex_unlock(&file_lock);
}

/* Grow the table (no fixed limit) so that fd fits.  file_lock is held. */
static int
file_tab_fit(int fd)
{
	struct file_desc **nt;
	int n = file_tab_size ? file_tab_size : 64;

	if (fd < file_tab_size)
		return 0;
	while (n <= fd)
		n = n > INT_MAX / 2 ? fd + 1 : n * 2;
	if ((nt = realloc(file_tab, sizeof(*nt) * (size_t)n)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memset(nt + file_tab_size, 0, sizeof(*nt) * (size_t)(n - file_tab_size));
	file_tab = nt;
	file_tab_size = n;
	return 0;
}

/* file_lock is held. */
static struct file_desc *
file_lookup(int fd)
{
	return fd >= 0 && fd < file_tab_size ? file_tab[fd] : NULL;
}

struct file_desc *
pvfs_fdtab_get(int fd)
{
	struct file_desc *d;

	pthread_mutex_lock(&file_lock);
	if ((d = file_lookup(fd)) != NULL)
		d->refs++;
	pthread_mutex_unlock(&file_lock);
	if (d == NULL)
		errno = EBADF;
	return d;
}

void
pvfs_fdtab_put(struct file_desc *d)
{
	int last;

	pthread_mutex_lock(&file_lock);
	last = --d->refs == 0;
	pthread_mutex_unlock(&file_lock);
	if (!last)
		return;
	pvfs_file_close(d->f);
	pthread_mutex_destroy(&d->pos_lock);
	pthread_mutex_destroy(&d->view_lock);
	free(d);
}

/* Reserve a descriptor number and publish d under it. */
static int
file_install(struct file_desc *d)
{
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC), saved;

	if (fd == -1)
		return -1;
	pthread_mutex_lock(&file_lock);
	if (file_tab_fit(fd) != 0) {
		saved = errno;
		pthread_mutex_unlock(&file_lock);
		close(fd);
		errno = saved;
		return -1;
	}
	file_tab[fd] = d;
	pthread_mutex_unlock(&file_lock);
	return fd;
}

static int
file_open_path(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *meta, int copies)
{
	struct pvfs_file *f;
	struct file_desc *d;
	int fd;

	f = pvfs_file_open_copies(path, flags, mode & ~pvfs_client_umask(),
	    meta, copies);
	if (f == NULL)
		return -1;
	if (S_ISFIFO(f->mode)) {
		/* A FIFO's I/O is a kernel's: the shim opens a local one. */
		pvfs_file_close(f);
		errno = ENXIO;
		return -1;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL) {
		pvfs_file_close(f);
		errno = ENOMEM;
		return -1;
	}
	d->f = f;
	d->refs = 1;
	pthread_mutex_init(&d->pos_lock, NULL);
	pthread_mutex_init(&d->view_lock, NULL);
	if ((fd = file_install(d)) == -1)
		pvfs_fdtab_put(d);
	return fd;
}

int
pvfs_open(const char *path, int flags, ...)
{
	struct pvfs_filestat *meta = NULL;
	mode_t mode = 0;
	va_list ap;

	if ((flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	va_start(ap, flags);
	if (flags & (O_CREAT | PVFS_O_META))
		mode = (mode_t)va_arg(ap, int);
	if (flags & PVFS_O_META)
		meta = va_arg(ap, struct pvfs_filestat *);
	va_end(ap);
	return file_open_path(path, flags & ~PVFS_O_META, mode, meta, 0);
}

int
pvfs_open_mirror(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *meta, int copies)
{
	if ((flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return file_open_path(path, flags & ~PVFS_O_META, mode, meta, copies);
}

int
pvfs_creat(const char *path, mode_t mode)
{
	return pvfs_open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* The descriptor is released under the table lock so that its number
 * cannot be handed out (or dup2'ed onto) while it still maps to d. */
int
pvfs_close(int fd)
{
	struct file_desc *d;
	int rc;

	pthread_mutex_lock(&file_lock);
	if ((d = file_lookup(fd)) == NULL) {
		pthread_mutex_unlock(&file_lock);
		errno = EBADF;
		return -1;
	}
	file_tab[fd] = NULL;
	close(fd);
	pthread_mutex_unlock(&file_lock);
	/* A buffered file's writes go now, and their error is close's. */
	if ((rc = pvfs_buffered_flush(d->f)) != 0)
		rc = errno;
	pvfs_fdtab_put(d);
	if (rc != 0) {
		errno = rc;
		return -1;
	}
	return 0;
}

int
pvfs_is_pvfs_fd(int fd)
{
	int rc;

	pthread_mutex_lock(&file_lock);
	rc = file_lookup(fd) != NULL;
	pthread_mutex_unlock(&file_lock);
	return rc;
}

/* ---- data ---- */

/* A view that maps position p to file offset part.offset + p. */
static int
file_part_contig(const struct pvfs_part *part)
{
	return part->gsize == 0 || part->stride == 0 ||
	    part->gsize == part->stride;
}

/* The file segments behind view bytes [pos, pos + total): in *seg when
 * they fit FILE_SEGS, else in a malloc'd array.  Their number, or 0 with
 * errno. */
static uint32_t
file_map(int write, const struct pvfs_part *part, uint64_t pos,
    uint64_t total, struct pvfs_pattern **seg)
{
	uint32_t max = pvfs_part_nseg(part, total), n;

	if (file_part_contig(part) && (pos > FILE_OFF_MAX - part->offset ||
	    total > FILE_OFF_MAX - part->offset - pos)) {
		errno = write ? EFBIG : EINVAL;
		return 0;
	}
	if (max > PVFS_LIST_MAX) {
		errno = EINVAL;
		return 0;
	}
	if (max > FILE_SEGS && (*seg = malloc(sizeof(**seg) * max)) == NULL) {
		errno = ENOMEM;
		return 0;
	}
	if ((n = pvfs_part_map(part, pos, total, *seg, max)) == 0)
		errno = write ? EFBIG : EINVAL;
	return n;
}

/* ONE engine call for the whole transfer, whatever the iovec count: a
 * view crossing groups of a partition is one strided request per iod
 * (more only past PVFS_LIST_MAX_WORK, see pvfs_file_segs). */
static ssize_t
file_rw(struct file_desc *d, int write, const struct iovec *iov, int iovcnt,
    const struct pvfs_part *part, uint64_t pos, uint64_t total)
{
	struct pvfs_pattern few[FILE_SEGS], *seg = few;
	uint32_t nseg;
	ssize_t n = -1;

	if (total == 0)
		return 0;
	if ((nseg = file_map(write, part, pos, total, &seg)) > 0)
		n = pvfs_file_segs(d->f, write, seg, nseg, iov, iovcnt);
	if (seg != few)
		free(seg);
	return n;
}

/* A read is cut at the view position of the largest offset; one starting
 * there reads nothing (in any view, as for a file without one). */
static void
file_clip_read(int write, const struct pvfs_part *part, uint64_t pos,
    uint64_t *total)
{
	uint64_t limit;

	if (write)
		return;
	limit = pvfs_part_view_size(part, FILE_OFF_MAX);
	if (pos >= limit)
		*total = 0;
	else if (*total > limit - pos)
		*total = limit - pos;
}

static ssize_t
file_prw(int fd, int write, const struct iovec *iov, int iovcnt, off_t off)
{
	struct file_desc *d;
	struct pvfs_part part;
	ssize_t total = pvfs_file_iov_total(iov, iovcnt), n = -1;
	uint64_t len;

	if (total < 0)
		return -1;
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((d = pvfs_fdtab_get(fd)) == NULL)
		return -1;
	pthread_mutex_lock(&d->view_lock); /* not pos_lock: held across I/O */
	part = d->part;
	pthread_mutex_unlock(&d->view_lock);
	len = (uint64_t)total;
	file_clip_read(write, &part, (uint64_t)off, &len);
	if (pvfs_file_access(d->f, write) == 0)
		n = file_rw(d, write, iov, iovcnt, &part, (uint64_t)off, len);
	pvfs_fdtab_put(d);
	return n;
}

/* Where a write on d starts: the offset, or the logical size for
 * O_APPEND (not atomic against other clients, as in PVFS 1). */
static int
file_write_start(struct file_desc *d, int write, uint64_t *off)
{
	uint64_t size;

	*off = d->pos;
	if (!write || !(d->f->flags & O_APPEND))
		return 0;
	if (pvfs_file_size(d->f, &size) != 0)
		return -1;
	*off = pvfs_part_view_size(&d->part, size);
	return 0;
}

/* read/write/readv/writev: the offset is held for the whole transfer so
 * that threads sharing the description see POSIX-atomic updates. */
static ssize_t
file_seq_rw(int fd, int write, const struct iovec *iov, int iovcnt)
{
	struct file_desc *d;
	ssize_t total = pvfs_file_iov_total(iov, iovcnt), n = -1;
	uint64_t off, len;

	if (total < 0 || (d = pvfs_fdtab_get(fd)) == NULL)
		return -1;
	len = (uint64_t)total;
	if (pvfs_file_access(d->f, write) != 0) {
		pvfs_fdtab_put(d);
		return -1;
	}
	pthread_mutex_lock(&d->pos_lock);
	if (file_write_start(d, write, &off) == 0) {
		file_clip_read(write, &d->part, off, &len);
		n = file_rw(d, write, iov, iovcnt, &d->part, off, len);
	}
	if (n > 0)
		d->pos = off + (uint64_t)n;
	pthread_mutex_unlock(&d->pos_lock);
	pvfs_fdtab_put(d);
	return n;
}

static size_t
file_clip_count(size_t count)
{
	return count > SSIZE_MAX ? SSIZE_MAX : count;
}

ssize_t
pvfs_read(int fd, void *buf, size_t count)
{
	struct iovec v = { buf, file_clip_count(count) };

	return file_seq_rw(fd, 0, &v, 1);
}

ssize_t
pvfs_write(int fd, const void *buf, size_t count)
{
	struct iovec v = { (void *)buf, file_clip_count(count) };

	return file_seq_rw(fd, 1, &v, 1);
}

ssize_t
pvfs_pread(int fd, void *buf, size_t count, off_t offset)
{
	struct iovec v = { buf, file_clip_count(count) };

	return file_prw(fd, 0, &v, 1, offset);
}

ssize_t
pvfs_pwrite(int fd, const void *buf, size_t count, off_t offset)
{
	struct iovec v = { (void *)buf, file_clip_count(count) };

	return file_prw(fd, 1, &v, 1, offset);
}

ssize_t
pvfs_readv(int fd, const struct iovec *iov, int iovcnt)
{
	return file_seq_rw(fd, 0, iov, iovcnt);
}

ssize_t
pvfs_writev(int fd, const struct iovec *iov, int iovcnt)
{
	return file_seq_rw(fd, 1, iov, iovcnt);
}

/* ---- offset, size, sync ---- */

/* The base SEEK_* counts from; SEEK_DATA/SEEK_HOLE see one data extent
 * (holes are not tracked), as many local file systems report. */
static int
file_seek_base(struct file_desc *d, off_t offset, int whence, int64_t *base)
{
	uint64_t size;

	if (whence == SEEK_SET || whence == SEEK_CUR) {
		*base = whence == SEEK_SET ? 0 : (int64_t)d->pos;
		return 0;
	}
	if (whence != SEEK_END && whence != SEEK_DATA && whence != SEEK_HOLE) {
		errno = EINVAL;
		return -1;
	}
	if (pvfs_file_size(d->f, &size) != 0)
		return -1;
	size = pvfs_part_view_size(&d->part, size);
	if (whence != SEEK_END && (offset < 0 || (uint64_t)offset >= size)) {
		errno = offset < 0 ? EINVAL : ENXIO;
		return -1;
	}
	if (whence == SEEK_END)
		*base = (int64_t)size;
	else
		*base = whence == SEEK_HOLE ? (int64_t)size - offset : 0;
	return 0;
}

off_t
pvfs_lseek(int fd, off_t offset, int whence)
{
	struct file_desc *d = pvfs_fdtab_get(fd);
	int64_t base, pos = -1;

	if (d == NULL)
		return -1;
	pthread_mutex_lock(&d->pos_lock);
	if (file_seek_base(d, offset, whence, &base) == 0) {
		if (__builtin_add_overflow(base, (int64_t)offset, &pos)) {
			errno = EOVERFLOW;
			pos = -1;
		} else if (pos < 0) {
			errno = EINVAL;
			pos = -1;
		} else {
			d->pos = (uint64_t)pos;
		}
	}
	pthread_mutex_unlock(&d->pos_lock);
	pvfs_fdtab_put(d);
	return (off_t)pos;
}

int
pvfs_ftruncate(int fd, off_t length)
{
	struct file_desc *d = pvfs_fdtab_get(fd);
	int rc = -1;

	if (d == NULL)
		return -1;
	if (length < 0)
		errno = EINVAL;
	else
		rc = pvfs_file_truncate(d->f, (uint64_t)length);
	pvfs_fdtab_put(d);
	return rc;
}

static int
file_sync(int fd, int datasync)
{
	struct file_desc *d = pvfs_fdtab_get(fd);
	int rc;

	if (d == NULL)
		return -1;
	rc = pvfs_file_sync(d->f, datasync);
	pvfs_fdtab_put(d);
	return rc;
}

int
pvfs_fsync(int fd)
{
	return file_sync(fd, 0);
}

int
pvfs_fdatasync(int fd)
{
	return file_sync(fd, 1);
}

/* ---- descriptors ---- */

int
pvfs_dup(int fd)
{
	struct file_desc *d = pvfs_fdtab_get(fd);
	int nfd;

	if (d == NULL)
		return -1;
	pthread_mutex_lock(&file_lock);
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (nfd != -1 && file_tab_fit(nfd) != 0) {
		close(nfd);
		nfd = -1;
	}
	if (nfd != -1) {
		file_tab[nfd] = d; /* keeps the reference pvfs_fdtab_get took */
		d = NULL;
	}
	pthread_mutex_unlock(&file_lock);
	if (d != NULL)
		pvfs_fdtab_put(d);
	return nfd;
}

/* Like dup2(2): whatever newfd was is closed first, a pvfs file included. */
int
pvfs_dup2(int oldfd, int newfd)
{
	struct file_desc *d, *prev = NULL;
	int rc = -1;

	pthread_mutex_lock(&file_lock);
	if ((d = file_lookup(oldfd)) == NULL || newfd < 0) {
		errno = EBADF;
	} else if (oldfd == newfd) {
		rc = newfd;
	} else if (dup3(oldfd, newfd, O_CLOEXEC) != -1) {
		if (file_tab_fit(newfd) == 0) {
			prev = file_tab[newfd];
			file_tab[newfd] = d;
			d->refs++;
			rc = newfd;
		} else {
			close(newfd);
		}
	}
	pthread_mutex_unlock(&file_lock);
	if (prev != NULL)
		pvfs_fdtab_put(prev);
	return rc;
}

static int
file_getmeta(struct file_desc *d, struct pvfs_filestat *m)
{
	struct pvfs_file_info info;

	pvfs_file_info(d->f, &info);
	*m = info.dist;
	return 0;
}

/* As in PVFS 1, SETPART resets the offset to 0; gstride and ngroups are
 * kept for GETPART but unused.  The partition changes under both pos_lock
 * (no read or write of the offset is in progress) and view_lock (pread
 * and GETPART, which must not wait for such a transfer, read it under
 * it). */
static int
file_setpart(struct file_desc *d, const struct pvfs_fpart *p)
{
	if (p->offset < 0 || p->gsize < 0 || p->stride < 0 ||
	    (p->gsize > 0 && p->stride > 0 && p->stride < p->gsize)) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&d->pos_lock);
	pthread_mutex_lock(&d->view_lock);
	d->fpart = *p;
	d->part.offset = (uint64_t)p->offset;
	d->part.gsize = (uint64_t)p->gsize;
	d->part.stride = (uint64_t)p->stride;
	pthread_mutex_unlock(&d->view_lock);
	d->pos = 0;
	pthread_mutex_unlock(&d->pos_lock);
	return 0;
}

static int
file_getpart(struct file_desc *d, struct pvfs_fpart *p)
{
	pthread_mutex_lock(&d->view_lock);
	*p = d->fpart;
	pthread_mutex_unlock(&d->view_lock);
	return 0;
}

int
pvfs_ioctl(int fd, unsigned long request, ...)
{
	struct file_desc *d = pvfs_fdtab_get(fd);
	void *arg;
	va_list ap;
	int rc = -1;

	if (d == NULL)
		return -1;
	if (request != PVFS_GETMETA && request != PVFS_SETPART &&
	    request != PVFS_GETPART) {
		pvfs_fdtab_put(d);
		errno = ENOTTY;
		return -1;
	}
	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (arg == NULL)
		errno = EFAULT;
	else if (request == PVFS_GETMETA)
		rc = file_getmeta(d, arg);
	else if (!S_ISREG(d->f->mode))
		errno = EINVAL;
	else if (request == PVFS_SETPART)
		rc = file_setpart(d, arg);
	else
		rc = file_getpart(d, arg);
	pvfs_fdtab_put(d);
	return rc;
}

/* Where part rel of an open file lives: the iod's "host:port" and its
 * index in the file system's iod table. */
int
pvfs_getiod(int fd, int rel, char *addr, size_t len)
{
	struct file_desc *d = pvfs_fdtab_get(fd);
	int rc;

	if (d == NULL)
		return -1;
	if (rel < 0) {
		pvfs_fdtab_put(d);
		errno = EINVAL;
		return -1;
	}
	rc = pvfs_file_iod(d->f, (uint32_t)rel, addr, len);
	pvfs_fdtab_put(d);
	return rc;
}
