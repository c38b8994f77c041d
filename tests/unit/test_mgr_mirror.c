/*
 * test_mgr_mirror.c - the mgr's stale copies of mirrored files
 * (mgr-mirror.c), driven through mgr_ns_apply() as the journal drives
 * it: ranges merge and stay capped, generations gate CLEAN, REBUILD marks
 * every copy an iod holds, records of other files or copies are refused,
 * and the records of a snapshot rebuild the same state.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "mgr-test.h"

/* A file of two copies over every iod (mshift 1), as the create's
 * MIRROR record makes it. */
static struct mgr_inode *
mirrored(const char *path)
{
	struct mgr_inode *in;
	struct mgr_rec r;

	assert_int_equal(mt_create(path, 0644, 0, 0, NULL), 0);
	in = mt_get(path);
	assert_non_null(in);
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_MIRROR;
	r.ino = in->ino;
	r.dist.copies = 2;
	r.dist.mshift = 1;
	assert_int_equal(mt_apply(&r), 0);
	assert_int_equal(in->dist.copies, 2);
	return in;
}

static int
dirty(const struct mgr_inode *in, uint32_t rel, uint32_t copy, uint64_t off,
    uint64_t len)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_DIRTY;
	r.ino = in->ino;
	r.gen = in->gen;
	r.rel = rel;
	r.copy = copy;
	r.offset = off;
	r.length = len;
	r.dgen = mgr_mirror_next_dgen(in->ino, in->gen, rel, copy);
	return mt_apply(&r);
}

static int
clean(const struct mgr_inode *in, uint32_t rel, uint32_t copy, uint64_t dgen)
{
	struct mgr_rec r;

	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_CLEAN;
	r.ino = in->ino;
	r.gen = in->gen;
	r.rel = rel;
	r.copy = copy;
	r.dgen = dgen;
	return mt_apply(&r);
}

static int
setup(void **state)
{
	(void)state;
	mt_setup();
	mgr_ns_init();
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	mgr_ns_free();
	assert_int_equal(mgr_mirror_count(), 0);
	return 0;
}

static void
expect_ranges(const struct mgr_stale *st, const uint64_t *want, uint32_t n)
{
	const struct pvfs_extent *e = mgr_mirror_extents(st);
	uint64_t bytes = 0;
	uint32_t i;

	assert_int_equal(st->next, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(e[i].offset, want[2 * i]);
		assert_int_equal(e[i].length, want[2 * i + 1]);
		bytes += want[2 * i + 1];
	}
	assert_int_equal(st->bytes, bytes);
}

/* Overlapping and adjacent ranges become one; others stay apart, sorted. */
static void
test_merge(void **state)
{
	struct mgr_inode *in = mirrored("/f");
	const struct mgr_stale *st;
	static const uint64_t w1[] = { 0, 30, 100, 10 };
	static const uint64_t w2[] = { 0, 110, 200, 1 };

	(void)state;
	assert_int_equal(dirty(in, 1, 1, 100, 10), 0);
	assert_int_equal(dirty(in, 1, 1, 0, 10), 0);
	assert_int_equal(dirty(in, 1, 1, 20, 10), 0);
	assert_int_equal(dirty(in, 1, 1, 10, 10), 0); /* fills the gap */
	st = mgr_mirror_find(in->ino, in->gen, 1, 1);
	assert_non_null(st);
	expect_ranges(st, w1, 2);
	assert_true(st->dgen > 0);
	assert_int_equal(dirty(in, 1, 1, 200, 1), 0);
	assert_int_equal(dirty(in, 1, 1, 5, 100), 0); /* bridges to 100 */
	expect_ranges(st, w2, 2);
	assert_null(mgr_mirror_find(in->ino, in->gen, 1, 0));
	assert_null(mgr_mirror_find(in->ino, in->gen + 1, 1, 1));
	assert_int_equal(mgr_mirror_count(), 1);
}

