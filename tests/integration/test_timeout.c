/*
 * test_timeout.c - a stopped, dead or unreachable daemon gives the client
 * an error within the configured timeout (PVFS_TIMEOUT=2), never a hang,
 * and the client works again once the daemon is back.  "Unreachable" is a
 * listening socket of this test whose accept queue is full, so the kernel
 * drops the client's SYNs (as a firewall or a vanished host would), and
 * "mute" one that completes connections but never answers.
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cmocka.h>

#include "pvfs.h"
#include "common.h"
#include "cluster.h"

#define NIODS 4
#define SZ 65536
#define BOUND 10.0 /* seconds: a bound on "no hang", not a benchmark */

static struct cluster c;
static struct rng rng;
static uint64_t seed;
static int fd = -1;
static int hole[2] = { -1, -1 }; /* black hole: listener, queued connection */
static int mute = -1;             /* listener that never accepts */

/* A listener on 127.0.0.1:port (0: any) that this test never accepts on;
 * with backlog 0 one queued connection fills it.  Its port in *bound. */
static int
listen_never_accept(int port, int backlog, int *bound)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int one = 1, l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)port);
	if (l < 0 || setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one,
	    sizeof(one)) != 0 || bind(l, (struct sockaddr *)&sa,
	    sizeof(sa)) != 0 || listen(l, backlog) != 0 ||
	    getsockname(l, (struct sockaddr *)&sa, &len) != 0)
		return -1;
	*bound = ntohs(sa.sin_port);
	return l;
}

/* A black hole at port: a full accept queue drops every further SYN. */
static int
black_hole(int port, int *bound)
{
	if ((hole[0] = listen_never_accept(port, 0, bound)) < 0 ||
	    (hole[1] = pvfs_net_connect("127.0.0.1", (uint16_t)*bound,
	    2000)) < 0)
		return -1;
	return 0;
}

static void
black_hole_close(void)
{
	for (int i = 0; i < 2; i++) {
		if (hole[i] >= 0)
			close(hole[i]);
		hole[i] = -1;
	}
}

/* pvfstab entries /unreach (black hole) and /mute, read by the library on
 * its first call, which comes after this. */
static int
add_unreachable_fs(void)
{
	int hport, mport;
	FILE *f;

	if (black_hole(0, &hport) < 0 ||
	    (mute = listen_never_accept(0, 16, &mport)) < 0 ||
	    (f = fopen(c.tab, "a")) == NULL)
		return -1;
	fprintf(f, "127.0.0.1:/unreach /unreach pvfs port=%d 0 0\n", hport);
	fprintf(f, "127.0.0.1:/mute /mute pvfs port=%d 0 0\n", mport);
	fclose(f);
	return 0;
}

static int
group_setup(void **state)
{
	struct pvfs_filestat fs = {0, 4, 4096, 0, 0};
	unsigned char buf[SZ];

	rng_init(&rng, "test_timeout");
	seed = rng_next(&rng);
	if (cluster_start(&c, NIODS) < 0 || add_unreachable_fs() < 0)
		return -1;
	/* Every iod holds 16 KiB of this file. */
	fd = pvfs_open("/pvfs/t", O_CREAT | O_RDWR | PVFS_O_META, 0644, &fs);
	pattern_fill(buf, SZ, 0, seed);
	if (fd < 0 || pvfs_pwrite(fd, buf, SZ, 0) != SZ || pvfs_fsync(fd) < 0)
		return -1;
	return 0;
}

static int
group_teardown(void **state)
{
	black_hole_close();
	if (mute >= 0)
		close(mute);
	return cluster_stop(&c);
}

static void
read_ok(int f, const char *when)
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

static void
test_stopped_iod_times_out(void **state)
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

static void
test_killed_iod_fails_then_recovers(void **state)
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

static void
test_mgr_stopped_and_killed(void **state)
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

/* A mgr behind a black hole or one that never answers: ETIMEDOUT. */
static void
test_unreachable_mgr(void **state)
{
	struct stat st;

	expect_failure(pvfs_stat("/unreach/x", &st), ETIMEDOUT, EIO, EIO);
	expect_failure(pvfs_open("/unreach/y", O_CREAT | O_RDWR, 0644),
	    ETIMEDOUT, EIO, EIO);
	expect_failure(pvfs_stat("/mute/x", &st), ETIMEDOUT, EIO, EIO);
	expect_failure(pvfs_mkdir("/mute/d", 0755), ETIMEDOUT, EIO, EIO);
	/* The real file system is not held up by the dead ones. */
	check_ok(pvfs_stat("/pvfs/t", &st));
	read_ok(fd, "next to unreachable file systems");
}

/* iod1 dies and a black hole takes its port: reads and writes time out;
 * once iod1 is back on that port the same descriptor works again. */
static void
test_unreachable_iod(void **state)
{
	unsigned char buf[SZ];
	int port = cluster_port(&c, "iod1"), bound;

	read_ok(fd, "before");
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	assert_int_equal(black_hole(port, &bound), 0);
	expect_failure(pvfs_pread(fd, buf, SZ, 0), ETIMEDOUT, EIO, EIO);
	pattern_fill(buf, SZ, 0, seed);
	expect_failure(pvfs_pwrite(fd, buf, SZ, 0), ETIMEDOUT, EIO, EIO);
	black_hole_close();
	assert_int_equal(cluster_start_again(&c), 0);
	if (cluster_port(&c, "iod1") != port)
		skip(); /* someone took the port meanwhile */
	read_ok(fd, "after iod1 came back");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stopped_iod_times_out),
		cmocka_unit_test(test_killed_iod_fails_then_recovers),
		cmocka_unit_test(test_mgr_stopped_and_killed),
		cmocka_unit_test(test_unreachable_mgr),
		cmocka_unit_test(test_unreachable_iod),
	};
	int rc;

	/* Before the library reads its configuration. */
	setenv("PVFS_TIMEOUT", "2", 1);
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return cluster_finish(&c, rc);
}
