/*
 * pvfs-resync - bring stale copies of mirrored files up to date
 * (doc/design.md, "Mirrored files"; doc/man/pvfs-resync.8).
 *
 * A job from the mgr (MGR_RESYNC NEXT) names a stale copy, a fresh copy
 * of the same part and the local ranges the stale one misses.  The
 * worker reads each range from the fresh copy's iod and writes it to the
 * stale copy's under the job's PVFS_R_RESYNC capability (that iod leaves
 * out the bytes clients wrote there since), gives the stale copy the
 * fresh one's size, fsyncs it and reports the job done with the dirty
 * generation it was given: the mgr then marks the copy clean, unless a
 * new dirty report came meanwhile (the job comes again).  The mgr starts
 * it (--worker) when an iod with stale copies is back; the administrator
 * runs it to list degraded files, to rebuild a replaced iod, or to resync
 * now.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpvfs/pvfs-client.h"
#include "libpvfs/pvfs-internal.h"
#include "tools.h"

#define RS_CHUNK (1u << 20)    /* bytes of one read and write */

static const char usage[] =
"Usage: pvfs-resync [OPTION]... [PATH]\n"
"Copy the stale ranges of mirrored files' copies from a fresh copy, as\n"
"jobs from the mgr of the file system of PATH (a mount prefix or a\n"
"pvfs://host:port URL; default: the pvfstab's first entry), until none\n"
"is left that can be done now.  Needs the mgr's admin right (root or the\n"
"daemons' user).\n"
"\n"
"  -l, --list          list the stale copies (degraded files) and exit\n"
"  -s, --status        print the counts (degraded files, bytes left) and exit\n"
"  -r, --rebuild=N     iod N's data directory was replaced by an empty one:\n"
"                      mark every copy it holds stale, list the unmirrored\n"
"                      files that had data there (lost), then resync\n"
"  -w, --wait          with --rebuild or alone: wait until nothing is stale\n"
"                      (resyncing meanwhile), printing the progress\n"
"      --worker        keep asking for jobs, forever (the mgr runs this)\n"
"      --help          show this help and exit\n"
"      --version       show the version and exit\n"
"\n"
"Exit status: 0 if done (nothing stale with --wait), 1 on a failure or\n"
"lost files, 2 bad usage.\n";

static const struct option longopts[] = {
	{ "list", no_argument, NULL, 'l' },
	{ "status", no_argument, NULL, 's' },
	{ "rebuild", required_argument, NULL, 'r' },
	{ "wait", no_argument, NULL, 'w' },
	{ "worker", no_argument, NULL, 'W' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static uint8_t rs_buf[RS_CHUNK];

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
	    rs_buf, n) != 0)
		return -1;
	memset(rs_buf + rr.stream_len, 0, n - rr.stream_len); /* past its end */
	memset(&wq, 0, sizeof(wq));
	wq.cap = j->cap;
	wq.rel = j->rel;
	wq.copy = j->copy;
	wq.pat = rq.pat;
	wq.stream_len = n;
	if (rs_iod(r->fs, r->stale_iod, PVFS_IOD_WRITE, &wq, rs_buf, n, &wr,
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

/* Ask for a job and do it: 1 done (or failed and reported), 0 none now
 * (*wait_ms says when to ask again), -1 the mgr failed. */
static int
rs_one(struct client_fs *fs, uint32_t *wait_ms)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep j, done;
	struct rs_job r;
	int ok;

	memset(&q, 0, sizeof(q));
	if (rs_mgr(fs, PVFS_RESYNC_NEXT, &q, &j) != 0)
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
	ok = r.fresh_iod < fs->niods && r.stale_iod < fs->niods &&
	    rs_job_run(&r) == 0;
	/* A failed job stays stale and comes again: said, not fatal. */
	if (!ok)
		fprintf(stderr, "%s: inode %" PRIu64 " part %u copy %u (iod %u) "
		    "from copy %u (iod %u): %s; it will be tried again\n",
		    tool_prog, j.ino, j.rel, j.copy, r.stale_iod, j.from,
		    r.fresh_iod, strerror(errno));
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
	return ok ? 1 : 0;
}

/* ---- the commands ---- */

static void
rs_print_counts(const struct pvfs_mgr_resync_rep *s)
{
	char left[32], done[32];

	printf("degraded files: %" PRIu64 ", stale copies: %" PRIu64 ", bytes "
	    "left: %s; since the mgr started: %" PRIu64 " dirty reports, %"
	    PRIu64 " resync jobs, %s copied\n", s->degraded, s->stale,
	    tool_human(s->bytes_left, left, sizeof(left)), s->dirty_reports,
	    s->jobs, tool_human(s->bytes_done, done, sizeof(done)));
}

static int
rs_list(struct client_fs *fs)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;
	uint32_t i;
	int eof = 0;

	memset(&q, 0, sizeof(q));
	while (!eof) {
		if (rs_mgr(fs, PVFS_RESYNC_LIST, &q, &rep) != 0)
			return -1;
		for (i = 0; i < rep.n; i++) {
			const struct pvfs_stale_wire *w = &rep.list[i];

			printf("inode %" PRIu64 " part %u copy %u on iod %u: %s%s\n",
			    w->ino, w->rel, w->copy, w->iod,
			    w->flags & PVFS_RESYNC_WHOLE ? "every byte" : "",
			    w->flags & PVFS_RESYNC_WHOLE ? "" : "ranges");
			q.after = w->ino;
		}
		eof = rep.eof || rep.n == 0;
		if (eof)
			rs_print_counts(&rep);
		pvfs_msg_free(PVFS_MGR_RESYNC, 1, &rep);
	}
	return 0;
}

