/* test_iod_mirror.c - the iod's stale set (iod-mirror.c) as the mgr's
 * IOD_STALE frames drive it: a whole set, then changes on top of the
 * version it holds (the lease kept), changes refused on another version
 * or on a set cut short, and a set far larger than the table's first
 * size. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "iod/iod.h"

/* The daemon's state (iod.c, the program, defines it there). */
struct iod iod;

#define FSID UINT64_C(0x1234)
#define GEN UINT64_C(0xabcdef)

static struct pvfs_cap mcap; /* the mgr's PVFS_R_MIRROR */

static int
setup(void **state)
{
	(void)state;
	memset(&iod, 0, sizeof(iod));
	memcpy(iod.key, "test key", 8);
	iod.keylen = 8;
	iod.label.fsid = FSID;
	memset(&mcap, 0, sizeof(mcap));
	mcap.fsid = FSID;
	mcap.rights = PVFS_R_MIRROR;
	mcap.expiry = iod_label_now() + PVFS_CAP_LIFETIME;
	pvfs_cap_sign(&mcap, iod.key, iod.keylen);
	return 0;
}

/* One IOD_STALE frame of n copies (rel i, copy 1 of inode ino0 + i). */
static int
stale(uint32_t flags, uint64_t base, uint64_t version, uint64_t ino0,
    uint32_t n)
{
	union iod_req req;
	union iod_rep rep;
	struct pvfs_stale_ent *e = calloc(n ? n : 1, sizeof(*e));
	uint32_t i;
	int rc;

	assert_non_null(e);
	for (i = 0; i < n; i++) {
		e[i].ino = ino0 + i;
		e[i].gen = GEN;
		e[i].rel = 0;
		e[i].copy = 1;
	}
	memset(&req, 0, sizeof(req));
	req.stale.cap = mcap;
	req.stale.flags = flags;
	req.stale.base = base;
	req.stale.version = version;
	req.stale.n = n;
	req.stale.ents = e;
	rc = iod_mirror_stale(NULL, &req, &rep);
	free(e);
	return rc;
}

/* A HELLO naming version: was the lease granted? */
static int
hello(uint64_t version)
{
	struct pvfs_iod_hello_req r;
	struct pvfs_iod_hello_rep h;
	int64_t now = pvfs_now_ns();

	memset(&r, 0, sizeof(r));
	memset(&h, 0, sizeof(h));
	r.mgr_ns = now;
	r.lease_ms = 9000;
	r.stale_version = version;
	iod_mirror_hello(&r, now, &h);
	return (h.flags & PVFS_HELLO_LEASE) != 0;
}

/* May copy 1 of rel 0 of inode ino be read? */
static int
readable(uint64_t ino)
{
	struct pvfs_cap cap;

	memset(&cap, 0, sizeof(cap));
	cap.ino = ino;
	cap.gen = GEN;
	cap.dist.copies = 2;
	cap.dist.pcount = 1;
	return iod_mirror_read_ok(&cap, 0, 1);
}

static void
test_changes(void **state)
{
	(void)state;
	/* no set yet: a change has nothing to apply to */
	assert_int_equal(stale(0, 5, 6, 100, 1), ESTALE);
	assert_false(hello(6));
	assert_int_equal(stale(PVFS_STALE_SET | PVFS_STALE_END, 0, 10, 100, 2),
	    0);
	assert_true(hello(10));
	assert_int_equal(readable(100), ENODATA);
	assert_int_equal(readable(102), 0);
	/* a mark on top of 10: taken, and the lease stays all along */
	assert_int_equal(stale(0, 10, 11, 102, 1), 0);
	assert_int_equal(readable(102), ENODATA);
	assert_int_equal(readable(103), 0); /* still under the lease */
	/* a change from another version is refused, nothing changes */
	assert_int_equal(stale(PVFS_STALE_CLEAR, 10, 12, 102, 1), ESTALE);
	assert_int_equal(readable(102), ENODATA);
	assert_int_equal(stale(PVFS_STALE_CLEAR, 11, 12, 100, 1), 0);
	assert_int_equal(readable(100), 0);
	assert_true(hello(12));
	assert_false(hello(13)); /* the mgr knows of a change it lacks */
	assert_int_equal(readable(103), ENODATA); /* so no lease */
	assert_true(hello(12));
	/* a set cut short: changes are refused until a whole one came */
	assert_int_equal(stale(PVFS_STALE_SET, 0, 20, 100, 1), 0);
	assert_false(hello(12));
	assert_int_equal(stale(0, 12, 13, 104, 1), ESTALE);
	assert_int_equal(stale(PVFS_STALE_SET | PVFS_STALE_END, 0, 21, 300, 1),
	    0);
	assert_true(hello(21));
	assert_int_equal(readable(300), ENODATA);
	assert_int_equal(readable(100), 0); /* not in the set: fresh */
	assert_int_equal(readable(102), 0);
	assert_int_equal(stale(PVFS_STALE_SET | PVFS_STALE_END, 0, 22, 0, 0),
	    0);
}

/* Far more copies than the table's first 1024 buckets, marked in changes
 * and cleared again: every one found, every one gone. */
static void
test_large(void **state)
{
	enum { N = 50000, STEP = 4096 };
	uint64_t v = 30, i;

	(void)state;
	assert_int_equal(stale(PVFS_STALE_SET | PVFS_STALE_END, 0, v, 0, 0), 0);
	for (i = 0; i < N; i += STEP, v++)
		assert_int_equal(stale(0, v, v + 1, 1000 + i, N - i < STEP ?
		    N - i : STEP), 0);
	assert_true(hello(v));
	for (i = 0; i < N; i += 997)
		assert_int_equal(readable(1000 + i), ENODATA);
	assert_int_equal(readable(1000 + N), 0);
	for (i = 0; i < N; i += STEP, v++)
		assert_int_equal(stale(PVFS_STALE_CLEAR, v, v + 1, 1000 + i,
		    N - i < STEP ? N - i : STEP), 0);
	assert_true(hello(v));
	for (i = 0; i < N; i += 997)
		assert_int_equal(readable(1000 + i), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_changes, setup),
		cmocka_unit_test_setup(test_large, setup),
	};

	pvfs_log_open("test", NULL, PVFS_LOG_WARN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
