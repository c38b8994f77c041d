/*
 * test_mirror.c - mirrored files (issue 17) on 4 iods that the iodtab
 * names as two hosts (iods 0, 1 on 127.0.0.1, iods 2, 3 on 127.0.0.2):
 * placement on distinct iods and hosts, both copies' stripe files
 * byte-identical on disk after writes and truncates, reads that go on with
 * an iod SIGKILLed (bytes checked against a shadow), degraded writes that
 * fail closed while no dirty report exists, directory defaults that
 * survive a restart, removal of every copy, fsck knowing the copies'
 * names, and unmirrored files as before.
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
#include "libpvfs/pvfs-client.h"
#include "cluster.h"
#include "fsck-run.h"

#define NIODS 4
#define KiB 1024ull
#define MiB (1024ull * 1024)

static struct cluster c;
static const char *const hosts_args[] = { "--hosts", "2", NULL };

/* The host (by name in the iodtab) of iod k under --hosts 2. */
static int
iod_host(uint32_t k)
{
	return (int)(k * 2 / NIODS);
}

static int
mirror_create(const char *rel, int copies, int pcount, int ssize)
{
	struct pvfs_filestat m = { -1, pcount, ssize, 0, 0 };
	char path[PATH_MAX];

	return pvfs_open_mirror(cluster_path(&c, rel, path),
	    O_CREAT | O_RDWR, 0644, &m, copies);
}

static void
attr_of(const char *rel, struct pvfs_attr_info *a)
{
	char path[PATH_MAX];

	assert_int_equal(pvfs_admin_attr(cluster_path(&c, rel, path), a), 0);
}

/* Iod k's stripe file of copy copy of (ino, gen). */
static char *
copy_name(int k, uint64_t ino, uint64_t gen, uint32_t copy, char *buf)
{
	size_t n;

	cluster_stripe_name(&c, k, ino, gen, buf);
	n = strlen(buf);
	if (copy > 0)
		snprintf(buf + n, PATH_MAX - n, ".c%u", copy);
	return buf;
}

static uint32_t
copy_iod(const struct pvfs_attr_info *a, uint32_t rel, uint32_t copy)
{
	return (a->base + rel + copy * a->mshift) % NIODS;
}

/* A whole local file into a malloc'd buffer; NULL with *n 0 if missing. */
static unsigned char *
slurp(const char *path, size_t *n)
{
	unsigned char *buf;
	struct stat st;
	FILE *f;

	*n = 0;
	if ((f = fopen(path, "rb")) == NULL)
		return NULL;
	assert_int_equal(fstat(fileno(f), &st), 0);
	buf = malloc((size_t)st.st_size + 1);
	assert_non_null(buf);
	*n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	return buf;
}

/* Does every copy of every rel of rel's file hold the same bytes on disk
 * as copy 0 (a missing stripe file counts as empty)?  If not, and fail,
 * the test fails saying where. */
static int
copies_identical(const char *rel, int fail)
{
	struct pvfs_attr_info a;
	char p0[PATH_MAX], pk[PATH_MAX];
	unsigned char *b0, *bk;
	size_t n0, nk;
	uint32_t r, k;
	int same = 1;

	attr_of(rel, &a);
	assert_true(a.copies > 1);
	for (r = 0; r < a.pcount; r++) {
		copy_name((int)copy_iod(&a, r, 0), a.ino, a.gen, 0, p0);
		b0 = slurp(p0, &n0);
		for (k = 1; k < a.copies; k++) {
			copy_name((int)copy_iod(&a, r, k), a.ino, a.gen, k, pk);
			bk = slurp(pk, &nk);
			if (n0 != nk || (n0 > 0 && memcmp(b0, bk, n0) != 0)) {
				if (fail)
					fail_msg("%s: rel %u: copy %u (%s, %zu "
					    "bytes) differs from copy 0 (%s, %zu "
					    "bytes) at %zu", rel, r, k, pk, nk,
					    p0, n0, first_diff(b0, bk,
					    n0 < nk ? n0 : nk));
				same = 0;
			}
			free(bk);
		}
		free(b0);
	}
	return same;
}

static void
assert_copies_identical(const char *rel)
{
	(void)copies_identical(rel, 1);
}

