/*
 * test_timeout.c - a stopped or dead daemon gives the client an error within
 * the configured timeout (PVFS_TIMEOUT=2), never a hang, and the client
 * works again once the daemon is back.
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
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"

#define NIODS 4
#define SZ 65536
#define BOUND 10.0 /* seconds: a bound on "no hang", not a benchmark */

static struct cluster c;
static struct rng rng;
static uint64_t seed;
static int fd = -1;

static int group_setup(void **state)
{
	struct pvfs_filestat fs = {0, 4, 4096, 0, 0};
	unsigned char buf[SZ];

	rng_init(&rng, "test_timeout");
	seed = rng_next(&rng);
	if (cluster_start(&c, NIODS) < 0)
		return -1;
	/* Every iod holds 16 KiB of this file. */
	fd = pvfs_open("/pvfs/t", O_CREAT | O_RDWR | PVFS_O_META, 0644, &fs);
	pattern_fill(buf, SZ, 0, seed);
	if (fd < 0 || pvfs_pwrite(fd, buf, SZ, 0) != SZ || pvfs_fsync(fd) < 0)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	return cluster_stop(&c);
}

static void read_ok(int f, const char *when)
{
	unsigned char buf[SZ];
	ssize_t n;

	memset(buf, 0, sizeof(buf));
	n = pvfs_pread(f, buf, SZ, 0);
	if (n != SZ)
		fail_msg("%s: pread = %zd: %s", when, n, strerror(errno));
	if (pattern_check(buf, SZ, 0, seed) >= 0)
		fail_msg("%s: wrong bytes", when);
}

/* Run a failing call and check its errno is one of e1..e3 within BOUND. */
#define expect_failure(expr, e1, e2, e3)                                       \
	do {                                                                   \
		double t0_ = mono_now(), dt_;                                  \
		errno = 0;                                                     \
		long r_ = (long)(expr);                                        \
		int err_ = errno;                                              \
		dt_ = mono_now() - t0_;                                        \
		print_message("%s: %ld, %s after %.2f s\n", #expr, r_,         \
		    strerror(err_), dt_);                                      \
		if (r_ != -1 || (err_ != (e1) && err_ != (e2) &&               \
		    err_ != (e3)))                                             \
			fail_msg("%s = %ld errno %d (%s), expected -1 with "    \
			    "%s/%s/%s", #expr, r_, err_, strerror(err_), #e1,  \
			    #e2, #e3);                                         \
		if (dt_ >= BOUND)                                              \
			fail_msg("%s took %.1f s with PVFS_TIMEOUT=2", #expr,  \
			    dt_);                                              \
	} while (0)

static void test_stopped_iod_times_out(void **state)
{
	unsigned char buf[SZ];

	read_ok(fd, "before");
	assert_int_equal(cluster_kill(&c, "iod1", SIGSTOP), 0);
	expect_failure(pvfs_pread(fd, buf, SZ, 0), ETIMEDOUT, EIO, EIO);
	/* Writes too (the data fits in socket buffers; the reply never comes). */
	pattern_fill(buf, SZ, 0, seed);
	expect_failure(pvfs_pwrite(fd, buf, SZ, 0), ETIMEDOUT, EIO, EIO);
	assert_int_equal(cluster_kill(&c, "iod1", SIGCONT), 0);
	/* The late replies of the timed-out requests do not confuse the next. */
	read_ok(fd, "after SIGCONT");
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, SZ, 0)), SZ);
	read_ok(fd, "after SIGCONT and a write");
}

static void test_killed_iod_fails_then_recovers(void **state)
{
	unsigned char buf[SZ];
	int port = cluster_port(&c, "iod1"), f;

	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	expect_failure(pvfs_pread(fd, buf, SZ, 0), ECONNREFUSED, EIO,
	    ETIMEDOUT);
	expect_failure(pvfs_pread(fd, buf, SZ, 0), ECONNREFUSED, EIO,
	    ETIMEDOUT);
	assert_int_equal(cluster_start_again(&c), 0);
	f = check_ok(pvfs_open("/pvfs/t", O_RDONLY));
	read_ok(f, "new descriptor after iod restart");
	check_ok(pvfs_close(f));
	if (cluster_port(&c, "iod1") == port)
		read_ok(fd, "old descriptor after iod restart");
}

static void test_mgr_stopped_and_killed(void **state)
{
	struct stat st;

	assert_int_equal(cluster_kill(&c, "mgr", SIGSTOP), 0);
	expect_failure(pvfs_stat("/pvfs/t", &st), ETIMEDOUT, EIO, EIO);
	/* The mgr is not on the data path. */
	read_ok(fd, "with the mgr stopped");
	assert_int_equal(cluster_kill(&c, "mgr", SIGCONT), 0);
	check_ok(pvfs_stat("/pvfs/t", &st));
	assert_int_equal(st.st_size, SZ);

	assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	expect_failure(pvfs_stat("/pvfs/t", &st), ECONNREFUSED, EIO, ETIMEDOUT);
	expect_failure(pvfs_open("/pvfs/t2", O_CREAT | O_RDWR, 0644),
	    ECONNREFUSED, EIO, ETIMEDOUT);
	read_ok(fd, "with the mgr dead");
	assert_int_equal(cluster_start_again(&c), 0);
	check_ok(pvfs_stat("/pvfs/t", &st));
	assert_int_equal(st.st_size, SZ);
	check_ok(pvfs_close(check_ok(pvfs_open("/pvfs/t2", O_CREAT | O_RDWR,
	    0644))));
	check_ok(pvfs_stat("/pvfs/t2", &st));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stopped_iod_times_out),
		cmocka_unit_test(test_killed_iod_fails_then_recovers),
		cmocka_unit_test(test_mgr_stopped_and_killed),
	};
	int rc;

	/* Before the library reads its configuration. */
	setenv("PVFS_TIMEOUT", "2", 1);
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return cluster_finish(&c, rc);
}
