/*
 * test_restart.c - everything fsync'ed and every replied metadata change
 * survives restarting the whole file system, one iod, or the mgr.
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
#include "files.h"

#define NIODS 4
#define MiB (1024ull * 1024)

static struct cluster c;
static struct rng rng;

struct kfile {
	const char *path;
	uint64_t size;     /* bytes [hole, size) hold pattern(seed) */
	uint64_t hole;     /* bytes [0, hole) are a hole */
	int base, pcount, ssize;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	uint64_t seed;
	ino_t ino;
};

static struct kfile files[] = {
	{"/pvfs/keep/empty_file", 0, 0, 0, 4, 65536, 0644, 0, 0, 0, 0},
	{"/pvfs/keep/one", 1, 0, 1, 1, 4096, 0644, 0, 0, 0, 0},
	{"/pvfs/keep/small", 4095, 0, 2, 2, 4096, 0600, 0, 0, 0, 0},
	{"/pvfs/keep/d1/striped", 4 * 65536 + 17, 0, 3, 4, 65536, 0640,
	    1000, 1000, 0, 0},
	{"/pvfs/keep/d1/d2/large", 3 * MiB + 5, 0, 0, 3, 1048576, 0644, 0, 0,
	    0, 0},
	{"/pvfs/keep/d1/d2/sparse", 10 * MiB + 300000, 10 * MiB, 1, 4, 4096,
	    0644, 0, 0, 0, 0},
	{"/pvfs/keep/renamed", 77777, 0, -1, -1, -1, 0644, 0, 0, 0, 0},
};
#define NFILES (sizeof(files) / sizeof(files[0]))

static void
write_kfile(struct kfile *f, const char *create_as)
{
	struct pvfs_filestat fs = {f->base, f->pcount, f->ssize, 0, 0};
	uint64_t len = f->size - f->hole;
	unsigned char *buf = malloc(len + 1);
	struct stat st;
	int fd;

	f->seed = rng_next(&rng);
	fd = check_ok(pvfs_open(create_as, O_CREAT | O_EXCL | O_RDWR |
	    PVFS_O_META, 0644, &fs));
	pattern_fill(buf, len, f->hole, f->seed);
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, len, f->hole)), len);
	check_ok(pvfs_fsync(fd));
	check_ok(pvfs_fchmod(fd, f->mode));
	check_ok(pvfs_fchown(fd, f->uid, f->gid));
	check_ok(pvfs_fstat(fd, &st));
	f->ino = st.st_ino;
	check_ok(pvfs_close(fd));
	free(buf);
}

static void
check_kfile(const struct kfile *f, const char *when)
{
	unsigned char *buf = malloc(f->size + 1);
	struct pvfs_filestat got;
	struct stat st;
	int fd;

	if (pvfs_stat(f->path, &st) < 0)
		fail_msg("%s: stat %s: %s", when, f->path, strerror(errno));
	assert_int_equal(st.st_size, f->size);
	assert_int_equal(st.st_ino, f->ino);
	assert_int_equal(st.st_mode & 07777, f->mode);
	assert_int_equal(st.st_uid, f->uid);
	assert_int_equal(st.st_gid, f->gid);
	fd = check_ok(pvfs_open(f->path, O_RDONLY));
	check_ok(pvfs_ioctl(fd, PVFS_GETMETA, &got));
	if (f->base >= 0) {
		assert_int_equal(got.base, f->base);
		assert_int_equal(got.pcount, f->pcount);
		assert_int_equal(got.ssize, f->ssize);
	}
	memset(buf, 0x5a, f->size + 1);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, f->size + 1, 0)),
	    f->size);
	if (first_nonzero(buf, f->hole) >= 0)
		fail_msg("%s: %s: the hole holds data at %zd", when, f->path,
		    first_nonzero(buf, f->hole));
	{
		ssize_t bad = pattern_check(buf + f->hole, f->size - f->hole,
		    f->hole, f->seed);

		if (bad >= 0)
			fail_msg("%s: %s: byte %" PRIu64 " is wrong", when,
			    f->path, f->hole + (uint64_t)bad);
	}
	check_ok(pvfs_close(fd));
	free(buf);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Names in a directory, sorted into one string "a,b,c,". */