static void
write_all(int fd, const void *buf, size_t n, uint64_t off)
{
	ssize_t w = pvfs_pwrite(fd, buf, n, (off_t)off);

	if (w < 0 || (size_t)w != n)
		fail_msg("pwrite(%zu at %" PRIu64 ") = %zd: %s", n, off, w,
		    w < 0 ? strerror(errno) : "short");
}

/* Random writes of fd into s (and a truncate now and then). */
static void
random_writes(int fd, struct shadow *s, struct rng *r, int nops,
    uint64_t span)
{
	unsigned char *buf = malloc(2 * MiB);
	uint64_t off;
	size_t len;
	int i;

	assert_non_null(buf);
	for (i = 0; i < nops; i++) {
		off = rng_range(r, 0, span);
		len = (size_t)rng_range(r, 1, rng_range(r, 0, 3) ? 200 * KiB :
		    2 * MiB);
		if (rng_range(r, 0, 15) == 0) {
			assert_int_equal(pvfs_ftruncate(fd, (off_t)off), 0);
			shadow_truncate(s, off);
			continue;
		}
		rng_fill(r, buf, len);
		write_all(fd, buf, len, off);
		shadow_write(s, off, buf, len);
	}
	free(buf);
}

/* ---- placement ---- */

static void
assert_apart(const char *rel, int hosts)
{
	struct pvfs_attr_info a;
	uint32_t r, j, k, x, y;

	attr_of(rel, &a);
	for (r = 0; r < a.pcount; r++)
		for (j = 0; j < a.copies; j++)
			for (k = j + 1; k < a.copies; k++) {
				x = copy_iod(&a, r, j);
				y = copy_iod(&a, r, k);
				if (x == y || (hosts && iod_host(x) == iod_host(y)))
					fail_msg("%s: rel %u: copies %u and %u "
					    "on iods %u and %u (mshift %u)", rel,
					    r, j, k, x, y, a.mshift);
			}
}

static void
test_placement(void **state)
{
	struct pvfs_attr_info a;
	char path[PATH_MAX];
	int fd;

	/* Two copies over all 4 iods: shift 1 would pair iods 0 and 1 (one
	 * host); the smallest shift that separates the hosts is 2. */
	assert_true((fd = mirror_create("p4", 2, 4, 65536)) >= 0);
	pvfs_close(fd);
	attr_of("p4", &a);
	assert_int_equal(a.copies, 2);
	assert_int_equal(a.mshift, 2);
	assert_apart("p4", 1);
	assert_int_equal(pvfs_getcopies(cluster_path(&c, "p4", path)), 2);

	/* pcount 2 from base 1 (iods 1, 2): shift 1 pairs 2 with 3. */
	{
		struct pvfs_filestat m = { 1, 2, 4096, 0, 0 };

		fd = pvfs_open_mirror(cluster_path(&c, "p2", path),
		    O_CREAT | O_RDWR, 0644, &m, 2);
		assert_true(fd >= 0);
		pvfs_close(fd);
	}
	assert_apart("p2", 1);

	/* Three copies on two hosts: distinct iods only (shift 1). */
	assert_true((fd = mirror_create("p3", 3, 4, 65536)) >= 0);
	pvfs_close(fd);
	attr_of("p3", &a);
	assert_int_equal(a.copies, 3);
	assert_int_equal(a.mshift, 1);
	assert_apart("p3", 0);

	/* As many copies as iods, and more. */
	assert_true((fd = mirror_create("p-all", NIODS, 4, 65536)) >= 0);
	pvfs_close(fd);
	assert_apart("p-all", 0);
	assert_errno(mirror_create("p-five", NIODS + 1, 4, 65536), EINVAL);
	assert_errno(mirror_create("p-neg", -1, 4, 65536), EINVAL);
}

/* ---- data ---- */

static void
test_copies_identical(void **state)
{
	struct shadow s;
	struct rng r;
	int fd;

	rng_init(&r, "copies identical");
	shadow_init(&s);
	assert_true((fd = mirror_create("same", 2, 4, 65536)) >= 0);
	random_writes(fd, &s, &r, 60, 5 * MiB);
	shadow_assert_fd(&s, fd, "mirrored file");
	assert_int_equal(pvfs_fsync(fd), 0);
	pvfs_close(fd);
	assert_copies_identical("same");

	/* Three copies, a small stripe, a strided (list) write. */
	assert_true((fd = mirror_create("same3", 3, 3, 4096)) >= 0);
	{
		int64_t offs[3] = { 100, 9000, 70000 }, lens[3] = { 5000, 20,
			30000 };
		char *mem[1];
		int64_t mlen[1] = { 35020 };
		unsigned char *buf = malloc(35020);

		assert_non_null(buf);
		rng_fill(&r, buf, 35020);
		mem[0] = (char *)buf;
		assert_int_equal(pvfs_write_list64(fd, 1, mem, mlen, 3, offs,
		    lens), 35020);
		free(buf);
	}
	assert_int_equal(pvfs_ftruncate(fd, 50000), 0);
	pvfs_close(fd);
	assert_copies_identical("same3");
	shadow_free(&s);
}

