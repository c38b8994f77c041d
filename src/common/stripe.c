/*
 * stripe.c - where each byte of a file lives.
 *
 * Stripe s (bytes s*ssize .. s*ssize+ssize-1) belongs to the iod at
 * relative position s % pcount, at local offset (s / pcount) * ssize.
 * Everything here is integer arithmetic on 64-bit offsets; no function
 * walks bytes, and only the iterator walks stripes.  A request is one
 * pattern or a list of them ("segments", in increasing file order); a
 * PVFS 1 partition maps a view of the file onto such a list
 * (doc/noncontig.md).
 */
#include <errno.h>

#include <string.h>

#include "common.h"

#define PVFS_OFF_LIMIT ((uint64_t)1 << 63)

/* One valid segment always fits one list request (pvfs_list_round). */
_Static_assert(PVFS_PATTERN_MAX_COUNT <= PVFS_LIST_MAX_WORK,
    "a segment's work must fit the list budget");

int
pvfs_pattern_check(const struct pvfs_pattern *p)
{
	uint64_t last_start;

	if (p->gsize == 0 || p->count == 0 || p->count > PVFS_PATTERN_MAX_COUNT)
		return -EINVAL;
	if (p->count > 1 && p->stride < p->gsize)
		return -EINVAL;
	if (p->offset >= PVFS_OFF_LIMIT || p->gsize >= PVFS_OFF_LIMIT)
		return -EINVAL;
	if (p->count > 1 && p->stride > (PVFS_OFF_LIMIT - p->offset) / (p->count - 1))
		return -EINVAL;
	last_start = p->offset + (p->count - 1) * (p->count > 1 ? p->stride : 0);
	if (p->gsize > PVFS_OFF_LIMIT - last_start)
		return -EINVAL;
	return 0;
}

uint32_t
pvfs_stripe_rel(uint64_t off, uint32_t pcount, uint32_t ssize)
{
	return (uint32_t)((off / ssize) % pcount);
}

uint32_t
pvfs_stripe_abs(const struct pvfs_dist *d, uint32_t rel, uint32_t niods)
{
	return (uint32_t)(((uint64_t)d->base + rel) % niods);
}

uint32_t
pvfs_stripe_copy_abs(const struct pvfs_dist *d, uint32_t rel, uint32_t copy,
    uint32_t niods)
{
	return (uint32_t)(((uint64_t)d->base + rel + (uint64_t)copy * d->mshift) %
	    niods);
}

uint32_t
pvfs_dist_copies(const struct pvfs_dist *d)
{
	return d->copies > 1 ? d->copies : 1;
}

int
pvfs_stripe_copies_apart(const struct pvfs_dist *d, uint32_t niods,
    const char *const *host)
{
	uint32_t rel, j, k, a, b, n = pvfs_dist_copies(d);

	for (rel = 0; rel < d->pcount; rel++)
		for (j = 0; j < n; j++)
			for (k = j + 1; k < n; k++) {
				a = pvfs_stripe_copy_abs(d, rel, j, niods);
				b = pvfs_stripe_copy_abs(d, rel, k, niods);
				if (a == b || (host != NULL &&
				    strcmp(host[a], host[b]) == 0))
					return 0;
			}
	return 1;
}

/* Bytes of iod rel in [0, logical_size): whole rounds of pcount stripes,
 * plus its part of the last, partial round. */
uint64_t
pvfs_stripe_local_size(uint64_t logical_size, uint32_t pcount, uint32_t ssize,
    uint32_t rel)
{
	uint64_t round = (uint64_t)pcount * ssize;
	uint64_t rem = logical_size % round;
	uint64_t start = (uint64_t)rel * ssize;
	uint64_t part = 0;

	if (rem > start)
		part = rem - start < ssize ? rem - start : ssize;
	return logical_size / round * ssize + part;
}

uint64_t
pvfs_stripe_logical_end(uint64_t local_size, uint32_t pcount, uint32_t ssize,
    uint32_t rel)
{
	uint64_t last, stripe;

	if (local_size == 0)
		return 0;
	last = local_size - 1;
	stripe = last / ssize * pcount + rel;
	return stripe * ssize + last % ssize + 1;
}

