/*
 * test_fsck.c - pvfs-fsck against real orphans: files unlinked while an
 * iod was down (their stripe files stay there), a stray stripe file named
 * after a directory's inode, one above the mgr's inode counter, and
 * stripe files planted under a live file's inode with another identity
 * (gen), which no read may serve; and things that must be left alone (a
 * name that is no stripe file, live files).  It reports exactly the
 * orphans, removes exactly them with --repair, then finds the file system
 * clean, and live bytes are untouched.  A live file that lost a stripe
 * file is listed apart, without failing the check.  Only administrators
 * may ask: the mgr and the iods refuse everyone else.
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
#include "common.h"
#include "libpvfs/pvfs-internal.h"
#include "cluster.h"
#include "fsck-run.h"

#define NIODS 3
#define NLIVE 4
#define NVICTIMS 5
#define FILE_BYTES (3 * 65536 * 2 + 1234) /* every iod holds some */
#define HIGH_INO (UINT64_C(1) << 40)      /* above any inode counter */
#define OTHER_GEN UINT64_C(0x0123456789abcdef) /* no file's, by the odds */

static struct cluster c;
static struct rng rng;
static char out[1 << 16];

/* The directory the tests work in. */
static int
group_ready(void)
{
	return pvfs_mkdir("/pvfs/fsck", 0755) < 0 ? -1 : 0;
}

/* Write a file of FILE_BYTES of pattern seed; its inode. */
static uint64_t
make_file(const char *path, uint64_t seed)
{
	static unsigned char buf[FILE_BYTES];
	struct stat st;
	int fd = (int)check_ok(pvfs_open(path, O_CREAT | O_WRONLY | O_TRUNC,
	    0644));

	pattern_fill(buf, sizeof(buf), 0, seed);
	assert_int_equal(check_ok(pvfs_write(fd, buf, sizeof(buf))), sizeof(buf));
	check_ok(pvfs_fsync(fd));
	check_ok(pvfs_fstat(fd, &st));
	check_ok(pvfs_close(fd));
	return (uint64_t)st.st_ino;
}

static void
check_file(const char *path, uint64_t seed)
{
	static unsigned char buf[FILE_BYTES + 1];
	int fd = (int)check_ok(pvfs_open(path, O_RDONLY));
	ssize_t n = check_ok(pvfs_read(fd, buf, sizeof(buf)));

	check_ok(pvfs_close(fd));
	assert_int_equal(n, FILE_BYTES);
	if (pattern_check(buf, FILE_BYTES, 0, seed) != -1)
		fail_msg("%s: bytes changed at %zd", path,
		    pattern_check(buf, FILE_BYTES, 0, seed));
}

/* A stray file of n bytes in an iod's data directory. */
static void
plant(const char *path, size_t n)
{
	char junk[512];
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	memset(junk, 'x', sizeof(junk));
	while (n > 0) {
		size_t w = n < sizeof(junk) ? n : sizeof(junk);

		assert_int_equal(fwrite(junk, 1, w, f), w);
		n -= w;
	}
	assert_int_equal(fclose(f), 0);
}

/* The gen a stripe file's name spells (0 for a legacy "INO" name). */
static uint64_t
stripe_gen(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	dot = strchr(base != NULL ? base : path, '.');
	return dot != NULL ? strtoull(dot + 1, NULL, 16) : 0;
}