/* SIGKILL iod k: reads of the mirrored file go on, the bytes the shadow's;
 * the iod is back at the end. */
static void
read_with_iod_down(const char *rel, int k)
{
	char name[16], path[PATH_MAX];
	unsigned char *buf;
	struct shadow s;
	struct stat st;
	struct rng r;
	uint64_t off;
	size_t len, want;
	ssize_t got;
	int fd, i;

	rng_init(&r, "read with an iod down");
	shadow_init(&s);
	assert_true((fd = mirror_create(rel, 2, 4, 65536)) >= 0);
	random_writes(fd, &s, &r, 40, 6 * MiB);
	pvfs_close(fd);
	snprintf(name, sizeof(name), "iod%d", k);
	assert_int_equal(cluster_kill(&c, name, SIGKILL), 0);

	assert_true((fd = pvfs_open(cluster_path(&c, rel, path), O_RDONLY)) >= 0);
	assert_int_equal(pvfs_fstat(fd, &st), 0);
	assert_int_equal((uint64_t)st.st_size, s.size);
	shadow_assert_fd(&s, fd, "whole file, one iod down");
	buf = malloc(3 * MiB);
	assert_non_null(buf);
	for (i = 0; i < 50; i++) {
		off = rng_range(&r, 0, s.size + 100000);
		len = (size_t)rng_range(&r, 1, 3 * MiB);
		want = shadow_expect_len(&s, off, len);
		got = pvfs_pread(fd, buf, len, (off_t)off);
		if (got < 0 || (size_t)got != want)
			fail_msg("pread(%zu at %" PRIu64 ") = %zd (%s), want %zu",
			    len, off, got, got < 0 ? strerror(errno) : "", want);
		if (want > 0 && memcmp(buf, s.data + off, want) != 0)
			fail_msg("pread(%zu at %" PRIu64 "): bytes differ at %zu",
			    len, off, first_diff(buf, s.data + off, want));
	}
	pvfs_close(fd);
	free(buf);
	shadow_free(&s);
	assert_int_equal(cluster_start_again(&c), 0);
}

static void
test_read_failover(void **state)
{
	read_with_iod_down("down1", 1);
	/* The iod that holds copy 0 of rel 0 (base = ino % 4) as well. */
	read_with_iod_down("down2", 2);
}

/* Finding 12: a copy whose iod answers an error (its stripe file made a
 * directory behind the iod's back: EISDIR) is failed over like a lost
 * one; once a read succeeds (the restarted daemons hold leases again),
 * every read over 10 s gets the bytes, while the rotation steers reads
 * to the broken copy. */
static void
test_read_error_failover(void **state)
{
	struct pvfs_attr_info a;
	char path[PATH_MAX], moved[PATH_MAX + 8], name[16];
	unsigned char buf[65536], got[65536];
	double end;
	ssize_t n;
	int fd, k;

	(void)state;
	assert_true((fd = mirror_create("eisdir", 2, 1, 65536)) >= 0);
	pattern_fill(buf, sizeof(buf), 0, 29);
	write_all(fd, buf, sizeof(buf), 0);
	pvfs_close(fd);
	attr_of("eisdir", &a);
	k = (int)copy_iod(&a, 0, 0);
	snprintf(name, sizeof(name), "iod%d", k);
	assert_int_equal(cluster_kill(&c, name, SIGKILL), 0);
	copy_name(k, a.ino, a.gen, 0, path);
	snprintf(moved, sizeof(moved), "%s.away", path);
	assert_int_equal(rename(path, moved), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_true((fd = pvfs_open(cluster_path(&c, "eisdir", path),
	    O_RDONLY)) >= 0);
	/* until every iod holds a lease again (the restart may have left
	 * both copies fenced for a moment: then the read rightly fails) */
	for (end = mono_now() + 20; mono_now() < end; usleep(100 * 1000))
		if (pvfs_pread(fd, got, sizeof(got), 0) == (ssize_t)sizeof(got))
			break;
	for (end = mono_now() + 10; mono_now() < end; usleep(50 * 1000)) {
		memset(got, 0, sizeof(got));
		n = pvfs_pread(fd, got, sizeof(got), 0);
		if (n != (ssize_t)sizeof(got))
			fail_msg("pread = %zd: %s (%s)", n, n < 0 ?
			    strerror(errno) : "short", pvfs_error_detail());
		assert_memory_equal(got, buf, sizeof(got));
	}
	pvfs_close(fd);
	copy_name(k, a.ino, a.gen, 0, path);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rename(moved, path), 0);
}