static uint64_t
stripe_gcd(uint64_t a, uint64_t b)
{
	uint64_t t;

	while (b != 0) {
		t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* Bytes of [start, start + len) held by rel. */
static uint64_t
stripe_range_share(uint64_t start, uint64_t len, uint32_t pcount,
    uint32_t ssize, uint32_t rel)
{
	return pvfs_stripe_local_size(start + len, pcount, ssize, rel) -
	    pvfs_stripe_local_size(start, pcount, ssize, rel);
}

/* Shares of the first n blocks (the result) and of the first m <= n of
 * them (*head), in one pass of n steps. */
static uint64_t
stripe_blocks_share(const struct pvfs_pattern *pat, uint64_t n, uint64_t m,
    uint64_t *head, uint32_t pcount, uint32_t ssize, uint32_t rel)
{
	uint64_t b, one, total = 0;

	*head = 0;
	for (b = 0; b < n; b++) {
		one = stripe_range_share(pat->offset + b * pat->stride,
		    pat->gsize, pcount, ssize, rel);
		total += one;
		if (b < m)
			*head += one;
	}
	return total;
}

/* Blocks after which block starts repeat modulo one round of stripes
 * (pcount * ssize): round / gcd(stride, round), at most 2^36.  A round
 * of 0 (a bad distribution) is treated as "never repeats". */
static uint64_t
stripe_period(const struct pvfs_pattern *pat, uint32_t pcount, uint32_t ssize)
{
	uint64_t round = (uint64_t)pcount * ssize;

	if (round == 0)
		return pat->count > 1 ? pat->count : 1;
	return round / stripe_gcd(pat->stride % round, round);
}

/* A block's share depends only on its start modulo one round of stripes
 * (local_size(x + round) = local_size(x) + ssize), and block starts
 * repeat modulo the round every `period` blocks: sum one period, multiply,
 * add the first count % period blocks again (summed in the same pass).
 * Steps: min(count, period), exactly what pvfs_list_work counts. */
uint64_t
pvfs_stripe_share(const struct pvfs_pattern *pat, uint32_t pcount,
    uint32_t ssize, uint32_t rel)
{
	uint64_t period, one_period, head;

	if (pat->count <= 1)
		return pat->count ? stripe_range_share(pat->offset, pat->gsize,
		    pcount, ssize, rel) : 0;
	period = stripe_period(pat, pcount, ssize);
	if (pat->count <= period)
		return stripe_blocks_share(pat, pat->count, 0, &head, pcount,
		    ssize, rel);
	one_period = stripe_blocks_share(pat, period, pat->count % period,
	    &head, pcount, ssize, rel);
	return pat->count / period * one_period + head;
}

/* min(count, period) per segment: pvfs_stripe_share's steps, and an upper
 * bound of pvfs_stripe_share_below's (which shares k <= count blocks, plus
 * the one block end cuts, O(1)). */
uint64_t
pvfs_list_work(const struct pvfs_pattern *seg, uint32_t nseg, uint32_t pcount,
    uint32_t ssize)
{
	uint64_t period, work = 0;
	uint32_t i;

	for (i = 0; i < nseg; i++) {
		period = stripe_period(&seg[i], pcount, ssize);
		work += seg[i].count < period ? seg[i].count : period;
	}
	return work;
}

/* Segments from seg[0] that one request may carry: at most PVFS_LIST_MAX
 * and at most PVFS_LIST_MAX_WORK of work, but always the first one (a
 * valid segment's work is at most its count, <= PVFS_PATTERN_MAX_COUNT
 * = PVFS_LIST_MAX_WORK). */
uint32_t
pvfs_list_round(const struct pvfs_pattern *seg, uint32_t nseg, uint32_t pcount,
    uint32_t ssize)
{
	uint64_t work = 0, w;
	uint32_t n;

	for (n = 0; n < nseg && n < PVFS_LIST_MAX; n++) {
		w = pvfs_list_work(&seg[n], 1, pcount, ssize);
		if (n > 0 && (work > PVFS_LIST_MAX_WORK ||
		    w > PVFS_LIST_MAX_WORK - work))
			break;
		work += w;
	}
	return n;
}

/* The blocks wholly below end, plus the one block end cuts. */
uint64_t
pvfs_stripe_share_below(const struct pvfs_pattern *pat, uint32_t pcount,
    uint32_t ssize, uint32_t rel, uint64_t end)
{
	struct pvfs_pattern p = *pat;
	uint64_t span, k, start, share = 0;

	if (end <= pat->offset)
		return 0;
	span = end - pat->offset;
	if (span < pat->gsize)
		k = 0;
	else if (pat->count == 1)
		k = 1;
	else
		k = (span - pat->gsize) / pat->stride + 1;
	if (k > pat->count)
		k = pat->count;
	if (k > 0) {
		p.count = k;
		share = pvfs_stripe_share(&p, pcount, ssize, rel);
	}
	if (k < pat->count) {
		start = pat->offset + k * pat->stride;
		if (start < end)
			share += stripe_range_share(start, end - start, pcount,
			    ssize, rel);
	}
	return share;
}

uint64_t
pvfs_pattern_bytes(const struct pvfs_pattern *pat)
{
	return pat->gsize * pat->count;
}

uint64_t
pvfs_pattern_end(const struct pvfs_pattern *pat)
{
	return pat->offset + (pat->count - 1) * pat->stride + pat->gsize;
}

/* Whole blocks before the one size falls in, then part of that one. */
uint64_t
pvfs_pattern_below(const struct pvfs_pattern *pat, uint64_t size)
{
	uint64_t d, b, rem, stride = pat->count > 1 ? pat->stride : pat->gsize;

	if (size <= pat->offset)
		return 0;
	d = size - pat->offset;
	b = d / stride;
	if (b >= pat->count)
		return pvfs_pattern_bytes(pat);
	rem = d - b * stride;
	return b * pat->gsize + (rem < pat->gsize ? rem : pat->gsize);
}

int
pvfs_list_check(const struct pvfs_pattern *seg, uint32_t nseg)
{
	uint64_t end = 0, total = 0, bytes;
	uint32_t i;

	if (nseg == 0 || nseg > PVFS_LIST_MAX || seg == NULL)
		return -EINVAL;
	for (i = 0; i < nseg; i++) {
		if (pvfs_pattern_check(&seg[i]) != 0 ||
		    (i > 0 && seg[i].offset < end))
			return -EINVAL;
		end = pvfs_pattern_end(&seg[i]);
		bytes = pvfs_pattern_bytes(&seg[i]);
		if (bytes > PVFS_OFF_LIMIT - total)
			return -EINVAL;
		total += bytes;
	}
	return 0;
}

uint64_t
pvfs_list_share(const struct pvfs_pattern *seg, uint32_t nseg,
    uint32_t pcount, uint32_t ssize, uint32_t rel)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < nseg; i++)
		total += pvfs_stripe_share(&seg[i], pcount, ssize, rel);
	return total;
}

