/*
 * mgr-resync.c - the mgr's side of mirrored files' failures: writers'
 * dirty reports (MGR_DIRTY), fencing the stale copies before a report is
 * answered, and the jobs pvfs-resync asks for (MGR_RESYNC) (doc/design.md,
 * "Mirrored files").
 *
 * Each iod has a stale set: the copies it holds that are stale, which
 * mgr-mirror.c knows.  Every mark or clear of one copy bumps the set's
 * version by one and is kept in the iod's change log until the iod
 * reports a version past it; the HELLO exchange (mgr-iods.c) sends an
 * iod the changes since the version it holds (IOD_STALE changes, which
 * leave its lease alone), or its whole set when the log does not reach
 * back that far (a restarted iod, a rebuild), and a HELLO grants the iod
 * its mirror lease only while it holds the version the HELLO names.  A DIRTY report is
 * answered once each iod it marked is fenced: it acknowledged the new
 * version, refused a connection since (no process: a new one starts
 * without a lease), or the last lease it may hold ran out.  Versions
 * start at a random number each run, so an iod never mistakes an older
 * mgr's set for the current one.
 *
 * The mgr moves no data: when a job is ready (a stale copy whose iod is
 * back and holds its set, a fresh copy on an iod that answers) and no
 * worker runs, it starts pvfs-resync (--resync-cmd, else the one beside
 * pvfs-mgr) on a pvfstab of its own (METADIR/resync.pvfstab: its Unix
 * socket, where the kernel vouches for the mgr's uid, an admin), and
 * watches it with a child watcher; the worker exits when no job is
 * ready, and is started again when one is.
 */
#include <sys/random.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgr.h"

#define RS_CHECK_S 0.2          /* waiting reports are checked this often */
#define RS_LEASE_MARGIN_MS 1000 /* clock rates and the HELLO's delivery */
#define RS_JOB_MS (10 * 60 * 1000) /* a job not reported is handed out again */
/* A job that failed waits before it is handed out again, twice as long
 * after each failure, so one failing copy never blocks the others. */
#define RS_FAIL_MS 2000
#define RS_FAIL_MAX_MS (5 * 60 * 1000)
#define RS_WAIT_MS 1000         /* "no job now": ask again after */
/* An iod refuses a resync's capability minted in the second its copy
 * became stale there (or before): jobs wait this long after its set. */
#define RS_SETTLE_MS 1500

/* One change of an iod's set: the version it makes. */
struct rs_chg {
	uint64_t version;
	struct pvfs_stale_ent e;
	int clear;
};
/* Past this many changes an iod is sent its whole set instead. */
#define RS_LOG_MAX 65536u

struct rs_iod {
	uint64_t version;       /* of its stale set */
	uint64_t acked;         /* the version it said it holds */
	int64_t refused_ms;     /* a connection it refused (monotonic), 0 */
	int64_t acked_ms;       /* when it last took a mark or a whole set */
	uint64_t mark_version;  /* the last change that marked a copy */
	/* The changes after version log_base, in order: log[i] makes
	 * version log_base + 1 + i (so log_base + nlog == version). */
	uint64_t log_base;
	struct rs_chg *log;
	size_t nlog, logcap;
};

/* A DIRTY reply waiting for its copies to be fenced. */
struct rs_wait {
	TAILQ_ENTRY(rs_wait) entry;
	struct mgr_conn *c;
	uint32_t reqid;
	int64_t since_ms;
	uint64_t *need;         /* per iod: the version to be fenced, 0 */
	int64_t *bound;         /* ... and when leases of older HELLOs end */
};

/* A job handed out and not reported yet (conn: its worker's), or one
 * that failed and waits (conn NULL, fails > 0). */
struct rs_job {
	uint64_t ino;
	uint32_t rel, copy;
	int64_t until_ms;
	uint32_t fails;
	struct mgr_conn *conn;
};

static struct rs_iod *rs_iods;
static TAILQ_HEAD(, rs_wait) rs_waits = TAILQ_HEAD_INITIALIZER(rs_waits);
static struct rs_job *rs_jobs;
static size_t rs_njobs, rs_jobs_cap;
static struct ev_loop *rs_loop;
static ev_timer rs_timer;
static struct pvfs_extent rs_exts[PVFS_RESYNC_EXT_MAX];
static struct pvfs_stale_wire rs_wire[PVFS_RESYNC_LIST_MAX];
static uint64_t rs_reports, rs_jobs_done, rs_bytes_done;
static size_t rs_cursor;       /* where the search for a job goes on */
/* A HELLO of the mgr that ran before may be as recent as our start. */
static int64_t rs_start_ms;

#define RS_SPAWN_S 1.0          /* how often a worker is considered */
#define RS_RESPAWN_FAIL_MS 5000 /* after a worker that failed */
static ev_timer rs_spawn_timer;
static ev_child rs_child;
static pid_t rs_pid;
static int64_t rs_next_spawn_ms;
static char rs_cmd[PATH_MAX], rs_tab[PATH_MAX];