/* Past the cap, the closest neighbours merge: every byte stays covered. */
static void
test_cap(void **state)
{
	struct mgr_inode *in = mirrored("/f");
	const struct mgr_stale *st;
	const struct pvfs_extent *e;
	uint64_t i, j;

	(void)state;
	for (i = 0; i < 1000; i++)
		assert_int_equal(dirty(in, 0, 0, i * 100 + (i % 7), 10), 0);
	st = mgr_mirror_find(in->ino, in->gen, 0, 0);
	assert_true(st->next <= 256);
	e = mgr_mirror_extents(st);
	for (i = 0; i < 1000; i++) {
		uint64_t off = i * 100 + (i % 7);

		for (j = 0; j < st->next; j++) {
			if (e[j].offset <= off &&
			    off + 10 <= e[j].offset + e[j].length)
				break;
		}
		assert_true(j < st->next);
	}
	for (j = 1; j < st->next; j++)
		assert_true(e[j].offset > e[j - 1].offset + e[j - 1].length);
}

/* CLEAN needs the generation the job started from. */
static void
test_clean(void **state)
{
	struct mgr_inode *in = mirrored("/f");
	const struct mgr_stale *st;
	uint64_t d1, d2;

	(void)state;
	assert_int_equal(clean(in, 2, 1, 1), ENOENT);
	assert_int_equal(dirty(in, 2, 1, 0, 4096), 0);
	st = mgr_mirror_find(in->ino, in->gen, 2, 1);
	d1 = st->dgen;
	assert_int_equal(dirty(in, 2, 1, 8192, 4096), 0); /* during the job */
	d2 = st->dgen;
	assert_true(d2 > d1);
	assert_int_equal(clean(in, 2, 1, d1), ESTALE);
	assert_non_null(mgr_mirror_find(in->ino, in->gen, 2, 1));
	assert_int_equal(clean(in, 2, 1, d2), 0);
	assert_null(mgr_mirror_find(in->ino, in->gen, 2, 1));
	/* Finding 14: dirty again after CLEAN, a very late DONE of the job
	 * before (either generation) must not clean it. */
	assert_int_equal(dirty(in, 2, 1, 0, 10), 0);
	st = mgr_mirror_find(in->ino, in->gen, 2, 1);
	assert_true(st->dgen != d1 && st->dgen != d2);
	assert_int_equal(clean(in, 2, 1, d1), ESTALE);
	assert_int_equal(clean(in, 2, 1, d2), ESTALE);
	assert_non_null(mgr_mirror_find(in->ino, in->gen, 2, 1));
	assert_int_equal(clean(in, 2, 1, st->dgen), 0);
	assert_int_equal(mgr_mirror_count(), 0);
}

/* Records for what is not a copy of a live mirrored file are refused. */
static void
test_refused(void **state)
{
	struct mgr_inode *in = mirrored("/f"), *plain;
	struct mgr_rec r;

	(void)state;
	assert_int_equal(mt_create("/plain", 0644, 0, 0, NULL), 0);
	plain = mt_get("/plain");
	assert_int_equal(dirty(plain, 0, 0, 0, 1), EINVAL);
	assert_int_equal(dirty(in, 4, 0, 0, 1), EINVAL);  /* rel >= pcount */
	assert_int_equal(dirty(in, 0, 2, 0, 1), EINVAL);  /* copy >= copies */
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_DIRTY;
	r.ino = in->ino;
	r.gen = in->gen ^ 1;
	r.length = 1;
	assert_int_equal(mgr_ns_apply(&r), ESTALE);
	r.ino = 999999;
	assert_int_equal(mgr_ns_apply(&r), ENOENT);
	assert_int_equal(mt_mkdir("/d", 0755, 0, 0, NULL), 0);
	r.ino = mt_get("/d")->ino;
	r.gen = 0;
	assert_int_equal(mgr_ns_apply(&r), ESTALE);
	assert_int_equal(mgr_mirror_count(), 0);
}

static int
never_called(const struct mgr_stale *st, void *arg)
{
	(void)arg;
	fail_msg("stale copy of gone inode %llu listed",
	    (unsigned long long)st->ino);
	return 1;
}

/* A length-0 report (a truncate) makes the copy stale as a whole; a
 * removed file's entries go. */
