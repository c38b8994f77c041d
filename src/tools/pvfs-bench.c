/*
 * pvfs-bench - figures, not tests: the PVFS papers' concurrent write/read
 * test, metadata rates and latencies, each printed beside a reference
 * measured the same way in the same run (a raw loopback TCP stream, the
 * local file system).  See usage() and doc/benchmarks.md.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pvfs.h"
#include "common.h"
#include "bench.h"

#define PROG "pvfs-bench"

/* Exit codes: 0 figures printed, 1 a run failed, 2 usage error. */
#define EXIT_USAGE 2

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " data [OPTIONS]       concurrent write then read of one file\n"
"       " PROG " meta [OPTIONS]       metadata rates and latencies\n"
"       " PROG " readdir --path DIR   list an existing directory, entries/s\n"
"       " PROG " tcp [--size N] [--block N] [-c C -p N]\n"
"                             the loopback TCP reference alone (with -p:\n"
"                             C senders x N receivers, a stream each pair)\n"
"       " PROG " tcp-sink HOST:PORT   receive one TCP stream, print MB/s\n"
"       " PROG " tcp-send HOST:PORT [--size N] [--block N]\n"
"       " PROG " noncontig [--size N] [--region N] [--path DIR]\n"
"       " PROG " mpiio [-c N] [--size N] [--block N] [--path P]\n"
"                             native vs MPI-IO in the same N ranks (mpiexec\n"
"                             $PVFS_MPIEXEC runs $PVFS_BENCH_MPIIO; make romio)\n"
"       " PROG " --help | --version\n"
"\n"
"data: N client processes (fork) each write, then read, their own\n"
"contiguous region of one shared PVFS file, a barrier before each phase;\n"
"three runs, the middle (second) one reported (the PVFS-PM method); the\n"
"references run right after each run, so each run's figures are moments\n"
"apart.\n"
"Aggregate MB/s (10^6 bytes/s) = all bytes / (last end - first start).\n"
"Beside it, in the same run: a raw TCP stream over loopback of the same\n"
"total bytes; the same bytes in the test's shape, each of N sender\n"
"processes streaming to each of P receivers (N clients, P iods); and\n"
"the same write/read on the local file system.\n"
"  -c, --clients N     client processes (default 1)\n"
"  -s, --size N        bytes per client (default 1G; K, M, G suffixes)\n"
"  -b, --block N       request size (default 1M)\n"
"  -S, --ssize N       stripe size (default: the file system's)\n"
"  -p, --pcount N      number of iods the file is striped over (default all)\n"
"      --base N        first iod (default: the file system's choice)\n"
"      --fsync         fsync before the end of each write phase\n"
"      --verify        check the data read back (costs client CPU)\n"
"      --buffered      open with PVFS_O_BUFFERED (write-behind, read-ahead;\n"
"                      doc/api.md); the close is then inside the timed span\n"
"      --path P        the PVFS file (default PREFIX/pvfs-bench.PID)\n"
"      --local-dir D   where the local references run (default: the\n"
"                      directory holding the mgr's meta dir when it is on\n"
"                      this host, i.e. the iods' file system of pvfs-local;\n"
"                      else $TMPDIR or /tmp).  Its file system is synced\n"
"                      (syncfs) before every write phase and before the\n"
"                      metadata runs, outside the timed spans, so no run\n"
"                      pays for an earlier one's writeback\n"
"      --no-ref        skip the references\n"
"      --copies N      also run the job on a mirrored file of N copies\n"
"                      (doc/design.md), each run right after the plain one\n"
"      --iod-down CMD --iod-up CMD\n"
"                      with --copies: then run CMD (sh -c) to stop an iod,\n"
"                      read the mirrored file again three times, and run\n"
"                      the other CMD (e.g. pvfs-local kill DIR iod1 KILL,\n"
"                      pvfs-local start DIR)\n"
"      --mount DIR     also run the job through a pvfs-fuse mount of the\n"
"                      same file system at DIR (a file under it, opened\n"
"                      with the file system's default distribution), each\n"
"                      run right after the native one (doc/fuse.md)\n"
"      --rank R --nprocs N --sync-dir D\n"
"                      one client of N started separately (e.g. one per\n"
"                      network namespace); they meet through files in D;\n"
"                      rank 0 prints the figures\n"
"meta: create+close, open+close, stat, stat-again (each name a second\n"
"time, unchanged), readdir (whole directory), rename,\n"
"unlink of --files names in one directory, spread over the clients;\n"
"rate and latency p50/p99 per operation, beside the local file system.\n"
"  -c, --clients N     client processes (default 1)\n"
"  -n, --files N       files in the directory (default 10000)\n"
"      --path P        the PVFS directory to create (default\n"
"                      PREFIX/pvfs-bench-meta.PID)\n"
"      --local-dir D, --no-ref, --mount DIR   as for data\n"
"With more than one client, each client's own rate (min, median, max).\n"
"Every figure line also appears as one 'RESULT key=value ...' line.\n"
"Exit status: 0 figures printed, 1 a run failed, 2 usage error.\n");
}

/* ---- helpers ---- */