static int
has_line(const char *fmt, ...)
{
	char line[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return strstr(out, line) != NULL;
}

/* The orphans of a real failure: unlink while iod 1 is dead. */
static void
test_report_repair(void **state)
{
	uint64_t live[NLIVE], victim[NVICTIMS], seed = rng_next(&rng);
	char path[PATH_MAX], stray[PATH_MAX], high[PATH_MAX], junk[PATH_MAX];
	static char keep[NVICTIMS][PATH_MAX + 8], back[NVICTIMS][PATH_MAX];
	struct stat st;
	uint64_t dir_ino;
	int i, rc, expected;

	for (i = 0; i < NLIVE; i++) {
		snprintf(path, sizeof(path), "/pvfs/fsck/live%d", i);
		live[i] = make_file(path, seed + (uint64_t)i);
	}
	for (i = 0; i < NVICTIMS; i++) {
		snprintf(path, sizeof(path), "/pvfs/fsck/victim%d", i);
		victim[i] = make_file(path, seed + 100 + (uint64_t)i);
	}
	assert_int_equal(fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out)), 0);
	assert_int_equal(fsck_count_lines(out, "orphan:"), 0);

	/* The mgr forgets the victims; iod 1 never hears of it. */
	assert_int_equal(cluster_kill(&c, "iod1", SIGKILL), 0);
	for (i = 0; i < NVICTIMS; i++) {
		snprintf(path, sizeof(path), "/pvfs/fsck/victim%d", i);
		pvfs_unlink(path); /* may report the dead iod: the name is gone */
		assert_errno(pvfs_stat(path, &st), ENOENT);
	}
	/* The mgr frees them when iod 1 is back (its ORPHAN records), so
	 * keep iod 1's stripe files aside and put them back after: stripes
	 * the mgr lost track of (a metadata rollback would leave them). */
	for (i = 0; i < NVICTIMS; i++) {
		cluster_stripe_file(&c, 1, victim[i], path);
		snprintf(keep[i], sizeof(keep[i]), "%s.keep", path);
		snprintf(back[i], sizeof(back[i]), "%s", path);
		check_ok(link(path, keep[i]));
	}
	assert_int_equal(cluster_start_again(&c), 0);
	for (i = 0; i < NVICTIMS; i++) {
		double t0 = mono_now();

		while (access(back[i], F_OK) == 0 && mono_now() - t0 < 30)
			usleep(50 * 1000);
		check_ok(rename(keep[i], back[i]));
	}
	/* iod 1 has them all; the other iods had theirs removed by the mgr
	 * at once. */
	expected = 0;
	for (int k = 0; k < NIODS; k++)
		for (i = 0; i < NVICTIMS; i++) {
			assert_int_equal(cluster_stripe_exists(&c, k, victim[i]),
			    k == 1);
			expected += k == 1;
		}

	/* A directory's inode is no file: its stripe file is an orphan.  So
	 * is one at or above the mgr's inode counter (after a metadata
	 * rollback its file is gone, whatever the counter says); a name
	 * that is not an inode is not a stripe file. */
	check_ok(pvfs_mkdir("/pvfs/fsck/d", 0755));
	check_ok(pvfs_stat("/pvfs/fsck/d", &st));
	dir_ino = (uint64_t)st.st_ino;
	plant(cluster_stripe_file(&c, 2, dir_ino, stray), 777);
	plant(cluster_stripe_name(&c, 0, HIGH_INO, OTHER_GEN, high), 10);
	snprintf(junk, sizeof(junk), "%s/iod0/00/not-a-stripe", c.dir);
	plant(junk, 5);

	rc = fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out));
	print_message("%s", out);
	assert_int_equal(rc, 4);
	assert_int_equal(fsck_count_lines(out, "orphan:"), expected + 2);
	for (int k = 0; k < NIODS; k++)
		for (i = 0; i < NVICTIMS; i++) {
			if (stat(cluster_stripe_file(&c, k, victim[i], path),
			    &st) != 0)
				continue;
			assert_true(stripe_gen(path) != 0);
			assert_true(has_line("orphan: iod %d inode %" PRIu64
			    " gen %016" PRIx64 " bytes %lld\n", k, victim[i],
			    stripe_gen(path), (long long)st.st_size));
		}
	assert_true(has_line("orphan: iod 2 inode %" PRIu64 " gen "
	    "0000000000000000 bytes 777\n", dir_ino));
	assert_true(has_line("orphan: iod 0 inode %" PRIu64 " gen %016" PRIx64
	    " bytes 10\n", HIGH_INO, OTHER_GEN));
	assert_true(has_line(", %d orphans (", expected + 2));
	assert_int_equal(fsck_count_lines(out, "short:"), 0);

	rc = fsck_run(&c, "--repair", (uid_t)-1, out, sizeof(out));
	print_message("%s", out);
	assert_int_equal(rc, 1);
	assert_int_equal(fsck_count_lines(out, "orphan:"), expected + 2);
	assert_true(has_line("%d removed\n", expected + 2));
	for (int k = 0; k < NIODS; k++)
		for (i = 0; i < NVICTIMS; i++)
			assert_false(cluster_stripe_exists(&c, k, victim[i]));
	assert_int_equal(access(stray, F_OK), -1);
	assert_int_equal(access(high, F_OK), -1);
	assert_int_equal(access(junk, F_OK), 0);

	rc = fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out));
	assert_int_equal(rc, 0);
	assert_true(has_line(", 0 orphans (0 bytes), 0 removed\n"));
	for (i = 0; i < NLIVE; i++) {
		snprintf(path, sizeof(path), "/pvfs/fsck/live%d", i);
		check_file(path, seed + (uint64_t)i);
		for (int k = 0; k < NIODS; k++)
			assert_true(cluster_stripe_exists(&c, k, live[i]));
	}
	unlink(junk);
}