static void
list_names(const char *dir, char *out, size_t outlen)
{
	char names[64][64];
	int n = 0;
	PVFS_DIR *d = pvfs_opendir(dir);
	struct dirent *de;

	if (d == NULL)
		fail_msg("opendir %s: %s", dir, strerror(errno));
	while ((de = pvfs_readdir(d)) != NULL && n < 64)
		if (snprintf(names[n++], 64, "%s", de->d_name) >= 64)
			fail_msg("unexpected long name %s", de->d_name);
	check_ok(pvfs_closedir(d));
	qsort(names, (size_t)n, 64, cmp_name);
	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		strncat(out, names[i], outlen - strlen(out) - 2);
		strcat(out, ",");
	}
}

static void
check_tree(const char *when)
{
	char names[4096];
	struct stat st;

	for (size_t i = 0; i < NFILES; i++)
		check_kfile(&files[i], when);
	list_names("/pvfs/keep", names, sizeof(names));
	assert_string_equal(names, ".,..,d1,empty_dir,empty_file,one,renamed,"
	    "small,");
	list_names("/pvfs/keep/d1", names, sizeof(names));
	assert_string_equal(names, ".,..,d2,striped,");
	list_names("/pvfs/keep/d1/d2", names, sizeof(names));
	assert_string_equal(names, ".,..,large,sparse,");
	list_names("/pvfs/keep/empty_dir", names, sizeof(names));
	assert_string_equal(names, ".,..,");
	assert_errno(pvfs_stat("/pvfs/keep/gone", &st), ENOENT);
	assert_errno(pvfs_stat("/pvfs/keep/removed_dir", &st), ENOENT);
	assert_errno(pvfs_stat("/pvfs/keep/before_rename", &st), ENOENT);
	check_ok(pvfs_stat("/pvfs/keep/d1", &st));
	assert_int_equal(st.st_nlink, 3);
	assert_int_equal(st.st_mode & 07777, 0750);
}

static void
build_tree(void)
{
	check_ok(pvfs_mkdir("/pvfs/keep", 0755));
	check_ok(pvfs_mkdir("/pvfs/keep/d1", 0750));
	check_ok(pvfs_mkdir("/pvfs/keep/d1/d2", 0755));
	check_ok(pvfs_mkdir("/pvfs/keep/empty_dir", 0755));
	check_ok(pvfs_mkdir("/pvfs/keep/removed_dir", 0755));
	check_ok(pvfs_rmdir("/pvfs/keep/removed_dir"));
	for (size_t i = 0; i < NFILES; i++) {
		int renamed = strcmp(files[i].path, "/pvfs/keep/renamed") == 0;

		write_kfile(&files[i], renamed ? "/pvfs/keep/before_rename" :
		    files[i].path);
		if (renamed)
			check_ok(pvfs_rename("/pvfs/keep/before_rename",
			    files[i].path));
	}
	check_ok(pvfs_close(check_ok(pvfs_creat("/pvfs/keep/gone", 0644))));
	check_ok(pvfs_unlink("/pvfs/keep/gone"));
}

static ino_t
max_ino(void)
{
	ino_t m = 0;

	for (size_t i = 0; i < NFILES; i++)
		if (files[i].ino > m)
			m = files[i].ino;
	return m;
}