void
bench_err(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
bench_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	uint64_t mul = 1;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': mul = 1ULL << 10; end++; break;
	case 'm': case 'M': mul = 1ULL << 20; end++; break;
	case 'g': case 'G': mul = 1ULL << 30; end++; break;
	case 't': case 'T': mul = 1ULL << 40; end++; break;
	}
	if (mul > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
		end += strlen(end);
	if (*end != '\0' || (v != 0 && mul > UINT64_MAX / v))
		return -1;
	*out = v * mul;
	return 0;
}

const char *
bench_fmt_size(uint64_t v, char *buf, size_t len)
{
	static const char *unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && v >= 1024 && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%llu %s", (unsigned long long)v, unit[u]);
	return buf;
}

double
bench_mbps(uint64_t bytes, int64_t ns)
{
	return ns > 0 ? (double)bytes * 1000.0 / (double)ns : 0.0;
}

/* Cheap to generate, different for every 8 bytes of every client. */
void
bench_fill(void *buf, size_t len, uint64_t seed, uint64_t off)
{
	uint64_t *p = buf, x = seed * 0x9e3779b97f4a7c15ULL + off / 8;
	size_t i;

	for (i = 0; i < len / 8; i++)
		p[i] = (x + i) * 0xff51afd7ed558ccdULL;
}

double
bench_reported(const double v[BENCH_RUNS])
{
	return v[BENCH_REPORTED];
}

/* ---- the two file systems ---- */

static int
fs_pvfs_open(const char *path, int flags, mode_t mode, struct pvfs_filestat *d)
{
	if (d != NULL)
		return pvfs_open(path, flags | PVFS_O_META, mode, d);
	return pvfs_open(path, flags, mode);
}

static int
fs_pvfs_getmeta(int fd, struct pvfs_filestat *d)
{
	return pvfs_ioctl(fd, PVFS_GETMETA, d);
}

static long
fs_pvfs_list(const char *path)
{
	PVFS_DIR *d = pvfs_opendir(path);
	long n = 0;

	if (d == NULL)
		return -1;
	errno = 0;
	while (pvfs_readdir(d) != NULL)
		n++;
	if (errno != 0)
		n = -1;
	pvfs_closedir(d);
	return n;
}

static int
fs_local_open(const char *path, int flags, mode_t mode, struct pvfs_filestat *d)
{
	return open(path, flags | O_CLOEXEC, mode);
}

static int
fs_local_getmeta(int fd, struct pvfs_filestat *d)
{
	memset(d, 0, sizeof(*d));
	return 0;
}

static long
fs_local_list(const char *path)
{
	DIR *d = opendir(path);
	long n = 0;

	if (d == NULL)
		return -1;
	errno = 0;
	while (readdir(d) != NULL)
		n++;
	if (errno != 0)
		n = -1;
	closedir(d);
	return n;
}

const struct bench_fs bench_fs_pvfs = {
	"pvfs", fs_pvfs_open, pvfs_close, pvfs_pread, pvfs_pwrite, pvfs_fsync,
	fs_pvfs_getmeta, pvfs_stat, pvfs_unlink, pvfs_rename, pvfs_mkdir,
	pvfs_rmdir, fs_pvfs_list,
};

const struct bench_fs bench_fs_local = {
	"local", fs_local_open, close, pread, pwrite, fsync, fs_local_getmeta,
	stat, unlink, rename, mkdir, rmdir, fs_local_list,
};

/* ---- where things run ---- */

/* The first pvfstab entry: its prefix, and the directory holding its meta
 * dir when that is on this host (pvfs-local puts the iods beside it). */
static int
tab_first(char *prefix, size_t plen, char *near, size_t nlen)
{
	const char *path = pvfs_tab_path();
	struct pvfs_tab_entry *tab = NULL;
	char *text, *cause = NULL, *slash;
	size_t len;
	struct stat st;
	int n;

	if ((text = pvfs_read_small_file(path, 1 << 20, &len)) == NULL)
		return -1;
	n = pvfs_tab_parse(text, path, &tab, &cause);
	free(text);
	free(cause);
	if (n <= 0) {
		free(tab);
		return -1;
	}
	n = snprintf(prefix, plen, "%s", strcmp(tab[0].prefix, "/") == 0 ? "" :
	    tab[0].prefix);
	near[0] = '\0';
	if (n >= 0 && (size_t)n < plen && stat(tab[0].meta_dir, &st) == 0 &&
	    S_ISDIR(st.st_mode) &&
	    (n = snprintf(near, nlen, "%s", tab[0].meta_dir)) >= 0 &&
	    (size_t)n < nlen && (slash = strrchr(near, '/')) != NULL &&
	    slash != near)
		*slash = '\0';
	free(tab);
	return 0;
}

struct where {
	char pvfs[PATH_MAX];     /* file or directory on PVFS */
	char local[PATH_MAX];    /* its twin on the local file system */
	char local_dir[PATH_MAX];
	char mnt[PATH_MAX];      /* its twin under --mount, or "" */
};

