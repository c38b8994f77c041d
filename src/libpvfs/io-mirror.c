/*
 * io-mirror.c - reads, writes, size, truncate and fsync of a mirrored file
 * (copies > 1; doc/design.md, "Mirrored files").
 *
 * Writes, truncates and fsyncs go to every copy in one engine run.  A copy
 * lost to a dead or unreachable iod (refused, reset, timed out) while
 * another copy took the operation is reported dirty (mirror-report.h)
 * before the call returns; any other error is the call's errno, and the
 * copies that took the bytes still make the others dirty.  Reads and sizes
 * ask one copy per rel, chosen to spread the request over the iods, and on
 * any failure of that copy (a lost iod, ENODATA for a fenced or stale
 * copy, a disk error, a refusal) ask the next copy within the same call;
 * they fail only when every copy failed.
 *
 * A stopped or blackholed iod answers nothing, and a copy on it must not
 * hold the call for the whole timeout: a copy that made no progress for
 * fs->stall_ms (PVFS_MIRROR_STALL) while another copy of its rel took the
 * operation (writes) or is left to ask (reads) is given up, as lost.  A
 * lost iod is down until a probe of it (IOD_PING, sent by a later call,
 * waited for 10 ms, else looked for by the calls after) or a stream to it
 * succeeds: reads ask it last, and if it timed out (silent, not refused)
 * writes skip its copies when another is not, reporting them dirty at
 * once.  An iod that only refused a copy
 * (ENODATA: fenced, stale) is avoided by reads for MIO_AVOID_MS.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io-op.h"
#include "mirror-down.h"
#include "mirror-report.h"

#define MIO_AVOID_MS 3000 /* how long reads avoid an iod that refused */
#define MIO_RETRIES 2     /* new tries after a dead pooled socket or an old key */

/* One rel of an operation. */
struct mio_rel {
	uint8_t want;         /* the operation touches it */
	uint8_t done;         /* one copy answered (reads, sizes) */
	uint8_t tried;        /* copies that failed over (bits) */
	uint8_t ok, lost;     /* copies that took it, that were lost (bits) */
	uint8_t took;         /* copies that took it in any attempt (bits) */
	int err;              /* a copy's error other than lost */
	int lost_err;         /* why the last lost copy was */
	uint32_t lost_iod;
	uint64_t lo, hi;      /* writes: local bytes touched in the stripe file */
};

struct mio {
	struct io_file *f;
	struct client_fs *fs;
	uint32_t pcount, copies;
	uint16_t opc;         /* 0: data (write says which way), else SIZE,
	                       * TRUNCATE or FSYNC */
	int write;
	int all;              /* every copy (mio_all), not one per rel */
	uint64_t arg;
	const struct io_segs *sg;
	const struct iovec *iov;
	int iovcnt;
	struct pvfs_pattern *sub;
	struct mio_rel *rel;
	uint32_t *load;       /* reads: pieces each iod got this round */
	int *sidx;            /* all-copy runs: (rel, copy) -> stream, -1 */
	struct io_engine e;
	uint64_t max_end;     /* reads: highest logical end seen */
	struct pvfs_io_size size;
	/* Degraded contiguous reads: units, and each stream's own segments
	 * and memory (mio_split). */
	struct mio_unit *unit;
	uint32_t nunit;
	void **smem;
};

/* A degraded contiguous read goes by units of one rel in a run of stripe
 * rounds, each on its own copy, so the pieces an iod down leaves spread
 * over every other iod rather than landing on one. */
struct mio_unit {
	uint32_t rel;
	uint8_t tried, done;
	int pick;             /* the copy of this round, -1 */
	uint64_t off, len;    /* the logical bytes of the unit (all rels') */
	uint64_t share;       /* rel's part of them */
};
#define MIO_UNITS_MAX 256 /* rounds of units in one request, at most */

static uint32_t mio_rotation; /* advances per read: ties between copies */

