/*
 * iod-ops.c - request handlers.  The walk of a READ's or WRITE's stream
 * over the local stripe file is iod-xfer.c's.
 *
 * Every handler checks the capability first (a forged one learns nothing
 * else), then the distribution it carries (trusted: it is under the MAC),
 * then the request.  A handler returns the reply's status, having filled
 * the reply; a READ starts its stream after the reply, a WRITE receives
 * its stream before it (iod_conn_stream_*).
 */
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iod.h"

/* Why a capability was refused, at warning level: without it a key that
 * differs from the mgr's, or a clock ahead of the mgr's, is only "Permission
 * denied" at the client.  At most a line a second per reason. */
void
iod_op_cap_log(const struct pvfs_cap *cap, int why, int64_t now)
{
	static struct pvfs_ratelimit rl[PVFS_CAP_NREASONS];
	unsigned long held;
	char more[64] = "", late[64] = "";

	if (why <= PVFS_CAP_OK || why >= PVFS_CAP_NREASONS ||
	    !pvfs_ratelimit(&rl[why], pvfs_mono_ms(), &held))
		return;
	if (held > 0)
		snprintf(more, sizeof(more), " (%lu more since the last)", held);
	if (why == PVFS_CAP_EXPIRED)
		snprintf(late, sizeof(late), ", %lld s ago by this clock",
		    (long long)(now - cap->expiry));
	pvfs_log_warn("capability refused: %s: file system %016llx inode %llu "
	    "rights %#x%s%s", pvfs_cap_why(why), (unsigned long long)cap->fsid,
	    (unsigned long long)cap->ino, cap->rights, late, more);
}

/* 0 or a positive errno.  need 0 means "any right" (SIZE, FSYNC). */
static int
iod_op_cap(const struct pvfs_cap *cap, uint32_t need)
{
	static struct pvfs_cap_memo memo;
	int64_t now = iod_label_now();
	int why, rc = pvfs_cap_check_memo(&memo, cap, iod.key, iod.keylen, need,
	    now, iod.label.fsid, &why);

	if (rc != 0) {
		iod_op_cap_log(cap, why, now);
		return -rc;
	}
	return iod_label_cap_check(cap);
}

/* The distribution is trusted but still guarded against division by 0;
 * copy must be one the file has. */
static int
iod_op_dist(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy)
{
	const struct pvfs_dist *d = &cap->dist;

	if (d->pcount == 0 || d->pcount > PVFS_MAX_IODS || rel >= d->pcount)
		return EINVAL;
	if (d->copies > PVFS_COPIES_MAX || copy >= pvfs_dist_copies(d))
		return EINVAL;
	if (d->ssize == 0 || d->ssize > PVFS_SSIZE_MAX)
		return EINVAL;
	return 0;
}

/* A LIST's share computations run in this single-threaded loop before
 * any stream byte moves, so their work is bounded before any of them:
 * PVFS_LIST_MAX_WORK (a single pattern is bounded by its count).  Needs
 * the distribution checked (iod_op_dist). */
static int
iod_op_segs(const struct iod_io *io)
{
	const struct pvfs_dist *d = &io->cap->dist;

	if (io->own == NULL)
		return pvfs_pattern_check(io->seg) != 0 ? EINVAL : 0;
	if (pvfs_list_check(io->seg, io->nseg) != 0)
		return EINVAL;
	if (pvfs_list_work(io->seg, io->nseg, d->pcount, d->ssize) >
	    PVFS_LIST_MAX_WORK)
		return EINVAL;
	return 0;
}

static uint64_t
iod_op_share(const struct iod_io *io)
{
	const struct pvfs_dist *d = &io->cap->dist;

	return pvfs_list_share(io->seg, io->nseg, d->pcount, d->ssize, io->rel);
}

/* The last byte of a WRITE stream arrived: reply. */
void
iod_op_write_done(struct iod_conn *c)
{
	union iod_rep rep;
	struct iod_xfer *x = &c->xfer;

	memset(&rep, 0, sizeof rep);
	rep.write.written = x->total;
	iod_conn_reply(c, x->err, &rep);
	iod_xfer_end(x);
}

