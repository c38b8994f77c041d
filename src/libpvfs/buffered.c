/*
 * buffered.c - write-behind and read-ahead for a file opened with
 * PVFS_O_BUFFERED (doc/api.md, "Buffered files"): the application's
 * opt-in to close-to-open visibility in exchange for small requests at
 * the cost of large ones.
 *
 * Writes are copied into one buffer per open file as a list of extents in
 * increasing file order, and go out together (one request per iod, all at
 * once: pvfs_file_segs) when the buffer is full, when a write does not
 * follow the last extent, and before anything that must see them: a
 * read, size, stat, truncate, fsync, close.  A read that follows the last
 * one is served from a window read ahead (64 KiB, doubling to 1 MiB),
 * which any write, truncate or fsync through the file drops.
 *
 * Without the flag none of this runs: a returned write is at the iods.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "pvfs-internal.h"

#define BUF_WRITE_BYTES (1u << 20) /* write-behind buffer */
#define BUF_WRITE_SEGS 256         /* extents it holds */
#define BUF_READ_MIN (64u << 10)   /* first read-ahead window */
#define BUF_READ_MAX (1u << 20)    /* largest */

struct pvfs_buffered {
	pthread_mutex_t lock;
	/* Write-behind: seg[0..nseg) hold data[0..used) in order. */
	uint8_t *data;
	uint64_t used;
	struct pvfs_pattern seg[BUF_WRITE_SEGS];
	uint32_t nseg;
	int err;               /* a flush's error no call returned yet */
	/* Read-ahead: rdata holds [roff, roff + rlen); rnext is where the
	 * last read ended, rwin the next window. */
	uint8_t *rdata;
	uint64_t roff, rlen, rnext;
	uint32_t rwin;
};

int
pvfs_buffered_open(struct pvfs_file *f)
{
	struct pvfs_buffered *b;

	if (!(f->flags & PVFS_O_BUFFERED) || !S_ISREG(f->mode))
		return 0;
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	pthread_mutex_init(&b->lock, NULL);
	f->buffered = b;
	return 0;
}

/* The last close: what is still buffered is written (its error is lost
 * here: pvfs_close flushes first and reports it). */
void
pvfs_buffered_close(struct pvfs_file *f)
{
	struct pvfs_buffered *b = f->buffered;

	if (b == NULL)
		return;
	(void)pvfs_buffered_flush(f);
	pthread_mutex_destroy(&b->lock);
	free(b->data);
	free(b->rdata);
	free(b);
	f->buffered = NULL;
}

/* A forked child must not write its parent's buffered bytes again (the
 * parent may have written newer ones there since): they are the
 * parent's.  The lock may have been held by a thread of the parent. */
void
pvfs_buffered_atfork_child(struct pvfs_file *f)
{
	struct pvfs_buffered *b = f->buffered;

	if (b == NULL)
		return;
	pthread_mutex_init(&b->lock, NULL);
	b->used = 0;
	b->nseg = 0;
	b->rlen = 0;
	b->err = 0;
}

/* Send the buffered extents; the buffer is empty afterwards either way.
 * b->lock is held. */
static int
buf_flush_locked(struct pvfs_file *f, struct pvfs_buffered *b)
{
	struct iovec v = { b->data, b->used };
	uint64_t want = b->used;
	ssize_t n;

	if (b->nseg == 0)
		return 0;
	n = pvfs_file_segs_direct(f, 1, b->seg, b->nseg, &v, 1);
	b->used = 0;
	b->nseg = 0;
	if (n >= 0 && (uint64_t)n != want) {
		errno = EIO;
		n = -1;
	}
	return n < 0 ? -1 : 0;
}

