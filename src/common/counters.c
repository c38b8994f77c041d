/*
 * counters.c - a daemon's counters (counters.h).
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "counters.h"

#define LAT_MAX_MSB 40

static unsigned
lat_bucket(uint64_t us)
{
	unsigned m;

	if (us < 8)
		return (unsigned)us;
	m = 63u - (unsigned)__builtin_clzll(us);
	if (m > LAT_MAX_MSB)
		return PVFS_LAT_BUCKETS - 1;
	return 8 + (m - 3) * 4 + (unsigned)((us >> (m - 2)) & 3);
}

/* The first latency past bucket b (its upper edge). */
static uint64_t
lat_upper(unsigned b)
{
	unsigned m, sub;

	if (b < 7)
		return b + 1;
	b++;
	if (b >= PVFS_LAT_BUCKETS)
		return (uint64_t)1 << (LAT_MAX_MSB + 1);
	m = 3 + (b - 8) / 4;
	sub = (b - 8) % 4;
	return (uint64_t)(4 + sub) << (m - 2);
}

static uint64_t
lat_percentile(const struct pvfs_op_stat *s, unsigned pct)
{
	uint64_t want = (s->count * pct + 99) / 100, seen = 0;
	unsigned b;

	for (b = 0; b < PVFS_LAT_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen >= want && seen > 0)
			return lat_upper(b) < s->max_us ? lat_upper(b) : s->max_us;
	}
	return s->max_us;
}

void
pvfs_counters_init(struct pvfs_counters *k, uint16_t base, uint16_t end)
{
	memset(k, 0, sizeof(*k));
	k->start_ms = pvfs_mono_ms();
	k->base = base;
	k->nops = (uint32_t)(end - base) + 1;
	if (k->nops > PVFS_OPSTAT_MAX)
		pvfs_fatal("bug: %u opcodes to count, the reply holds %u",
		    k->nops, PVFS_OPSTAT_MAX);
	if ((k->ops = calloc(k->nops, sizeof(*k->ops))) == NULL)
		pvfs_fatal("out of memory (counters)");
}

void
pvfs_counters_free(struct pvfs_counters *k)
{
	free(k->ops);
	k->ops = NULL;
}

static void
stat_add(struct pvfs_op_stat *s, int status, int64_t ns)
{
	uint64_t us = ns > 0 ? (uint64_t)ns / 1000 : 0;

	s->count++;
	s->sum_us += us;
	if (status != 0)
		s->errors++;
	if (us > s->max_us)
		s->max_us = us;
	s->hist[lat_bucket(us)]++;
}

void
pvfs_counters_op(struct pvfs_counters *k, uint16_t op, int status, int64_t ns)
{
	if (k->ops != NULL && op >= k->base &&
	    (uint32_t)(op - k->base) < k->nops - 1)
		stat_add(&k->ops[op - k->base], status, ns);
}

void
pvfs_counters_extra(struct pvfs_counters *k, int status, int64_t ns)
{
	if (k->ops != NULL)
		stat_add(&k->ops[k->nops - 1], status, ns);
}

void
pvfs_counters_reply(const struct pvfs_counters *k, uint64_t conns_total,
    uint64_t conns_open,
    struct pvfs_counters_rep *rep, struct pvfs_opstat_wire *buf)
{
	uint32_t i;

	memset(rep, 0, sizeof(*rep));
	rep->uptime_ms = (uint64_t)(pvfs_mono_ms() - k->start_ms);
	rep->conns_total = conns_total;
	rep->conns_open = conns_open;
	rep->bytes_in = k->bytes_in;
	rep->bytes_out = k->bytes_out;
	rep->ops = buf;
	for (i = 0; i < k->nops; i++) {
		const struct pvfs_op_stat *s = &k->ops[i];
		struct pvfs_opstat_wire *w;

		if (s->count == 0)
			continue;
		w = &buf[rep->n++];
		w->op = i == k->nops - 1 ? PVFS_OPSTAT_EXTRA : (uint16_t)(k->base + i);
		w->count = s->count;
		w->errors = s->errors;
		w->p50_us = lat_percentile(s, 50);
		w->p90_us = lat_percentile(s, 90);
		w->p99_us = lat_percentile(s, 99);
		w->max_us = s->max_us;
		w->sum_us = s->sum_us;
	}
}
