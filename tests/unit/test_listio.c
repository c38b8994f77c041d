/*
 * test_listio.c - segment lists and partitions (stripe.c) against a
 * byte-level brute-force model: for random (N, base, pcount, ssize,
 * pattern), every byte of the request is placed by the definition of
 * striping, and each iod's iterator, share, share below an end and the
 * stream's prefix below a size must agree with it.  Also the LIST codec's
 * bounds, and the work bound of a list (pvfs_list_work, pvfs_list_round)
 * against an instrumented model of the share computation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common.h"
#include "pvfs-proto.h"
#include "xorshift.h"

/* A random file system shape and file distribution. */
struct shape {
	uint32_t niods, base, pcount, ssize;
};

static void
random_shape(struct shape *s)
{
	s->niods = (uint32_t)xorshift_range(1, 8);
	s->base = (uint32_t)xorshift_range(0, s->niods - 1);
	s->pcount = (uint32_t)xorshift_range(1, s->niods);
	s->ssize = (uint32_t)xorshift_range(1, 5) * (xorshift() % 2 ? 7 : 16);
}

/* One byte of the request as the model places it. */
struct mbyte {
	uint64_t logical, local, mem;
	uint32_t iod;
};

/* Expand segments byte by byte, in stream order. */
static struct mbyte *
model_expand(const struct shape *s, const struct pvfs_pattern *seg,
    uint32_t nseg, uint64_t *n)
{
	struct mbyte *m;
	uint64_t b, i, L, st, mem = 0, total = pvfs_list_bytes(seg, nseg);
	uint32_t k;

	m = calloc(total ? total : 1, sizeof(*m));
	assert_non_null(m);
	for (k = 0; k < nseg; k++)
		for (b = 0; b < seg[k].count; b++)
			for (i = 0; i < seg[k].gsize; i++, mem++) {
				L = seg[k].offset + b * seg[k].stride + i;
				st = L / s->ssize;
				m[mem].logical = L;
				m[mem].local = st / s->pcount * s->ssize + L % s->ssize;
				m[mem].mem = mem;
				m[mem].iod = (uint32_t)((s->base + st % s->pcount) %
				    s->niods);
			}
	*n = total;
	return m;
}

/* Each iod's iterator, share, share below random ends and the stream's
 * prefix below random sizes, against the model. */
static void
check_segments(const struct shape *s, const struct pvfs_pattern *seg,
    uint32_t nseg)
{
	struct pvfs_dist d = { .base = s->base, .pcount = s->pcount,
	    .ssize = s->ssize };
	struct pvfs_stripe_iter it;
	struct pvfs_piece pc;
	struct mbyte *m;
	uint64_t n, j, seen, end, below;
	uint32_t rel, iod;
	int t;

	assert_int_equal(pvfs_list_check(seg, nseg), 0);
	m = model_expand(s, seg, nseg, &n);
	assert_int_equal(pvfs_list_bytes(seg, nseg), n);
	for (rel = 0; rel < s->pcount; rel++) {
		iod = pvfs_stripe_abs(&d, rel, s->niods);
		if (nseg == 1)
			pvfs_stripe_iter_init(&it, seg, s->pcount, s->ssize, rel);
		else
			pvfs_stripe_iter_init_list(&it, seg, nseg, s->pcount,
			    s->ssize, rel);
		pc.len = 0;
		seen = 0;
		for (j = 0; j < n; j++) {
			if (m[j].iod != iod)
				continue;
			if (pc.len == 0)
				assert_true(pvfs_stripe_iter_next(&it, &pc));
			assert_int_equal(pc.logical, m[j].logical);
			assert_int_equal(pc.local, m[j].local);
			assert_int_equal(pc.mem, m[j].mem);
			pc.logical++, pc.local++, pc.mem++, pc.len--;
			seen++;
		}
		assert_int_equal(pc.len, 0);
		assert_false(pvfs_stripe_iter_next(&it, &pc));
		assert_int_equal(pvfs_list_share(seg, nseg, s->pcount, s->ssize,
		    rel), seen);
		for (t = 0; t < 4; t++) {
			end = xorshift_range(0, pvfs_pattern_end(&seg[nseg - 1]) + 10);
			for (j = 0, below = 0; j < n; j++)
				below += m[j].iod == iod && m[j].logical < end;
			assert_int_equal(pvfs_list_share_below(seg, nseg,
			    s->pcount, s->ssize, rel, end), below);
		}
	}
	for (t = 0; t < 4; t++) {
		end = xorshift_range(0, pvfs_pattern_end(&seg[nseg - 1]) + 10);
		for (j = 0; j < n && m[j].logical < end; j++)
			;
		assert_int_equal(pvfs_list_below(seg, nseg, end), j);
	}
	free(m);
}