/* A read of the live file path: its size and, from buf, its bytes. */
static ssize_t
read_all(const char *path, unsigned char *buf, size_t len)
{
	int fd = (int)check_ok(pvfs_open(path, O_RDONLY));
	ssize_t n = check_ok(pvfs_read(fd, buf, len));

	check_ok(pvfs_close(fd));
	return n;
}

/* Stripe files under a live file's inode but of another identity, as a
 * metadata rollback leaves them when the inode number is handed out
 * again: a legacy "INO" name and "INO.<other gen>", longer than the
 * file's own and full of 'x'.  No read serves them, to the new empty
 * file nor to the written one; pvfs-fsck names them orphans and
 * --repair removes exactly them. */
static void
test_other_identity(void **state)
{
	static unsigned char buf[2 * FILE_BYTES];
	char path[PATH_MAX], own[PATH_MAX];
	uint64_t seed = rng_next(&rng), ino, empty, gen;
	struct stat st;
	int fd, k, rc;

	ino = make_file("/pvfs/fsck/written", seed);
	fd = (int)check_ok(pvfs_open("/pvfs/fsck/empty", O_CREAT | O_WRONLY,
	    0600));
	check_ok(pvfs_fstat(fd, &st));
	check_ok(pvfs_close(fd));
	empty = (uint64_t)st.st_ino;
	assert_true(cluster_stripe_exists(&c, 0, ino));
	gen = stripe_gen(cluster_stripe_file(&c, 0, ino, own));
	assert_true(gen != 0 && gen != OTHER_GEN);
	for (k = 0; k < NIODS; k++) {
		plant(cluster_stripe_name(&c, k, ino, OTHER_GEN, path),
		    2 * FILE_BYTES);
		plant(cluster_stripe_name(&c, k, empty, 0, path), 4096);
		plant(cluster_stripe_name(&c, k, empty, OTHER_GEN, path), 4096);
	}

	check_file("/pvfs/fsck/written", seed);
	assert_int_equal(read_all("/pvfs/fsck/empty", buf, sizeof(buf)), 0);
	check_ok(pvfs_stat("/pvfs/fsck/empty", &st));
	assert_int_equal(st.st_size, 0);
	check_ok(pvfs_stat("/pvfs/fsck/written", &st));
	assert_int_equal(st.st_size, FILE_BYTES);

	rc = fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out));
	print_message("%s", out);
	assert_int_equal(rc, 4);
	assert_int_equal(fsck_count_lines(out, "orphan:"), 3 * NIODS);
	for (k = 0; k < NIODS; k++) {
		assert_true(has_line("orphan: iod %d inode %" PRIu64 " gen %016"
		    PRIx64 " bytes %d\n", k, ino, OTHER_GEN, 2 * FILE_BYTES));
		assert_true(has_line("orphan: iod %d inode %" PRIu64 " gen "
		    "0000000000000000 bytes 4096\n", k, empty));
		assert_true(has_line("orphan: iod %d inode %" PRIu64 " gen %016"
		    PRIx64 " bytes 4096\n", k, empty, OTHER_GEN));
	}
	assert_false(has_line("inode %" PRIu64 " gen %016" PRIx64, ino, gen));

	assert_int_equal(fsck_run(&c, "--repair", (uid_t)-1, out, sizeof(out)),
	    1);
	for (k = 0; k < NIODS; k++) {
		assert_int_equal(access(cluster_stripe_name(&c, k, ino,
		    OTHER_GEN, path), F_OK), -1);
		assert_int_equal(access(cluster_stripe_name(&c, k, empty, 0,
		    path), F_OK), -1);
		assert_int_equal(access(cluster_stripe_name(&c, k, empty,
		    OTHER_GEN, path), F_OK), -1);
		assert_true(cluster_stripe_exists(&c, k, ino));
	}
	assert_int_equal(fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out)), 0);
	check_file("/pvfs/fsck/written", seed);
	check_ok(pvfs_unlink("/pvfs/fsck/written"));
	check_ok(pvfs_unlink("/pvfs/fsck/empty"));
}

