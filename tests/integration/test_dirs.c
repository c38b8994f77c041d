/*
 * test_dirs.c - the name space through libpvfs: mkdir, large directories,
 * readdir under concurrent creation, rename, rmdir, link counts,
 * chmod/chown/utimes/access, statfs and readdir with attributes
 * (MGR_READDIRPLUS).
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
#include <sys/statfs.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "pvfs-proto.h"
#include "libpvfs/pvfs-client.h"
#include "cluster.h"

#define NIODS 4
#define BIGDIR_FILES 10000
#define PLUS_FILES (PVFS_READDIRPLUS_MAX + 100) /* two reply batches */

static struct cluster c;

static const char *
P(const char *rel)
{
	static char bufs[4][PATH_MAX];
	static int next;

	next = (next + 1) % 4;
	return cluster_path(&c, rel, bufs[next]);
}

static void
make_file(const char *rel, const char *content)
{
	int fd = check_ok(pvfs_open(P(rel), O_CREAT | O_EXCL | O_WRONLY, 0644));

	if (content != NULL)
		assert_int_equal(check_ok(pvfs_write(fd, content,
		    strlen(content))), strlen(content));
	check_ok(pvfs_close(fd));
}

static void
check_content(const char *rel, const char *content)
{
	char buf[256];
	int fd = check_ok(pvfs_open(P(rel), O_RDONLY));
	ssize_t n = check_ok(pvfs_read(fd, buf, sizeof(buf) - 1));

	buf[n] = '\0';
	assert_string_equal(buf, content);
	check_ok(pvfs_close(fd));
}

static struct stat
stat_of(const char *rel)
{
	struct stat st;

	if (pvfs_stat(P(rel), &st) < 0)
		fail_msg("stat %s: %s", P(rel), strerror(errno));
	return st;
}

static void
test_nested_mkdir(void **state)
{
	struct stat st;

	check_ok(pvfs_mkdir(P("a"), 0755));
	check_ok(pvfs_mkdir(P("a/b"), 0755));
	check_ok(pvfs_mkdir(P("a/b/c"), 0700));
	check_ok(pvfs_mkdir(P("a/b/c/d"), 0755));
	check_ok(pvfs_mkdir(P("a/b/c/d/e"), 0755));
	st = stat_of("a/b/c");
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	make_file("a/b/c/d/e/leaf", "deep");
	check_content("a/b/c/d/e/leaf", "deep");
	st = stat_of("a/b/c/d/e/leaf");
	assert_true(S_ISREG(st.st_mode));
	/* The root is a directory too; trailing slashes and "." work. */
	st = stat_of("");
	assert_true(S_ISDIR(st.st_mode));
	st = stat_of("a/b/");
	assert_true(S_ISDIR(st.st_mode));
	assert_errno(pvfs_mkdir(P("nope/x"), 0755), ENOENT);
}

/* Read a whole directory; names not matching prefix%d are only allowed to
 * be "." and "..".  seen[i] counts name i. */
static int
list_dir(PVFS_DIR *d, const char *prefix, int *seen, int n,
    int stop_after, int *dots)
{
	struct dirent *de;
	size_t plen = strlen(prefix);
	int count = 0;

	while (count < stop_after && (errno = 0, de = pvfs_readdir(d)) != NULL) {
		char *end;
		long i;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) {
			(*dots)++;
			continue;
		}
		if (strncmp(de->d_name, prefix, plen) != 0)
			continue;
		i = strtol(de->d_name + plen, &end, 10);
		if (*end != '\0' || i < 0 || i >= n)
			fail_msg("unexpected entry %s", de->d_name);
		seen[i]++;
		if (seen[i] > 1)
			fail_msg("readdir returned %s twice", de->d_name);
		count++;
	}
	if (count < stop_after && errno != 0)
		fail_msg("readdir: %s", strerror(errno));
	return count;
}

