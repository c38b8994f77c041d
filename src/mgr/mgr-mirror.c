/*
 * mgr-mirror.c - which copies of mirrored files are stale, and where
 * (doc/design.md, "Mirrored files").
 *
 * A stale copy is one (file, rel, copy) with the local byte ranges it
 * misses (sorted, disjoint, never adjacent), or "whole" (a rebuilt iod,
 * or a truncate it missed: every byte), and a flag when its size may
 * differ.  Its dirty generation
 * changes with every DIRTY record applied to it: a resync job reports the
 * one it started from, and only an unchanged one makes the copy clean.
 * Generations come from one mgr-wide counter that never goes back, not
 * per copy (a copy cleaned and dirtied again would count from 1 again,
 * and a very late DONE could clean it): above every one applied, and at
 * least the wall clock in ns (a restart forgets the cleaned ones).  Nothing
 * here touches the disk: DIRTY, CLEAN and REBUILD records come through
 * mgr_ns_apply() live and at replay alike, and a snapshot holds one DIRTY
 * record per range.  Entries of files that went away are dropped lazily
 * (the name space owns identities; a lookup checks the gen).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mgr.h"

#define MM_HASH_MIN 1024u     /* buckets, doubled while entries outnumber
				 * them twice (a rebuild marks many) */
#define MM_EXT_MAX 256u       /* ranges per copy before close ones merge */

struct mm_copy {
	struct mm_copy *hnext;
	struct mgr_stale st;
	struct pvfs_extent *ext;
	uint32_t ext_cap;
};

/* A file with stale copies: how many, so that the counts every
 * MGR_RESYNC answer carries are kept as they change, not walked; and in
 * a skip list by inode, so that a LIST page starts where the last ended
 * (mgr_mirror_next_file) instead of sorting them all. */
#define MM_SKIP_MAX 24
struct mm_file {
	struct mm_file *hnext;
	uint64_t ino;
	uint32_t n;
	uint32_t level;
	struct mm_file *fwd[];  /* level of them */
};

static struct mm_copy **mm_tab;
static size_t mm_nhash;
static struct mm_file **mm_ftab;
static size_t mm_nfhash;
static uint64_t mm_count, mm_files, mm_bytes_all;
static struct mm_file *mm_skip[MM_SKIP_MAX]; /* the skip list's head */
static uint32_t mm_skip_level = 1;
static uint64_t mm_skip_rand = 0x2545f4914f6cdd1dull;
static uint64_t mm_dgen;      /* the highest dirty generation applied */

static size_t
mm_hash(uint64_t ino, uint32_t rel, uint32_t copy)
{
	uint64_t h = (ino * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)rel << 8) ^ copy;

	return (size_t)((h ^ (h >> 29)) & (mm_nhash - 1));
}

static size_t
mm_fhash(uint64_t ino)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ull;

	return (size_t)((h ^ (h >> 29)) & (mm_nfhash - 1));
}

/* Both tables grow with what they hold (never shrink: a rebuild's size
 * comes again). */
static void
mm_grow(void)
{
	struct mm_copy **old = mm_tab, *m;
	struct mm_file **fold = mm_ftab, *f;
	size_t n = mm_nhash, i, h;

	if (mm_tab == NULL || mm_count > mm_nhash * 2) {
		mm_nhash = mm_tab == NULL ? MM_HASH_MIN : mm_nhash * 2;
		if ((mm_tab = calloc(mm_nhash, sizeof(*mm_tab))) == NULL)
			pvfs_fatal("out of memory (stale copies)");
		for (i = 0; i < n; i++) {
			while ((m = old[i]) != NULL) {
				old[i] = m->hnext;
				h = mm_hash(m->st.ino, m->st.rel, m->st.copy);
				m->hnext = mm_tab[h];
				mm_tab[h] = m;
			}
		}
		free(old);
	}
	n = mm_nfhash;
	if (mm_ftab == NULL || mm_files > mm_nfhash * 2) {
		mm_nfhash = mm_ftab == NULL ? MM_HASH_MIN : mm_nfhash * 2;
		if ((mm_ftab = calloc(mm_nfhash, sizeof(*mm_ftab))) == NULL)
			pvfs_fatal("out of memory (stale copies)");
		for (i = 0; i < n; i++) {
			while ((f = fold[i]) != NULL) {
				fold[i] = f->hnext;
				h = mm_fhash(f->ino);
				f->hnext = mm_ftab[h];
				mm_ftab[h] = f;
			}
		}
		free(fold);
	}
}

