/*
 * fuse-ops.c - the FUSE operations, each one libpvfs call or a few
 * (doc/fuse.md).  Every operation that asks the mgr first takes the
 * caller's identity (fz_as); calls on an open file take its opener's, so
 * a capability renewed mid-read is granted to whoever opened the file.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "pvfs-fuse.h"

/* Declares var, the PVFS path of mount path p, or returns -ENAMETOOLONG
 * from the operation: the first line of nearly every operation. */
#define FZ_PATH(var, p) \
	char var[FZ_PATH_MAX]; \
	do { int e_ = fz_path(p, var); if (e_ != 0) return e_; } while (0)

static struct fz_file *
fz_fh(const struct fuse_file_info *fi)
{
	return (struct fz_file *)(uintptr_t)fi->fh;
}

static void *
fz_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* Large requests: the kernel sends up to max_write bytes per write
	 * and reads ahead as far (libfuse raises max_pages to match). */
	conn->max_write = fz.max_write;
	conn->max_readahead = fz.max_write;
	fz_set_readahead();
	/* libpvfs moves bytes between sockets and the buffer it is given
	 * (no copy of its own); from a pipe it would need one more. */
	conn->want &= ~(FUSE_CAP_SPLICE_READ | FUSE_CAP_SPLICE_WRITE |
	    FUSE_CAP_SPLICE_MOVE);
	if (fz.writeback && (conn->capable & FUSE_CAP_WRITEBACK_CACHE))
		conn->want |= FUSE_CAP_WRITEBACK_CACHE;
	else
		conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/* O_TRUNC in open saves the kernel a separate setattr. */
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	/* Attributes that come with the names are worth their cost (an
	 * IOD_SIZE per file to each of its iods) only if the kernel may keep
	 * them; with attr_timeout=0 every stat asks again anyway. */
	if (cfg->attr_timeout > 0 && (conn->capable & FUSE_CAP_READDIRPLUS))
		conn->want |= FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO;
	else
		conn->want &= ~(FUSE_CAP_READDIRPLUS | FUSE_CAP_READDIRPLUS_AUTO);
	cfg->use_ino = 1;
	/* The kernel keeps no attributes: one fetch per stat (pvfs-fuse.c). */
	fz.handoff = cfg->attr_timeout == 0;
	return NULL;
}

/* ---- attributes ---- */

static int
fz_getattr(const char *p, struct stat *st, struct fuse_file_info *fi)
{
	struct fz_file *h = fi != NULL ? fz_fh(fi) : NULL;
	FZ_PATH(path, p);

	if (fz_attr_take(path, st))
		return 0;
	if (h != NULL) {
		fz_as(&h->who);
		if (pvfs_file_stat(h->f, st) == 0)
			return 0;
	}
	fz_as(NULL);
	if (pvfs_lstat(path, st) != 0)
		return fz_err();
	fz_attr_give(path, st);
	return 0;
}

static int
fz_access(const char *p, int mask)
{
	struct stat st;
	FZ_PATH(path, p);

	fz_as(NULL);
	if (mask == F_OK)
		return pvfs_lstat(path, &st) == 0 ? 0 : fz_err();
	return pvfs_access(path, mask) == 0 ? 0 : fz_err();
}

/* The kernel follows links itself: a path it hands us names the object
 * to change, a link included (lchown, utimensat(AT_SYMLINK_NOFOLLOW)). */
static int
fz_setattr(const char *p, const struct pvfs_setattr *sa)
{
	struct pvfs_setattr nf = *sa;
	FZ_PATH(path, p);

	fz_as(NULL);
	nf.mask |= PVFS_SET_NOFOLLOW;
	return pvfs_path_setattr(path, &nf) == 0 ? 0 : fz_err();
}

static int
fz_chmod(const char *p, mode_t mode, struct fuse_file_info *fi)
{
	struct pvfs_setattr sa = { .mask = PVFS_SET_MODE, .mode = mode & 07777 };

	return fz_setattr(p, &sa);
}

/* A chown, even to -1, -1, sets ctime and clears set-id bits (Linux). */
static int
fz_chown(const char *p, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct pvfs_setattr sa = { .mask = PVFS_SET_CHOWN, .uid = uid, .gid = gid };

	if (uid != (uid_t)-1)
		sa.mask |= PVFS_SET_UID;
	if (gid != (gid_t)-1)
		sa.mask |= PVFS_SET_GID;
	return fz_setattr(p, &sa);
}

