/*
 * pvfs-file.c - open files: an inode, the capability the mgr granted for
 * it, and the calls on it, each with an explicit offset.
 *
 * This is the one implementation of open/read/write/stat/truncate/sync:
 * the descriptor table of pvfs.h (file.c) keeps offsets and partitions
 * over it, the preload shim keeps its offsets in its placeholders, the
 * FUSE client gets them from the kernel.  An open file's refs count its
 * owners (atomic); every live one is on a list so that a forked child can
 * reset locks a vanished thread held.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pvfs-internal.h"
#include "mirror-report.h"

#define PFILE_OFF_MAX ((uint64_t)INT64_MAX)
#define PFILE_EXPORT_MAGIC 0x50564631u /* "PVF1" */

/* What pvfs_file_export writes: this build's layout, read by the same
 * build after exec. */
struct pfile_export {
	uint32_t magic;
	uint32_t size;
	int32_t flags;
	uint32_t mode;
	uint64_t ino;
	struct pvfs_cap cap;
};

_Static_assert(sizeof(struct pfile_export) <= PVFS_FILE_EXPORT_MAX,
    "PVFS_FILE_EXPORT_MAX too small");

static pthread_mutex_t pfile_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pvfs_file *pfile_list;

void
pvfs_file_atfork_prepare(void)
{
	pthread_mutex_lock(&pfile_lock);
}

void
pvfs_file_atfork_parent(void)
{
	pthread_mutex_unlock(&pfile_lock);
}

/* A thread of the parent may have held a file's cap_lock at the fork;
 * it does not exist here, so the child would wait on it forever. */
void
pvfs_file_atfork_child(void)
{
	struct pvfs_file *f;

	for (f = pfile_list; f != NULL; f = f->next) {
		pthread_mutex_init(&f->cap_lock, NULL);
		pvfs_buffered_atfork_child(f);
	}
	pthread_mutex_unlock(&pfile_lock);
}

static struct pvfs_file *
pfile_new(struct client_fs *fs, uint64_t ino, uint32_t mode, int flags,
    const struct pvfs_cap *cap)
{
	struct pvfs_file *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	f->fs = fs;
	f->ino = ino;
	f->mode = mode;
	f->flags = flags;
	f->refs = 1;
	f->cap = *cap;
	pthread_mutex_init(&f->cap_lock, NULL);
	pthread_mutex_lock(&pfile_lock);
	if ((f->next = pfile_list) != NULL)
		pfile_list->prev = f;
	pfile_list = f;
	pthread_mutex_unlock(&pfile_lock);
	return f;
}

struct pvfs_file *
pvfs_file_dup(struct pvfs_file *f)
{
	__atomic_add_fetch(&f->refs, 1, __ATOMIC_RELAXED);
	return f;
}