static void
rs_init_iods(void)
{
	uint64_t base;
	uint32_t i;

	if (rs_iods != NULL || mgr.niods == 0)
		return;
	if ((rs_iods = calloc(mgr.niods, sizeof(*rs_iods))) == NULL)
		pvfs_fatal("out of memory (stale sets)");
	if (getrandom(&base, sizeof(base), 0) != sizeof(base))
		base = (uint64_t)pvfs_now_ns();
	base = (base >> 2) | 1; /* never 0 (an iod's "none"), room to grow */
	for (i = 0; i < mgr.niods; i++)
		rs_iods[i].version = rs_iods[i].log_base = base;
}

/* The iod's set changed as a whole (a rebuild): it gets the whole set. */
static uint64_t
rs_reset(uint32_t iod)
{
	struct rs_iod *d;

	rs_init_iods();
	d = &rs_iods[iod];
	d->version++;
	d->log_base = d->mark_version = d->version;
	d->nlog = 0;
	mgr_iods_kick(iod);
	return d->version;
}

/* One copy on iod marked stale, or fresh (clear): the version that has
 * it, which the iod must learn. */
static uint64_t
rs_change(uint32_t iod, uint64_t ino, uint64_t gen, uint32_t rel,
    uint32_t copy, int clear)
{
	struct rs_iod *d;
	struct rs_chg *c;
	size_t cap;

	rs_init_iods();
	d = &rs_iods[iod];
	if (d->nlog == RS_LOG_MAX)
		return rs_reset(iod); /* far behind: the whole set next */
	if (d->nlog == d->logcap) {
		cap = d->logcap ? d->logcap * 2 : 64;
		if ((c = realloc(d->log, cap * sizeof(*c))) == NULL)
			pvfs_fatal("out of memory (stale set changes)");
		d->log = c;
		d->logcap = cap;
	}
	c = &d->log[d->nlog++];
	c->version = ++d->version;
	c->e.ino = ino;
	c->e.gen = gen;
	c->e.rel = rel;
	c->e.copy = copy;
	c->clear = clear;
	if (!clear)
		d->mark_version = d->version;
	mgr_iods_kick(iod);
	return d->version;
}

/* The iod holds version v: the changes up to it are not needed again. */
static void
rs_log_trim(struct rs_iod *d, uint64_t v)
{
	size_t n;

	if (v <= d->log_base || v > d->version)
		return;
	n = (size_t)(v - d->log_base);
	memmove(d->log, d->log + n, (d->nlog - n) * sizeof(*d->log));
	d->nlog -= n;
	d->log_base = v;
	if (d->logcap > 1024 && d->nlog < d->logcap / 8) {
		d->logcap /= 4;
		d->log = realloc(d->log, d->logcap * sizeof(*d->log));
		if (d->log == NULL)
			pvfs_fatal("out of memory (stale set changes)");
	}
}

/* HELLOs sent from now on name the new version, which grants no lease
 * without the new mark: only leases of those sent before can let the
 * iod serve the copy, and they end by this time. */
static int64_t
rs_lease_bound(uint32_t iod)
{
	int64_t sent = mgr_iods_hello_sent_ms(iod);

	if (sent < rs_start_ms)
		sent = rs_start_ms;
	return sent + mgr_iods_lease_ms() + RS_LEASE_MARGIN_MS;
}

static int
rs_fenced(uint32_t iod, uint64_t version, int64_t bound, int64_t since_ms,
    int64_t now_ms)
{
	const struct rs_iod *d = &rs_iods[iod];

	if (d->acked >= version && d->acked <= d->version)
		return 1;
	if (d->refused_ms != 0 && d->refused_ms >= since_ms)
		return 1;
	return now_ms > bound;
}

static int
rs_wait_done(const struct rs_wait *w, int64_t now_ms)
{
	uint32_t i;

	for (i = 0; i < mgr.niods; i++) {
		if (w->need[i] != 0 && !rs_fenced(i, w->need[i], w->bound[i],
		    w->since_ms, now_ms))
			return 0;
	}
	return 1;
}

static void
rs_wait_free(struct rs_wait *w)
{
	TAILQ_REMOVE(&rs_waits, w, entry);
	free(w->need);
	free(w->bound);
	free(w);
}

/* Answer every report whose copies are all fenced now. */
static void
rs_check_waits(void)
{
	struct rs_wait *w, *next;
	struct mgr_conn *c;
	int64_t now = pvfs_mono_ms();
	uint32_t reqid;

	for (w = TAILQ_FIRST(&rs_waits); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (!rs_wait_done(w, now))
			continue;
		c = w->c;
		reqid = w->reqid;
		rs_wait_free(w);
		/* may close c, which drops its other waits: start over */
		mgr_conn_reply_later(c, PVFS_MGR_DIRTY, reqid, 0, NULL);
		next = TAILQ_FIRST(&rs_waits);
	}
	if (TAILQ_EMPTY(&rs_waits) && rs_loop != NULL)
		ev_timer_stop(rs_loop, &rs_timer);
}