static void
test_big_directory(void **state)
{
	int *seen = calloc(BIGDIR_FILES, sizeof(int));
	char rel[64];
	int dots = 0, n;
	double t0 = mono_now();
	PVFS_DIR *d;

	check_ok(pvfs_mkdir(P("big"), 0755));
	for (int i = 0; i < BIGDIR_FILES; i++) {
		snprintf(rel, sizeof(rel), "big/f%d", i);
		check_ok(pvfs_close(check_ok(pvfs_creat(P(rel), 0644))));
	}
	print_message("created %d files in %.1f s\n", BIGDIR_FILES,
	    mono_now() - t0);
	d = pvfs_opendir(P("big"));
	if (d == NULL)
		fail_msg("opendir: %s", strerror(errno));
	n = list_dir(d, "f", seen, BIGDIR_FILES, BIGDIR_FILES + 10, &dots);
	assert_int_equal(n, BIGDIR_FILES);
	assert_int_equal(dots, 2);
	for (int i = 0; i < BIGDIR_FILES; i++)
		if (seen[i] != 1)
			fail_msg("f%d seen %d times", i, seen[i]);
	/* rewinddir starts over. */
	pvfs_rewinddir(d);
	memset(seen, 0, BIGDIR_FILES * sizeof(int));
	dots = 0;
	n = list_dir(d, "f", seen, BIGDIR_FILES, BIGDIR_FILES + 10, &dots);
	assert_int_equal(n, BIGDIR_FILES);
	assert_int_equal(dots, 2);
	check_ok(pvfs_closedir(d));
	/* An entry stats fine and nlink of the dir is unchanged by files. */
	assert_int_equal(stat_of("big").st_nlink, 2);
	assert_true(S_ISREG(stat_of("big/f9999").st_mode));
	free(seen);
}

static void
test_readdir_stable_while_adding(void **state)
{
	const int old = 3000, added = 600;
	int *seen = calloc(old + added, sizeof(int));
	char rel[64];
	int dots = 0, n;
	PVFS_DIR *d;

	check_ok(pvfs_mkdir(P("grow"), 0755));
	for (int i = 0; i < old; i++) {
		snprintf(rel, sizeof(rel), "grow/e%d", i);
		check_ok(pvfs_close(check_ok(pvfs_creat(P(rel), 0644))));
	}
	d = pvfs_opendir(P("grow"));
	if (d == NULL)
		fail_msg("opendir: %s", strerror(errno));
	n = list_dir(d, "e", seen, old + added, 1000, &dots);
	assert_int_equal(n, 1000);
	/* New names land in the middle of the listing, in several batches. */
	for (int i = old; i < old + added; i++) {
		snprintf(rel, sizeof(rel), "grow/e%d", i);
		check_ok(pvfs_close(check_ok(pvfs_creat(P(rel), 0644))));
		if (i == old + added / 2)
			n += list_dir(d, "e", seen, old + added, 700, &dots);
	}
	n += list_dir(d, "e", seen, old + added, old + added, &dots);
	assert_int_equal(dots, 2);
	for (int i = 0; i < old; i++)
		if (seen[i] != 1)
			fail_msg("pre-existing e%d seen %d times", i, seen[i]);
	assert_in_range(n, old, old + added);
	pvfs_rewinddir(d);
	memset(seen, 0, (old + added) * sizeof(int));
	dots = 0;
	n = list_dir(d, "e", seen, old + added, old + added + 10, &dots);
	assert_int_equal(n, old + added);
	check_ok(pvfs_closedir(d));
	free(seen);
}

static void
test_rename_files(void **state)
{
	struct stat st, st2;

	check_ok(pvfs_mkdir(P("rn"), 0755));
	check_ok(pvfs_mkdir(P("rn/d1"), 0755));
	check_ok(pvfs_mkdir(P("rn/d2"), 0755));
	make_file("rn/d1/a", "alpha");
	st = stat_of("rn/d1/a");
	/* Within a directory. */
	check_ok(pvfs_rename(P("rn/d1/a"), P("rn/d1/b")));
	assert_errno(pvfs_stat(P("rn/d1/a"), &st2), ENOENT);
	st2 = stat_of("rn/d1/b");
	assert_int_equal(st.st_ino, st2.st_ino);
	check_content("rn/d1/b", "alpha");
	/* Across directories. */
	check_ok(pvfs_rename(P("rn/d1/b"), P("rn/d2/c")));
	assert_errno(pvfs_stat(P("rn/d1/b"), &st2), ENOENT);
	check_content("rn/d2/c", "alpha");
	assert_int_equal(stat_of("rn/d2/c").st_ino, st.st_ino);
	/* Onto itself: nothing happens. */
	check_ok(pvfs_rename(P("rn/d2/c"), P("rn/d2/c")));
	check_content("rn/d2/c", "alpha");
}

