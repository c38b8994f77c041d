/*
 * test_io.c - file data through libpvfs against a 4-iod file system:
 * random I/O checked against a shadow for several distributions, offsets,
 * readv/writev, holes, files past 4 GiB, truncate, EOF, O_APPEND, O_TRUNC,
 * unlink freeing the stripe files, dup/dup2.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"

#define NIODS 4
#define KiB 1024ull
#define MiB (1024ull * 1024)
#define GiB (1024ull * 1024 * 1024)

static struct cluster c;

/* Create rel with a given distribution; -1 fields ask for defaults. */
static int
create_dist(const char *rel, int base, int pcount, int ssize)
{
	return cluster_create(&c, rel, 0, base, pcount, ssize);
}

static void
write_all(int fd, const void *buf, size_t n, uint64_t off)
{
	ssize_t w = pvfs_pwrite(fd, buf, n, (off_t)off);

	if (w < 0 || (size_t)w != n)
		fail_msg("pwrite(%zu at %" PRIu64 ") = %zd: %s", n, off, w,
		    w < 0 ? strerror(errno) : "short");
}

/* A random (offset, length) for a file with stripe size ssize. */
static void
random_region(struct rng *r, uint64_t ssize, uint64_t *off,
    size_t *len)
{
	switch (rng_range(r, 0, 5)) {
	case 0: /* one byte */
		*off = rng_range(r, 0, 6 * MiB);
		*len = 1;
		break;
	case 1: /* small, unaligned */
		*off = rng_range(r, 0, 6 * MiB);
		*len = rng_range(r, 2, 3 * ssize);
		break;
	case 2: /* whole stripes, aligned */
		*off = rng_range(r, 0, 6 * MiB / ssize) * ssize;
		*len = rng_range(r, 1, ssize >= MiB ? 3 : 8) * ssize;
		break;
	case 3: /* around a stripe boundary */
		*off = rng_range(r, 1, 6 * MiB / ssize) * ssize -
		    rng_range(r, 1, 100);
		*len = rng_range(r, 2, 200);
		break;
	default: /* large, up to several MiB */
		*off = rng_range(r, 0, 6 * MiB);
		*len = rng_range(r, 1, 3 * MiB);
		break;
	}
}

static void
random_io_one(int base, int pcount, int ssize, int nops)
{
	char name[64], what[128];
	struct pvfs_filestat got;
	struct shadow s;
	struct rng r;
	unsigned char *buf = malloc(4 * MiB), *rbuf = malloc(4 * MiB);
	uint64_t ss = ssize > 0 ? (uint64_t)ssize : 65536;
	uint64_t written = 0, nread = 0;
	int fd;

	snprintf(what, sizeof(what), "random io base %d pcount %d ssize %d",
	    base, pcount, ssize);
	rng_init(&r, what);
	snprintf(name, sizeof(name), "rand_%d_%d_%d", base, pcount, ssize);
	fd = check_ok(create_dist(name, base, pcount, ssize));
	memset(&got, 0xff, sizeof(got));
	check_ok(pvfs_ioctl(fd, PVFS_GETMETA, &got));
	if (base >= 0) {
		assert_int_equal(got.base, base);
		assert_int_equal(got.pcount, pcount);
		assert_int_equal(got.ssize, ssize);
	} else {
		/* Defaults: every iod, 64 KiB stripes, a base in range. */
		assert_int_equal(got.pcount, NIODS);
		assert_int_equal(got.ssize, 65536);
		assert_in_range(got.base, 0, NIODS - 1);
	}
	shadow_init(&s);
	for (int i = 0; i < nops; i++) {
		uint64_t off;
		size_t len;

		random_region(&r, ss, &off, &len);
		if (rng_range(&r, 0, 2) != 0) {
			rng_fill(&r, buf, len);
			write_all(fd, buf, len, off);
			shadow_write(&s, off, buf, len);
			written += len;
		} else {
			size_t exp = shadow_expect_len(&s, off, len);
			ssize_t n;

			memset(rbuf, 0xa5, len);
			n = pvfs_pread(fd, rbuf, len, (off_t)off);
			if (n < 0 || (size_t)n != exp)
				fail_msg("%s: op %d pread(%zu at %" PRIu64 ") "
				    "= %zd (%s), expected %zu", what, i, len,
				    off, n, n < 0 ? strerror(errno) : "", exp);
			if (exp > 0 && memcmp(rbuf, s.data + off, exp) != 0)
				fail_msg("%s: op %d pread(%zu at %" PRIu64 ") "
				    "returned wrong bytes (first bad at +%zu)",
				    what, i, len, off, first_diff(rbuf,
				    s.data + off, exp));
			nread += exp;
		}
	}
	print_message("%s: wrote %" PRIu64 " bytes, read %" PRIu64 ", file "
	    "size %zu\n", what, written, nread, s.size);
	shadow_assert_fd(&s, fd, what);
	check_ok(pvfs_close(fd));
	/* A second open sees the same distribution and bytes. */
	fd = check_ok(pvfs_open(cluster_path(&c, name, what), O_RDONLY));
	memset(&got, 0xff, sizeof(got));
	check_ok(pvfs_ioctl(fd, PVFS_GETMETA, &got));
	if (base >= 0) {
		assert_int_equal(got.base, base);
		assert_int_equal(got.pcount, pcount);
		assert_int_equal(got.ssize, ssize);
	}
	shadow_assert_fd(&s, fd, name);
	check_ok(pvfs_close(fd));
	shadow_free(&s);
	free(buf);
	free(rbuf);
}