static void
test_full_restart_keeps_everything(void **state)
{
	struct stat st;

	build_tree();
	check_tree("before restart");
	assert_int_equal(cluster_restart(&c), 0);
	check_tree("after a restart");
	/* Inode numbers are not reused across a restart. */
	check_ok(pvfs_close(check_ok(pvfs_creat("/pvfs/after1", 0644))));
	check_ok(pvfs_stat("/pvfs/after1", &st));
	assert_true(st.st_ino > max_ino());
	check_ok(pvfs_unlink("/pvfs/after1"));
	/* A second restart replays what the first one recovered. */
	assert_int_equal(cluster_restart(&c), 0);
	check_tree("after a second restart");
	check_ok(pvfs_close(check_ok(pvfs_creat("/pvfs/after2", 0644))));
	{
		struct stat st2;

		check_ok(pvfs_stat("/pvfs/after2", &st2));
		assert_true(st2.st_ino > st.st_ino);
	}
}

static void
test_single_iod_restart(void **state)
{
	const size_t sz = MiB;
	unsigned char *buf = malloc(sz), *rbuf = malloc(sz);
	struct pvfs_filestat fs = {0, 4, 4096, 0, 0};
	uint64_t seed = rng_next(&rng);
	int fd, fd2, port_before;

	fd = check_ok(pvfs_open("/pvfs/iodrestart", O_CREAT | O_RDWR |
	    PVFS_O_META, 0644, &fs));
	pattern_fill(buf, sz, 0, seed);
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, sz, 0)), sz);
	check_ok(pvfs_fsync(fd));
	port_before = cluster_port(&c, "iod2");
	assert_int_equal(cluster_kill(&c, "iod2", SIGKILL), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	/* A new open reaches the new iod2. */
	fd2 = check_ok(pvfs_open("/pvfs/iodrestart", O_RDWR));
	memset(rbuf, 0, sz);
	assert_int_equal(check_ok(pvfs_pread(fd2, rbuf, sz, 0)), sz);
	assert_int_equal(pattern_check(rbuf, sz, 0, seed), -1);
	/* Writes through it too. */
	pattern_fill(buf, sz, sz, seed);
	assert_int_equal(check_ok(pvfs_pwrite(fd2, buf, sz, sz)), sz);
	assert_int_equal(check_ok(pvfs_pread(fd2, rbuf, sz, sz)), sz);
	assert_int_equal(pattern_check(rbuf, sz, sz, seed), -1);
	check_ok(pvfs_close(fd2));
	/* The descriptor opened before reconnects when the port is the same. */
	if (cluster_port(&c, "iod2") == port_before) {
		assert_int_equal(check_ok(pvfs_pread(fd, rbuf, sz, 0)), sz);
		assert_int_equal(pattern_check(rbuf, sz, 0, seed), -1);
	} else {
		print_message("iod2 came back on another port; the old "
		    "descriptor is not checked\n");
	}
	check_ok(pvfs_close(fd));
	free(buf);
	free(rbuf);
}

static void
test_mgr_sigkill_keeps_replied_changes(void **state)
{
	char path[64];
	struct stat st;

	check_ok(pvfs_mkdir("/pvfs/mgrkill", 0755));
	for (int i = 0; i < 200; i++) {
		snprintf(path, sizeof(path), "/pvfs/mgrkill/f%d", i);
		check_ok(pvfs_close(check_ok(pvfs_creat(path, 0644))));
	}
	check_ok(pvfs_rename("/pvfs/mgrkill/f0", "/pvfs/mgrkill/renamed"));
	check_ok(pvfs_unlink("/pvfs/mgrkill/f1"));
	check_ok(pvfs_chmod("/pvfs/mgrkill/f2", 0611));
	/* No clean shutdown: the journal alone must hold all of it. */
	assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	for (int i = 2; i < 200; i++) {
		snprintf(path, sizeof(path), "/pvfs/mgrkill/f%d", i);
		if (pvfs_stat(path, &st) < 0)
			fail_msg("after mgr SIGKILL: stat %s: %s", path,
			    strerror(errno));
	}
	check_ok(pvfs_stat("/pvfs/mgrkill/renamed", &st));
	assert_errno(pvfs_stat("/pvfs/mgrkill/f0", &st), ENOENT);
	assert_errno(pvfs_stat("/pvfs/mgrkill/f1", &st), ENOENT);
	check_ok(pvfs_stat("/pvfs/mgrkill/f2", &st));
	assert_int_equal(st.st_mode & 07777, 0611);
	check_tree("after mgr SIGKILL");
}

