/* test_stripe.c - striping math against a byte-by-byte model. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common.h"
#include "xorshift.h"

/* The model: where byte L lives, straight from the definition. */
static void
model_byte(uint64_t L, uint32_t pcount, uint32_t ssize, uint32_t *rel,
    uint64_t *local)
{
	uint64_t s = L / ssize;

	*rel = (uint32_t)(s % pcount);
	*local = s / pcount * ssize + L % ssize;
}

/* Expand the iterator's pieces for rel and compare them byte by byte with
 * the model's view of the pattern. */
static void
check_pattern(const struct pvfs_pattern *pat, uint32_t pcount, uint32_t ssize)
{
	uint32_t rel, mrel;
	uint64_t b, i, L, mlocal, mem, share, seen;
	struct pvfs_stripe_iter it;
	struct pvfs_piece pc;

	for (rel = 0; rel < pcount; rel++) {
		pvfs_stripe_iter_init(&it, pat, pcount, ssize, rel);
		seen = 0;
		if (!pvfs_stripe_iter_next(&it, &pc))
			pc.len = 0;
		for (b = 0; b < pat->count; b++) {
			for (i = 0; i < pat->gsize; i++) {
				L = pat->offset + b * pat->stride + i;
				mem = b * pat->gsize + i;
				model_byte(L, pcount, ssize, &mrel, &mlocal);
				if (mrel != rel)
					continue;
				assert_true(pc.len > 0);
				assert_int_equal(pc.logical, L);
				assert_int_equal(pc.local, mlocal);
				assert_int_equal(pc.mem, mem);
				pc.logical++, pc.local++, pc.mem++, pc.len--;
				seen++;
				if (pc.len == 0 && !pvfs_stripe_iter_next(&it, &pc))
					pc.len = 0;
			}
		}
		assert_int_equal(pc.len, 0);
		assert_false(pvfs_stripe_iter_next(&it, &pc));
		share = pvfs_stripe_share(pat, pcount, ssize, rel);
		assert_int_equal(share, seen);
	}
}

static void
random_case(uint64_t base_off)
{
	struct pvfs_pattern pat;
	uint32_t pcount = (uint32_t)xorshift_range(1, 6);
	uint32_t ssize = (uint32_t)xorshift_range(1, 5) * (xorshift() % 2 ? 7 : 16);

	pat.offset = base_off + xorshift_range(0, 3000);
	pat.gsize = xorshift_range(1, 700);
	pat.count = xorshift() % 3 == 0 ? 1 : xorshift_range(1, 6);
	pat.stride = pat.gsize + (pat.count > 1 ? xorshift_range(0, 300) : 0);
	assert_int_equal(pvfs_pattern_check(&pat), 0);
	check_pattern(&pat, pcount, ssize);
}

static void
test_iter_matches_model(void **state)
{
	int i;

	for (i = 0; i < 3000; i++)
		random_case(0);
}

static void
test_iter_matches_model_past_4gib(void **state)
{
	int i;

	for (i = 0; i < 1000; i++)
		random_case((5ULL << 30) + xorshift_range(0, 1ULL << 34));
}

/* local_size counts exactly the model's bytes below a logical size. */
static void
test_local_size_matches_model(void **state)
{
	uint32_t pcount, ssize, rel, mrel;
	uint64_t size, L, mlocal, count[8];
	int i;

	for (i = 0; i < 300; i++) {
		pcount = (uint32_t)xorshift_range(1, 8);
		ssize = (uint32_t)xorshift_range(1, 64);
		size = xorshift_range(0, 4000);
		for (rel = 0; rel < pcount; rel++)
			count[rel] = 0;
		for (L = 0; L < size; L++) {
			model_byte(L, pcount, ssize, &mrel, &mlocal);
			count[mrel]++;
		}
		for (rel = 0; rel < pcount; rel++)
			assert_int_equal(pvfs_stripe_local_size(size, pcount, ssize, rel),
			    count[rel]);
	}
}

/* The logical size is recovered from the stripe files' sizes, also far
 * beyond 4 GiB and with stripe files beyond 2 GiB. */
static void
test_logical_end_recovers_size(void **state)
{
	uint32_t pcount, ssize, rel;
	uint64_t size, end, max;
	int i;

	for (i = 0; i < 20000; i++) {
		pcount = (uint32_t)xorshift_range(1, 16);
		ssize = (uint32_t)xorshift_range(1, 1 << 20);
		size = i % 2 ? xorshift_range(0, 1ULL << 45) : xorshift_range(0, 100000);
		max = 0;
		for (rel = 0; rel < pcount; rel++) {
			end = pvfs_stripe_logical_end(
			    pvfs_stripe_local_size(size, pcount, ssize, rel),
			    pcount, ssize, rel);
			assert_true(end <= size);
			if (end > max)
				max = end;
		}
		assert_int_equal(max, size);
	}
}

