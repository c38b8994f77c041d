/*
 * file.c - descriptors and the calls on open files.
 *
 * Each pvfs descriptor is a real descriptor number, reserved by opening
 * /dev/null (CLOEXEC), so it can never collide with the process's own
 * files.  The table maps it to a refcounted open file; dup'ed descriptors
 * share one open file and so one offset, as in POSIX.
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
static struct file_open **file_tab;
static int file_tab_size;

void
file_atfork_prepare(void)
{
	pthread_mutex_lock(&file_lock);
}

void
file_atfork_parent(void)
{
	pthread_mutex_unlock(&file_lock);
}

/* A thread of the parent may have held an open file's pos_lock (it is
 * kept across network waits) or cap_lock at the fork; that thread does
 * not exist here, so the child would wait on it forever.  file_lock is
 * held, so the table is stable. */
void
file_atfork_child(void)
{
	int fd;

	for (fd = 0; fd < file_tab_size; fd++) {
		if (file_tab[fd] == NULL)
			continue;
		pthread_mutex_init(&file_tab[fd]->pos_lock, NULL);
		pthread_mutex_init(&file_tab[fd]->cap_lock, NULL);
	}
	pthread_mutex_unlock(&file_lock);
}

/* Grow the table (no fixed limit) so that fd fits.  file_lock is held. */
static int
file_tab_fit(int fd)
{
	struct file_open **nt;
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
static struct file_open *
file_lookup(int fd)
{
	return fd >= 0 && fd < file_tab_size ? file_tab[fd] : NULL;
}

struct file_open *
file_get(int fd)
{
	struct file_open *of;

	pthread_mutex_lock(&file_lock);
	if ((of = file_lookup(fd)) != NULL)
		of->refs++;
	pthread_mutex_unlock(&file_lock);
	if (of == NULL)
		errno = EBADF;
	return of;
}

void
file_put(struct file_open *of)
{
	int last;

	pthread_mutex_lock(&file_lock);
	last = --of->refs == 0;
	pthread_mutex_unlock(&file_lock);
	if (!last)
		return;
	pthread_mutex_destroy(&of->pos_lock);
	pthread_mutex_destroy(&of->cap_lock);
	free(of);
}

void
file_io(struct file_open *of, struct io_file *f)
{
	memset(f, 0, sizeof(*f));
	f->fs = of->fs;
	f->ino = of->ino;
	pthread_mutex_lock(&of->cap_lock);
	f->cap = of->cap;
	pthread_mutex_unlock(&of->cap_lock);
	f->want_rights = f->cap.rights & (PVFS_R_READ | PVFS_R_WRITE | PVFS_R_SIZE);
}

void
file_io_done(struct file_open *of, const struct io_file *f)
{
	if (!f->refreshed)
		return;
	pthread_mutex_lock(&of->cap_lock);
	of->cap = f->cap;
	pthread_mutex_unlock(&of->cap_lock);
}

/* Reserve a descriptor number and publish of under it. */
static int
file_install(struct file_open *of)
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
	file_tab[fd] = of;
	pthread_mutex_unlock(&file_lock);
	return fd;
}

uint32_t
file_wire_flags(int flags)
{
	uint32_t w;

	switch (flags & O_ACCMODE) {
	case O_WRONLY:
		w = PVFS_OF_WRONLY;
		break;
	case O_RDWR:
		w = PVFS_OF_RDWR;
		break;
	default:
		w = PVFS_OF_RDONLY;
		break;
	}
	if (flags & O_CREAT)
		w |= PVFS_OF_CREAT;
	if (flags & O_EXCL)
		w |= PVFS_OF_EXCL;
	if (flags & O_TRUNC)
		w |= PVFS_OF_TRUNC;
	if (flags & O_DIRECTORY)
		w |= PVFS_OF_DIRECTORY;
	return w;
}

/* One pvfs_filestat field: -1 asks for the default, and so does 0 for
 * pcount and ssize (PVFS 1 programs often zero the struct); any other
 * negative value is invalid.  The mgr checks the ranges. */