static void
test_size_and_gone(void **state)
{
	struct mgr_inode *in = mirrored("/f");
	const struct mgr_stale *st;
	uint64_t ino, gen, files, copies, bytes;
	int n = 0;

	(void)state;
	assert_int_equal(dirty(in, 3, 0, 0, 0), 0);
	assert_int_equal(dirty(in, 1, 1, 10, 90), 0);
	mgr_mirror_counts(&files, &copies, &bytes);
	assert_int_equal(files, 1);
	assert_int_equal(copies, 2);
	assert_int_equal(bytes, 90);
	st = mgr_mirror_find(in->ino, in->gen, 3, 0);
	assert_int_equal(st->size, 1);
	assert_int_equal(st->whole, 1); /* a missed truncate: every byte */
	assert_int_equal(st->next, 0);
	ino = in->ino;
	gen = in->gen;
	assert_int_equal(mt_unlink("/f"), 0); /* in is freed, and its copies */
	assert_int_equal(mgr_mirror_count(), 0);
	mgr_mirror_counts(&files, &copies, &bytes);
	assert_int_equal(files + copies + bytes, 0);
	/* never handed out (a CLEAN of it would not apply) */
	assert_null(mgr_mirror_find(ino, gen, 3, 0));
	mgr_mirror_walk(never_called, &n);
	assert_int_equal(mgr_mirror_count(), 0);
}

/* REBUILD of iod 2: each rel with a copy there is stale as a whole. */
static void
test_rebuild(void **state)
{
	struct mgr_inode *a = mirrored("/a"), *b = mirrored("/b");
	const struct mgr_stale *st;
	struct mgr_rec r;
	uint32_t rel, k, n = 0;

	(void)state;
	assert_int_equal(mt_create("/plain", 0644, 0, 0, NULL), 0);
	assert_int_equal(dirty(a, 0, 0, 0, 10), 0);
	memset(&r, 0, sizeof(r));
	r.type = MGR_REC_REBUILD;
	r.rel = 2;
	assert_int_equal(mgr_ns_apply(&r), 0);
	for (rel = 0; rel < 4; rel++) {
		for (k = 0; k < 2; k++) {
			int on = mgr_mirror_iod(&b->dist, rel, k) == 2;

			st = mgr_mirror_find(b->ino, b->gen, rel, k);
			assert_int_equal(st != NULL, on);
			if (on) {
				assert_int_equal(st->whole, 1);
				n++;
			}
		}
	}
	assert_int_equal(n, 2); /* one rel as copy 0, another as copy 1 */
	st = mgr_mirror_find(a->ino, a->gen, 0, 0);
	assert_non_null(st);
	assert_int_equal(st->whole, mgr_mirror_iod(&a->dist, 0, 0) == 2);
	/* two per file, and a's earlier one unless it was one of them */
	assert_int_equal(mgr_mirror_count(), 4 +
	    (mgr_mirror_iod(&a->dist, 0, 0) != 2));
	r.rel = 4;
	assert_int_equal(mgr_ns_apply(&r), EINVAL);
}

struct snap {
	struct mgr_rec r[64];
	size_t n;
};

static int
snap_take(const struct mgr_rec *r, void *arg)
{
	struct snap *s = arg;

	assert_true(s->n < 64);
	s->r[s->n++] = *r;
	return 0;
}

/* The snapshot's DIRTY records, through the record codec and applied to a
 * state without them, give the same ranges, flags and generations (the
 * first one too: a copy of two records is written as three). */
static void
test_snapshot(void **state)
{
	struct mgr_inode *in = mirrored("/f");
	struct snap s = { .n = 0 };
	struct pvfs_buf b;
	struct pvfs_cur c;
	struct mgr_rec r;
	const struct mgr_stale *st;
	static const uint64_t w[] = { 0, 10, 50, 5 };
	uint64_t d10, d10first, d21;
	size_t i;

	(void)state;
	assert_int_equal(dirty(in, 1, 0, 0, 10), 0);
	assert_int_equal(dirty(in, 1, 0, 50, 5), 0);
	assert_int_equal(dirty(in, 2, 1, 0, 0), 0);
	d10 = mgr_mirror_find(in->ino, in->gen, 1, 0)->dgen;
	d10first = mgr_mirror_find(in->ino, in->gen, 1, 0)->dgen0;
	d21 = mgr_mirror_find(in->ino, in->gen, 2, 1)->dgen;
	assert_true(d10first < d10);
	assert_int_equal(mgr_mirror_snap_walk(snap_take, &s), 0);
	assert_int_equal(s.n, 4);
	mgr_mirror_reset();
	pvfs_buf_init(&b);
	for (i = 0; i < s.n; i++)
		mgr_record_encode(&b, &s.r[i]);
	pvfs_cur_init(&c, b.data, b.len);
	for (i = 0; i < s.n; i++) {
		assert_int_equal(mgr_record_decode(&c, MGR_FORMAT, &r), 0);
		assert_int_equal(mgr_ns_apply(&r), 0);
	}
	assert_int_equal(c.left, 0);
	pvfs_buf_free(&b);
	st = mgr_mirror_find(in->ino, in->gen, 1, 0);
	expect_ranges(st, w, 2);
	assert_int_equal(st->dgen, d10);
	assert_int_equal(st->dgen0, d10first);
	st = mgr_mirror_find(in->ino, in->gen, 2, 1);
	assert_int_equal(st->size, 1);
	assert_int_equal(st->dgen, d21);
	assert_int_equal(st->dgen0, d21);
}

