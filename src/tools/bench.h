/*
 * bench.h - pvfs-bench's one internal header, grouped by the source file
 * that implements each part.  pvfs-bench prints figures; it is not a test.
 */
#ifndef PVFS_BENCH_H
#define PVFS_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "common.h" /* pvfs_mono_ns: the clock every figure is timed by */

#define BENCH_RUNS 3        /* the PVFS-PM method: three runs ... */
#define BENCH_REPORTED 1    /* ... the middle (second) one reported */
#define BENCH_MAX_CLIENTS 256

/* ---- pvfs-bench.c: helpers shared by every job ---- */
/* Parse "64K", "1M", "1GiB", "4096"; 0 on success. */
int bench_parse_size(const char *s, uint64_t *out);
/* "64 KiB", "1 GiB", "512 B" into buf. */
const char *bench_fmt_size(uint64_t v, char *buf, size_t len);
double bench_mbps(uint64_t bytes, int64_t ns);  /* 10^6 bytes per second */
void bench_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Fill buf with a pattern that depends on (seed, offset). */
void bench_fill(void *buf, size_t len, uint64_t seed, uint64_t off);
/* The block of a run that is reported (see BENCH_REPORTED). */
double bench_reported(const double v[BENCH_RUNS]);

/* The file system a job runs on: PVFS through libpvfs, or the local one
 * through libc for the reference figures.  POSIX returns and errno. */
struct pvfs_filestat;
struct stat;
struct bench_fs {
	const char *name;  /* "pvfs" or "local" */
	int (*open)(const char *path, int flags, mode_t mode,
	    struct pvfs_filestat *dist);   /* dist: NULL or the distribution */
	int (*close)(int fd);
	ssize_t (*pread)(int fd, void *buf, size_t n, off_t off);
	ssize_t (*pwrite)(int fd, const void *buf, size_t n, off_t off);
	int (*fsync)(int fd);
	int (*getmeta)(int fd, struct pvfs_filestat *dist);
	int (*stat)(const char *path, struct stat *st);
	int (*unlink)(const char *path);
	int (*rename)(const char *from, const char *to);
	int (*mkdir)(const char *path, mode_t mode);
	int (*rmdir)(const char *path);
	/* Count the entries of a directory: readdir to the end. */
	long (*list)(const char *path);
};
extern const struct bench_fs bench_fs_pvfs, bench_fs_local;

/* A group of client processes that meet at barriers and publish the time
 * span of each phase.  Forked children share memory (BENCH_GROUP_FORK);
 * processes started separately, e.g. one per network namespace, share a
 * directory (BENCH_GROUP_DIR). */
struct bench_span {
	int64_t start_ns, end_ns;
	uint64_t bytes;
	int failed;
};
struct bench_group;
/* nprocs forked children; returns in each child with its rank (0..n-1)
 * and in the parent with -1 after all children exited.  *status: 0 when
 * every child exited 0. */
struct bench_group *bench_group_fork(int nprocs, int nslots);
int bench_group_spawn(struct bench_group *g, int *status);
/* This process is rank of nprocs, meeting the others in dir. */
struct bench_group *bench_group_dir(const char *dir, int rank, int nprocs,
    int nslots);
int bench_group_rank(const struct bench_group *g);
int bench_group_size(const struct bench_group *g);
/* Wait for every rank; 0, or -1 when a peer failed or a timeout passed. */
int bench_group_barrier(struct bench_group *g);
/* Publish this rank's span for slot (a phase of a run). */
void bench_group_put(struct bench_group *g, int slot, const struct bench_span *s);
/* Aggregate of slot over all ranks: bytes summed, time from the first
 * start to the last end.  Valid after a barrier that follows every put. */
int bench_group_get(struct bench_group *g, int slot, struct bench_span *agg);
/* One rank's span of slot, under the same condition. */
int bench_group_get_rank(struct bench_group *g, int slot, int rank,
    struct bench_span *s);
void bench_group_free(struct bench_group *g);

/* ---- bench-ref.c: the references measured in the same run ---- */
#define BENCH_REF_PEERS 64
/* Raw TCP stream of total bytes over loopback between two processes, in
 * chunk-byte writes: MB/s, or -1. */
double bench_ref_tcp(uint64_t total, size_t chunk);
/* The data test's shape in raw TCP: senders processes each with one
 * stream to each of receivers processes (BENCH_REF_PEERS at most), total
 * bytes in all, writes of at most chunk bytes: MB/s, or -1. */
double bench_ref_tcp_streams(int senders, int receivers, uint64_t total,
    size_t chunk);
/* Sink/source for a TCP stream between namespaces (emulated cluster). */
int bench_ref_tcp_sink(const char *addr, FILE *out);
double bench_ref_tcp_send(const char *addr, uint64_t total, size_t chunk);

/* ---- bench-data.c: the concurrent write/read test ---- */
struct bench_data_opts {
	const char *path;         /* PVFS file (or local file with local) */
	int clients;
	uint64_t size;            /* bytes per client */
	uint64_t block;           /* request size */
	int32_t ssize, pcount, base;
	int fsync;
	int local;                /* run on the local file system instead */
	int verify;
	const char *sync_dir;     /* BENCH_GROUP_DIR mode when set */
	const char *flush_fs;     /* syncfs this one before each write phase */
	int rank;
	int runs;                 /* 1..BENCH_RUNS; 0 means BENCH_RUNS */
	int exists;               /* the caller created the file and removes it */
	int copies;               /* > 0: a mirrored file of that many copies */
	int read_only;            /* runs read the file, written before */
	int buffered;             /* open with PVFS_O_BUFFERED; close timed */
};
struct bench_data_result {
	double write_mbps[BENCH_RUNS], read_mbps[BENCH_RUNS];
	int32_t ssize, pcount, base;   /* the distribution the file got */
};
/* Runs of the test: results in r->*_mbps[0 .. runs-1]; 0 or -1. */
int bench_data(const struct bench_data_opts *o, struct bench_data_result *r);
/* Create (or empty) o->path with the asked distribution; note it in r. */
int bench_data_create(const struct bench_data_opts *o,
    struct bench_data_result *r);
int bench_data_remove(const struct bench_data_opts *o);
/* syncfs the file system holding path (NULL: nothing). */
void bench_flush(const char *path);

/* ---- bench-meta.c: metadata rates and latencies ---- */
enum bench_meta_op {
	BM_CREATE, BM_OPEN, BM_STAT, BM_RESTAT, BM_READDIR, BM_RENAME, BM_UNLINK, BM_NOPS
};
struct bench_meta_stat {
	double ops_per_s;
	double p50_us, p99_us;
	uint64_t ops;
	/* Each client's own rate (its operations / its span): whether one
	 * was starved while the others ran. */
	double cl_min, cl_med, cl_max;
};
struct bench_meta_opts {
	const char *dir;          /* a directory to create and remove */
	int clients;
	int files;                /* total, shared among the clients */
	int local;
	const char *flush_fs;     /* syncfs this one first */
};
int bench_meta(const struct bench_meta_opts *o,
    struct bench_meta_stat st[BM_NOPS]);
const char *bench_meta_name(enum bench_meta_op op);

/* ---- bench-noncontig.c: the noncontiguous row ---- */
int bench_noncontig(const char *dir, size_t total_bytes, size_t region_bytes,
    FILE *out);

#endif /* PVFS_BENCH_H */
