/*
 * dir.c - directory streams: "." and ".." first, then the mgr's entries in
 * batches, resumed by cookie so a stream survives concurrent changes.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pvfs-internal.h"

struct pvfs_dir {
	struct client_fs *fs;
	uint64_t ino;
	pthread_mutex_t lock;
	int pos;                /* 0 next is ".", 1 next is "..", 2 entries */
	uint64_t cookie;        /* resume after this entry */
	int eof;                /* the mgr has nothing after cookie */
	int plus;               /* read by pvfs_readdir_stat: pbatch, not batch */
	struct pvfs_mgr_readdir_rep batch;
	struct pvfs_mgr_readdirplus_rep pbatch;
	struct pvfs_io_size psize[PVFS_READDIRPLUS_MAX]; /* pbatch's sizes... */
	uint8_t psize_ok[PVFS_READDIRPLUS_MAX];         /* ...where whole */
	uint32_t next;          /* index in batch or pbatch */
	struct dirent de;
};

PVFS_DIR *
pvfs_opendir(const char *path)
{
	struct pvfs_mgr_open_req req;
	struct pvfs_mgr_attrcap_rep rep;
	struct pvfs_walk w;
	PVFS_DIR *d;

	memset(&req, 0, sizeof(req));
	req.flags = PVFS_OF_DIRECTORY | PVFS_OF_RDONLY;
	req.dist.base = req.dist.pcount = req.dist.ssize = PVFS_DIST_DEFAULT;
	pvfs_walk_init(&w, PVFS_MGR_OPEN, &req, &req.cred, path, req.path, &rep);
	if (pvfs_walk_rpc(&w) != 0)
		return NULL;
	if (!S_ISDIR(rep.attr.mode)) {
		errno = ENOTDIR;
		return NULL;
	}
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return NULL;
	d->fs = w.fs;
	d->ino = rep.attr.ino;
	pthread_mutex_init(&d->lock, NULL);
	return d;
}

static struct dirent *
dir_entry(PVFS_DIR *d, uint64_t ino, uint64_t off, uint8_t type,
    const char *name)
{
	size_t len = strlen(name); /* wire names are NUL-terminated, <= 255 */
	size_t reclen = offsetof(struct dirent, d_name) + len + 1;

	d->de.d_ino = (ino_t)ino;
	d->de.d_off = (off_t)off;
	d->de.d_reclen = (unsigned short)((reclen + 7) & ~(size_t)7);
	d->de.d_type = type;
	if (len > sizeof(d->de.d_name) - 1)
		len = sizeof(d->de.d_name) - 1;
	memcpy(d->de.d_name, name, len);
	d->de.d_name[len] = '\0';
	return &d->de;
}

/* The sizes of the batch's regular files, from one request to each iod;
 * a file left out (an iod down, a stale capability) is asked alone when
 * it is read, which says why.  The mgr's exact sizes need no iod. */
static void
dir_sizes(PVFS_DIR *d)
{
	const struct pvfs_cap *caps[PVFS_READDIRPLUS_MAX];
	uint32_t i;

	for (i = 0; i < d->pbatch.n; i++)
		caps[i] = S_ISREG(d->pbatch.ents[i].attr.mode) &&
		    !pvfs_meta_size_exact(&d->pbatch.ents[i].attr) ?
		    &d->pbatch.ents[i].cap : NULL;
	if (pvfs_io_size_list(d->fs, caps, d->pbatch.n, d->psize,
	    d->psize_ok) != 0)
		memset(d->psize_ok, 0, sizeof(d->psize_ok));
}

/* Fetch the entries after the cookie (with their attributes for a
 * stream read with pvfs_readdir_stat); 0, or -1 with errno. */