/* ---- through the journal ---- */

static int
state_one(const struct mgr_stale *st, void *arg)
{
	const struct pvfs_extent *e = mgr_mirror_extents(st);
	char *buf = arg;
	size_t n = strlen(buf);
	uint32_t i;

	n += (size_t)snprintf(buf + n, 8192 - n, "%llu/%u/%u g%llu w%d s%d:",
	    (unsigned long long)st->ino, st->rel, st->copy,
	    (unsigned long long)st->dgen, st->whole, st->size);
	for (i = 0; i < st->next && n < 8000; i++)
		n += (size_t)snprintf(buf + n, 8192 - n, " %llu+%llu",
		    (unsigned long long)e[i].offset,
		    (unsigned long long)e[i].length);
	snprintf(buf + n, 8192 - n, "\n");
	return 0;
}

/* Every stale copy as sorted text lines. */
static void
state(char *buf)
{
	char *lines[64], *p, *save = NULL, tmp[8192];
	size_t n = 0, i, j;

	tmp[0] = '\0';
	mgr_mirror_walk(state_one, tmp);
	for (p = strtok_r(tmp, "\n", &save); p != NULL && n < 64;
	    p = strtok_r(NULL, "\n", &save))
		lines[n++] = p;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			p = lines[j];
			lines[j] = lines[j - 1];
			lines[j - 1] = p;
		}
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		strcat(buf, lines[i]);
		strcat(buf, "\n");
	}
}

/* DIRTY, CLEAN and REBUILD records in a journal, some before a
 * checkpoint (the snapshot's DIRTY records) and some after: a new mgr on
 * the directory has the same stale copies, ranges and generations. */
static void
test_replay(void **state_)
{
	char dir[PATH_MAX], cmd[PATH_MAX + 16], want[8192], got[8192];
	const char *tmp = getenv("TMPDIR");
	struct mgr_inode *a, *b;

	(void)state_;
	mgr_ns_free();
	snprintf(dir, sizeof(dir), "%s/test_mgr_mirror.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	mt_apply = mt_journal_apply;
	mgr.journal_max = 1; /* a checkpoint at the first commit */
	mgr_journal_open(dir);
	a = mirrored("/a");
	b = mirrored("/b");
	assert_int_equal(dirty(a, 0, 1, 4096, 100), 0);
	assert_int_equal(dirty(a, 0, 1, 0, 10), 0);
	assert_int_equal(dirty(b, 3, 0, 0, 0), 0);
	mgr_journal_commit();
	mgr.journal_max = 1ull << 40;
	assert_int_equal(dirty(a, 0, 1, 10, 5), 0);
	assert_int_equal(dirty(b, 2, 1, 1 << 20, 1 << 20), 0);
	assert_int_equal(clean(b, 3, 0,
	    mgr_mirror_find(b->ino, b->gen, 3, 0)->dgen), 0);
	assert_null(mgr_mirror_find(b->ino, b->gen, 3, 0));
	{
		struct mgr_rec r;

		memset(&r, 0, sizeof(r));
		r.type = MGR_REC_REBUILD;
		r.rel = 1;
		assert_int_equal(mt_apply(&r), 0);
	}
	mgr_journal_commit();
	state(want);
	assert_non_null(strstr(want, " 0+15 4096+100\n"));
	mgr_journal_close();
	mgr_ns_free();
	mgr_journal_open(dir);
	state(got);
	assert_string_equal(got, want);
	mgr_journal_close();
	mgr_ns_free();
	mt_apply = mgr_ns_apply;
	mgr_ns_init();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* LIST pages (mgr-resync.c) from a cursor: every stale copy once, in
 * inode order, a file never split across pages; a freed file's copies
 * gone from the list and the counts. */
static void
test_list_pages(void **state)
{
	enum { NFILES = 700 };
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;
	struct mgr_inode *in;
	char path[32];
	uint64_t last = 0, seen = 0, gone;
	uint32_t i, pages = 0;

	(void)state;
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "/l%u", i);
		in = mirrored(path);
		assert_int_equal(dirty(in, 2, 0, 0, 0), 0);
		assert_int_equal(dirty(in, 0, 1, 0, 10), 0);
	}
	gone = mt_get("/l5")->ino;
	assert_int_equal(mt_unlink("/l5"), 0);
	memset(&q, 0, sizeof(q));
	q.cred.uid = (uint32_t)geteuid();
	q.what = PVFS_RESYNC_LIST;
	do {
		memset(&rep, 0, sizeof(rep));
		assert_int_equal(mgr_resync_op(NULL, &q, &rep), 0);
		assert_int_equal(rep.n % 2, 0); /* whole files */
		assert_true(rep.n > 0);
		for (i = 0; i < rep.n; i++) {
			assert_true(rep.list[i].ino > last ||
			    (rep.list[i].ino == last && i % 2 == 1));
			assert_true(rep.list[i].ino != gone);
			assert_int_equal(rep.list[i].rel, i % 2 == 0 ? 0 : 2);
			last = rep.list[i].ino;
		}
		seen += rep.n;
		q.after = last;
		pages++;
	} while (!rep.eof);
	assert_int_equal(seen, 2 * (NFILES - 1));
	assert_int_equal(pages, 2);
	assert_int_equal(rep.degraded, NFILES - 1);
	assert_int_equal(rep.stale, 2 * (NFILES - 1));
	assert_int_equal(rep.bytes_left, 10 * (NFILES - 1));
	mgr_resync_stop();
}

