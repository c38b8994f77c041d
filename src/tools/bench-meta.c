/*
 * bench-meta.c - metadata operations per second and their latency
 * percentiles.  The clients share one directory of opts->files names
 * (each client its own names); each operation is a phase that starts at
 * a barrier.  Rate = operations of all clients / (last end - first start);
 * latency is per call, and for readdir per listing of the whole
 * directory (its rate counts entries).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define META_LISTINGS 3   /* listings of the whole directory per client */

static const char *meta_names[BM_NOPS] = {
	"create+close", "open+close", "stat", "stat-again", "readdir", "rename", "unlink",
};

const char *
bench_meta_name(enum bench_meta_op op)
{
	return meta_names[op];
}

struct meta_ctx {
	const struct bench_meta_opts *o;
	const struct bench_fs *fs;
	struct bench_group *g;
	int nper;             /* names per client */
	float *lat;           /* shared: [BM_NOPS][files] microseconds */
	size_t lat_len;
};

static void
meta_name(const struct meta_ctx *m, char *buf, size_t len, char kind, int i)
{
	snprintf(buf, len, "%s/%c%d.%d", m->o->dir, kind, bench_group_rank(m->g), i);
}

/* One call of op on name i; 0 or -1 with a message. */
static int
meta_one(const struct meta_ctx *m, enum bench_meta_op op, int i, long *count)
{
	char a[PATH_MAX], b[PATH_MAX];
	struct stat st;
	int fd, rc = 0;

	meta_name(m, a, sizeof(a), 'f', i);
	*count = 1;
	switch (op) {
	case BM_CREATE:
	case BM_OPEN:
		fd = m->fs->open(a, op == BM_CREATE ?
		    O_CREAT | O_EXCL | O_WRONLY : O_RDONLY, 0644, NULL);
		rc = fd < 0 ? -1 : m->fs->close(fd);
		break;
	case BM_STAT:
	case BM_RESTAT: /* unchanged since the first: what a client cache serves */
		rc = m->fs->stat(a, &st);
		break;
	case BM_READDIR:
		*count = m->fs->list(m->o->dir);
		rc = *count < 0 ? -1 : 0;
		break;
	case BM_RENAME:
		meta_name(m, b, sizeof(b), 'g', i);
		rc = m->fs->rename(a, b);
		break;
	case BM_UNLINK:
		meta_name(m, b, sizeof(b), 'g', i);
		rc = m->fs->unlink(b);
		snprintf(a, sizeof(a), "%s", b);
		break;
	default:
		break;
	}
	if (rc != 0)
		bench_err("%s: %s: %s", a, meta_names[op], strerror(errno));
	return rc;
}

static int
meta_phase(struct meta_ctx *m, enum bench_meta_op op)
{
	int rank = bench_group_rank(m->g);
	int n = op == BM_READDIR ? META_LISTINGS : m->nper, i, rc = 0;
	float *lat = m->lat + (size_t)op * (size_t)m->o->files +
	    (size_t)rank * (size_t)m->nper;
	struct bench_span sp = { 0, 0, 0, 0 };
	int64_t t;
	long count;

	if (bench_group_barrier(m->g) != 0)
		return -1;
	sp.start_ns = pvfs_mono_ns();
	for (i = 0; i < n && rc == 0; i++) {
		t = pvfs_mono_ns();
		rc = meta_one(m, op, i, &count);
		lat[i] = (float)(pvfs_mono_ns() - t) / 1000.0f;
		sp.bytes += (uint64_t)count;
	}
	sp.end_ns = pvfs_mono_ns();
	sp.failed = rc != 0;
	bench_group_put(m->g, op, &sp);
	return rc;
}

static int
meta_rank(struct meta_ctx *m)
{
	int op;

	for (op = 0; op < BM_NOPS; op++)
		if (meta_phase(m, (enum bench_meta_op)op) != 0)
			return -1;
	return bench_group_barrier(m->g);
}

