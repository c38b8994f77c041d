/*
 * fuse-read.c - reads of open files, with read-ahead in this daemon for
 * sequential readers in direct I/O mode (doc/fuse.md, "Data path").
 *
 * A program's read is one synchronous request: the kernel's leg (wake
 * us, copy the reply into the program's pages, wake it) and libpvfs's
 * leg (the iods) add up, one after the other.  When an open file is read
 * sequentially, the next request's bytes are fetched by a helper thread
 * while the current reply goes to the kernel, so the two legs overlap.
 * A fetched buffer is handed over whole as the reply (read_buf: libfuse
 * writes it and frees it), so read-ahead costs no copy; requests smaller
 * than a fetch (at least max_write) get copies of its parts, one round
 * trip to the iods for many small reads.
 *
 * Coherence: the bytes were read from the iods at most FZ_AHEAD_NS before
 * the request came, and not before any write, truncate or fallocate
 * through this mount (fz_data_changed); other clients' writes in that
 * window are not seen by this open file, which close-to-open allows.  A
 * new open starts with nothing fetched.  O_DIRECT opens never read ahead.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pvfs-fuse.h"

#define FZ_AHEAD_NS 100000000   /* 100 ms: older fetched bytes are dropped */
#define FZ_HELPERS_MAX 64       /* files read ahead at once; others are not */

static _Atomic uint64_t fz_wgen; /* data changes through this mount */
static _Atomic int fz_helpers;   /* helper threads alive */

void
fz_data_changed(void)
{
	atomic_fetch_add(&fz_wgen, 1);
}

static int64_t
fz_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
fz_ahead_init(struct fz_file *h, int flags)
{
	struct fz_ahead *a = &h->ahead;

	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->done, NULL);
	pthread_cond_init(&a->go, NULL);
	a->on = fz_dio() && fz.ahead && !(flags & O_DIRECT);
}

/* At release: the helper ends before h is freed. */
void
fz_ahead_fini(struct fz_file *h)
{
	struct fz_ahead *a = &h->ahead;

	pthread_mutex_lock(&a->lock);
	while (a->busy)
		pthread_cond_wait(&a->done, &a->lock);
	a->quit = 1;
	pthread_cond_signal(&a->go);
	pthread_mutex_unlock(&a->lock);
	if (a->helper_on) {
		pthread_join(a->helper, NULL);
		atomic_fetch_sub(&fz_helpers, 1);
	}
	free(a->buf);
	pthread_cond_destroy(&a->go);
	pthread_cond_destroy(&a->done);
	pthread_mutex_destroy(&a->lock);
}

/* The file's helper thread, started at its first fetch: each fetch as
 * the file's opener, until release.  While busy, buf, off and len are
 * its own. */
static void *
fz_ahead_run(void *arg)
{
	struct fz_file *h = arg;
	struct fz_ahead *a = &h->ahead;
	struct iovec iov;
	ssize_t n;

	if (fz.as_caller)
		pvfs_client_set_ident(h->who.uid, h->who.gid, h->who.groups,
		    h->who.ngroups);
	pthread_mutex_lock(&a->lock);
	for (;;) {
		while (!a->pending && !a->quit)
			pthread_cond_wait(&a->go, &a->lock);
		if (a->quit)
			break;
		a->pending = 0;
		iov.iov_base = a->buf;
		iov.iov_len = a->len;
		pthread_mutex_unlock(&a->lock);
		n = pvfs_file_preadv(h->f, &iov, 1, a->off);
		pthread_mutex_lock(&a->lock);
		a->got = n;
		a->when = fz_mono();
		a->busy = 0;
		pthread_cond_broadcast(&a->done);
	}
	pthread_mutex_unlock(&a->lock);
	return NULL;
}

/* Whether a's bytes may still be served (a->lock held, not busy). */
static int
fz_ahead_fresh(const struct fz_ahead *a)
{
	return a->buf != NULL && a->got > 0 &&
	    a->wgen == atomic_load(&fz_wgen) &&
	    fz_mono() - a->when < FZ_AHEAD_NS;
}

/* Fetch [off, off + len) in a helper thread, unless one is running or
 * the bytes there are fetched already. */
