/*
 * iod-mirror.c - fencing of mirrored files' copies at the iod
 * (doc/design.md, "Mirrored files").
 *
 * The mgr tells the iod which of its copies are stale (IOD_STALE, over
 * its HELLO connection) and grants a mirror lease with each HELLO, valid
 * only while the iod holds the set version the HELLO names.  A read of a
 * copy of a mirrored file is served only under the lease and if the copy
 * is not stale; otherwise ENODATA sends the client to another copy.
 * Writes to a stale copy are taken (their bytes are the newest) and their
 * local ranges kept, so that a resync (an IOD_WRITE under a capability
 * with PVFS_R_RESYNC) leaves them alone.  A resync write is refused
 * (ESTALE) for a copy that is not stale, or that became stale here after
 * the resync's capability was minted: the bytes it carries may have been
 * read before a client's write this iod did not record (a restart loses
 * the set and its ranges).  Nothing here is durable: an iod that starts
 * has no lease and no set until the mgr's next HELLO.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iod.h"

#define IM_HASH_MIN 1024u /* buckets; doubled while copies outnumber them */
#define IM_RANGES_MAX 1024u  /* client-written ranges kept per copy */

struct im_copy {
	struct im_copy *hnext;
	uint64_t ino, gen;
	uint32_t rel, copy;
	uint64_t epoch;          /* the set transfer that listed it last */
	int64_t since_s;         /* stale here since (mgr clock, seconds) */
	uint64_t marked;         /* im_seq when the mark came */
	struct pvfs_extent *w;   /* ranges clients wrote since, sorted */
	uint32_t nw, wcap;
};

static struct im_copy **im_tab;
static size_t im_nhash, im_count;
static uint64_t im_version;  /* of the complete set held; 0: none */
static uint64_t im_epoch;
static int im_in_set;        /* between PVFS_STALE_SET and _END */
static int64_t im_lease_until; /* monotonic ms */
static uint64_t im_seq;      /* orders connections' opening and marks */

static size_t
im_hash(uint64_t ino, uint32_t rel, uint32_t copy)
{
	uint64_t h = (ino * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)rel << 8) ^ copy;

	return (size_t)((h ^ (h >> 29)) & (im_nhash - 1));
}

/* The table grows with the set (a rebuild marks every copy an iod holds),
 * so a lookup stays a few steps. */
static void
im_grow(void)
{
	struct im_copy **old = im_tab, *m;
	size_t oldn = im_nhash, h, i;

	if (im_tab != NULL && im_count <= im_nhash * 2)
		return;
	im_nhash = im_tab == NULL ? IM_HASH_MIN : im_nhash * 2;
	if ((im_tab = calloc(im_nhash, sizeof(*im_tab))) == NULL)
		pvfs_fatal("out of memory (stale copies)");
	for (i = 0; i < oldn; i++) {
		while ((m = old[i]) != NULL) {
			old[i] = m->hnext;
			h = im_hash(m->ino, m->rel, m->copy);
			m->hnext = im_tab[h];
			im_tab[h] = m;
		}
	}
	free(old);
}

static struct im_copy **
im_slot(uint64_t ino, uint32_t rel, uint32_t copy)
{
	struct im_copy **pp;

	im_grow();
	pp = &im_tab[im_hash(ino, rel, copy)];

	while (*pp != NULL && ((*pp)->ino != ino || (*pp)->rel != rel ||
	    (*pp)->copy != copy))
		pp = &(*pp)->hnext;
	return pp;
}

static struct im_copy *
im_find(uint64_t ino, uint64_t gen, uint32_t rel, uint32_t copy)
{
	struct im_copy *m = *im_slot(ino, rel, copy);

	return m != NULL && m->gen == gen ? m : NULL;
}

static void
im_drop(struct im_copy **pp)
{
	struct im_copy *m = *pp;

	*pp = m->hnext;
	free(m->w);
	free(m);
	im_count--;
}

static void
im_mark(const struct pvfs_stale_ent *e, uint32_t flags)
{
	struct im_copy **pp = im_slot(e->ino, e->rel, e->copy), *m;

	if (*pp != NULL && (flags & PVFS_STALE_CLEAR || (*pp)->gen != e->gen))
		im_drop(pp);
	if (flags & PVFS_STALE_CLEAR)
		return;
	if ((m = *pp) == NULL) {
		if ((m = calloc(1, sizeof(*m))) == NULL)
			pvfs_fatal("out of memory (stale copy)");
		m->ino = e->ino;
		m->gen = e->gen;
		m->rel = e->rel;
		m->copy = e->copy;
		m->since_s = iod_label_now();
		m->marked = ++im_seq;
		*pp = m;
		im_count++;
	}
	m->epoch = im_epoch;
}

/* The end of a whole set: copies it did not list are fresh again. */
static void
im_sweep(void)
{
	struct im_copy **pp;
	size_t h;

	for (h = 0; h < im_nhash; h++) {
		for (pp = &im_tab[h]; *pp != NULL;) {
			if ((*pp)->epoch != im_epoch)
				im_drop(pp);
			else
				pp = &(*pp)->hnext;
		}
	}
}