static void rs_job_release(struct mgr_conn *c);

void
mgr_resync_conn_gone(struct mgr_conn *c)
{
	struct rs_wait *w, *next;

	for (w = TAILQ_FIRST(&rs_waits); w != NULL; w = next) {
		next = TAILQ_NEXT(w, entry);
		if (w->c == c)
			rs_wait_free(w);
	}
	rs_job_release(c);
}

void
mgr_resync_iod_acked(uint32_t index, uint64_t version)
{
	struct rs_iod *d;

	rs_init_iods();
	if (index >= mgr.niods)
		return;
	d = &rs_iods[index];
	/* A copy it marked stale in this second refuses resync capabilities
	 * minted in it: its jobs wait (RS_SETTLE_MS).  Clears (a rebuild's
	 * stream of them) make none wait. */
	if (d->acked != version && (d->acked < d->mark_version ||
	    d->acked < d->log_base || d->acked > d->version))
		d->acked_ms = pvfs_mono_ms();
	d->acked = version;
	rs_log_trim(&rs_iods[index], version);
	if (version != rs_iods[index].version)
		mgr_iods_kick(index); /* a restarted iod: send it the set */
	rs_check_waits();
}

void
mgr_resync_iod_refused(uint32_t index)
{
	rs_init_iods();
	if (index >= mgr.niods)
		return;
	rs_iods[index].refused_ms = pvfs_mono_ms();
	rs_iods[index].acked = 0;
	rs_check_waits();
}

uint64_t
mgr_resync_version(uint32_t index)
{
	rs_init_iods();
	return index < mgr.niods ? rs_iods[index].version : 0;
}

uint64_t
mgr_resync_acked(uint32_t index)
{
	rs_init_iods();
	return index < mgr.niods ? rs_iods[index].acked : 0;
}

/* ---- the stale set as IOD_STALE frames ---- */

struct rs_enc {
	uint32_t iod, reqid, frames;
	struct pvfs_buf *out;
	struct pvfs_iod_stale_req q;
	struct pvfs_stale_ent ents[PVFS_STALE_MAX];
};

static void
rs_enc_flush(struct rs_enc *e, int last)
{
	e->q.flags = (e->frames == 0 ? PVFS_STALE_SET : 0) |
	    (last ? PVFS_STALE_END : 0);
	e->q.base = 0;
	e->q.ents = e->ents;
	pvfs_frame_encode(e->out, PVFS_IOD_STALE, e->reqid + e->frames, 0, 0,
	    &e->q);
	e->frames++;
	e->q.n = 0;
}

static int
rs_enc_one(const struct mgr_stale *st, void *arg)
{
	struct rs_enc *e = arg;
	const struct mgr_inode *in = mgr_ns_get(st->ino);

	if (mgr_mirror_iod(&in->dist, st->rel, st->copy) != e->iod)
		return 0;
	if (e->q.n == PVFS_STALE_MAX)
		rs_enc_flush(e, 0);
	e->ents[e->q.n].ino = st->ino;
	e->ents[e->q.n].gen = st->gen;
	e->ents[e->q.n].rel = st->rel;
	e->ents[e->q.n].copy = st->copy;
	e->q.n++;
	return 0;
}

/* The changes after version from as IOD_STALE changes: a frame holds a
 * run of marks or of clears, and names the version before and after it. */
static void
rs_enc_changes(struct rs_enc *e, const struct rs_iod *d, uint64_t from)
{
	size_t i = (size_t)(from - d->log_base);

	e->q.base = from;
	for (; i < d->nlog; i++) {
		if (e->q.n == PVFS_STALE_MAX || (e->q.n > 0 &&
		    (e->q.flags != 0) != d->log[i].clear)) {
			e->q.ents = e->ents;
			pvfs_frame_encode(e->out, PVFS_IOD_STALE, e->reqid +
			    e->frames++, 0, 0, &e->q);
			e->q.base = e->q.version;
			e->q.n = 0;
		}
		e->q.flags = d->log[i].clear ? PVFS_STALE_CLEAR : 0;
		e->q.version = d->log[i].version;
		e->ents[e->q.n++] = d->log[i].e;
	}
	e->q.ents = e->ents;
	pvfs_frame_encode(e->out, PVFS_IOD_STALE, e->reqid + e->frames++, 0, 0,
	    &e->q);
}

uint32_t
mgr_resync_encode_update(uint32_t index, uint64_t from, int whole_ok,
    struct pvfs_buf *out, uint32_t reqid)
{
	const struct rs_iod *d;
	struct rs_enc *e;
	uint32_t n;

