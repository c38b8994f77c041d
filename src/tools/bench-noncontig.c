/*
 * bench-noncontig.c - pvfs-bench's noncontiguous row: the same strided
 * bytes (regions of region_bytes every 2 * region_bytes, total_bytes in
 * all) moved with one noncontiguous call (list I/O, a partition, the
 * strided call) and with one pvfs_pread/pvfs_pwrite per region, side by
 * side.  Three runs of each, the middle one reported (BENCH_RUNS).
 *
 * Call: bench_noncontig(dir, total_bytes, region_bytes, out), where dir is
 * a PVFS directory (the file dir/noncontig.dat is used) or a PVFS file
 * path that does not exist yet; the file is removed afterwards.  0 on
 * success, -1 with a message on stderr.  `pvfs-bench noncontig [--size N]
 * [--region N]` calls it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "pvfs.h"
#include "bench.h"

enum nc_method {
	NC_READ_LIST,
	NC_READ_PART,
	NC_READ_STRIDED,
	NC_READ_PREAD,
	NC_READ_PREAD_BUF,
	NC_WRITE_LIST,
	NC_WRITE_PWRITE,
	NC_WRITE_PWRITE_BUF,
	NC_NMETHODS,
};

static const char *const nc_names[NC_NMETHODS] = {
	"read: pvfs_read_list (one call)",
	"read: SETPART + pvfs_read (one call)",
	"read: pvfs_read_strided (one call)",
	"read: one pvfs_pread per region",
	"read: pvfs_pread per region, BUFFERED",
	"write: pvfs_write_list (one call)",
	"write: one pvfs_pwrite per region",
	"write: pvfs_pwrite per region, BUFFERED",
};

/* The strided access: nreg regions of len bytes, stride apart. */
struct nc_job {
	char path[PATH_MAX];
	int fd;
	size_t nreg, len, stride, total;
	char *buf;                 /* total bytes */
	char **moff;               /* one memory region per file region */
	int64_t *mlen, *foff, *flen;
};

static int64_t
nc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
nc_fail(const char *what, const char *path)
{
	fprintf(stderr, "pvfs-bench: noncontig: %s: %s: %s\n", what, path,
	    strerror(errno));
	return -1;
}

