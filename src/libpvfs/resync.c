/*
 * resync.c - the administrator's side of mirrored files (pvfs-resync,
 * pvfs-ping): jobs that bring a stale copy up to date, the list of stale
 * copies, a rebuild, the counts (doc/design.md, "Mirrored files").
 *
 * A job from the mgr (MGR_RESYNC NEXT) names a stale copy, a fresh copy
 * of the same part and the local ranges the stale one misses.  Each range
 * is read from the fresh copy's iod and written to the stale copy's under
 * the job's PVFS_R_RESYNC capability (that iod leaves out the bytes
 * clients wrote there since); then the stale copy gets the fresh one's
 * size and is fsynced, and the job is reported done with the dirty
 * generation it came with: the mgr marks the copy clean unless a new
 * dirty report came meanwhile (then the job comes again).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pvfs-client.h"
#include "pvfs-internal.h"

#define RS_CHUNK (1u << 20)    /* bytes of one read and write */

/* One MGR_RESYNC; 0 or -1 with errno.  rep is the caller's to free. */
static int
rs_mgr(struct client_fs *fs, uint32_t what, struct pvfs_mgr_resync_req *q,
    struct pvfs_mgr_resync_rep *rep)
{
	pvfs_client_cred(&q->cred);
	q->what = what;
	memset(rep, 0, sizeof(*rep));
	return pvfs_conn_rpc(fs, PVFS_MGR_RESYNC, q, rep);
}

/* ---- one job ---- */

/* One request (and its stream out, if any) to iod i, its reply, and the
 * reply's stream in (a READ): 0 or -1 with errno. */
static int
rs_iod(struct client_fs *fs, uint32_t i, uint16_t op, const void *req,
    const uint8_t *out, size_t outlen, void *rep, uint8_t *in, size_t inmax)
{
	struct pvfs_iod_read_rep *rr = rep;
	struct pvfs_conn *c = NULL;
	struct pvfs_buf b;
	uint32_t reqid = pvfs_conn_next_reqid();
	int64_t deadline = pvfs_mono_ms() + fs->timeout_ms;
	int rc = -1, saved;

	pvfs_buf_init(&b);
	if (pvfs_frame_encode(&b, op, reqid, 0, 0, req) != 0)
		errno = ENOMEM;
	else if (pvfs_conn_new(&fs->iods[i], fs->timeout_ms, &c) == 0 &&
	    pvfs_conn_send_all(c->fd, b.data, b.len, deadline) == 0 &&
	    (outlen == 0 || pvfs_conn_send_all(c->fd, out, outlen,
	    deadline) == 0))
		rc = pvfs_admin_reply(c->fd, op, reqid, rep, deadline);
	if (rc == 0 && in != NULL) {
		if (rr->stream_len > inmax) {
			errno = EPROTO;
			rc = -1;
		} else if (rr->stream_len > 0)
			rc = pvfs_conn_recv_all(c->fd, in, rr->stream_len, deadline);
	}
	saved = errno;
	pvfs_conn_close(c);
	pvfs_buf_free(&b);
	errno = saved;
	return rc == 0 ? 0 : -1;
}

struct rs_job {
	struct client_fs *fs;
	const struct pvfs_mgr_resync_rep *j;
	uint32_t fresh_iod, stale_iod;
	uint64_t bytes;
	uint8_t *buf;          /* RS_CHUNK bytes */
};

/* The logical pattern of local bytes [off, off + n) of part rel: within
 * one stripe, or whole stripes from a stripe's start. */
static void
rs_pattern(const struct pvfs_dist *d, uint32_t rel, uint64_t off, uint64_t n,
    struct pvfs_pattern *p)
{
	uint64_t blk = off / d->ssize, in = off % d->ssize;

	p->offset = (blk * d->pcount + rel) * d->ssize + in;
	if (in + n <= d->ssize) {
		p->gsize = p->stride = n;
		p->count = 1;
		return;
	}
	p->gsize = d->ssize;
	p->stride = (uint64_t)d->ssize * d->pcount;
	p->count = n / d->ssize;
}

/* Local bytes from off that one pattern covers, at most max. */
static uint64_t
rs_piece(const struct pvfs_dist *d, uint64_t off, uint64_t max)
{
	uint64_t in = off % d->ssize;

	if (in != 0 || max < d->ssize)
		return max < d->ssize - in ? max : d->ssize - in;
	return max / d->ssize * d->ssize;
}

