/*
 * meta.c - attributes and the name space: one mgr request each, plus the
 * iods where file data is concerned (size for stat, stripes for unlink
 * and truncate).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "pvfs-internal.h"

#define META_FS_MAGIC 0x50564653 /* "PVFS" */
#define META_DIR_BLKSIZE 4096

static struct timespec
meta_ts(int64_t ns)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(ns / 1000000000);
	ts.tv_nsec = (long)(ns % 1000000000);
	if (ts.tv_nsec < 0) {
		ts.tv_sec--;
		ts.tv_nsec += 1000000000;
	}
	return ts;
}

/* Data written after the mgr last set mtime (create, truncate, utimes)
 * dates the file; otherwise the mgr's mtime stands, so utimes to an older
 * time sticks and chmod after a write does not hide the write. */
static int64_t
meta_mtime(const struct pvfs_attr *a, const struct pvfs_io_size *sz)
{
	return sz->mtime_ns > a->mtime_set_ns ? sz->mtime_ns : a->mtime_ns;
}

/* ctime follows data writes the way mtime does: a write reaches only
 * the iods, and on Linux it sets both.  Whichever is later wins, so
 * utimes to an old mtime still shows its own ctime. */
static int64_t
meta_ctime(const struct pvfs_attr *a, const struct pvfs_io_size *sz)
{
	return sz->mtime_ns > a->mtime_set_ns && sz->mtime_ns > a->ctime_ns ?
	    sz->mtime_ns : a->ctime_ns;
}

void
pvfs_meta_fill(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    const struct pvfs_io_size *sz, struct stat *st)
{
	const struct pvfs_attr *a = &r->attr;

	memset(st, 0, sizeof(*st));
	st->st_dev = pvfs_client_fs_dev(fs, r->cap.fsid);
	st->st_ino = (ino_t)a->ino;
	st->st_mode = (mode_t)a->mode;
	st->st_nlink = (nlink_t)a->nlink;
	st->st_uid = (uid_t)a->uid;
	st->st_gid = (gid_t)a->gid;
	st->st_atim = meta_ts(a->atime_ns);
	st->st_mtim = meta_ts(meta_mtime(a, sz));
	st->st_ctim = meta_ts(meta_ctime(a, sz));
	st->st_rdev = (dev_t)a->rdev;
	if (S_ISREG(a->mode)) {
		st->st_size = (off_t)sz->size;
		st->st_blocks = (blkcnt_t)sz->blocks;
		st->st_blksize = a->dist.ssize ? (blksize_t)a->dist.ssize : META_DIR_BLKSIZE;
	} else {
		st->st_size = (off_t)a->size;
		st->st_blksize = META_DIR_BLKSIZE;
	}
}

/* $PVFS_SIZE_AT_MGR=0: always ask the iods (to measure the difference). */
static int
meta_size_at_mgr(void)
{
	static int on = -1;
	const char *s;

	if (__atomic_load_n(&on, __ATOMIC_RELAXED) < 0) {
		s = getenv("PVFS_SIZE_AT_MGR");
		__atomic_store_n(&on, s == NULL || strcmp(s, "0") != 0,
		    __ATOMIC_RELAXED);
	}
	return on;
}

/* The mgr asked for the size it does not know (PVFS_SIZE_ASK): tell it
 * what the iods said.  It takes it only from one who may write the file,
 * so others do not ask; it drops a stale one.  Nothing to report back. */
static void
meta_size_report(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    const struct pvfs_io_size *sz)
{
	struct pvfs_mgr_size_req req;
	struct pvfs_none rep;
	int saved = errno;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	if (req.cred.uid != 0 &&
	    (req.cred.uid != r->attr.uid || !(r->attr.mode & S_IWUSR)))
		return;
	req.cap = r->cap;
	req.epoch = r->attr.size_epoch;
	req.size = sz->size;
	req.blocks = sz->blocks;
	req.mtime_ns = sz->mtime_ns;
	(void)pvfs_conn_rpc(fs, PVFS_MGR_SIZE, &req, &rep);
	errno = saved;
}