void
pvfs_file_close(struct pvfs_file *f)
{
	if (f == NULL || __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	pthread_mutex_lock(&pfile_lock);
	if (f->prev != NULL)
		f->prev->next = f->next;
	else
		pfile_list = f->next;
	if (f->next != NULL)
		f->next->prev = f->prev;
	pthread_mutex_unlock(&pfile_lock);
	pvfs_buffered_close(f);
	pvfs_mirror_close(f);
	if (f->leased)
		pvfs_lease_drop(f->fs, f->ino, f->leased == 2,
		    !__atomic_load_n(&f->wrote, __ATOMIC_ACQUIRE));
	pthread_mutex_destroy(&f->cap_lock);
	free(f->created);
	free(f);
}

/* A regular file's data lives while it is open here, named or not.  An
 * open that may write (a WRITE capability) says so: the mgr then does
 * not trust its copy of the size until the lease goes. */
static int
pfile_lease(struct pvfs_file *f)
{
	int write = (f->cap.rights & PVFS_R_WRITE) != 0;

	if (!S_ISREG(f->mode))
		return 0;
	if (pvfs_lease_take(f->fs, f->ino, f->cap.gen, write) != 0) {
		if (errno == ESTALE)
			errno = ENOENT;
		return -1;
	}
	f->leased = write ? 2 : 1;
	return 0;
}

void
pvfs_file_io(struct pvfs_file *f, struct io_file *io)
{
	memset(io, 0, sizeof(*io));
	io->fs = f->fs;
	io->ino = f->ino;
	pthread_mutex_lock(&f->cap_lock);
	io->cap = f->cap;
	pthread_mutex_unlock(&f->cap_lock);
	io->want_rights = io->cap.rights & (PVFS_R_READ | PVFS_R_WRITE | PVFS_R_SIZE);
	io->file = f;
}

void
pvfs_file_io_done(struct pvfs_file *f, const struct io_file *io)
{
	if (!io->refreshed)
		return;
	pthread_mutex_lock(&f->cap_lock);
	f->cap = io->cap;
	pthread_mutex_unlock(&f->cap_lock);
}

/* ---- open, export, import ---- */

uint32_t
pvfs_file_wire_flags(int flags)
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
	if (flags & O_NOFOLLOW)
		w |= PVFS_OF_NOFOLLOW;
	return w;
}

/* One pvfs_filestat field: -1 asks for the default, and so does 0 for
 * pcount and ssize (PVFS 1 programs often zero the struct); any other
 * negative value is invalid.  The mgr checks the ranges. */
static int
pfile_dist_field(int32_t v, int zero_default, uint32_t *out)
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
pfile_dist(const struct pvfs_filestat *m, struct pvfs_dist *d)
{
	d->base = d->pcount = d->ssize = PVFS_DIST_DEFAULT;
	if (m == NULL)
		return 0;
	if (pfile_dist_field(m->base, 0, &d->base) != 0 ||
	    pfile_dist_field(m->pcount, 1, &d->pcount) != 0 ||
	    pfile_dist_field(m->ssize, 1, &d->ssize) != 0)
		return -1;
	return 0;
}

/* O_TRUNC: the mgr checked the permission; the data lives on the iods. */
static int
pfile_open_trunc(struct pvfs_file *f)
{
	struct io_file io;
	int rc;

	if (!S_ISREG(f->mode) || !(f->cap.rights & PVFS_R_WRITE))
		return 0;
	__atomic_store_n(&f->wrote, 1, __ATOMIC_RELEASE);
	pvfs_file_io(f, &io);
	rc = pvfs_io_truncate(&io, 0);
	pvfs_file_io_done(f, &io);
	return rc;
}

struct pvfs_file *
pvfs_file_open(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *dist)
{
	return pvfs_file_open_copies(path, flags, mode, dist, 0);
}

struct pvfs_file *
pvfs_file_open_copies(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *dist, int copies)
{
	struct pvfs_mgr_open_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct pvfs_walk w;
	struct pvfs_file *f;

	if ((flags & O_ACCMODE) == O_ACCMODE || copies < 0 ||
	    copies > PVFS_COPIES_MAX) {
		errno = EINVAL;
		return NULL;
	}
	memset(&req, 0, sizeof(req));
	if (pfile_dist(dist, &req.dist) != 0)
		return NULL;
	req.dist.copies = (uint16_t)copies;
	req.flags = pvfs_file_wire_flags(flags);
	req.mode = mode & 07777;
	pvfs_walk_init(&w, PVFS_MGR_OPEN, &req, &req.cred, path, req.path, &rep);
	if (pvfs_walk_rpc(&w) != 0)
		return NULL;
	/* As Linux: a socket cannot be opened, and devices behave as on a
	 * nodev mount.  A FIFO opens here; the caller finds its I/O. */
	if (S_ISSOCK(rep.attr.mode) || S_ISCHR(rep.attr.mode) ||
	    S_ISBLK(rep.attr.mode)) {
		errno = S_ISSOCK(rep.attr.mode) ? ENXIO : EACCES;
		return NULL;
	}
	f = pfile_new(w.fs, rep.attr.ino, rep.attr.mode, flags, &rep.cap);
	if (f != NULL && (pfile_lease(f) != 0 || pvfs_buffered_open(f) != 0)) {
		pvfs_file_close(f);
		return NULL;
	}
	/* A file this open created has no stripes to cut: creating one
	 * needs the mgr alone, so an iod down or refusing cannot leave a
	 * new name behind a failed open. */
	if (f != NULL && (flags & O_TRUNC) && !rep.created &&
	    pfile_open_trunc(f) != 0) {
		pvfs_file_close(f);
		return NULL;
	}
	if (f != NULL && rep.created &&
	    (f->created = malloc(sizeof(rep))) != NULL)
		memcpy(f->created, &rep, sizeof(rep));
	return f;
}