/* An iod SIGKILLed while reads stream from it: a child reads a 24 MiB
 * mirrored file over and over (each read checked against the pattern);
 * once it has read it whole, the parent kills the iod, then after 300 ms
 * tells it to finish its pass.  No read fails or returns a wrong byte. */
static void
test_read_failover_midstream(void **state)
{
	const size_t size = 24 * MiB, chunk = 4 * MiB;
	char path[PATH_MAX], b = 0;
	unsigned char *buf;
	int fd, st, up[2], down[2];
	size_t off;
	pid_t pid;

	buf = malloc(chunk);
	assert_non_null(buf);
	assert_true((fd = mirror_create("mid", 2, 4, 65536)) >= 0);
	for (off = 0; off < size; off += chunk) {
		pattern_fill(buf, chunk, off, 17);
		write_all(fd, buf, chunk, off);
	}
	pvfs_close(fd);
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	assert_int_equal(fcntl(down[0], F_SETFL, O_NONBLOCK), 0);
	if ((pid = fork()) == 0) {
		fd = pvfs_open(cluster_path(&c, "mid", path), O_RDONLY);
		for (int i = 0; fd >= 0; i++) {
			for (off = 0; off < size; off += chunk)
				if (pvfs_pread(fd, buf, chunk, (off_t)off) !=
				    (ssize_t)chunk ||
				    pattern_check(buf, chunk, off, 17) >= 0) {
					fprintf(stderr, "pass %d at %zu: %s\n", i,
					    off, strerror(errno));
					_exit(1);
				}
			if (i == 0 && write(up[1], "r", 1) != 1)
				_exit(3);
			if (read(down[0], &b, 1) == 1)
				_exit(0);
		}
		_exit(2);
	}
	assert_true(pid > 0);
	assert_int_equal(read(up[0], &b, 1), 1);
	assert_int_equal(cluster_kill(&c, "iod2", SIGKILL), 0);
	usleep(300 * 1000);
	assert_int_equal(write(down[1], "x", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
	free(buf);
	assert_int_equal(cluster_start_again(&c), 0);
}

/* A write that misses a copy on a dead iod succeeds once the mgr took
 * the dirty report (test_resync.c checks the bytes and the resync).
 * Unmirrored files off that iod still work. */
static void
test_degraded_write_fails_closed(void **state)
{
	char buf[16384];
	int fd, u;

	memset(buf, 'w', sizeof(buf));
	assert_true((fd = mirror_create("degraded", 2, 4, 4096)) >= 0);
	write_all(fd, buf, sizeof(buf), 0);
	assert_int_equal(cluster_kill(&c, "iod3", SIGKILL), 0);
	/* 4 stripes: every iod holds a copy of one of them. */
	assert_int_equal(pvfs_pwrite(fd, buf, sizeof(buf), 0), sizeof(buf));
	u = cluster_create(&c, "plain-degraded", 0, 0, 2, 4096);
	assert_true(u >= 0);
	write_all(u, buf, sizeof(buf), 0);
	pvfs_close(u);
	pvfs_close(fd);
	assert_int_equal(cluster_start_again(&c), 0);
}

/* Finding 5: a write that missed a copy while the mgr was down fails
 * (EIO: its dirty report could not be made), and so does every
 * operation on the file until the report went; once the mgr is back the
 * next one (fsync) sends it, and the resync makes the copies the same.
 * Had the report been dropped, the copy on iod3 would stay behind. */
static void
test_report_pending(void **state)
{
	char buf[16384], got[16384];
	double end;
	int fd;

	(void)state;
	memset(buf, 'a', sizeof(buf));
	assert_true((fd = mirror_create("pending", 2, 4, 4096)) >= 0);
	write_all(fd, buf, sizeof(buf), 0);
	assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	assert_int_equal(cluster_kill(&c, "iod3", SIGKILL), 0);
	memset(buf, 'b', sizeof(buf));
	errno = 0;
	assert_int_equal(pvfs_pwrite(fd, buf, sizeof(buf), 0), -1);
	assert_int_equal(errno, EIO);
	errno = 0;
	assert_int_equal(pvfs_pread(fd, got, sizeof(got), 0), -1);
	assert_int_equal(errno, EIO);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_int_equal(pvfs_fsync(fd), 0);
	for (end = mono_now() + 30; mono_now() < end; usleep(200 * 1000))
		if (copies_identical("pending", 0))
			break;
	assert_copies_identical("pending");
	assert_int_equal(pvfs_pread(fd, got, sizeof(got), 0), sizeof(got));
	assert_memory_equal(got, buf, sizeof(got));
	pvfs_close(fd);
}

/* Finding 4: an fsync that could not sync a copy (its iod killed after
 * it took the write) succeeds, but only once that copy is reported stale
 * as a whole: pvfs-resync --list names it ("every byte").  Then the iod
 * comes back and the resync makes the copies the same again. */
static void
test_fsync_reports(void **state)
{
	struct pvfs_attr_info a;
	char buf[16384], cmd[PATH_MAX + 64], line[256], mine[64], *slash;
	double end;
	FILE *p;
	int fd, n = 0;

	(void)state;
	memset(buf, 'f', sizeof(buf));
	assert_true((fd = mirror_create("fsynced", 2, 4, 4096)) >= 0);
	write_all(fd, buf, sizeof(buf), 0);
	attr_of("fsynced", &a);
	assert_int_equal(cluster_kill(&c, "iod3", SIGKILL), 0);
	assert_int_equal(pvfs_fsync(fd), 0);
	snprintf(cmd, sizeof(cmd), "%s", c.tool);
	slash = strrchr(cmd, '/');
	assert_non_null(slash);
	snprintf(slash + 1, sizeof(cmd) - (size_t)(slash + 1 - cmd),
	    "pvfs-resync --list /pvfs 2>&1");
	snprintf(mine, sizeof(mine), "inode %" PRIu64 " ", a.ino);
	assert_non_null(p = popen(cmd, "r"));
	while (fgets(line, sizeof(line), p) != NULL)
		if (strncmp(line, mine, strlen(mine)) == 0 &&
		    strstr(line, "on iod 3: every byte") != NULL)
			n++;
	pclose(p);
	if (n == 0)
		fail_msg("fsync with iod3 down reported no copy stale");
	assert_int_equal(cluster_start_again(&c), 0);
	for (end = mono_now() + 30; mono_now() < end; usleep(200 * 1000))
		if (copies_identical("fsynced", 0))
			break;
	assert_copies_identical("fsynced");
	pvfs_close(fd);
}

/* ---- unmirrored files, defaults, restart, remove, fsck ---- */

static void
test_unmirrored(void **state)
{
	struct pvfs_attr_info a;
	char path[PATH_MAX], name[PATH_MAX];
	struct shadow s;
	struct rng r;
	int fd, k, n = 0;

	rng_init(&r, "unmirrored");
	shadow_init(&s);
	assert_true((fd = cluster_create(&c, "plain", 0, -1, -1, 65536)) >= 0);
	random_writes(fd, &s, &r, 20, 2 * MiB);
	shadow_assert_fd(&s, fd, "unmirrored file");
	pvfs_close(fd);
	attr_of("plain", &a);
	assert_int_equal(a.copies, 1);
	assert_int_equal(pvfs_getcopies(cluster_path(&c, "plain", path)), 1);
	/* Stripe files under their old names only. */
	for (k = 0; k < NIODS; k++) {
		n += access(copy_name(k, a.ino, a.gen, 0, name), F_OK) == 0;
		assert_int_not_equal(access(copy_name(k, a.ino, a.gen, 1, name),
		    F_OK), 0);
	}
	assert_int_equal(n, NIODS);
	shadow_free(&s);
}

static void
test_dir_default(void **state)
{
	struct pvfs_attr_info a, b;
	char path[PATH_MAX];
	int fd;

	assert_int_equal(pvfs_mkdir(cluster_path(&c, "md", path), 0755), 0);
	assert_int_equal(pvfs_getcopies(path), 0);
	assert_int_equal(pvfs_setcopies(path, 2), 0);
	assert_int_equal(pvfs_getcopies(path), 2);
	assert_true((fd = pvfs_open(cluster_path(&c, "md/f", path),
	    O_CREAT | O_RDWR, 0644)) >= 0);
	write_all(fd, "hello", 5, 100000);
	pvfs_close(fd);
	assert_int_equal(pvfs_getcopies(path), 2);
	assert_copies_identical("md/f");
	/* Asked for explicitly, 1 wins over the default. */
	assert_true((fd = mirror_create("md/one", 1, -1, -1)) >= 0);
	pvfs_close(fd);
	assert_int_equal(pvfs_getcopies(cluster_path(&c, "md/one", path)), 1);
	/* A new subdirectory inherits the default. */
	assert_int_equal(pvfs_mkdir(cluster_path(&c, "md/sub", path), 0755), 0);
	assert_int_equal(pvfs_getcopies(path), 2);
	assert_errno(pvfs_setcopies(cluster_path(&c, "md/f", path), 2), ENOTDIR);
	assert_errno(pvfs_setcopies(cluster_path(&c, "md", path), NIODS + 1),
	    EINVAL);

	/* Kept across a restart (the journal) and a checkpoint. */
	attr_of("md/f", &a);
	assert_int_equal(cluster_restart(&c), 0);
	attr_of("md/f", &b);
	assert_int_equal(b.copies, 2);
	assert_int_equal(b.mshift, a.mshift);
	assert_int_equal(pvfs_getcopies(cluster_path(&c, "md", path)), 2);
	assert_int_equal(pvfs_getcopies(cluster_path(&c, "md/sub", path)), 2);
	assert_int_equal(pvfs_getcopies(cluster_path(&c, "md/one", path)), 1);
	assert_copies_identical("md/f");

	assert_int_equal(pvfs_setcopies(cluster_path(&c, "md", path), 0), 0);
	assert_int_equal(pvfs_getcopies(path), 0);
	assert_true((fd = pvfs_open(cluster_path(&c, "md/g", path),
	    O_CREAT | O_RDWR, 0644)) >= 0);
	pvfs_close(fd);
	assert_int_equal(pvfs_getcopies(path), 1);
}

static void
test_remove_and_fsck(void **state)
{
	struct pvfs_attr_info a;
	char path[PATH_MAX], out[16384], mine[64];
	char buf[65536];
	int fd, rc;

	memset(buf, 'r', sizeof(buf));
	assert_true((fd = mirror_create("gone", 2, 4, 4096)) >= 0);
	write_all(fd, buf, sizeof(buf), 0);
	pvfs_close(fd);
	attr_of("gone", &a);
	/* fsck: the copies' names are a live file's, none of them short
	 * (other tests leave sparse files, listed as short). */
	rc = fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out));
	snprintf(mine, sizeof(mine), "inode %" PRIu64 " ", a.ino);
	if (rc != 0 || fsck_count_lines(out, "orphan:") != 0 ||
	    strstr(out, mine) != NULL)
		fail_msg("pvfs-fsck: exit %d:\n%s", rc, out);
	assert_int_equal(pvfs_unlink(cluster_path(&c, "gone", path)), 0);
	assert_int_equal(cluster_stripes_gone(&c, a.ino, 5000), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_placement),
		cmocka_unit_test(test_unmirrored),
		cmocka_unit_test(test_copies_identical),
		cmocka_unit_test(test_read_failover),
		cmocka_unit_test(test_read_failover_midstream),
		cmocka_unit_test(test_read_error_failover),
		cmocka_unit_test(test_degraded_write_fails_closed),
		cmocka_unit_test(test_report_pending),
		cmocka_unit_test(test_fsync_reports),
		cmocka_unit_test(test_dir_default),
		cmocka_unit_test(test_remove_and_fsck),
	};
	int rc;

	if (cluster_start(&c, NIODS) != 0)
		return 1;
	c.start_args = hosts_args;
	if (cluster_restart(&c) != 0)
		return cluster_finish(&c, 1);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	cluster_stop(&c);
	return cluster_finish(&c, rc);
}