/* Creating a file needs the mgr alone: with an iod down, open(O_CREAT |
 * O_TRUNC) of a new name succeeds (it used to fail on the truncate and
 * leave the new name behind), the write fails with an errno, not a hang,
 * and works once the iod is back. */
static void
test_create_with_iod_down(void **state)
{
	char buf[4096];
	struct stat st;
	int fd;

	memset(buf, 'c', sizeof(buf));
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	fd = check_ok(pvfs_open("/pvfs/created-down",
	    O_CREAT | O_TRUNC | O_WRONLY, 0644));
	assert_int_equal(pvfs_pwrite(fd, buf, sizeof(buf), 0), -1);
	assert_true(errno == ECONNREFUSED || errno == EIO ||
	    errno == EHOSTUNREACH || errno == ETIMEDOUT);
	check_ok(pvfs_close(fd));
	assert_int_equal(cluster_start_again(&c), 0);
	fd = check_ok(pvfs_open("/pvfs/created-down", O_WRONLY | O_TRUNC));
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, sizeof(buf), 0)),
	    sizeof(buf));
	check_ok(pvfs_close(fd));
	check_ok(pvfs_stat("/pvfs/created-down", &st));
	assert_int_equal(st.st_size, sizeof(buf));
}

/* The mgr's address, left by a restart, now answers for another file
 * system (another cluster's mgr, reached once the pvfstab names it): the
 * client refuses it as if nobody listened, changes nothing there, and
 * goes on once the pvfstab names its own mgr again. */
static void
test_foreign_mgr_refused(void **state)
{
	struct cluster other = { 0 };
	char url[128];
	uint8_t *ours, *theirs;
	size_t len, tlen;
	struct stat st;
	int fd, port;

	/* The first connection learns which file system this is. */
	check_ok(pvfs_close(check_ok(pvfs_creat("/pvfs/pinned", 0644))));
	assert_int_equal(cluster_start(&other, 1), 0);
	setenv("PVFSTAB_FILE", c.tab, 1);
	port = cluster_port(&other, "mgr");
	assert_true(port > 0);
	/* Our pvfstab now names the other mgr, and ours is gone. */
	ours = file_slurp(c.tab, &len);
	theirs = file_slurp(other.tab, &tlen);
	file_spill(c.tab, theirs, tlen);
	free(theirs);
	assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	fd = pvfs_open("/pvfs/foreign", O_CREAT | O_WRONLY, 0644);
	assert_int_equal(fd, -1);
	assert_int_equal(errno, ECONNREFUSED);
	snprintf(url, sizeof(url), "pvfs://127.0.0.1:%d/foreign", port);
	assert_errno(pvfs_stat(url, &st), ENOENT);
	assert_int_equal(cluster_stop(&other), 0);
	assert_int_equal(cluster_finish(&other, 0), 0);
	setenv("PVFSTAB_FILE", c.tab, 1);
	/* Ours again: the restart writes its own pvfstab. */
	file_spill(c.tab, ours, len);
	free(ours);
	assert_int_equal(cluster_start_again(&c), 0);
	check_ok(pvfs_close(check_ok(pvfs_creat("/pvfs/after", 0644))));
	check_ok(pvfs_stat("/pvfs/pinned", &st));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_restart_keeps_everything),
		cmocka_unit_test(test_single_iod_restart),
		cmocka_unit_test(test_mgr_sigkill_keeps_replied_changes),
		cmocka_unit_test(test_foreign_mgr_refused),
		cmocka_unit_test(test_create_with_iod_down),
	};
	rng_init(&rng, "test_restart");
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