static int
fz_utimens(const char *p, const struct timespec tv[2],
    struct fuse_file_info *fi)
{
	struct pvfs_setattr sa = { .mask = 0 };

	if (tv == NULL) {
		sa.mask = PVFS_SET_ATIME_NOW | PVFS_SET_MTIME_NOW;
		return fz_setattr(p, &sa);
	}
	if (tv[0].tv_nsec == UTIME_NOW)
		sa.mask |= PVFS_SET_ATIME_NOW;
	else if (tv[0].tv_nsec != UTIME_OMIT) {
		sa.mask |= PVFS_SET_ATIME;
		sa.atime = tv[0];
	}
	if (tv[1].tv_nsec == UTIME_NOW)
		sa.mask |= PVFS_SET_MTIME_NOW;
	else if (tv[1].tv_nsec != UTIME_OMIT) {
		sa.mask |= PVFS_SET_MTIME;
		sa.mtime = tv[1];
	}
	return sa.mask == 0 ? 0 : fz_setattr(p, &sa);
}

static int
fz_truncate(const char *p, off_t size, struct fuse_file_info *fi)
{
	struct fz_file *h = fi != NULL ? fz_fh(fi) : NULL;
	struct pvfs_file_info info;
	int rc;
	FZ_PATH(path, p);

	if (size < 0)
		return -EINVAL;
	if (h != NULL)
		pvfs_file_info(h->f, &info);
	if (h != NULL && (info.flags & O_ACCMODE) != O_RDONLY) {
		fz_as(&h->who);
		rc = pvfs_file_truncate(h->f, (uint64_t)size);
	} else {
		fz_as(NULL);
		rc = pvfs_truncate(path, size);
	}
	fz_data_changed();
	return rc == 0 ? 0 : fz_err();
}

static int
fz_statfs(const char *p, struct statvfs *sv)
{
	struct statfs sf;
	FZ_PATH(path, p);

	fz_as(NULL);
	if (pvfs_statfs(path, &sf) != 0)
		return fz_err();
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = sf.f_bsize;
	sv->f_frsize = (unsigned long)(sf.f_frsize ? sf.f_frsize : sf.f_bsize);
	sv->f_blocks = sf.f_blocks;
	sv->f_bfree = sf.f_bfree;
	sv->f_bavail = sf.f_bavail;
	sv->f_files = sf.f_files;
	sv->f_ffree = sf.f_ffree;
	sv->f_favail = sf.f_ffree;
	sv->f_namemax = sf.f_namelen;
	return 0;
}

/* ---- the name space ---- */

static int
fz_mkdir(const char *p, mode_t mode)
{
	FZ_PATH(path, p);

	fz_as(NULL);
	return pvfs_path_mkdir(path, mode & 07777) == 0 ? 0 : fz_err();
}

static int
fz_rmdir(const char *p)
{
	FZ_PATH(path, p);

	fz_as(NULL);
	return pvfs_rmdir(path) == 0 ? 0 : fz_err();
}

static int
fz_unlink(const char *p)
{
	FZ_PATH(path, p);

	fz_as(NULL);
	return pvfs_unlink(path) == 0 ? 0 : fz_err();
}

/* The text as given: the kernel resolves it, so an absolute one names a
 * path on this host (a link to /pvfs/x works where the mount is /pvfs). */
static int
fz_symlink(const char *target, const char *p)
{
	FZ_PATH(path, p);

	fz_as(NULL);
	return pvfs_symlink(target, path) == 0 ? 0 : fz_err();
}

/* FUSE wants the text NUL-terminated, cut to the buffer if longer. */
static int
fz_readlink(const char *p, char *buf, size_t size)
{
	ssize_t n;
	FZ_PATH(path, p);

	if (size == 0)
		return -EINVAL;
	fz_as(NULL);
	if ((n = pvfs_readlink(path, buf, size - 1)) < 0)
		return fz_err();
	buf[n] = '\0';
	return 0;
}

/* A hard link: another name for the file (a link's name, not its
 * target, when from is a symbolic link, as link(2)). */
static int
fz_link(const char *p, const char *q)
{
	FZ_PATH(from, p);
	FZ_PATH(to, q);

	fz_as(NULL);
	return pvfs_link(from, to) == 0 ? 0 : fz_err();
}