/* ---- the stale set's transport (mgr-resync.c) ---- */

/* Decode the IOD_STALE frames in b: entries in all, the last frame's
 * request (ents not kept) in *last; the number of frames. */
static uint32_t
stale_frames(const struct pvfs_buf *b, uint64_t *ents,
    struct pvfs_iod_stale_req *last)
{
	struct pvfs_iod_stale_req q;
	struct pvfs_hdr h;
	size_t off = 0;
	uint32_t n = 0;

	*ents = 0;
	while (off < b->len) {
		assert_int_equal(pvfs_hdr_decode(b->data + off, &h), 0);
		assert_int_equal(h.op, PVFS_IOD_STALE);
		assert_int_equal(pvfs_msg_decode(PVFS_IOD_STALE, 0, b->data + off +
		    PVFS_HDR_LEN, h.body_len, &q), 0);
		*ents += q.n;
		pvfs_msg_free(PVFS_IOD_STALE, 0, &q);
		q.ents = NULL;
		*last = q;
		off += PVFS_HDR_LEN + h.body_len;
		n++;
	}
	return n;
}

struct on_iod {
	uint32_t iod;
	struct mgr_stale *v;
	size_t n;
};

static int
on_iod_one(const struct mgr_stale *st, void *arg)
{
	struct on_iod *o = arg;

	if (mgr_mirror_iod(&mgr_ns_get(st->ino)->dist, st->rel, st->copy) ==
	    o->iod)
		o->v[o->n++] = *st;
	return 0;
}

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Finding 9: a rebuilt iod's copies cleaned one by one.  Each CLEAN is
 * one change: the iod is sent that change alone (one entry, on top of
 * the version it acknowledged), where it used to get its whole set
 * again; the whole set is sent only to an iod holding a version the log
 * does not reach.  Prints the cost of both per change (the figure of
 * doc/benchmarks.md); asserts only the sizes. */