static int
meta_cmp(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return x < y ? -1 : x > y;
}

/* The nearest-rank percentile of sorted v[n]. */
static double
meta_pct(const float *v, size_t n, double p)
{
	size_t k = (size_t)(p * (double)n + 0.999999);

	return n == 0 ? 0 : v[k == 0 ? 0 : k - 1 < n ? k - 1 : n - 1];
}

static int
meta_dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Every client's rate in op: the lowest, the median and the highest. */
static void
meta_per_client(struct meta_ctx *m, int op, struct bench_meta_stat *st)
{
	double v[BENCH_MAX_CLIENTS];
	struct bench_span s;
	int r, n = 0;

	for (r = 0; r < m->o->clients && r < BENCH_MAX_CLIENTS; r++) {
		if (bench_group_get_rank(m->g, op, r, &s) != 0 ||
		    s.end_ns <= s.start_ns)
			continue;
		v[n++] = (double)s.bytes * 1e9 / (double)(s.end_ns - s.start_ns);
	}
	if (n == 0)
		return;
	qsort(v, (size_t)n, sizeof(v[0]), meta_dcmp);
	st->cl_min = v[0];
	st->cl_med = v[n / 2];
	st->cl_max = v[n - 1];
}

static void
meta_stats(struct meta_ctx *m, struct bench_meta_stat st[BM_NOPS])
{
	struct bench_span agg;
	int op, r;

	for (op = 0; op < BM_NOPS; op++) {
		float *lat = m->lat + (size_t)op * (size_t)m->o->files;
		size_t n = (size_t)m->nper * (size_t)m->o->clients;

		if (op == BM_READDIR) {
			/* Listings sit at the front of each client's slice. */
			for (r = 1; r < m->o->clients; r++)
				memmove(lat + r * META_LISTINGS, lat + r * m->nper,
				    META_LISTINGS * sizeof(*lat));
			n = (size_t)META_LISTINGS * (size_t)m->o->clients;
		}
		qsort(lat, n, sizeof(*lat), meta_cmp);
		bench_group_get(m->g, op, &agg);
		st[op].ops = agg.bytes;
		st[op].ops_per_s = agg.end_ns > agg.start_ns ?
		    (double)agg.bytes * 1e9 / (double)(agg.end_ns - agg.start_ns) : 0;
		st[op].p50_us = meta_pct(lat, n, 0.50);
		st[op].p99_us = meta_pct(lat, n, 0.99);
		meta_per_client(m, op, &st[op]);
	}
}

int
bench_meta(const struct bench_meta_opts *o, struct bench_meta_stat st[BM_NOPS])
{
	struct meta_ctx m = { o, o->local ? &bench_fs_local : &bench_fs_pvfs,
	    NULL, o->files / o->clients, NULL, 0 };
	int status = 1, rc = -1;

	if (m.nper < META_LISTINGS) {
		bench_err("--files must be at least %d per client", META_LISTINGS);
		return -1;
	}
	if (m.fs->mkdir(o->dir, 0755) != 0) {
		bench_err("%s: mkdir: %s", o->dir, strerror(errno));
		return -1;
	}
	bench_flush(o->flush_fs);
	m.lat_len = (size_t)BM_NOPS * (size_t)o->files * sizeof(float);
	m.lat = mmap(NULL, m.lat_len, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m.lat != MAP_FAILED &&
	    (m.g = bench_group_fork(o->clients, BM_NOPS)) != NULL) {
		if (bench_group_spawn(m.g, &status) >= 0)
			_exit(meta_rank(&m) == 0 ? 0 : 1);
		if (status == 0) {
			meta_stats(&m, st);
			rc = 0;
		}
	}
	if (m.lat != MAP_FAILED)
		munmap(m.lat, m.lat_len);
	bench_group_free(m.g);
	if (m.fs->rmdir(o->dir) != 0 && rc == 0)
		bench_err("%s: rmdir: %s", o->dir, strerror(errno));
	return rc;
}