/* A live file whose stripe file went from one iod (a lost disk, a hand
 * at work) is listed under its own heading, with the bytes that iod
 * should hold; that is no orphan and no failure (a sparse file looks the
 * same).  A stripe cut short is listed too. */
static void
test_missing_stripe(void **state)
{
	struct pvfs_mgr_attrcap_rep f;
	char path[PATH_MAX];
	uint64_t seed = rng_next(&rng), ino, gen;
	const struct pvfs_dist *d = &f.cap.dist;
	uint32_t rel1, rel2;
	int rc;

	ino = make_file("/pvfs/fsck/holed", seed);
	raw_open(&c, "/fsck/holed", PVFS_OF_RDONLY, &f);
	gen = f.cap.gen;
	assert_true(f.cap.ino == ino && gen != 0 && d->pcount == NIODS);
	assert_int_equal(fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out)), 0);
	assert_int_equal(fsck_count_lines(out, "short:"), 0);

	assert_int_equal(unlink(cluster_stripe_name(&c, 1, ino, gen, path)), 0);
	assert_int_equal(truncate(cluster_stripe_name(&c, 2, ino, gen, path),
	    100), 0);
	rel1 = (1 + NIODS - d->base) % NIODS;
	rel2 = (2 + NIODS - d->base) % NIODS;
	rc = fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out));
	print_message("%s", out);
	assert_int_equal(rc, 0);
	assert_int_equal(fsck_count_lines(out, "orphan:"), 0);
	assert_int_equal(fsck_count_lines(out, "missing or short stripes "
	    "(data lost, or a sparse file):\n"), 1);
	assert_int_equal(fsck_count_lines(out, "short:"), 2);
	assert_true(has_line("short: inode %" PRIu64 " gen %016" PRIx64
	    " iod 1 bytes 0 of %" PRIu64 " (no stripe file)\n", ino, gen,
	    pvfs_stripe_local_size(FILE_BYTES, NIODS, d->ssize, rel1)));
	assert_true(has_line("short: inode %" PRIu64 " gen %016" PRIx64
	    " iod 2 bytes 100 of %" PRIu64 "\n", ino, gen,
	    pvfs_stripe_local_size(FILE_BYTES, NIODS, d->ssize, rel2)));
	assert_true(has_line(", 1 with missing or short stripes, 0 orphans"));
	check_ok(pvfs_unlink("/pvfs/fsck/holed"));
}

/* MGR_INOLIST on a raw connection claiming uid; the reply's status. */
static int
inolist_as(uint32_t uid)
{
	struct pvfs_mgr_inolist_req req;

	memset(&req, 0, sizeof(req));
	req.cred.uid = req.cred.gid = uid;
	req.first = 1;
	req.count = 16;
	return raw_request(&c, "mgr", PVFS_MGR_INOLIST, &req);
}