static void
test_rename_replaces_file(void **state)
{
	char big[65536];
	struct stat src, victim;
	int fd;

	check_ok(pvfs_mkdir(P("rp"), 0755));
	check_ok(pvfs_mkdir(P("rp/other"), 0755));
	make_file("rp/src", "source");
	/* The victim has data on every iod, which the rename must free. */
	memset(big, 'v', sizeof(big));
	fd = check_ok(pvfs_open(P("rp/other/victim"), O_CREAT | O_WRONLY, 0644));
	assert_int_equal(check_ok(pvfs_write(fd, big, sizeof(big))),
	    sizeof(big));
	check_ok(pvfs_fsync(fd));
	check_ok(pvfs_close(fd));
	src = stat_of("rp/src");
	victim = stat_of("rp/other/victim");
	{
		int held = 0;

		for (int k = 0; k < NIODS; k++)
			held += cluster_stripe_exists(&c, k, victim.st_ino);
		assert_true(held > 0);
	}
	check_ok(pvfs_rename(P("rp/src"), P("rp/other/victim")));
	assert_errno(pvfs_stat(P("rp/src"), &victim), ENOENT);
	assert_int_equal(stat_of("rp/other/victim").st_ino, src.st_ino);
	assert_int_equal(stat_of("rp/other/victim").st_size, 6);
	check_content("rp/other/victim", "source");
	if (cluster_stripes_gone(&c, victim.st_ino, 10000) != 0)
		fail_msg("an iod keeps a stripe file of inode %" PRIu64
		    " replaced by rename after 10 s", (uint64_t)victim.st_ino);
}

static void
test_rename_directories(void **state)
{
	struct stat st;

	check_ok(pvfs_mkdir(P("rd"), 0755));
	check_ok(pvfs_mkdir(P("rd/from"), 0755));
	check_ok(pvfs_mkdir(P("rd/to"), 0755));
	check_ok(pvfs_mkdir(P("rd/from/sub"), 0755));
	check_ok(pvfs_mkdir(P("rd/from/sub/inner"), 0755));
	make_file("rd/from/sub/inner/f", "inside");
	assert_int_equal(stat_of("rd/from").st_nlink, 3);
	assert_int_equal(stat_of("rd/to").st_nlink, 2);
	check_ok(pvfs_rename(P("rd/from/sub"), P("rd/to/moved")));
	assert_errno(pvfs_stat(P("rd/from/sub"), &st), ENOENT);
	check_content("rd/to/moved/inner/f", "inside");
	assert_int_equal(stat_of("rd/from").st_nlink, 2);
	assert_int_equal(stat_of("rd/to").st_nlink, 3);
	/* Onto an empty directory: replaces it. */
	check_ok(pvfs_mkdir(P("rd/empty"), 0755));
	check_ok(pvfs_rename(P("rd/to/moved"), P("rd/empty")));
	check_content("rd/empty/inner/f", "inside");
	assert_int_equal(stat_of("rd/to").st_nlink, 2);
	/* Renaming the directory keeps its children's listing. */
	{
		PVFS_DIR *d = pvfs_opendir(P("rd/empty"));
		struct dirent *de;
		int found = 0;

		if (d == NULL)
			fail_msg("opendir: %s", strerror(errno));
		while ((de = pvfs_readdir(d)) != NULL)
			found += strcmp(de->d_name, "inner") == 0;
		check_ok(pvfs_closedir(d));
		assert_int_equal(found, 1);
	}
}

static void
test_rmdir(void **state)
{
	struct stat st;

	check_ok(pvfs_mkdir(P("rm"), 0755));
	check_ok(pvfs_mkdir(P("rm/x"), 0755));
	assert_int_equal(stat_of("rm").st_nlink, 3);
	check_ok(pvfs_rmdir(P("rm/x")));
	assert_errno(pvfs_stat(P("rm/x"), &st), ENOENT);
	assert_int_equal(stat_of("rm").st_nlink, 2);
	/* The name can be reused, for a file too. */
	make_file("rm/x", "file now");
	check_content("rm/x", "file now");
	check_ok(pvfs_unlink(P("rm/x")));
	check_ok(pvfs_rmdir(P("rm")));
	assert_errno(pvfs_stat(P("rm"), &st), ENOENT);
}