/* The last node of each level before inode ino (NULL: the head). */
static void
mm_skip_find(uint64_t ino, struct mm_file **upd)
{
	struct mm_file *x = NULL, *nx;
	uint32_t i = mm_skip_level;

	while (i-- > 0) {
		while ((nx = x == NULL ? mm_skip[i] : x->fwd[i]) != NULL &&
		    nx->ino < ino)
			x = nx;
		upd[i] = x;
	}
}

static void
mm_skip_link(struct mm_file *f, int in)
{
	struct mm_file *upd[MM_SKIP_MAX], **pp;
	uint32_t i;

	mm_skip_find(f->ino, upd);
	for (i = 0; i < f->level; i++) {
		if (i >= mm_skip_level)
			upd[i] = NULL; /* a new level starts at the head */
		pp = upd[i] == NULL ? &mm_skip[i] : &upd[i]->fwd[i];
		if (in) {
			f->fwd[i] = *pp;
			*pp = f;
		} else if (*pp == f)
			*pp = f->fwd[i];
	}
	if (in && f->level > mm_skip_level)
		mm_skip_level = f->level;
}

/* A stale copy of file ino more (d 1) or less (d -1). */
static void
mm_file_count(uint64_t ino, int d)
{
	struct mm_file **pp = &mm_ftab[mm_fhash(ino)], *f;
	uint32_t level = 1;
	uint64_t x;

	while (*pp != NULL && (*pp)->ino != ino)
		pp = &(*pp)->hnext;
	if ((f = *pp) == NULL) {
		if (d < 0)
			return;
		x = mm_skip_rand; /* xorshift: a level per node, p = 1/4 */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		mm_skip_rand = x;
		while (level < MM_SKIP_MAX && (x & 3) == 0) {
			level++;
			x >>= 2;
		}
		if ((f = calloc(1, sizeof(*f) + level * sizeof(f->fwd[0]))) ==
		    NULL)
			pvfs_fatal("out of memory (stale copies)");
		f->ino = ino;
		f->level = level;
		*pp = f;
		mm_skip_link(f, 1);
		mm_files++;
	}
	if (d > 0)
		f->n++;
	else if (--f->n == 0) {
		*pp = f->hnext;
		mm_skip_link(f, 0);
		free(f);
		mm_files--;
	}
}

/* The lowest inode above after with a stale copy, 0 if none: LIST's
 * cursor, O(log files). */
uint64_t
mgr_mirror_next_file(uint64_t after)
{
	struct mm_file *upd[MM_SKIP_MAX], *f;

	if (after == UINT64_MAX)
		return 0;
	mm_skip_find(after + 1, upd);
	f = upd[0] == NULL ? mm_skip[0] : upd[0]->fwd[0];
	return f != NULL ? f->ino : 0;
}

/* Copy k of relative position rel: iod (base + rel + k * mshift) mod N. */
uint32_t
mgr_mirror_iod(const struct pvfs_dist *d, uint32_t rel, uint32_t copy)
{
	return pvfs_stripe_copy_abs(d, rel, copy, mgr.niods ? mgr.niods : 1);
}

uint32_t
mgr_mirror_copies(const struct pvfs_dist *d)
{
	return pvfs_dist_copies(d);
}

static struct mm_copy *
mm_find(uint64_t ino, uint32_t rel, uint32_t copy)
{
	struct mm_copy *m;

	if (mm_tab == NULL)
		return NULL;
	for (m = mm_tab[mm_hash(ino, rel, copy)]; m != NULL; m = m->hnext) {
		if (m->st.ino == ino && m->st.rel == rel && m->st.copy == copy)
			return m;
	}
	return NULL;
}

static void
mm_unlink(struct mm_copy *m)
{
	struct mm_copy **pp = &mm_tab[mm_hash(m->st.ino, m->st.rel, m->st.copy)];

	while (*pp != m)
		pp = &(*pp)->hnext;
	*pp = m->hnext;
	mm_file_count(m->st.ino, -1);
	mm_bytes_all -= m->st.bytes;
	free(m->ext);
	free(m);
	mm_count--;
}

/* The stale copy if its file still is the one it was made for and is
 * there (an entry of a gone file is left for a walk to drop). */
const struct mgr_stale *
mgr_mirror_find(uint64_t ino, uint64_t gen, uint32_t rel, uint32_t copy)
{
	struct mm_copy *m = mm_find(ino, rel, copy);
	struct mgr_inode *in;

	if (m == NULL || m->st.gen != gen || (in = mgr_ns_get(ino)) == NULL ||
	    !MGR_IS_REG(in) || in->gen != gen)
		return NULL;
	return &m->st;
}

