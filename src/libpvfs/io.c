/*
 * io.c - what each operation on file data sends to which iod, and what
 * the answers mean.
 *
 * A read or a write sends each involved iod ONE request for its share of
 * the pattern; size, truncate and fsync go to every iod of the
 * file, statfs to every iod of the file system.  One try runs all of an
 * operation's streams at once in the engine (io-engine.c); here are the
 * requests, how the iods' errors add up to one errno, and the second try
 * after a dead pooled connection or an expired capability.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io-op.h"

/* The operation's result: 0, or -1 with the most telling errno and
 * whether sending it all again may help. */
static int
io_op_result(struct io_op *op, enum io_retry *retry)
{
	int i, err = 0, key = 0, stale = 0;

	*retry = IO_RETRY_NO;
	for (i = 0; i < op->e.nst; i++) {
		const struct io_stream *st = &op->e.st[i];

		if (st->state != IO_FAILED)
			continue;
		if (st->stale)
			stale = 1;
		else if (st->err == EKEYEXPIRED)
			key = 1;
		else if (err == 0) {
			err = st->err;
			pvfs_client_detail_iod(op->fs, st->iod, err);
		}
	}
	if (err == 0 && key)
		*retry = IO_RETRY_KEY;
	else if (err == 0 && stale)
		*retry = IO_RETRY_STALE;
	if (err == 0 && !key && !stale)
		return 0;
	errno = err ? err : key ? EKEYEXPIRED : EIO;
	return -1;
}

/* Nothing is sent unless every iod is reachable.  A refused connection
 * may mean the iod restarted on a new port: ask the mgr once. */
static int
io_op_connect(struct io_op *op)
{
	struct client_fs *fs = op->fs;
	struct io_stream *st;
	int i, reloaded = 0;

	for (i = 0; i < op->e.nst; i++) {
		st = &op->e.st[i];
		if (pvfs_conn_acquire(&fs->iods[st->iod], fs->timeout_ms, &st->conn) == 0)
			continue;
		if (errno != ECONNREFUSED || reloaded++ ||
		    pvfs_client_fs_reload_iods(fs) != 1 ||
		    pvfs_conn_acquire(&fs->iods[st->iod], fs->timeout_ms, &st->conn) != 0) {
			pvfs_client_detail_iod(fs, st->iod, errno);
			return -1;
		}
	}
	return 0;
}