/* Open the stripe file (NULL if missing) and size the READ reply. */
static int
iod_op_read_size(const struct iod_io *io, struct iod_file **fp,
    struct pvfs_iod_read_rep *rep)
{
	const struct pvfs_dist *d = &io->cap->dist;
	struct stat st;
	int err = 0;

	if ((*fp = iod_store_get(io->cap->ino, io->cap->gen, io->copy, 0,
	    &err)) == NULL)
		return err == ENOENT ? 0 : err;
	if (fstat((*fp)->fd, &st) != 0) {
		err = errno;
		iod_store_put(*fp);
		*fp = NULL;
		return err;
	}
	if (st.st_size > 0) {
		rep->logical_end = pvfs_stripe_logical_end((uint64_t)st.st_size,
		    d->pcount, d->ssize, io->rel);
		rep->stream_len = pvfs_list_share_below(io->seg, io->nseg,
		    d->pcount, d->ssize, io->rel, rep->logical_end);
	}
	return 0;
}

static int
iod_op_read(struct iod_conn *c, const struct iod_io *io,
    union iod_rep *rep)
{
	struct iod_file *f;
	int err;

	if ((err = iod_op_cap(io->cap, PVFS_R_READ)) != 0 ||
	    (err = iod_op_dist(io->cap, io->rel, io->copy)) != 0 ||
	    (err = iod_mirror_read_ok(io->cap, io->rel, io->copy)) != 0 ||
	    (err = iod_op_segs(io)) != 0 ||
	    (err = iod_op_read_size(io, &f, &rep->read)) != 0)
		return err;
	if (rep->read.stream_len == 0) {
		iod_store_put(f);
		return 0;
	}
	iod_xfer_start(&c->xfer, f, io, rep->read.stream_len);
	iod_conn_stream_send(c);
	return 0;
}

/* Receive len stream bytes without writing them, then reply err. */
static int
iod_op_write_drain(struct iod_conn *c, uint64_t len, int err)
{
	iod_xfer_start(&c->xfer, NULL, NULL, len);
	c->xfer.err = err;
	c->xfer.discard = 1;
	iod_conn_stream_recv(c);
	return IOD_OP_STREAM;
}

/* A refused WRITE whose stream can still be framed (the capability, not
 * the stream, was wrong) is drained so that the connection survives; a
 * stream whose length does not match the pattern cannot be resynchronised,
 * so that gets EINVAL and the connection closes (design.md). */
static int
iod_op_write(struct iod_conn *c, const struct iod_io *io)
{
	struct iod_file *f = NULL;
	struct iod_mirror_w w;
	int err;

	if ((err = iod_op_cap(io->cap, PVFS_R_WRITE)) != 0)
		return iod_op_write_drain(c, io->stream_len, err);
	/* iod_op_segs bounds the work before iod_op_share does it. */
	if (iod_op_dist(io->cap, io->rel, io->copy) != 0 ||
	    iod_op_segs(io) != 0) {
		iod_conn_close_after(c, "write pattern refused");
		return EINVAL;
	}
	if (io->stream_len != iod_op_share(io)) {
		iod_conn_close_after(c, "write stream does not match pattern");
		return EINVAL;
	}
	/* An empty share creates no file: a missing stripe file is empty. */
	if (io->stream_len > 0 &&
	    (f = iod_store_get(io->cap->ino, io->cap->gen, io->copy, 1,
	    &err)) == NULL)
		return iod_op_write_drain(c, io->stream_len, err);
	if ((err = iod_mirror_write_start(io->cap, io->rel, io->copy,
	    &w)) != 0) {
		if (f != NULL)
			iod_store_put(f);
		return iod_op_write_drain(c, io->stream_len, err);
	}
	w.conn = c->opened;
	iod_xfer_start(&c->xfer, f, io, io->stream_len);
	c->xfer.mw = w;
	iod_conn_stream_recv(c);
	return IOD_OP_STREAM;
}

