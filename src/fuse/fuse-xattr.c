/*
 * fuse-xattr.c - a regular file's distribution as extended attributes:
 * user.pvfs.base, user.pvfs.pcount, user.pvfs.ssize and user.pvfs.copies
 * (decimal text; copies > 1: a mirrored file).  A directory has
 * user.pvfs.copies alone: its default for new files (0: none), which the
 * mgr does keep, so setting it is a plain SETATTR.
 *
 * The mgr fixes a distribution when the file is made (MGR_OPEN with
 * O_CREAT) and has no call to change it, so setting one on an empty file
 * makes a new file with the new distribution beside it and renames it
 * over the old one: same name, mode, owner and times, a new inode.  Only
 * the owner (or root) may, only while the file is empty and not open
 * through this mount (doc/fuse.md).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "pvfs-fuse.h"

#define FZ_XATTR_PREFIX "user.pvfs."

static const char *const fz_xattr_names[] = { "base", "pcount", "ssize",
	"copies" };
#define FZ_NXATTR 4
#define FZ_COPIES 3 /* the index of copies, a directory's only name */

/* The index of a name of ours, -1 if it is not one. */
static int
fz_xattr_index(const char *name)
{
	int i;

	if (strncmp(name, FZ_XATTR_PREFIX, strlen(FZ_XATTR_PREFIX)) != 0)
		return -1;
	for (i = 0; i < FZ_NXATTR; i++)
		if (strcmp(name + strlen(FZ_XATTR_PREFIX), fz_xattr_names[i]) == 0)
			return i;
	return -1;
}

/* A file's layout: its distribution and copies. */
struct fz_layout {
	struct pvfs_filestat d;
	int32_t copies;
};

static int32_t *
fz_dist_field(struct fz_layout *l, int i)
{
	return i == 0 ? &l->d.base : i == 1 ? &l->d.pcount :
	    i == 2 ? &l->d.ssize : &l->copies;
}

/* The regular file (or, for copies, directory) at path and its layout. */
static int
fz_dist_get(const char *path, int i, struct stat *st, struct fz_layout *l)
{
	struct pvfs_attr_info a;

	if (pvfs_lstat(path, st) != 0)
		return fz_err();
	if (!S_ISREG(st->st_mode) && !(S_ISDIR(st->st_mode) && i == FZ_COPIES))
		return -ENODATA;
	if (pvfs_admin_attr(path, &a) != 0)
		return fz_err();
	memset(l, 0, sizeof(*l));
	l->d.base = (int32_t)a.base;
	l->d.pcount = (int32_t)a.pcount;
	l->d.ssize = (int32_t)a.ssize;
	l->copies = (int32_t)a.copies;
	return 0;
}

int
fz_getxattr(const char *p, const char *name, char *value, size_t size)
{
	struct fz_layout d;
	struct stat st;
	char text[16];
	int i, n, rc;
	char path[FZ_PATH_MAX];

	if ((i = fz_xattr_index(name)) < 0)
		return -ENODATA;
	if ((rc = fz_path(p, path)) != 0)
		return rc;
	fz_as(NULL);
	if ((rc = fz_dist_get(path, i, &st, &d)) != 0)
		return rc;
	n = snprintf(text, sizeof(text), "%d", (int)*fz_dist_field(&d, i));
	if (size == 0)
		return n;
	if ((size_t)n > size)
		return -ERANGE;
	memcpy(value, text, (size_t)n);
	return n;
}

int
fz_listxattr(const char *p, char *list, size_t size)
{
	struct stat st;
	size_t len = 0, n;
	int i;
	char path[FZ_PATH_MAX];

	if ((i = fz_path(p, path)) != 0)
		return i;
	fz_as(NULL);
	if (pvfs_lstat(path, &st) != 0)
		return fz_err();
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return 0;
	for (i = S_ISDIR(st.st_mode) ? FZ_COPIES : 0; i < FZ_NXATTR; i++) {
		n = strlen(FZ_XATTR_PREFIX) + strlen(fz_xattr_names[i]) + 1;
		if (size != 0) {
			if (len + n > size)
				return -ERANGE;
			snprintf(list + len, n, "%s%s", FZ_XATTR_PREFIX,
			    fz_xattr_names[i]);
		}
		len += n;
	}
	return (int)len;
}