static int
rs_copy_piece(struct rs_job *r, uint64_t off, uint64_t n)
{
	const struct pvfs_mgr_resync_rep *j = r->j;
	struct pvfs_iod_read_req rq;
	struct pvfs_iod_read_rep rr;
	struct pvfs_iod_write_req wq;
	struct pvfs_iod_write_rep wr;

	memset(&rq, 0, sizeof(rq));
	rq.cap = j->cap;
	rq.rel = j->rel;
	rq.copy = j->from;
	rs_pattern(&j->cap.dist, j->rel, off, n, &rq.pat);
	if (rs_iod(r->fs, r->fresh_iod, PVFS_IOD_READ, &rq, NULL, 0, &rr,
	    r->buf, n) != 0)
		return -1;
	memset(r->buf + rr.stream_len, 0, n - rr.stream_len); /* past its end */
	memset(&wq, 0, sizeof(wq));
	wq.cap = j->cap;
	wq.rel = j->rel;
	wq.copy = j->copy;
	wq.pat = rq.pat;
	wq.stream_len = n;
	if (rs_iod(r->fs, r->stale_iod, PVFS_IOD_WRITE, &wq, r->buf, n, &wr,
	    NULL, 0) != 0)
		return -1;
	r->bytes += n;
	return 0;
}

/* Local range [off, off + len) of the stale copy, below end. */
static int
rs_copy_range(struct rs_job *r, uint64_t off, uint64_t len, uint64_t end)
{
	uint64_t n;

	if (off >= end)
		return 0;
	if (len > end - off)
		len = end - off;
	while (len > 0) {
		n = rs_piece(&r->j->cap.dist, off, len < RS_CHUNK ? len : RS_CHUNK);
		if (rs_copy_piece(r, off, n) != 0)
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/* The ranges, then the size and the disk. */
static int
rs_job_run(struct rs_job *r)
{
	const struct pvfs_mgr_resync_rep *j = r->j;
	struct pvfs_iod_size_req sq;
	struct pvfs_iod_size_rep sr;
	struct pvfs_iod_truncate_req tq;
	struct pvfs_iod_fsync_req fq;
	struct pvfs_none none;
	uint64_t end;
	uint32_t i;

	memset(&sq, 0, sizeof(sq));
	sq.cap = j->cap;
	sq.rel = j->rel;
	sq.copy = j->from;
	if (rs_iod(r->fs, r->fresh_iod, PVFS_IOD_SIZE, &sq, NULL, 0, &sr,
	    NULL, 0) != 0)
		return -1;
	if (j->flags & PVFS_RESYNC_WHOLE) {
		if (rs_copy_range(r, 0, sr.local_size, sr.local_size) != 0)
			return -1;
	}
	for (i = 0; !(j->flags & PVFS_RESYNC_WHOLE) && i < j->next; i++) {
		if (rs_copy_range(r, j->exts[i].offset, j->exts[i].length,
		    sr.local_size) != 0)
			return -1;
	}
	memset(&tq, 0, sizeof(tq));
	tq.cap = j->cap;
	tq.rel = j->rel;
	tq.copy = j->copy;
	tq.length = sr.logical_end;
	/* A copy stale by ranges only missed writes, never a truncate, and
	 * its source may be stale too (missing a write that extended the
	 * part here): grow it to the source's size, never cut it. */
	if (!(j->flags & (PVFS_RESYNC_WHOLE | PVFS_RESYNC_SIZE))) {
		/* A stale source (older misses) may be too long itself (a
		 * truncate it missed): only what this copy missed extends it. */
		if ((j->flags & PVFS_RESYNC_STALE_FROM) && j->next > 0) {
			end = pvfs_stripe_logical_end(j->exts[j->next - 1].offset +
			    j->exts[j->next - 1].length, j->cap.dist.pcount,
			    j->cap.dist.ssize, j->rel);
			if (end < tq.length)
				tq.length = end;
		}
		sq.copy = j->copy;
		if (rs_iod(r->fs, r->stale_iod, PVFS_IOD_SIZE, &sq, NULL, 0,
		    &sr, NULL, 0) != 0)
			return -1;
		if (sr.logical_end > tq.length)
			tq.length = sr.logical_end;
	}
	memset(&fq, 0, sizeof(fq));
	fq.cap = j->cap;
	if (rs_iod(r->fs, r->stale_iod, PVFS_IOD_TRUNCATE, &tq, NULL, 0, &none,
	    NULL, 0) != 0 ||
	    rs_iod(r->fs, r->stale_iod, PVFS_IOD_FSYNC, &fq, NULL, 0, &none,
	    NULL, 0) != 0)
		return -1;
	return 0;
}

int
pvfs_resync_one(struct pvfs_admin *a, struct pvfs_resync_job *job,
    uint32_t *wait_ms)
{
	struct client_fs *fs = pvfs_admin_client(a);
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep j, done;
	struct rs_job r;
	int ok;

	memset(job, 0, sizeof(*job));
	memset(&q, 0, sizeof(q));
	if (pvfs_client_fs_info(fs) != 0 || /* the iod table, once */
	    rs_mgr(fs, PVFS_RESYNC_NEXT, &q, &j) != 0)
		return -1;
	if (j.ino == 0) {
		*wait_ms = j.wait_ms;
		pvfs_msg_free(PVFS_MGR_RESYNC, 1, &j);
		return 0;
	}
	memset(&r, 0, sizeof(r));
	r.fs = fs;
	r.j = &j;
	r.fresh_iod = pvfs_stripe_copy_abs(&j.cap.dist, j.rel, j.from, fs->niods);
	r.stale_iod = pvfs_stripe_copy_abs(&j.cap.dist, j.rel, j.copy, fs->niods);
	if ((r.buf = malloc(RS_CHUNK)) == NULL)
		ok = 0;
	else
		ok = r.fresh_iod < fs->niods && r.stale_iod < fs->niods &&
		    rs_job_run(&r) == 0;
	job->err = ok ? 0 : errno != 0 ? errno : EIO;
	free(r.buf);
	job->ino = j.ino;
	job->rel = j.rel;
	job->copy = j.copy;
	job->from = j.from;
	job->stale_iod = r.stale_iod;
	job->fresh_iod = r.fresh_iod;
	job->bytes = r.bytes;
	/* A failed job stays stale and comes again. */
	q.ino = j.ino;
	q.gen = j.gen;
	q.rel = j.rel;
	q.copy = j.copy;
	q.dgen = j.dgen;
	q.bytes = r.bytes;
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, &j);
	if (rs_mgr(fs, ok ? PVFS_RESYNC_DONE : PVFS_RESYNC_FAILED, &q,
	    &done) != 0 && errno != ENOENT)
		return -1;
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, &done);
	if (!ok)
		*wait_ms = 1000; /* not at once: the same job would fail again */
	return 1;
}