/* Sorted, non-overlapping segments, some strided, from base_off on. */
static uint32_t
random_segments(struct pvfs_pattern *seg, uint32_t max, uint64_t base_off)
{
	uint32_t k, n = (uint32_t)xorshift_range(1, max);
	uint64_t cur = base_off + xorshift_range(0, 500);

	for (k = 0; k < n; k++) {
		seg[k].offset = cur + (k > 0 ? xorshift_range(0, 300) : 0);
		seg[k].gsize = xorshift_range(1, 200);
		seg[k].count = xorshift() % 2 ? 1 : xorshift_range(1, 5);
		seg[k].stride = seg[k].count > 1 ?
		    seg[k].gsize + xorshift_range(0, 150) : seg[k].gsize;
		cur = pvfs_pattern_end(&seg[k]);
	}
	return n;
}

static void
test_list_matches_model(void **state)
{
	struct pvfs_pattern seg[30];
	struct shape s;
	uint32_t n;
	int i;

	for (i = 0; i < 2000; i++) {
		random_shape(&s);
		n = random_segments(seg, 30, 0);
		check_segments(&s, seg, n);
	}
}

/* Region lists (count 1 each) with 64-bit offsets, across stripes. */
static void
test_region_list_past_4gib(void **state)
{
	struct pvfs_pattern seg[40];
	struct shape s;
	uint32_t n, k;
	int i;

	for (i = 0; i < 500; i++) {
		random_shape(&s);
		n = random_segments(seg, 40, (5ULL << 30) + xorshift_range(0, 1ULL << 36));
		for (k = 0; k < n; k++) {
			seg[k].count = 1;
			seg[k].stride = seg[k].gsize;
			if (k > 0 && seg[k].offset < pvfs_pattern_end(&seg[k - 1]))
				seg[k].offset = pvfs_pattern_end(&seg[k - 1]);
		}
		check_segments(&s, seg, n);
	}
}

/* The view byte v of a partition, by its definition. */
static uint64_t
model_view(const struct pvfs_part *p, uint64_t v)
{
	if (p->gsize == 0 || p->stride == 0 || p->gsize == p->stride)
		return p->offset + v;
	return p->offset + v / p->gsize * p->stride + v % p->gsize;
}

static void
random_part(struct pvfs_part *p)
{
	p->offset = xorshift_range(0, 400);
	p->gsize = xorshift_range(0, 6) == 0 ? 0 : xorshift_range(1, 120);
	p->stride = p->gsize + xorshift_range(0, 200);
	if (xorshift_range(0, 8) == 0)
		p->stride = 0;
}

/* pvfs_part_map gives segments whose bytes, in order, are the view's. */
static void
test_partition_matches_model(void **state)
{
	struct pvfs_pattern seg[8];
	struct pvfs_part p;
	struct shape s;
	uint64_t pos, len, j, b, i, k, mem;
	uint32_t n, q;
	int t;

	for (t = 0; t < 3000; t++) {
		random_part(&p);
		random_shape(&s);
		pos = xorshift_range(0, 700);
		len = xorshift_range(1, 900);
		n = pvfs_part_map(&p, pos, len, seg, 8);
		assert_true(n >= 1 && n <= 3);
		assert_true(n <= pvfs_part_nseg(&p, len));
		assert_int_equal(pvfs_list_bytes(seg, n), len);
		for (q = 0, mem = 0; q < n; q++)
			for (b = 0; b < seg[q].count; b++)
				for (i = 0; i < seg[q].gsize; i++, mem++) {
					k = seg[q].offset + b * seg[q].stride + i;
					assert_int_equal(k, model_view(&p, pos + mem));
				}
		check_segments(&s, seg, n);
		/* The view's size: view bytes below a file size. */
		k = xorshift_range(0, 3000);
		for (j = 0; model_view(&p, j) < k; j++)
			;
		assert_int_equal(pvfs_part_view_size(&p, k), j);
	}
}

/* Huge view reads split their groups over several segments; too little
 * room or an end past 2^63 maps to nothing. */