static int
where_init(struct where *w, const char *path, const char *local_dir,
    const char *mount, const char *stem)
{
	char prefix[PATH_MAX], near[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	int n;

	if (tab_first(prefix, sizeof(prefix), near, sizeof(near)) != 0) {
		prefix[0] = near[0] = '\0';
		if (path == NULL) {
			bench_err("no usable pvfstab ($PVFSTAB_FILE or " PVFS_DEFAULT_TAB "); "
			    "give --path");
			return -1;
		}
	}
	if (local_dir == NULL)
		local_dir = near[0] != '\0' ? near :
		    tmp != NULL && *tmp != '\0' ? tmp : "/tmp";
	snprintf(w->local_dir, sizeof(w->local_dir), "%s", local_dir);
	if (path != NULL)
		n = snprintf(w->pvfs, sizeof(w->pvfs), "%s", path);
	else
		n = snprintf(w->pvfs, sizeof(w->pvfs), "%s/%s.%ld", prefix, stem,
		    (long)getpid());
	if (n < 0 || (size_t)n >= sizeof(w->pvfs) ||
	    (n = snprintf(w->local, sizeof(w->local), "%s/%s-ref.%ld", local_dir,
	    stem, (long)getpid())) < 0 || (size_t)n >= sizeof(w->local)) {
		bench_err("path too long");
		return -1;
	}
	w->mnt[0] = '\0';
	if (mount != NULL && ((n = snprintf(w->mnt, sizeof(w->mnt), "%s/%s-mnt.%ld",
	    mount, stem, (long)getpid())) < 0 || (size_t)n >= sizeof(w->mnt))) {
		bench_err("path too long");
		return -1;
	}
	return 0;
}

/* ---- the command line ---- */

struct opts {
	int clients, files, fsync, verify, no_ref, rank, nprocs, buffered;
	uint64_t size, block, region;
	int64_t ssize, pcount, base;
	const char *path, *local_dir, *sync_dir, *mount;
	int copies;
	const char *iod_down, *iod_up;
};

enum { OPT_BASE = 256, OPT_FSYNC, OPT_VERIFY, OPT_PATH, OPT_LOCAL_DIR,
	OPT_NO_REF, OPT_RANK, OPT_NPROCS, OPT_SYNC_DIR, OPT_REGION, OPT_MOUNT,
	OPT_COPIES, OPT_IOD_DOWN, OPT_IOD_UP, OPT_BUFFERED };

static const struct option long_opts[] = {
	{ "clients", required_argument, NULL, 'c' },
	{ "size", required_argument, NULL, 's' },
	{ "block", required_argument, NULL, 'b' },
	{ "ssize", required_argument, NULL, 'S' },
	{ "pcount", required_argument, NULL, 'p' },
	{ "files", required_argument, NULL, 'n' },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "fsync", no_argument, NULL, OPT_FSYNC },
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "buffered", no_argument, NULL, OPT_BUFFERED },
	{ "path", required_argument, NULL, OPT_PATH },
	{ "local-dir", required_argument, NULL, OPT_LOCAL_DIR },
	{ "no-ref", no_argument, NULL, OPT_NO_REF },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "nprocs", required_argument, NULL, OPT_NPROCS },
	{ "sync-dir", required_argument, NULL, OPT_SYNC_DIR },
	{ "region", required_argument, NULL, OPT_REGION },
	{ "mount", required_argument, NULL, OPT_MOUNT },
	{ "copies", required_argument, NULL, OPT_COPIES },
	{ "iod-down", required_argument, NULL, OPT_IOD_DOWN },
	{ "iod-up", required_argument, NULL, OPT_IOD_UP },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

static void
usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" PROG " --help'.\n");
	exit(EXIT_USAGE);
}

static uint64_t
opt_size(const char *arg, const char *name, uint64_t min)
{
	uint64_t v;

	if (bench_parse_size(arg, &v) != 0 || v < min)
		usage_error("bad value for --%s", name);
	return v;
}

static int
opt_int(const char *arg, const char *name, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno != 0 || end == arg || *end != '\0' || v < min || v > max)
		usage_error("bad value for --%s", name);
	return (int)v;
}

static void
opt_one(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case 'c': o->clients = opt_int(arg, "clients", 1, BENCH_MAX_CLIENTS); break;
	case 's': o->size = opt_size(arg, "size", 1); break;
	case 'b': o->block = opt_size(arg, "block", 1); break;
	case 'S': o->ssize = (int64_t)opt_size(arg, "ssize", 1); break;
	case 'p': o->pcount = opt_int(arg, "pcount", 1, 1 << 20); break;
	case 'n': o->files = opt_int(arg, "files", 1, 100000000); break;
	case OPT_BASE: o->base = opt_int(arg, "base", 0, 1 << 20); break;
	case OPT_FSYNC: o->fsync = 1; break;
	case OPT_VERIFY: o->verify = 1; break;
	case OPT_BUFFERED: o->buffered = 1; break;
	case OPT_PATH: o->path = arg; break;
	case OPT_LOCAL_DIR: o->local_dir = arg; break;
	case OPT_NO_REF: o->no_ref = 1; break;
	case OPT_RANK: o->rank = opt_int(arg, "rank", 0, BENCH_MAX_CLIENTS - 1); break;
	case OPT_NPROCS: o->nprocs = opt_int(arg, "nprocs", 1, BENCH_MAX_CLIENTS); break;
	case OPT_SYNC_DIR: o->sync_dir = arg; break;
	case OPT_REGION: o->region = opt_size(arg, "region", 1); break;
	case OPT_MOUNT: o->mount = arg; break;
	case OPT_COPIES: o->copies = opt_int(arg, "copies", 1, 8); break;
	case OPT_IOD_DOWN: o->iod_down = arg; break;
	case OPT_IOD_UP: o->iod_up = arg; break;
	case 'h': usage(stdout); exit(0);
	default: usage_error("bad option"); break;
	}
}