static void
test_random_io_distributions(void **state)
{
	random_io_one(0, 1, 4096, 60);
	random_io_one(1, 2, 65536, 60);
	random_io_one(3, 4, 4096, 60);
	random_io_one(2, 3, 1048576, 40);
	random_io_one(1, 4, 12288, 40); /* not a power of two */
	random_io_one(-1, -1, -1, 40);
}

static void
test_read_write_lseek(void **state)
{
	char path[PATH_MAX];
	static unsigned char buf[300000], rbuf[400000];
	struct shadow s;
	struct rng r;
	int fd;

	rng_init(&r, "read_write_lseek");
	shadow_init(&s);
	fd = check_ok(create_dist("seq", 1, 3, 4096));
	rng_fill(&r, buf, sizeof(buf));
	/* Sequential writes advance the offset. */
	assert_int_equal(check_ok(pvfs_write(fd, buf, 1000)), 1000);
	assert_int_equal(check_ok(pvfs_write(fd, buf + 1000, 99000)), 99000);
	shadow_write(&s, 0, buf, 100000);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 100000);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_END), 100000);
	assert_int_equal(pvfs_lseek(fd, -50000, SEEK_END), 50000);
	assert_int_equal(pvfs_lseek(fd, 123, SEEK_CUR), 50123);
	assert_int_equal(check_ok(pvfs_read(fd, rbuf, 10000)), 10000);
	assert_memory_equal(rbuf, buf + 50123, 10000);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 60123);
	/* pread/pwrite leave the offset alone. */
	assert_int_equal(check_ok(pvfs_pread(fd, rbuf, 100, 5)), 100);
	assert_memory_equal(rbuf, buf + 5, 100);
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf + 200000, 7, 3)), 7);
	shadow_write(&s, 3, buf + 200000, 7);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 60123);
	/* Seeking past the end and writing leaves a hole. */
	assert_int_equal(pvfs_lseek(fd, 250000, SEEK_SET), 250000);
	assert_int_equal(check_ok(pvfs_write(fd, buf + 100000, 20000)), 20000);
	shadow_write(&s, 250000, buf + 100000, 20000);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_END), 270000);
	/* Negative results are EINVAL and keep the offset. */
	assert_errno(pvfs_lseek(fd, -1, SEEK_SET), EINVAL);
	assert_errno(pvfs_lseek(fd, -300000, SEEK_END), EINVAL);
	assert_errno(pvfs_lseek(fd, 0, 12345), EINVAL);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 270000);
	/* Reading sequentially through the whole file. */
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_SET), 0);
	{
		size_t got = 0;
		ssize_t n;

		while ((n = pvfs_read(fd, rbuf + got, 65537)) > 0)
			got += (size_t)n;
		assert_int_equal(n, 0);
		assert_int_equal(got, 270000);
		assert_memory_equal(rbuf, s.data, 270000);
	}
	shadow_assert_fd(&s, fd, "seq");
	check_ok(pvfs_close(fd));
	check_ok(pvfs_unlink(cluster_path(&c, "seq", path)));
	shadow_free(&s);
}