	rs_init_iods();
	d = &rs_iods[index];
	if (from == d->version)
		return 0;
	if ((from == 0 || from < d->log_base || from > d->version) &&
	    !whole_ok)
		return 0;
	if ((e = calloc(1, sizeof(*e))) == NULL)
		pvfs_fatal("out of memory (stale set)");
	e->iod = index;
	e->reqid = reqid;
	e->out = out;
	mgr_cap_mint(0, 0, PVFS_R_MIRROR, NULL, &e->q.cap);
	if (from != 0 && from >= d->log_base && from < d->version)
		rs_enc_changes(e, d, from);
	else {
		e->q.version = d->version;
		mgr_mirror_walk(rs_enc_one, e);
		rs_enc_flush(e, 1);
	}
	n = e->frames;
	free(e);
	return n;
}

/* ---- MGR_DIRTY ---- */

static int
rs_dirty_check(const struct pvfs_mgr_dirty_req *q, struct mgr_inode **inp)
{
	struct mgr_inode *in;
	uint32_t i;
	int rc;

	if ((rc = mgr_cap_file(&q->cap, PVFS_R_WRITE, &in)) != 0)
		return rc;
	if (mgr_mirror_copies(&in->dist) < 2 || q->n == 0)
		return EINVAL;
	for (i = 0; i < q->n; i++) {
		if (q->ents[i].rel >= in->dist.pcount ||
		    q->ents[i].copy >= mgr_mirror_copies(&in->dist) ||
		    q->ents[i].length > UINT64_MAX - q->ents[i].offset)
			return EINVAL;
	}
	*inp = in;
	return 0;
}

int
mgr_resync_dirty_op(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_dirty_req *q = rq;
	struct mgr_inode *in;
	const struct mgr_stale *st;
	struct rs_wait *w;
	struct mgr_rec r;
	uint64_t version;
	int64_t bound;
	uint32_t i, iod;
	int rc, known, fenced;

	(void)rp;
	if ((rc = rs_dirty_check(q, &in)) != 0)
		return rc;
	mgr_size_dirty(in); /* which copies are read changes */
	rs_init_iods();
	if ((w = calloc(1, sizeof(*w))) == NULL ||
	    (w->need = calloc(mgr.niods, sizeof(*w->need))) == NULL ||
	    (w->bound = calloc(mgr.niods, sizeof(*w->bound))) == NULL)
		pvfs_fatal("out of memory (dirty report)");
	w->since_ms = pvfs_mono_ms();
	for (i = 0; i < q->n; i++) {
		memset(&r, 0, sizeof(r));
		r.type = MGR_REC_DIRTY;
		r.ino = in->ino;
		r.gen = in->gen;
		r.rel = q->ents[i].rel;
		r.copy = q->ents[i].copy;
		r.offset = q->ents[i].offset;
		r.length = q->ents[i].length;
		r.dgen = mgr_mirror_next_dgen(r.ino, r.gen, r.rel, r.copy);
		iod = mgr_mirror_iod(&in->dist, r.rel, r.copy);
		st = mgr_mirror_find(r.ino, r.gen, r.rel, r.copy);
		/* Already stale, and that mark fenced: the iod serves the copy
		 * to nobody, whatever it has learnt of these ranges, so this
		 * report waits for nothing (a stopped iod would otherwise
		 * cost every write a lease). */
		known = st != NULL && st->fence_version != 0;
		fenced = known && rs_fenced(iod, st->fence_version,
		    st->fence_bound_ms, st->fence_since_ms, w->since_ms);
		mgr_journal_log(&r); /* st may move: not used below */
		bound = rs_lease_bound(iod);
		version = rs_change(iod, r.ino, r.gen, r.rel, r.copy, 0);
		if (fenced)
			continue;
		if (!known)
			mgr_mirror_set_fence(mgr_mirror_find(r.ino, r.gen,
			    r.rel, r.copy), version, bound, w->since_ms);
		if (w->need[iod] == 0)
			w->bound[iod] = bound;
		w->need[iod] = version;
	}
	rs_reports++;
	w->c = c;
	w->reqid = mgr_op_reqid;
	TAILQ_INSERT_TAIL(&rs_waits, w, entry);
	if (rs_wait_done(w, w->since_ms)) {
		rs_wait_free(w);
		return 0; /* released with the journal's commit, as any reply */
	}
	if (rs_loop != NULL && !ev_is_active(&rs_timer)) {
		ev_timer_set(&rs_timer, RS_CHECK_S, RS_CHECK_S);
		ev_timer_start(rs_loop, &rs_timer);
	}
	return MGR_OP_LATER;
}

/* ---- MGR_RESYNC ---- */

static struct rs_job *
rs_job_find(uint64_t ino, uint32_t rel, uint32_t copy)
{
	size_t i;

	for (i = 0; i < rs_njobs; i++) {
		if (rs_jobs[i].ino == ino && rs_jobs[i].rel == rel &&
		    rs_jobs[i].copy == copy)
			return &rs_jobs[i];
	}
	return NULL;
}

static void
rs_job_drop(uint64_t ino, uint32_t rel, uint32_t copy)
{
	struct rs_job *j = rs_job_find(ino, rel, copy);

	if (j != NULL)
		*j = rs_jobs[--rs_njobs];
}