static void
test_dir_stat_nlink(void **state)
{
	struct stat st, root;
	time_t t0 = time(NULL);

	check_ok(pvfs_mkdir(P("nl"), 0751));
	st = stat_of("nl");
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0751);
	assert_int_equal(st.st_nlink, 2);
	assert_int_equal(st.st_uid, getuid());
	assert_in_range(st.st_mtime, t0 - 5, time(NULL) + 5);
	root = stat_of("");
	check_ok(pvfs_mkdir(P("nl/a"), 0755));
	check_ok(pvfs_mkdir(P("nl/b"), 0755));
	make_file("nl/f", NULL);
	assert_int_equal(stat_of("nl").st_nlink, 4);
	assert_int_equal(stat_of("nl/f").st_nlink, 1);
	check_ok(pvfs_rmdir(P("nl/a")));
	assert_int_equal(stat_of("nl").st_nlink, 3);
	assert_true(root.st_nlink >= 3);
	assert_int_not_equal(stat_of("nl").st_ino, stat_of("nl/b").st_ino);
}

static void
test_chmod_chown_utimes_access(void **state)
{
	struct timeval tv[2] = {{1000000000, 0}, {1100000000, 0}};
	struct stat st;
	int fd;

	check_ok(pvfs_mkdir(P("attr"), 0755));
	make_file("attr/f", NULL);
	check_ok(pvfs_chmod(P("attr/f"), 0640));
	assert_int_equal(stat_of("attr/f").st_mode & 07777, 0640);
	check_ok(pvfs_chmod(P("attr"), 01777));
	assert_int_equal(stat_of("attr").st_mode & 07777, 01777);
	assert_true(S_ISDIR(stat_of("attr").st_mode));
	check_ok(pvfs_chown(P("attr/f"), 1234, 5678));
	st = stat_of("attr/f");
	assert_int_equal(st.st_uid, 1234);
	assert_int_equal(st.st_gid, 5678);
	/* -1 leaves a field alone. */
	check_ok(pvfs_chown(P("attr/f"), (uid_t)-1, 42));
	st = stat_of("attr/f");
	assert_int_equal(st.st_uid, 1234);
	assert_int_equal(st.st_gid, 42);
	check_ok(pvfs_utimes(P("attr/f"), tv));
	st = stat_of("attr/f");
	assert_int_equal(st.st_atime, 1000000000);
	assert_int_equal(st.st_mtime, 1100000000);
	/* By descriptor. */
	fd = check_ok(pvfs_open(P("attr/f"), O_RDONLY));
	check_ok(pvfs_fchmod(fd, 0604));
	check_ok(pvfs_fchown(fd, 7, 8));
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_mode & 07777, 0604);
	assert_int_equal(st.st_uid, 7);
	assert_int_equal(st.st_gid, 8);
	check_ok(pvfs_close(fd));
	/* utimes(NULL) is now. */
	check_ok(pvfs_utimes(P("attr/f"), NULL));
	assert_in_range(stat_of("attr/f").st_mtime, time(NULL) - 5,
	    time(NULL) + 5);
	/* access as root: everything but execute without an x bit. */
	check_ok(pvfs_access(P("attr/f"), F_OK));
	check_ok(pvfs_access(P("attr/f"), R_OK | W_OK));
	assert_errno(pvfs_access(P("attr/f"), X_OK), EACCES);
	check_ok(pvfs_chmod(P("attr/f"), 0700));
	check_ok(pvfs_access(P("attr/f"), X_OK));
	assert_errno(pvfs_access(P("attr/none"), F_OK), ENOENT);
}

/* mtime set by utimes sticks even on a file that has data on the iods. */
static void
test_utimes_on_file_with_data(void **state)
{
	struct timeval tv[2] = {{1000000000, 0}, {1100000000, 0}};
	char buf[100000];
	int fd;

	memset(buf, 'd', sizeof(buf));
	fd = check_ok(pvfs_open(P("utdata"), O_CREAT | O_RDWR, 0644));
	assert_int_equal(check_ok(pvfs_write(fd, buf, sizeof(buf))),
	    sizeof(buf));
	check_ok(pvfs_close(fd));
	check_ok(pvfs_utimes(P("utdata"), tv));
	assert_int_equal(stat_of("utdata").st_mtime, 1100000000);
	assert_int_equal(stat_of("utdata").st_size, sizeof(buf));
}

/* pvfs_readdir_stat: every entry once, across reply batches, each with
 * what pvfs_stat of its path says. */