/* The fence the report that marked st waits for (mgr-resync.c). */
void
mgr_mirror_set_fence(const struct mgr_stale *st, uint64_t version,
    int64_t bound_ms, int64_t since_ms)
{
	struct mm_copy *m = mm_find(st->ino, st->rel, st->copy);

	if (m == NULL || &m->st != st)
		return;
	m->st.fence_version = version;
	m->st.fence_bound_ms = bound_ms;
	m->st.fence_since_ms = since_ms;
}

/* The ranges may grow past MM_EXT_MAX: merge the two neighbours with the
 * smallest gap (bytes resynced twice cost less than memory without a
 * bound). */
static void
mm_cap(struct mm_copy *m)
{
	struct pvfs_extent *e = m->ext;
	uint32_t i, best = 0;
	uint64_t gap = UINT64_MAX;

	while (m->st.next > MM_EXT_MAX) {
		for (i = 0; i + 1 < m->st.next; i++) {
			if (e[i + 1].offset - (e[i].offset + e[i].length) < gap) {
				gap = e[i + 1].offset - (e[i].offset + e[i].length);
				best = i;
			}
		}
		e[best].length = e[best + 1].offset + e[best + 1].length -
		    e[best].offset;
		memmove(&e[best + 1], &e[best + 2], (m->st.next - best - 2) *
		    sizeof(*e));
		m->st.next--;
		gap = UINT64_MAX;
	}
}

/* Add [off, off + len) to the copy's ranges, merging what it touches. */
static void
mm_add(struct mm_copy *m, uint64_t off, uint64_t len)
{
	struct pvfs_extent *e;
	uint64_t end = len > UINT64_MAX - off ? UINT64_MAX : off + len;
	uint32_t i, j;

	for (i = 0; i < m->st.next &&
	    m->ext[i].offset + m->ext[i].length < off; i++)
		;
	for (j = i; j < m->st.next && m->ext[j].offset <= end; j++) {
		if (m->ext[j].offset < off)
			off = m->ext[j].offset;
		if (m->ext[j].offset + m->ext[j].length > end)
			end = m->ext[j].offset + m->ext[j].length;
	}
	if (j == i && m->st.next == m->ext_cap) {
		m->ext_cap = m->ext_cap ? m->ext_cap * 2 : 4;
		if ((e = realloc(m->ext, m->ext_cap * sizeof(*e))) == NULL)
			pvfs_fatal("out of memory (stale ranges)");
		m->ext = e;
	}
	/* [i, j) collapse into one range at i. */
	memmove(&m->ext[i + 1], &m->ext[j], (m->st.next - j) * sizeof(*m->ext));
	m->st.next = m->st.next - (j - i) + 1;
	m->ext[i].offset = off;
	m->ext[i].length = end - off;
	mm_cap(m);
}

static uint64_t
mm_bytes(const struct mm_copy *m)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < m->st.next; i++)
		n += m->ext[i].length;
	return n;
}

/* The copy's record entry, made if new; an entry left by an earlier file
 * of the same number is replaced. */
static struct mm_copy *
mm_get(uint64_t ino, uint64_t gen, uint32_t rel, uint32_t copy)
{
	struct mm_copy *m = mm_find(ino, rel, copy);
	size_t h;

	if (m != NULL && m->st.gen != gen) {
		mm_unlink(m);
		m = NULL;
	}
	if (m != NULL)
		return m;
	if ((m = calloc(1, sizeof(*m))) == NULL)
		pvfs_fatal("out of memory (stale copy)");
	m->st.ino = ino;
	m->st.gen = gen;
	m->st.rel = rel;
	m->st.copy = copy;
	mm_count++;
	mm_grow();
	h = mm_hash(ino, rel, copy);
	m->hnext = mm_tab[h];
	mm_tab[h] = m;
	mm_file_count(ino, 1);
	return m;
}

/* Does r name a copy of a live mirrored file?  in is the file. */
static int
mm_check(const struct mgr_rec *r, struct mgr_inode **inp)
{
	struct mgr_inode *in = mgr_ns_get(r->ino);

	if (in == NULL)
		return ENOENT;
	if (!MGR_IS_REG(in) || in->gen != r->gen)
		return ESTALE;
	if (r->rel >= in->dist.pcount || r->copy >= mgr_mirror_copies(&in->dist))
		return EINVAL;
	*inp = in;
	return 0;
}

