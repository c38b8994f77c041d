/*
 * handle.c - open files without a descriptor, for the preload shim.
 *
 * A handle is a struct file_open that lives in no descriptor table: the
 * shim backs each open file with its own kernel placeholder and keeps the
 * offset there, so every data call here takes an explicit offset.  The
 * calls are built on the same engine and capability logic as file.c.
 * A handle's refs count its owners (handle_dup/handle_close, atomic):
 * no descriptor table ever looks one up, so file_lock is not needed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pvfs-internal.h"

#define HANDLE_OFF_MAX ((uint64_t)INT64_MAX)

static struct file_open *
handle_new(struct client_fs *fs, uint64_t ino, uint32_t mode, int flags,
    const struct pvfs_cap *cap)
{
	struct file_open *of = calloc(1, sizeof(*of));

	if (of == NULL)
		return NULL;
	of->fs = fs;
	of->ino = ino;
	of->mode = mode;
	of->flags = flags;
	of->refs = 1;
	of->cap = *cap;
	pthread_mutex_init(&of->pos_lock, NULL);
	pthread_mutex_init(&of->cap_lock, NULL);
	return of;
}

struct file_open *
handle_open(const char *path, int flags, mode_t mode)
{
	struct pvfs_mgr_open_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;
	struct file_open *of;
	struct io_file f;

	if ((flags & O_ACCMODE) == O_ACCMODE) {
		errno = EINVAL;
		return NULL;
	}
	memset(&req, 0, sizeof(req));
	req.dist.base = req.dist.pcount = req.dist.ssize = PVFS_DIST_DEFAULT;
	if (client_resolve(path, &fs, req.path) != 0)
		return NULL;
	client_cred(&req.cred);
	req.flags = file_wire_flags(flags);
	req.mode = mode & 07777;
	if (conn_rpc(fs, PVFS_MGR_OPEN, &req, &rep) != 0)
		return NULL;
	if ((of = handle_new(fs, rep.attr.ino, rep.attr.mode, flags, &rep.cap)) == NULL)
		return NULL;
	/* O_TRUNC: the mgr checked the permission; the data is on the iods. */
	if ((flags & O_TRUNC) && S_ISREG(of->mode) && (of->cap.rights & PVFS_R_WRITE)) {
		file_io(of, &f);
		if (io_truncate(&f, 0) != 0) {
			handle_close(of);
			return NULL;
		}
		file_io_done(of, &f);
	}
	return of;
}

struct file_open *
handle_import(const char *prefix_path, uint64_t ino, uint32_t mode, int flags,
    const struct pvfs_cap *cap)
{
	char inner[PVFS_PATH_MAX + 1];
	struct client_fs *fs;

	if (client_resolve(prefix_path, &fs, inner) != 0)
		return NULL;
	return handle_new(fs, ino, mode, flags, cap);
}

void
handle_export(struct file_open *of, struct pvfs_cap *cap)
{
	pthread_mutex_lock(&of->cap_lock);
	*cap = of->cap;
	pthread_mutex_unlock(&of->cap_lock);
}

struct file_open *
handle_dup(struct file_open *of)
{
	__atomic_add_fetch(&of->refs, 1, __ATOMIC_RELAXED);
	return of;
}

/* The last owner hands the handle to file_put with one reference left. */
void
handle_close(struct file_open *of)
{
	if (of == NULL || __atomic_sub_fetch(&of->refs, 1, __ATOMIC_ACQ_REL) != 0)
		return;
	of->refs = 1;
	file_put(of);
}