static void
opts_parse(struct opts *o, int argc, char **argv)
{
	int c;

	memset(o, 0, sizeof(*o));
	o->clients = 1;
	o->files = 10000;
	o->size = 1ULL << 30;
	o->block = 1ULL << 20;
	o->ssize = o->pcount = o->base = -1;
	o->nprocs = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "c:s:b:S:p:n:h", long_opts, NULL)) != -1)
		opt_one(o, c, optarg);
	if (o->ssize > INT32_MAX)
		usage_error("--ssize: at most 2 GiB - 1");
	if (o->block > (1ULL << 30))
		usage_error("--block: at most 1 GiB");
	if ((o->sync_dir != NULL) != (o->nprocs > 0))
		usage_error("--sync-dir and --nprocs go together");
	if (o->nprocs > 0 && o->rank >= o->nprocs)
		usage_error("--rank must be below --nprocs");
	if (o->mount != NULL && o->sync_dir != NULL)
		usage_error("--mount runs with forked clients, not --sync-dir");
}

static void
print_runs(const char *what, const double v[BENCH_RUNS])
{
	int i;

	printf("  %-22s", what);
	for (i = 0; i < BENCH_RUNS; i++)
		printf(" %10.1f", v[i]);
	printf(" %10.1f\n", bench_reported(v));
}

static double
ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

struct data_refs {
	double tcp[BENCH_RUNS];
	double streams[BENCH_RUNS]; /* clients x pcount streams; 0: none */
	struct bench_data_result local;
	int have;
	struct bench_data_result mnt;   /* through --mount */
	int have_mnt;
	struct bench_data_result mir;   /* --copies: the mirrored file */
	int have_mir, mir_copies;
	double mir_down[BENCH_RUNS];    /* its reads with an iod down */
	int have_down;
};

/* --copies with --iod-down: read the mirrored file three times with an
 * iod stopped, then start it again.  0 or -1. */
static int
data_mirror_down(const struct opts *o, struct bench_data_opts *mo,
    struct data_refs *ref)
{
	struct bench_data_result one;
	int i, rc = 0;

	if (o->iod_down == NULL)
		return 0;
	fflush(stdout);
	if (system(o->iod_down) != 0) {
		bench_err("--iod-down: '%s' failed", o->iod_down);
		return -1;
	}
	mo->read_only = 1;
	for (i = 0; i < BENCH_RUNS && rc == 0; i++) {
		rc = bench_data(mo, &one);
		ref->mir_down[i] = one.read_mbps[0];
	}
	mo->read_only = 0;
	if (o->iod_up != NULL && system(o->iod_up) != 0) {
		bench_err("--iod-up: '%s' failed", o->iod_up);
		rc = -1;
	}
	ref->have_down = rc == 0;
	return rc;
}

/* Run i of PVFS, then run i of each reference, so that the figures of a
 * run are taken moments apart: the ratios compare like with like even
 * when the machine is not quiet.  Both files live through the three runs
 * (run 2 overwrites run 1, as in PVFS-PM). */