static void
fz_ahead_start(struct fz_file *h, uint64_t off, size_t len)
{
	struct fz_ahead *a = &h->ahead;
	char *buf;

	if ((buf = malloc(len)) == NULL)
		return;
	pthread_mutex_lock(&a->lock);
	if (a->busy || (fz_ahead_fresh(a) && off >= a->off &&
	    off < a->off + (uint64_t)a->got)) {
		pthread_mutex_unlock(&a->lock);
		free(buf);
		return;
	}
	free(a->buf);
	a->buf = buf;
	a->off = off;
	a->len = len;
	a->got = -1;
	a->wgen = atomic_load(&fz_wgen);
	a->busy = 1;
	a->pending = 1;
	if (a->helper_on) {
		pthread_cond_signal(&a->go);
	} else if (atomic_fetch_add(&fz_helpers, 1) < FZ_HELPERS_MAX &&
	    pthread_create(&a->helper, NULL, fz_ahead_run, h) == 0) {
		a->helper_on = 1;
	} else {
		atomic_fetch_sub(&fz_helpers, 1);
		/* not for this open file, then */
		__atomic_store_n(&a->on, 0, __ATOMIC_RELAXED);
		a->busy = a->pending = 0;
		a->buf = NULL;
		free(buf);
	}
	pthread_mutex_unlock(&a->lock);
}

/* The bytes [off, off + size) if fetched, or NULL; waits for a fetch
 * still running that holds off.  The whole fetched buffer when the
 * request is exactly it (no copy), else a copy of the part, the rest
 * kept for the next requests (small reads); a buffer that cannot serve
 * is dropped.  *seq: the request follows the last one. */
static char *
fz_ahead_take(struct fz_file *h, uint64_t off, size_t size, int *seq)
{
	struct fz_ahead *a = &h->ahead;
	char *buf = NULL;
	uint64_t end;

	pthread_mutex_lock(&a->lock);
	*seq = off == a->next;
	a->next = off + size;
	while (a->busy && off >= a->off && off < a->off + a->len)
		pthread_cond_wait(&a->done, &a->lock);
	if (!a->busy && a->buf != NULL) {
		end = fz_ahead_fresh(a) ? a->off + (uint64_t)a->got : 0;
		if (off == a->off && off + size == end) {
			buf = a->buf;
			a->buf = NULL;
		} else if (off >= a->off && off + size <= end) {
			if ((buf = malloc(size > 0 ? size : 1)) != NULL)
				memcpy(buf, a->buf + (off - a->off), size);
		} else {
			free(a->buf);
			a->buf = NULL;
		}
	}
	pthread_mutex_unlock(&a->lock);
	return buf;
}

int
fz_read_buf(const char *p, struct fuse_bufvec **bufp, size_t size, off_t off,
    struct fuse_file_info *fi)
{
	struct fz_file *h = (struct fz_file *)(uintptr_t)fi->fh;
	struct fuse_bufvec *bv;
	struct iovec iov;
	char *buf = NULL;
	ssize_t n = (ssize_t)size;
	int seq = 0;

	(void)p;
	if (off < 0 || size > SSIZE_MAX)
		return -EINVAL;
	if ((bv = malloc(sizeof(*bv))) == NULL)
		return -ENOMEM;
	if (__atomic_load_n(&h->ahead.on, __ATOMIC_RELAXED))
		buf = fz_ahead_take(h, (uint64_t)off, size, &seq);
	if (buf == NULL) {
		if ((buf = malloc(size > 0 ? size : 1)) == NULL) {
			free(bv);
			return -ENOMEM;
		}
		fz_as(&h->who);
		iov.iov_base = buf;
		iov.iov_len = size;
		if ((n = pvfs_file_preadv(h->f, &iov, 1, (uint64_t)off)) < 0) {
			n = fz_err();
			free(buf);
			free(bv);
			return (int)n;
		}
	}
	/* A whole reply, not the end of the file: the next one is likely
	 * where this one ends; small ones come from one fetch of max_write. */
	if (seq && n == (ssize_t)size && size > 0)
		fz_ahead_start(h, (uint64_t)off + size,
		    size > fz.max_write ? size : fz.max_write);
	*bv = FUSE_BUFVEC_INIT((size_t)n);
	bv->buf[0].mem = buf;
	*bufp = bv;
	return 0;
}