/* The single and the LIST forms of READ and WRITE, as one iod_op_io. */
static int
iod_op_rw(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	struct iod_io io;

	memset(&io, 0, sizeof io);
	switch (c->hdr.op) {
	case PVFS_IOD_READ:
	case PVFS_IOD_WRITE:
		io = (struct iod_io){ &req->read.cap, req->read.rel,
			req->read.copy, &req->read.pat, 1, NULL, 0 };
		if (c->hdr.op == PVFS_IOD_WRITE)
			io.stream_len = req->write.stream_len;
		break;
	case PVFS_IOD_READ_LIST:
		io = (struct iod_io){ &req->read_list.cap, req->read_list.rel,
			req->read_list.copy, req->read_list.seg,
			req->read_list.nseg,
			&req->read_list.seg, 0 };
		break;
	default:
		io = (struct iod_io){ &req->write_list.cap,
			req->write_list.rel, req->write_list.copy,
			req->write_list.seg,
			req->write_list.nseg, &req->write_list.seg,
			req->write_list.stream_len };
		break;
	}
	if (c->hdr.op == PVFS_IOD_READ || c->hdr.op == PVFS_IOD_READ_LIST)
		return iod_op_read(c, &io, rep);
	return iod_op_write(c, &io);
}

static int
iod_op_truncate(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	const struct pvfs_iod_truncate_req *r = &req->truncate;
	const struct pvfs_dist *d = &r->cap.dist;
	struct iod_file *f;
	uint64_t local;
	int err;

	if ((err = iod_op_cap(&r->cap, PVFS_R_WRITE)) != 0 ||
	    (err = iod_op_dist(&r->cap, r->rel, r->copy)) != 0)
		return err;
	local = pvfs_stripe_local_size(r->length, d->pcount, d->ssize, r->rel);
	if ((r->cap.rights & PVFS_R_RESYNC) && (err = iod_mirror_resync_size(
	    &r->cap, r->rel, r->copy, &local)) != 0)
		return err;
	if (local > INT64_MAX)
		return EFBIG;
	/* A client's truncate of a mirrored copy is logged as a write is
	 * (iod-intent.c): a crash may lose it too. */
	if (d->copies > 1 && !(r->cap.rights & PVFS_R_RESYNC) &&
	    (err = iod_intent_note(r->cap.ino, r->cap.gen, r->rel,
	    r->copy)) != 0)
		return err;
	/* Only a non-empty stripe needs a file: a missing one is empty. */
	f = iod_store_get(r->cap.ino, r->cap.gen, r->copy, local > 0, &err);
	if (f == NULL) {
		if (err != ENOENT)
			return err;
		err = 0;
	} else {
		err = ftruncate(f->fd, (off_t)local) == 0 ? 0 : errno;
		iod_store_put(f);
	}
	if (err == 0 && !(r->cap.rights & PVFS_R_RESYNC))
		iod_mirror_truncated(&r->cap, r->rel, r->copy, local);
	return err;
}

static int
iod_op_remove(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	const struct pvfs_iod_cap_req *r = &req->cap;
	uint32_t k, n = pvfs_dist_copies(&r->cap.dist);
	int err, rc;

	/* Every copy this iod may hold: a missing one is no error. */
	if ((err = iod_op_cap(&r->cap, PVFS_R_REMOVE)) != 0)
		return err;
	if (n > PVFS_COPIES_MAX)
		return EINVAL;
	for (k = 0; k < n; k++)
		if ((rc = -iod_store_remove(r->cap.ino, r->cap.gen, k)) != 0 &&
		    err == 0)
			err = rc;
	return err;
}

