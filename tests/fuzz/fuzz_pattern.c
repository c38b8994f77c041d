/* fuzz_pattern.c - libFuzzer target: any strided pattern and distribution.
 * The iterator's pieces must tile each iod's share exactly, in logical
 * order, inside the pattern, and agree with the closed-form sizes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

/* Keep one input fast: the cost is the number of pieces, about bytes /
 * ssize, so tiny stripes get small patterns and large ones large. */
#define FUZZ_MAX_BYTES (1u << 22)
#define FUZZ_MAX_PIECES (1u << 14)

static uint64_t
take64(const uint8_t **p)
{
	uint64_t v = pvfs_be64_get(*p);

	*p += 8;
	return v;
}

static void
check_rel(const struct pvfs_pattern *pat, uint32_t pcount, uint32_t ssize,
    uint32_t rel)
{
	struct pvfs_stripe_iter it;
	struct pvfs_piece pc;
	uint64_t total = 0, last_end = 0, blk, end;

	pvfs_stripe_iter_init(&it, pat, pcount, ssize, rel);
	while (pvfs_stripe_iter_next(&it, &pc)) {
		blk = pat->count > 1 ? (pc.logical - pat->offset) / pat->stride : 0;
		end = pc.logical + pc.len;
		/* a byte's local offset is the count of rel's bytes before it */
		if (pc.len == 0 || pc.logical < last_end ||
		    pvfs_stripe_rel(pc.logical, pcount, ssize) != rel ||
		    pvfs_stripe_rel(end - 1, pcount, ssize) != rel ||
		    pc.local != pvfs_stripe_local_size(pc.logical, pcount, ssize, rel) ||
		    pc.local + pc.len != pvfs_stripe_local_size(end, pcount, ssize, rel) ||
		    pc.mem != blk * pat->gsize + (pc.logical - pat->offset - blk * pat->stride))
			abort();
		last_end = pc.logical + pc.len;
		total += pc.len;
	}
	if (total != pvfs_stripe_share(pat, pcount, ssize, rel))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pvfs_pattern pat;
	const uint8_t *p = data;
	uint32_t pcount, ssize, rel;

	if (size < 40)
		return 0;
	pat.offset = take64(&p) >> (data[39] & 63);
	pat.gsize = take64(&p) % 65536 + 1;
	pat.stride = pat.gsize + take64(&p) % 65536;
	pat.count = take64(&p) % 64 + 1;
	pcount = pvfs_be32_get(p) % 16 + 1;
	ssize = pvfs_be16_get(p + 4) % 8192 + 1;
	if (pvfs_pattern_check(&pat) != 0 || pat.gsize * pat.count > FUZZ_MAX_BYTES ||
	    pat.gsize * pat.count / ssize > FUZZ_MAX_PIECES)
		return 0;
	for (rel = 0; rel < pcount; rel++)
		check_rel(&pat, pcount, ssize, rel);
	return 0;
}