/* FIFOs, sockets and device nodes are names in PVFS; their I/O through
 * the mount is the kernel's (a FIFO opens as a local pipe of this host). */
static int
fz_mknod(const char *p, mode_t mode, dev_t rdev)
{
	FZ_PATH(path, p);

	fz_as(NULL);
	return pvfs_path_mknod(path, mode, rdev) == 0 ? 0 : fz_err();
}

/* RENAME_NOREPLACE is a check before the rename: the mgr has no atomic
 * form, so a name made between the two by another client is replaced
 * (doc/fuse.md).  RENAME_EXCHANGE is not supported. */
static int
fz_rename(const char *p, const char *q, unsigned int flags)
{
	struct stat st;
	FZ_PATH(from, p);
	FZ_PATH(to, q);

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	fz_as(NULL);
	if (flags & RENAME_NOREPLACE) {
		if (pvfs_lstat(to, &st) == 0)
			return -EEXIST;
		if (errno != ENOENT)
			return fz_err();
	}
	return pvfs_rename(from, to) == 0 ? 0 : fz_err();
}

/* ---- open files ---- */

static int
fz_open_as(const char *p, struct fuse_file_info *fi, int flags, mode_t mode)
{
	struct pvfs_file_info info;
	struct fz_file *h;
	struct stat st;
	FZ_PATH(path, p);

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return -ENOMEM;
	fz_caller(&h->who);
	fz_as(&h->who);
	/* With the kernel's write-back cache it reads pages of files open
	 * only for writing, and it places appends itself. */
	if (fz.writeback) {
		if ((flags & O_ACCMODE) == O_WRONLY)
			flags = (flags & ~O_ACCMODE) | O_RDWR;
		flags &= ~O_APPEND;
	}
	if ((h->f = pvfs_file_open(path, flags, mode, NULL)) == NULL) {
		free(h);
		return fz_err();
	}
	pvfs_file_info(h->f, &info);
	h->ino = info.ino;
	fz_open_count(h->ino, 1);
	fz_ahead_init(h, flags);
	/* libfuse's create asks for the new file's attributes next: the
	 * mgr's reply to the create has them (no GETATTR, no IOD_SIZE). */
	if ((flags & O_CREAT) && pvfs_file_created_stat(h->f, &st) == 0)
		fz_attr_give(path, &st);
	/* O_DIRECT bypasses the page cache, as on a local file system, and
	 * so does every open in direct I/O mode (doc/fuse.md, "Data
	 * path"): one copy fewer each way, and no stale pages. */
	if ((flags & O_DIRECT) || fz_dio())
		fi->direct_io = 1;
	fi->fh = (uint64_t)(uintptr_t)h;
	return 0;
}

static int
fz_open(const char *p, struct fuse_file_info *fi)
{
	return fz_open_as(p, fi, fi->flags & ~(O_CREAT | O_EXCL), 0);
}

static int
fz_create(const char *p, mode_t mode, struct fuse_file_info *fi)
{
	return fz_open_as(p, fi, fi->flags | O_CREAT, mode & 07777);
}

static int
fz_release(const char *p, struct fuse_file_info *fi)
{
	struct fz_file *h = fz_fh(fi);

	fz_open_count(h->ino, -1);
	fz_ahead_fini(h);
	pvfs_file_close(h->f);
	free(h);
	return 0;
}

static int
fz_write(const char *p, const char *buf, size_t size, off_t off,
    struct fuse_file_info *fi)
{
	struct fz_file *h = fz_fh(fi);
	struct iovec iov = { (void *)(uintptr_t)buf, size };
	ssize_t n;

	fz_as(&h->who);
	n = pvfs_file_pwritev(h->f, &iov, 1, (uint64_t)off);
	fz_data_changed();
	return n < 0 ? fz_err() : (int)n;
}

static int
fz_fsync(const char *p, int datasync, struct fuse_file_info *fi)
{
	struct fz_file *h = fz_fh(fi);

	fz_as(&h->who);
	return pvfs_file_sync(h->f, datasync) == 0 ? 0 : fz_err();
}

/* Mode 0 only, and it reserves nothing: PVFS has no preallocation, so
 * the size grows to cover the range and later writes may still find the
 * iods full (doc/fuse.md). */
static int
fz_fallocate(const char *p, int mode, off_t off, off_t len,
    struct fuse_file_info *fi)
{
	struct fz_file *h = fz_fh(fi);
	uint64_t size;
	int rc;

