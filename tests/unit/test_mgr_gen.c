/*
 * test_mgr_gen.c - a store written by pvfs-mgr-gen (the name-space
 * benchmarks' generator) loads into exactly the name space it describes;
 * readdir resumes from any cookie of a big directory, across removals; a
 * restart after more changes (snapshot + journal) gives back the live
 * state.  GEN_FILES is the small version of `make bench-names`.
 */
#include <errno.h>
#include <limits.h>
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

#include "mgr-test.h"

#define GEN_FILES 100000
#define GEN_PER 30000    /* four directories, the last one partial */
#define GEN_DIRS ((GEN_FILES + GEN_PER - 1) / GEN_PER)
#define BATCH 777        /* entries per readdir call */

static char base[PATH_MAX]; /* the test's directory */
static char meta[PATH_MAX]; /* the metadata directory in it */

static int
setup(void **state)
{
	(void)state;
	mt_setup();
	return mt_dir_make("test_mgr_gen", base, sizeof(base), meta, sizeof(meta));
}

static int
teardown(void **state)
{
	(void)state;
	return mt_dir_remove(base);
}

static void
generate(void)
{
	const char *b = getenv("PVFS_BUILDDIR");
	char cmd[2 * PATH_MAX];

	snprintf(cmd, sizeof(cmd), "'%s/pvfs-mgr-gen' -q -i 3 -p %d '%s' %d",
	    b != NULL ? b : ".", GEN_PER, meta, GEN_FILES);
	assert_int_equal(system(cmd), 0);
}

static void
jr_open(void)
{
	mt_apply = mt_journal_apply;
	mgr_journal_open(meta);
}

static void
jr_close(void)
{
	mgr_journal_close();
	mgr_ns_free();
	mt_apply = mgr_ns_apply;
}

static struct mgr_inode *
gen_dir(int k)
{
	char path[64];
	struct mgr_inode *d;

	snprintf(path, sizeof(path), "/gen/d%06d", k);
	d = mt_get(path);
	assert_non_null(d);
	assert_non_null(d->dir);
	return d;
}

/* Every entry of dir from cookie on, BATCH at a time, each call resuming
 * from the last cookie returned: the names in *names (file numbers), the
 * count returned. */
static size_t
list_from(const struct mgr_inode *dir, uint64_t cookie, long *nums, size_t max)
{
	struct mgr_dirent *out[BATCH];
	uint32_t i, n;
	size_t got = 0;
	int eof = 0;

	while (!eof) {
		n = mgr_ns_readdir(dir, cookie, out, BATCH, &eof);
		assert_true(n > 0 || eof);
		for (i = 0; i < n; i++) {
			assert_true(mgr_ns_cookie(out[i]) > cookie);
			cookie = mgr_ns_cookie(out[i]);
			assert_true(got < max);
			assert_int_equal(out[i]->name[0], 'f');
			nums[got++] = strtol(out[i]->name + 1, NULL, 10);
		}
	}
	return got;
}

/* The store holds what the generator was asked for, as the mgr would
 * have made it: each file's attributes, every name in creation order. */
static void
test_gen_loads(void **state)
{
	long *nums = calloc(GEN_PER, sizeof(*nums));
	struct mgr_inode *in;
	size_t n, want;
	char path[64];
	int k;
	long i;

	(void)state;
	assert_non_null(nums);
	generate();
	jr_open();
	assert_int_equal(mgr_ns_count(), 2 + GEN_DIRS + GEN_FILES);
	for (k = 0; k < GEN_DIRS; k++) {
		in = gen_dir(k);
		want = k < GEN_DIRS - 1 ? GEN_PER : GEN_FILES - (GEN_DIRS - 1) * GEN_PER;
		assert_int_equal(in->dir->nlive, want);
		n = list_from(in, 0, nums, GEN_PER);
		assert_int_equal(n, want);
		for (i = 0; i < (long)n; i++)
			assert_int_equal(nums[i], (long)k * GEN_PER + i);
	}
	for (i = 0; i < GEN_FILES; i += 997) {
		snprintf(path, sizeof(path), "/gen/d%06ld/f%09ld", i / GEN_PER, i);
		in = mt_get(path);
		assert_non_null(in);
		assert_true(MGR_IS_REG(in));
		assert_int_equal(in->mode & 07777, 0644);
		assert_int_equal(in->nlink, 1);
		assert_true(in->gen != 0);
		assert_int_equal(in->dist.pcount, 3);
		assert_true(in->dist.base < 3);
	}
	jr_close();
	free(nums);
}

/* A listing resumed from a cookie taken before removals and creates goes
 * on from there: removed names are gone, new ones come last, nothing is
 * seen twice; then a restart (snapshot + the journal of those changes)
 * gives back the live state. */
static void
test_gen_resume_and_restart(void **state)
{
	long *nums = calloc(GEN_PER + 16, sizeof(*nums));
	struct mgr_dirent *out[BATCH];
	struct mt_dump live, loaded;
	struct mgr_inode *d;
	uint64_t cookie = 0;
	char path[64], to[64];
	size_t n, seen = 0;
	int eof;
	long i, j;

	(void)state;
	assert_non_null(nums);
	generate();
	jr_open();
	d = gen_dir(0);
	/* The first half, listed in batches. */
	while (seen < GEN_PER / 2) {
		n = mgr_ns_readdir(d, cookie, out, BATCH, &eof);
		assert_true(n > 0);
		cookie = mgr_ns_cookie(out[n - 1]);
		seen += n;
	}
	/* Remove every third file and a run of 5000 after the cookie (the
	 * array compacts), rename some into another directory, add some. */
	for (i = 0; i < GEN_PER; i++) {
		if (i % 3 != 0 && !(i >= (long)seen && i < (long)seen + 5000))
			continue;
		snprintf(path, sizeof(path), "/gen/d000000/f%09ld", i);
		assert_int_equal(mt_unlink(path), 0);
	}
	for (i = 1; i < GEN_PER; i += 300) {
		if (i % 3 == 0 || (i >= (long)seen && i < (long)seen + 5000))
			continue;
		snprintf(path, sizeof(path), "/gen/d000000/f%09ld", i);
		snprintf(to, sizeof(to), "/gen/d000001/r%09ld", i);
		assert_int_equal(mt_rename(path, to), 0);
	}
	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), "/gen/d000000/f%09ld", GEN_FILES + i);
		assert_int_equal(mt_create(path, 0600, 0, 0, NULL), 0);
	}
	mgr_journal_commit();
	n = list_from(d, cookie, nums, GEN_PER + 16);
	for (i = (long)seen, j = 0; i < GEN_PER; i++) {
		if (i % 3 == 0 || (i < (long)seen + 5000) ||
		    (i % 300 == 1))
			continue;
		assert_true((size_t)j < n);
		assert_int_equal(nums[j++], i);
	}
	for (i = 0; i < 16; i++)
		assert_int_equal(nums[j++], GEN_FILES + i);
	assert_int_equal((size_t)j, n);
	mt_dump_take(&live);
	jr_close();
	jr_open();
	mt_dump_take(&loaded);
	mt_dump_compare(&live, &loaded, 0);
	mt_dump_free(&live);
	mt_dump_free(&loaded);
	jr_close();
	free(nums);
}

#define DIR_TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		DIR_TEST(test_gen_loads),
		DIR_TEST(test_gen_resume_and_restart),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