static int64_t
mio_get(const int64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static int
mio_avoided(const struct mio *m, uint32_t iod)
{
	return mio_get(&m->fs->iods[iod].avoid_until) > pvfs_mono_ms();
}

static int
mio_is_silent(const struct mio *m, uint32_t iod)
{
	return pvfs_mirror_down(m->fs, iod) == PVFS_DOWN_SILENT;
}

static void
mio_avoid(struct mio *m, uint32_t iod)
{
	if (!pvfs_mirror_down(m->fs, iod))
		__atomic_store_n(&m->fs->iods[iod].avoid_until,
		    pvfs_mono_ms() + MIO_AVOID_MS, __ATOMIC_RELAXED);
}

static uint32_t
mio_iod(const struct mio *m, uint32_t rel, uint32_t copy)
{
	return pvfs_stripe_copy_abs(&m->f->cap.dist, rel, copy, m->fs->niods);
}

/* A failure that says the iod is gone (dead, unreachable, timed out)
 * rather than that it refused: the iod never answered with a status. */
static int
mio_lost(const struct io_stream *st)
{
	if (st->hdr_ok && st->rh.status != 0)
		return 0;
	switch (st->err) {
	case EIO:
	case ETIMEDOUT:
	case ECONNREFUSED:
	case ECONNRESET:
	case ECONNABORTED:
	case EPIPE:
	case ENOTCONN:
	case EHOSTUNREACH:
	case EHOSTDOWN:
	case ENETUNREACH:
	case ENETDOWN:
		return 1;
	}
	return 0;
}

/* ---- copies given up ---- */

struct mio_unit;
static int mio_unit_spare(const struct mio *, const struct io_stream *);

/* Every copy mapped to stream i (mio_all) has another copy of its rel
 * that took the operation (done) or at least has a stream (!done). */
static int
mio_all_spare(const struct mio *m, int i, int done)
{
	const struct mio_rel *r;
	uint32_t rel, k, k2;
	int j, n = 0, other;

	for (rel = 0; rel < m->pcount; rel++) {
		r = &m->rel[rel];
		for (k = 0; r->want && k < m->copies; k++) {
			if (m->sidx[rel * m->copies + k] != i)
				continue;
			for (k2 = 0, other = 0; k2 < m->copies && !other;
			    k2++) {
				j = m->sidx[rel * m->copies + k2];
				if (k2 == k || j == i)
					continue;
				other = !done ? j >= 0 :
				    (r->took & (1u << k2)) ||
				    (j >= 0 && m->e.st[j].state == IO_DONE);
			}
			if (!other)
				return 0;
			n++;
		}
	}
	return n > 0;
}

/* A read or size stream whose rel has another copy left to ask. */
static int
mio_one_spare(const struct mio *m, const struct io_stream *st)
{
	uint32_t k;

	for (k = 0; k < m->copies; k++)
		if (k != st->copy && !(m->rel[st->rel].tried & (1u << k)))
			return 1;
	return 0;
}

/* May stream i fail early (at connect, or stalled) with the operation
 * still going through another copy? */
static int
mio_spare(const struct mio *m, int i, int done)
{
	const struct io_stream *st = &m->e.st[i];

	if (m->all)
		return mio_all_spare(m, i, done);
	return m->unit != NULL ? mio_unit_spare(m, st) : mio_one_spare(m, st);
}

static int
mio_give_up(struct io_engine *e, struct io_stream *st, void *arg)
{
	return mio_spare(arg, (int)(st - e->st), 1);
}

/* The run's engine: a copy is given up after fs->stall_ms without
 * progress (an fsync may take its disk's time: four times that). */
static int
mio_engine(struct mio *m, uint32_t max)
{
	if (pvfs_io_engine_init(&m->e, m->fs, m->iov, m->iovcnt, max) != 0)
		return -1;
	m->e.stall_ms = m->fs->stall_ms;
	if (m->opc == PVFS_IOD_FSYNC)
		m->e.stall_ms *= 4;
	m->e.give_up = mio_give_up;
	m->e.give_up_arg = m;
	return 0;
}

/* Connect every stream; one that cannot connect fails alone (lost), the
 * others still run.  A refused connection makes us ask the mgr for the
 * iod table once (an iod restarted on a new port), unless the iod failed
 * us moments ago: while it stays down, each write would ask again. */
static void
mio_connect(struct mio *m)
{
	struct client_fs *fs = m->fs;
	struct io_stream *st;
	int i, reloaded = 0, ms;

	for (i = 0; i < m->e.nst; i++) {
		st = &m->e.st[i];
		if (st->state != IO_SEND)
			continue;
		/* A connect that hangs (the iod's host drops it, or its
		 * backlog is full) waits no longer than a stalled copy. */
		ms = mio_spare(m, i, 0) ? fs->stall_ms : fs->timeout_ms;
		if (pvfs_conn_acquire(&fs->iods[st->iod], ms, &st->conn) == 0)
			continue;
		if (errno == ECONNREFUSED && !mio_avoided(m, st->iod) &&
		    !reloaded++ && pvfs_client_fs_reload_iods(fs) == 1 &&
		    pvfs_conn_acquire(&fs->iods[st->iod], ms, &st->conn) == 0)
			continue;
		st->err = errno;
		st->state = IO_FAILED;
		st->conn = NULL;
	}
}

/* Connect and run; an iod that answered is up. */
static void
mio_run(struct mio *m)
{
	int i;

	mio_connect(m);
	pvfs_io_engine_run(&m->e);
	for (i = 0; i < m->e.nst; i++)
		if (m->e.st[i].state == IO_DONE)
			pvfs_mirror_up(m->fs, m->e.st[i].iod);
}

/* A stream for copy copy of rel: the operation's request, and for data
 * its share of the user memory.  0 or -1 with errno. */
static int
mio_add(struct mio *m, uint32_t rel, uint32_t copy)
{
	const struct pvfs_dist *d = &m->f->cap.dist;
	struct io_stream *st;
	union io_req req;
	uint64_t share, blocks;
	uint32_t n;
	uint16_t opc = m->opc;

	if (opc == 0) {
		n = pvfs_io_segs_for(m->sg, d, rel, m->sub, &share, &blocks);
		opc = pvfs_io_data_req(m->write, m->f, rel, copy, m->sub, n,
		    share, &req);
	} else
		pvfs_io_build_req(opc, m->f, rel, copy, m->arg, &req);
	st = pvfs_io_engine_add(&m->e, mio_iod(m, rel, copy), rel, opc, &req);
	if (st == NULL)
		return -1;
	st->copy = copy;
	if (m->opc == 0 &&
	    pvfs_io_engine_data(&m->e, st, m->sg, d, share, blocks) != 0)
		return -1;
	return 0;
}

/* The operation's rels: for data, those holding bytes of the segments
 * (with the local bytes touched, for dirty reports); else all. */
static void
mio_rels(struct mio *m)
{
	const struct pvfs_dist *d = &m->f->cap.dist;
	uint64_t share, blocks;
	uint32_t rel, n;

	for (rel = 0; rel < m->pcount; rel++) {
		if (m->opc != 0) {
			m->rel[rel].want = 1;
			continue;
		}
		n = pvfs_io_segs_for(m->sg, d, rel, m->sub, &share, &blocks);
		if (n == 0)
			continue;
		m->rel[rel].want = 1;
		m->rel[rel].lo = pvfs_stripe_local_size(m->sub[0].offset,
		    d->pcount, d->ssize, rel);
		m->rel[rel].hi = pvfs_stripe_local_size(
		    pvfs_pattern_end(&m->sub[n - 1]), d->pcount, d->ssize, rel);
	}
}

/* ---- one copy per rel: reads and sizes ---- */

/* The copy of rel to ask: not tried yet, on an iod not avoided if there is
 * one, with the fewest pieces of this round, ties in rotation order.  -1
 * if every copy was tried. */
static int
mio_pick(struct mio *m, uint32_t rel, uint32_t rot)
{
	uint32_t j, k, iod;
	uint64_t score, best = UINT64_MAX;
	int pick = -1;

	for (j = 0; j < m->copies; j++) {
		k = (rot + j) % m->copies;
		if (m->rel[rel].tried & (1u << k))
			continue;
		iod = mio_iod(m, rel, k);
		score = (uint64_t)mio_avoided(m, iod) << 32 | m->load[iod];
		if (score < best) {
			best = score;
			pick = (int)k;
		}
	}
	return pick;
}

/* Copies of rel left to try on iods not avoided. */
static uint32_t
mio_choices(const struct mio *m, uint32_t rel)
{
	uint32_t k, n = 0;

	for (k = 0; k < m->copies; k++)
		if (!(m->rel[rel].tried & (1u << k)) &&
		    !mio_avoided(m, mio_iod(m, rel, k)))
			n++;
	return n;
}

/* No copy of rel could answer: the error a copy answered (the last one)
 * or EIO if every copy was lost, and the detail names the last iod and
 * why. */
static int
mio_none_left(struct mio *m, uint32_t rel)
{
	const struct mio_rel *r = &m->rel[rel];

	pvfs_client_detail_iod(m->fs, r->lost_iod, r->lost_err ? r->lost_err :
	    EIO);
	errno = r->err != 0 && r->err != ENODATA ? r->err : EIO;
	return -1;
}

/* A read or size stream of rel that failed (not for an old key or a
 * stale socket): that copy is tried, the next one is asked. */
static void
mio_one_failed(struct mio *m, const struct io_stream *st)
{
	struct mio_rel *r = &m->rel[st->rel];

	r->lost_err = st->err;
	r->lost_iod = st->iod;
	if (mio_lost(st))
		pvfs_mirror_lost(m->fs, st->iod, st->err);
	else if (st->err == ENODATA)
		mio_avoid(m, st->iod);
	else
		r->err = st->err;
}

/* Streams for every rel still unanswered, the rels with a single choice
 * first so that the others can steer clear of their iods. */
static int
mio_one_fill(struct mio *m)
{
	uint32_t rel, pass, rot = __atomic_fetch_add(&mio_rotation, 1,
	    __ATOMIC_RELAXED);
	uint8_t *picked;
	int k, rc = 0;

	if ((picked = calloc(m->pcount, 1)) == NULL)
		return -1;
	memset(m->load, 0, m->fs->niods * sizeof(*m->load));
	for (pass = 0; rc == 0 && pass < 2; pass++)
		for (rel = 0; rc == 0 && rel < m->pcount; rel++) {
			if (!m->rel[rel].want || m->rel[rel].done ||
			    picked[rel] || (pass == 0 && mio_choices(m, rel) > 1))
				continue;
			if ((k = mio_pick(m, rel, rot)) < 0) {
				rc = mio_none_left(m, rel);
				break;
			}
			picked[rel] = 1;
			m->load[mio_iod(m, rel, (uint32_t)k)]++;
			rc = mio_add(m, rel, (uint32_t)k);
		}
	free(picked);
	return rc;
}

/* What an answering stream says: a read's logical end, a size. */
static void
mio_one_take(struct mio *m, const struct io_stream *st)
{
	const struct pvfs_iod_size_rep *r = &st->rep.size;

	m->rel[st->rel].done = 1;
	if (m->opc == 0) {
		if (st->rep.read.logical_end > m->max_end)
			m->max_end = st->rep.read.logical_end;
		return;
	}
	if (r->logical_end > m->size.size)
		m->size.size = r->logical_end;
	if (r->mtime_ns > m->size.mtime_ns)
		m->size.mtime_ns = r->mtime_ns;
	m->size.blocks += r->blocks;
}

/* After a read round with an expired key or a dead pooled socket: may
 * another round go (0, the key refreshed), or -1 with errno. */
static int
mio_read_again(struct mio *m, int key, int stale, int *retries)
{
	if (!key && !stale)
		return 0;
	if ((*retries)++ >= MIO_RETRIES) {
		errno = key ? EKEYEXPIRED : EIO;
		return -1;
	}
	return key ? pvfs_io_refresh(m->f) : 0;
}

/* One round: 0 (every rel answered, or more rounds to go: *more), or -1
 * with errno. */
static int
mio_one_round(struct mio *m, int *more, int *retries)
{
	int i, key = 0, stale = 0;
	uint32_t rel;

	*more = 0;
	if (mio_engine(m, m->pcount) != 0)
		return -1;
	if (mio_one_fill(m) != 0) {
		pvfs_io_engine_free(&m->e);
		return -1;
	}
	mio_run(m);
	for (i = 0; i < m->e.nst; i++) {
		const struct io_stream *st = &m->e.st[i];
		struct mio_rel *r = &m->rel[st->rel];

		if (st->state == IO_DONE) {
			mio_one_take(m, st);
			continue;
		}
		if (st->stale)
			stale = 1;
		else if (st->err == EKEYEXPIRED)
			key = 1;
		else {
			r->tried |= (uint8_t)(1u << st->copy);
			mio_one_failed(m, st);
		}
	}
	pvfs_io_engine_free(&m->e);
	if (mio_read_again(m, key, stale, retries) != 0)
		return -1;
	for (rel = 0; rel < m->pcount; rel++)
		if (m->rel[rel].want && !m->rel[rel].done)
			*more = 1;
	return 0;
}

static int
mio_one(struct mio *m)
{
	int more = 1, retries = 0;

	while (more)
		if (mio_one_round(m, &more, &retries) != 0)
			return -1;
	return 0;
}

/* ---- degraded contiguous reads: copies chosen per stripe round ---- */

/* A contiguous read of a file with a copy on an iod reads avoid. */
static int
mio_split_wanted(const struct mio *m)
{
	uint32_t rel, k;

	if (m->sg->nseg != 1 || m->sg->seg[0].count != 1)
		return 0;
	for (rel = 0; rel < m->pcount; rel++)
		for (k = 0; m->rel[rel].want && k < m->copies; k++)
			if (mio_avoided(m, mio_iod(m, rel, k)))
				return 1;
	return 0;
}

/* The units of the read: per run of rounds (at most MIO_UNITS_MAX runs),
 * one per rel holding bytes of it.  0 or -1/ENOMEM. */
static int
mio_units(struct mio *m)
{
	const struct pvfs_dist *d = &m->f->cap.dist;
	const struct pvfs_pattern *seg = &m->sg->seg[0];
	uint64_t round = (uint64_t)d->pcount * d->ssize, a = seg->offset;
	uint64_t b = a + seg->gsize, first = a / round, n, per, lo, hi;
	struct pvfs_pattern part;
	uint32_t rel;

	n = (b - 1) / round - first + 1;
	per = (n + MIO_UNITS_MAX - 1) / MIO_UNITS_MAX;
	m->unit = calloc((size_t)((n + per - 1) / per) * m->pcount,
	    sizeof(*m->unit));
	if (m->unit == NULL)
		return -1;
	for (lo = a; lo < b; lo = hi) {
		hi = (lo / round / per + 1) * per * round;
		hi = hi < b ? hi : b;
		pvfs_io_pattern_contig(&part, lo, hi - lo);
		for (rel = 0; rel < m->pcount; rel++) {
			struct mio_unit *u = &m->unit[m->nunit];

			u->share = pvfs_stripe_share(&part, d->pcount, d->ssize,
			    rel);
			if (u->share == 0)
				continue;
			u->rel = rel;
			u->off = lo;
			u->len = hi - lo;
			m->nunit++;
		}
	}
	return 0;
}

/* A split stream each of whose units has another copy left to ask. */
static int
mio_unit_spare(const struct mio *m, const struct io_stream *st)
{
	const struct mio_unit *u;
	uint32_t i, k;
	int n = 0, other;

	for (i = 0; i < m->nunit; i++) {
		u = &m->unit[i];
		if (u->rel != st->rel || u->pick != (int)st->copy)
			continue;
		for (k = 0, other = 0; k < m->copies && !other; k++)
			other = k != st->copy && !(u->tried & (1u << k));
		if (!other)
			return 0;
		n++;
	}
	return n > 0;
}

/* Copies of unit u left to try on iods not avoided. */
static uint32_t
mio_unit_choices(const struct mio *m, const struct mio_unit *u)
{
	uint32_t k, n = 0;

	for (k = 0; k < m->copies; k++)
		if (!(u->tried & (1u << k)) &&
		    !mio_avoided(m, mio_iod(m, u->rel, k)))
			n++;
	return n;
}

/* Each unit's copy: not tried, on an iod not avoided if there is one, the
 * one with the fewest bytes of this round so far (load counts bytes here),
 * units with a single choice first.  -1 with EIO if a unit has none. */
static int
mio_split_pick(struct mio *m, uint64_t *load)
{
	uint32_t i, j, k, iod, pass, rot = __atomic_fetch_add(&mio_rotation, 1,
	    __ATOMIC_RELAXED);
	uint64_t score, best;

	for (i = 0; i < m->nunit; i++)
		m->unit[i].pick = -1;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < m->nunit; i++) {
			struct mio_unit *u = &m->unit[i];

			if (u->done || u->pick >= 0 ||
			    (pass == 0 && mio_unit_choices(m, u) > 1))
				continue;
			for (j = 0, best = UINT64_MAX; j < m->copies; j++) {
				k = (rot + j) % m->copies;
				iod = mio_iod(m, u->rel, k);
				if (u->tried & (1u << k))
					continue;
				score = ((uint64_t)mio_avoided(m, iod) << 62) +
				    load[iod];
				if (score < best) {
					best = score;
					u->pick = (int)k;
				}
			}
			if (u->pick < 0)
				return mio_none_left(m, u->rel);
			load[mio_iod(m, u->rel, (uint32_t)u->pick)] += u->share;
		}
	return 0;
}

