/*
 * stripe.c - where each byte of a file lives.
 *
 * Stripe s (bytes s*ssize .. s*ssize+ssize-1) belongs to the iod at
 * relative position s % pcount, at local offset (s / pcount) * ssize.
 * Everything here is integer arithmetic on 64-bit offsets; no function
 * walks bytes, and only the iterator walks stripes.
 */
#include <errno.h>

#include "common.h"

#define PVFS_OFF_LIMIT ((uint64_t)1 << 63)

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

uint64_t
pvfs_stripe_share(const struct pvfs_pattern *pat, uint32_t pcount,
    uint32_t ssize, uint32_t rel)
{
	uint64_t b, start, total = 0;

	for (b = 0; b < pat->count; b++) {
		start = pat->offset + b * pat->stride;
		total += pvfs_stripe_local_size(start + pat->gsize, pcount, ssize, rel) -
		    pvfs_stripe_local_size(start, pcount, ssize, rel);
	}
	return total;
}

void
pvfs_stripe_iter_init(struct pvfs_stripe_iter *it, const struct pvfs_pattern *pat,
    uint32_t pcount, uint32_t ssize, uint32_t rel)
{
	it->pat = *pat;
	it->pcount = pcount;
	it->ssize = ssize;
	it->rel = rel;
	it->block = 0;
	it->pos = 0;
}

/* Distance from stripe s to the next stripe at or after it held by rel. */
static uint64_t
stripes_to_own(uint64_t s, uint32_t pcount, uint32_t rel)
{
	uint32_t have = (uint32_t)(s % pcount);

	return have <= rel ? rel - have : pcount - have + rel;
}

int
pvfs_stripe_iter_next(struct pvfs_stripe_iter *it, struct pvfs_piece *pc)
{
	const struct pvfs_pattern *p = &it->pat;
	uint64_t bstart, l, s, skip, own_start, end;

	while (it->block < p->count) {
		bstart = p->offset + it->block * p->stride;
		l = bstart + it->pos;
		s = l / it->ssize;
		skip = stripes_to_own(s, it->pcount, it->rel);
		own_start = skip ? (s + skip) * it->ssize : l;
		if (own_start >= bstart + p->gsize) {
			it->block++;
			it->pos = 0;
			continue;
		}
		s += skip;
		end = (s + 1) * it->ssize;
		if (end > bstart + p->gsize)
			end = bstart + p->gsize;
		pc->logical = own_start;
		pc->local = s / it->pcount * it->ssize + own_start % it->ssize;
		pc->mem = it->block * p->gsize + (own_start - bstart);
		pc->len = end - own_start;
		it->pos = end - bstart;
		if (it->pos == p->gsize) {
			it->block++;
			it->pos = 0;
		}
		return 1;
	}
	return 0;
}