static void
test_readv_writev(void **state)
{
	unsigned char *src = malloc(MiB), *dst = malloc(MiB);
	size_t wsz[] = {1, 4095, 4097, 70000, 0, 200000, 3};
	size_t rsz[] = {10000, 1, 0, 150000, 77, 118145, 5000};
	struct iovec wv[7], rv[7];
	size_t total = 0, off = 0;
	struct rng r;
	int fd;

	rng_init(&r, "readv_writev");
	rng_fill(&r, src, MiB);
	for (int i = 0; i < 7; i++) {
		wv[i].iov_base = src + total;
		wv[i].iov_len = wsz[i];
		total += wsz[i];
	}
	fd = check_ok(create_dist("vec", 2, 4, 4096));
	assert_int_equal(check_ok(pvfs_lseek(fd, 1000, SEEK_SET)), 1000);
	assert_int_equal(check_ok(pvfs_writev(fd, wv, 7)), total);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 1000 + total);
	assert_int_equal(check_ok(pvfs_lseek(fd, 1000, SEEK_SET)), 1000);
	memset(dst, 0, MiB);
	for (int i = 0; i < 7; i++) {
		rv[i].iov_base = dst + off;
		rv[i].iov_len = rsz[i];
		off += rsz[i];
	}
	/* The read vector asks for more than the file holds: short read. */
	assert_true(off > total);
	assert_int_equal(check_ok(pvfs_readv(fd, rv, 7)), total);
	assert_memory_equal(dst, src, total);
	assert_int_equal(first_nonzero(dst + total, off - total), -1);
	/* The hole before offset 1000 reads as zeros. */
	assert_int_equal(check_ok(pvfs_pread(fd, dst, 1000, 0)), 1000);
	assert_int_equal(first_nonzero(dst, 1000), -1);
	check_ok(pvfs_close(fd));
	free(src);
	free(dst);
}

static void
test_sparse_holes_read_zero(void **state)
{
	unsigned char *buf = malloc(12 * MiB);
	unsigned char data[5000];
	struct stat st;
	struct rng r;
	int fd;

	rng_init(&r, "sparse");
	rng_fill(&r, data, sizeof(data));
	fd = check_ok(create_dist("sparse", 0, 4, 65536));
	/* Data only on some iods; the others have no stripe file at all. */
	check_ok(pvfs_pwrite(fd, data, 100, 65536 + 10));
	check_ok(pvfs_pwrite(fd, data + 100, 4900, 10 * MiB));
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, 10 * MiB + 4900);
	memset(buf, 0xee, 12 * MiB);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 12 * MiB, 0)),
	    10 * MiB + 4900);
	assert_int_equal(first_nonzero(buf, 65536 + 10), -1);
	assert_memory_equal(buf + 65536 + 10, data, 100);
	assert_int_equal(first_nonzero(buf + 65536 + 110,
	    10 * MiB - 65536 - 110), -1);
	assert_memory_equal(buf + 10 * MiB, data + 100, 4900);
	check_ok(pvfs_close(fd));
	free(buf);
}