/* The job of (ino, rel, copy) handed out to the worker on c (its
 * failures so far kept). */
static void
rs_job_add(uint64_t ino, uint32_t rel, uint32_t copy, struct mgr_conn *c)
{
	struct rs_job *j;

	if ((j = rs_job_find(ino, rel, copy)) == NULL) {
		if (rs_njobs == rs_jobs_cap) {
			rs_jobs_cap = rs_jobs_cap ? rs_jobs_cap * 2 : 16;
			if ((j = realloc(rs_jobs, rs_jobs_cap *
			    sizeof(*j))) == NULL)
				pvfs_fatal("out of memory (resync jobs)");
			rs_jobs = j;
		}
		j = &rs_jobs[rs_njobs++];
		j->ino = ino;
		j->rel = rel;
		j->copy = copy;
		j->fails = 0;
	}
	j->until_ms = pvfs_mono_ms() + RS_JOB_MS;
	j->conn = c;
}

/* A failed job: handed out again after a backoff, the others first. */
static void
rs_job_failed(uint64_t ino, uint32_t rel, uint32_t copy)
{
	struct rs_job *j = rs_job_find(ino, rel, copy);
	int64_t ms = RS_FAIL_MS;
	uint32_t i;

	if (j == NULL)
		return;
	for (i = 0; i < j->fails && ms < RS_FAIL_MAX_MS; i++)
		ms *= 2;
	j->fails++;
	j->until_ms = pvfs_mono_ms() + (ms < RS_FAIL_MAX_MS ? ms :
	    RS_FAIL_MAX_MS);
	j->conn = NULL;
}

/* The worker on c is gone (killed, or done): its jobs out are free at
 * once; failed ones keep their wait. */
static void
rs_job_release(struct mgr_conn *c)
{
	size_t i = 0;

	while (i < rs_njobs) {
		if (rs_jobs[i].conn == c && rs_jobs[i].fails == 0)
			rs_jobs[i] = rs_jobs[--rs_njobs];
		else {
			if (rs_jobs[i].conn == c) {
				rs_jobs[i].conn = NULL;
				rs_jobs[i].until_ms = pvfs_mono_ms();
			}
			i++;
		}
	}
}

/* Can copy o (stale itself, or NULL: fresh) give st its ranges?  When
 * both copies missed writes (each lost its iod in turn), o serves if
 * what it misses is none of what st misses, or if every write o missed
 * came before every write st missed (DIRTY records are ordered by their
 * generations): o took the later writes, so it holds the newest bytes of
 * st's ranges, whether its own misses meet them, or o is stale as a
 * whole.  st itself must be stale by ranges (a copy that missed a
 * truncate may differ anywhere, where o may miss an older write). */
int
mgr_resync_source_ok(const struct mgr_stale *st, const struct mgr_stale *o)
{
	const struct pvfs_extent *a, *b;
	uint32_t i = 0, j = 0;

	if (o == NULL)
		return 1;
	if (st->whole || st->size)
		return 0;
	if (o->dgen < st->dgen0)
		return 1;
	if (o->whole || o->size)
		return 0;
	a = mgr_mirror_extents(st);
	b = mgr_mirror_extents(o);
	while (i < st->next && j < o->next) {
		if (a[i].offset + a[i].length <= b[j].offset)
			i++;
		else if (b[j].offset + b[j].length <= a[i].offset)
			j++;
		else
			return 0;
	}
	return 1;
}

/* Does the iod hold every stale mark made so far?  (Clears it has not
 * taken yet do not matter to a job: a resync of a copy it still takes
 * for stale is what it allows.) */
static int
rs_holds_marks(uint32_t iod)
{
	const struct rs_iod *d = &rs_iods[iod];

	return d->acked != 0 && d->acked >= d->mark_version &&
	    d->acked <= d->version;
}

/* A copy of st's rel that holds what st misses, on an iod that answers
 * and holds its current set (a fresh one first), or -1. */
static int
rs_fresh_copy(const struct mgr_inode *in, const struct mgr_stale *st)
{
	const struct mgr_stale *o;
	uint32_t k, n = mgr_mirror_copies(&in->dist), iod;
	int best = -1;

	for (k = 0; k < n; k++) {
		iod = mgr_mirror_iod(&in->dist, st->rel, k);
		if (k == st->copy || !mgr_iods_ok(iod))
			continue;
		o = mgr_mirror_find(st->ino, st->gen, st->rel, k);
		if (o == NULL)
			return (int)k;
		if (best < 0 && rs_holds_marks(iod) &&
		    mgr_resync_source_ok(st, o))
			best = (int)k;
	}
	return best;
}

struct rs_pick {
	const struct mgr_stale *st;
	int from;
};

/* A stale copy whose iod holds its set, with a fresh copy to read, and
 * no job out for it. */
