/*
 * test_resync.c - mirrored files' failures on real daemons, spoken in the
 * raw protocol (the writes a client makes to every copy, its dirty
 * report): an iod killed, the report answered at once (the iod refuses
 * connections), the copy on the returning iod never served stale (ENODATA
 * until the mgr's resync worker made it fresh), both copies then byte for
 * byte the same on disk; the mgr killed before the resync (its journal
 * keeps the marks); a wiped iod rebuilt by pvfs-resync --rebuild (an
 * unmirrored file listed as lost); a copy whose only fresh copy's iod
 * is down stays refused and listed; and the iod's client-written ranges
 * of a stale copy across a change of the set mid-write, a truncate, and
 * more ranges than it keeps.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"
#include "pvfs.h"
#include "libpvfs/pvfs-client.h"
#include "cluster.h"

#define NIODS 2
#define SPAN (256u * 1024) /* logical bytes written each time */

static struct cluster c;
static uint8_t buf[SPAN], got[SPAN];

static const char *
iod_name(uint32_t k)
{
	return k == 0 ? "iod0" : "iod1";
}

/* Request op of daemon over its Unix socket, the reply decoded into rep
 * (NULL: none expected); the status. */
static int
call(const char *daemon, uint16_t op, const void *req, void *rep)
{
	struct pvfs_hdr h;
	uint8_t *body;
	int fd = raw_connect_unix(&c, daemon, 30), st;

	raw_send_frame(fd, op, 0, req);
	st = raw_status(fd, &h);
	assert_true(st >= 0);
	body = malloc(h.body_len + 1);
	assert_non_null(body);
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
	if (st == 0 && rep != NULL)
		assert_int_equal(pvfs_msg_decode(op, 1, body, h.body_len, rep), 0);
	free(body);
	close(fd);
	return st;
}

/* A new file of two copies over both iods. */
static void
create_mirrored(const char *path, uint32_t copies,
    struct pvfs_mgr_attrcap_rep *rep)
{
	struct pvfs_mgr_open_req req;

	memset(&req, 0, sizeof(req));
	req.flags = PVFS_OF_RDWR | PVFS_OF_CREAT | PVFS_OF_EXCL;
	req.mode = 0644;
	req.dist.base = 0;
	req.dist.pcount = NIODS;
	req.dist.ssize = PVFS_DIST_DEFAULT;
	req.dist.copies = (uint16_t)copies;
	snprintf(req.path, sizeof(req.path), "%s", path);
	memset(rep, 0, sizeof(*rep));
	assert_int_equal(call("mgr", PVFS_MGR_OPEN, &req, rep), 0);
	assert_int_equal(rep->attr.dist.copies, copies);
	assert_int_equal(rep->attr.dist.pcount, NIODS);
}

static uint32_t
copy_iod(const struct pvfs_dist *d, uint32_t rel, uint32_t copy)
{
	return pvfs_stripe_copy_abs(d, rel, copy, NIODS);
}

/* Send n bytes, or -1 if the peer closed (no SIGPIPE). */
static int
send_some(int fd, const uint8_t *p, uint64_t n)
{
	ssize_t k;

	while (n > 0) {
		k = send(fd, p, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (uint64_t)k;
	}
	return 0;
}

/* IOD_WRITE of pattern pat of buf to (rel, copy) on fd (-1: a new
 * connection): its share; after its first `cut` stream bytes (if less
 * than the share) the iod is given time to write them and mid(arg) runs:
 * a stream that spans a change of the stale set.  The status, or -1 if
 * the iod closed the connection unanswered. */
static int
write_pat_fd(int fd, const struct pvfs_cap *cap, uint32_t rel, uint32_t copy,
    const struct pvfs_pattern *pat, uint64_t cut, void (*mid)(void *),
    void *arg)
{
	const struct pvfs_dist *d = &cap->dist;
	struct pvfs_iod_write_req req;
	struct pvfs_stripe_iter it;
	struct pvfs_piece p;
	struct pvfs_hdr h;
	uint8_t share[SPAN], body[256];
	uint64_t n = 0;
	int st;

	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.rel = rel;
	req.copy = copy;
	req.pat = *pat;
	pvfs_stripe_iter_init(&it, &req.pat, d->pcount, d->ssize, rel);
	while (pvfs_stripe_iter_next(&it, &p)) {
		memcpy(share + n, buf + p.logical, p.len);
		n += p.len;
	}
	req.stream_len = n;
	if (fd < 0)
		fd = raw_connect_unix(&c, iod_name(copy_iod(d, rel, copy)), 10);
	raw_send_frame(fd, PVFS_IOD_WRITE, 0, &req);
	if (cut < n) {
		raw_send(fd, share, cut);
		usleep(300000);
		mid(arg);
		(void)send_some(fd, share + cut, n - cut);
	} else
		(void)send_some(fd, share, n);
	st = raw_status(fd, &h);
	if (st >= 0) {
		assert_true(h.body_len <= sizeof(body));
		assert_int_equal(raw_read(fd, body, h.body_len), 0);
	}
	close(fd);
	return st;
}

static int
write_pat_mid(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy,
    const struct pvfs_pattern *pat, uint64_t cut, void (*mid)(void *),
    void *arg)
{
	return write_pat_fd(-1, cap, rel, copy, pat, cut, mid, arg);
}

static int
write_range(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy,
    uint64_t off, uint64_t len)
{
	struct pvfs_pattern pat = { off, len, len, 1 };

	return write_pat_mid(cap, rel, copy, &pat, UINT64_MAX, NULL, NULL);
}

static int
write_copy(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy)
{
	return write_range(cap, rel, copy, 0, SPAN);
}

/* IOD_READ of logical [0, SPAN) from (rel, copy) into got, its share
 * placed at its logical offsets: the status. */
static int
read_copy(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy)
{
	const struct pvfs_dist *d = &cap->dist;
	struct pvfs_iod_read_req req;
	struct pvfs_iod_read_rep rep;
	struct pvfs_stripe_iter it;
	struct pvfs_piece p;
	struct pvfs_hdr h;
	uint8_t share[SPAN], body[256];
	uint64_t n = 0;
	int fd, st;

	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.rel = rel;
	req.copy = copy;
	req.pat = (struct pvfs_pattern){ 0, SPAN, SPAN, 1 };
	fd = raw_connect_unix(&c, iod_name(copy_iod(d, rel, copy)), 10);
	raw_send_frame(fd, PVFS_IOD_READ, 0, &req);
	st = raw_status(fd, &h);
	assert_true(h.body_len <= sizeof(body));
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
	if (st == 0) {
		assert_int_equal(pvfs_msg_decode(PVFS_IOD_READ, 1, body,
		    h.body_len, &rep), 0);
		assert_true(rep.stream_len <= sizeof(share));
		assert_int_equal(raw_read(fd, share, rep.stream_len), 0);
		pvfs_stripe_iter_init(&it, &req.pat, d->pcount, d->ssize, rel);
		/* a copy shorter than the share: only what came (got's
		 * zeros stand for the rest) */
		while (pvfs_stripe_iter_next(&it, &p) && n < rep.stream_len) {
			memcpy(got + p.logical, share + n, p.len <
			    rep.stream_len - n ? p.len : rep.stream_len - n);
			n += p.len;
		}
	}
	close(fd);
	return st;
}

/* Is the share of rel in got what buf holds? */
static int
share_equal(const struct pvfs_dist *d, uint32_t rel)
{
	struct pvfs_pattern pat = { 0, SPAN, SPAN, 1 };
	struct pvfs_stripe_iter it;
	struct pvfs_piece p;

	pvfs_stripe_iter_init(&it, &pat, d->pcount, d->ssize, rel);
	while (pvfs_stripe_iter_next(&it, &p)) {
		if (memcmp(got + p.logical, buf + p.logical, p.len) != 0)
			return 0;
	}
	return 1;
}

static int
dirty(const struct pvfs_cap *cap, const struct pvfs_dirty_wire *e, uint32_t n)
{
	struct pvfs_mgr_dirty_req req;

	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.n = n;
	req.ents = (struct pvfs_dirty_wire *)e;
	return call("mgr", PVFS_MGR_DIRTY, &req, NULL);
}

static void
resync_status(struct pvfs_mgr_resync_rep *rep)
{
	struct pvfs_mgr_resync_req req;

	memset(&req, 0, sizeof(req));
	req.what = PVFS_RESYNC_STATUS;
	memset(rep, 0, sizeof(*rep));
	assert_int_equal(call("mgr", PVFS_MGR_RESYNC, &req, rep), 0);
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, rep);
}