	if (mode != 0)
		return -EOPNOTSUPP;
	if (off < 0 || len <= 0)
		return -EINVAL;
	if (off > INT64_MAX - len)
		return -EFBIG;
	fz_as(&h->who);
	if (pvfs_file_size(h->f, &size) != 0)
		return fz_err();
	if ((uint64_t)(off + len) <= size)
		return 0;
	rc = pvfs_file_truncate(h->f, (uint64_t)(off + len));
	fz_data_changed();
	return rc == 0 ? 0 : fz_err();
}

/* ---- directories ---- */

struct fz_dir {
	PVFS_DIR *d;
	int used;               /* read once: reopen to read again */
	char path[FZ_PATH_MAX];
};

static int
fz_opendir(const char *p, struct fuse_file_info *fi)
{
	struct fz_dir *h;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return -ENOMEM;
	if (fz_path(p, h->path) != 0) {
		free(h);
		return -ENAMETOOLONG;
	}
	fz_as(NULL);
	if ((h->d = pvfs_opendir(h->path)) == NULL) {
		free(h);
		return fz_err();
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	return 0;
}

/* The whole directory in one call (offset 0 to the filler): libfuse
 * keeps the entries for the kernel's later reads and calls again only
 * after a rewind. */
static int
fz_readdir(const char *p, void *buf, fuse_fill_dir_t fill, off_t off,
    struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct fz_dir *h = (struct fz_dir *)(uintptr_t)fi->fh;
	struct dirent *de;
	struct stat st;
	int plus = (flags & FUSE_READDIR_PLUS) != 0;

	fz_as(NULL);
	if (h->used) {
		pvfs_closedir(h->d);
		if ((h->d = pvfs_opendir(h->path)) == NULL)
			return fz_err();
	}
	h->used = 1;
	if (plus) {
		/* pvfs_readdir_stat skips "." and "..". */
		fill(buf, ".", NULL, 0, 0);
		fill(buf, "..", NULL, 0, 0);
	}
	for (;;) {
		errno = 0;
		de = plus ? pvfs_readdir_stat(h->d, &st) : pvfs_readdir(h->d);
		if (de == NULL)
			break;
		if (!plus || st.st_nlink == 0) {
			memset(&st, 0, sizeof(st));
			st.st_ino = de->d_ino;
			st.st_mode = DTTOIF(de->d_type);
			fill(buf, de->d_name, &st, 0, 0);
		} else {
			fill(buf, de->d_name, &st, 0, FUSE_FILL_DIR_PLUS);
		}
	}
	/* A directory readable but not searchable has names but no
	 * attributes: give the names. */
	if (errno == EACCES && plus) {
		pvfs_closedir(h->d);
		if ((h->d = pvfs_opendir(h->path)) == NULL)
			return fz_err();
		while ((de = pvfs_readdir(h->d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 &&
			    strcmp(de->d_name, "..") != 0)
				fill(buf, de->d_name, NULL, 0, 0);
		errno = 0;
	}
	return errno != 0 ? -errno : 0;
}

static int
fz_releasedir(const char *p, struct fuse_file_info *fi)
{
	struct fz_dir *h = (struct fz_dir *)(uintptr_t)fi->fh;

	pvfs_closedir(h->d);
	free(h);
	return 0;
}

const struct fuse_operations fz_ops = {
	.init = fz_init,
	.getattr = fz_getattr,
	.access = fz_access,
	.chmod = fz_chmod,
	.chown = fz_chown,
	.utimens = fz_utimens,
	.truncate = fz_truncate,
	.statfs = fz_statfs,
	.mkdir = fz_mkdir,
	.mknod = fz_mknod,
	.symlink = fz_symlink,
	.readlink = fz_readlink,
	.link = fz_link,
	.rmdir = fz_rmdir,
	.unlink = fz_unlink,
	.rename = fz_rename,
	.open = fz_open,
	.create = fz_create,
	.release = fz_release,
	.read_buf = fz_read_buf,
	.write = fz_write,
	.fsync = fz_fsync,
	.fallocate = fz_fallocate,
	.opendir = fz_opendir,
	.readdir = fz_readdir,
	.releasedir = fz_releasedir,
	.getxattr = fz_getxattr,
	.setxattr = fz_setxattr,
	.listxattr = fz_listxattr,
	.removexattr = fz_removexattr,
};
