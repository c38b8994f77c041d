/*
 * iod-store.c - stripe files: DATADIR/XX/INODE, XX the inode's low byte in
 * hex.  Open descriptors are kept in a small LRU keyed by inode so that a
 * stream of requests on one file costs no open()/close() each; entries in
 * use by a stream are reference counted and never closed under it.
 */
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iod.h"

TAILQ_HEAD(iod_files, iod_file);

static int iod_store_dirfd = -1;
static struct iod_files iod_store_lru = TAILQ_HEAD_INITIALIZER(iod_store_lru);
static unsigned iod_store_nfiles;

static void iod_store_subdir(uint64_t ino, char *out, size_t len)
{
	snprintf(out, len, "%02x", (unsigned)(ino & 0xff));
}

static void iod_store_path(uint64_t ino, char *out, size_t len)
{
	snprintf(out, len, "%02x/%" PRIu64, (unsigned)(ino & 0xff), ino);
}

/* Make DATADIR and its 256 subdirectories so that creates need no mkdir. */
int iod_store_init(const char *datadir, char **cause)
{
	char sub[8];
	unsigned i;

	if (pvfs_mkdir_p(datadir, 0700) != 0) {
		pvfs_set_cause(cause, "%s: %s", datadir, strerror(errno));
		return -1;
	}
	iod_store_dirfd = open(datadir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (iod_store_dirfd == -1) {
		pvfs_set_cause(cause, "%s: %s", datadir, strerror(errno));
		return -1;
	}
	for (i = 0; i < 256; i++) {
		iod_store_subdir(i, sub, sizeof sub);
		if (mkdirat(iod_store_dirfd, sub, 0700) != 0 && errno != EEXIST) {
			pvfs_set_cause(cause, "%s/%s: %s", datadir, sub,
			    strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void iod_store_free(struct iod_file *f)
{
	TAILQ_REMOVE(&iod_store_lru, f, lru);
	iod_store_nfiles--;
	close(f->fd);
	free(f);
}

/* Close least recently used idle descriptors beyond the cache size. */
static void iod_store_trim(void)
{
	struct iod_file *f, *prev;

	f = TAILQ_LAST(&iod_store_lru, iod_files);
	while (f != NULL && iod_store_nfiles > IOD_STORE_FDS) {
		prev = TAILQ_PREV(f, iod_files, lru);
		if (f->refs == 0)
			iod_store_free(f);
		f = prev;
	}
}

/* Out of descriptors: give back the least recently used idle one, so that
 * a request is served rather than failed with EMFILE.  1 if one was. */
static int iod_store_evict_one(void)
{
	struct iod_file *f;

	TAILQ_FOREACH_REVERSE(f, &iod_store_lru, iod_files, lru) {
		if (f->refs == 0) {
			iod_store_free(f);
			return 1;
		}
	}
	return 0;
}

/* openat under DATADIR; every descriptor the store opens comes from here,
 * so none fails with EMFILE while the cache holds an idle one. */
static int iod_store_openat(const char *path, int flags, mode_t mode)
{
	int fd = openat(iod_store_dirfd, path, flags, mode);

	if (fd == -1 && (errno == EMFILE || errno == ENFILE) &&
	    iod_store_evict_one())
		fd = openat(iod_store_dirfd, path, flags, mode);
	return fd;
}

void iod_store_shutdown(void)
{
	struct iod_file *f;

	while ((f = TAILQ_FIRST(&iod_store_lru)) != NULL)
		iod_store_free(f);
	if (iod_store_dirfd != -1)
		close(iod_store_dirfd);
	iod_store_dirfd = -1;
}

static struct iod_file *iod_store_find(uint64_t ino)
{
	struct iod_file *f;

	TAILQ_FOREACH(f, &iod_store_lru, lru) {
		if (f->ino == ino && !f->dead)
			return f;
	}
	return NULL;
}

/* Open a stripe file; a subdirectory someone removed is made again. */
static int iod_store_open(uint64_t ino, int create)
{
	char path[64], sub[8];
	int flags = O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0);
	int fd;

	iod_store_path(ino, path, sizeof path);
	fd = iod_store_openat(path, flags, 0600);
	if (fd == -1 && errno == ENOENT && create) {
		iod_store_subdir(ino, sub, sizeof sub);
		if (mkdirat(iod_store_dirfd, sub, 0700) != 0 && errno != EEXIST)
			return -1;
		fd = iod_store_openat(path, flags, 0600);
	}
	return fd;
}

/* A referenced stripe file, or NULL with *err (ENOENT if missing and not
 * create).  Release it with iod_store_put. */
struct iod_file *iod_store_get(uint64_t ino, int create, int *err)
{
	struct iod_file *f;
	int fd;

	if ((f = iod_store_find(ino)) != NULL) {
		TAILQ_REMOVE(&iod_store_lru, f, lru);
		TAILQ_INSERT_HEAD(&iod_store_lru, f, lru);
		f->refs++;
		return f;
	}
	if ((fd = iod_store_open(ino, create)) == -1) {
		*err = errno;
		return NULL;
	}
	if ((f = calloc(1, sizeof *f)) == NULL) {
		close(fd);
		*err = ENOMEM;
		return NULL;
	}
	f->ino = ino;
	f->fd = fd;
	f->refs = 1;
	TAILQ_INSERT_HEAD(&iod_store_lru, f, lru);
	iod_store_nfiles++;
	iod_store_trim();
	return f;
}

void iod_store_put(struct iod_file *f)
{
	if (f == NULL)
		return;
	f->refs--;
	if (f->refs == 0 && f->dead)
		iod_store_free(f);
	else if (f->refs == 0)
		iod_store_trim();
}

/* stat a stripe file: 0, or -errno (-ENOENT when missing). */
int iod_store_stat(uint64_t ino, struct stat *st)
{
	struct iod_file *f;
	char path[64];

	if ((f = iod_store_find(ino)) != NULL)
		return fstat(f->fd, st) == 0 ? 0 : -errno;
	iod_store_path(ino, path, sizeof path);
	if (fstatat(iod_store_dirfd, path, st, 0) != 0)
		return -errno;
	return 0;
}

/* Unlink a stripe file; streams still using it finish on the unlinked
 * inode (data of a file removed while open is lost, as in PVFS 1). */
int iod_store_remove(uint64_t ino)
{
	struct iod_file *f;
	char path[64];

	if ((f = iod_store_find(ino)) != NULL) {
		f->dead = 1;
		if (f->refs == 0)
			iod_store_free(f);
	}
	iod_store_path(ino, path, sizeof path);
	if (unlinkat(iod_store_dirfd, path, 0) != 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/* fsync the subdirectory so that a newly created stripe file's name is as
 * durable as its data. */
int iod_store_sync_dir(uint64_t ino)
{
	char sub[8];
	int fd, rc;

	iod_store_subdir(ino, sub, sizeof sub);
	fd = iod_store_openat(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd == -1)
		return -errno;
	rc = fsync(fd) == 0 ? 0 : -errno;
	close(fd);
	return rc;
}

int iod_store_statfs(struct statvfs *sv)
{
	return fstatvfs(iod_store_dirfd, sv) == 0 ? 0 : -errno;
}

static int iod_store_ent_cmp(const void *a, const void *b)
{
	const struct pvfs_stripe_ent *x = a, *y = b;

	return x->ino < y->ino ? -1 : x->ino > y->ino;
}

/* The inode a stripe file name stands for, if name is one of subdirectory
 * sub (canonical decimal, right low byte); else 0 (no inode is 0). */
static uint64_t iod_store_name_ino(const char *name, unsigned sub)
{
	char back[32];
	uint64_t ino;

	if (name[0] < '1' || name[0] > '9' || strlen(name) > 20)
		return 0;
	ino = strtoull(name, NULL, 10);
	snprintf(back, sizeof back, "%" PRIu64, ino);
	if (strcmp(back, name) != 0 || (ino & 0xff) != sub)
		return 0;
	return ino;
}

/* Read subdirectory sub into a malloc'd array of its stripe files above
 * after (sizes not filled in).  0, or -errno. */
static int iod_store_collect(unsigned sub, uint64_t after,
    struct pvfs_stripe_ent **out, size_t *n)
{
	struct pvfs_stripe_ent *v = NULL, *nv;
	size_t cap = 0;
	struct dirent *de;
	char name[8];
	uint64_t ino;
	DIR *d;
	int fd;

	*n = 0;
	*out = NULL;
	iod_store_subdir(sub, name, sizeof name);
	fd = iod_store_openat(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	if (fd == -1)
		return errno == ENOENT ? 0 : -errno;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	while ((de = readdir(d)) != NULL) {
		if ((ino = iod_store_name_ino(de->d_name, sub)) <= after)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			if ((nv = realloc(v, cap * sizeof *v)) == NULL) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[(*n)++].ino = ino;
	}
	closedir(d);
	*out = v;
	return 0;
}

/* IOD_LIST: the first max stripe files of subdirectory sub above after,
 * ascending, with their sizes.  A file removed meanwhile is left out and
 * the next one takes its place, so only the last page is short (the
 * caller pages on from the last inode returned).  0, or -errno. */
int iod_store_list(unsigned sub, uint64_t after, uint32_t max,
    struct pvfs_stripe_ent *ents, uint32_t *n, int *eof)
{
	struct pvfs_stripe_ent *all;
	struct stat st;
	size_t i, count;
	int rc;

	*n = 0;
	if ((rc = iod_store_collect(sub, after, &all, &count)) != 0)
		return rc;
	if (count > 1)
		qsort(all, count, sizeof *all, iod_store_ent_cmp);
	for (i = 0; i < count && *n < max; i++) {
		if (iod_store_stat(all[i].ino, &st) != 0)
			continue;
		ents[*n].ino = all[i].ino;
		ents[(*n)++].size = (uint64_t)st.st_size;
	}
	*eof = i == count;
	free(all);
	return 0;
}