/* The slice [off, off + len) of the user memory v[0 .. n) into out; the
 * number of entries. */
static int
mio_slice(const struct iovec *v, int n, uint64_t off, uint64_t len,
    struct iovec *out)
{
	int i, k = 0;
	uint64_t take;

	for (i = 0; i < n && len > 0; i++) {
		if (off >= v[i].iov_len) {
			off -= v[i].iov_len;
			continue;
		}
		take = v[i].iov_len - off < len ? v[i].iov_len - off : len;
		out[k++] = (struct iovec){ (char *)v[i].iov_base + off, take };
		len -= take;
		off = 0;
	}
	return k;
}

/* The stream of copy k of rel: its picked units' ranges (adjacent ones
 * merged) as its segments, and their bytes of the user memory as its
 * own.  0 (nothing picked there, or added), or -1. */
static int
mio_split_add(struct mio *m, uint32_t rel, uint32_t k, void **mem)
{
	const struct pvfs_dist *d = &m->f->cap.dist;
	uint64_t base = m->sg->seg[0].offset, share = 0;
	struct pvfs_pattern *seg;
	struct io_stream *st;
	struct io_segs sg;
	struct iovec *iov;
	union io_req req;
	uint32_t i, n = 0;
	int niov = 0;

	for (i = 0; i < m->nunit; i++)
		n += m->unit[i].rel == rel && m->unit[i].pick == (int)k;
	if (n == 0)
		return 0;
	*mem = malloc(n * (sizeof(*seg) + (size_t)m->iovcnt * sizeof(*iov)));
	if (*mem == NULL)
		return -1;
	seg = *mem;
	iov = (struct iovec *)(seg + n);
	for (i = 0, n = 0; i < m->nunit; i++) {
		const struct mio_unit *u = &m->unit[i];

		if (u->rel != rel || u->pick != (int)k)
			continue;
		share += u->share;
		niov += mio_slice(m->iov, m->iovcnt, u->off - base, u->len,
		    iov + niov);
		if (n > 0 && pvfs_pattern_end(&seg[n - 1]) == u->off)
			seg[n - 1].gsize = seg[n - 1].stride =
			    seg[n - 1].gsize + u->len;
		else
			pvfs_io_pattern_contig(&seg[n++], u->off, u->len);
	}
	sg = (struct io_segs){ seg, n };
	st = pvfs_io_engine_add(&m->e, mio_iod(m, rel, k), rel,
	    pvfs_io_data_req(0, m->f, rel, k, seg, n, share, &req), &req);
	if (st == NULL)
		return -1;
	st->copy = k;
	pvfs_io_engine_mem(st, iov, niov);
	return pvfs_io_engine_data(&m->e, st, &sg, d, share, n);
}