static void
test_partition_limits(void **state)
{
	struct pvfs_part p = { 10, 1, 3 };
	struct pvfs_pattern seg[8];
	uint64_t len = 3ULL * PVFS_PATTERN_MAX_COUNT + 5;
	uint32_t n;

	n = pvfs_part_map(&p, 1, len, seg, 8);
	assert_int_equal(n, 4);
	assert_int_equal(pvfs_list_bytes(seg, n), len);
	assert_int_equal(pvfs_list_check(seg, n), 0);
	assert_true(n <= pvfs_part_nseg(&p, len));
	assert_int_equal(pvfs_part_map(&p, 1, len, seg, 3), 0);
	p.stride = 1ULL << 40;
	assert_int_equal(pvfs_part_map(&p, 1ULL << 23, 2, seg, 8), 0);
	p = (struct pvfs_part){ (1ULL << 63) - 4, 0, 0 };
	assert_int_equal(pvfs_part_map(&p, 0, 4, seg, 8), 1);
	assert_int_equal(pvfs_part_map(&p, 1, 4, seg, 8), 0);
}

/* The periodic share equals the block-by-block sum, also for counts far
 * beyond the period. */
static void
test_share_periodic(void **state)
{
	struct pvfs_pattern pat, one;
	uint32_t pcount, ssize, rel;
	uint64_t b, sum;
	int t;

	for (t = 0; t < 400; t++) {
		pcount = (uint32_t)xorshift_range(1, 6);
		ssize = (uint32_t)xorshift_range(1, 40);
		pat.offset = xorshift_range(0, 1ULL << 40);
		pat.gsize = xorshift_range(1, 300);
		pat.stride = pat.gsize + xorshift_range(0, 500);
		pat.count = xorshift_range(1, 4000);
		rel = (uint32_t)xorshift_range(0, pcount - 1);
		for (b = 0, sum = 0; b < pat.count; b++) {
			one = (struct pvfs_pattern){ pat.offset + b * pat.stride,
				pat.gsize, pat.gsize, 1 };
			sum += pvfs_stripe_share(&one, pcount, ssize, rel);
		}
		assert_int_equal(pvfs_stripe_share(&pat, pcount, ssize, rel), sum);
	}
}

/* ---- the work bound (PVFS_LIST_MAX_WORK) ---- */

/* The share computation as doc/noncontig.md describes it, instrumented:
 * the period is found by stepping (not by gcd), and *steps counts the
 * blocks whose share it computes.  One pass over the first period gives
 * both the period's sum and the remainder's. */
static uint64_t
model_share(const struct pvfs_pattern *p, uint32_t pcount, uint32_t ssize,
    uint32_t rel, uint64_t *steps)
{
	uint64_t round = (uint64_t)pcount * ssize, period = 1, n, b;
	uint64_t sum = 0, head = 0, one;
	struct pvfs_pattern blk;

	if (p->count > 1)
		while (period * (p->stride % round) % round != 0)
			period++;
	n = p->count < period ? p->count : period;
	for (b = 0; b < n; b++) {
		blk = (struct pvfs_pattern){ p->offset + b * p->stride,
			p->gsize, p->gsize, 1 };
		one = pvfs_stripe_share(&blk, pcount, ssize, rel);
		(*steps)++;
		sum += one;
		if (b < p->count % period)
			head += one;
	}
	return p->count <= period ? sum : p->count / period * sum + head;
}

/* pvfs_list_work is exactly the model's step count for the share of a
 * list, and bounds that of the share below any end (k <= count blocks of
 * each segment, plus O(1) for the block the end cuts). */
