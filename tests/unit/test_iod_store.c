/* test_iod_store.c - an iod's stripe files are named by the file's whole
 * identity (ino, gen): one file never opens, lists or removes another's
 * stripes that share its inode number. */
#include <errno.h>
#include <fcntl.h>
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

#include "iod/iod.h"

#define GEN_A UINT64_C(0x00000000deadbeef)
#define GEN_B UINT64_C(0xfedcba9876543210)

static char datadir[64];

static int
setup(void **state)
{
	char *cause = NULL;

	snprintf(datadir, sizeof(datadir), "/tmp/test_iod_store.XXXXXX");
	if (mkdtemp(datadir) == NULL)
		return -1;
	if (iod_store_init(datadir, &cause) != 0) {
		fprintf(stderr, "%s\n", cause);
		free(cause);
		return -1;
	}
	return 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	iod_store_shutdown();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", datadir);
	return system(cmd) == 0 ? 0 : -1;
}

static void
test_path(void **state)
{
	char p[IOD_STORE_PATH_MAX];

	iod_store_path(258, 0, 0, p, sizeof(p));
	assert_string_equal(p, "02/258");
	iod_store_path(258, GEN_A, 0, p, sizeof(p));
	assert_string_equal(p, "02/258.00000000deadbeef");
	iod_store_path(UINT64_MAX, UINT64_MAX, 0, p, sizeof(p));
	assert_string_equal(p, "ff/18446744073709551615.ffffffffffffffff");
	iod_store_path(258, GEN_A, 1, p, sizeof(p));
	assert_string_equal(p, "02/258.00000000deadbeef.c1");
	iod_store_path(UINT64_MAX, UINT64_MAX, PVFS_COPIES_MAX - 1, p, sizeof(p));
	assert_string_equal(p, "ff/18446744073709551615.ffffffffffffffff.c7");
}

static void
test_name_parse(void **state)
{
	static const char *bad[] = {
		"0258", "258.", "258.0000000000000000", "258.DEADBEEF00000000",
		"258.deadbeef", "258.00000000deadbeef0", "258.00000000deadbeeg",
		"258x", "+258", "18446744073709551616", "", ".", "..",
		"258.00000000deadbeef.1", "259", /* wrong subdirectory */
		"258.00000000deadbeef.c0", "258.00000000deadbeef.c8",
		"258.00000000deadbeef.c", "258.00000000deadbeef.c10",
		"258.00000000deadbeef.c1x", "258.c1",
	};
	uint64_t ino, gen;
	uint32_t copy;
	size_t i;

	assert_int_equal(iod_store_name_parse("258", 2, &ino, &gen, &copy), 0);
	assert_true(ino == 258 && gen == 0 && copy == 0);
	assert_int_equal(iod_store_name_parse("258.00000000deadbeef.c3", 2,
	    &ino, &gen, &copy), 0);
	assert_true(ino == 258 && gen == GEN_A && copy == 3);
	assert_int_equal(iod_store_name_parse("258.fedcba9876543210", 2, &ino,
	    &gen, &copy), 0);
	assert_true(ino == 258 && gen == GEN_B);
	assert_int_equal(iod_store_name_parse("18446744073709551615."
	    "0000000000000001", 0xff, &ino, &gen, &copy), 0);
	assert_true(ino == UINT64_MAX && gen == 1);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (iod_store_name_parse(bad[i], 2, &ino, &gen, &copy) == 0)
			fail_msg("\"%s\" taken for a stripe file", bad[i]);
}

/* Write len bytes of c at offset 0 of (ino, gen)'s stripe file. */
static void
put_copy(uint64_t ino, uint64_t gen, uint32_t copy, char c, size_t len)
{
	char buf[64];
	struct iod_file *f;
	int err = 0;

	assert_true(len <= sizeof(buf));
	memset(buf, c, len);
	f = iod_store_get(ino, gen, copy, 1, &err);
	assert_non_null(f);
	assert_int_equal(pwrite(f->fd, buf, len, 0), (ssize_t)len);
	iod_store_put(f);
}

/* Bytes of (ino, gen)'s stripe file as the store opens it, -errno if it
 * cannot; the first byte in *c. */
static long
get_copy(uint64_t ino, uint64_t gen, uint32_t copy, char *c)
{
	struct iod_file *f;
	struct stat st;
	int err = 0;

	if ((f = iod_store_get(ino, gen, copy, 0, &err)) == NULL)
		return -err;
	assert_int_equal(fstat(f->fd, &st), 0);
	*c = 0;
	if (st.st_size > 0)
		assert_int_equal(pread(f->fd, c, 1, 0), 1);
	iod_store_put(f);
	return (long)st.st_size;
}

static void
put(uint64_t ino, uint64_t gen, char c, size_t len)
{
	put_copy(ino, gen, 0, c, len);
}

static long
get(uint64_t ino, uint64_t gen, char *c)
{
	return get_copy(ino, gen, 0, c);
}