static void
test_readdir_stat(void **state)
{
	int *seen = calloc(PLUS_FILES, sizeof(int));
	struct stat st, want;
	struct dirent *de;
	char rel[300], data[64];
	int n = 0, subdirs = 0, i;
	PVFS_DIR *d;

	check_ok(pvfs_mkdir(P("plus"), 0755));
	check_ok(pvfs_mkdir(P("plus/sub"), 0700));
	for (i = 0; i < PLUS_FILES; i++) {
		snprintf(rel, sizeof(rel), "plus/f%d", i);
		snprintf(data, sizeof(data), "%*d\n", i % 50, i);
		make_file(rel, i % 3 == 0 ? NULL : data);
	}
	check_ok(pvfs_chmod(P("plus/f7"), 0600));
	d = pvfs_opendir(P("plus"));
	if (d == NULL)
		fail_msg("opendir: %s", strerror(errno));
	errno = 0;
	while ((de = pvfs_readdir_stat(d, &st)) != NULL) {
		snprintf(rel, sizeof(rel), "plus/%s", de->d_name);
		want = stat_of(rel);
		assert_int_equal(st.st_ino, want.st_ino);
		assert_int_equal(de->d_ino, want.st_ino);
		assert_int_equal(st.st_mode, want.st_mode);
		assert_int_equal(st.st_nlink, want.st_nlink);
		assert_int_equal(st.st_uid, want.st_uid);
		assert_int_equal(st.st_gid, want.st_gid);
		assert_int_equal(st.st_size, want.st_size);
		assert_int_equal(st.st_blocks, want.st_blocks);
		assert_int_equal(st.st_blksize, want.st_blksize);
		assert_int_equal(st.st_dev, want.st_dev);
		assert_int_equal(st.st_mtim.tv_sec, want.st_mtim.tv_sec);
		assert_int_equal(st.st_mtim.tv_nsec, want.st_mtim.tv_nsec);
		assert_int_equal(st.st_ctim.tv_sec, want.st_ctim.tv_sec);
		assert_int_equal(st.st_ctim.tv_nsec, want.st_ctim.tv_nsec);
		if (strcmp(de->d_name, "sub") == 0) {
			assert_int_equal(de->d_type, DT_DIR);
			subdirs++;
		} else {
			assert_int_equal(de->d_type, DT_REG);
			i = atoi(de->d_name + 1);
			assert_true(i >= 0 && i < PLUS_FILES);
			seen[i]++;
		}
		n++;
	}
	assert_int_equal(errno, 0);
	assert_int_equal(n, PLUS_FILES + 1);
	assert_int_equal(subdirs, 1);
	for (i = 0; i < PLUS_FILES; i++)
		if (seen[i] != 1)
			fail_msg("f%d seen %d times", i, seen[i]);
	/* One stream, one way of reading it. */
	assert_null(pvfs_readdir(d));
	assert_int_equal(errno, EINVAL);
	check_ok(pvfs_closedir(d));
	free(seen);
}

static void
test_statfs_sane(void **state)
{
	struct statfs sf, local;
	double total, ltotal;

	check_ok(pvfs_statfs(P(""), &sf));
	check_ok(statfs(c.dir, &local));
	assert_true(sf.f_bsize > 0);
	assert_true(sf.f_blocks > 0);
	assert_true(sf.f_bfree <= sf.f_blocks);
	assert_true(sf.f_bavail <= sf.f_blocks);
	total = (double)sf.f_blocks * (double)sf.f_bsize;
	ltotal = (double)local.f_blocks * (double)local.f_bsize;
	/* 4 iods that share one local file system count it once. */
	if (total < 0.9 * ltotal || total > 1.1 * ltotal)
		fail_msg("statfs total %.0f bytes; 4 iods on a %.0f byte file "
		    "system should give about that once", total, ltotal);
	/* Inodes: a total and its free part. */
	assert_true(sf.f_ffree <= sf.f_files);
	assert_true(sf.f_files - sf.f_ffree >= 1);
	if (sf.f_namelen != 0)
		assert_int_equal(sf.f_namelen, 255);
	/* Any path in the file system gives the same answer. */
	check_ok(pvfs_mkdir(P("sfs"), 0755));
	{
		struct statfs sf2;

		check_ok(pvfs_statfs(P("sfs"), &sf2));
		assert_int_equal(sf2.f_blocks, sf.f_blocks);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_mkdir),
		cmocka_unit_test(test_big_directory),
		cmocka_unit_test(test_readdir_stable_while_adding),
		cmocka_unit_test(test_rename_files),
		cmocka_unit_test(test_rename_replaces_file),
		cmocka_unit_test(test_rename_directories),
		cmocka_unit_test(test_rmdir),
		cmocka_unit_test(test_dir_stat_nlink),
		cmocka_unit_test(test_chmod_chown_utimes_access),
		cmocka_unit_test(test_utimes_on_file_with_data),
		cmocka_unit_test(test_readdir_stat),
		cmocka_unit_test(test_statfs_sane),
	};
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