static int
data_interleaved(const struct opts *o, struct bench_data_opts *d,
    const struct where *w, struct bench_data_result *r, struct data_refs *ref)
{
	struct bench_data_opts l, m, mo;
	struct bench_data_result one;
	uint64_t total = d->size * (uint64_t)d->clients;
	int i, rc = -1, refs = !o->no_ref, mnt = w->mnt[0] != '\0';
	int mir = o->copies > 0;
	char mpath[PATH_MAX + 8];

	d->runs = 1;
	d->exists = 1;
	mo = *d;
	snprintf(mpath, sizeof(mpath), "%s.mirror", d->path);
	mo.path = mpath;
	mo.copies = o->copies;
	l = *d;
	l.local = 1;
	l.path = w->local;
	/* Through the mount the file is a local one to libc. */
	m = l;
	m.path = w->mnt;
	if (bench_data_create(d, r) != 0)
		return -1;
	if (refs && bench_data_create(&l, &ref->local) != 0) {
		bench_data_remove(d);
		return -1;
	}
	if (mnt && bench_data_create(&m, &ref->mnt) != 0) {
		bench_data_remove(d);
		if (refs)
			bench_data_remove(&l);
		return -1;
	}
	if (mir && bench_data_create(&mo, &ref->mir) != 0) {
		bench_data_remove(d);
		if (refs)
			bench_data_remove(&l);
		if (mnt)
			bench_data_remove(&m);
		return -1;
	}
	for (i = 0; i < BENCH_RUNS; i++) {
		if (bench_data(d, &one) != 0)
			goto out;
		r->write_mbps[i] = one.write_mbps[0];
		r->read_mbps[i] = one.read_mbps[0];
		if (mir) {
			if (bench_data(&mo, &one) != 0)
				goto out;
			ref->mir.write_mbps[i] = one.write_mbps[0];
			ref->mir.read_mbps[i] = one.read_mbps[0];
		}
		if (mnt) {
			if (bench_data(&m, &one) != 0)
				goto out;
			ref->mnt.write_mbps[i] = one.write_mbps[0];
			ref->mnt.read_mbps[i] = one.read_mbps[0];
		}
		if (!refs)
			continue;
		if ((ref->tcp[i] = bench_ref_tcp(total, 1 << 20)) < 0) {
			bench_err("loopback TCP reference failed");
			goto out;
		}
		if (r->pcount > 0 && r->pcount <= BENCH_REF_PEERS &&
		    d->clients <= BENCH_REF_PEERS && (ref->streams[i] = bench_ref_tcp_streams(
		    d->clients, r->pcount, total, 1 << 20)) < 0) {
			bench_err("loopback TCP streams reference failed");
			goto out;
		}
		if (bench_data(&l, &one) != 0)
			goto out;
		ref->local.write_mbps[i] = one.write_mbps[0];
		ref->local.read_mbps[i] = one.read_mbps[0];
	}
	ref->have = refs;
	ref->have_mnt = mnt;
	ref->have_mir = mir;
	ref->mir_copies = o->copies;
	rc = mir ? data_mirror_down(o, &mo, ref) : 0;
out:
	bench_data_remove(d);
	if (mir)
		bench_data_remove(&mo);
	if (refs)
		bench_data_remove(&l);
	if (mnt)
		bench_data_remove(&m);
	return rc;
}

/* The mirrored file beside the plain one, and the targets
 * (doc/benchmarks.md): write >= 0.45, read >= 1, read down >= 0.60. */
static void
data_print_mirror(const struct bench_data_opts *d,
    const struct bench_data_result *r, const struct data_refs *ref)
{
	double wr = bench_reported(r->write_mbps), rd = bench_reported(r->read_mbps);
	double mw = bench_reported(ref->mir.write_mbps);
	double mr = bench_reported(ref->mir.read_mbps);
	double md = ref->have_down ? bench_reported(ref->mir_down) : 0;

	printf("RESULT data-mirror clients=%d copies=%d pcount=%d size=%llu "
	    "block=%llu write=%.1f read=%.1f plain_write=%.1f plain_read=%.1f "
	    "read_down=%.1f write_ratio=%.3f read_ratio=%.3f "
	    "down_ratio=%.3f\n", d->clients, ref->mir_copies,
	    ref->mir.pcount, (unsigned long long)d->size,
	    (unsigned long long)d->block, mw, mr, wr, rd, md, ratio(mw, wr),
	    ratio(mr, rd), ratio(md, mr));
}