/* A file just created is empty on every iod: its attributes are the
 * mgr's reply with size 0, no IOD_SIZE needed. */
int
pvfs_file_created_stat(struct pvfs_file *f, struct stat *st)
{
	struct pvfs_mgr_attrcap_rep *r;
	struct pvfs_io_size sz;

	r = __atomic_exchange_n(&f->created, NULL, __ATOMIC_ACQ_REL);
	if (r == NULL) {
		errno = ENOENT;
		return -1;
	}
	memset(&sz, 0, sizeof(sz));
	pvfs_meta_fill(f->fs, r, &sz, st);
	free(r);
	return 0;
}

void
pvfs_file_info(struct pvfs_file *f, struct pvfs_file_info *info)
{
	memset(info, 0, sizeof(*info));
	info->ino = f->ino;
	info->mode = (mode_t)f->mode;
	info->flags = f->flags;
	/* A concurrent I/O call may be storing a refreshed cap. */
	pthread_mutex_lock(&f->cap_lock);
	info->fsid = f->cap.fsid;
	info->dist.base = (int32_t)f->cap.dist.base;
	info->dist.pcount = (int32_t)f->cap.dist.pcount;
	info->dist.ssize = (int32_t)f->cap.dist.ssize;
	info->copies = pvfs_dist_copies(&f->cap.dist);
	info->mshift = f->cap.dist.mshift;
	pthread_mutex_unlock(&f->cap_lock);
}

size_t
pvfs_file_export(struct pvfs_file *f, void *buf, size_t len)
{
	struct pfile_export e;

	if (len < sizeof(e))
		return 0;
	memset(&e, 0, sizeof(e));
	e.magic = PFILE_EXPORT_MAGIC;
	e.size = sizeof(e);
	e.flags = f->flags;
	e.mode = f->mode;
	e.ino = f->ino;
	pthread_mutex_lock(&f->cap_lock);
	e.cap = f->cap;
	pthread_mutex_unlock(&f->cap_lock);
	memcpy(buf, &e, sizeof(e));
	return sizeof(e);
}

struct pvfs_file *
pvfs_file_import(const char *path, const void *buf, size_t len)
{
	char inner[PVFS_PATH_MAX + 1];
	struct pfile_export e;
	struct client_fs *fs;
	struct pvfs_file *f;

	if (len < sizeof(e)) {
		errno = EINVAL;
		return NULL;
	}
	memcpy(&e, buf, sizeof(e));
	if (e.magic != PFILE_EXPORT_MAGIC || e.size != sizeof(e)) {
		errno = EINVAL;
		return NULL;
	}
	if (pvfs_client_resolve(path, &fs, inner) != 0)
		return NULL;
	/* The exporter's lease went with its connection at exec; the mgr's
	 * grace period keeps the file for this one. */
	if ((f = pfile_new(fs, e.ino, e.mode, e.flags, &e.cap)) != NULL &&
	    pfile_lease(f) != 0) {
		pvfs_file_close(f);
		return NULL;
	}
	return f;
}