/* One round: a stream per (rel, copy) picked; what failed over goes to
 * the next round.  0 (*more: rounds to go), or -1 with errno. */
static int
mio_split_round(struct mio *m, int *more, int *retries)
{
	uint32_t rel, k, i, nmem = m->pcount * m->copies;
	int j, key = 0, stale = 0, rc = 0;
	uint64_t *load;

	*more = 0;
	if ((load = calloc(m->fs->niods, sizeof(*load))) == NULL)
		return -1;
	memset(m->smem, 0, nmem * sizeof(*m->smem));
	if (mio_split_pick(m, load) != 0 ||
	    mio_engine(m, nmem) != 0) {
		free(load);
		return -1;
	}
	for (rel = 0; rc == 0 && rel < m->pcount; rel++)
		for (k = 0; rc == 0 && k < m->copies; k++)
			rc = mio_split_add(m, rel, k,
			    &m->smem[rel * m->copies + k]);
	if (rc == 0)
		mio_run(m);
	for (j = 0; rc == 0 && j < m->e.nst; j++) {
		const struct io_stream *st = &m->e.st[j];
		int ok = st->state == IO_DONE;

		if (ok && st->rep.read.logical_end > m->max_end)
			m->max_end = st->rep.read.logical_end;
		if (!ok && st->stale)
			stale = 1;
		else if (!ok && st->err == EKEYEXPIRED)
			key = 1;
		else if (!ok)
			mio_one_failed(m, st);
		for (i = 0; i < m->nunit; i++) {
			struct mio_unit *u = &m->unit[i];

			if (u->rel != st->rel || u->pick != (int)st->copy)
				continue;
			if (ok)
				u->done = 1;
			else if (!st->stale && st->err != EKEYEXPIRED)
				u->tried |= (uint8_t)(1u << st->copy);
		}
	}
	pvfs_io_engine_free(&m->e);
	for (i = 0; i < nmem; i++)
		free(m->smem[i]);
	free(load);
	if (rc != 0)
		return -1;
	if (mio_read_again(m, key, stale, retries) != 0)
		return -1;
	for (i = 0; i < m->nunit; i++)
		*more |= !m->unit[i].done;
	return 0;
}