/* Segments are in file order: stop at the first one starting past end. */
uint64_t
pvfs_list_share_below(const struct pvfs_pattern *seg, uint32_t nseg,
    uint32_t pcount, uint32_t ssize, uint32_t rel, uint64_t end)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < nseg && seg[i].offset < end; i++)
		total += pvfs_stripe_share_below(&seg[i], pcount, ssize, rel, end);
	return total;
}

uint64_t
pvfs_list_bytes(const struct pvfs_pattern *seg, uint32_t nseg)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < nseg; i++)
		total += pvfs_pattern_bytes(&seg[i]);
	return total;
}

uint64_t
pvfs_list_below(const struct pvfs_pattern *seg, uint32_t nseg, uint64_t size)
{
	uint64_t total = 0;
	uint32_t i;

	for (i = 0; i < nseg && seg[i].offset < size; i++)
		total += pvfs_pattern_below(&seg[i], size);
	return total;
}

void
pvfs_stripe_iter_init(struct pvfs_stripe_iter *it, const struct pvfs_pattern *pat,
    uint32_t pcount, uint32_t ssize, uint32_t rel)
{
	it->one = *pat;
	it->seg = NULL;
	it->nseg = 1;
	it->cur = 0;
	it->mem_base = 0;
	it->pcount = pcount;
	it->ssize = ssize;
	it->rel = rel;
	it->block = 0;
	it->pos = 0;
}

void
pvfs_stripe_iter_init_list(struct pvfs_stripe_iter *it,
    const struct pvfs_pattern *seg, uint32_t nseg, uint32_t pcount,
    uint32_t ssize, uint32_t rel)
{
	pvfs_stripe_iter_init(it, &seg[0], pcount, ssize, rel);
	it->seg = seg;
	it->nseg = nseg;
}

/* Distance from stripe s to the next stripe at or after it held by rel. */
static uint64_t
stripes_to_own(uint64_t s, uint32_t pcount, uint32_t rel)
{
	uint32_t have = (uint32_t)(s % pcount);

	return have <= rel ? rel - have : pcount - have + rel;
}

/* Step to the next block, and to the next segment after the last one. */
static void
stripe_iter_advance(struct pvfs_stripe_iter *it, const struct pvfs_pattern *p)
{
	it->pos = 0;
	if (++it->block < p->count)
		return;
	it->mem_base += pvfs_pattern_bytes(p);
	it->block = 0;
	it->cur++;
}