static void
test_file_beyond_4gib(void **state)
{
	const uint64_t far = 5 * GiB + 123;
	unsigned char buf[8192], data[300];
	struct stat st;
	struct rng r;
	char path[PATH_MAX];
	int fd;

	rng_init(&r, "beyond_4gib");
	rng_fill(&r, data, sizeof(data));
	fd = check_ok(create_dist("big", 1, 4, 65536));
	write_all(fd, data, 50, far);
	/* Across the 4 GiB and 2 GiB boundaries too. */
	write_all(fd, data + 50, 100, 4 * GiB - 40);
	write_all(fd, data + 150, 100, 2 * GiB - 60);
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, far + 50);
	check_ok(pvfs_stat(cluster_path(&c, "big", path), &st));
	assert_int_equal(st.st_size, far + 50);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 8192, far - 100)), 150);
	assert_int_equal(first_nonzero(buf, 100), -1);
	assert_memory_equal(buf + 100, data, 50);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 200, 4 * GiB - 90)), 200);
	assert_int_equal(first_nonzero(buf, 50), -1);
	assert_memory_equal(buf + 50, data + 50, 100);
	assert_int_equal(first_nonzero(buf + 150, 50), -1);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 100, 2 * GiB - 60)), 100);
	assert_memory_equal(buf, data + 150, 100);
	/* Holes in the middle and the end. */
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 8192, 3 * GiB + 7)), 8192);
	assert_int_equal(first_nonzero(buf, 8192), -1);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 10, far + 50)), 0);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 10, 6 * GiB)), 0);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_END), (off_t)(far + 50));
	/* Truncate to just past 4 GiB keeps the 4 GiB region. */
	check_ok(pvfs_ftruncate(fd, 4 * GiB + 10));
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, 4 * GiB + 10);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 100, 4 * GiB - 40)), 50);
	assert_memory_equal(buf, data + 50, 50);
	check_ok(pvfs_close(fd));
	check_ok(pvfs_unlink(path));
}

static void
test_truncate_shrink_grow(void **state)
{
	unsigned char *buf = malloc(2 * MiB);
	char path[PATH_MAX];
	struct shadow s;
	struct stat st;
	struct rng r;
	int fd;

	rng_init(&r, "truncate");
	shadow_init(&s);
	fd = check_ok(create_dist("trunc", 3, 4, 4096));
	rng_fill(&r, buf, MiB);
	write_all(fd, buf, MiB, 0);
	shadow_write(&s, 0, buf, MiB);
	/* Shrink to the middle of a stripe. */
	check_ok(pvfs_ftruncate(fd, 300001));
	shadow_truncate(&s, 300001);
	shadow_assert_fd(&s, fd, "after ftruncate shrink");
	/* Grow: the new region reads as zeros, not as the old bytes. */
	check_ok(pvfs_ftruncate(fd, 2 * MiB));
	shadow_truncate(&s, 2 * MiB);
	shadow_assert_fd(&s, fd, "after ftruncate grow");
	/* By path. */
	check_ok(pvfs_truncate(cluster_path(&c, "trunc", path), 100));
	shadow_truncate(&s, 100);
	check_ok(pvfs_stat(path, &st));
	assert_int_equal(st.st_size, 100);
	shadow_assert_fd(&s, fd, "after truncate shrink");
	/* A write past the end after a shrink leaves zeros in between. */
	rng_fill(&r, buf, 50000);
	write_all(fd, buf, 50000, 20000);
	shadow_write(&s, 20000, buf, 50000);
	shadow_assert_fd(&s, fd, "after write past shrunk end");
	check_ok(pvfs_truncate(path, 0));
	shadow_truncate(&s, 0);
	shadow_assert_fd(&s, fd, "after truncate to 0");
	check_ok(pvfs_truncate(path, 12345));
	shadow_truncate(&s, 12345);
	shadow_assert_fd(&s, fd, "after truncate grow from 0");
	/* Truncate exactly at a stripe boundary. */
	rng_fill(&r, buf, 65536);
	write_all(fd, buf, 65536, 0);
	shadow_write(&s, 0, buf, 65536);
	check_ok(pvfs_ftruncate(fd, 8192));
	shadow_truncate(&s, 8192);
	shadow_assert_fd(&s, fd, "after truncate at a stripe boundary");
	check_ok(pvfs_close(fd));
	shadow_free(&s);
	free(buf);
}