static void
test_list_work_bounds_model(void **state)
{
	struct pvfs_pattern seg[6], k;
	uint64_t steps, steps_below, share, work, end, span, kb;
	uint32_t pcount, ssize, rel, nseg, i;
	int t;

	for (t = 0; t < 300; t++) {
		pcount = (uint32_t)xorshift_range(1, 6);
		ssize = (uint32_t)xorshift_range(1, 64);
		rel = (uint32_t)xorshift_range(0, pcount - 1);
		nseg = (uint32_t)xorshift_range(1, 6);
		seg[0].offset = xorshift_range(0, 1ULL << 32);
		for (i = 0; i < nseg; i++) {
			if (i > 0)
				seg[i].offset = pvfs_pattern_end(&seg[i - 1]) +
				    xorshift_range(0, 100);
			seg[i].gsize = xorshift_range(1, 50);
			seg[i].stride = seg[i].gsize + xorshift_range(0, 200);
			seg[i].count = xorshift_range(1, 3000);
		}
		assert_int_equal(pvfs_list_check(seg, nseg), 0);
		steps = share = 0;
		for (i = 0; i < nseg; i++)
			share += model_share(&seg[i], pcount, ssize, rel, &steps);
		work = pvfs_list_work(seg, nseg, pcount, ssize);
		assert_int_equal(share,
		    pvfs_list_share(seg, nseg, pcount, ssize, rel));
		assert_int_equal(work, steps);
		/* Below an end: segment i's k first blocks cost at most its
		 * work (min(k, period) <= min(count, period)). */
		end = xorshift_range(seg[0].offset, pvfs_pattern_end(&seg[nseg - 1]));
		steps_below = 0;
		for (i = 0; i < nseg && seg[i].offset < end; i++) {
			k = seg[i];
			span = end - k.offset;
			kb = span < k.gsize ? 0 : k.count == 1 ? 1 :
			    (span - k.gsize) / k.stride + 1;
			k.count = kb < k.count ? kb : k.count;
			if (k.count > 0)
				(void)model_share(&k, pcount, ssize, rel,
				    &steps_below);
		}
		assert_true(steps_below <= work);
	}
}

/* By hand: round 64 (pcount 4, ssize 16) unless said. */
static void
test_list_work_exact(void **state)
{
	struct pvfs_pattern l[5] = {
		{ 0, 1, 3, 1000 },     /* gcd(3, 64) = 1: period 64 */
		{ 3000, 1, 3, 10 },    /* fewer blocks than the period: 10 */
		{ 4000, 8, 16, 100 },  /* gcd 16: period 4 */
		{ 6000, 1, 128, 50 },  /* stride a multiple of the round: 1 */
		{ 20000, 9, 9, 1 },    /* one block: 1 */
	};
	struct pvfs_pattern big = { 0, 1, 3, PVFS_PATTERN_MAX_COUNT };

	assert_int_equal(pvfs_list_work(&l[0], 1, 4, 16), 64);
	assert_int_equal(pvfs_list_work(&l[1], 1, 4, 16), 10);
	assert_int_equal(pvfs_list_work(&l[2], 1, 4, 16), 4);
	assert_int_equal(pvfs_list_work(&l[3], 1, 4, 16), 1);
	assert_int_equal(pvfs_list_work(&l[4], 1, 4, 16), 1);
	assert_int_equal(pvfs_list_work(l, 5, 4, 16), 80);
	/* Round 60 (pcount 3, ssize 20): stride 3 repeats after 20 blocks,
	 * stride 6 after 10, stride 7 (coprime) after 60. */
	assert_int_equal(pvfs_list_work(&l[0], 1, 3, 20), 20);
	l[0].stride = 6;
	assert_int_equal(pvfs_list_work(&l[0], 1, 3, 20), 10);
	l[0].stride = 7;
	assert_int_equal(pvfs_list_work(&l[0], 1, 3, 20), 60);
	/* The largest segment against the largest round (2^36): its work is
	 * its count, PVFS_PATTERN_MAX_COUNT, which fits the budget alone. */
	assert_int_equal(pvfs_list_work(&big, 1, PVFS_MAX_IODS, PVFS_SSIZE_MAX),
	    PVFS_PATTERN_MAX_COUNT);
	assert_true(PVFS_PATTERN_MAX_COUNT <= PVFS_LIST_MAX_WORK);
	/* ... and the default round (4 x 64 KiB) caps it at the period. */
	assert_int_equal(pvfs_list_work(&big, 1, 4, 65536), 4 * 65536);
}

/* The hostile list: PVFS_LIST_MAX segments of PVFS_PATTERN_MAX_COUNT
 * blocks with a stride coprime with a large round is valid but costs
 * 2^38 steps; pvfs_list_work says so in O(nseg), and rounds split it
 * one segment at a time. */