/* ---- what the mgr knows ---- */

static void
rs_counts(const struct pvfs_mgr_resync_rep *rep, struct pvfs_mirror_status *s)
{
	s->degraded = rep->degraded;
	s->stale = rep->stale;
	s->bytes_left = rep->bytes_left;
	s->jobs = rep->jobs;
	s->bytes_done = rep->bytes_done;
	s->dirty_reports = rep->dirty_reports;
}

int
pvfs_admin_mirror_status(struct pvfs_admin *a, struct pvfs_mirror_status *s)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;

	memset(&q, 0, sizeof(q));
	if (rs_mgr(pvfs_admin_client(a), PVFS_RESYNC_STATUS, &q, &rep) != 0)
		return -1;
	rs_counts(&rep, s);
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, &rep);
	return 0;
}

/* Append rep's entries to *v (*n of them). */
static int
rs_take(const struct pvfs_mgr_resync_rep *rep, struct pvfs_stale_info **v,
    uint32_t *n)
{
	struct pvfs_stale_info *nv;
	uint32_t i;

	if ((nv = realloc(*v, ((size_t)*n + rep->n + 1) * sizeof(**v))) == NULL)
		return -1;
	*v = nv;
	for (i = 0; i < rep->n; i++, (*n)++) {
		nv[*n].ino = rep->list[i].ino;
		nv[*n].rel = rep->list[i].rel;
		nv[*n].copy = rep->list[i].copy;
		nv[*n].iod = rep->list[i].iod;
		nv[*n].bytes = rep->list[i].bytes;
		nv[*n].whole = (rep->list[i].flags & PVFS_RESYNC_WHOLE) != 0;
	}
	return 0;
}

int
pvfs_resync_list(struct pvfs_admin *a, struct pvfs_stale_info **v,
    uint32_t *n, struct pvfs_mirror_status *s)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;
	int eof = 0;

	*v = NULL;
	*n = 0;
	memset(&q, 0, sizeof(q));
	while (!eof) {
		if (rs_mgr(pvfs_admin_client(a), PVFS_RESYNC_LIST, &q, &rep) != 0 ||
		    rs_take(&rep, v, n) != 0) {
			pvfs_msg_free(PVFS_MGR_RESYNC, 1, &rep);
			free(*v);
			*v = NULL;
			return -1;
		}
		if (rep.n > 0)
			q.after = rep.list[rep.n - 1].ino;
		eof = rep.eof || rep.n == 0;
		if (eof)
			rs_counts(&rep, s);
		pvfs_msg_free(PVFS_MGR_RESYNC, 1, &rep);
	}
	return 0;
}

int
pvfs_resync_rebuild(struct pvfs_admin *a, uint32_t index,
    struct pvfs_stale_info **lost, uint32_t *n, int *more)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;
	int rc;

	*lost = NULL;
	*n = 0;
	memset(&q, 0, sizeof(q));
	q.index = index;
	if (rs_mgr(pvfs_admin_client(a), PVFS_RESYNC_REBUILD, &q, &rep) != 0)
		return -1;
	rc = rs_take(&rep, lost, n);
	*more = !rep.eof;
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, &rep);
	return rc;
}