/* One engine call for the whole transfer; O_SYNC/O_DSYNC sync after it. */
static ssize_t
handle_rw(struct file_open *of, int write, const struct iovec *iov,
    int iovcnt, uint64_t off)
{
	struct pvfs_pattern pat;
	struct io_file f;
	ssize_t total = file_iov_total(iov, iovcnt), n;
	uint64_t len;

	if (total < 0 || file_check_access(of, write) != 0)
		return -1;
	len = (uint64_t)total;
	if (!write && off + len > HANDLE_OFF_MAX)
		len = off >= HANDLE_OFF_MAX ? 0 : HANDLE_OFF_MAX - off;
	if (len == 0)
		return 0;
	if (off + len > HANDLE_OFF_MAX) {
		errno = EFBIG;
		return -1;
	}
	io_pattern_contig(&pat, off, len);
	file_io(of, &f);
	n = write ? io_write(&f, &pat, iov, iovcnt) : io_read(&f, &pat, iov, iovcnt);
	if (n >= 0 && write && file_sync_after_write(of, &f) != 0)
		n = -1;
	file_io_done(of, &f);
	return n;
}

ssize_t
handle_preadv(struct file_open *of, const struct iovec *iov, int iovcnt,
    uint64_t off)
{
	return handle_rw(of, 0, iov, iovcnt, off);
}

ssize_t
handle_pwritev(struct file_open *of, const struct iovec *iov, int iovcnt,
    uint64_t off)
{
	return handle_rw(of, 1, iov, iovcnt, off);
}

int
handle_size(struct file_open *of, uint64_t *size)
{
	struct io_file f;
	struct io_size sz;
	int rc;

	*size = 0;
	if (!S_ISREG(of->mode))
		return 0;
	file_io(of, &f);
	rc = io_size(&f, &sz);
	file_io_done(of, &f);
	if (rc == 0)
		*size = sz.size;
	return rc;
}

int
handle_fstat(struct file_open *of, struct stat *st)
{
	struct pvfs_mgr_getattr_req req;
	struct pvfs_mgr_attrcap_rep rep;
	uint64_t gen;

	memset(&req, 0, sizeof(req));
	client_cred(&req.cred);
	req.ino = of->ino;
	if (conn_rpc(of->fs, PVFS_MGR_GETATTR, &req, &rep) != 0)
		return -1;
	pthread_mutex_lock(&of->cap_lock);
	gen = of->cap.gen;
	pthread_mutex_unlock(&of->cap_lock);
	if (rep.cap.gen != gen) {
		errno = ESTALE; /* the inode number is another file's now */
		return -1;
	}
	return meta_stat_reply(of->fs, &rep, st);
}

int
handle_ftruncate(struct file_open *of, uint64_t length)
{
	struct io_file f;
	int rc;

	if (length > HANDLE_OFF_MAX || !S_ISREG(of->mode) ||
	    (of->flags & O_ACCMODE) == O_RDONLY) {
		errno = EINVAL;
		return -1;
	}
	file_io(of, &f);
	rc = io_truncate(&f, length);
	file_io_done(of, &f);
	return rc;
}

/* Directories are durable at the mgr as soon as it replied. */
int
handle_fsync(struct file_open *of, int datasync)
{
	struct io_file f;
	int rc;

	if (!S_ISREG(of->mode))
		return 0;
	file_io(of, &f);
	rc = io_fsync(&f, datasync);
	file_io_done(of, &f);
	return rc;
}

int
handle_setattr(struct file_open *of, struct pvfs_mgr_setattr_req *req)
{
	struct pvfs_mgr_attrcap_rep rep;

	client_cred(&req->cred);
	req->ino = of->ino;
	req->path[0] = '\0';
	return conn_rpc(of->fs, PVFS_MGR_SETATTR, req, &rep);
}

int
handle_mkdir(const char *path, mode_t mode)
{
	struct pvfs_mgr_mode_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	memset(&req, 0, sizeof(req));
	if (client_resolve(path, &fs, req.path) != 0)
		return -1;
	client_cred(&req.cred);
	req.mode = mode & 07777;
	return conn_rpc(fs, PVFS_MGR_MKDIR, &req, &rep);
}

/* SETATTR by path (utimensat with nanoseconds, UTIME_OMIT, ...). */
int
handle_setattr_path(const char *path, struct pvfs_mgr_setattr_req *req)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (client_resolve(path, &fs, req->path) != 0)
		return -1;
	client_cred(&req->cred);
	req->ino = 0;
	return conn_rpc(fs, PVFS_MGR_SETATTR, req, &rep);
}