static int
mm_apply_dirty(const struct mgr_rec *r)
{
	struct mgr_inode *in;
	struct mm_copy *m;
	int rc;

	if ((rc = mm_check(r, &in)) != 0)
		return rc;
	if (mgr_mirror_copies(&in->dist) < 2)
		return EINVAL;
	m = mm_get(r->ino, r->gen, r->rel, r->copy);
	/* A truncate missed: bytes past the new end may be anywhere in the
	 * copy's old extent, so every byte is copied again. */
	if ((r->mflags & MGR_MIRROR_WHOLE) || r->length == 0) {
		m->st.whole = 1;
		m->st.next = 0; /* every byte: the ranges say nothing more */
	} else if (r->length > 0 && !m->st.whole)
		mm_add(m, r->offset, r->length);
	if (r->length == 0 || (r->mflags & MGR_MIRROR_SIZE))
		m->st.size = 1;
	if (m->st.dgen0 == 0 || r->dgen < m->st.dgen0)
		m->st.dgen0 = r->dgen;
	m->st.dgen = r->dgen;
	if (r->dgen > mm_dgen)
		mm_dgen = r->dgen;
	mm_bytes_all -= m->st.bytes;
	m->st.bytes = mm_bytes(m);
	mm_bytes_all += m->st.bytes;
	return 0;
}

static int
mm_apply_clean(const struct mgr_rec *r)
{
	struct mgr_inode *in;
	struct mm_copy *m;
	int rc;

	if ((rc = mm_check(r, &in)) != 0)
		return rc;
	if ((m = mm_find(r->ino, r->rel, r->copy)) == NULL || m->st.gen != r->gen)
		return ENOENT;
	if (m->st.dgen != r->dgen)
		return ESTALE; /* a DIRTY came after the job started */
	mm_unlink(m);
	return 0;
}

struct mm_rebuild {
	uint32_t iod;
	uint64_t dgen_base;   /* the record's time: the same at replay */
};

/* Every copy a file keeps on the rebuilt iod is stale as a whole. */
static int
mm_rebuild_one(const struct mgr_inode *in, void *arg)
{
	const struct mm_rebuild *rb = arg;
	struct mm_copy *m;
	uint32_t rel, k, n = mgr_mirror_copies(&in->dist);

	if (!MGR_IS_REG(in) || n < 2)
		return 0;
	for (rel = 0; rel < in->dist.pcount; rel++) {
		for (k = 0; k < n; k++) {
			if (mgr_mirror_iod(&in->dist, rel, k) != rb->iod)
				continue;
			m = mm_get(in->ino, in->gen, rel, k);
			m->st.whole = 1;
			m->st.size = 1;
			m->st.next = 0;
			mm_bytes_all -= m->st.bytes;
			m->st.bytes = 0;
			m->st.dgen = m->st.dgen + 1 > rb->dgen_base ?
			    m->st.dgen + 1 : rb->dgen_base;
			if (m->st.dgen0 == 0)
				m->st.dgen0 = m->st.dgen;
			if (m->st.dgen > mm_dgen)
				mm_dgen = m->st.dgen;
		}
	}
	return 0;
}

static int
mm_rebuild_orphan(struct mgr_inode *in, void *arg)
{
	return mm_rebuild_one(in, arg);
}

static int
mm_apply_rebuild(const struct mgr_rec *r)
{
	struct mm_rebuild rb = { r->rel, (uint64_t)r->time };

	if (mgr.niods != 0 && r->rel >= mgr.niods)
		return EINVAL;
	mgr_ns_walk(mm_rebuild_one, &rb);
	mgr_ns_walk_orphans(mm_rebuild_orphan, &rb);
	return 0;
}

int
mgr_mirror_apply(const struct mgr_rec *r)
{
	switch (r->type) {
	case MGR_REC_DIRTY:
		return mm_apply_dirty(r);
	case MGR_REC_CLEAN:
		return mm_apply_clean(r);
	case MGR_REC_REBUILD:
		return mm_apply_rebuild(r);
	}
	return EINVAL;
}

/* The dirty generation a new DIRTY record for the copy carries: one no
 * copy had before (see the top). */
uint64_t
mgr_mirror_next_dgen(uint64_t ino, uint64_t gen, uint32_t rel, uint32_t copy)
{
	uint64_t now = (uint64_t)pvfs_now_ns();

	(void)ino;
	(void)gen;
	(void)rel;
	(void)copy;
	return mm_dgen + 1 > now ? mm_dgen + 1 : now;
}

const struct pvfs_extent *
mgr_mirror_extents(const struct mgr_stale *st)
{
	return ((const struct mm_copy *)((const char *)st -
	    offsetof(struct mm_copy, st)))->ext;
}