/* A regular file's size, mtime and blocks live on its iods; the mgr's
 * reply has them when it knows them exactly (doc/design.md, "Size at
 * the mgr"), with the data's mtime folded into the attributes. */
int
pvfs_meta_size_exact(const struct pvfs_attr *a)
{
	return S_ISREG(a->mode) && (a->size_flags & PVFS_SIZE_EXACT) &&
	    meta_size_at_mgr();
}

int
pvfs_meta_stat_reply(struct client_fs *fs, const struct pvfs_mgr_attrcap_rep *r,
    struct stat *st)
{
	struct io_file f;
	struct pvfs_io_size sz;

	memset(&sz, 0, sizeof(sz));
	if (pvfs_meta_size_exact(&r->attr)) {
		sz.size = r->attr.size;
		sz.blocks = r->attr.blocks;
	} else if (S_ISREG(r->attr.mode)) {
		memset(&f, 0, sizeof(f));
		f.fs = fs;
		f.ino = r->attr.ino;
		f.cap = r->cap;
		f.want_rights = PVFS_R_SIZE;
		if (pvfs_io_size(&f, &sz) != 0)
			return -1;
		if ((r->attr.size_flags & PVFS_SIZE_ASK) && meta_size_at_mgr())
			meta_size_report(fs, r, &sz);
	}
	pvfs_meta_fill(fs, r, &sz, st);
	return 0;
}

/* One path request (its path field inner, its caller cred) through the
 * link-following loop; *fs is the file system that answered. */
static int
meta_walk(const char *path, uint16_t op, void *req, struct pvfs_cred *cred,
    char *inner, void *rep, struct client_fs **fs)
{
	struct pvfs_walk w;
	int rc;

	pvfs_walk_init(&w, op, req, cred, path, inner, rep);
	rc = pvfs_walk_rpc(&w);
	*fs = w.fs;
	return rc;
}

/* A request that names nothing but a path (STAT, UNLINK, RMDIR,
 * READLINK): 0 with the reply in rep, or -1 with errno. */
static int
meta_path_rpc(const char *path, uint16_t op, uint32_t flags,
    struct client_fs **fs, void *rep)
{
	struct pvfs_mgr_path_req req;

	memset(&req, 0, sizeof(req));
	req.flags = flags;
	return meta_walk(path, op, &req, &req.cred, req.path, rep, fs);
}

int
pvfs_stat(const char *path, struct stat *st)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (meta_path_rpc(path, PVFS_MGR_STAT, 0, &fs, &rep) != 0)
		return -1;
	return pvfs_meta_stat_reply(fs, &rep, st);
}

/* The mgr's attributes only: no iod is asked, so it works while one is
 * down.  A regular file's size and blocks are 0, its mtime and ctime the
 * mgr's (data written since the mgr last set them is not seen). */
int
pvfs_stat_meta(const char *path, struct stat *st, int nofollow)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct pvfs_io_size sz;
	struct client_fs *fs;

	if (meta_path_rpc(path, PVFS_MGR_STAT, nofollow ? PVFS_PF_NOFOLLOW : 0,
	    &fs, &rep) != 0)
		return -1;
	memset(&sz, 0, sizeof(sz));
	pvfs_meta_fill(fs, &rep, &sz, st);
	return 0;
}

/* What path names, as the shim names local stand-ins for FIFOs and
 * sockets: its file system's id, its inode and its mode. */
int
pvfs_path_ident(const char *path, uint64_t *fsid, uint64_t *ino, mode_t *mode)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (meta_path_rpc(path, PVFS_MGR_STAT, 0, &fs, &rep) != 0)
		return -1;
	*fsid = rep.cap.fsid;
	*ino = rep.attr.ino;
	*mode = (mode_t)rep.attr.mode;
	return 0;
}