int
pvfs_io_check_file(struct io_file *f)
{
	const struct pvfs_dist *d = &f->cap.dist;

	if (pvfs_client_fs_info(f->fs) != 0)
		return -1;
	if (d->pcount == 0 || d->pcount > f->fs->niods || d->ssize == 0 ||
	    d->copies > PVFS_COPIES_MAX || d->copies > f->fs->niods ||
	    (d->copies > 1 && d->mshift == 0)) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* A new capability for f, after an iod (or the mgr) found its one
 * expired. */
int
pvfs_io_refresh(struct io_file *f)
{
	struct pvfs_mgr_getattr_req req;
	struct pvfs_mgr_attrcap_rep rep;

	memset(&req, 0, sizeof(req));
	pvfs_client_cred(&req.cred);
	req.ino = f->ino;
	req.rights = f->want_rights;
	if (pvfs_conn_rpc(f->fs, PVFS_MGR_GETATTR, &req, &rep) != 0)
		return -1;
	if (rep.cap.gen != f->cap.gen) {
		/* Another file has the inode number now (after a restore or a
		 * salvage): this one is gone. */
		errno = ESTALE;
		return -1;
	}
	f->cap = rep.cap;
	f->refreshed = 1;
	return 0;
}

/* One try: room for a stream to each iod of the file (of the file
 * system), op's streams, connected and run.  0, or -1 with errno and
 * whether another try may help. */
static int
io_op_try(struct io_op *op, enum io_retry *retry)
{
	uint32_t max = op->f != NULL ? op->f->cap.dist.pcount : op->fs->niods;

	*retry = IO_RETRY_NO;
	if (pvfs_io_engine_init(&op->e, op->fs, op->iov, op->iovcnt, max) != 0 ||
	    op->fill(op) != 0)
		return -1;
	pvfs_client_detail_clear();
	if (io_op_connect(op) != 0)
		return -1;
	pvfs_io_engine_run(&op->e);
	return io_op_result(op, retry);
}

/* The operation, tried once more after a dead pooled connection, or after
 * an expired capability once it is refreshed (without a file there is no
 * capability to refresh).  op->e holds the last try's streams: the caller
 * pvfs_io_engine_free's it either way. */
static int
io_op_run(struct io_op *op)
{
	enum io_retry retry;
	int attempt, rc;

	for (attempt = 0;; attempt++) {
		rc = io_op_try(op, &retry);
		if (rc == 0 || retry == IO_RETRY_NO || attempt > 0)
			return rc;
		if (retry == IO_RETRY_KEY && op->f == NULL)
			return rc;
		pvfs_io_engine_free(&op->e);
		if (retry == IO_RETRY_KEY && pvfs_io_refresh(op->f) != 0)
			return -1;
	}
}

uint32_t
pvfs_io_segs_for(const struct io_segs *sg, const struct pvfs_dist *d, uint32_t rel,
    struct pvfs_pattern *sub, uint64_t *share, uint64_t *blocks)
{
	uint64_t n;
	uint32_t i, m = 0;

	*share = *blocks = 0;
	for (i = 0; i < sg->nseg; i++) {
		n = pvfs_stripe_share(&sg->seg[i], d->pcount, d->ssize, rel);
		if (n == 0)
			continue;
		sub[m++] = sg->seg[i];
		*share += n;
		*blocks += sg->seg[i].count;
	}
	return m;
}

/* The request for one iod: IOD_READ/WRITE for one segment, else the LIST
 * form with only the segments it holds bytes of. */
uint16_t
pvfs_io_data_req(int write, const struct io_file *f, uint32_t rel, uint32_t copy,
    struct pvfs_pattern *sub, uint32_t m, uint64_t share, union io_req *req)
{
	memset(req, 0, sizeof(*req));
	if (m == 1) {
		req->read.cap = f->cap;
		req->read.rel = rel;
		req->read.copy = copy;
		req->read.pat = sub[0];
		req->write.stream_len = write ? share : 0;
		return write ? PVFS_IOD_WRITE : PVFS_IOD_READ;
	}
	if (write) {
		req->write_list = (struct pvfs_iod_write_list_req){ .cap = f->cap,
			.rel = rel, .copy = copy, .nseg = m, .seg = sub,
			.stream_len = share };
		return PVFS_IOD_WRITE_LIST;
	}
	req->read_list = (struct pvfs_iod_read_list_req){ .cap = f->cap,
		.rel = rel, .copy = copy, .nseg = m, .seg = sub };
	return PVFS_IOD_READ_LIST;
}

/* One READ or WRITE stream per iod holding part of the segments. */
static int
io_fill_data(struct io_op *op)
{
	const struct io_file *f = op->f;
	const struct io_segs *sg = op->sg;
	const struct pvfs_dist *d = &f->cap.dist;
	struct pvfs_pattern *sub;
	union io_req req;
	struct io_stream *st;
	uint64_t share, blocks;
	uint32_t rel, m;
	uint16_t opc;
	int rc = 0;

	if ((sub = malloc(sizeof(*sub) * sg->nseg)) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	for (rel = 0; rc == 0 && rel < d->pcount; rel++) {
		m = pvfs_io_segs_for(sg, d, rel, sub, &share, &blocks);
		if (m == 0)
			continue;
		opc = pvfs_io_data_req(op->write, f, rel, 0, sub, m, share, &req);
		st = pvfs_io_engine_add(&op->e, pvfs_stripe_abs(d, rel, f->fs->niods),
		    rel, opc, &req);
		if (st == NULL ||
		    pvfs_io_engine_data(&op->e, st, sg, d, share, blocks) != 0)
			rc = -1;
	}
	free(sub);
	return rc;
}

static int
io_rw(struct io_file *f, int write, const struct io_segs *sg,
    const struct iovec *iov, int iovcnt, uint64_t *max_end)
{
	struct io_op op = { .fs = f->fs, .f = f, .fill = io_fill_data,
		.write = write, .sg = sg, .iov = iov, .iovcnt = iovcnt };
	int i, rc;

	if (pvfs_io_check_file(f) != 0)
		return -1;
	/* What the iods would refuse (callers split with pvfs_list_round). */
	if (sg->nseg == 1 ? pvfs_pattern_check(sg->seg) != 0 :
	    pvfs_list_check(sg->seg, sg->nseg) != 0 ||
	    pvfs_list_work(sg->seg, sg->nseg, f->cap.dist.pcount,
	    f->cap.dist.ssize) > PVFS_LIST_MAX_WORK) {
		errno = EINVAL;
		return -1;
	}
	if (pvfs_dist_copies(&f->cap.dist) > 1)
		return pvfs_io_mirror_rw(f, write, sg, iov, iovcnt, max_end);
	rc = io_op_run(&op);
	for (i = 0, *max_end = 0; rc == 0 && !write && i < op.e.nst; i++)
		if (op.e.st[i].rep.read.logical_end > *max_end)
			*max_end = op.e.st[i].rep.read.logical_end;
	pvfs_io_engine_free(&op.e);
	return rc;
}

void
pvfs_io_pattern_contig(struct pvfs_pattern *p, uint64_t off, uint64_t len)
{
	p->offset = off;
	p->gsize = len;
	p->stride = len;
	p->count = 1;
}

ssize_t
pvfs_io_read_segs(struct io_file *f, const struct pvfs_pattern *seg, uint32_t nseg,
    const struct iovec *iov, int iovcnt)
{
	struct io_segs sg = { seg, nseg };
	uint64_t max_end;
	struct pvfs_io_size sz;

	if (io_rw(f, 0, &sg, iov, iovcnt, &max_end) != 0)
		return -1;
	if (max_end >= pvfs_pattern_end(&seg[nseg - 1]))
		return (ssize_t)pvfs_list_bytes(seg, nseg);
	/* The iods we read end before the request does: only the whole
	 * file's size tells a hole from the end of file. */
	if (pvfs_io_size(f, &sz) != 0)
		return -1;
	if (sz.size < max_end)
		sz.size = max_end;
	return (ssize_t)pvfs_list_below(seg, nseg, sz.size);
}

ssize_t
pvfs_io_write_segs(struct io_file *f, const struct pvfs_pattern *seg, uint32_t nseg,
    const struct iovec *iov, int iovcnt)
{
	struct io_segs sg = { seg, nseg };
	uint64_t max_end;

	if (io_rw(f, 1, &sg, iov, iovcnt, &max_end) != 0)
		return -1;
	return (ssize_t)pvfs_list_bytes(seg, nseg);
}

ssize_t
pvfs_io_read(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt)
{
	return pvfs_io_read_segs(f, pat, 1, iov, iovcnt);
}

ssize_t
pvfs_io_write(struct io_file *f, const struct pvfs_pattern *pat,
    const struct iovec *iov, int iovcnt)
{
	return pvfs_io_write_segs(f, pat, 1, iov, iovcnt);
}

/* ---- small requests to every iod of a file, or of the file system ---- */

void
pvfs_io_build_req(uint16_t opc, const struct io_file *f, uint32_t rel,
    uint32_t copy, uint64_t arg, union io_req *req)
{
	memset(req, 0, sizeof(*req));
	switch (opc) {
	case PVFS_IOD_SIZE:
		req->size.cap = f->cap;
		req->size.rel = rel;
		req->size.copy = copy;
		break;
	case PVFS_IOD_TRUNCATE:
		req->truncate.cap = f->cap;
		req->truncate.rel = rel;
		req->truncate.copy = copy;
		req->truncate.length = arg;
		break;
	case PVFS_IOD_FSYNC:
		req->fsync.cap = f->cap;
		req->fsync.datasync = (uint8_t)arg;
		break;
	}
}

/* The small request to each iod of the file. */
static int
io_fill_file(struct io_op *op)
{
	const struct pvfs_dist *d = &op->f->cap.dist;
	union io_req req;
	uint32_t rel;

	for (rel = 0; rel < d->pcount; rel++) {
		pvfs_io_build_req(op->opc, op->f, rel, 0, op->arg, &req);
		if (pvfs_io_engine_add(&op->e, pvfs_stripe_abs(d, rel, op->fs->niods),
		    rel, op->opc, &req) == NULL)
			return -1;
	}
	return 0;
}

/* Send opc to every iod of f at once.  On success op->e holds the
 * replies; the caller pvfs_io_engine_free's it either way. */
static int
io_bcast(struct io_file *f, uint16_t opc, uint64_t arg, struct io_op *op)
{
	*op = (struct io_op){ .fs = f->fs, .f = f, .fill = io_fill_file,
		.opc = opc, .arg = arg };
	if (pvfs_io_check_file(f) != 0)
		return -1;
	return io_op_run(op);
}

/* io_bcast of a request whose answer is its status alone. */
static int
io_bcast_status(struct io_file *f, uint16_t opc, uint64_t arg)
{
	struct io_op op;
	int rc = io_bcast(f, opc, arg, &op);

	pvfs_io_engine_free(&op.e);
	return rc;
}

int
pvfs_io_size(struct io_file *f, struct pvfs_io_size *out)
{
	struct io_op op;
	int i, rc;

	if (pvfs_dist_copies(&f->cap.dist) > 1)
		return pvfs_io_mirror_size(f, out);
	rc = io_bcast(f, PVFS_IOD_SIZE, 0, &op);
	memset(out, 0, sizeof(*out));
	for (i = 0; rc == 0 && i < op.e.nst; i++) {
		const struct pvfs_iod_size_rep *r = &op.e.st[i].rep.size;

		if (r->logical_end > out->size)
			out->size = r->logical_end;
		if (r->mtime_ns > out->mtime_ns)
			out->mtime_ns = r->mtime_ns;
		out->blocks += r->blocks;
	}
	pvfs_io_engine_free(&op.e);
	return rc;
}

int
pvfs_io_truncate(struct io_file *f, uint64_t length)
{
	if (pvfs_dist_copies(&f->cap.dist) > 1)
		return pvfs_io_mirror_truncate(f, length);
	return io_bcast_status(f, PVFS_IOD_TRUNCATE, length);
}

int
pvfs_io_fsync(struct io_file *f, int datasync)
{
	if (pvfs_dist_copies(&f->cap.dist) > 1)
		return pvfs_io_mirror_fsync(f, datasync);
	return io_bcast_status(f, PVFS_IOD_FSYNC, datasync != 0);
}

/* IOD_STATFS to every iod of the file system. */
static int
io_fill_fs(struct io_op *op)
{
	union io_req req;
	uint32_t i;

	memset(&req, 0, sizeof(req));
	for (i = 0; i < op->fs->niods; i++)
		if (pvfs_io_engine_add(&op->e, i, i, PVFS_IOD_STATFS, &req) == NULL)
			return -1;
	return 0;
}

/* Whether iod reply i is the first of its host file system: iods that
 * share one report the same (host, dev) and count once. */
static int
io_statfs_first(const struct io_engine *e, int i)
{
	const struct pvfs_iod_statfs_rep *r = &e->st[i].rep.statfs;
	int j;

	for (j = 0; j < i; j++)
		if (e->st[j].rep.statfs.host == r->host &&
		    e->st[j].rep.statfs.dev == r->dev)
			return 0;
	return 1;
}

/* The iods report blocks, bfree and bavail in bytes (so that iods on file
 * systems with different block sizes add up); the sum, over distinct host
 * file systems, is expressed in blocks of the first iod's block size. */
static void
io_statfs_sum(const struct io_engine *e, struct pvfs_iod_statfs_rep *sum)
{
	uint64_t bs = 0;
	int i;

	for (i = 0; i < e->nst; i++) {
		const struct pvfs_iod_statfs_rep *r = &e->st[i].rep.statfs;

		if (bs == 0)
			bs = r->bsize;
		if (!io_statfs_first(e, i))
			continue;
		sum->blocks += r->blocks;
		sum->bfree += r->bfree;
		sum->bavail += r->bavail;
		sum->files += r->files;
		sum->ffree += r->ffree;
	}
	bs = bs ? bs : 4096;
	sum->blocks /= bs;
	sum->bfree /= bs;
	sum->bavail /= bs;
	sum->bsize = bs;
}

int
pvfs_io_statfs(struct client_fs *fs, struct pvfs_iod_statfs_rep *sum)
{
	struct io_op op = { .fs = fs, .fill = io_fill_fs };
	int rc;

	memset(sum, 0, sizeof(*sum));
	if (pvfs_client_fs_info(fs) != 0)
		return -1;
	rc = io_op_run(&op);
	if (rc == 0)
		io_statfs_sum(&op.e, sum);
	pvfs_io_engine_free(&op.e);
	return rc;
}