static int
rs_rebuild(struct client_fs *fs, uint32_t index)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;
	uint32_t i;
	int lost;

	memset(&q, 0, sizeof(q));
	q.index = index;
	if (rs_mgr(fs, PVFS_RESYNC_REBUILD, &q, &rep) != 0)
		return -1;
	for (i = 0; i < rep.n; i++)
		printf("lost: inode %" PRIu64 " (unmirrored) had part %u on iod %u\n",
		    rep.list[i].ino, rep.list[i].rel, index);
	if (!rep.eof)
		printf("lost: more unmirrored files than listed\n");
	lost = rep.n > 0;
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, &rep);
	if (lost)
		tool_status = TOOL_EXIT_FAIL;
	return 0;
}

static int
rs_status(struct client_fs *fs, uint64_t *stale)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;

	memset(&q, 0, sizeof(q));
	if (rs_mgr(fs, PVFS_RESYNC_STATUS, &q, &rep) != 0)
		return -1;
	*stale = rep.stale;
	rs_print_counts(&rep);
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, &rep);
	return 0;
}

/* Jobs until none is ready; with forever (--worker) or wait (until
 * nothing is stale), sleep and ask again. */
static int
rs_loop(struct client_fs *fs, int forever, int wait)
{
	uint32_t wait_ms = 0;
	uint64_t stale = 0;
	int64_t said = 0;
	int rc;

	for (;;) {
		if ((rc = rs_one(fs, &wait_ms)) < 0)
			return -1;
		if (rc > 0)
			continue;
		if (!forever && !wait)
			return 0;
		if (wait && pvfs_mono_ms() - said >= 1000) {
			if (rs_status(fs, &stale) != 0)
				return -1;
			said = pvfs_mono_ms();
			if (stale == 0 && !forever)
				return 0;
		}
		poll(NULL, 0, wait_ms > 0 ? (int)wait_ms : 1000);
	}
}

int
main(int argc, char **argv)
{
	const char *path = NULL;
	struct client_fs *fs;
	char **prefixes = NULL;
	int c, list = 0, status = 0, wait = 0, worker = 0;
	long rebuild = -1;
	uint64_t stale;

	tool_init("pvfs-resync", usage);
	while ((c = tool_getopt(argc, argv, "lsr:w", longopts)) != -1) {
		switch (c) {
		case 'l': list = 1; break;
		case 's': status = 1; break;
		case 'r': rebuild = tool_parse_long(optarg, 0, PVFS_MAX_IODS - 1,
		    "iod index"); break;
		case 'w': wait = 1; break;
		case 'W': worker = 1; break;
		}
	}
	if (argc - optind > 1)
		tool_usage_error("at most one PATH");
	if (optind < argc)
		path = argv[optind];
	else if (tool_tab_prefixes(&prefixes) > 0)
		path = prefixes[0];
	if (path == NULL)
		tool_usage_error("no PATH and no pvfstab entry");
	if (pvfs_admin_fs(path, &fs) != 0) {
		tool_err(path, errno);
		return TOOL_EXIT_FAIL;
	}
	if ((list && rs_list(fs) != 0) || (status && rs_status(fs, &stale) != 0) ||
	    (rebuild >= 0 && rs_rebuild(fs, (uint32_t)rebuild) != 0) ||
	    (!list && !status && rs_loop(fs, worker, wait) != 0))
		tool_err(path, errno);
	return tool_status;
}