int
pvfs_lstat(const char *path, struct stat *st)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (meta_path_rpc(path, PVFS_MGR_STAT, PVFS_PF_NOFOLLOW, &fs, &rep) != 0)
		return -1;
	return pvfs_meta_stat_reply(fs, &rep, st);
}

ssize_t
pvfs_readlink(const char *path, char *buf, size_t len)
{
	struct pvfs_mgr_readlink_rep rep;
	struct client_fs *fs;
	size_t n;

	if (len == 0 || len > SSIZE_MAX) {
		errno = EINVAL;
		return -1;
	}
	if (meta_path_rpc(path, PVFS_MGR_READLINK, 0, &fs, &rep) != 0)
		return -1;
	n = strlen(rep.target);
	if (n > len)
		n = len; /* truncated, without a NUL, as readlink(2) */
	memcpy(buf, rep.target, n);
	return (ssize_t)n;
}

int
pvfs_symlink(const char *target, const char *path)
{
	struct pvfs_mgr_symlink_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;
	size_t n;

	if (target == NULL) {
		errno = EFAULT;
		return -1;
	}
	/* The kernel copies both names first: PATH_MAX with the NUL. */
	if ((n = strnlen(target, PATH_MAX)) >= PATH_MAX ||
	    (path != NULL && strnlen(path, PATH_MAX) >= PATH_MAX)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (n == 0) {
		errno = ENOENT;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	memcpy(req.target, target, n + 1);
	return meta_walk(path, PVFS_MGR_SYMLINK, &req, &req.cred, req.path,
	    &rep, &fs);
}

int
pvfs_fstat(int fd, struct stat *st)
{
	struct file_desc *d = pvfs_fdtab_get(fd);
	int rc;

	if (d == NULL)
		return -1;
	rc = pvfs_file_stat(d->f, st);
	pvfs_fdtab_put(d);
	return rc;
}

int
pvfs_access(const char *path, int mode)
{
	struct pvfs_mgr_mode_req req;
	struct pvfs_none rep;
	struct client_fs *fs;

	if (mode & ~(R_OK | W_OK | X_OK)) {
		errno = EINVAL;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.mode = (uint32_t)mode;
	/* access(2) checks the real ids, not the effective ones (a thread
	 * speaking for another process has only that one's) */
	pvfs_client_cred(&req.cred);
	if (!pvfs_client_ident_is_set()) {
		req.cred.uid = (uint32_t)getuid();
		req.cred.gid = (uint32_t)getgid();
	}
	return meta_walk(path, PVFS_MGR_ACCESS, &req, NULL, req.path, &rep, &fs);
}

static int
meta_ts_ns(const struct timespec *ts, int64_t *ns)
{
	if (ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000) {
		errno = EINVAL;
		return -1;
	}
	*ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
	return 0;
}

int
pvfs_meta_setattr_req(const struct pvfs_setattr *sa, struct pvfs_mgr_setattr_req *req)
{
	static const struct { unsigned lib; uint32_t wire; } bits[] = {
		{ PVFS_SET_MODE, PVFS_SA_MODE }, { PVFS_SET_UID, PVFS_SA_UID },
		{ PVFS_SET_GID, PVFS_SA_GID }, { PVFS_SET_ATIME, PVFS_SA_ATIME },
		{ PVFS_SET_MTIME, PVFS_SA_MTIME },
		{ PVFS_SET_ATIME_NOW, PVFS_SA_ATIME_NOW },
		{ PVFS_SET_MTIME_NOW, PVFS_SA_MTIME_NOW },
		{ PVFS_SET_CHOWN, PVFS_SA_CHOWN },
		{ PVFS_SET_COPIES, PVFS_SA_COPIES },
	};
	size_t i;

	memset(req, 0, sizeof(*req));
	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		if (sa->mask & bits[i].lib)
			req->mask |= bits[i].wire;
	req->mode = (uint32_t)(sa->mode & 07777);
	req->uid = (uint32_t)sa->uid;
	req->gid = (uint32_t)sa->gid;
	if ((sa->mask & PVFS_SET_COPIES) &&
	    (sa->copies < 0 || sa->copies > PVFS_COPIES_MAX)) {
		errno = EINVAL;
		return -1;
	}
	req->copies = (uint32_t)sa->copies;
	if (((sa->mask & PVFS_SET_ATIME) && meta_ts_ns(&sa->atime, &req->atime_ns) != 0) ||
	    ((sa->mask & PVFS_SET_MTIME) && meta_ts_ns(&sa->mtime, &req->mtime_ns) != 0))
		return -1;
	return 0;
}

int
pvfs_path_setattr(const char *path, const struct pvfs_setattr *sa)
{
	struct pvfs_mgr_setattr_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (pvfs_meta_setattr_req(sa, &req) != 0)
		return -1;
	if (sa->mask & PVFS_SET_NOFOLLOW)
		req.flags = PVFS_PF_NOFOLLOW;
	return meta_walk(path, PVFS_MGR_SETATTR, &req, &req.cred, req.path,
	    &rep, &fs);
}

int
pvfs_getcopies(const char *path)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (meta_path_rpc(path, PVFS_MGR_STAT, 0, &fs, &rep) != 0)
		return -1;
	if (S_ISREG(rep.attr.mode))
		return (int)pvfs_dist_copies(&rep.attr.dist);
	if (S_ISDIR(rep.attr.mode))
		return rep.attr.dist.copies;
	errno = EINVAL;
	return -1;
}

int
pvfs_setcopies(const char *path, int copies)
{
	struct pvfs_setattr sa;

	memset(&sa, 0, sizeof(sa));
	sa.mask = PVFS_SET_COPIES;
	sa.copies = copies;
	return pvfs_path_setattr(path, &sa);
}

/* SETATTR by path (fd < 0) or by the inode of an open file. */
static int
meta_setattr(const char *path, int fd, const struct pvfs_setattr *sa)
{
	struct file_desc *d;
	int rc;

	if (fd < 0)
		return pvfs_path_setattr(path, sa);
	if ((d = pvfs_fdtab_get(fd)) == NULL)
		return -1;
	rc = pvfs_file_setattr(d->f, sa);
	pvfs_fdtab_put(d);
	return rc;
}

static int
meta_chmod(const char *path, int fd, mode_t mode)
{
	struct pvfs_setattr sa;

	memset(&sa, 0, sizeof(sa));
	sa.mask = PVFS_SET_MODE;
	sa.mode = mode & 07777;
	return meta_setattr(path, fd, &sa);
}

int
pvfs_chmod(const char *path, mode_t mode)
{
	return meta_chmod(path, -1, mode);
}

int
pvfs_fchmod(int fd, mode_t mode)
{
	return fd < 0 ? (errno = EBADF, -1) : meta_chmod(NULL, fd, mode);
}

/* -1 leaves the owner or the group as it is; a chown to -1, -1 still
 * sets ctime and clears set-id bits (PVFS_SET_CHOWN).  nofollow: a last
 * link itself (lchown). */
static int
meta_chown(const char *path, int fd, uid_t owner, gid_t group, int nofollow)
{
	struct pvfs_setattr sa;

	memset(&sa, 0, sizeof(sa));
	sa.mask = PVFS_SET_CHOWN | (nofollow ? PVFS_SET_NOFOLLOW : 0);
	if (owner != (uid_t)-1) {
		sa.mask |= PVFS_SET_UID;
		sa.uid = owner;
	}
	if (group != (gid_t)-1) {
		sa.mask |= PVFS_SET_GID;
		sa.gid = group;
	}
	return meta_setattr(path, fd, &sa);
}

int
pvfs_chown(const char *path, uid_t owner, gid_t group)
{
	return meta_chown(path, -1, owner, group, 0);
}

int
pvfs_lchown(const char *path, uid_t owner, gid_t group)
{
	return meta_chown(path, -1, owner, group, 1);
}

int
pvfs_fchown(int fd, uid_t owner, gid_t group)
{
	return fd < 0 ? (errno = EBADF, -1) : meta_chown(NULL, fd, owner, group, 0);
}

int
pvfs_utimes(const char *path, const struct timeval times[2])
{
	struct pvfs_setattr sa;
	int i;

	memset(&sa, 0, sizeof(sa));
	if (times == NULL) {
		sa.mask = PVFS_SET_ATIME_NOW | PVFS_SET_MTIME_NOW;
		return pvfs_path_setattr(path, &sa);
	}
	for (i = 0; i < 2; i++) {
		if (times[i].tv_usec < 0 || times[i].tv_usec >= 1000000) {
			errno = EINVAL;
			return -1;
		}
	}
	sa.mask = PVFS_SET_ATIME | PVFS_SET_MTIME;
	sa.atime.tv_sec = times[0].tv_sec;
	sa.atime.tv_nsec = times[0].tv_usec * 1000;
	sa.mtime.tv_sec = times[1].tv_sec;
	sa.mtime.tv_nsec = times[1].tv_usec * 1000;
	return pvfs_path_setattr(path, &sa);
}

static void
meta_fill_statfs(const struct client_fs *fs, uint64_t fsid,
    const struct pvfs_mgr_statfs_rep *m, const struct pvfs_iod_statfs_rep *d,
    struct statfs *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->f_type = META_FS_MAGIC;
	buf->f_bsize = (long)d->bsize;
	buf->f_frsize = (long)d->bsize;
	buf->f_blocks = d->blocks;
	buf->f_bfree = d->bfree;
	buf->f_bavail = d->bavail;
	buf->f_files = m->files;
	buf->f_ffree = m->ffree;
	memcpy(&buf->f_fsid, &fsid, sizeof(buf->f_fsid) < sizeof(fsid) ?
	    sizeof(buf->f_fsid) : sizeof(fsid));
	buf->f_namelen = m->namemax ? (long)m->namemax : PVFS_NAME_MAX;
}

int
pvfs_statfs(const char *path, struct statfs *buf)
{
	struct pvfs_mgr_path_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct pvfs_mgr_cred_req creq;
	struct pvfs_mgr_statfs_rep mrep;
	struct pvfs_iod_statfs_rep drep;
	struct client_fs *fs;

	/* statfs(2) fails for a path that does not exist, and follows
	 * links to the file system that has their target. */
	memset(&req, 0, sizeof(req));
	if (meta_walk(path, PVFS_MGR_STAT, &req, &req.cred, req.path, &rep,
	    &fs) != 0)
		return -1;
	memset(&creq, 0, sizeof(creq));
	creq.cred = req.cred;
	if (pvfs_conn_rpc(fs, PVFS_MGR_STATFS, &creq, &mrep) != 0 ||
	    pvfs_io_statfs(fs, &drep) != 0)
		return -1;
	meta_fill_statfs(fs, fs->fsid, &mrep, &drep, buf);
	return 0;
}

int
pvfs_unlink(const char *path)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	/* The mgr frees the stripes of a last name itself (mgr-free.c). */
	if (meta_path_rpc(path, PVFS_MGR_UNLINK, 0, &fs, &rep) != 0)
		return -1;
	return 0;
}

/* RENAME and LINK: two paths, each walked through its links; a local
 * destination is another file system (EXDEV). */
static int
meta_pair(uint16_t op, const char *oldpath, const char *newpath,
    struct pvfs_mgr_attrcap_rep *rep, struct client_fs **fs)
{
	struct pvfs_mgr_rename_req req;
	struct pvfs_walk w;

	/* Both names are read before either is looked up, as the kernel
	 * does: a NULL one is EFAULT whatever the other names. */
	if (oldpath == NULL || newpath == NULL) {
		errno = EFAULT;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	pvfs_walk_init(&w, op, &req, &req.cred, oldpath, req.from, rep);
	w.path[1] = newpath;
	w.inner[1] = req.to;
	if (pvfs_walk_rpc(&w) != 0)
		return -1;
	*fs = w.fs;
	return 0;
}

int
pvfs_rename(const char *oldpath, const char *newpath)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	if (meta_pair(PVFS_MGR_RENAME, oldpath, newpath, &rep, &fs) != 0)
		return -1;
	return 0;
}

/* A hard link; newpath must not exist.  The mgr refuses directories
 * (EPERM) as Linux does, and links a last link itself, not its target
 * (link(2) without AT_SYMLINK_FOLLOW). */
int
pvfs_link(const char *oldpath, const char *newpath)
{
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	return meta_pair(PVFS_MGR_LINK, oldpath, newpath, &rep, &fs);
}

int
pvfs_path_mkdir(const char *path, mode_t mode)
{
	struct pvfs_mgr_mode_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;

	memset(&req, 0, sizeof(req));
	req.mode = mode & 07777;
	return meta_walk(path, PVFS_MGR_MKDIR, &req, &req.cred, req.path, &rep,
	    &fs);
}

/* pvfs_path_mkdir takes the mode as given; the umask is applied here. */
int
pvfs_mkdir(const char *path, mode_t mode)
{
	return pvfs_path_mkdir(path, mode & ~pvfs_client_umask());
}

/* A regular file by mknod is a create; the rest is the mgr's.  The
 * mode is taken as given. */
int
pvfs_path_mknod(const char *path, mode_t mode, dev_t dev)
{
	struct pvfs_mgr_mknod_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;
	struct pvfs_file *f;
	mode_t fmt = mode & S_IFMT;

	if (fmt == 0 || fmt == S_IFREG) {
		if ((f = pvfs_file_open(path, O_CREAT | O_EXCL | O_RDONLY,
		    mode & 07777, NULL)) == NULL)
			return -1;
		pvfs_file_close(f);
		return 0;
	}
	memset(&req, 0, sizeof(req));
	req.mode = (uint32_t)(fmt | (mode & 07777));
	req.rdev = (uint64_t)dev;
	return meta_walk(path, PVFS_MGR_MKNOD, &req, &req.cred, req.path, &rep,
	    &fs);
}

int
pvfs_mknod(const char *path, mode_t mode, dev_t dev)
{
	return pvfs_path_mknod(path, mode & ~(mode_t)pvfs_client_umask(), dev);
}

int
pvfs_mkfifo(const char *path, mode_t mode)
{
	return pvfs_mknod(path, S_IFIFO | (mode & 07777), 0);
}

int
pvfs_rmdir(const char *path)
{
	struct pvfs_none rep;
	struct client_fs *fs;

	return meta_path_rpc(path, PVFS_MGR_RMDIR, 0, &fs, &rep);
}

int
pvfs_truncate(const char *path, off_t length)
{
	struct pvfs_mgr_truncate_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct client_fs *fs;
	struct io_file f;
	int rc;

	if (length < 0) {
		errno = EINVAL;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.length = (uint64_t)length;
	if (meta_walk(path, PVFS_MGR_TRUNCATE, &req, &req.cred, req.path, &rep,
	    &fs) != 0)
		return -1;
	if (!S_ISREG(rep.attr.mode)) {
		errno = S_ISDIR(rep.attr.mode) ? EISDIR : EINVAL;
		return -1;
	}
	memset(&f, 0, sizeof(f));
	f.fs = fs;
	f.ino = rep.attr.ino;
	f.cap = rep.cap;
	f.want_rights = PVFS_R_WRITE | PVFS_R_SIZE;
	/* Under a write lease, as every change of the iods' size: the mgr's
	 * copy of the size stays untrusted until it goes. */
	if (pvfs_lease_take(fs, f.ino, f.cap.gen, 1) != 0) {
		if (errno == ESTALE)
			errno = ENOENT;
		return -1;
	}
	rc = pvfs_io_truncate(&f, (uint64_t)length);
	pvfs_lease_drop(fs, f.ino, 1, 0);
	return rc;
}