static void
test_list_work_hostile(void **state)
{
	struct pvfs_pattern *seg = calloc(PVFS_LIST_MAX, sizeof(*seg));
	uint32_t pcount = 16, ssize = 1u << 22, i; /* round 2^26 */
	uint64_t span = 3ULL * PVFS_PATTERN_MAX_COUNT;

	assert_non_null(seg);
	for (i = 0; i < PVFS_LIST_MAX; i++)
		seg[i] = (struct pvfs_pattern){ i * span, 1, 3,
			PVFS_PATTERN_MAX_COUNT };
	assert_int_equal(pvfs_list_check(seg, PVFS_LIST_MAX), 0);
	assert_int_equal(pvfs_list_work(seg, PVFS_LIST_MAX, pcount, ssize),
	    (uint64_t)PVFS_LIST_MAX * PVFS_PATTERN_MAX_COUNT);
	assert_true(pvfs_list_work(seg, PVFS_LIST_MAX, pcount, ssize) >
	    PVFS_LIST_MAX_WORK);
	assert_int_equal(pvfs_list_round(seg, PVFS_LIST_MAX, pcount, ssize), 1);
	/* Half the blocks: two segments per round. */
	for (i = 0; i < PVFS_LIST_MAX; i++)
		seg[i].count = PVFS_PATTERN_MAX_COUNT / 2;
	assert_int_equal(pvfs_list_round(seg, PVFS_LIST_MAX, pcount, ssize), 2);
	/* One block more than half: one per round again. */
	seg[1].count++;
	assert_int_equal(pvfs_list_round(seg, PVFS_LIST_MAX, pcount, ssize), 1);
	/* A small round caps each segment at its period (2^8): 2^16 of them
	 * would fit the budget, PVFS_LIST_MAX caps the round. */
	assert_int_equal(pvfs_list_round(seg, PVFS_LIST_MAX, 16, 16),
	    PVFS_LIST_MAX);
	assert_int_equal(pvfs_list_round(seg, 7, 16, 16), 7);
	assert_int_equal(pvfs_list_round(seg, 0, 16, 16), 0);
	free(seg);
}

/* Rounds cover a long list exactly, each within both limits. */
static void
test_list_round_random(void **state)
{
	enum { N = 3 * PVFS_LIST_MAX };
	struct pvfs_pattern *seg = calloc(N, sizeof(*seg));
	uint32_t pcount, ssize, i, n, rounds;
	uint64_t off;
	int t;

	assert_non_null(seg);
	for (t = 0; t < 6; t++) {
		pcount = (uint32_t)xorshift_range(1, 64);
		ssize = (uint32_t)xorshift_range(1, 1u << 20);
		for (i = 0, off = 0; i < N; i++) {
			seg[i].offset = off;
			seg[i].gsize = xorshift_range(1, 4);
			seg[i].stride = seg[i].gsize + xorshift_range(0, 7);
			seg[i].count = xorshift() % 8 == 0 ?
			    xorshift_range(1, PVFS_PATTERN_MAX_COUNT) : xorshift_range(1, 3);
			off = pvfs_pattern_end(&seg[i]) + 1;
		}
		for (i = 0, rounds = 0; i < N; i += n, rounds++) {
			n = pvfs_list_round(&seg[i], N - i, pcount, ssize);
			assert_true(n >= 1 && n <= PVFS_LIST_MAX);
			assert_true(pvfs_list_work(&seg[i], n, pcount, ssize) <=
			    PVFS_LIST_MAX_WORK);
			/* Maximal: one more segment would break a limit. */
			if (i + n < N && n < PVFS_LIST_MAX)
				assert_true(pvfs_list_work(&seg[i], n + 1, pcount,
				    ssize) > PVFS_LIST_MAX_WORK);
		}
		assert_true(rounds >= 3);
	}
	free(seg);
}

static void
test_list_check_rejects(void **state)
{
	struct pvfs_pattern ok[2] = { { 0, 10, 20, 3 }, { 50, 5, 5, 1 } };
	struct pvfs_pattern overlap[2] = { { 0, 10, 20, 3 }, { 49, 5, 5, 1 } };
	struct pvfs_pattern unsorted[2] = { { 100, 10, 10, 1 }, { 0, 5, 5, 1 } };
	struct pvfs_pattern bad[2] = { { 0, 10, 10, 1 }, { 20, 0, 0, 1 } };
	struct pvfs_pattern big[2] = { { 0, 1ULL << 62, 1ULL << 62, 1 },
		{ (1ULL << 62) + 1, (1ULL << 62) - 2, (1ULL << 62) - 2, 1 } };
	struct pvfs_pattern *many;

	assert_int_equal(pvfs_list_check(ok, 2), 0);
	assert_int_equal(pvfs_list_check(overlap, 2), -EINVAL);
	assert_int_equal(pvfs_list_check(unsorted, 2), -EINVAL);
	assert_int_equal(pvfs_list_check(bad, 2), -EINVAL);
	assert_int_equal(pvfs_list_check(ok, 0), -EINVAL);
	assert_int_equal(pvfs_list_check(big, 2), 0);
	big[1].gsize = big[1].stride = 1ULL << 62; /* past 2^63 */
	assert_int_equal(pvfs_list_check(big, 2), -EINVAL);
	many = calloc(PVFS_LIST_MAX + 1, sizeof(*many));
	assert_non_null(many);
	for (uint32_t i = 0; i <= PVFS_LIST_MAX; i++)
		many[i] = (struct pvfs_pattern){ 2 * i, 1, 1, 1 };
	assert_int_equal(pvfs_list_check(many, PVFS_LIST_MAX), 0);
	assert_int_equal(pvfs_list_check(many, PVFS_LIST_MAX + 1), -EINVAL);
	free(many);
}

