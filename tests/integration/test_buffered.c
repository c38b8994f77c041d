/*
 * test_buffered.c - PVFS_O_BUFFERED (doc/api.md, Buffered files): the
 * open's own reads see its writes; another client (a forked process with
 * its own open) sees them after fsync or close and, for a small write,
 * not before (the write-behind is real); a flush's error surfaces at the
 * next write, fsync or close; random I/O equals a shadow copy.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"

#define NIODS 4
#define KiB 1024ull
#define MiB (1024ull * 1024)

static struct cluster c;

/* Create rel (base, pcount, ssize; -1: the default), closed again. */
static void
make(const char *rel, int base, int pcount, int ssize)
{
	int fd = cluster_create(&c, rel, O_TRUNC, base, pcount, ssize);

	assert_true(fd >= 0);
	assert_int_equal(pvfs_close(fd), 0);
}

static int
open_buffered(const char *rel, int flags)
{
	char path[4096];

	return pvfs_open(cluster_path(&c, rel, path), O_RDWR | PVFS_O_BUFFERED |
	    flags, 0644);
}

/* In a forked child, another client with its own open: 1 if bytes
 * [off, off + n) of rel equal want, 0 if not, -1 on an error. */
static int
other_client_sees(const char *rel, const void *want, size_t n, uint64_t off)
{
	char path[4096];
	pid_t pid;
	int st;

	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		char *buf = malloc(n);
		int fd = pvfs_open(cluster_path(&c, rel, path), O_RDONLY);
		ssize_t r;

		if (buf == NULL || fd < 0)
			_exit(2);
		memset(buf, 0, n);
		r = pvfs_pread(fd, buf, n, (off_t)off);
		if (r < 0)
			_exit(2);
		_exit(memcmp(buf, want, n) == 0 ? 0 : 1);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) == 2)
		return -1;
	return WEXITSTATUS(st) == 0;
}

static void
test_own_reads_and_visibility(void **state)
{
	uint8_t a[4096], b[4096];
	int fd;

	(void)state;
	make("vis", -1, 4, 65536);
	fd = open_buffered("vis", 0);
	assert_true(fd >= 0);
	pattern_fill(a, sizeof(a), 0, 1);
	assert_int_equal(pvfs_pwrite(fd, a, sizeof(a), 8192), sizeof(a));
	/* Buffered: another client does not see it yet. */
	assert_int_equal(other_client_sees("vis", a, sizeof(a), 8192), 0);
	/* This open does. */
	memset(b, 0, sizeof(b));
	assert_int_equal(pvfs_pread(fd, b, sizeof(b), 8192), sizeof(b));
	assert_memory_equal(a, b, sizeof(a));
	/* After fsync everyone does. */
	assert_int_equal(pvfs_fsync(fd), 0);
	assert_int_equal(other_client_sees("vis", a, sizeof(a), 8192), 1);
	/* And after close. */
	pattern_fill(a, sizeof(a), 12288, 2);
	assert_int_equal(pvfs_pwrite(fd, a, sizeof(a), 12288), sizeof(a));
	assert_int_equal(other_client_sees("vis", a, sizeof(a), 12288), 0);
	assert_int_equal(pvfs_close(fd), 0);
	assert_int_equal(other_client_sees("vis", a, sizeof(a), 12288), 1);
	assert_int_equal(pvfs_unlink(cluster_path(&c, "vis", (char[4096]){ 0 })), 0);
}

/* The size the mgr and iods report includes what was buffered. */
static void
test_stat_sees_buffered(void **state)
{
	uint8_t a[1000];
	struct stat st;
	int fd;

	(void)state;
	make("st", -1, -1, -1);
	fd = open_buffered("st", 0);
	assert_true(fd >= 0);
	pattern_fill(a, sizeof(a), 0, 3);
	assert_int_equal(pvfs_pwrite(fd, a, sizeof(a), 100000), sizeof(a));
	assert_int_equal(pvfs_fstat(fd, &st), 0);
	assert_int_equal(st.st_size, 101000);
	assert_int_equal(pvfs_lseek(fd, 0, SEEK_END), 101000);
	assert_int_equal(pvfs_close(fd), 0);
}

/* Random writes (sequential runs, strides, backwards, overlaps, large
 * ones), reads, truncates and fstat through a buffered open, each read
 * checked against the shadow; then the file through a plain open. */