static void
test_eof_short_reads(void **state)
{
	unsigned char data[9000], buf[20000];
	struct rng r;
	int fd;

	rng_init(&r, "eof");
	rng_fill(&r, data, sizeof(data));
	/* 4096 * 2 + 808: the last byte is on the third iod of four. */
	fd = check_ok(create_dist("eof", 0, 4, 4096));
	write_all(fd, data, 9000, 0);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 500, 8800)), 200);
	assert_memory_equal(buf, data + 8800, 200);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 20000, 0)), 9000);
	assert_memory_equal(buf, data, 9000);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 10, 9000)), 0);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 10, 100000)), 0);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 0, 10)), 0);
	/* read() advances by what it returned and then reports 0. */
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(check_ok(pvfs_read(fd, buf, 6000)), 6000);
	assert_int_equal(check_ok(pvfs_read(fd, buf + 6000, 6000)), 3000);
	assert_memory_equal(buf, data, 9000);
	assert_int_equal(check_ok(pvfs_read(fd, buf, 6000)), 0);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 9000);
	/* A size that ends exactly on a stripe end. */
	check_ok(pvfs_ftruncate(fd, 8192));
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 20000, 4000)), 4192);
	assert_memory_equal(buf, data + 4000, 4192);
	/* An empty file. */
	check_ok(pvfs_ftruncate(fd, 0));
	assert_int_equal(check_ok(pvfs_pread(fd, buf, 100, 0)), 0);
	check_ok(pvfs_close(fd));
}

static void
test_o_append(void **state)
{
	char path[PATH_MAX], buf[64];
	int fd;

	fd = check_ok(create_dist("append", 1, 2, 4096));
	check_ok(pvfs_pwrite(fd, "0123456789", 10, 0));
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open(cluster_path(&c, "append", path),
	    O_WRONLY | O_APPEND));
	assert_int_equal(check_ok(pvfs_write(fd, "abc", 3)), 3);
	/* Every write goes to the end, wherever the offset was. */
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(check_ok(pvfs_write(fd, "XYZ", 3)), 3);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 16);
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open(path, O_RDONLY));
	memset(buf, 0, sizeof(buf));
	assert_int_equal(check_ok(pvfs_read(fd, buf, sizeof(buf))), 16);
	assert_string_equal(buf, "0123456789abcXYZ");
	check_ok(pvfs_close(fd));
}

static void
test_o_trunc(void **state)
{
	char path[PATH_MAX], buf[100];
	struct stat st;
	int fd;

	fd = check_ok(create_dist("otrunc", 0, 4, 4096));
	memset(buf, 'x', sizeof(buf));
	for (int i = 0; i < 100; i++)
		check_ok(pvfs_pwrite(fd, buf, 100, i * 1000));
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open(cluster_path(&c, "otrunc", path),
	    O_RDWR | O_TRUNC));
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, 0);
	assert_int_equal(check_ok(pvfs_read(fd, buf, 100)), 0);
	check_ok(pvfs_pwrite(fd, "new", 3, 5000));
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, 5003);
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open(path, O_RDONLY));
	{
		unsigned char big[6000];

		assert_int_equal(check_ok(pvfs_pread(fd, big, 6000, 0)), 5003);
		assert_int_equal(first_nonzero(big, 5000), -1);
		assert_memory_equal(big + 5000, "new", 3);
	}
	check_ok(pvfs_close(fd));
}