static void
test_set_changes(void **state_)
{
	enum { NFILES = 3000 };
	char dir[PATH_MAX], cmd[PATH_MAX + 16], path[32];
	const char *tmp = getenv("TMPDIR");
	struct pvfs_mgr_resync_req q;
	struct pvfs_mgr_resync_rep rep;
	struct pvfs_iod_stale_req last;
	struct pvfs_buf b;
	struct on_iod o = { 0, NULL, 0 };
	uint64_t ents, whole_bytes = 0, chg_bytes = 0, v;
	double t, whole_us = 0, chg_us = 0, done_us = 0;
	size_t i;

	(void)state_;
	mgr_ns_free();
	snprintf(dir, sizeof(dir), "%s/test_mgr_mirror.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	assert_non_null(mkdtemp(dir));
	mt_apply = mt_journal_apply;
	mgr_journal_open(dir);
	for (i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "/f%zu", i);
		mirrored(path);
	}
	memset(&q, 0, sizeof(q));
	q.cred.uid = (uint32_t)geteuid();
	q.what = PVFS_RESYNC_REBUILD;
	q.index = 0;
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(mgr_resync_op(NULL, &q, &rep), 0);
	mgr_journal_commit();
	assert_non_null(o.v = calloc(mgr_mirror_count(), sizeof(*o.v)));
	mgr_mirror_walk(on_iod_one, &o);
	assert_true(o.n >= NFILES);
	assert_int_equal(rep.degraded, NFILES);
	assert_int_equal(rep.stale, o.n);
	/* A new iod (version 0): nothing but the whole set. */
	pvfs_buf_init(&b);
	assert_int_equal(mgr_resync_encode_update(0, 0, 0, &b, 1), 0);
	assert_true(mgr_resync_encode_update(0, 0, 1, &b, 1) > 1);
	stale_frames(&b, &ents, &last);
	assert_int_equal(ents, o.n);
	assert_int_equal(last.flags & PVFS_STALE_END, PVFS_STALE_END);
	mgr_resync_iod_acked(0, last.version);
	for (i = 0; i < o.n; i++) {
		memset(&q, 0, sizeof(q));
		q.cred.uid = (uint32_t)geteuid();
		q.what = PVFS_RESYNC_DONE;
		q.ino = o.v[i].ino;
		q.gen = o.v[i].gen;
		q.rel = o.v[i].rel;
		q.copy = o.v[i].copy;
		q.dgen = o.v[i].dgen;
		t = now_us();
		assert_int_equal(mgr_resync_op(NULL, &q, &rep), 0);
		done_us += now_us() - t;
		assert_int_equal(rep.stale, o.n - i - 1); /* counts kept */
		if (i % 256 == 0)
			mgr_journal_commit();
		v = mgr_resync_acked(0);
		/* before: the whole set again */
		pvfs_buf_reset(&b);
		t = now_us();
		mgr_resync_encode_update(0, 0, 1, &b, 1);
		whole_us += now_us() - t;
		whole_bytes += b.len;
		stale_frames(&b, &ents, &last);
		assert_int_equal(ents, o.n - i - 1);
		/* now: the change since the version acknowledged */
		pvfs_buf_reset(&b);
		t = now_us();
		assert_int_equal(mgr_resync_encode_update(0, v, 0, &b, 1), 1);
		chg_us += now_us() - t;
		chg_bytes += b.len;
		stale_frames(&b, &ents, &last);
		assert_int_equal(ents, 1);
		assert_int_equal(last.base, v);
		assert_int_equal(last.version, mgr_resync_version(0));
		assert_int_equal(last.flags, PVFS_STALE_CLEAR);
		mgr_resync_iod_acked(0, last.version);
	}
	mgr_journal_commit();
	assert_int_equal(mgr_resync_encode_update(0, mgr_resync_acked(0), 1,
	    &b, 1), 0);
	print_message("rebuild of %zu stale copies on one iod, cleaned one by "
	    "one; per change the mgr sent\n"
	    "  whole set (before): %.1f KiB, %.1f us to encode on average "
	    "(%.1f MiB in all)\n"
	    "  the change (now):   %.0f bytes, %.2f us to encode on average "
	    "(%.1f KiB in all)\n"
	    "  MGR_RESYNC DONE handled in %.1f us on average (counts "
	    "included)\n", o.n, whole_bytes / 1024.0 / o.n, whole_us / o.n,
	    whole_bytes / 1048576.0, (double)chg_bytes / o.n, chg_us / o.n,
	    chg_bytes / 1024.0, done_us / o.n);
	pvfs_buf_free(&b);
	free(o.v);
	mgr_resync_stop();
	mgr_journal_close();
	mgr_ns_free();
	mt_apply = mgr_ns_apply;
	mgr_ns_init();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_and_gone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rebuild, setup, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list_pages, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_set_changes, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