static int
fz_parse_field(const char *value, size_t size, int32_t *out)
{
	char text[16], *end;
	long v;

	if (size == 0 || size >= sizeof(text))
		return -EINVAL;
	memcpy(text, value, size);
	text[size] = '\0';
	if (size > 0 && text[size - 1] == '\n')
		text[size - 1] = '\0';
	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < -1 || v > INT32_MAX)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

/* A name in path's directory for the file being made. */
static int
fz_temp_name(const char *path, char *out)
{
	static unsigned long seq;
	const char *slash = strrchr(path, '/');
	int n;

	if (slash == NULL)
		return -EINVAL;
	n = snprintf(out, FZ_PATH_MAX, "%.*s/.pvfs-layout.%ld.%lu",
	    (int)(slash - path), path, (long)getpid(),
	    __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	return n < 0 || n >= FZ_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Make tmp the twin of st with layout l, then put it in path's place. */
static int
fz_relayout(const char *path, const struct stat *st,
    const struct fz_layout *l, const struct fz_ident *who)
{
	struct pvfs_setattr sa = { .mask = 0 };
	struct pvfs_file *f;
	char tmp[FZ_PATH_MAX];
	int rc;

	if ((rc = fz_temp_name(path, tmp)) != 0)
		return rc;
	if ((f = pvfs_file_open_copies(tmp, O_CREAT | O_EXCL | O_WRONLY,
	    st->st_mode & 0700, &l->d, l->copies < 0 ? 0 : l->copies)) == NULL)
		return fz_err();
	pvfs_file_close(f);
	/* The owner and group the old file had: root's to give (the
	 * caller may own the file but not be in its group). */
	if (st->st_uid != who->uid || st->st_gid != who->gid) {
		sa.mask = PVFS_SET_UID | PVFS_SET_GID;
		sa.uid = st->st_uid;
		sa.gid = st->st_gid;
		if (fz.as_caller)
			pvfs_client_clear_ident();
		rc = pvfs_path_setattr(tmp, &sa);
		fz_as(who);
		if (rc != 0)
			goto fail;
	}
	sa.mask = PVFS_SET_MODE | PVFS_SET_ATIME | PVFS_SET_MTIME;
	sa.mode = st->st_mode & 07777;
	sa.atime = st->st_atim;
	sa.mtime = st->st_mtim;
	if (pvfs_path_setattr(tmp, &sa) != 0 || pvfs_rename(tmp, path) != 0)
		goto fail;
	return 0;
fail:
	rc = fz_err();
	pvfs_unlink(tmp);
	return rc;
}

int
fz_setxattr(const char *p, const char *name, const char *value, size_t size,
    int flags)
{
	struct fz_layout d, want;
	struct pvfs_setattr sa = { .mask = PVFS_SET_COPIES };
	struct fz_ident who;
	struct stat st;
	int32_t v;
	int i, rc;
	char path[FZ_PATH_MAX];

	if ((i = fz_xattr_index(name)) < 0)
		return -ENOTSUP;
	if (flags & XATTR_CREATE)
		return -EEXIST;   /* every regular file has them */
	if ((rc = fz_parse_field(value, size, &v)) != 0)
		return rc;
	if ((rc = fz_path(p, path)) != 0)
		return rc;
	fz_caller(&who);
	fz_as(&who);
	if ((rc = fz_dist_get(path, i, &st, &d)) != 0)
		return rc == -ENODATA ? -ENOTSUP : rc;
	/* A directory's default: the mgr checks the owner (as the caller). */
	if (S_ISDIR(st.st_mode)) {
		sa.copies = v < 0 ? 0 : v;
		return pvfs_path_setattr(path, &sa) != 0 ? fz_err() : 0;
	}
	if (fz.as_caller ? who.uid != 0 && who.uid != st.st_uid :
	    geteuid() != 0 && geteuid() != st.st_uid)
		return -EPERM;
	if (*fz_dist_field(&d, i) == v)
		return 0;
	if (st.st_size != 0 || fz_open_busy(st.st_ino))
		return -EBUSY;
	want = d;
	*fz_dist_field(&want, i) = v;
	return fz_relayout(path, &st, &want, &who);
}

int
fz_removexattr(const char *p, const char *name)
{
	return fz_xattr_index(name) < 0 ? -ENODATA : -EPERM;
}