/* ---- data ---- */

ssize_t
pvfs_file_iov_total(const struct iovec *iov, int iovcnt)
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
pvfs_file_access(const struct pvfs_file *f, int write)
{
	int acc = f->flags & O_ACCMODE;

	if (write ? acc == O_RDONLY : acc == O_WRONLY) {
		errno = EBADF;
		return -1;
	}
	if (!S_ISREG(f->mode)) {
		errno = S_ISDIR(f->mode) ? EISDIR : EINVAL;
		return -1;
	}
	return 0;
}

/* O_SYNC/O_DSYNC after a successful write. */
static int
pfile_sync_after_write(struct pvfs_file *f, struct io_file *io)
{
	if ((f->flags & O_SYNC) == O_SYNC)
		return pvfs_io_fsync(io, 0);
	if (f->flags & O_DSYNC)
		return pvfs_io_fsync(io, 1);
	return 0;
}

/* Drop the first n bytes of iovecs that are ours to modify. */
static void
pfile_iov_skip(struct iovec **iov, int *iovcnt, uint64_t n)
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
pfile_segs_once(struct io_file *io, int write, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt)
{
	return write ? pvfs_io_write_segs(io, seg, nseg, iov, iovcnt) :
	    pvfs_io_read_segs(io, seg, nseg, iov, iovcnt);
}

/* One engine call per round of segments that one list request may carry
 * (pvfs_list_round: PVFS_LIST_MAX_WORK, doc/noncontig.md), consuming iov. */
static ssize_t
pfile_segs_rounds(struct io_file *io, int write, const struct pvfs_pattern *seg,
    uint32_t nseg, struct iovec *iov, int iovcnt)
{
	const struct pvfs_dist *d = &io->cap.dist;
	uint32_t i, n;
	uint64_t done = 0, want;
	ssize_t got = 0;

	for (i = 0; i < nseg; i += n) {
		n = pvfs_list_round(&seg[i], nseg - i, d->pcount, d->ssize);
		want = pvfs_list_bytes(&seg[i], n);
		if ((got = pfile_segs_once(io, write, &seg[i], n, iov, iovcnt)) < 0)
			break;
		done += (uint64_t)got;
		if ((uint64_t)got < want)
			break;
		pfile_iov_skip(&iov, &iovcnt, want);
	}
	return got < 0 ? -1 : (ssize_t)done;
}

/* The caller's iovecs are const: nearly always a single round, which
 * needs no copy of them to consume. */