static int
mio_split(struct mio *m)
{
	int more = 1, retries = 0;

	if (mio_units(m) != 0 ||
	    (m->smem = calloc((size_t)m->pcount * m->copies,
	    sizeof(*m->smem))) == NULL) {
		errno = ENOMEM;
		return -1;
	}
	while (more)
		if (mio_split_round(m, &more, &retries) != 0)
			return -1;
	return 0;
}

/* ---- every copy: writes, truncates, fsyncs ---- */

/* A stream per (rel, copy), but FSYNC once per iod (it syncs every copy
 * the iod holds).  A copy on an iod down and silent is skipped (it misses
 * the operation: reported dirty) while another copy of its rel is not;
 * every other copy is tried, even on an iod reads avoid (refused moments
 * ago, it may be back): a write it takes is one less dirty range. */
static int
mio_all_fill(struct mio *m)
{
	uint32_t rel, k, iod, up, n = m->pcount * m->copies;
	int j;

	for (j = 0; j < (int)n; j++)
		m->sidx[j] = -1;
	for (rel = 0; rel < m->pcount; rel++) {
		if (!m->rel[rel].want)
			continue;
		for (k = 0, up = 0; k < m->copies; k++)
			up += !mio_is_silent(m, mio_iod(m, rel, k));
		for (k = 0; k < m->copies; k++) {
			iod = mio_iod(m, rel, k);
			if (up > 0 && mio_is_silent(m, iod))
				continue;
			if (m->opc == PVFS_IOD_FSYNC) {
				for (j = 0; j < m->e.nst &&
				    m->e.st[j].iod != iod; j++)
					;
				if (j < m->e.nst) {
					m->sidx[rel * m->copies + k] = j;
					continue;
				}
			}
			m->sidx[rel * m->copies + k] = m->e.nst;
			if (mio_add(m, rel, k) != 0)
				return -1;
		}
	}
	return 0;
}