static int
file_dist_field(int32_t v, int zero_default, uint32_t *out)
{
	if (v == -1 || (v == 0 && zero_default)) {
		*out = PVFS_DIST_DEFAULT;
		return 0;
	}
	if (v < 0) {
		errno = EINVAL;
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

static int
file_dist(const struct pvfs_filestat *m, struct pvfs_dist *d)
{
	d->base = d->pcount = d->ssize = PVFS_DIST_DEFAULT;
	if (m == NULL)
		return 0;
	if (file_dist_field(m->base, 0, &d->base) != 0 ||
	    file_dist_field(m->pcount, 1, &d->pcount) != 0 ||
	    file_dist_field(m->ssize, 1, &d->ssize) != 0)
		return -1;
	return 0;
}

static struct file_open *
file_new(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *rep,
    int flags)
{
	struct file_open *of = calloc(1, sizeof(*of));

	if (of == NULL)
		return NULL;
	of->fs = fs;
	of->ino = rep->attr.ino;
	of->mode = rep->attr.mode;
	of->flags = flags;
	of->refs = 1;
	of->cap = rep->cap;
	pthread_mutex_init(&of->pos_lock, NULL);
	pthread_mutex_init(&of->cap_lock, NULL);
	return of;
}

/* O_TRUNC: the mgr checked the permission; the data lives on the iods. */
static int
file_open_trunc(struct file_open *of)
{
	struct io_file f;
	int rc;

	if (!S_ISREG(of->mode) || !(of->cap.rights & PVFS_R_WRITE))
		return 0;
	file_io(of, &f);
	rc = io_truncate(&f, 0);
	file_io_done(of, &f);
	return rc;
}

static int
file_open_path(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *meta)
{
	struct pvfs_mgr_open_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;
	struct file_open *of;
	int fd;

	if ((flags & O_ACCMODE) == O_ACCMODE) {
		errno = EINVAL;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	if (file_dist(meta, &req.dist) != 0 ||
	    client_resolve(path, &fs, req.path) != 0)
		return -1;
	client_cred(&req.cred);
	req.flags = file_wire_flags(flags);
	req.mode = mode & ~client_umask() & 07777;
	if (conn_rpc(fs, PVFS_MGR_OPEN, &req, &rep) != 0)
		return -1;
	if ((of = file_new(fs, &rep, flags)) == NULL)
		return -1;
	if (((flags & O_TRUNC) && file_open_trunc(of) != 0) ||
	    (fd = file_install(of)) == -1) {
		file_put(of);
		return -1;
	}
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
	return file_open_path(path, flags & ~PVFS_O_META, mode, meta);
}

int
pvfs_creat(const char *path, mode_t mode)
{
	return pvfs_open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
}

/* The descriptor is released under the table lock so that its number
 * cannot be handed out (or dup2'ed onto) while it still maps to of. */
int
pvfs_close(int fd)
{
	struct file_open *of;

	pthread_mutex_lock(&file_lock);
	if ((of = file_lookup(fd)) == NULL) {
		pthread_mutex_unlock(&file_lock);
		errno = EBADF;
		return -1;
	}
	file_tab[fd] = NULL;
	close(fd);
	pthread_mutex_unlock(&file_lock);
	file_put(of);
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

ssize_t
file_iov_total(const struct iovec *iov, int iovcnt)
{
	size_t total = 0;
	int i;

	if (iovcnt < 0 || iovcnt > IOV_MAX || (iovcnt > 0 && iov == NULL)) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > (size_t)SSIZE_MAX - total) {
			errno = EINVAL;
			return -1;
		}
		total += iov[i].iov_len;
	}
	return (ssize_t)total;
}

int
file_check_access(const struct file_open *of, int write)
{
	int acc = of->flags & O_ACCMODE;

	if (write ? acc == O_RDONLY : acc == O_WRONLY) {
		errno = EBADF;
		return -1;
	}
	if (!S_ISREG(of->mode)) {
		errno = S_ISDIR(of->mode) ? EISDIR : EINVAL;
		return -1;
	}
	return 0;
}

int
file_sync_after_write(struct file_open *of, struct io_file *f)
{
	if ((of->flags & O_SYNC) == O_SYNC)
		return io_fsync(f, 0);
	if (of->flags & O_DSYNC)
		return io_fsync(f, 1);
	return 0;
}

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

/* Drop the first n bytes of iovecs that are ours to modify. */
static void
file_iov_skip(struct iovec **iov, int *iovcnt, uint64_t n)
{
	while (n > 0 && *iovcnt > 0) {
		if (n < (*iov)->iov_len) {
			(*iov)->iov_base = (char *)(*iov)->iov_base + n;
			(*iov)->iov_len -= n;
			return;
		}
		n -= (*iov)->iov_len;
		(*iov)++;
		(*iovcnt)--;
	}
}

static ssize_t
file_segs_once(struct io_file *f, int write, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt)
{
	return write ? io_write_segs(f, seg, nseg, iov, iovcnt) :
	    io_read_segs(f, seg, nseg, iov, iovcnt);
}

/* One engine call per round of segments that one list request may carry
 * (pvfs_list_round: PVFS_LIST_MAX_WORK, doc/noncontig.md).  Shared with
 * listio.c, whose iovecs are its own to consume. */
ssize_t
file_segs_rounds(struct io_file *f, int write, const struct pvfs_pattern *seg,
    uint32_t nseg, struct iovec *iov, int iovcnt)
{
	const struct pvfs_dist *d = &f->cap.dist;
	uint32_t i, n;
	uint64_t done = 0, want;
	ssize_t got = 0;

	for (i = 0; i < nseg; i += n) {
		n = pvfs_list_round(&seg[i], nseg - i, d->pcount, d->ssize);
		want = pvfs_list_bytes(&seg[i], n);
		if ((got = file_segs_once(f, write, &seg[i], n, iov, iovcnt)) < 0)
			break;
		done += (uint64_t)got;
		if ((uint64_t)got < want)
			break;
		file_iov_skip(&iov, &iovcnt, want);
	}
	return got < 0 ? -1 : (ssize_t)done;
}

/* The caller's iovecs are const: nearly always a single round, which
 * needs no copy of them to consume. */
static ssize_t
file_segs(struct io_file *f, int write, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt)
{
	const struct pvfs_dist *d = &f->cap.dist;
	struct iovec *copy;
	ssize_t n;

	if (pvfs_list_round(seg, nseg, d->pcount, d->ssize) == nseg)
		return file_segs_once(f, write, seg, nseg, iov, iovcnt);
	if ((copy = malloc(sizeof(*copy) * (size_t)iovcnt)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(copy, iov, sizeof(*copy) * (size_t)iovcnt);
	n = file_segs_rounds(f, write, seg, nseg, copy, iovcnt);
	free(copy);
	return n;
}

/* ONE engine call for the whole transfer, whatever the iovec count: a
 * view crossing groups of a partition is one strided request per iod
 * (more only past PVFS_LIST_MAX_WORK, see file_segs). */
static ssize_t
file_rw(struct file_open *of, int write, const struct iovec *iov, int iovcnt,
    const struct pvfs_part *part, uint64_t pos, uint64_t total)
{
	struct pvfs_pattern few[FILE_SEGS], *seg = few;
	struct io_file f;
	uint32_t nseg;
	ssize_t n = -1;

	if (total == 0)
		return 0;
	if ((nseg = file_map(write, part, pos, total, &seg)) > 0) {
		file_io(of, &f);
		n = file_segs(&f, write, seg, nseg, iov, iovcnt);
		if (n >= 0 && write && file_sync_after_write(of, &f) != 0)
			n = -1;
		file_io_done(of, &f);
	}
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
	struct file_open *of;
	struct pvfs_part part;
	ssize_t total = file_iov_total(iov, iovcnt), n = -1;
	uint64_t len;

	if (total < 0)
		return -1;
	if (off < 0) {
		errno = EINVAL;
		return -1;
	}
	if ((of = file_get(fd)) == NULL)
		return -1;
	pthread_mutex_lock(&of->cap_lock); /* not pos_lock: held across I/O */
	part = of->part;
	pthread_mutex_unlock(&of->cap_lock);
	len = (uint64_t)total;
	file_clip_read(write, &part, (uint64_t)off, &len);
	if (file_check_access(of, write) == 0)
		n = file_rw(of, write, iov, iovcnt, &part, (uint64_t)off, len);
	file_put(of);
	return n;
}

/* Where a write on of starts: the offset, or the logical size for
 * O_APPEND (not atomic against other clients, as in PVFS 1). */
static int
file_write_start(struct file_open *of, int write, uint64_t *off)
{
	struct io_file f;
	struct io_size sz;
	int rc;

	*off = of->pos;
	if (!write || !(of->flags & O_APPEND))
		return 0;
	file_io(of, &f);
	rc = io_size(&f, &sz);
	file_io_done(of, &f);
	if (rc == 0)
		*off = pvfs_part_view_size(&of->part, sz.size);
	return rc;
}

/* read/write/readv/writev: the offset is held for the whole transfer so
 * that threads sharing the open file see POSIX-atomic updates. */
static ssize_t
file_seq_rw(int fd, int write, const struct iovec *iov, int iovcnt)
{
	struct file_open *of;
	ssize_t total = file_iov_total(iov, iovcnt), n = -1;
	uint64_t off, len;

	if (total < 0 || (of = file_get(fd)) == NULL)
		return -1;
	len = (uint64_t)total;
	if (file_check_access(of, write) != 0) {
		file_put(of);
		return -1;
	}
	pthread_mutex_lock(&of->pos_lock);
	if (file_write_start(of, write, &off) == 0) {
		file_clip_read(write, &of->part, off, &len);
		n = file_rw(of, write, iov, iovcnt, &of->part, off, len);
	}
	if (n > 0)
		of->pos = off + (uint64_t)n;
	pthread_mutex_unlock(&of->pos_lock);
	file_put(of);
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

static int
file_size(struct file_open *of, uint64_t *size)
{
	struct io_file f;
	struct io_size sz;
	int rc;

	if (!S_ISREG(of->mode)) {
		*size = 0;
		return 0;
	}
	file_io(of, &f);
	rc = io_size(&f, &sz);
	file_io_done(of, &f);
	*size = sz.size;
	return rc;
}

/* The base SEEK_* counts from; SEEK_DATA/SEEK_HOLE see one data extent
 * (holes are not tracked), as many local file systems report. */
static int
file_seek_base(struct file_open *of, off_t offset, int whence, int64_t *base)
{
	uint64_t size;

	if (whence == SEEK_SET || whence == SEEK_CUR) {
		*base = whence == SEEK_SET ? 0 : (int64_t)of->pos;
		return 0;
	}
	if (whence != SEEK_END && whence != SEEK_DATA && whence != SEEK_HOLE) {
		errno = EINVAL;
		return -1;
	}
	if (file_size(of, &size) != 0)
		return -1;
	size = pvfs_part_view_size(&of->part, size);
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
	struct file_open *of = file_get(fd);
	int64_t base, pos = -1;

	if (of == NULL)
		return -1;
	pthread_mutex_lock(&of->pos_lock);
	if (file_seek_base(of, offset, whence, &base) == 0) {
		if (__builtin_add_overflow(base, (int64_t)offset, &pos)) {
			errno = EOVERFLOW;
			pos = -1;
		} else if (pos < 0) {
			errno = EINVAL;
			pos = -1;
		} else {
			of->pos = (uint64_t)pos;
		}
	}
	pthread_mutex_unlock(&of->pos_lock);
	file_put(of);
	return (off_t)pos;
}

int
pvfs_ftruncate(int fd, off_t length)
{
	struct file_open *of = file_get(fd);
	struct io_file f;
	int rc = -1;

	if (of == NULL)
		return -1;
	if (length < 0 || !S_ISREG(of->mode) || (of->flags & O_ACCMODE) == O_RDONLY) {
		errno = EINVAL;
	} else {
		file_io(of, &f);
		rc = io_truncate(&f, (uint64_t)length);
		file_io_done(of, &f);
	}
	file_put(of);
	return rc;
}

/* Directories are durable at the mgr as soon as it replied. */
static int
file_sync(int fd, int datasync)
{
	struct file_open *of = file_get(fd);
	struct io_file f;
	int rc = 0;

	if (of == NULL)
		return -1;
	if (S_ISREG(of->mode)) {
		file_io(of, &f);
		rc = io_fsync(&f, datasync);
		file_io_done(of, &f);
	}
	file_put(of);
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
	struct file_open *of = file_get(fd);
	int nfd;

	if (of == NULL)
		return -1;
	pthread_mutex_lock(&file_lock);
	nfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (nfd != -1 && file_tab_fit(nfd) != 0) {
		close(nfd);
		nfd = -1;
	}
	if (nfd != -1) {
		file_tab[nfd] = of; /* keeps the reference file_get took */
		of = NULL;
	}
	pthread_mutex_unlock(&file_lock);
	if (of != NULL)
		file_put(of);
	return nfd;
}

/* Like dup2(2): whatever newfd was is closed first, a pvfs file included. */
int
pvfs_dup2(int oldfd, int newfd)
{
	struct file_open *of, *prev = NULL;
	int rc = -1;

	pthread_mutex_lock(&file_lock);
	if ((of = file_lookup(oldfd)) == NULL || newfd < 0) {
		errno = EBADF;
	} else if (oldfd == newfd) {
		rc = newfd;
	} else if (dup3(oldfd, newfd, O_CLOEXEC) != -1) {
		if (file_tab_fit(newfd) == 0) {
			prev = file_tab[newfd];
			file_tab[newfd] = of;
			of->refs++;
			rc = newfd;
		} else {
			close(newfd);
		}
	}
	pthread_mutex_unlock(&file_lock);
	if (prev != NULL)
		file_put(prev);
	return rc;
}

static int
file_getmeta(struct file_open *of, struct pvfs_filestat *m)
{
	memset(m, 0, sizeof(*m));
	/* A concurrent I/O call may be storing a refreshed cap. */
	pthread_mutex_lock(&of->cap_lock);
	m->base = (int32_t)of->cap.dist.base;
	m->pcount = (int32_t)of->cap.dist.pcount;
	m->ssize = (int32_t)of->cap.dist.ssize;
	pthread_mutex_unlock(&of->cap_lock);
	return 0;
}

/* As in PVFS 1, SETPART resets the offset to 0; gstride and ngroups are
 * kept for GETPART but unused.  The partition changes under both pos_lock
 * (no read or write of the offset is in progress) and cap_lock (pread and
 * GETPART, which must not wait for such a transfer, read it under it). */
static int
file_setpart(struct file_open *of, const struct pvfs_fpart *p)
{
	if (p->offset < 0 || p->gsize < 0 || p->stride < 0 ||
	    (p->gsize > 0 && p->stride > 0 && p->stride < p->gsize)) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&of->pos_lock);
	pthread_mutex_lock(&of->cap_lock);
	of->fpart = *p;
	of->part.offset = (uint64_t)p->offset;
	of->part.gsize = (uint64_t)p->gsize;
	of->part.stride = (uint64_t)p->stride;
	pthread_mutex_unlock(&of->cap_lock);
	of->pos = 0;
	pthread_mutex_unlock(&of->pos_lock);
	return 0;
}

static int
file_getpart(struct file_open *of, struct pvfs_fpart *p)
{
	pthread_mutex_lock(&of->cap_lock);
	*p = of->fpart;
	pthread_mutex_unlock(&of->cap_lock);
	return 0;
}

int
pvfs_ioctl(int fd, unsigned long request, ...)
{
	struct file_open *of = file_get(fd);
	void *arg;
	va_list ap;
	int rc = -1;

	if (of == NULL)
		return -1;
	if (request != PVFS_GETMETA && request != PVFS_SETPART &&
	    request != PVFS_GETPART) {
		file_put(of);
		errno = ENOTTY;
		return -1;
	}
	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (arg == NULL)
		errno = EFAULT;
	else if (request == PVFS_GETMETA)
		rc = file_getmeta(of, arg);
	else if (!S_ISREG(of->mode))
		errno = EINVAL;
	else if (request == PVFS_SETPART)
		rc = file_setpart(of, arg);
	else
		rc = file_getpart(of, arg);
	file_put(of);
	return rc;
}

/* Where part rel of an open file lives: the iod's "host:port" and its
 * index in the file system's iod table. */
int
pvfs_getiod(int fd, int rel, char *addr, size_t len)
{
	struct file_open *of = file_get(fd);
	struct pvfs_dist d;
	struct conn_pool *p;
	uint32_t idx;
	int n;

	if (of == NULL)
		return -1;
	pthread_mutex_lock(&of->cap_lock);
	d = of->cap.dist;
	pthread_mutex_unlock(&of->cap_lock);
	if (!S_ISREG(of->mode) || rel < 0 || (uint32_t)rel >= d.pcount) {
		file_put(of);
		errno = EINVAL;
		return -1;
	}
	if (client_fs_info(of->fs) != 0) {
		file_put(of);
		return -1;
	}
	idx = pvfs_stripe_abs(&d, (uint32_t)rel, of->fs->niods);
	p = &of->fs->iods[idx];
	n = snprintf(addr, len, strchr(p->host, ':') ? "[%s]:%u" : "%s:%u",
	    p->host, p->port);
	file_put(of);
	if (n < 0 || (size_t)n >= len) {
		errno = ERANGE;
		return -1;
	}
	return (int)idx;
}