static int
rs_pick_one(const struct mgr_stale *st, void *arg)
{
	struct rs_pick *p = arg;
	const struct mgr_inode *in = mgr_ns_get(st->ino);
	struct rs_job *j = rs_job_find(st->ino, st->rel, st->copy);
	uint32_t iod = mgr_mirror_iod(&in->dist, st->rel, st->copy);

	if (j != NULL && j->until_ms > pvfs_mono_ms())
		return 0;
	if (!mgr_iods_ok(iod) || !rs_holds_marks(iod) ||
	    pvfs_mono_ms() - rs_iods[iod].acked_ms < RS_SETTLE_MS)
		return 0;
	if ((p->from = rs_fresh_copy(in, st)) < 0)
		return 0;
	p->st = st;
	return 1;
}

static int
rs_next(struct mgr_conn *c, struct pvfs_mgr_resync_rep *rep)
{
	struct rs_pick p = { NULL, -1 };
	struct mgr_inode *in;
	const struct mgr_stale *st;

	rs_init_iods();
	if (mgr_mirror_walk_from(&rs_cursor, rs_pick_one, &p) == 0) {
		rep->wait_ms = RS_WAIT_MS;
		return 0;
	}
	st = p.st;
	in = mgr_ns_get(st->ino);
	rep->ino = st->ino;
	rep->gen = st->gen;
	rep->rel = st->rel;
	rep->copy = st->copy;
	rep->from = (uint32_t)p.from;
	rep->dgen = st->dgen;
	rep->flags = (st->whole ? PVFS_RESYNC_WHOLE : 0) |
	    (st->size ? PVFS_RESYNC_SIZE : 0) |
	    (mgr_mirror_find(st->ino, st->gen, st->rel, (uint32_t)p.from) !=
	    NULL ? PVFS_RESYNC_STALE_FROM : 0);
	rep->next = st->next;
	if (st->next > 0) /* a whole copy has no ranges (and no array) */
		memcpy(rs_exts, mgr_mirror_extents(st),
		    st->next * sizeof(*rs_exts));
	rep->exts = rs_exts;
	mgr_size_dirty(in); /* a copy's size may change (mgr-size.c) */
	mgr_cap_mint(st->ino, st->gen, PVFS_R_READ | PVFS_R_WRITE | PVFS_R_SIZE |
	    PVFS_R_RESYNC, &in->dist, &rep->cap);
	rs_job_add(st->ino, st->rel, st->copy, c);
	return 0;
}

static int
rs_done(const struct pvfs_mgr_resync_req *q, int ok)
{
	const struct mgr_stale *st = mgr_mirror_find(q->ino, q->gen, q->rel,
	    q->copy);
	const struct mgr_inode *in;
	struct mgr_rec r;

	if (!ok)
		rs_job_failed(q->ino, q->rel, q->copy);
	else
		rs_job_drop(q->ino, q->rel, q->copy);
	if (st == NULL) {
		rs_job_drop(q->ino, q->rel, q->copy);
		return ENOENT;
	}
	if (!ok)
		return 0;
	rs_jobs_done++;
	rs_bytes_done += q->bytes;
	if (st->dgen != q->dgen)
		return 0; /* written again meanwhile: the job comes again */
	in = mgr_ns_get(q->ino);
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_CLEAN;
	r.ino = q->ino;
	r.gen = q->gen;
	r.rel = q->rel;
	r.copy = q->copy;
	r.dgen = q->dgen;
	mgr_journal_log(&r);
	mgr_size_dirty(mgr_ns_get(q->ino)); /* the copy is read from now on */
	rs_change(mgr_mirror_iod(&in->dist, q->rel, q->copy), q->ino, q->gen,
	    q->rel, q->copy, 1);
	return 0;
}

/* The counts every answer carries: kept by mgr-mirror.c as they change. */
static void
rs_counts(struct pvfs_mgr_resync_rep *rep)
{
	mgr_mirror_counts(&rep->degraded, &rep->stale, &rep->bytes_left);
	rep->jobs = rs_jobs_done;
	rep->bytes_done = rs_bytes_done;
	rep->dirty_reports = rs_reports;
}

/* The stale copies after q->after, whole files only, in inode order (a
 * file is never split across answers, unless it alone has more than an
 * answer holds): from the cursor, one page's files, not all of them. */
static int
rs_list(const struct pvfs_mgr_resync_req *q, struct pvfs_mgr_resync_rep *rep)
{
	const struct mgr_inode *in;
	const struct mgr_stale *st;
	struct pvfs_stale_wire *w;
	uint64_t ino = q->after;
	uint32_t n = 0, rel, k, copies;

	rep->eof = 1;
	rep->n = 0;
	rep->list = rs_wire;
	while ((ino = mgr_mirror_next_file(ino)) != 0) {
		if ((in = mgr_ns_get(ino)) == NULL || !MGR_IS_REG(in))
			continue;
		copies = mgr_mirror_copies(&in->dist);
		for (rel = 0; rel < in->dist.pcount; rel++) {
			for (k = 0; k < copies; k++) {
				if ((st = mgr_mirror_find(ino, in->gen, rel,
				    k)) == NULL)
					continue;
				if (n == PVFS_RESYNC_LIST_MAX) {
					rep->eof = 0;
					/* this file comes whole in the next,
					 * unless it alone fills one: cut */
					if (rep->n == 0)
						rep->n = n;
					return 0;
				}
				w = &rs_wire[n++];
				memset(w, 0, sizeof(*w));
				w->ino = st->ino;
				w->gen = st->gen;
				w->rel = st->rel;
				w->copy = st->copy;
				w->iod = mgr_mirror_iod(&in->dist, rel, k);
				w->bytes = st->bytes;
				w->flags = (st->whole ? PVFS_RESYNC_WHOLE : 0) |
				    (st->size ? PVFS_RESYNC_SIZE : 0);
			}
		}
		rep->n = n; /* whole files so far */
	}
	rep->n = n;
	return 0;
}