static void
data_print(const struct bench_data_opts *d, const struct bench_data_result *r,
    const struct data_refs *ref, const struct where *w)
{
	char s1[32], s2[32], s3[32], s4[32];
	double wr = bench_reported(r->write_mbps), rd = bench_reported(r->read_mbps);
	double tcp = ref->have ? bench_reported(ref->tcp) : 0;
	double ts = ref->have ? bench_reported(ref->streams) : 0;
	double lw = ref->have ? bench_reported(ref->local.write_mbps) : 0;
	double lr = ref->have ? bench_reported(ref->local.read_mbps) : 0;
	double wref = tcp < lw ? tcp : lw;
	double mw = ref->have_mnt ? bench_reported(ref->mnt.write_mbps) : 0;
	double mr = ref->have_mnt ? bench_reported(ref->mnt.read_mbps) : 0;

	printf("pvfs-bench data: %d client%s x %d iods (base %d), %s per client "
	    "(%s total), block %s, stripe %s, fsync %s%s\n", d->clients,
	    d->clients == 1 ? "" : "s", r->pcount, r->base,
	    bench_fmt_size(d->size, s1, sizeof(s1)),
	    bench_fmt_size(d->size * (uint64_t)d->clients, s2, sizeof(s2)),
	    bench_fmt_size(d->block, s3, sizeof(s3)),
	    bench_fmt_size((uint64_t)r->ssize, s4, sizeof(s4)), d->fsync ? "yes" : "no",
	    d->buffered ? ", buffered (PVFS_O_BUFFERED, close timed)" : "");
	printf("  %-22s %10s %10s %10s %10s\n", "MB/s (10^6 B/s)", "run 1",
	    "run 2", "run 3", "reported");
	print_runs("pvfs write", r->write_mbps);
	print_runs("pvfs read", r->read_mbps);
	if (ref->have_mir) {
		print_runs("mirrored write", ref->mir.write_mbps);
		print_runs("mirrored read", ref->mir.read_mbps);
		if (ref->have_down)
			print_runs("mirrored read, iod down", ref->mir_down);
		printf("  mirrored (%d copies) / plain: write %.2f   read %.2f"
		    "   iod down / healthy read %.2f\n", ref->mir_copies,
		    ratio(bench_reported(ref->mir.write_mbps), wr),
		    ratio(bench_reported(ref->mir.read_mbps), rd),
		    ref->have_down ? ratio(bench_reported(ref->mir_down),
		    bench_reported(ref->mir.read_mbps)) : 0);
	}
	if (ref->have_mnt) {
		print_runs("mount write", ref->mnt.write_mbps);
		print_runs("mount read", ref->mnt.read_mbps);
		printf("  mount: %s   mount / native: write %.2f   read %.2f\n",
		    w->mnt, ratio(mw, wr), ratio(mr, rd));
	}
	if (ref->have) {
		print_runs("tcp loopback stream", ref->tcp);
		snprintf(s1, sizeof(s1), "tcp %dx%d streams", d->clients,
		    r->pcount);
		print_runs(s1, ref->streams);
		print_runs("local write", ref->local.write_mbps);
		print_runs("local read", ref->local.read_mbps);
		printf("  local file system: %s\n", w->local_dir);
		printf("  write / min(tcp, local write) = %.2f   read / tcp = %.2f\n",
		    ratio(wr, wref), ratio(rd, tcp));
		printf("  write / %s = %.2f   read / %s = %.2f\n", s1,
		    ratio(wr, ts), s1, ratio(rd, ts));
	}
	printf("RESULT data clients=%d pcount=%d size=%llu block=%llu ssize=%d "
	    "fsync=%d buffered=%d write=%.1f read=%.1f tcp=%.1f local_write=%.1f "
	    "local_read=%.1f write_ratio=%.3f read_ratio=%.3f tcp_streams=%.1f "
	    "write_streams_ratio=%.3f read_streams_ratio=%.3f\n", d->clients,
	    r->pcount, (unsigned long long)d->size, (unsigned long long)d->block,
	    r->ssize, d->fsync, d->buffered, wr, rd, tcp, lw, lr, ratio(wr, wref), ratio(rd, tcp),
	    ts, ratio(wr, ts), ratio(rd, ts));
	if (ref->have_mir)
		data_print_mirror(d, r, ref);
	if (ref->have_mnt)
		printf("RESULT data-mount clients=%d size=%llu block=%llu "
		    "write=%.1f read=%.1f native_write=%.1f native_read=%.1f "
		    "write_ratio=%.3f read_ratio=%.3f\n", d->clients,
		    (unsigned long long)d->size, (unsigned long long)d->block,
		    mw, mr, wr, rd, ratio(mw, wr), ratio(mr, rd));
	fflush(stdout);
}

static int
cmd_data(const struct opts *o)
{
	struct bench_data_opts d;
	struct bench_data_result r;
	struct data_refs ref;
	struct where w;

	if (where_init(&w, o->path, o->local_dir, o->mount, "pvfs-bench") != 0)
		return 1;
	memset(&d, 0, sizeof(d));
	memset(&ref, 0, sizeof(ref));
	d.path = w.pvfs;
	d.clients = o->nprocs > 0 ? o->nprocs : o->clients;
	d.size = o->size;
	d.block = o->block;
	d.ssize = (int32_t)o->ssize;
	d.pcount = (int32_t)o->pcount;
	d.base = (int32_t)o->base;
	d.fsync = o->fsync;
	d.verify = o->verify;
	d.buffered = o->buffered;
	d.sync_dir = o->sync_dir;
	d.flush_fs = w.local_dir;
	d.rank = o->rank;
	memset(&r, 0, sizeof(r));
	fflush(stdout);
	if (o->sync_dir != NULL) {
		if (bench_data(&d, &r) != 0)
			return 1;
		if (o->rank != 0)
			return 0;
	} else if (data_interleaved(o, &d, &w, &r, &ref) != 0) {
		return 1;
	}
	data_print(&d, &r, &ref, &w);
	return 0;
}