int
pvfs_stripe_iter_next(struct pvfs_stripe_iter *it, struct pvfs_piece *pc)
{
	const struct pvfs_pattern *p;
	uint64_t bstart, l, s, skip, own_start, end;

	while (it->cur < it->nseg) {
		p = it->seg != NULL ? &it->seg[it->cur] : &it->one;
		bstart = p->offset + it->block * p->stride;
		l = bstart + it->pos;
		s = l / it->ssize;
		skip = stripes_to_own(s, it->pcount, it->rel);
		own_start = skip ? (s + skip) * it->ssize : l;
		if (own_start >= bstart + p->gsize) {
			stripe_iter_advance(it, p);
			continue;
		}
		s += skip;
		end = (s + 1) * it->ssize;
		if (end > bstart + p->gsize)
			end = bstart + p->gsize;
		pc->logical = own_start;
		pc->local = s / it->pcount * it->ssize + own_start % it->ssize;
		pc->mem = it->mem_base + it->block * p->gsize + (own_start - bstart);
		pc->len = end - own_start;
		it->pos = end - bstart;
		if (it->pos == p->gsize)
			stripe_iter_advance(it, p);
		return 1;
	}
	return 0;
}

/* ---- partitions ---- */

static int
part_contig(const struct pvfs_part *p)
{
	return p->gsize == 0 || p->stride == 0 || p->gsize == p->stride;
}

static void
part_seg(struct pvfs_pattern *seg, uint64_t off, uint64_t gsize,
    uint64_t stride, uint64_t count)
{
	seg->offset = off;
	seg->gsize = gsize;
	seg->stride = stride;
	seg->count = count;
}

/* File offset of group g's first byte, or PVFS_OFF_LIMIT past 2^63. */
static uint64_t
part_group(const struct pvfs_part *p, uint64_t g)
{
	uint64_t o;

	if (__builtin_mul_overflow(g, p->stride, &o) ||
	    __builtin_add_overflow(o, p->offset, &o) || o > PVFS_OFF_LIMIT)
		return PVFS_OFF_LIMIT;
	return o;
}

/* Whole groups go as segments of at most PVFS_PATTERN_MAX_COUNT blocks. */
uint32_t
pvfs_part_map(const struct pvfs_part *p, uint64_t pos, uint64_t len,
    struct pvfs_pattern *seg, uint32_t max)
{
	uint64_t g, skip, n, k;
	uint32_t i, nseg = 0;

	if (part_contig(p)) {
		if (pos > PVFS_OFF_LIMIT || p->offset > PVFS_OFF_LIMIT - pos)
			return 0;
		part_seg(&seg[nseg++], p->offset + pos, len, len, 1);
		return pvfs_pattern_check(&seg[0]) == 0 ? 1 : 0;
	}
	g = pos / p->gsize;
	skip = pos % p->gsize;
	if (skip > 0 || len < p->gsize) {
		n = p->gsize - skip < len ? p->gsize - skip : len;
		part_seg(&seg[nseg++], part_group(p, g) + skip, n, n, 1);
		len -= n;
		g++;
	}
	while ((k = len / p->gsize) > 0 && nseg < max) {
		if (k > PVFS_PATTERN_MAX_COUNT)
			k = PVFS_PATTERN_MAX_COUNT;
		part_seg(&seg[nseg++], part_group(p, g), p->gsize, p->stride, k);
		len -= k * p->gsize;
		g += k;
	}
	if (len > 0 && len < p->gsize && nseg < max) {
		part_seg(&seg[nseg++], part_group(p, g), len, len, 1);
		len = 0;
	}
	if (len > 0)
		return 0; /* more segments than max */
	for (i = 0; i < nseg; i++)
		if (pvfs_pattern_check(&seg[i]) != 0)
			return 0;
	return nseg;
}

/* Segments pvfs_part_map needs for len view bytes. */
uint32_t
pvfs_part_nseg(const struct pvfs_part *p, uint64_t len)
{
	if (part_contig(p))
		return 1;
	return (uint32_t)(3 + len / p->gsize / PVFS_PATTERN_MAX_COUNT);
}

uint64_t
pvfs_part_view_size(const struct pvfs_part *p, uint64_t size)
{
	uint64_t d, r;

	if (size <= p->offset)
		return 0;
	d = size - p->offset;
	if (part_contig(p))
		return d;
	r = d % p->stride;
	return d / p->stride * p->gsize + (r < p->gsize ? r : p->gsize);
}