/* IOD_STALE: only the mgr mints PVFS_R_MIRROR. */
int
iod_mirror_stale(struct iod_conn *c, union iod_req *req, union iod_rep *rep)
{
	const struct pvfs_iod_stale_req *r = &req->stale;
	int64_t now = iod_label_now();
	uint32_t i;
	int why;

	(void)c;
	(void)rep;
	if (pvfs_cap_check(&r->cap, iod.key, iod.keylen, PVFS_R_MIRROR, now,
	    iod.label.fsid, &why) != 0) {
		iod_op_cap_log(&r->cap, why, now);
		return EACCES;
	}
	if (r->flags & ~(PVFS_STALE_SET | PVFS_STALE_END | PVFS_STALE_CLEAR))
		return EINVAL;
	if (!(r->flags & PVFS_STALE_SET) && r->base != 0) {
		/* A change: only on top of the version it was made from (not
		 * on a set cut short).  The lease stays: the set gains marks
		 * not answered for yet, or loses copies the mgr made fresh. */
		if (im_in_set || im_version == 0 || r->base != im_version ||
		    r->flags & PVFS_STALE_END)
			return ESTALE;
		for (i = 0; i < r->n; i++)
			im_mark(&r->ents[i], r->flags);
		im_version = r->version;
		return 0;
	}
	if (r->flags & PVFS_STALE_SET) {
		im_epoch++;
		im_in_set = 1;
	}
	if (r->flags & PVFS_STALE_CLEAR)
		return EINVAL;
	im_version = 0; /* no lease until the whole set is here */
	im_lease_until = 0;
	for (i = 0; i < r->n; i++)
		im_mark(&r->ents[i], r->flags);
	if (im_in_set && !(r->flags & PVFS_STALE_END))
		return 0;
	if (im_in_set) {
		im_sweep();
		iod_intent_set_taken();
	}
	im_in_set = 0;
	im_version = r->version;
	return 0;
}

/* HELLO (key and label verified): grant the lease if we hold the set it
 * names, for lease_ms from now and never past the HELLO's own time plus
 * lease_ms on the mgr's clock as known before it (a HELLO that waited in
 * a buffer, behind a stopped iod, grants little or nothing).  The reply
 * says which set we hold. */
void
iod_mirror_hello(const struct pvfs_iod_hello_req *r, int64_t mgr_now_ns,
    struct pvfs_iod_hello_rep *h)
{
	int64_t now = pvfs_mono_ms(), left;

	h->stale_version = im_version;
	if (iod_intent_unclean()) {
		h->flags |= PVFS_HELLO_UNCLEAN; /* mgr-iods.c marks us */
		iod_intent_reported();
	}
	if (im_version == 0 || r->stale_version != im_version) {
		im_lease_until = 0; /* the mgr knows of marks we lack */
		return;
	}
	left = (r->mgr_ns - mgr_now_ns) / 1000000 + r->lease_ms;
	if (left > (int64_t)r->lease_ms)
		left = r->lease_ms;
	if (left <= 0)
		return;
	im_lease_until = now + left;
	h->flags |= PVFS_HELLO_LEASE;
}

/* May copy `copy` of part rel of cap's file be read here?  A resync may
 * read a stale copy too: the mgr sends it only to ranges that copy did
 * not miss (both copies of a part may each have missed some writes). */
int
iod_mirror_read_ok(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy)
{
	if (cap->dist.copies <= 1)
		return 0;
	if (pvfs_mono_ms() >= im_lease_until || iod_intent_unclean())
		return ENODATA;
	if (cap->rights & PVFS_R_RESYNC)
		return 0;
	return im_find(cap->ino, cap->gen, rel, copy) != NULL ? ENODATA : 0;
}

/* May a resync whose capability was minted at `minted` write m?  Not a
 * fresh copy, nor one stale here since the mint (see the top). */
static int
im_resync_ok(const struct im_copy *m, int64_t minted)
{
	return m != NULL && m->since_s < minted ? 0 : ESTALE;
}

/* A write's plan (iod_xfer's mw): the copy it writes, not its stale
 * record, which iod_mirror_pwrite looks up at every flush (the set can
 * change between wake-ups).  ESTALE refuses a resync write. */
int
iod_mirror_write_start(const struct pvfs_cap *cap, uint32_t rel,
    uint32_t copy, struct iod_mirror_w *w)
{
	memset(w, 0, sizeof(*w));
	if (cap->dist.copies <= 1)
		return cap->rights & PVFS_R_RESYNC ? ESTALE : 0;
	w->on = 1;
	w->ino = cap->ino;
	w->gen = cap->gen;
	w->rel = rel;
	w->copy = copy;
	w->resync = (cap->rights & PVFS_R_RESYNC) != 0;
	w->minted = cap->expiry - PVFS_CAP_LIFETIME;
	if (!w->resync)
		return 0;
	return im_resync_ok(im_find(w->ino, w->gen, rel, copy), w->minted);
}