struct rs_lost {
	uint32_t iod;
	struct pvfs_mgr_resync_rep *rep;
};

/* An unmirrored file with a stripe on the rebuilt iod: its bytes there
 * are gone. */
static int
rs_lost_one(const struct mgr_inode *in, void *arg)
{
	struct rs_lost *l = arg;
	struct pvfs_stale_wire *w;
	uint32_t rel;

	if (!MGR_IS_REG(in) || mgr_mirror_copies(&in->dist) > 1)
		return 0;
	for (rel = 0; rel < in->dist.pcount; rel++) {
		if (mgr_mirror_iod(&in->dist, rel, 0) != l->iod)
			continue;
		if (l->rep->n == PVFS_RESYNC_LIST_MAX) {
			l->rep->eof = 0;
			return 0;
		}
		w = &rs_wire[l->rep->n++];
		memset(w, 0, sizeof(*w));
		w->ino = in->ino;
		w->gen = in->gen;
		w->rel = rel;
		w->copy = UINT32_MAX;
		w->iod = l->iod;
		return 0;
	}
	return 0;
}

static int
rs_rebuild(const struct pvfs_mgr_resync_req *q, struct pvfs_mgr_resync_rep *rep)
{
	struct rs_lost l = { q->index, rep };
	struct mgr_rec r;

	if (q->index >= mgr.niods)
		return EINVAL;
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_REBUILD;
	r.rel = q->index;
	r.time = pvfs_now_ns();
	mgr_journal_log(&r);
	rs_reset(q->index);
	rep->list = rs_wire;
	rep->eof = 1;
	mgr_ns_walk(rs_lost_one, &l);
	pvfs_log_info("iod %u: rebuild: every mirrored copy on it is stale; %u "
	    "unmirrored files had stripes there", q->index, rep->n);
	return 0;
}

void
mgr_resync_rebuild_auto(uint32_t index)
{
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;

	memset(&q, 0, sizeof(q));
	memset(&rep, 0, sizeof(rep));
	q.index = index;
	if (rs_rebuild(&q, &rep) == 0)
		mgr_journal_commit(); /* durable before the uuid is kept */
}

static int
rs_allowed(const struct pvfs_cred *cr)
{
	return cr->uid == 0 ||
	    (cr->uid == (uint32_t)geteuid() && cr->uid != MGR_NOBODY);
}

int
mgr_resync_op(struct mgr_conn *c, void *rq, void *rp)
{
	struct pvfs_mgr_resync_req *q = rq;
	struct pvfs_mgr_resync_rep *rep = rp;
	int rc;

	if (!rs_allowed(&q->cred) && q->what != PVFS_RESYNC_STATUS)
		return EPERM;
	switch (q->what) {
	case PVFS_RESYNC_NEXT:
		rc = rs_next(c, rep);
		break;
	case PVFS_RESYNC_DONE:
	case PVFS_RESYNC_FAILED:
		rc = rs_done(q, q->what == PVFS_RESYNC_DONE);
		break;
	case PVFS_RESYNC_REBUILD:
		rc = rs_rebuild(q, rep);
		break;
	case PVFS_RESYNC_LIST:
		rc = rs_list(q, rep);
		break;
	case PVFS_RESYNC_STATUS:
		rc = 0;
		break;
	default:
		return EINVAL;
	}
	if (rc == 0)
		rs_counts(rep);
	return rc;
}

static void
rs_timer_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)loop;
	(void)w;
	(void)revents;
	rs_check_waits();
}

/* ---- the worker ---- */

static void
rs_child_cb(struct ev_loop *loop, ev_child *w, int revents)
{
	int st = w->rstatus;

	(void)revents;
	ev_child_stop(loop, w);
	rs_pid = 0;
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		rs_next_spawn_ms = pvfs_mono_ms();
		return;
	}
	pvfs_log_warn("resync worker %d %s %d; started again in %d s", w->rpid,
	    WIFEXITED(st) ? "exited with" : "killed by signal",
	    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
	    RS_RESPAWN_FAIL_MS / 1000);
	rs_next_spawn_ms = pvfs_mono_ms() + RS_RESPAWN_FAIL_MS;
}