static int
iod_op_fsync(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	const struct pvfs_iod_fsync_req *r = &req->fsync;
	uint32_t k, n = pvfs_dist_copies(&r->cap.dist);
	struct iod_file *f;
	int err, rc, any = 0;

	/* Every copy this iod holds of the file (mirrored files). */
	if ((err = iod_op_cap(&r->cap, 0)) != 0)
		return err;
	if (n > PVFS_COPIES_MAX)
		return EINVAL;
	for (k = 0; k < n && err == 0; k++) {
		if ((f = iod_store_get(r->cap.ino, r->cap.gen, k, 0, &err)) ==
		    NULL) {
			err = err == ENOENT ? 0 : err;
			continue;
		}
		rc = r->datasync ? fdatasync(f->fd) : fsync(f->fd);
		err = rc == 0 ? 0 : errno;
		any = 1;
		iod_store_put(f);
	}
	if (err == 0 && any)
		err = -iod_store_sync_dir(r->cap.ino);
	return err;
}

/* What this iod holds of the file cap names, as part rel; a missing
 * stripe file holds nothing. */
static int
iod_size_of(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy,
    struct pvfs_iod_size_rep *out)
{
	const struct pvfs_dist *d = &cap->dist;
	struct stat st;
	int err;

	if ((err = iod_op_cap(cap, 0)) != 0 ||
	    (err = iod_op_dist(cap, rel, copy)) != 0 ||
	    (err = iod_mirror_read_ok(cap, rel, copy)) != 0)
		return err;
	if ((err = -iod_store_stat(cap->ino, cap->gen, copy, &st)) == ENOENT)
		return 0;
	if (err != 0)
		return err;
	out->local_size = (uint64_t)st.st_size;
	out->logical_end = st.st_size == 0 ? 0 :
	    pvfs_stripe_logical_end((uint64_t)st.st_size, d->pcount, d->ssize,
	    rel);
	out->mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
	    st.st_mtim.tv_nsec;
	out->blocks = (uint64_t)st.st_blocks;
	return 0;
}

static int
iod_op_size(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	return iod_size_of(&req->size.cap, req->size.rel, req->size.copy,
	    &rep->size);
}

/* Each pair on its own: one refused capability fails its item only. */
static int
iod_op_size_list(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	static struct pvfs_iod_size_item items[PVFS_SIZELIST_MAX];
	const struct pvfs_iod_size_list_req *r = &req->size_list;
	uint32_t i;

	memset(items, 0, r->n * sizeof(items[0]));
	for (i = 0; i < r->n; i++)
		items[i].status = (uint32_t)iod_size_of(&r->ents[i].cap,
		    r->ents[i].rel, r->ents[i].copy, &items[i].size);
	rep->size_list.n = r->n;
	rep->size_list.items = items;
	return 0;
}

/* Figures in bytes (bsize stays the block size) so that the client can
 * sum iods with different block sizes. */
static int
iod_op_statfs(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	struct statvfs sv;
	struct iod_usage u;
	int err;

	if ((err = -iod_store_statfs(&sv)) != 0 ||
	    (err = -iod_store_usage(&u)) != 0)
		return err;
	rep->statfs.bsize = sv.f_bsize;
	rep->statfs.blocks = (uint64_t)sv.f_blocks * sv.f_frsize;
	rep->statfs.bfree = (uint64_t)sv.f_bfree * sv.f_frsize;
	rep->statfs.bavail = (uint64_t)sv.f_bavail * sv.f_frsize;
	rep->statfs.files = sv.f_files;
	rep->statfs.ffree = sv.f_ffree;
	rep->statfs.host = u.host;
	rep->statfs.dev = u.dev;
	rep->statfs.used = u.used;
	rep->statfs.apparent = u.apparent;
	rep->statfs.nstripes = u.nstripes;
	return 0;
}

static int
iod_op_ping(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	rep->ping.version = PVFS_PROTO_VERSION;
	rep->ping.uptime_s = (uint64_t)(pvfs_mono_ms() - iod.start_ms) / 1000;
	return 0;
}

/* Counts of requests by kind reveal nothing of anyone's files: no
 * capability needed (as for PING). */
static int
iod_op_counters(struct iod_conn *c, union iod_req *req,
    union iod_rep *rep)
{
	static struct pvfs_opstat_wire ops[PVFS_OPSTAT_MAX];

	pvfs_counters_reply(&iod.counters, iod.srv.accepted, iod.srv.count,
	    &rep->counters, ops);
	return 0;
}