/* Three files share inode 258 (a legacy one and two of distinct gens),
 * as after a metadata rollback: each sees only its own bytes, also once
 * its descriptor is cached. */
static void
test_identities_apart(void **state)
{
	struct stat st;
	char c;

	put(258, 0, 'L', 10);
	assert_int_equal(get(258, GEN_A, &c), -ENOENT);
	assert_int_equal(get(258, GEN_B, &c), -ENOENT);
	assert_int_equal(iod_store_stat(258, GEN_A, 0, &st), -ENOENT);
	put(258, GEN_A, 'A', 20);
	put(258, GEN_B, 'B', 30);
	assert_int_equal(get(258, 0, &c), 10);
	assert_int_equal(c, 'L');
	assert_int_equal(get(258, GEN_A, &c), 20);
	assert_int_equal(c, 'A');
	assert_int_equal(get(258, GEN_B, &c), 30);
	assert_int_equal(c, 'B');
	assert_int_equal(iod_store_stat(258, GEN_B, 0, &st), 0);
	assert_int_equal(st.st_size, 30);

	assert_int_equal(iod_store_remove(258, GEN_A, 0), 0);
	assert_int_equal(get(258, GEN_A, &c), -ENOENT);
	assert_int_equal(get(258, GEN_B, &c), 30);
	assert_int_equal(get(258, 0, &c), 10);
	assert_int_equal(iod_store_remove(258, 0, 0), 0);
	assert_int_equal(iod_store_remove(258, GEN_B, 0), 0);
}

/* LIST gives (ino, gen, size) in (ino, gen) order and resumes after an
 * exact (ino, gen), so the several gens of one inode page correctly. */
static void
test_list(void **state)
{
	struct pvfs_stripe_ent e[8];
	char junk[128];
	uint32_t n;
	int eof, fd;

	put(514, GEN_B, 'x', 3);
	put(258, GEN_B, 'x', 2);
	put(258, 0, 'x', 1);
	put(258, GEN_A, 'x', 4);
	snprintf(junk, sizeof(junk), "%s/02/258.zz", datadir);
	assert_true((fd = open(junk, O_CREAT | O_WRONLY, 0600)) >= 0);
	close(fd);

	assert_int_equal(iod_store_list(2, 0, 0, 0, 8, e, &n, &eof), 0);
	assert_int_equal(n, 4);
	assert_true(eof);
	assert_true(e[0].ino == 258 && e[0].gen == 0 && e[0].size == 1);
	assert_true(e[1].ino == 258 && e[1].gen == GEN_A && e[1].size == 4);
	assert_true(e[2].ino == 258 && e[2].gen == GEN_B && e[2].size == 2);
	assert_true(e[3].ino == 514 && e[3].gen == GEN_B && e[3].size == 3);

	assert_int_equal(iod_store_list(2, 0, 0, 0, 2, e, &n, &eof), 0);
	assert_true(n == 2 && !eof && e[1].gen == GEN_A);
	assert_int_equal(iod_store_list(2, 258, GEN_A, 0, 2, e, &n, &eof), 0);
	assert_true(n == 2 && eof);
	assert_true(e[0].ino == 258 && e[0].gen == GEN_B);
	assert_true(e[1].ino == 514);
	unlink(junk);
}

/* Copies of one file are separate stripe files, listed after copy 0 and
 * paged by (ino, gen, copy). */
static void
test_copies(void **state)
{
	struct pvfs_stripe_ent e[8];
	uint32_t n;
	char c;
	int eof;

	put_copy(771, GEN_A, 0, 'a', 5);
	put_copy(771, GEN_A, 1, 'b', 6);
	assert_int_equal(get_copy(771, GEN_A, 0, &c), 5);
	assert_int_equal(c, 'a');
	assert_int_equal(get_copy(771, GEN_A, 1, &c), 6);
	assert_int_equal(c, 'b');
	assert_int_equal(get_copy(771, GEN_A, 2, &c), -ENOENT);
	assert_int_equal(iod_store_list(3, 0, 0, 0, 8, e, &n, &eof), 0);
	assert_true(n == 2 && eof);
	assert_true(e[0].ino == 771 && e[0].copy == 0 && e[0].size == 5);
	assert_true(e[1].ino == 771 && e[1].copy == 1 && e[1].size == 6);
	assert_int_equal(iod_store_list(3, 771, GEN_A, 0, 8, e, &n, &eof), 0);
	assert_true(n == 1 && eof && e[0].copy == 1);
	assert_int_equal(iod_store_remove(771, GEN_A, 1), 0);
	assert_int_equal(get_copy(771, GEN_A, 1, &c), -ENOENT);
	assert_int_equal(get_copy(771, GEN_A, 0, &c), 5);
	assert_int_equal(iod_store_remove(771, GEN_A, 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_name_parse),
		cmocka_unit_test(test_identities_apart),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_copies),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