/* Mirrored files: copy k of rel on (base + rel + k * mshift) mod n, copy
 * 0 the classic placement; "apart" checks iods and, with names, hosts. */
static void
test_copy_placement(void **state)
{
	struct pvfs_dist d = { .base = 3, .pcount = 4, .ssize = 65536,
		.copies = 2, .mshift = 2 };
	const char *hosts[4] = { "a", "a", "b", "b" };
	uint32_t rel;

	for (rel = 0; rel < 4; rel++) {
		assert_int_equal(pvfs_stripe_copy_abs(&d, rel, 0, 4),
		    pvfs_stripe_abs(&d, rel, 4));
		assert_int_equal(pvfs_stripe_copy_abs(&d, rel, 1, 4),
		    (3 + rel + 2) % 4);
	}
	assert_int_equal(pvfs_dist_copies(&d), 2);
	assert_true(pvfs_stripe_copies_apart(&d, 4, hosts));
	d.mshift = 1; /* pairs iods 0-1 and 2-3: one host each */
	assert_true(pvfs_stripe_copies_apart(&d, 4, NULL));
	assert_false(pvfs_stripe_copies_apart(&d, 4, hosts));
	d.mshift = 4; /* every copy on the same iod */
	assert_false(pvfs_stripe_copies_apart(&d, 4, NULL));
	d.copies = 3;
	d.mshift = 1;
	assert_true(pvfs_stripe_copies_apart(&d, 4, NULL));
	assert_false(pvfs_stripe_copies_apart(&d, 4, hosts));
	d.mshift = 2; /* copy 2 lands back on copy 0's iod */
	assert_false(pvfs_stripe_copies_apart(&d, 4, NULL));
	d.copies = 0; /* an old distribution: one copy */
	assert_int_equal(pvfs_dist_copies(&d), 1);
	assert_true(pvfs_stripe_copies_apart(&d, 4, hosts));
}

static void
test_rel_and_abs(void **state)
{
	struct pvfs_dist d = { .base = 3, .pcount = 4, .ssize = 65536 };
	uint32_t mrel;
	uint64_t L, mlocal;
	int i;

	for (i = 0; i < 10000; i++) {
		L = xorshift_range(0, 1ULL << 40);
		model_byte(L, d.pcount, d.ssize, &mrel, &mlocal);
		assert_int_equal(pvfs_stripe_rel(L, d.pcount, d.ssize), mrel);
	}
	assert_int_equal(pvfs_stripe_abs(&d, 0, 6), 3);
	assert_int_equal(pvfs_stripe_abs(&d, 3, 6), 0);
	assert_int_equal(pvfs_stripe_abs(&d, 2, 5), 0);
}

static void
test_pattern_check_rejects(void **state)
{
	struct pvfs_pattern bad[] = {
		{ 0, 0, 0, 1 },                 /* empty block */
		{ 0, 10, 10, 0 },               /* no blocks */
		{ 0, 10, 5, 2 },                /* overlapping blocks */
		{ 1ULL << 63, 1, 1, 1 },        /* offset too large */
		{ (1ULL << 63) - 1, 2, 2, 1 },  /* ends past 2^63 */
		{ 0, 1, 1ULL << 62, 3 },        /* strides past 2^63 */
		{ 0, 1, UINT64_MAX, UINT64_MAX }, /* overflowing product */
		{ 0, 1, 1, PVFS_PATTERN_MAX_COUNT + 1 }, /* too many blocks */
	};
	struct pvfs_pattern good = { (1ULL << 63) - 10, 10, 10, 1 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pvfs_pattern_check(&bad[i]), -EINVAL);
	assert_int_equal(pvfs_pattern_check(&good), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iter_matches_model),
		cmocka_unit_test(test_iter_matches_model_past_4gib),
		cmocka_unit_test(test_local_size_matches_model),
		cmocka_unit_test(test_logical_end_recovers_size),
		cmocka_unit_test(test_rel_and_abs),
		cmocka_unit_test(test_copy_placement),
		cmocka_unit_test(test_pattern_check_rejects),
	};

	xorshift_seed(0x9e3779b97f4a7c15ULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