static void
test_random_vs_shadow(void **state)
{
	struct shadow sh;
	struct rng r;
	uint8_t *buf = malloc(3 * MiB), *got = malloc(3 * MiB);
	uint64_t off = 0, len;
	struct stat st;
	int fd, i, plain;

	(void)state;
	assert_non_null(buf);
	assert_non_null(got);
	rng_init(&r, "test_buffered random");
	shadow_init(&sh);
	make("rnd", -1, 3, 16384);
	fd = open_buffered("rnd", 0);
	assert_true(fd >= 0);
	for (i = 0; i < 3000; i++) {
		switch (rng_range(&r, 0, 9)) {
		case 0: case 1: case 2: /* the next small piece */
			len = rng_range(&r, 1, 8192);
			break;
		case 3: /* a stride further */
			off += rng_range(&r, 1, 40000);
			len = rng_range(&r, 1, 4096);
			break;
		case 4: /* back, overlapping */
			off = off > 10000 ? off - rng_range(&r, 1, 10000) : 0;
			len = rng_range(&r, 1, 20000);
			break;
		case 5: /* large: straight through */
			off = rng_range(&r, 0, 4 * MiB);
			len = rng_range(&r, 600 * KiB, 3 * MiB);
			break;
		case 6: case 7: { /* a read */
			uint64_t ro = rng_range(&r, 0, sh.size + 10000);
			size_t rl = rng_range(&r, 1, 70000), want;
			ssize_t n = pvfs_pread(fd, got, rl, (off_t)ro);

			want = shadow_expect_len(&sh, ro, rl);
			assert_int_equal(n, want);
			if (want > 0)
				assert_memory_equal(got, sh.data + ro, want);
			continue;
		}
		case 8: /* truncate, now and then */
			if (rng_range(&r, 0, 20) != 0)
				continue;
			len = rng_range(&r, 0, sh.size + 1000);
			assert_int_equal(pvfs_ftruncate(fd, (off_t)len), 0);
			shadow_truncate(&sh, len);
			continue;
		default:
			assert_int_equal(pvfs_fstat(fd, &st), 0);
			assert_int_equal(st.st_size, sh.size);
			continue;
		}
		rng_fill(&r, buf, len);
		assert_int_equal(pvfs_pwrite(fd, buf, len, (off_t)off), len);
		shadow_write(&sh, off, buf, len);
		off += len;
	}
	assert_int_equal(pvfs_close(fd), 0);
	plain = pvfs_open(cluster_path(&c, "rnd", (char[4096]){ 0 }), O_RDONLY);
	assert_true(plain >= 0);
	shadow_assert_fd(&sh, plain, "plain open after the buffered one");
	pvfs_close(plain);
	shadow_free(&sh);
	free(buf);
	free(got);
}

/* A write the buffer took returns success; the iod it was for is gone
 * when it goes: the close says so.  Then the same with fsync, and with
 * the next write (a buffer full). */
static void
test_flush_error_surfaces(void **state)
{
	uint8_t a[4096];
	int fd, k;

	(void)state;
	/* One stripe on iod 1 only. */
	make("err", 1, 1, 65536);
	pattern_fill(a, sizeof(a), 0, 4);
	for (k = 0; k < 3; k++) {
		fd = open_buffered("err", 0);
		assert_true(fd >= 0);
		assert_int_equal(pvfs_pwrite(fd, a, sizeof(a), 0), sizeof(a));
		assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
		if (k == 0) {
			assert_int_equal(pvfs_close(fd), -1);
		} else if (k == 1) {
			assert_int_equal(pvfs_fsync(fd), -1);
			/* Reported once: the buffer is empty now. */
			assert_int_equal(cluster_start_again(&c), 0);
			assert_int_equal(pvfs_close(fd), 0);
		} else {
			/* 1 MiB buffered: the write that does not fit flushes
			 * and fails. */
			ssize_t n;
			uint64_t off;

			for (off = 4096, n = 0; off < 2 * MiB && n >= 0;
			    off += sizeof(a))
				n = pvfs_pwrite(fd, a, sizeof(a), (off_t)off);
			assert_int_equal(n, -1);
			pvfs_close(fd);
		}
		assert_int_equal(cluster_start_again(&c), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_reads_and_visibility),
		cmocka_unit_test(test_stat_sees_buffered),
		cmocka_unit_test(test_random_vs_shadow),
		cmocka_unit_test(test_flush_error_surfaces),
	};
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
