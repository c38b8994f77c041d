/*
 * test_enospc.c - a full disk on an iod: the writer gets ENOSPC (not EIO,
 * never a false success), data written before stays intact byte for byte,
 * the daemon keeps serving reads and other writes, and once space is freed
 * (unlink) writes work again.
 *
 * iod1's data directory is a 4 MiB tmpfs mounted in a private mount
 * namespace of this test (so no exit path can leak the mount).  Needs root
 * (CAP_SYS_ADMIN): exit 77 otherwise.
 */
#include <sys/mount.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"
#include "procinfo.h"

#define MIB (1u << 20)
#define SSIZE 65536

static struct cluster c;
static struct rng rng;
static uint64_t seed;
static char mnt[PATH_MAX];
static unsigned char *buf, *back;

static int
mount_small_fs(void)
{
	snprintf(mnt, sizeof(mnt), "%s/iod1", c.dir);
	if (mount("pvfs-enospc", mnt, "tmpfs", 0, "size=4m,mode=0700") != 0) {
		fprintf(stderr, "mount tmpfs on %s: %s\n", mnt,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* Start, stop, put the small file system under iod1, start again. */
static int
group_setup(void **state)
{
	seed = rng_next(&rng);
	if ((buf = malloc(MIB)) == NULL || (back = malloc(MIB)) == NULL)
		return -1;
	if (cluster_start(&c, 2) < 0 || cluster_stop(&c) < 0 ||
	    mount_small_fs() < 0)
		return -1;
	return cluster_start_again(&c);
}

static int
group_teardown(void **state)
{
	int rc = cluster_stop(&c);

	if (mnt[0] != '\0' && umount2(mnt, MNT_DETACH) != 0)
		rc = -1;
	free(buf);
	free(back);
	return rc;
}

/* A file striped over both iods (pcount 2), or over iod0 only. */
static int
create(const char *path, int pcount)
{
	struct pvfs_filestat fs = { 0, pcount, SSIZE, 0, 0 };

	return check_ok(pvfs_open(path, O_CREAT | O_RDWR | PVFS_O_META, 0644,
	    &fs));
}

static void
write_pattern(int fd, uint64_t off, uint64_t pseed)
{
	pattern_fill(buf, MIB, off, pseed);
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, MIB, (off_t)off)),
	    MIB);
}

static void
check_pattern(int fd, uint64_t off, uint64_t len, uint64_t pseed)
{
	ssize_t bad;

	for (uint64_t o = off; o < off + len; o += MIB) {
		size_t n = off + len - o < MIB ? off + len - o : MIB;

		memset(back, 0, n);
		assert_int_equal(check_ok(pvfs_pread(fd, back, n, (off_t)o)),
		    (long)n);
		if ((bad = pattern_check(back, n, o, pseed)) >= 0)
			fail_msg("byte %llu differs", (unsigned long long)(o +
			    (uint64_t)bad));
	}
}

/* Write 1 MiB at a time until the iod fails; the offset reached.  The
 * failure must be ENOSPC, and a short count is as honest as -1. */
static uint64_t
fill_until_enospc(int fd, uint64_t pseed)
{
	uint64_t off = 0;
	ssize_t n;

	for (int i = 0; i < 64; i++, off += MIB) {
		pattern_fill(buf, MIB, off, pseed);
		errno = 0;
		n = pvfs_pwrite(fd, buf, MIB, (off_t)off);
		if (n == MIB)
			continue;
		print_message("write at %llu MiB: %zd, %s\n",
		    (unsigned long long)(off / MIB), n, strerror(errno));
		if (n >= 0 && n < MIB) {
			off += (uint64_t)n;
			n = pvfs_pwrite(fd, buf, MIB, (off_t)off);
		}
		if (n != -1 || errno != ENOSPC)
			fail_msg("write on a full iod: %zd, %s; want ENOSPC",
			    n, strerror(errno));
		return off;
	}
	fail_msg("64 MiB fit in a 4 MiB file system");
	return 0;
}

static void
test_full_iod(void **state)
{
	uint64_t seed_b = seed ^ 0x5555, reached;
	int a, b, solo, fd;
	struct stat st;
	pid_t pid = proc_daemon_pid(&c, "iod1");

	/* Earlier data: 512 KiB on each iod. */
	a = create("/pvfs/earlier", 2);
	write_pattern(a, 0, seed);
	check_ok(pvfs_fsync(a));

	b = create("/pvfs/filler", 2);
	reached = fill_until_enospc(b, seed_b);
	assert_true(reached >= MIB);
	/* Again: a full disk stays an error, not a hang or a crash. */
	errno = 0;
	assert_int_equal(pvfs_pwrite(b, buf, MIB, (off_t)reached), -1);
	assert_int_equal(errno, ENOSPC);

	/* What was acknowledged before is there, byte for byte. */
	check_pattern(a, 0, MIB, seed);
	check_pattern(b, 0, reached - reached % MIB, seed_b);
	check_ok(pvfs_fstat(b, &st));
	assert_true((uint64_t)st.st_size >= reached - reached % MIB);
	/* The full iod still serves, and iod0 still takes writes. */
	assert_true(proc_fd_count(pid) > 0);
	solo = create("/pvfs/iod0-only", 1);
	write_pattern(solo, 0, seed);
	check_pattern(solo, 0, MIB, seed);

	/* Free the space: writes work again, once the mgr has removed the
	 * filler's stripes (it does so after the unlink, from its loop). */
	check_ok(pvfs_close(b));
	check_ok(pvfs_unlink("/pvfs/filler"));
	assert_int_equal(cluster_stripes_gone(&c, st.st_ino, 10000), 0);
	fd = create("/pvfs/after", 2);
	write_pattern(fd, 0, seed_b);
	write_pattern(fd, MIB, seed_b);
	check_ok(pvfs_fsync(fd));
	check_pattern(fd, 0, 2 * MIB, seed_b);
	check_pattern(a, 0, MIB, seed);
	check_ok(pvfs_close(fd));
	check_ok(pvfs_close(solo));
	check_ok(pvfs_close(a));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_iod),
	};
	int rc;

	if (geteuid() != 0) {
		printf("test_enospc: mounting a small file system needs "
		    "root\n");
		return 77;
	}
	/* A private mount namespace: the tmpfs goes away with us. */
	if (unshare(CLONE_NEWNS) != 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
		printf("test_enospc: no mount namespace: %s\n",
		    strerror(errno));
		return 77;
	}
	rng_init(&rng, "test_enospc");
	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return cluster_finish(&c, rc);
}