static void
test_unlink_frees_stripe_files(void **state)
{
	unsigned char buf[65536];
	char path[PATH_MAX];
	struct stat st;
	int fd;

	memset(buf, 'u', sizeof(buf));
	fd = check_ok(create_dist("unlinkme", 2, 4, 4096));
	write_all(fd, buf, sizeof(buf), 0);
	check_ok(pvfs_fsync(fd));
	check_ok(pvfs_fstat(fd, &st));
	check_ok(pvfs_close(fd));
	for (int k = 0; k < NIODS; k++)
		if (!cluster_stripe_exists(&c, k, st.st_ino))
			fail_msg("iod%d has no stripe file for inode %" PRIu64
			    " (%s)", k, (uint64_t)st.st_ino,
			    cluster_stripe_file(&c, k, st.st_ino, path));
	check_ok(pvfs_unlink(cluster_path(&c, "unlinkme", path)));
	/* The mgr removes them from its loop, at once (doc/design.md). */
	if (cluster_stripes_gone(&c, st.st_ino, 10000) != 0)
		fail_msg("an iod still holds a stripe file of unlinked inode %"
		    PRIu64 " after 10 s", (uint64_t)st.st_ino);
	assert_errno(pvfs_stat(path, &st), ENOENT);
	assert_errno(pvfs_open(path, O_RDONLY), ENOENT);
}

/* The bytes sit where design.md says (DIR/iodK/XX/INODE, stripe s on iod
 * (base + s mod pcount) mod N at local offset (s div pcount) * ssize), and a
 * read goes to the iods every time (no client cache). */
static void
test_layout_on_iods(void **state)
{
	const size_t len = 4 * 4096 + 100;
	unsigned char data[4 * 4096 + 100], local[16384], b;
	char path[PATH_MAX];
	struct stat st;
	FILE *f;
	int fd;

	pattern_fill(data, len, 0, 42);
	fd = check_ok(create_dist("layout", 1, 2, 4096));
	write_all(fd, data, len, 0);
	check_ok(pvfs_fsync(fd));
	check_ok(pvfs_fstat(fd, &st));
	assert_false(cluster_stripe_exists(&c, 0, st.st_ino));
	assert_false(cluster_stripe_exists(&c, 3, st.st_ino));
	/* iod1 holds stripes 0, 2, 4; iod2 holds 1, 3. */
	for (int k = 1; k <= 2; k++) {
		size_t want = k == 1 ? 8192 + 100 : 8192, got;

		f = fopen(cluster_stripe_file(&c, k, st.st_ino, path), "rb");
		if (f == NULL)
			fail_msg("%s: %s", path, strerror(errno));
		got = fread(local, 1, sizeof(local), f);
		fclose(f);
		assert_int_equal(got, want);
		for (size_t i = 0; i < got; i++) {
			size_t s = 2 * (i / 4096) + (size_t)(k - 1);
			size_t logical = s * 4096 + i % 4096;

			if (local[i] != data[logical])
				fail_msg("iod%d local byte %zu is not logical "
				    "byte %zu", k, i, logical);
		}
	}
	/* Change a byte behind the library's back: iod2 local 5000 is logical
	 * 3 * 4096 + 904. */
	f = fopen(cluster_stripe_file(&c, 2, st.st_ino, path), "r+b");
	assert_non_null(f);
	b = (unsigned char)~data[3 * 4096 + 904];
	assert_int_equal(fseek(f, 5000, SEEK_SET), 0);
	assert_int_equal(fwrite(&b, 1, 1, f), 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(check_ok(pvfs_pread(fd, local, 1, 3 * 4096 + 904)), 1);
	assert_int_equal(local[0], b);
	check_ok(pvfs_close(fd));
}

static void
test_stat_size(void **state)
{
	char path[PATH_MAX];
	struct stat st, fst;
	int fd;

	fd = check_ok(create_dist("statsize", 3, 2, 65536));
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	check_ok(pvfs_pwrite(fd, "z", 1, 200000));
	check_ok(pvfs_fstat(fd, &fst));
	check_ok(pvfs_stat(cluster_path(&c, "statsize", path), &st));
	assert_int_equal(fst.st_size, 200001);
	assert_int_equal(st.st_size, 200001);
	assert_int_equal(st.st_ino, fst.st_ino);
	assert_int_equal(st.st_nlink, 1);
	check_ok(pvfs_lstat(path, &st));
	assert_int_equal(st.st_size, 200001);
	check_ok(pvfs_close(fd));
}

static void
test_dup_shares_offset(void **state)
{
	char buf[32];
	int fd, fd2, fd3, other;

	fd = check_ok(create_dist("dup", 0, 4, 4096));
	fd2 = check_ok(pvfs_dup(fd));
	assert_int_not_equal(fd, fd2);
	assert_true(pvfs_is_pvfs_fd(fd2));
	assert_int_equal(check_ok(pvfs_write(fd, "hello", 5)), 5);
	assert_int_equal(pvfs_lseek(fd2, 0, SEEK_CUR), 5);
	assert_int_equal(check_ok(pvfs_write(fd2, "world", 5)), 5);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 10);
	/* dup2 onto another pvfs descriptor closes that one first. */
	other = check_ok(create_dist("dup_other", 1, 1, 4096));
	fd3 = check_ok(pvfs_dup2(fd, other));
	assert_int_equal(fd3, other);
	assert_int_equal(pvfs_lseek(fd3, 0, SEEK_CUR), 10);
	assert_int_equal(check_ok(pvfs_lseek(fd3, 2, SEEK_SET)), 2);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_CUR), 2);
	/* dup2 onto itself is a no-op. */
	assert_int_equal(pvfs_dup2(fd, fd), fd);
	/* Closing one keeps the others working. */
	check_ok(pvfs_close(fd));
	assert_errno(pvfs_lseek(fd, 0, SEEK_CUR), EBADF);
	memset(buf, 0, sizeof(buf));
	assert_int_equal(check_ok(pvfs_read(fd2, buf, sizeof(buf))), 8);
	assert_string_equal(buf, "lloworld");
	assert_int_equal(pvfs_lseek(fd3, 0, SEEK_CUR), 10);
	check_ok(pvfs_close(fd2));
	check_ok(pvfs_close(fd3));
	assert_errno(pvfs_close(fd3), EBADF);
}