/* What each copy of each rel did in the last run. */
static void
mio_all_take(struct mio *m, int *key, int *stale)
{
	uint32_t rel, k;

	for (rel = 0; rel < m->pcount; rel++) {
		struct mio_rel *r = &m->rel[rel];

		r->ok = r->lost = 0;
		r->err = 0;
		if (!r->want)
			continue;
		for (k = 0; k < m->copies; k++) {
			const struct io_stream *st;

			if (m->sidx[rel * m->copies + k] < 0)
				continue; /* skipped: its iod is down */
			st = &m->e.st[m->sidx[rel * m->copies + k]];
			if (st->state == IO_DONE) {
				r->ok |= (uint8_t)(1u << k);
				r->took |= (uint8_t)(1u << k);
			}
			else if (st->stale)
				*stale = 1;
			else if (st->err == EKEYEXPIRED)
				*key = 1;
			else if (mio_lost(st)) {
				r->lost |= (uint8_t)(1u << k);
				r->lost_err = st->err;
				r->lost_iod = st->iod;
				pvfs_mirror_lost(m->fs, st->iod, st->err);
			} else if (r->err == 0) {
				r->err = st->err;
				pvfs_client_detail_iod(m->fs, st->iod, st->err);
			}
		}
	}
}

/* The copies that missed what another copy of their rel took (in any
 * attempt: a retry resends the same bytes), whatever the call returns.  A
 * write's range is the local bytes it touched; a truncate's is length 0
 * (the size differs), and so is an fsync's: bytes the copy's iod took
 * but could not make durable may be lost in a crash, anywhere. */