/* Is the entry's file still there?  Entries of gone files are dropped. */
static int
mm_live(struct mm_copy *m)
{
	struct mgr_inode *in = mgr_ns_get(m->st.ino);

	if (in != NULL && MGR_IS_REG(in) && in->gen == m->st.gen)
		return 1;
	mm_unlink(m);
	return 0;
}

/* Call fn on every stale copy of a live file, in no particular order;
 * fn may not add or remove entries.  Stops at fn's first non-zero. */
int
mgr_mirror_walk(int (*fn)(const struct mgr_stale *, void *), void *arg)
{
	struct mm_copy *m, *next;
	size_t h;
	int rc;

	for (h = 0; h < mm_nhash; h++) {
		for (m = mm_tab[h]; m != NULL; m = next) {
			next = m->hnext;
			if (!mm_live(m))
				continue;
			if ((rc = fn(&m->st, arg)) != 0)
				return rc;
		}
	}
	return 0;
}

/* The same, from bucket *cursor round to it, leaving *cursor after the
 * bucket where fn said stop: successive searches (a resync's next job)
 * go on where the last ended, instead of passing the same cleaned
 * buckets each time, and take the copies in turn. */
int
mgr_mirror_walk_from(size_t *cursor, int (*fn)(const struct mgr_stale *,
    void *), void *arg)
{
	struct mm_copy *m, *next;
	size_t i, h;
	int rc;

	for (i = 0; i < mm_nhash; i++) {
		h = (*cursor + i) % mm_nhash;
		for (m = mm_tab[h]; m != NULL; m = next) {
			next = m->hnext;
			if (!mm_live(m))
				continue;
			if ((rc = fn(&m->st, arg)) != 0) {
				*cursor = h + 1;
				return rc;
			}
		}
	}
	return 0;
}

struct mm_snap {
	int (*fn)(const struct mgr_rec *, void *);
	void *arg;
};

/* A stale copy as DIRTY records: one per range (or one whole, or one
 * saying only its size differs), the first with its first generation
 * (once more if it is also the last: an ordering of stale copies needs
 * both), the others with its generation. */
static int
mm_snap_one(const struct mgr_stale *st, void *arg)
{
	const struct pvfs_extent *e = mgr_mirror_extents(st);
	struct mm_snap *s = arg;
	struct mgr_rec r;
	uint32_t i, n = st->whole || st->next == 0 ? 1 : st->next, k;
	int rc;

	for (k = 0; k <= n; k++) {
		i = k == 0 ? 0 : k - 1;
		if (k == 0 && (st->dgen0 == 0 || st->dgen0 == st->dgen))
			continue;
		memset(&r, 0, sizeof(r));
		r.type = MGR_REC_DIRTY;
		r.ino = st->ino;
		r.gen = st->gen;
		r.rel = st->rel;
		r.copy = st->copy;
		r.dgen = k == 0 ? st->dgen0 : st->dgen;
		r.mflags = (st->whole ? MGR_MIRROR_WHOLE : 0) |
		    (st->size ? MGR_MIRROR_SIZE : 0);
		if (!st->whole && st->next > 0) {
			r.offset = e[i].offset;
			r.length = e[i].length;
		}
		if ((rc = s->fn(&r, s->arg)) != 0)
			return rc;
	}
	return 0;
}

int
mgr_mirror_snap_walk(int (*fn)(const struct mgr_rec *, void *), void *arg)
{
	struct mm_snap s = { fn, arg };

	return mgr_mirror_walk(mm_snap_one, &s);
}

uint64_t
mgr_mirror_count(void)
{
	return mm_count;
}

void
mgr_mirror_reset(void)
{
	struct mm_copy *m;
	size_t h;

	for (h = 0; h < mm_nhash; h++) {
		while ((m = mm_tab[h]) != NULL)
			mm_unlink(m);
	}
}

/* The file ino (gen) is freed: its stale copies go (the counts must not
 * keep them until a walk comes by). */
void
mgr_mirror_forget(uint64_t ino, uint64_t gen, uint32_t pcount,
    uint32_t copies)
{
	struct mm_copy *m;
	uint32_t rel, k;

	if (mm_files == 0)
		return;
	for (rel = 0; rel < pcount; rel++) {
		for (k = 0; k < copies; k++) {
			if ((m = mm_find(ino, rel, k)) != NULL && m->st.gen == gen)
				mm_unlink(m);
		}
	}
}

/* Degraded files, stale copies and the bytes of their ranges, of files
 * that are there (a freed file's copies go with it). */
void
mgr_mirror_counts(uint64_t *files, uint64_t *copies, uint64_t *bytes)
{
	*files = mm_files;
	*copies = mm_count;
	*bytes = mm_bytes_all;
}