/* pvfs_getiod names the iod of each part: base 3 over 4 iods wraps. */
static void
test_getiod_names_each_part(void **state)
{
	char addr[300], want[64];
	int fd, rel;

	(void)state;
	fd = check_ok(create_dist("getiod", 3, 3, 4096));
	for (rel = 0; rel < 3; rel++) {
		assert_int_equal(pvfs_getiod(fd, rel, addr, sizeof(addr)), (3 + rel) % 4);
		snprintf(want, sizeof(want), "127.0.0.1:%d",
		    cluster_port(&c, rel == 0 ? "iod3" : rel == 1 ? "iod0" : "iod1"));
		assert_string_equal(addr, want);
	}
	assert_errno(pvfs_getiod(fd, 3, addr, sizeof(addr)), EINVAL);
	assert_errno(pvfs_getiod(fd, -1, addr, sizeof(addr)), EINVAL);
	assert_errno(pvfs_getiod(fd, 0, addr, 4), ERANGE);
	check_ok(pvfs_close(fd));
	assert_errno(pvfs_getiod(fd, 0, addr, sizeof(addr)), EBADF);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_io_distributions),
		cmocka_unit_test(test_read_write_lseek),
		cmocka_unit_test(test_readv_writev),
		cmocka_unit_test(test_sparse_holes_read_zero),
		cmocka_unit_test(test_file_beyond_4gib),
		cmocka_unit_test(test_truncate_shrink_grow),
		cmocka_unit_test(test_eof_short_reads),
		cmocka_unit_test(test_o_append),
		cmocka_unit_test(test_o_trunc),
		cmocka_unit_test(test_unlink_frees_stripe_files),
		cmocka_unit_test(test_layout_on_iods),
		cmocka_unit_test(test_stat_size),
		cmocka_unit_test(test_dup_shares_offset),
		cmocka_unit_test(test_getiod_names_each_part),
	};
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