static int
mio_all_report(struct mio *m)
{
	struct pvfs_mirror_range *v;
	uint32_t rel, k, n = 0, all = (1u << m->copies) - 1;
	int rc;

	if ((v = calloc((size_t)m->pcount * m->copies, sizeof(*v))) == NULL)
		return -1;
	for (rel = 0; rel < m->pcount; rel++) {
		const struct mio_rel *r = &m->rel[rel];

		if (!r->want || r->took == 0 || r->took == all)
			continue;
		for (k = 0; k < m->copies; k++)
			if (!(r->took & (1u << k)))
				v[n++] = (struct pvfs_mirror_range){ .rel = rel,
					.copy = k, .offset = m->opc ? 0 : r->lo,
					.length = m->opc ? 0 : r->hi - r->lo };
	}
	rc = n > 0 ? pvfs_mirror_report(m->f, v, n) : 0;
	free(v);
	if (rc != 0) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Every copy, retried on an old key or a stale pooled socket; on every
 * way out (also failing), the copies that missed what another took are
 * reported before the call returns. */
static int
mio_all(struct mio *m)
{
	int attempt, key, stale, err = 0;
	uint32_t rel;

	m->all = 1;
	for (attempt = 0;; attempt++) {
		key = stale = 0;
		if (mio_engine(m, m->pcount * m->copies) != 0) {
			err = errno;
			break;
		}
		if (mio_all_fill(m) != 0) {
			err = errno;
			pvfs_io_engine_free(&m->e);
			break;
		}
		mio_run(m);
		mio_all_take(m, &key, &stale);
		pvfs_io_engine_free(&m->e);
		for (rel = 0; rel < m->pcount && err == 0; rel++)
			err = m->rel[rel].err;
		if (err != 0 || !(key || stale))
			break;
		if (attempt >= MIO_RETRIES) {
			err = key ? EKEYEXPIRED : EIO;
			break;
		}
		if (key && pvfs_io_refresh(m->f) != 0) {
			err = errno;
			break;
		}
	}
	/* A piece no copy took fails as on an unmirrored file. */
	for (rel = 0; err == 0 && rel < m->pcount; rel++) {
		const struct mio_rel *r = &m->rel[rel];

		if (!r->want || r->took != 0)
			continue;
		if (r->err == 0)
			pvfs_client_detail_iod(m->fs, r->lost_iod, r->lost_err);
		err = r->err ? r->err : r->lost_err ? r->lost_err : EIO;
	}
	if (mio_all_report(m) != 0)
		return -1;
	if (err != 0) {
		errno = err;
		return -1;
	}
	return 0;
}

/* ---- the operations ---- */

static int
mio_init(struct mio *m, struct io_file *f, uint16_t opc, uint64_t arg)
{
	memset(m, 0, sizeof(*m));
	if (pvfs_io_check_file(f) != 0 || pvfs_mirror_pending(f) != 0)
		return -1;
	m->f = f;
	m->fs = f->fs;
	pvfs_mirror_probe(m->fs);
	m->pcount = f->cap.dist.pcount;
	m->copies = pvfs_dist_copies(&f->cap.dist);
	m->opc = opc;
	m->arg = arg;
	m->rel = calloc(m->pcount, sizeof(*m->rel));
	m->load = calloc(m->fs->niods, sizeof(*m->load));
	m->sidx = calloc((size_t)m->pcount * m->copies, sizeof(*m->sidx));
	if (m->rel == NULL || m->load == NULL || m->sidx == NULL) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

static void
mio_free(struct mio *m)
{
	int saved = errno;

	/* A probe sent at mio_init is often answered by now. */
	if (m->fs != NULL)
		pvfs_mirror_probe(m->fs);
	free(m->rel);
	free(m->load);
	free(m->sidx);
	free(m->sub);
	free(m->unit);
	free(m->smem);
	errno = saved;
}

int
pvfs_io_mirror_rw(struct io_file *f, int write, const struct io_segs *sg,
    const struct iovec *iov, int iovcnt, uint64_t *max_end)
{
	struct mio m;
	int rc = -1;

	*max_end = 0;
	if (mio_init(&m, f, 0, 0) == 0 &&
	    (m.sub = malloc(sizeof(*m.sub) * sg->nseg)) != NULL) {
		m.write = write;
		m.sg = sg;
		m.iov = iov;
		m.iovcnt = iovcnt;
		mio_rels(&m);
		if (write)
			rc = mio_all(&m);
		else if (mio_split_wanted(&m))
			rc = mio_split(&m);
		else
			rc = mio_one(&m);
		*max_end = m.max_end;
	}
	mio_free(&m);
	return rc;
}

int
pvfs_io_mirror_size(struct io_file *f, struct pvfs_io_size *out)
{
	struct mio m;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (mio_init(&m, f, PVFS_IOD_SIZE, 0) == 0) {
		mio_rels(&m);
		if ((rc = mio_one(&m)) == 0)
			*out = m.size;
	}
	mio_free(&m);
	return rc;
}

static int
mio_all_op(struct io_file *f, uint16_t opc, uint64_t arg)
{
	struct mio m;
	int rc = -1;

	if (mio_init(&m, f, opc, arg) == 0) {
		mio_rels(&m);
		rc = mio_all(&m);
	}
	mio_free(&m);
	return rc;
}

int
pvfs_io_mirror_truncate(struct io_file *f, uint64_t length)
{
	return mio_all_op(f, PVFS_IOD_TRUNCATE, length);
}

int
pvfs_io_mirror_fsync(struct io_file *f, int datasync)
{
	return mio_all_op(f, PVFS_IOD_FSYNC, datasync != 0);
}