/* Flush, and return a flush error (also an earlier one kept). */
int
pvfs_buffered_flush(struct pvfs_file *f)
{
	struct pvfs_buffered *b = f->buffered;
	int rc, err;

	if (b == NULL)
		return 0;
	pthread_mutex_lock(&b->lock);
	rc = buf_flush_locked(f, b);
	err = rc != 0 ? errno : b->err;
	b->err = 0;
	b->rlen = 0;
	pthread_mutex_unlock(&b->lock);
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

/* Before a call that only reads (size, stat): a flush error is kept for
 * the next write, fsync or close, and the call goes on. */
void
pvfs_buffered_settle(struct pvfs_file *f)
{
	struct pvfs_buffered *b = f->buffered;

	if (b == NULL)
		return;
	pthread_mutex_lock(&b->lock);
	if (buf_flush_locked(f, b) != 0 && b->err == 0)
		b->err = errno;
	pthread_mutex_unlock(&b->lock);
}

static int
buf_contig(const struct pvfs_pattern *p)
{
	return p->count == 1 || p->gsize == p->stride;
}

/* Copy n bytes between a buffer and iovecs, starting skip bytes into the
 * iovecs' stream. */
static void
buf_iov_copy(int to_iov, uint8_t *buf, const struct iovec *iov, int iovcnt,
    uint64_t skip, uint64_t n)
{
	uint64_t k;
	int i;

	for (i = 0; i < iovcnt && n > 0; i++) {
		if (skip >= iov[i].iov_len) {
			skip -= iov[i].iov_len;
			continue;
		}
		k = iov[i].iov_len - skip;
		if (k > n)
			k = n;
		if (to_iov)
			memcpy((char *)iov[i].iov_base + skip, buf, k);
		else
			memcpy(buf, (char *)iov[i].iov_base + skip, k);
		buf += k;
		n -= k;
		skip = 0;
	}
}

/* Append one contiguous write of len bytes at off; b->lock held, room
 * checked. */
static void
buf_append(struct pvfs_buffered *b, uint64_t off, uint64_t len,
    const struct iovec *iov, int iovcnt)
{
	struct pvfs_pattern *last = b->nseg > 0 ? &b->seg[b->nseg - 1] : NULL;

	buf_iov_copy(0, b->data + b->used, iov, iovcnt, 0, len);
	b->used += len;
	if (last != NULL && last->offset + last->gsize == off) {
		last->gsize += len;
		last->stride = last->gsize;
		return;
	}
	pvfs_io_pattern_contig(&b->seg[b->nseg++], off, len);
}

static ssize_t
buf_write(struct pvfs_file *f, struct pvfs_buffered *b,
    const struct pvfs_pattern *p, const struct iovec *iov, int iovcnt)
{
	uint64_t len = pvfs_pattern_bytes(p), end;
	int err;

	b->rlen = 0;
	if ((err = b->err) != 0) {
		b->err = 0;
		errno = err;
		return -1;
	}
	end = b->nseg > 0 ? b->seg[b->nseg - 1].offset +
	    b->seg[b->nseg - 1].gsize : 0;
	if (b->nseg > 0 && (p->offset < end || b->nseg == BUF_WRITE_SEGS ||
	    b->used + len > BUF_WRITE_BYTES) && buf_flush_locked(f, b) != 0)
		return -1;
	if (b->data == NULL && (b->data = malloc(BUF_WRITE_BYTES)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	buf_append(b, p->offset, len, iov, iovcnt);
	return (ssize_t)len;
}

/* Serve a read from the window, reading the next window first when the
 * read follows the last one; -2 when it should go straight to the iods. */
static ssize_t
buf_read(struct pvfs_file *f, struct pvfs_buffered *b,
    const struct pvfs_pattern *p, const struct iovec *iov, int iovcnt)
{
	uint64_t off = p->offset, len = pvfs_pattern_bytes(p), n;
	struct pvfs_pattern w;
	struct iovec v;
	ssize_t got;

	if (off < b->roff || off + len > b->roff + b->rlen) {
		if (off < b->rnext || off >= b->rnext + BUF_READ_MAX ||
		    len > BUF_READ_MAX / 2) {
			b->rwin = 0;
			b->rnext = off + len;
			return -2;
		}
		b->rwin = b->rwin == 0 ? BUF_READ_MIN : b->rwin * 2;
		if (b->rwin < len)
			b->rwin = (uint32_t)len;
		if (b->rwin > BUF_READ_MAX)
			b->rwin = BUF_READ_MAX;
		if (b->rdata == NULL &&
		    (b->rdata = malloc(BUF_READ_MAX)) == NULL)
			return -2;
		pvfs_io_pattern_contig(&w, off, b->rwin);
		v = (struct iovec){ b->rdata, b->rwin };
		b->rlen = 0;
		if ((got = pvfs_file_segs_direct(f, 0, &w, 1, &v, 1)) < 0)
			return -1;
		b->roff = off;
		b->rlen = (uint64_t)got;
	}
	n = b->roff + b->rlen > off ? b->roff + b->rlen - off : 0;
	if (n > len)
		n = len;
	buf_iov_copy(1, b->rdata + (off - b->roff), iov, iovcnt, 0, n);
	b->rnext = off + n;
	return (ssize_t)n;
}

/* pvfs_file_segs for a buffered file: one contiguous segment of a small
 * write or read is buffered; anything else flushes and goes direct. */
ssize_t
pvfs_buffered_segs(struct pvfs_file *f, int write,
    const struct pvfs_pattern *seg, uint32_t nseg, const struct iovec *iov,
    int iovcnt)
{
	struct pvfs_buffered *b = f->buffered;
	ssize_t n = -2;
	int small;

	small = nseg == 1 && buf_contig(seg) &&
	    pvfs_pattern_bytes(seg) <= BUF_WRITE_BYTES / 2 &&
	    !(f->flags & (O_SYNC | O_DSYNC));
	pthread_mutex_lock(&b->lock);
	if (small && write)
		n = buf_write(f, b, seg, iov, iovcnt);
	else if (small && b->nseg == 0)
		n = buf_read(f, b, seg, iov, iovcnt);
	if (n == -2) {
		b->rlen = 0;
		if (buf_flush_locked(f, b) != 0)
			n = -1;
	}
	pthread_mutex_unlock(&b->lock);
	if (n == -2)
		n = pvfs_file_segs_direct(f, write, seg, nseg, iov, iovcnt);
	return n;
}