/* Until nothing is stale (the mgr's worker): 0, or -1 after limit_s. */
static int
wait_clean(int limit_s)
{
	struct pvfs_mgr_resync_rep rep;
	double end = mono_now() + limit_s;

	do {
		resync_status(&rep);
		if (rep.stale == 0)
			return 0;
		usleep(100000);
	} while (mono_now() < end);
	return -1;
}

/* Both copies of every rel hold the same bytes on disk (a missing
 * stripe file is an empty one). */
static void
assert_stripes_identical(uint64_t ino, uint64_t gen, const struct pvfs_dist *d)
{
	char a[PATH_MAX + 8], b[PATH_MAX + 8];
	char cmd[3 * PATH_MAX];
	uint32_t rel;

	for (rel = 0; rel < d->pcount; rel++) {
		cluster_stripe_name(&c, (int)copy_iod(d, rel, 0), ino, gen, a);
		cluster_stripe_name(&c, (int)copy_iod(d, rel, 1), ino, gen, b);
		strcat(b, ".c1");
		snprintf(cmd, sizeof(cmd), "cmp \"$(test -e '%s' && echo '%s' || "
		    "echo /dev/null)\" \"$(test -e '%s' && echo '%s' || echo "
		    "/dev/null)\"", a, a, b, b);
		if (system(cmd) != 0)
			fail_msg("rel %u: copies differ: %s %s", rel, a, b);
	}
}

static void
assert_copies_identical(const struct pvfs_mgr_attrcap_rep *f)
{
	assert_stripes_identical(f->attr.ino, f->cap.gen, &f->cap.dist);
}

/* Wait for the mgr's HELLO to give both iods their lease: a read of a
 * copy of a mirrored file then succeeds. */
static void
wait_lease(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy)
{
	double end = mono_now() + 20;

	while (read_copy(cap, rel, copy) == ENODATA && mono_now() < end)
		usleep(100000);
	assert_int_equal(read_copy(cap, rel, copy), 0);
}

/* Copies on iod1 that missed the second write, from a file written whole
 * once: (rel, copy) on iod 1, local [0, share). */
static uint32_t
missed_on(const struct pvfs_dist *d, uint32_t iod, struct pvfs_dirty_wire *e)
{
	uint32_t rel, k, n = 0;

	for (rel = 0; rel < d->pcount; rel++) {
		for (k = 0; k < 2; k++) {
			if (copy_iod(d, rel, k) != iod)
				continue;
			e[n].rel = rel;
			e[n].copy = k;
			e[n].offset = 0;
			e[n].length = pvfs_stripe_local_size(SPAN, d->pcount,
			    d->ssize, rel);
			n++;
		}
	}
	return n;
}

/* Write buf to every copy whose iod is not down; the dirty report for
 * the others; 0 or the report's status. */
static int
write_all_but(const struct pvfs_mgr_attrcap_rep *f, int down)
{
	const struct pvfs_dist *d = &f->cap.dist;
	struct pvfs_dirty_wire e[8];
	uint32_t rel, k;

	for (rel = 0; rel < d->pcount; rel++)
		for (k = 0; k < 2; k++)
			if ((int)copy_iod(d, rel, k) != down)
				assert_int_equal(write_copy(&f->cap, rel, k), 0);
	return down < 0 ? 0 : dirty(&f->cap, e, missed_on(d, (uint32_t)down, e));
}

/* SIGKILL an iod, keep writing (the report is answered at once: the
 * iod's port refuses), restart it: its copies are refused until the
 * worker made them fresh, never served with the old bytes, and then both
 * copies are the same on disk. */