/* IOD_LIST on iod0 of subdirectory sub after (after, after_gen), at most
 * max; the reply's status, and the reply in rep (if not NULL) when 0. */
static int
iod_list_page(const struct pvfs_cap *cap, uint32_t sub,
    uint64_t after, uint64_t after_gen, uint32_t max,
    struct pvfs_iod_list_rep *rep)
{
	static uint8_t body[PVFS_MAX_BODY];
	struct pvfs_iod_list_rep tmp;
	struct pvfs_iod_list_req req;
	struct pvfs_hdr h;
	int fd = raw_connect(&c, "iod0", 10), st;

	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.sub = sub;
	req.after = after;
	req.after_gen = after_gen;
	req.max = max;
	raw_send_frame(fd, PVFS_IOD_LIST, 0, &req);
	st = raw_status(fd, &h);
	if (st == 0) {
		assert_int_equal(raw_read(fd, body, h.body_len), 0);
		assert_int_equal(pvfs_msg_decode(PVFS_IOD_LIST, 1, body,
		    h.body_len, rep != NULL ? rep : &tmp), 0);
		if (rep == NULL)
			pvfs_msg_free(PVFS_IOD_LIST, 1, &tmp);
	}
	close(fd);
	return st;
}

static int
iod_list_with(const struct pvfs_cap *cap)
{
	return iod_list_page(cap, 0, 0, 0, 10, NULL);
}

static int
iod_purge_with(const struct pvfs_cap *cap, uint64_t ino)
{
	struct pvfs_iod_purge_req req;

	memset(&req, 0, sizeof(req));
	req.cap = *cap;
	req.ino = ino;
	return raw_request(&c, "iod0", PVFS_IOD_PURGE, &req);
}

/* Only uid 0 (or the mgr's own uid) gets the list and the ADMIN
 * capability; the iods take nothing else, forged or a file's own. */
static void
test_refused(void **state)
{
	struct pvfs_mgr_inolist_rep rep;
	struct pvfs_mgr_attrcap_rep file;
	struct client_fs *fs;
	struct pvfs_cap forged;
	uint64_t seed = rng_next(&rng), ino;

	ino = make_file("/pvfs/fsck/guarded", seed);
	assert_int_equal(inolist_as(4242), EACCES);
	/* The library's connection is identified as root (as pvfs-fsck's). */
	check_ok(pvfs_admin_fs("/pvfs", &fs));
	assert_errno(pvfs_admin_inolist(fs, 1, PVFS_INOLIST_SPAN + 1, &rep), EINVAL);
	memset(&rep, 0, sizeof(rep));
	check_ok(pvfs_admin_inolist(fs, 1, PVFS_INOLIST_SPAN, &rep));
	assert_true(rep.next_ino > ino);
	assert_int_equal(rep.cap.rights, PVFS_R_ADMIN);
	assert_int_equal(iod_list_with(&rep.cap), 0);

	forged = rep.cap;
	forged.mac[0] ^= 1;
	assert_int_equal(iod_list_with(&forged), EACCES);
	assert_int_equal(iod_purge_with(&forged, ino), EACCES);
	forged = rep.cap;
	forged.ino = ino; /* the MAC covers the inode */
	assert_int_equal(iod_purge_with(&forged, ino), EACCES);
	forged = rep.cap;
	forged.gen = 1; /* and the gen */
	assert_int_equal(iod_list_with(&forged), EACCES);

	/* A file's capability with every right it can get is no ADMIN one. */
	raw_open(&c, "/fsck/guarded", PVFS_OF_RDWR, &file);
	assert_int_equal(iod_list_with(&file.cap), EACCES);
	assert_int_equal(iod_purge_with(&file.cap, ino), EACCES);
	pvfs_msg_free(PVFS_MGR_INOLIST, 1, &rep);
	check_file("/pvfs/fsck/guarded", seed);
	assert_true(cluster_stripe_exists(&c, 0, ino));

	/* The tool itself, run by an ordinary user. */
	if (geteuid() != 0) {
		print_message("not root: pvfs-fsck as another user not tried\n");
		return;
	}
	assert_int_equal(fsck_run(&c, "--repair", 4242, out, sizeof(out)), 8);
	assert_non_null(strstr(out, strerror(EACCES)));
	check_file("/pvfs/fsck/guarded", seed);
}