static int
dir_fetch(PVFS_DIR *d)
{
	struct pvfs_mgr_readdir_req req;
	struct pvfs_mgr_readdir_rep rep;
	struct pvfs_mgr_readdirplus_rep prep;
	uint32_t n;
	int eof;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	req.ino = d->ino;
	req.cookie = d->cookie;
	if (d->plus) {
		req.max = PVFS_READDIRPLUS_MAX;
		if (pvfs_conn_rpc(d->fs, PVFS_MGR_READDIRPLUS, &req, &prep) != 0)
			return -1;
		pvfs_msg_free(PVFS_MGR_READDIRPLUS, 1, &d->pbatch);
		d->pbatch = prep;
		n = prep.n;
		eof = prep.eof;
		dir_sizes(d);
	} else {
		req.max = PVFS_READDIR_MAX;
		if (pvfs_conn_rpc(d->fs, PVFS_MGR_READDIR, &req, &rep) != 0)
			return -1;
		pvfs_msg_free(PVFS_MGR_READDIR, 1, &d->batch);
		d->batch = rep;
		n = rep.n;
		eof = rep.eof;
	}
	d->next = 0;
	/* An empty batch that claims more would loop forever. */
	d->eof = eof || n == 0;
	return 0;
}

static struct dirent *
dir_next(PVFS_DIR *d)
{
	const struct pvfs_dirent_wire *e;

	if (d->plus) {
		errno = EINVAL;
		return NULL;
	}
	if (d->pos < 2) {
		d->pos++;
		return dir_entry(d, d->ino, (uint64_t)d->pos, DT_DIR,
		    d->pos == 1 ? "." : "..");
	}
	while (d->next >= d->batch.n) {
		if (d->eof || dir_fetch(d) != 0)
			return NULL;
	}
	e = &d->batch.ents[d->next++];
	d->cookie = e->cookie;
	return dir_entry(d, e->ino, e->cookie, e->type, e->name);
}

/* NULL with errno unchanged at the end, NULL with errno on an error. */
struct dirent *
pvfs_readdir(PVFS_DIR *d)
{
	struct dirent *de;

	if (d == NULL) {
		errno = EBADF;
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	de = dir_next(d);
	pthread_mutex_unlock(&d->lock);
	return de;
}

static struct dirent *
dir_next_stat(PVFS_DIR *d, struct stat *st)
{
	const struct pvfs_direntplus_wire *e;
	struct pvfs_mgr_attrcap_rep ac;
	struct dirent *de;
	uint32_t i;
	int saved;

	if (!d->plus && (d->pos > 0 || d->batch.n > 0)) {
		errno = EINVAL; /* already read with pvfs_readdir */
		return NULL;
	}
	d->plus = 1;
	d->pos = 2;
	while (d->next >= d->pbatch.n) {
		if (d->eof || dir_fetch(d) != 0)
			return NULL;
	}
	i = d->next++;
	e = &d->pbatch.ents[i];
	d->cookie = e->ent.cookie;
	de = dir_entry(d, e->ent.ino, e->ent.cookie, e->ent.type, e->ent.name);
	ac.attr = e->attr;
	ac.cap = e->cap;
	saved = errno;
	if (d->psize_ok[i]) {
		pvfs_meta_fill(d->fs, &ac, &d->psize[i], st);
		return de;
	}
	if (pvfs_meta_stat_reply(d->fs, &ac, st) != 0) {
		memset(st, 0, sizeof(*st));
		return de;
	}
	errno = saved;
	return de;
}

struct dirent *
pvfs_readdir_stat(PVFS_DIR *d, struct stat *st)
{
	struct dirent *de;

	if (d == NULL || st == NULL) {
		errno = d == NULL ? EBADF : EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	de = dir_next_stat(d, st);
	pthread_mutex_unlock(&d->lock);
	return de;
}

void
pvfs_rewinddir(PVFS_DIR *d)
{
	if (d == NULL)
		return;
	pthread_mutex_lock(&d->lock);
	pvfs_msg_free(PVFS_MGR_READDIR, 1, &d->batch);
	pvfs_msg_free(PVFS_MGR_READDIRPLUS, 1, &d->pbatch);
	memset(&d->batch, 0, sizeof(d->batch));
	memset(&d->pbatch, 0, sizeof(d->pbatch));
	d->plus = 0;
	d->next = 0;
	d->pos = 0;
	d->cookie = 0;
	d->eof = 0;
	pthread_mutex_unlock(&d->lock);
}

int
pvfs_closedir(PVFS_DIR *d)
{
	if (d == NULL) {
		errno = EBADF;
		return -1;
	}
	pvfs_msg_free(PVFS_MGR_READDIR, 1, &d->batch);
	pvfs_msg_free(PVFS_MGR_READDIRPLUS, 1, &d->pbatch);
	pthread_mutex_destroy(&d->lock);
	free(d);
	return 0;
}