static void
test_kill_resync(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_mgr_resync_rep st;
	struct rng r;
	double t0;
	int rc, refused = 0;

	(void)state;
	rng_init(&r, "test_kill_resync");
	create_mirrored("/k", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	wait_lease(&f.cap, 0, 1);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	rng_fill(&r, buf, sizeof(buf));
	t0 = mono_now();
	assert_int_equal(write_all_but(&f, 1), 0);
	assert_true(mono_now() - t0 < 5);
	resync_status(&st);
	assert_int_equal(st.degraded, 1);
	assert_int_equal(st.stale, 2);
	assert_true(st.bytes_left >= SPAN);
	assert_int_equal(cluster_start_again(&c), 0);
	/* Copy 1 of rel 0 lives on iod 1: never the first write's bytes. */
	t0 = mono_now();
	while ((rc = read_copy(&f.cap, 0, 1)) == ENODATA &&
	    mono_now() - t0 < 30) {
		refused++;
		usleep(10000);
	}
	assert_int_equal(rc, 0);
	assert_true(share_equal(&f.cap.dist, 0));
	assert_int_equal(wait_clean(30), 0);
	assert_copies_identical(&f);
	assert_int_equal(read_copy(&f.cap, 1, 0), 0);
	assert_true(share_equal(&f.cap.dist, 1));
	print_message("reads refused while stale: %d\n", refused);
}

/* An iod that answers nothing (stopped: a partition) fences itself: the
 * report waits for its lease to run out, not for it, and once it runs
 * again it serves the missed copy only after the resync. */
static void
test_partition(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct rng r;
	double t0;
	int rc;

	(void)state;
	rng_init(&r, "test_partition");
	create_mirrored("/p", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	wait_lease(&f.cap, 0, 1);
	assert_int_equal(cluster_kill(&c, "iod1", SIGSTOP), 0);
	rng_fill(&r, buf, sizeof(buf));
	t0 = mono_now();
	assert_int_equal(write_all_but(&f, 1), 0);
	assert_true(mono_now() - t0 < 5);
	print_message("dirty report answered after %.2f s\n", mono_now() - t0);
	usleep(500000);
	assert_int_equal(cluster_kill(&c, "iod1", SIGCONT), 0);
	t0 = mono_now();
	while ((rc = read_copy(&f.cap, 0, 1)) == ENODATA &&
	    mono_now() - t0 < 30)
		usleep(10000);
	assert_int_equal(rc, 0);
	assert_true(share_equal(&f.cap.dist, 0));
	assert_int_equal(wait_clean(30), 0);
	assert_copies_identical(&f);
}

/* Both copies of a part miss writes, each while its iod was down, in
 * ranges that do not meet: each is resynced from the other. */
static void
test_both_missed(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_dirty_wire e;
	uint32_t half;
	struct rng r;

	(void)state;
	rng_init(&r, "test_both_missed");
	create_mirrored("/b", 2, &f);
	half = f.cap.dist.ssize / 2; /* rel 0: copy 0 on iod 0, copy 1 on 1 */
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	rng_fill(&r, buf, half);
	assert_int_equal(write_range(&f.cap, 0, 0, 0, half), 0);
	e = (struct pvfs_dirty_wire){ 0, 1, 0, half };
	assert_int_equal(dirty(&f.cap, &e, 1), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(cluster_kill(&c, "iod0", SIGKILL), 0);
	rng_fill(&r, buf + half, half);
	assert_int_equal(write_range(&f.cap, 0, 1, half, half), 0);
	e = (struct pvfs_dirty_wire){ 0, 0, half, half };
	assert_int_equal(dirty(&f.cap, &e, 1), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(wait_clean(30), 0);
	assert_copies_identical(&f);
	assert_int_equal(read_copy(&f.cap, 0, 0), 0);
	assert_true(share_equal(&f.cap.dist, 0));
}

/* Finding 2: each copy missed a write the other took, one extending the
 * part, one inside it; whichever job runs first has a stale source, and
 * must not cut the target to the source's (shorter) size.  Two files,
 * the roles swapped, so the shrinking order happens in one of them
 * whatever order the worker takes the jobs in. */
static void
test_stale_source_no_shrink(void **state)
{
	struct pvfs_mgr_attrcap_rep f[2];
	struct pvfs_dirty_wire e;
	uint32_t half, q, i, ext, in;
	struct rng r;

	(void)state;
	rng_init(&r, "test_stale_source_no_shrink");
	create_mirrored("/g0", 2, &f[0]);
	create_mirrored("/g1", 2, &f[1]);
	half = f[0].cap.dist.ssize / 2; /* rel 0: copy 0 on iod 0, 1 on 1 */
	q = half / 2;
	rng_fill(&r, buf, sizeof(buf));
	for (i = 0; i < 2; i++) {
		assert_int_equal(write_range(&f[i].cap, 0, 0, 0, half), 0);
		assert_int_equal(write_range(&f[i].cap, 0, 1, 0, half), 0);
	}
	/* iod1 down: /g0 extended on copy 0 (B), /g1 written inside (A) */
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	rng_fill(&r, buf, q);
	rng_fill(&r, buf + half, half);
	for (i = 0; i < 2; i++) {
		ext = i == 0;
		assert_int_equal(write_range(&f[i].cap, 0, 0, ext ? half : 0,
		    ext ? half : q), 0);
		e = (struct pvfs_dirty_wire){ 0, 1, ext ? half : 0,
		    ext ? half : q };
		assert_int_equal(dirty(&f[i].cap, &e, 1), 0);
	}
	assert_int_equal(cluster_start_again(&c), 0);
	/* iod0 down: the other write on copy 1 */
	assert_int_equal(cluster_kill(&c, "iod0", SIGKILL), 0);
	for (i = 0; i < 2; i++) {
		in = i == 0;
		assert_int_equal(write_range(&f[i].cap, 0, 1, in ? 0 : half,
		    in ? q : half), 0);
		e = (struct pvfs_dirty_wire){ 0, 0, in ? 0 : half,
		    in ? q : half };
		assert_int_equal(dirty(&f[i].cap, &e, 1), 0);
	}
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(wait_clean(30), 0);
	for (i = 0; i < 2; i++) {
		assert_copies_identical(&f[i]);
		memset(got, 0, sizeof(got));
		assert_int_equal(read_copy(&f[i].cap, 0, 0), 0);
		if (memcmp(got, buf, 2 * half) != 0)
			fail_msg("/g%u: a write lost by the resync", i);
	}
}

/* IOD_TRUNCATE of copy k of rel 0 to logical length len. */
static void
truncate_copy(const struct pvfs_cap *cap, uint32_t k, uint64_t len)
{
	struct pvfs_iod_truncate_req req;

	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.rel = 0;
	req.copy = k;
	req.length = len;
	assert_int_equal(call(iod_name(copy_iod(&cap->dist, 0, k)),
	    PVFS_IOD_TRUNCATE, &req, NULL), 0);
}

/* Finding 8: copy 1 misses a write (or, trunc, a truncate and then a
 * write) while iod1 is down; iod1 back, iod0 down before the resync
 * could run, copy 0 misses a later write that overlaps the first.  Both
 * copies are stale where they meet: the one that took the later write
 * (copy 1) is the source for copy 0's range, then copy 1 is made fresh
 * from copy 0.  Both end the same on disk and equal to the shadow (buf:
 * every write applied in order). */
static void
both_overlap(const char *path, int trunc)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_dirty_wire e;
	struct pvfs_mgr_resync_rep rep;
	uint32_t half, q, i, k;
	struct rng r;

	rng_init(&r, path);
	create_mirrored(path, 2, &f);
	half = f.cap.dist.ssize / 2; /* rel 0: copy 0 on iod 0, copy 1 on 1 */
	q = half / 2;
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	if (trunc) {
		/* cut to q on copy 0 only, then [0, half) written there */
		truncate_copy(&f.cap, 0, q);
		memset(buf + q, 0, sizeof(buf) - q);
		e = (struct pvfs_dirty_wire){ 0, 1, 0, 0 };
		assert_int_equal(dirty(&f.cap, &e, 1), 0);
	}
	rng_fill(&r, buf, half);
	assert_int_equal(write_range(&f.cap, 0, 0, 0, half), 0);
	e = (struct pvfs_dirty_wire){ 0, 1, 0, half };
	assert_int_equal(dirty(&f.cap, &e, 1), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(cluster_kill(&c, "iod0", SIGKILL), 0);
	rng_fill(&r, buf + q, half);
	assert_int_equal(write_range(&f.cap, 0, 1, q, half), 0);
	e = (struct pvfs_dirty_wire){ 0, 0, q, half };
	assert_int_equal(dirty(&f.cap, &e, 1), 0);
	/* both copies of rel 0 stale now, where they meet */
	resync_status(&rep);
	assert_int_equal(rep.stale, 2); /* no resync ran in between */
	assert_int_equal(cluster_start_again(&c), 0);
	if (wait_clean(30) != 0)
		fail_msg("%s: copies stale where they overlap never resynced",
		    path);
	assert_copies_identical(&f);
	for (k = 0; k < 2; k++) {
		memset(got, 0, sizeof(got));
		assert_int_equal(read_copy(&f.cap, 0, k), 0);
		for (i = 0; i < SPAN && got[i] == buf[i]; i++)
			;
		if (!share_equal(&f.cap.dist, 0))
			fail_msg("%s: copy %u differs from the shadow at logical "
			    "%u (q %u, half %u)", path, k, i, q, half);
	}
}

static void
test_both_overlap(void **state)
{
	(void)state;
	both_overlap("/ol", 0);
}

static void
test_both_overlap_truncated(void **state)
{
	(void)state;
	both_overlap("/olt", 1);
}

struct reader {
	const struct pvfs_cap *cap;
	volatile int stop;
	uint32_t reads, refused;
};

/* Read copy 0 of rel 0 (fresh, on iod0) until told to stop. */
static void *
reader_run(void *arg)
{
	struct reader *rd = arg;

	while (!rd->stop) {
		if (read_copy(rd->cap, 0, 0) != 0)
			rd->refused++;
		rd->reads++;
	}
	return NULL;
}

/* Finding 9: every change of iod0's stale set (a dirty report marking
 * a copy there, the resync's CLEAN) reaches it as one change on top of
 * the version it holds, and it keeps its mirror lease meanwhile: a fresh
 * copy on it is read without one refusal all along.  (When every change
 * sent the whole set, the HELLO naming the new version took the lease
 * until the set came: reads were refused ENODATA in each such window.) */
static void
test_lease_kept(void **state)
{
	struct pvfs_mgr_attrcap_rep f, g[40];
	struct pvfs_dirty_wire e;
	struct reader rd;
	char path[16];
	pthread_t t;
	uint32_t i;
	struct rng r;

	(void)state;
	rng_init(&r, "test_lease_kept");
	create_mirrored("/lk", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	for (i = 0; i < 40; i++) {
		snprintf(path, sizeof(path), "/lk%u", i);
		create_mirrored(path, 2, &g[i]);
		assert_int_equal(write_all_but(&g[i], -1), 0);
	}
	wait_lease(&f.cap, 0, 0);
	memset(&rd, 0, sizeof(rd));
	rd.cap = &f.cap;
	assert_int_equal(pthread_create(&t, NULL, reader_run, &rd), 0);
	for (i = 0; i < 40; i++) {
		/* copy 0 of rel 0 is on iod0: a mark there, answered once
		 * iod0 took it; the worker's CLEAN follows */
		e = (struct pvfs_dirty_wire){ 0, 0, 0, 4096 };
		assert_int_equal(dirty(&g[i].cap, &e, 1), 0);
		usleep(20000);
	}
	assert_int_equal(wait_clean(30), 0);
	rd.stop = 1;
	pthread_join(t, NULL);
	print_message("%u reads of a fresh copy during 40 marks and their "
	    "cleans on its iod, %u refused\n", rd.reads, rd.refused);
	assert_true(rd.reads > 40);
	assert_int_equal(rd.refused, 0);
	for (i = 0; i < 40; i++)
		assert_copies_identical(&g[i]);
}

/* Finding 7: jobs whose source cannot be read (the fresh copies' stripe
 * files made directories behind iod0's back: EISDIR) fail again and
 * again; they must not keep the job of another file from being done.
 * Three failing files and one good one, so that a failing job comes
 * first in the mgr's walk whatever its order. */
static void
test_failing_job(void **state)
{
	struct pvfs_mgr_attrcap_rep f[4];
	struct pvfs_mgr_resync_rep rep;
	char path[PATH_MAX + 8], away[PATH_MAX + 16], name[8];
	uint32_t i, rel, k;
	struct rng r;
	double end;

	(void)state;
	rng_init(&r, "test_failing_job");
	for (i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "/j%u", i);
		create_mirrored(name, 2, &f[i]);
		rng_fill(&r, buf, sizeof(buf));
		assert_int_equal(write_all_but(&f[i], -1), 0);
	}
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	for (i = 0; i < 4; i++)
		assert_int_equal(write_all_but(&f[i], 1), 0);
	/* the good one's bytes: buf as the last write left it */
	assert_int_equal(cluster_kill(&c, "iod0", SIGKILL), 0);
	for (i = 0; i < 3; i++)
		for (rel = 0; rel < 2; rel++)
			for (k = 0; k < 2; k++) {
				if (copy_iod(&f[i].cap.dist, rel, k) != 0)
					continue;
				cluster_stripe_name(&c, 0, f[i].attr.ino,
				    f[i].cap.gen, path);
				if (k > 0)
					strcat(path, ".c1");
				snprintf(away, sizeof(away), "%s.away", path);
				assert_int_equal(rename(path, away), 0);
				assert_int_equal(mkdir(path, 0700), 0);
			}
	assert_int_equal(cluster_start_again(&c), 0);
	end = mono_now() + 30;
	do {
		resync_status(&rep);
		if (rep.stale <= 6)
			break;
		usleep(100000);
	} while (mono_now() < end);
	if (rep.stale != 6)
		fail_msg("%" PRIu64 " copies stale: the good file's job never "
		    "done", rep.stale);
	assert_int_equal(read_copy(&f[3].cap, 0, 1), 0);
	assert_true(share_equal(&f[3].cap.dist, 0));
	/* the sources back: the failed jobs are done too */
	assert_int_equal(cluster_kill(&c, "iod0", SIGKILL), 0);
	for (i = 0; i < 3; i++)
		for (rel = 0; rel < 2; rel++)
			for (k = 0; k < 2; k++) {
				if (copy_iod(&f[i].cap.dist, rel, k) != 0)
					continue;
				cluster_stripe_name(&c, 0, f[i].attr.ino,
				    f[i].cap.gen, path);
				if (k > 0)
					strcat(path, ".c1");
				snprintf(away, sizeof(away), "%s.away", path);
				assert_int_equal(rmdir(path), 0);
				assert_int_equal(rename(away, path), 0);
			}
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(wait_clean(60), 0);
	for (i = 0; i < 4; i++)
		assert_copies_identical(&f[i]);
}

/* The mgr killed with copies stale (and restarted with the iod back):
 * the marks were durable, the worker of the new mgr makes them fresh. */
static void
test_mgr_killed(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct rng r;

	(void)state;
	rng_init(&r, "test_mgr_killed");
	create_mirrored("/m", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, 1), 0);
	assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	/* had the marks been lost, the copies would differ below */
	assert_int_equal(wait_clean(30), 0);
	assert_copies_identical(&f);
	assert_int_equal(read_copy(&f.cap, 0, 1), 0);
	assert_true(share_equal(&f.cap.dist, 0));
}

/* The mgr SIGKILLed while its worker is resyncing (some copies clean,
 * some not): the new mgr hands the rest out again from its journal, and
 * every file ends with identical copies that equal what was written. */
#define MIDWAY_FILES 40
static void
test_mgr_killed_midway(void **state)
{
	static struct pvfs_mgr_attrcap_rep f[MIDWAY_FILES];
	struct pvfs_mgr_resync_rep st;
	char path[32];
	uint64_t total;
	double end;
	struct rng r;
	int i;

	(void)state;
	rng_init(&r, "test_mgr_killed_midway");
	for (i = 0; i < MIDWAY_FILES; i++) {
		snprintf(path, sizeof(path), "/mk%d", i);
		create_mirrored(path, 2, &f[i]);
		rng_fill(&r, buf, sizeof(buf));
		assert_int_equal(write_all_but(&f[i], -1), 0);
	}
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	for (i = 0; i < MIDWAY_FILES; i++) {
		rng_fill(&r, buf, sizeof(buf));
		assert_int_equal(write_all_but(&f[i], 1), 0);
	}
	resync_status(&st);
	total = st.stale;
	assert_true(total >= MIDWAY_FILES);
	assert_int_equal(cluster_start_again(&c), 0); /* iod1: the resync */
	end = mono_now() + 60;
	do {
		resync_status(&st);
		if (st.stale == 0)
			fail_msg("the resync ended before the mgr was killed");
		usleep(2000);
	} while (st.stale == total && mono_now() < end);
	assert_true(st.stale < total);
	print_message("mgr killed with %" PRIu64 " of %" PRIu64 " copies "
	    "stale\n", st.stale, total);
	assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(wait_clean(60), 0);
	for (i = 0; i < MIDWAY_FILES; i++)
		assert_copies_identical(&f[i]);
	/* what iod 1 missed came back: its copy equals the last bytes */
	assert_int_equal(read_copy(&f[MIDWAY_FILES - 1].cap, 0, 1), 0);
	assert_true(share_equal(&f[MIDWAY_FILES - 1].cap.dist, 0));
}

/* The fresh copy's iod lost (stopped: it answers nothing) while the
 * stale one's is back: that part is refused (ENODATA at the iod; a client
 * makes it EIO), listed as degraded, never served stale; once the fresh
 * copy's iod answers again the resync ends it. */
static void
test_fresh_lost(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep l;
	struct rng r;
	int i;

	(void)state;
	rng_init(&r, "test_fresh_lost");
	create_mirrored("/l", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, 1), 0);
	assert_int_equal(cluster_kill(&c, "iod0", SIGSTOP), 0);
	assert_int_equal(cluster_start_again(&c), 0); /* iod1 only */
	for (i = 0; i < 30; i++) {
		assert_int_equal(read_copy(&f.cap, 0, 1), ENODATA);
		usleep(100000);
	}
	memset(&q, 0, sizeof(q));
	q.what = PVFS_RESYNC_LIST;
	memset(&l, 0, sizeof(l));
	assert_int_equal(call("mgr", PVFS_MGR_RESYNC, &q, &l), 0);
	assert_true(l.n >= 2);
	assert_int_equal(l.list[0].ino, f.attr.ino);
	assert_int_equal(l.list[0].iod, 1);
	pvfs_msg_free(PVFS_MGR_RESYNC, 1, &l);
	assert_int_equal(cluster_kill(&c, "iod0", SIGCONT), 0);
	assert_int_equal(wait_clean(60), 0);
	assert_copies_identical(&f);
}

/* iod 1's stripes wiped (its disk replaced, the label kept): pvfs-resync
 * --rebuild 1 --wait copies every copy back and lists an unmirrored file
 * that had data there as lost. */
static void
test_rebuild(void **state)
{
	struct pvfs_mgr_attrcap_rep f, plain;
	char cmd[3 * PATH_MAX], out[PATH_MAX + 16], line[PATH_MAX];
	struct rng r;
	FILE *fp;
	int lost = 0;

	(void)state;
	rng_init(&r, "test_rebuild");
	create_mirrored("/r", 2, &f);
	create_mirrored("/plain", 1, &plain);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	assert_int_equal(write_copy(&plain.cap, 1, 0), 0);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	snprintf(cmd, sizeof(cmd), "find '%s/iod1' -mindepth 2 -type f "
	    "-name '[0-9]*' -delete", c.dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	snprintf(out, sizeof(out), "%s/rebuild.out", c.dir);
	snprintf(line, sizeof(line), "%s", c.tool);
	*strrchr(line, '/') = '\0'; /* pvfs-resync is beside pvfs-local */
	snprintf(cmd, sizeof(cmd), "'%s/pvfs-resync' --rebuild 1 --wait /pvfs "
	    ">'%s' 2>&1", line, out);
	assert_int_equal(WEXITSTATUS(system(cmd)), 1); /* a file was lost */
	assert_non_null(fp = fopen(out, "r"));
	while (fgets(line, sizeof(line), fp) != NULL) {
		unsigned long long ino;

		if (sscanf(line, "lost: inode %llu", &ino) == 1) {
			assert_int_equal(ino, plain.attr.ino);
			lost++;
		}
	}
	fclose(fp);
	assert_int_equal(lost, 1);
	assert_int_equal(wait_clean(1), 0);
	assert_copies_identical(&f);
}

/* ---- the iod's client-written ranges (review findings 1, 3, 7b) ---- */

/* A file written whole with buf, then again with new bytes while iod 1
 * was down (reported): iod 1 back and holding its set (a repeated report
 * is answered once it took it; jobs wait RS_SETTLE_MS from then). */
static void
stale_on_iod1(const char *path, struct pvfs_mgr_attrcap_rep *f, struct rng *r)
{
	struct pvfs_dirty_wire e[8];

	create_mirrored(path, 2, f);
	rng_fill(r, buf, sizeof(buf));
	assert_int_equal(write_all_but(f, -1), 0);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	rng_fill(r, buf, sizeof(buf));
	assert_int_equal(write_all_but(f, 1), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(dirty(&f->cap, e, missed_on(&f->cap.dist, 1, e)), 0);
}

/* The resync has not run yet: else a test proves nothing. */
static void
assert_still_stale(int n)
{
	struct pvfs_mgr_resync_rep st;

	resync_status(&st);
	if (st.stale != (uint64_t)n)
		fail_msg("%" PRIu64 " copies stale, not %d: the resync came "
		    "first", (uint64_t)st.stale, n);
}

struct mid_dirty {
	const struct pvfs_cap *cap;
	struct pvfs_dirty_wire e;
};

static void
mid_dirty(void *arg)
{
	struct mid_dirty *m = arg;

	assert_int_equal(dirty(m->cap, &m->e, 1), 0);
}

/* Finding 1: a write streaming to a fresh copy when another writer's
 * report marks it stale: its connection is older than the mark, so the
 * rest of it is refused unwritten (finding 11: it may have been sent
 * before the mark) and the connection closed; the writer takes the copy
 * for missed, as a client does a lost one, reports it and writes copy 0;
 * the resync then brings the writer's bytes over from there. */
static void
test_marked_midstream(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_pattern all = { 0, SPAN, SPAN, 1 };
	struct mid_dirty md;
	struct pvfs_dirty_wire e;
	uint64_t share;
	struct rng r;

	(void)state;
	rng_init(&r, "test_marked_midstream");
	create_mirrored("/mid", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	wait_lease(&f.cap, 0, 1);
	share = pvfs_stripe_local_size(SPAN, f.cap.dist.pcount,
	    f.cap.dist.ssize, 0);
	md.cap = &f.cap;
	md.e = (struct pvfs_dirty_wire){ 0, 1, share / 2, share - share / 2 };
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_pat_mid(&f.cap, 0, 1, &all, share / 2,
	    mid_dirty, &md), -1);
	e = (struct pvfs_dirty_wire){ 0, 1, 0, share };
	assert_int_equal(dirty(&f.cap, &e, 1), 0);
	assert_int_equal(write_range(&f.cap, 0, 0, 0, SPAN), 0);
	assert_int_equal(wait_clean(30), 0);
	wait_lease(&f.cap, 0, 1);
	assert_int_equal(read_copy(&f.cap, 0, 1), 0);
	assert_true(share_equal(&f.cap.dist, 0));
	assert_copies_identical(&f);
}

/* Finding 11: a client's write on a connection it opened before the
 * copy was marked stale (it timed out there, reported the copy and went
 * on; the bytes land late) is refused unwritten, the connection closed.
 * Kept as a client's, it outlived the resync: the copies stayed
 * different. */
static void
test_late_write(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_pattern all = { 0, SPAN, SPAN, 1 };
	struct pvfs_dirty_wire e;
	static uint8_t acked[SPAN];
	struct pvfs_hdr h;
	uint8_t body[256];
	uint64_t share;
	struct rng r;
	int fd, st;

	(void)state;
	rng_init(&r, "test_late_write");
	create_mirrored("/late", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	wait_lease(&f.cap, 0, 1);
	memcpy(acked, buf, sizeof(acked));
	/* the writer's connection, accepted (a PING answered) */
	fd = raw_connect_unix(&c, iod_name(copy_iod(&f.cap.dist, 0, 1)), 10);
	raw_send_frame(fd, PVFS_IOD_PING, 0, NULL);
	assert_int_equal(raw_status(fd, &h), 0);
	assert_true(h.body_len <= sizeof(body));
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
	/* it gave up on copy 1 of rel 0 and reported it */
	share = pvfs_stripe_local_size(SPAN, f.cap.dist.pcount,
	    f.cap.dist.ssize, 0);
	e = (struct pvfs_dirty_wire){ 0, 1, 0, share };
	assert_int_equal(dirty(&f.cap, &e, 1), 0);
	/* its write lands late, with bytes nobody acknowledged */
	rng_fill(&r, buf, sizeof(buf));
	st = write_pat_fd(fd, &f.cap, 0, 1, &all, UINT64_MAX, NULL, NULL);
	memcpy(buf, acked, sizeof(buf));
	assert_int_equal(wait_clean(30), 0);
	assert_copies_identical(&f);
	wait_lease(&f.cap, 0, 1);
	assert_true(share_equal(&f.cap.dist, 0));
	assert_int_equal(st, -1);
}

static void
mid_clean(void *arg)
{
	const struct pvfs_cap *cap = arg;

	assert_int_equal(wait_clean(30), 0);
	wait_lease(cap, 0, 1); /* iod 1 dropped the copy's record */
}

/* Finding 1: a client write streaming to a stale copy while the resync
 * ends and the iod frees the copy's record (a use after free before; an
 * ASan build shows it): the write completes and is the copy's content. */
static void
test_cleaned_midstream(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_pattern all = { 0, SPAN, SPAN, 1 };
	struct rng r;

	(void)state;
	rng_init(&r, "test_cleaned_midstream");
	stale_on_iod1("/cmid", &f, &r);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_range(&f.cap, 0, 0, 0, SPAN), 0);
	assert_int_equal(write_pat_mid(&f.cap, 0, 1, &all, 4096, mid_clean,
	    (void *)&f.cap), 0);
	assert_int_equal(read_copy(&f.cap, 0, 1), 0);
	assert_true(share_equal(&f.cap.dist, 0));
	assert_copies_identical(&f);
}

/* IOD_TRUNCATE of every copy to logical length len. */
static void
truncate_all(const struct pvfs_cap *cap, uint64_t len)
{
	struct pvfs_iod_truncate_req req;
	uint32_t rel, k;

	for (rel = 0; rel < cap->dist.pcount; rel++) {
		for (k = 0; k < 2; k++) {
			memset(&req, 0, sizeof(req));
			req.cap = *cap;
			req.rel = rel;
			req.copy = k;
			req.length = len;
			assert_int_equal(call(iod_name(copy_iod(&cap->dist, rel,
			    k)), PVFS_IOD_TRUNCATE, &req, NULL), 0);
		}
	}
}

/* Finding 3: a client writes a stale copy (its ranges kept) and then
 * truncates the file to 0: the resync does not give the copy back the
 * size of the truncated client writes (it was 128 KiB of zeros). */
static void
test_truncate_stale(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct rng r;

	(void)state;
	rng_init(&r, "test_truncate_stale");
	stale_on_iod1("/ts", &f, &r);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	truncate_all(&f.cap, 0);
	assert_still_stale(2);
	assert_int_equal(wait_clean(30), 0);
	assert_copies_identical(&f);
	wait_lease(&f.cap, 0, 1);
	assert_int_equal(read_copy(&f.cap, 1, 0), 0); /* on iod 1, empty */
}

/* Finding 7b: more disjoint client writes to a stale copy than the iod
 * keeps ranges for: it forgets them and refuses resyncs minted before,
 * instead of every resync forever; the later one makes it fresh. */
static void
test_ranges_overflow(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	struct pvfs_pattern odd = { 0, 1, 2, 2000 }; /* 2000 ranges, rel 0 */
	struct rng r;
	uint32_t i;

	(void)state;
	rng_init(&r, "test_ranges_overflow");
	stale_on_iod1("/ov", &f, &r);
	assert_true(odd.stride * odd.count <= f.cap.dist.ssize);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_pat_mid(&f.cap, 0, 0, &odd, UINT64_MAX, NULL,
	    NULL), 0);
	assert_int_equal(write_pat_mid(&f.cap, 0, 1, &odd, UINT64_MAX, NULL,
	    NULL), 0);
	assert_still_stale(2);
	assert_int_equal(wait_clean(30), 0);
	assert_copies_identical(&f);
	wait_lease(&f.cap, 0, 1);
	for (i = 0; i < odd.count; i++)
		assert_int_equal(got[i * 2], buf[i * 2]);
}

/* Finding 6: iod1 comes back with a new data directory (its stripes
 * gone, its label's uuid another) and nobody runs --rebuild: its copies
 * are never served empty (every read of them is refused or right), the
 * mgr marks them stale by itself, and the resync fills them. */
static void
test_new_datadir(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	char cmd[3 * PATH_MAX];
	struct rng r;
	double end;
	int st;

	(void)state;
	rng_init(&r, "test_new_datadir");
	create_mirrored("/n", 2, &f);
	rng_fill(&r, buf, sizeof(buf));
	assert_int_equal(write_all_but(&f, -1), 0);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	snprintf(cmd, sizeof(cmd), "find '%s/iod1' -mindepth 2 -type f "
	    "-name '[0-9]*' -delete && sed -i 's/^uuid .*/uuid "
	    "0123456789abcdef0123456789abcdef/' '%s/iod1/pvfs-label'", c.dir,
	    c.dir);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	for (end = mono_now() + 5; mono_now() < end; usleep(50000)) {
		memset(got, 0, sizeof(got));
		st = read_copy(&f.cap, 0, 1);
		if (st == ENODATA)
			continue;
		assert_int_equal(st, 0);
		if (!share_equal(&f.cap.dist, 0))
			fail_msg("the new data directory's empty copy served");
	}
	/* every mirrored file of the earlier tests has copies on iod1, and
	 * each job costs about 2 s (finding 9: the set is resent and must
	 * settle after each CLEAN) */
	assert_int_equal(wait_clean(120), 0);
	assert_copies_identical(&f);
	assert_int_equal(read_copy(&f.cap, 0, 1), 0);
	assert_true(share_equal(&f.cap.dist, 0));
}

/* Finding 4: the host of iod 1 loses power after mirrored writes were
 * acknowledged but before they reached its disk (emulated: the iod
 * SIGKILLed, the stripe files of its copies of the file cut short, and
 * its next start under another boot id).  Its intent log names the
 * copies: the iod serves no copy until the mgr marked them stale (every
 * read of them is refused or right), the resync copies them back, and
 * both copies are the bytes acknowledged. */
static void
test_host_crash(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	const struct pvfs_dist *d = &f.cap.dist;
	char path[PATH_MAX + 32], magic[8];
	struct rng r;
	uint32_t rel, k;
	double end;
	int st, tries, fd;

	(void)state;
	rng_init(&r, "test_host_crash");
	create_mirrored("/hc", 2, &f);
	snprintf(path, sizeof(path), "%s/iod1/mirror-intent", c.dir);
	for (tries = 0;; tries++) {
		rng_fill(&r, buf, sizeof(buf));
		assert_int_equal(write_all_but(&f, -1), 0);
		assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
		/* the log names copies: its header is there, not zeros */
		memset(magic, 0, sizeof(magic));
		assert_true((fd = open(path, O_RDONLY)) >= 0);
		assert_true(read(fd, magic, 8) >= 0);
		close(fd);
		if (memcmp(magic, "PVFSINT1", 8) == 0)
			break;
		/* the epoch ended (synced) before the kill: again */
		assert_true(tries < 5);
		assert_int_equal(cluster_start_again(&c), 0);
	}
	/* the page cache lost: iod 1's stripes of the file cut short */
	for (rel = 0; rel < d->pcount; rel++) {
		for (k = 0; k < 2; k++) {
			if (copy_iod(d, rel, k) != 1)
				continue;
			cluster_stripe_name(&c, 1, f.attr.ino, f.cap.gen, path);
			if (k > 0)
				strcat(path, ".c1");
			assert_int_equal(truncate(path, 100), 0);
		}
	}
	setenv("PVFS_TEST_BOOT_ID", "test-host-crash", 1);
	st = cluster_start_again(&c);
	unsetenv("PVFS_TEST_BOOT_ID");
	assert_int_equal(st, 0);
	for (end = mono_now() + 5; mono_now() < end; usleep(50000)) {
		for (rel = 0; rel < d->pcount; rel++) {
			for (k = 0; k < 2; k++) {
				if (copy_iod(d, rel, k) != 1)
					continue;
				memset(got, 0, sizeof(got));
				if ((st = read_copy(&f.cap, rel, k)) == ENODATA)
					continue;
				assert_int_equal(st, 0);
				if (!share_equal(d, rel))
					fail_msg("rel %u copy %u: the copy the "
					    "crash cut short was served", rel, k);
			}
		}
	}
	assert_int_equal(wait_clean(180), 0);
	assert_copies_identical(&f);
	for (rel = 0; rel < d->pcount; rel++) {
		for (k = 0; k < 2; k++) {
			wait_lease(&f.cap, rel, k);
			assert_true(share_equal(d, rel));
		}
	}
}

/* ---- through the client library ---- */

static void *
kill_later(void *arg)
{
	usleep((useconds_t)(uintptr_t)arg);
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	return NULL;
}

/* Random writes and truncates of a mirrored file by the library while
 * iod 1 is SIGKILLed among them: every one succeeds, every acknowledged
 * byte reads back (from the surviving copies), and after the iod returns
 * the resync makes both copies the same on disk and the file reads the
 * same through the returned iod. */
static void
test_client_kill(void **state)
{
	struct pvfs_filestat m = { -1, NIODS, 4096, 0, 0 };
	struct pvfs_attr_info a;
	struct pvfs_dist d;
	char path[PATH_MAX];
	struct shadow s;
	struct rng r;
	pthread_t t;
	uint8_t *w = malloc(1 << 20);
	uint64_t off;
	size_t len;
	int fd, i;

	(void)state;
	assert_non_null(w);
	rng_init(&r, "test_client_kill");
	shadow_init(&s);
	cluster_path(&c, "ck", path);
	fd = pvfs_open_mirror(path, O_CREAT | O_RDWR, 0644, &m, 2);
	assert_true(fd >= 0);
	assert_int_equal(pthread_create(&t, NULL, kill_later,
	    (void *)(uintptr_t)rng_range(&r, 20000, 300000)), 0);
	for (i = 0; i < 80; i++) {
		off = rng_range(&r, 0, 3 << 20);
		len = (size_t)rng_range(&r, 1, 1 << 20);
		if (rng_range(&r, 0, 20) == 0) {
			assert_int_equal(pvfs_ftruncate(fd, (off_t)off), 0);
			shadow_truncate(&s, off);
			continue;
		}
		rng_fill(&r, w, len);
		assert_int_equal(pvfs_pwrite(fd, w, len, (off_t)off), (ssize_t)len);
		shadow_write(&s, off, w, len);
		if (i == 40)
			pthread_join(t, NULL); /* the rest with iod 1 down */
	}
	shadow_assert_fd(&s, fd, "with iod 1 down");
	assert_int_equal(pvfs_admin_attr(path, &a), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(wait_clean(60), 0);
	memset(&d, 0, sizeof(d));
	d.base = a.base;
	d.pcount = a.pcount;
	d.ssize = a.ssize;
	d.copies = (uint16_t)a.copies;
	d.mshift = (uint16_t)a.mshift;
	assert_int_equal(a.copies, 2);
	assert_stripes_identical(a.ino, a.gen, &d);
	/* Now from the other side: iod 0 down, every read from iod 1. */
	assert_int_equal(cluster_kill(&c, "iod0", SIGKILL), 0);
	shadow_assert_fd(&s, fd, "from the resynced copies");
	assert_int_equal(pvfs_close(fd), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	shadow_free(&s);
	free(w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kill_resync),
		cmocka_unit_test(test_client_kill),
		cmocka_unit_test(test_partition),
		cmocka_unit_test(test_both_missed),
		cmocka_unit_test(test_stale_source_no_shrink),
		cmocka_unit_test(test_both_overlap),
		cmocka_unit_test(test_both_overlap_truncated),
		cmocka_unit_test(test_lease_kept),
		cmocka_unit_test(test_failing_job),
		cmocka_unit_test(test_mgr_killed),
		cmocka_unit_test(test_mgr_killed_midway),
		cmocka_unit_test(test_fresh_lost),
		cmocka_unit_test(test_rebuild),
		cmocka_unit_test(test_marked_midstream),
		cmocka_unit_test(test_cleaned_midstream),
		cmocka_unit_test(test_late_write),
		cmocka_unit_test(test_truncate_stale),
		cmocka_unit_test(test_ranges_overflow),
		cmocka_unit_test(test_new_datadir),
		cmocka_unit_test(test_host_crash),
	};

	setenv("PVFS_HELLO_INTERVAL", "0.3", 1);
	if (getenv("PVFS_TEST_ONLY") != NULL) /* a pattern: one test by hand */
		cmocka_set_test_filter(getenv("PVFS_TEST_ONLY"));
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
