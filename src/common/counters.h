/*
 * counters.h - what a daemon counts (counters.c): requests and errors by
 * operation with a latency histogram each, bytes in and out, and
 * connections; answered to MGR_COUNTERS / IOD_COUNTERS (pvfs-counters).
 * Daemons only: single-threaded, so plain integers.
 */
#ifndef PVFS_COUNTERS_H
#define PVFS_COUNTERS_H

#include <stdint.h>

#include "pvfs-proto.h"

/* Latency buckets in microseconds: 0..7 one each, then four per power of
 * two (a bucket's upper edge is at most 19% above its lower), up to 2^40
 * µs.  A percentile is reported as its bucket's upper edge. */
#define PVFS_LAT_BUCKETS 160

struct pvfs_op_stat {
	uint64_t count, errors, sum_us, max_us;
	uint32_t hist[PVFS_LAT_BUCKETS];
};

struct pvfs_counters {
	int64_t start_ms;
	uint64_t bytes_in, bytes_out;
	uint16_t base;             /* ops[i] counts opcode base + i... */
	uint32_t nops;             /* ...and ops[nops - 1] the extra one */
	struct pvfs_op_stat *ops;
};

/* Room for opcodes [base, end) and one extra (the mgr's journal commits);
 * pvfs_fatal when out of memory at start. */
void pvfs_counters_init(struct pvfs_counters *k, uint16_t base, uint16_t end);
void pvfs_counters_free(struct pvfs_counters *k);
/* One request of op that took ns, answered with status (0: success).
 * Nothing before pvfs_counters_init (the mgr's journal in tools and
 * tests). */
void pvfs_counters_op(struct pvfs_counters *k, uint16_t op, int status,
    int64_t ns);
/* The same for the extra slot, reported under opcode PVFS_OPSTAT_EXTRA. */
void pvfs_counters_extra(struct pvfs_counters *k, int status, int64_t ns);
/* Fill rep from k (ops with a count only), its entries in buf (room for
 * k->nops); the connection counts are the daemon's to give. */
void pvfs_counters_reply(const struct pvfs_counters *k, uint64_t conns_total,
    uint64_t conns_open,
    struct pvfs_counters_rep *rep, struct pvfs_opstat_wire *buf);

#endif /* PVFS_COUNTERS_H */