static void
meta_print(const struct opts *o, const struct bench_meta_stat *p,
    const struct bench_meta_stat *l, const struct bench_meta_stat *mt,
    const struct where *w)
{
	int op;

	printf("pvfs-bench meta: %d client%s, %d files in one directory%s%s\n",
	    o->clients, o->clients == 1 ? "" : "s", o->files,
	    l != NULL ? "; local file system: " : "", l != NULL ? w->local_dir : "");
	printf("  %-14s %12s %9s %9s", "operation", "pvfs ops/s", "p50 us", "p99 us");
	if (l != NULL)
		printf(" %12s %9s %9s", "local ops/s", "p50 us", "p99 us");
	printf("\n");
	for (op = 0; op < BM_NOPS; op++) {
		printf("  %-14s %12.0f %9.1f %9.1f", bench_meta_name(op),
		    p[op].ops_per_s, p[op].p50_us, p[op].p99_us);
		if (l != NULL)
			printf(" %12.0f %9.1f %9.1f", l[op].ops_per_s, l[op].p50_us,
			    l[op].p99_us);
		printf("\n");
	}
	if (mt != NULL) {
		printf("  %-14s %12s %9s %9s %12s  (mount: %s)\n", "operation",
		    "mount ops/s", "p50 us", "p99 us", "mount/pvfs", w->mnt);
		for (op = 0; op < BM_NOPS; op++)
			printf("  %-14s %12.0f %9.1f %9.1f %12.2f\n",
			    bench_meta_name(op), mt[op].ops_per_s, mt[op].p50_us,
			    mt[op].p99_us, ratio(mt[op].ops_per_s, p[op].ops_per_s));
	}
	printf("  (readdir: entries/s; latency of one listing of the whole directory)\n");
	if (o->clients > 1) {
		printf("  %-14s %12s %9s %9s   (pvfs ops/s of each client alone)\n",
		    "per client", "min", "median", "max");
		for (op = 0; op < BM_NOPS; op++)
			if (op != BM_READDIR)
				printf("  %-14s %12.0f %9.0f %9.0f\n", bench_meta_name(op),
				    p[op].cl_min, p[op].cl_med, p[op].cl_max);
	}
	for (op = 0; op < BM_NOPS; op++)
		printf("RESULT meta clients=%d files=%d op=%s rate=%.0f p50_us=%.1f "
		    "p99_us=%.1f local_rate=%.0f local_p50_us=%.1f local_p99_us=%.1f\n",
		    o->clients, o->files, bench_meta_name(op), p[op].ops_per_s,
		    p[op].p50_us, p[op].p99_us, l != NULL ? l[op].ops_per_s : 0,
		    l != NULL ? l[op].p50_us : 0, l != NULL ? l[op].p99_us : 0);
	for (op = 0; o->clients > 1 && op < BM_NOPS; op++)
		printf("RESULT meta-client clients=%d files=%d op=%s min=%.0f "
		    "median=%.0f max=%.0f\n", o->clients, o->files,
		    bench_meta_name(op), p[op].cl_min, p[op].cl_med, p[op].cl_max);
	for (op = 0; mt != NULL && op < BM_NOPS; op++)
		printf("RESULT meta-mount clients=%d files=%d op=%s rate=%.0f "
		    "p50_us=%.1f p99_us=%.1f native_rate=%.0f ratio=%.3f\n",
		    o->clients, o->files, bench_meta_name(op), mt[op].ops_per_s,
		    mt[op].p50_us, mt[op].p99_us, p[op].ops_per_s,
		    ratio(mt[op].ops_per_s, p[op].ops_per_s));
	fflush(stdout);
}

static int
cmd_meta(const struct opts *o)
{
	struct bench_meta_stat p[BM_NOPS], l[BM_NOPS], mt[BM_NOPS];
	struct bench_meta_opts m;
	struct where w;

	if (where_init(&w, o->path, o->local_dir, o->mount, "pvfs-bench-meta") != 0)
		return 1;
	memset(p, 0, sizeof(p));
	memset(l, 0, sizeof(l));
	memset(mt, 0, sizeof(mt));
	m.dir = w.pvfs;
	m.clients = o->clients;
	m.files = o->files;
	m.local = 0;
	m.flush_fs = w.local_dir;
	fflush(stdout);
	if (bench_meta(&m, p) != 0)
		return 1;
	if (!o->no_ref) {
		m.dir = w.local;
		m.local = 1;
		if (bench_meta(&m, l) != 0)
			return 1;
	}
	if (w.mnt[0] != '\0') {
		m.dir = w.mnt;
		m.local = 1;
		if (bench_meta(&m, mt) != 0)
			return 1;
	}
	meta_print(o, p, o->no_ref ? NULL : l, w.mnt[0] != '\0' ? mt : NULL, &w);
	return 0;
}

/* readdir: list an existing directory BENCH_RUNS times, entries/s. */
static int
cmd_readdir(const struct opts *o)
{
	double v[BENCH_RUNS];
	long n = 0;
	int64_t t;
	int i;

	if (o->path == NULL)
		usage_error("readdir: needs --path DIR");
	for (i = 0; i < BENCH_RUNS; i++) {
		t = pvfs_mono_ns();
		if ((n = bench_fs_pvfs.list(o->path)) < 0) {
			bench_err("%s: readdir: %s", o->path, strerror(errno));
			return 1;
		}
		t = pvfs_mono_ns() - t;
		v[i] = t > 0 ? (double)n * 1e9 / (double)t : 0;
	}
	printf("pvfs-bench readdir: %s, %ld entries\n", o->path, n);
	printf("  %-22s %10s %10s %10s %10s\n", "entries/s", "run 1", "run 2",
	    "run 3", "reported");
	print_runs("pvfs readdir", v);
	printf("RESULT readdir entries=%ld rate=%.0f\n", n, bench_reported(v));
	return 0;
}