static int
nc_path(struct nc_job *j, const char *dir)
{
	struct stat st;
	int n;

	if (pvfs_stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
		n = snprintf(j->path, sizeof(j->path), "%s/noncontig.dat", dir);
	else
		n = snprintf(j->path, sizeof(j->path), "%s", dir);
	if (n < 0 || (size_t)n >= sizeof(j->path)) {
		errno = ENAMETOOLONG;
		return nc_fail("path", dir);
	}
	return 0;
}

static int
nc_lists(struct nc_job *j)
{
	size_t i;

	j->buf = malloc(j->total);
	j->moff = calloc(j->nreg, sizeof(*j->moff));
	j->mlen = calloc(j->nreg, sizeof(*j->mlen));
	j->foff = calloc(j->nreg, sizeof(*j->foff));
	j->flen = calloc(j->nreg, sizeof(*j->flen));
	if (j->buf == NULL || j->moff == NULL || j->mlen == NULL ||
	    j->foff == NULL || j->flen == NULL)
		return nc_fail("malloc", j->path);
	for (i = 0; i < j->nreg; i++) {
		j->moff[i] = j->buf + i * j->len;
		j->mlen[i] = (int64_t)j->len;
		j->foff[i] = (int64_t)(i * j->stride);
		j->flen[i] = (int64_t)j->len;
	}
	return 0;
}

/* The file, written contiguously: every byte of it is (offset % 251). */
static int
nc_create(struct nc_job *j)
{
	size_t size = j->nreg * j->stride, chunk = 8u << 20, off, n, k;
	char *b = malloc(chunk);

	if (b == NULL)
		return nc_fail("malloc", j->path);
	if ((j->fd = pvfs_open(j->path, O_CREAT | O_TRUNC | O_RDWR, 0644)) == -1) {
		free(b);
		return nc_fail("open", j->path);
	}
	for (off = 0; off < size; off += n) {
		n = size - off < chunk ? size - off : chunk;
		for (k = 0; k < n; k++)
			b[k] = (char)((off + k) % 251);
		if (pvfs_pwrite(j->fd, b, n, (off_t)off) != (ssize_t)n) {
			free(b);
			return nc_fail("write", j->path);
		}
	}
	free(b);
	return 0;
}

/* The bytes a read must have returned. */
static int
nc_verify(const struct nc_job *j)
{
	size_t i, k;

	for (i = 0; i < j->nreg; i++)
		for (k = 0; k < j->len; k += 97)
			if (j->buf[i * j->len + k] !=
			    (char)((i * j->stride + k) % 251)) {
				errno = EIO;
				return nc_fail("read returned wrong bytes", j->path);
			}
	return 0;
}

static ssize_t
nc_per_region(struct nc_job *j, int write)
{
	size_t i, done = 0;
	ssize_t n;

	for (i = 0; i < j->nreg; i++) {
		n = write ? pvfs_pwrite(j->fd, j->moff[i], j->len, j->foff[i]) :
		    pvfs_pread(j->fd, j->moff[i], j->len, j->foff[i]);
		if (n != (ssize_t)j->len)
			return -1;
		done += j->len;
	}
	return (ssize_t)done;
}

/* The same through an open with PVFS_O_BUFFERED (doc/api.md), its open
 * and its close (which writes what is buffered) inside the time. */
static ssize_t
nc_per_region_buffered(struct nc_job *j, int write)
{
	int fd = j->fd;
	ssize_t n;

	if ((j->fd = pvfs_open(j->path, O_RDWR | PVFS_O_BUFFERED)) == -1) {
		j->fd = fd;
		return -1;
	}
	n = nc_per_region(j, write);
	if (pvfs_close(j->fd) != 0)
		n = -1;
	j->fd = fd;
	return n;
}

static ssize_t
nc_partition(struct nc_job *j)
{
	struct pvfs_fpart p = { 0, (int64_t)j->len, (int64_t)j->stride, 0, 0 };
	struct pvfs_fpart none = { 0, 0, 0, 0, 0 };
	ssize_t n;

	if (pvfs_ioctl(j->fd, PVFS_SETPART, &p) != 0)
		return -1;
	n = pvfs_read(j->fd, j->buf, j->total);
	if (pvfs_ioctl(j->fd, PVFS_SETPART, &none) != 0)
		return -1;
	return n;
}

static ssize_t
nc_run(struct nc_job *j, enum nc_method m)
{
	int cnt = (int)j->nreg;

	switch (m) {
	case NC_READ_LIST:
		return pvfs_read_list64(j->fd, cnt, j->moff, j->mlen, cnt,
		    j->foff, j->flen);
	case NC_READ_PART:
		return nc_partition(j);
	case NC_READ_STRIDED:
		return pvfs_read_strided(j->fd, j->buf, 0, (int64_t)j->len,
		    (int64_t)j->stride, (int64_t)j->nreg);
	case NC_READ_PREAD:
		return nc_per_region(j, 0);
	case NC_READ_PREAD_BUF:
		return nc_per_region_buffered(j, 0);
	case NC_WRITE_PWRITE_BUF:
		return nc_per_region_buffered(j, 1);
	case NC_WRITE_LIST:
		return pvfs_write_list64(j->fd, cnt, j->moff, j->mlen, cnt,
		    j->foff, j->flen);
	default:
		return nc_per_region(j, 1);
	}
}

/* Three runs, the middle one's time in ns (0 on failure). */
static int64_t
nc_time(struct nc_job *j, enum nc_method m)
{
	int64_t t[3], x, t0;
	int r;

	for (r = 0; r < 3; r++) {
		if (m < NC_WRITE_LIST)
			memset(j->buf, 0, j->total);
		t0 = nc_now_ns();
		if (nc_run(j, m) != (ssize_t)j->total) {
			nc_fail(nc_names[m], j->path);
			return 0;
		}
		t[r] = nc_now_ns() - t0;
		if (m < NC_WRITE_LIST && nc_verify(j) != 0)
			return 0;
	}
	if (t[0] > t[1]) { x = t[0]; t[0] = t[1]; t[1] = x; }
	if (t[1] > t[2]) { x = t[1]; t[1] = t[2]; t[2] = x; }
	if (t[0] > t[1]) { x = t[0]; t[0] = t[1]; t[1] = x; }
	return t[1];
}

static void
nc_free(struct nc_job *j)
{
	if (j->fd >= 0)
		pvfs_close(j->fd);
	if (j->path[0] != '\0')
		pvfs_unlink(j->path);
	free(j->buf);
	free(j->moff);
	free(j->mlen);
	free(j->foff);
	free(j->flen);
}

int
bench_noncontig(const char *dir, size_t total_bytes, size_t region_bytes,
    FILE *out)
{
	struct nc_job j;
	int64_t ns[NC_NMETHODS];
	int m, rc = -1;

	memset(&j, 0, sizeof(j));
	j.fd = -1;
	if (region_bytes == 0 || total_bytes < region_bytes ||
	    total_bytes / region_bytes > INT_MAX) {
		fprintf(stderr, "pvfs-bench: noncontig: bad sizes\n");
		return -1;
	}
	j.len = region_bytes;
	j.stride = 2 * region_bytes;
	j.nreg = total_bytes / region_bytes;
	j.total = j.nreg * j.len;
	if (nc_path(&j, dir) != 0 || nc_lists(&j) != 0 || nc_create(&j) != 0)
		goto out;
	for (m = 0; m < NC_NMETHODS; m++)
		if ((ns[m] = nc_time(&j, (enum nc_method)m)) == 0)
			goto out;
	/* What the writes left (the bytes the reads returned) read back. */
	memset(j.buf, 0, j.total);
	if (nc_run(&j, NC_READ_LIST) != (ssize_t)j.total || nc_verify(&j) != 0)
		goto out;
	fprintf(out, "noncontig: %zu regions of %zu bytes every %zu bytes, "
	    "%zu bytes in all (middle of 3 runs)\n", j.nreg, j.len, j.stride,
	    j.total);
	fprintf(out, "  %-40s %10s %10s %10s\n", "method", "calls", "ms", "MB/s");
	for (m = 0; m < NC_NMETHODS; m++)
		fprintf(out, "  %-40s %10zu %10.2f %10.1f\n", nc_names[m],
		    m == NC_READ_PREAD || m == NC_WRITE_PWRITE ||
		    m == NC_READ_PREAD_BUF || m == NC_WRITE_PWRITE_BUF ? j.nreg : 1,
		    ns[m] / 1e6, j.total / (ns[m] / 1e9) / 1e6);
	rc = 0;
out:
	nc_free(&j);
	return rc;
}