static ssize_t
pfile_segs_io(struct io_file *io, int write, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt)
{
	const struct pvfs_dist *d = &io->cap.dist;
	struct iovec *copy;
	ssize_t n;

	if (pvfs_list_round(seg, nseg, d->pcount, d->ssize) == nseg)
		return pfile_segs_once(io, write, seg, nseg, iov, iovcnt);
	if ((copy = malloc(sizeof(*copy) * (size_t)iovcnt)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	memcpy(copy, iov, sizeof(*copy) * (size_t)iovcnt);
	n = pfile_segs_rounds(io, write, seg, nseg, copy, iovcnt);
	free(copy);
	return n;
}

/* Tell the mgr that f was written (flags 0) or truncated
 * (PVFS_MOD_TRUNCATE), with f's WRITE capability as the permission. */
static int
pfile_modified(struct pvfs_file *f, uint32_t flags)
{
	struct pvfs_mgr_modified_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct io_file io;
	int rc;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	req.flags = flags;
	pvfs_file_io(f, &io);
	req.cap = io.cap;
	rc = pvfs_conn_rpc(f->fs, PVFS_MGR_MODIFIED, &req, &rep);
	if (rc != 0 && errno == EKEYEXPIRED && pvfs_io_refresh(&io) == 0) {
		pvfs_file_io_done(f, &io);
		req.cap = io.cap;
		rc = pvfs_conn_rpc(f->fs, PVFS_MGR_MODIFIED, &req, &rep);
	}
	if (rc != 0)
		return -1;
	__atomic_store_n(&f->mode, rep.attr.mode, __ATOMIC_RELAXED);
	return 0;
}

/* Linux clears set-id bits before a write by anyone but root lands
 * (file_remove_privs).  The data goes to the iods, so the first write
 * through an open file whose mode had such bits reports itself to the
 * mgr once, which clears what Linux would; root never asks. */
static int
pfile_remove_privs(struct pvfs_file *f)
{
	uint32_t mode = __atomic_load_n(&f->mode, __ATOMIC_RELAXED);
	struct pvfs_cred cr;

	if (!(mode & (S_ISUID | S_ISGID)) ||
	    __atomic_load_n(&f->privs_done, __ATOMIC_RELAXED))
		return 0;
	pvfs_client_cred(&cr);
	if (cr.uid != 0 && pfile_modified(f, 0) != 0)
		return -1;
	__atomic_store_n(&f->privs_done, 1, __ATOMIC_RELAXED);
	return 0;
}

ssize_t
pvfs_file_segs(struct pvfs_file *f, int write, const struct pvfs_pattern *seg,
    uint32_t nseg, const struct iovec *iov, int iovcnt)
{
	if (f->buffered != NULL)
		return pvfs_buffered_segs(f, write, seg, nseg, iov, iovcnt);
	return pvfs_file_segs_direct(f, write, seg, nseg, iov, iovcnt);
}

ssize_t
pvfs_file_segs_direct(struct pvfs_file *f, int write,
    const struct pvfs_pattern *seg, uint32_t nseg, const struct iovec *iov,
    int iovcnt)
{
	struct io_file io;
	ssize_t n;

	if (write && pfile_remove_privs(f) != 0)
		return -1;
	if (write) {
		/* The mgr learns at close that the size may have changed
		 * (lease.c), and a new mgr has our leases before the data. */
		__atomic_store_n(&f->wrote, 1, __ATOMIC_RELEASE);
		pvfs_lease_check_write(f->fs);
	}
	pvfs_file_io(f, &io);
	n = pfile_segs_io(&io, write, seg, nseg, iov, iovcnt);
	if (n >= 0 && write && pfile_sync_after_write(f, &io) != 0)
		n = -1;
	pvfs_file_io_done(f, &io);
	return n;
}

/* One engine call for the whole transfer. */
static ssize_t
pfile_rw(struct pvfs_file *f, int write, const struct iovec *iov, int iovcnt,
    uint64_t off)
{
	struct pvfs_pattern pat;
	ssize_t total = pvfs_file_iov_total(iov, iovcnt);
	uint64_t len;

	if (total < 0 || pvfs_file_access(f, write) != 0)
		return -1;
	len = (uint64_t)total;
	if (!write && off + len > PFILE_OFF_MAX)
		len = off >= PFILE_OFF_MAX ? 0 : PFILE_OFF_MAX - off;
	if (len == 0)
		return 0;
	if (off > PFILE_OFF_MAX || len > PFILE_OFF_MAX - off) {
		errno = EFBIG;
		return -1;
	}
	pvfs_io_pattern_contig(&pat, off, len);
	return pvfs_file_segs(f, write, &pat, 1, iov, iovcnt);
}

ssize_t
pvfs_file_preadv(struct pvfs_file *f, const struct iovec *iov, int iovcnt,
    uint64_t off)
{
	return pfile_rw(f, 0, iov, iovcnt, off);
}

ssize_t
pvfs_file_pwritev(struct pvfs_file *f, const struct iovec *iov, int iovcnt,
    uint64_t off)
{
	return pfile_rw(f, 1, iov, iovcnt, off);
}

/* ---- size, attributes, sync ---- */

int
pvfs_file_size(struct pvfs_file *f, uint64_t *size)
{
	struct io_file io;
	struct pvfs_io_size sz;
	int rc;

	*size = 0;
	if (!S_ISREG(f->mode))
		return 0;
	pvfs_buffered_settle(f);
	pvfs_file_io(f, &io);
	rc = pvfs_io_size(&io, &sz);
	pvfs_file_io_done(f, &io);
	if (rc == 0)
		*size = sz.size;
	return rc;
}

int
pvfs_file_stat(struct pvfs_file *f, struct stat *st)
{
	struct pvfs_mgr_getattr_req req;
	struct pvfs_mgr_attrcap_rep rep;
	uint64_t gen;

	pvfs_buffered_settle(f);
	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	req.ino = f->ino;
	if (pvfs_conn_rpc(f->fs, PVFS_MGR_GETATTR, &req, &rep) != 0)
		return -1;
	pthread_mutex_lock(&f->cap_lock);
	gen = f->cap.gen;
	pthread_mutex_unlock(&f->cap_lock);
	if (rep.cap.gen != gen) {
		errno = ESTALE; /* the inode number is another file's now */
		return -1;
	}
	return pvfs_meta_stat_reply(f->fs, &rep, st);
}

int
pvfs_file_truncate(struct pvfs_file *f, uint64_t length)
{
	struct io_file io;
	int rc;

	if (length > PFILE_OFF_MAX || !S_ISREG(f->mode) ||
	    (f->flags & O_ACCMODE) == O_RDONLY) {
		errno = EINVAL;
		return -1;
	}
	if (pvfs_buffered_flush(f) != 0)
		return -1;
	__atomic_store_n(&f->wrote, 1, __ATOMIC_RELEASE);
	pvfs_lease_check_write(f->fs);
	pvfs_file_io(f, &io);
	rc = pvfs_io_truncate(&io, length);
	pvfs_file_io_done(f, &io);
	/* As truncate(2) at the mgr: mtime, ctime and set-id bits. */
	return rc == 0 ? pfile_modified(f, PVFS_MOD_TRUNCATE) : rc;
}

/* Directories are durable at the mgr as soon as it replied. */
int
pvfs_file_sync(struct pvfs_file *f, int datasync)
{
	struct io_file io;
	int rc, err;

	if (!S_ISREG(f->mode))
		return 0;
	err = pvfs_buffered_flush(f) != 0 ? errno : 0;
	pvfs_file_io(f, &io);
	rc = pvfs_io_fsync(&io, datasync);
	pvfs_file_io_done(f, &io);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return rc;
}

int
pvfs_file_setattr(struct pvfs_file *f, const struct pvfs_setattr *sa)
{
	struct pvfs_mgr_setattr_req req;
	struct pvfs_mgr_attrcap_rep rep;

	if (pvfs_meta_setattr_req(sa, &req) != 0)
		return -1;
	pvfs_client_cred(&req.cred);
	req.ino = f->ino;
	return pvfs_conn_rpc(f->fs, PVFS_MGR_SETATTR, &req, &rep);
}

int
pvfs_file_iod(struct pvfs_file *f, uint32_t rel, char *addr, size_t len)
{
	struct pvfs_dist d;
	struct conn_pool *p;
	uint32_t idx;
	int n;

	pthread_mutex_lock(&f->cap_lock);
	d = f->cap.dist;
	pthread_mutex_unlock(&f->cap_lock);
	if (!S_ISREG(f->mode) || rel >= d.pcount) {
		errno = EINVAL;
		return -1;
	}
	if (pvfs_client_fs_info(f->fs) != 0)
		return -1;
	idx = pvfs_stripe_abs(&d, rel, f->fs->niods);
	p = &f->fs->iods[idx];
	n = snprintf(addr, len, strchr(p->host, ':') ? "[%s]:%u" : "%s:%u",
	    p->host, p->port);
	if (n < 0 || (size_t)n >= len) {
		errno = ERANGE;
		return -1;
	}
	return (int)idx;
}