static int
cmd_tcp(const struct opts *o)
{
	double v[BENCH_RUNS];
	char what[32] = "tcp loopback stream";
	int i, n = o->pcount > 0 ? (int)o->pcount : 0;

	if (n > 0)
		snprintf(what, sizeof(what), "tcp %dx%d streams", o->clients, n);
	for (i = 0; i < BENCH_RUNS; i++) {
		v[i] = n > 0 ? bench_ref_tcp_streams(o->clients, n, o->size,
		    (size_t)o->block) : bench_ref_tcp(o->size, (size_t)o->block);
		if (v[i] < 0) {
			bench_err("%s failed", what);
			return 1;
		}
	}
	printf("  %-22s %10s %10s %10s %10s\n", "MB/s (10^6 B/s)", "run 1",
	    "run 2", "run 3", "reported");
	print_runs(what, v);
	printf("RESULT tcp size=%llu block=%llu senders=%d receivers=%d "
	    "rate=%.1f\n", (unsigned long long)o->size,
	    (unsigned long long)o->block, n > 0 ? o->clients : 1, n > 0 ? n : 1,
	    bench_reported(v));
	return 0;
}

static int
cmd_tcp_send(const char *addr, const struct opts *o)
{
	double v = bench_ref_tcp_send(addr, o->size, (size_t)o->block);

	if (v < 0) {
		bench_err("%s: %s", addr, strerror(errno));
		return 1;
	}
	printf("RESULT tcp-send addr=%s size=%llu rate=%.1f\n", addr,
	    (unsigned long long)o->size, v);
	return 0;
}

static int
cmd_noncontig(const struct opts *o)
{
	struct where w;
	int rc;

	if (where_init(&w, o->path, o->local_dir, NULL, "pvfs-bench-nc") != 0)
		return 1;
	if (o->path == NULL && pvfs_mkdir(w.pvfs, 0755) != 0) {
		bench_err("%s: mkdir: %s", w.pvfs, strerror(errno));
		return 1;
	}
	fflush(stdout);
	rc = bench_noncontig(w.pvfs, (size_t)o->size,
	    (size_t)(o->region != 0 ? o->region : 4096), stdout);
	if (o->path == NULL)
		pvfs_rmdir(w.pvfs);
	return rc == 0 ? 0 : 1;
}

/* mpiio: the MPI-IO job is src/romio/bench-mpiio, built by make romio with
 * MPICH's mpicc (pvfs-bench itself links no MPI); it runs the native and
 * the MPI-IO phases in the same ranks, so pvfs-bench only launches it. */
static int
cmd_mpiio(const struct opts *o)
{
	const char *mpiexec = getenv("PVFS_MPIEXEC");
	const char *prog = getenv("PVFS_BENCH_MPIIO");
	char url[PATH_MAX + 8], np[16], size[24], block[24];
	struct where w;
	pid_t pid;
	int st;

	if (where_init(&w, o->path, o->local_dir, NULL, "pvfs-bench-mpiio") != 0)
		return 1;
	mpiexec = mpiexec != NULL ? mpiexec : "mpiexec";
	prog = prog != NULL ? prog : "bench-mpiio";
	snprintf(url, sizeof(url), "pvfs:%s", w.pvfs);
	snprintf(np, sizeof(np), "%d", o->clients);
	snprintf(size, sizeof(size), "%llu", (unsigned long long)o->size);
	snprintf(block, sizeof(block), "%llu", (unsigned long long)o->block);
	fflush(stdout);
	if ((pid = fork()) < 0) {
		bench_err("fork: %s", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		execlp(mpiexec, mpiexec, "-n", np, prog, url, size, block,
		    (char *)NULL);
		bench_err("%s: %s (set PVFS_MPIEXEC and PVFS_BENCH_MPIIO; "
		    "make romio builds both)", mpiexec, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	struct opts o;

	if (cmd == NULL) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf(PROG " %s\njobs: data meta readdir tcp tcp-sink tcp-send mpiio noncontig\n",
		    PACKAGE_VERSION);
		return 0;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(cmd, "tcp-sink") == 0 || strcmp(cmd, "tcp-send") == 0) {
		if (argc < 3)
			usage_error("%s: needs HOST:PORT", cmd);
		opts_parse(&o, argc - 2, argv + 2);
		if (cmd[4] == 's' && cmd[5] == 'i')
			return bench_ref_tcp_sink(argv[2], stdout) == 0 ? 0 : 1;
		return cmd_tcp_send(argv[2], &o);
	}
	opts_parse(&o, argc - 1, argv + 1);
	if (optind != argc - 1)
		usage_error("unexpected argument '%s'", argv[optind + 1]);
	if (strcmp(cmd, "data") == 0)
		return cmd_data(&o);
	if (strcmp(cmd, "meta") == 0)
		return cmd_meta(&o);
	if (strcmp(cmd, "tcp") == 0)
		return cmd_tcp(&o);
	if (strcmp(cmd, "readdir") == 0)
		return cmd_readdir(&o);
	if (strcmp(cmd, "noncontig") == 0)
		return cmd_noncontig(&o);
	if (strcmp(cmd, "mpiio") == 0)
		return cmd_mpiio(&o);
	usage_error("unknown job '%s'", cmd);
	return EXIT_USAGE;
}