/* IOD_LIST pages through a subdirectory in (inode, gen) order, whatever
 * order the directory is in, skipping names that are no stripe file of
 * it; pvfs-fsck finds those above the inode counter orphans. */
static void
test_paging(void **state)
{
	enum { NPLANT = 25, PAGE = 10 };
	struct pvfs_mgr_inolist_rep ml;
	struct pvfs_iod_list_rep r;
	struct client_fs *fs;
	char path[PATH_MAX];
	uint64_t after = 0, after_gen = 0, want;
	int got = 0, pages = 0, i;

	/* Above the counter, all in subdir 05, planted in a shuffled order;
	 * plus a misplaced one and junk. */
	for (i = 0; i < NPLANT; i++) {
		want = HIGH_INO + 5 + 256 * (uint64_t)((i * 7) % NPLANT);
		plant(cluster_stripe_file(&c, 0, want, path),
		    (size_t)((i * 7) % NPLANT));
	}
	snprintf(path, sizeof(path), "%s/iod0/05/%" PRIu64, c.dir, HIGH_INO + 6);
	plant(path, 1);
	snprintf(path, sizeof(path), "%s/iod0/05/0%" PRIu64, c.dir, HIGH_INO + 5);
	plant(path, 1);
	check_ok(pvfs_admin_fs("/pvfs", &fs));
	check_ok(pvfs_admin_inolist(fs, 0, 0, &ml));
	do {
		memset(&r, 0, sizeof(r));
		assert_int_equal(iod_list_page(&ml.cap, 5, after, after_gen,
		    PAGE, &r), 0);
		for (uint32_t k = 0; k < r.n; k++) {
			assert_true(r.ents[k].ino > after ||
			    (r.ents[k].ino == after &&
			    r.ents[k].gen > after_gen));
			after = r.ents[k].ino;
			after_gen = r.ents[k].gen;
			if (after < HIGH_INO)
				continue; /* a live file's, from the tests above */
			want = HIGH_INO + 5 + 256 * (uint64_t)got;
			assert_int_equal(r.ents[k].ino, want);
			assert_int_equal(r.ents[k].gen, 0);
			assert_int_equal(r.ents[k].size, got);
			got++;
		}
		pages++;
		assert_true(r.eof || r.n == PAGE);
		pvfs_msg_free(PVFS_IOD_LIST, 1, &r);
	} while (!r.eof);
	assert_int_equal(got, NPLANT);
	assert_true(pages >= (NPLANT + PAGE - 1) / PAGE);
	assert_int_equal(iod_list_page(&ml.cap, 256, 0, 0, PAGE, NULL), EINVAL);
	pvfs_msg_free(PVFS_MGR_INOLIST, 1, &ml);
	/* No file has those inodes: pvfs-fsck removes them all (the empty
	 * one too), whatever the inode counter says. */
	assert_int_equal(fsck_run(&c, "--repair", (uid_t)-1, out,
	    sizeof(out)), 1);
	assert_true(has_line(", %d orphans (", NPLANT));
	for (i = 0; i < NPLANT; i++)
		assert_int_equal(access(cluster_stripe_name(&c, 0,
		    HIGH_INO + 5 + 256 * (uint64_t)i, 0, path), F_OK), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_repair),
		cmocka_unit_test(test_other_identity),
		cmocka_unit_test(test_missing_stripe),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_paging),
	};

	rng_init(&rng, "test_fsck");
	return cluster_run_tests(&c, NIODS, group_ready, tests);
}