/* A LIST request survives the codec; a count over the cap, or over what
 * the body holds, is refused before anything is allocated. */
static void
test_list_codec_bounds(void **state)
{
	struct pvfs_pattern seg[3] = { { 0, 4, 8, 2 }, { 100, 1, 1, 1 },
		{ 1ULL << 40, 7, 9, 3 } };
	struct pvfs_iod_write_list_req req, got;
	struct pvfs_buf b;
	struct pvfs_hdr h;
	size_t cnt_at;

	memset(&req, 0, sizeof(req));
	req.rel = 3;
	req.nseg = 3;
	req.seg = seg;
	req.stream_len = 42;
	pvfs_buf_init(&b);
	assert_int_equal(pvfs_frame_encode(&b, PVFS_IOD_WRITE_LIST, 7, 0, 0, &req), 0);
	assert_int_equal(pvfs_hdr_decode(b.data, &h), 0);
	assert_int_equal(pvfs_msg_decode(PVFS_IOD_WRITE_LIST, 0,
	    b.data + PVFS_HDR_LEN, h.body_len, &got), 0);
	assert_int_equal(got.nseg, 3);
	assert_int_equal(got.rel, 3);
	assert_int_equal(got.stream_len, 42);
	assert_memory_equal(got.seg, seg, sizeof(seg));
	pvfs_msg_free(PVFS_IOD_WRITE_LIST, 0, &got);
	/* The count sits after cap and rel: 8 bytes of stream_len and 3
	 * segments of 32 bytes follow it. */
	cnt_at = PVFS_HDR_LEN + h.body_len - 8 - 3 * 32 - 4;
	assert_int_equal(pvfs_be32_get(b.data + cnt_at), 3);
	pvfs_be32_put(b.data + cnt_at, PVFS_LIST_MAX + 1);
	assert_int_equal(pvfs_msg_decode(PVFS_IOD_WRITE_LIST, 0,
	    b.data + PVFS_HDR_LEN, h.body_len, &got), -EPROTO);
	pvfs_be32_put(b.data + cnt_at, 4);
	assert_int_equal(pvfs_msg_decode(PVFS_IOD_WRITE_LIST, 0,
	    b.data + PVFS_HDR_LEN, h.body_len, &got), -EPROTO);
	pvfs_be32_put(b.data + cnt_at, 0xffffffffu);
	assert_int_equal(pvfs_msg_decode(PVFS_IOD_WRITE_LIST, 0,
	    b.data + PVFS_HDR_LEN, h.body_len, &got), -EPROTO);
	/* A full list fits a frame body. */
	req.nseg = PVFS_LIST_MAX;
	req.seg = calloc(PVFS_LIST_MAX, sizeof(*req.seg));
	assert_non_null(req.seg);
	pvfs_buf_reset(&b);
	assert_int_equal(pvfs_frame_encode(&b, PVFS_IOD_WRITE_LIST, 8, 0, 0, &req), 0);
	free(req.seg);
	pvfs_buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_matches_model),
		cmocka_unit_test(test_region_list_past_4gib),
		cmocka_unit_test(test_partition_matches_model),
		cmocka_unit_test(test_partition_limits),
		cmocka_unit_test(test_share_periodic),
		cmocka_unit_test(test_list_work_bounds_model),
		cmocka_unit_test(test_list_work_exact),
		cmocka_unit_test(test_list_work_hostile),
		cmocka_unit_test(test_list_round_random),
		cmocka_unit_test(test_list_check_rejects),
		cmocka_unit_test(test_list_codec_bounds),
	};

	xorshift_seed(0x2545f4914f6cdd1dULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