static const iod_op_fn iod_op_table[PVFS_IOD_OP_END - PVFS_IOD_PING] = {
	[PVFS_IOD_PING - PVFS_IOD_PING] = iod_op_ping,
	[PVFS_IOD_READ - PVFS_IOD_PING] = iod_op_rw,
	[PVFS_IOD_WRITE - PVFS_IOD_PING] = iod_op_rw,
	[PVFS_IOD_READ_LIST - PVFS_IOD_PING] = iod_op_rw,
	[PVFS_IOD_WRITE_LIST - PVFS_IOD_PING] = iod_op_rw,
	[PVFS_IOD_TRUNCATE - PVFS_IOD_PING] = iod_op_truncate,
	[PVFS_IOD_REMOVE - PVFS_IOD_PING] = iod_op_remove,
	[PVFS_IOD_FSYNC - PVFS_IOD_PING] = iod_op_fsync,
	[PVFS_IOD_SIZE - PVFS_IOD_PING] = iod_op_size,
	[PVFS_IOD_STATFS - PVFS_IOD_PING] = iod_op_statfs,
	[PVFS_IOD_LIST - PVFS_IOD_PING] = iod_admin_list,
	[PVFS_IOD_PURGE - PVFS_IOD_PING] = iod_admin_purge,
	[PVFS_IOD_HELLO - PVFS_IOD_PING] = iod_label_hello,
	[PVFS_IOD_SIZE_LIST - PVFS_IOD_PING] = iod_op_size_list,
	[PVFS_IOD_COUNTERS - PVFS_IOD_PING] = iod_op_counters,
	[PVFS_IOD_STALE - PVFS_IOD_PING] = iod_mirror_stale,
};

int
iod_op_body_alloc(struct iod_conn *c)
{
	free(c->lbody);
	c->lbody = NULL;
	if (c->hdr.op != PVFS_IOD_READ_LIST && c->hdr.op != PVFS_IOD_WRITE_LIST &&
	    c->hdr.op != PVFS_IOD_SIZE_LIST && c->hdr.op != PVFS_IOD_STALE)
		return -1;
	if (c->hdr.body_len > IOD_LIST_BODY_MAX)
		return -1;
	return (c->lbody = malloc(c->hdr.body_len)) != NULL ? 0 : -1;
}

/* Decode the body of the request in c->hdr, run its handler and reply
 * (unless the handler receives a stream first).  An opcode that is not
 * ours gets EOPNOTSUPP on a live connection (its frame was sound); a body
 * of the wrong shape is a protocol error and closes. */
void
iod_op_dispatch(struct iod_conn *c)
{
	union iod_req req;
	union iod_rep rep;
	uint16_t op = c->hdr.op;
	size_t size;
	int rc;

	if (op < PVFS_IOD_PING || op >= PVFS_IOD_OP_END) {
		iod_conn_reply(c, EOPNOTSUPP, NULL);
		return;
	}
	size = pvfs_msg_size(op, 0);
	if (size == 0 || size > sizeof req ||
	    iod_op_table[op - PVFS_IOD_PING] == NULL) {
		iod_conn_fail(c, EOPNOTSUPP, "request shape unknown to the iod");
		return;
	}
	memset(&req, 0, sizeof req);
	rc = pvfs_msg_decode(op, 0, c->lbody ? c->lbody : c->body,
	    c->hdr.body_len, &req);
	free(c->lbody);
	c->lbody = NULL;
	if (rc != 0) {
		iod_conn_fail(c, EPROTO, "malformed request body");
		return;
	}
	pvfs_log_debug("%s: %s reqid %u", c->dc.name, pvfs_op_name(op), c->hdr.reqid);
	memset(&rep, 0, sizeof rep);
	rc = iod_op_table[op - PVFS_IOD_PING](c, &req, &rep);
	if (rc != IOD_OP_STREAM)
		iod_conn_reply(c, rc, &rep);
	pvfs_msg_free(op, 0, &req);
}