static void
rs_spawn(void)
{
	pid_t pid;

	if ((pid = fork()) == -1) {
		pvfs_log_error("resync worker: fork: %s", strerror(errno));
		rs_next_spawn_ms = pvfs_mono_ms() + RS_RESPAWN_FAIL_MS;
		return;
	}
	if (pid == 0) {
		sigset_t none;

		/* the loop's blocked signals must not outlive the exec */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		setenv("PVFSTAB_FILE", rs_tab, 1);
		execl(rs_cmd, rs_cmd, "/resync", (char *)NULL);
		fprintf(stderr, "pvfs-mgr: %s: %s\n", rs_cmd, strerror(errno));
		_exit(127);
	}
	rs_pid = pid;
	ev_child_set(&rs_child, pid, 0);
	ev_child_start(rs_loop, &rs_child);
	pvfs_log_info("resync worker %d started (%s)", (int)pid, rs_cmd);
}

static void
rs_spawn_cb(struct ev_loop *loop, ev_timer *w, int revents)
{
	struct rs_pick p = { NULL, -1 };

	(void)loop;
	(void)w;
	(void)revents;
	if (rs_pid != 0 || rs_cmd[0] == '\0' ||
	    pvfs_mono_ms() < rs_next_spawn_ms)
		return;
	rs_init_iods();
	if (mgr_mirror_walk_from(&rs_cursor, rs_pick_one, &p) != 0)
		rs_spawn();
}

/* The worker's pvfstab: this mgr, by its Unix socket if it has one. */
static int
rs_write_tab(const char *sock)
{
	char tmp[PATH_MAX + 8];
	FILE *f;

	if (snprintf(rs_tab, sizeof(rs_tab), "%s/resync.pvfstab",
	    mgr.metadir) >= (int)sizeof(rs_tab))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", rs_tab);
	if ((f = fopen(tmp, "w")) == NULL)
		return -1;
	fprintf(f, "# written by pvfs-mgr for its resync worker\n"
	    "127.0.0.1:%s /resync pvfs port=%s%s%s 0 0\n", mgr.metadir,
	    mgr.bound_port != NULL ? mgr.bound_port : "3000",
	    sock != NULL ? ",sock=" : "", sock != NULL ? sock : "");
	if (fclose(f) != 0 || rename(tmp, rs_tab) != 0)
		return -1;
	return 0;
}

/* cmd: --resync-cmd; NULL: pvfs-resync beside this program; "" none. */
static void
rs_find_cmd(const char *cmd)
{
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (cmd != NULL) {
		snprintf(rs_cmd, sizeof(rs_cmd), "%s", cmd);
		return;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) <= 0)
		return;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return;
	*slash = '\0';
	if (snprintf(rs_cmd, sizeof(rs_cmd), "%s/pvfs-resync", self) >=
	    (int)sizeof(rs_cmd) || access(rs_cmd, X_OK) != 0) {
		pvfs_log_warn("%s: %s: stale copies will wait for pvfs-resync "
		    "run by hand (or give --resync-cmd)", rs_cmd, strerror(errno));
		rs_cmd[0] = '\0';
	}
}

void
mgr_resync_start(struct ev_loop *loop, const char *cmd, const char *sock)
{
	rs_loop = loop;
	rs_start_ms = pvfs_mono_ms();
	rs_init_iods();
	ev_init(&rs_timer, rs_timer_cb);
	ev_child_init(&rs_child, rs_child_cb, 0, 0);
	rs_find_cmd(cmd);
	if (rs_cmd[0] != '\0' && rs_write_tab(sock) != 0) {
		pvfs_log_error("%s/resync.pvfstab: %s: no automatic resync",
		    mgr.metadir, strerror(errno));
		rs_cmd[0] = '\0';
	}
	if (rs_cmd[0] != '\0' && sock == NULL)
		pvfs_log_warn("no Unix socket (-u): the resync worker reaches the "
		    "mgr by TCP, where only --anonymous trust lets it act as "
		    "an admin");
	ev_timer_init(&rs_spawn_timer, rs_spawn_cb, RS_SPAWN_S, RS_SPAWN_S);
	ev_timer_start(loop, &rs_spawn_timer);
}

void
mgr_resync_stop(void)
{
	struct rs_wait *w;
	uint32_t i;

	if (rs_loop != NULL) {
		ev_timer_stop(rs_loop, &rs_timer);
		ev_timer_stop(rs_loop, &rs_spawn_timer);
		ev_child_stop(rs_loop, &rs_child);
	}
	if (rs_pid != 0)
		kill(rs_pid, SIGTERM); /* it starts over with the next mgr */
	rs_pid = 0;
	while ((w = TAILQ_FIRST(&rs_waits)) != NULL)
		rs_wait_free(w);
	for (i = 0; rs_iods != NULL && i < mgr.niods; i++)
		free(rs_iods[i].log);
	free(rs_iods);
	free(rs_jobs);
	rs_iods = NULL;
	rs_jobs = NULL;
	rs_njobs = rs_jobs_cap = 0;
}