/* Keep [off, off + len) as written by a client. */
static void
im_wrote(struct im_copy *m, uint64_t off, uint64_t len)
{
	uint64_t end = off + len;
	uint32_t i, j;
	struct pvfs_extent *e;

	for (i = 0; i < m->nw && m->w[i].offset + m->w[i].length < off; i++)
		;
	for (j = i; j < m->nw && m->w[j].offset <= end; j++) {
		if (m->w[j].offset < off)
			off = m->w[j].offset;
		if (m->w[j].offset + m->w[j].length > end)
			end = m->w[j].offset + m->w[j].length;
	}
	if (j == i && m->nw == m->wcap) {
		if (m->wcap == IM_RANGES_MAX) {
			/* Forget them: stale anew from now, so that a resync
			 * minted before (which may have read older bytes) is
			 * refused and a later one reads these. */
			m->nw = 0;
			m->since_s = iod_label_now();
			i = j = 0;
		} else {
			m->wcap = m->wcap ? m->wcap * 2 : 8;
			if ((e = realloc(m->w, m->wcap * sizeof(*e))) == NULL)
				pvfs_fatal("out of memory (written ranges)");
			m->w = e;
		}
	}
	memmove(&m->w[i + 1], &m->w[j], (m->nw - j) * sizeof(*m->w));
	m->nw = m->nw - (j - i) + 1;
	m->w[i].offset = off;
	m->w[i].length = end - off;
}

/* A connection opens: its place among the marks (iod_mirror_pwrite). */
uint64_t
iod_mirror_conn_seq(void)
{
	return ++im_seq;
}

/* One run of a write to a copy of a mirrored file: a client's is written
 * and, if the copy is stale now, kept, unless its connection opened
 * before the mark (ECONNABORTED: the caller closes it unwritten); a
 * resync's is written except where
 * clients wrote, and refused as at its start if the copy's state changed
 * since. */
int
iod_mirror_pwrite(const struct iod_mirror_w *w, int fd, const uint8_t *buf,
    uint64_t len, uint64_t off)
{
	struct im_copy *m = im_find(w->ino, w->gen, w->rel, w->copy);
	uint64_t end = off + len, a, b;
	uint32_t i;
	int err;

	if (!w->resync) {
		/* A request on a connection older than the mark may have
		 * been sent before it: a client that timed out, reported the
		 * copy dirty and went on, its write landing late.  Kept as a
		 * client's it would outlive the resync and leave the copies
		 * different; written unkept it could undo a newer client's
		 * bytes that are kept.  Closed unwritten, a pooled connection
		 * is retried on a new one, and any other is a copy lost to
		 * the writer, which reports it (design.md). */
		if (m != NULL && w->conn < m->marked)
			return ECONNABORTED;
		if ((err = iod_intent_note(w->ino, w->gen, w->rel,
		    w->copy)) != 0)
			return err;
		err = iod_xfer_pwrite(fd, buf, len, off);
		if (err == 0 && m != NULL)
			im_wrote(m, off, len);
		return err;
	}
	if ((err = im_resync_ok(m, w->minted)) != 0)
		return err;
	for (i = 0, a = off; a < end; i++) {
		while (i < m->nw && m->w[i].offset + m->w[i].length <= a)
			i++;
		b = i < m->nw && m->w[i].offset < end ? m->w[i].offset : end;
		if (b > a && (err = iod_xfer_pwrite(fd, buf + (a - off), b - a,
		    a)) != 0)
			return err;
		if (b >= end)
			break;
		a = m->w[i].offset + m->w[i].length; /* skip the client's bytes */
	}
	return 0;
}

/* A client truncated the copy to local bytes: if it is stale here, what
 * clients wrote past that is gone (a resync must not keep the size of
 * it), and a resync minted before may carry bytes read before the
 * truncate: stale anew from now. */
void
iod_mirror_truncated(const struct pvfs_cap *cap, uint32_t rel, uint32_t copy,
    uint64_t local)
{
	struct im_copy *m = cap->dist.copies > 1 ?
	    im_find(cap->ino, cap->gen, rel, copy) : NULL;
	uint32_t n;

	if (m == NULL)
		return;
	for (n = 0; n < m->nw && m->w[n].offset < local; n++)
		if (m->w[n].offset + m->w[n].length > local)
			m->w[n].length = local - m->w[n].offset;
	m->nw = n;
	m->since_s = iod_label_now();
}

/* A copy written by a resync is also given its size (IOD_TRUNCATE under
 * PVFS_R_RESYNC): refused as a write would be, and never below the end
 * of what clients wrote to it meanwhile (*local raised). */
int
iod_mirror_resync_size(const struct pvfs_cap *cap, uint32_t rel,
    uint32_t copy, uint64_t *local)
{
	struct im_copy *m = im_find(cap->ino, cap->gen, rel, copy);
	uint64_t end;
	int err;

	if ((err = im_resync_ok(m, cap->expiry - PVFS_CAP_LIFETIME)) != 0)
		return err;
	if (m->nw > 0) {
		end = m->w[m->nw - 1].offset + m->w[m->nw - 1].length;
		if (end > *local)
			*local = end;
	}
	return 0;
}
