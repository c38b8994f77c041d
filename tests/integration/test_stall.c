/*
 * test_stall.c - a mirrored file with one iod stopped (SIGSTOP: its
 * kernel still takes connections and bytes, nothing answers; a
 * blackholed iod looks the same), on 2 iods with 2 copies: reads, writes
 * and truncates by the library keep succeeding, whether the iod stops
 * while idle or in the middle of a stream (a write's or a read's), every
 * byte equal to a shadow or a pattern;
 * once the iod runs again, the resync makes both copies the same on disk,
 * and the file reads the same from them alone.
 *
 * The client timeout is 60 s: a call that waited for the stopped iod
 * would hold the test for minutes and show as run-test.sh's limit, not
 * as a timed assertion.  Calls over a second and each kind's longest are
 * printed.  HELLOs every 0.3 s (a lease of about 1 s): the first dirty
 * report on a copy while the iod is stopped waits for its lease to end
 * (mgr-resync.c), 9 s by default; later reports on a copy already fenced
 * wait for nothing (test_stop_default_hello: with the default
 * interval every write took 5-8 s before).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
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
#include "libpvfs/pvfs-client.h"
#include "cluster.h"

#define NIODS 2
#define KiB 1024ull
#define MiB (1024ull * 1024)
#define SPAN (6 * MiB) /* offsets written */

static struct cluster c;

static int
mirror_create(const char *rel)
{
	struct pvfs_filestat m = { -1, NIODS, 65536, 0, 0 };
	char path[PATH_MAX];

	return pvfs_open_mirror(cluster_path(&c, rel, path),
	    O_CREAT | O_RDWR, 0644, &m, 2);
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

/* Do both copies of every rel of rel's file hold the same bytes on disk
 * (a missing stripe file is an empty one)?  If not, why says where. */
static int
copies_same(const char *rel, char *why, size_t whylen)
{
	struct pvfs_attr_info a;
	char path[PATH_MAX], p[2][PATH_MAX + 8];
	unsigned char *b[2];
	size_t n[2];
	uint32_t r, k;
	int same = 1;

	assert_int_equal(pvfs_admin_attr(cluster_path(&c, rel, path), &a), 0);
	assert_int_equal(a.copies, 2);
	for (r = 0; same && r < a.pcount; r++) {
		for (k = 0; k < 2; k++) {
			cluster_stripe_name(&c,
			    (int)((a.base + r + k * a.mshift) % NIODS), a.ino,
			    a.gen, p[k]);
			if (k > 0)
				strcat(p[k], ".c1");
			b[k] = slurp(p[k], &n[k]);
		}
		if (n[0] != n[1] || (n[0] > 0 && memcmp(b[0], b[1], n[0]) != 0)) {
			snprintf(why, whylen, "rel %u: %s (%zu bytes) and %s "
			    "(%zu bytes) differ at %zu", r, p[0], n[0], p[1],
			    n[1], first_diff(b[0], b[1], n[0] < n[1] ? n[0] :
			    n[1]));
			same = 0;
		}
		free(b[0]);
		free(b[1]);
	}
	return same;
}

/* Until the mgr counts no stale copy (its resync worker is done). */
static void
wait_clean(void)
{
	struct pvfs_mirror_status st;
	struct pvfs_admin *a;
	char path[PATH_MAX];
	double end = mono_now() + 120;

	assert_non_null(a = pvfs_admin_open(cluster_path(&c, "", path)));
	for (;;) {
		assert_int_equal(pvfs_admin_mirror_status(a, &st), 0);
		if (st.stale == 0)
			break;
		if (mono_now() > end)
			fail_msg("%" PRIu64 " copies still stale", st.stale);
		usleep(100000);
	}
	pvfs_admin_close(a);
}

/* The mgr's resync makes the copies the same on disk. */
static void
wait_identical(const char *rel)
{
	char why[3 * PATH_MAX];
	double t0 = mono_now();

	wait_clean();
	if (!copies_same(rel, why, sizeof(why)))
		fail_msg("%s: copies differ after the resync: %s", rel, why);
	print_message("%s: resync done, copies identical on disk, after "
	    "%.1f s\n", rel, mono_now() - t0);
}

struct ops {
	int fd;
	struct shadow s;
	struct rng r;
	unsigned char *w, *g;
	double worst[3];      /* write, read, truncate: longest call */
	int n[3];
};

static void
ops_init(struct ops *o, const char *rel, const char *what)
{
	memset(o, 0, sizeof(*o));
	rng_init(&o->r, what);
	shadow_init(&o->s);
	o->w = malloc(2 * MiB);
	o->g = malloc(2 * MiB);
	assert_non_null(o->w);
	assert_non_null(o->g);
	assert_true((o->fd = mirror_create(rel)) >= 0);
}

static void
ops_free(struct ops *o)
{
	assert_int_equal(pvfs_close(o->fd), 0);
	shadow_free(&o->s);
	free(o->w);
	free(o->g);
}

/* One random call: a write (up to maxlen), a read checked against the
 * shadow, now and then a truncate. */
static void
one_op(struct ops *o, size_t maxlen)
{
	uint64_t off = rng_range(&o->r, 0, SPAN), pick = rng_range(&o->r, 0, 19);
	size_t len = (size_t)rng_range(&o->r, 1, maxlen), want;
	double t0 = mono_now(), dt;
	ssize_t got;
	int kind;

	if (pick == 0) {
		kind = 2;
		assert_int_equal(pvfs_ftruncate(o->fd, (off_t)off), 0);
		shadow_truncate(&o->s, off);
	} else if (pick < 12) {
		kind = 0;
		rng_fill(&o->r, o->w, len);
		got = pvfs_pwrite(o->fd, o->w, len, (off_t)off);
		if (got != (ssize_t)len)
			fail_msg("pwrite(%zu at %" PRIu64 ") = %zd: %s", len,
			    off, got, got < 0 ? strerror(errno) : "short");
		shadow_write(&o->s, off, o->w, len);
	} else {
		kind = 1;
		want = shadow_expect_len(&o->s, off, len);
		got = pvfs_pread(o->fd, o->g, len, (off_t)off);
		if (got != (ssize_t)want)
			fail_msg("pread(%zu at %" PRIu64 ") = %zd (want %zu): %s",
			    len, off, got, want, got < 0 ? strerror(errno) : "");
		if (want > 0 && memcmp(o->g, o->s.data + off, want) != 0)
			fail_msg("pread(%zu at %" PRIu64 "): differs at %zu", len,
			    off, first_diff(o->g, o->s.data + off, want));
	}
	dt = mono_now() - t0;
	if (dt > 1)
		print_message("  %s took %.2f s\n", kind == 0 ? "write" :
		    kind == 1 ? "read" : "truncate", dt);
	o->n[kind]++;
	if (dt > o->worst[kind])
		o->worst[kind] = dt;
}

static void
ops_print(const struct ops *o, const char *what)
{
	print_message("%s: %d writes (longest %.2f s), %d reads (%.2f s), "
	    "%d truncates (%.2f s)\n", what, o->n[0], o->worst[0], o->n[1],
	    o->worst[1], o->n[2], o->worst[2]);
}

static void
stop(const char *iod)
{
	assert_int_equal(cluster_kill(&c, iod, SIGSTOP), 0);
}

static void
cont(const char *iod)
{
	assert_int_equal(cluster_kill(&c, iod, SIGCONT), 0);
}

/* After the resync, the file from the copies on iod 1 alone (iod 0
 * stopped in turn: every read gives its copies up). */
static void
check_from_iod1(struct ops *o, const char *rel)
{
	double t0;

	stop("iod0");
	t0 = mono_now();
	shadow_assert_fd(&o->s, o->fd, rel);
	print_message("%s: whole file read with iod 0 stopped in %.2f s\n", rel,
	    mono_now() - t0);
	cont("iod0");
}

/* iod 1 stopped between calls. */
static void
test_stop_idle(void **state)
{
	struct ops o;
	int i;

	(void)state;
	ops_init(&o, "idle", "test_stop_idle");
	for (i = 0; i < 30; i++)
		one_op(&o, 512 * KiB);
	wait_identical("idle");
	stop("iod1");
	memset(o.worst, 0, sizeof(o.worst));
	memset(o.n, 0, sizeof(o.n));
	for (i = 0; i < 60; i++)
		one_op(&o, 512 * KiB);
	ops_print(&o, "iod 1 stopped while idle");
	shadow_assert_fd(&o.s, o.fd, "iod 1 stopped");
	cont("iod1");
	wait_identical("idle");
	check_from_iod1(&o, "idle");
	/* Back to both copies: still the same bytes, still identical. */
	for (i = 0; i < 20; i++)
		one_op(&o, 512 * KiB);
	shadow_assert_fd(&o.s, o.fd, "after the resync");
	wait_identical("idle");
	ops_free(&o);
}

/* With the default HELLO interval (3 s) the mgr keeps sending HELLOs to
 * the stopped iod (its kernel takes the connections), so each mark's
 * lease bound moves on: every write would wait one (about 8 s) for its
 * dirty report, unless a report on a copy whose mark is already fenced
 * waits for nothing. */
static void
test_stop_default_hello(void **state)
{
	struct ops o;
	double t0;
	int i, slow = 0;

	(void)state;
	unsetenv("PVFS_HELLO_INTERVAL");
	assert_int_equal(cluster_restart(&c), 0);
	ops_init(&o, "default-hello", "test_stop_default_hello");
	for (i = 0; i < 10; i++)
		one_op(&o, 256 * KiB);
	wait_identical("default-hello");
	stop("iod1");
	for (i = 0; i < 8; i++) {
		rng_fill(&o.r, o.w, 64 * KiB);
		t0 = mono_now();
		assert_int_equal(pvfs_pwrite(o.fd, o.w, 64 * KiB,
		    (off_t)(i * 64 * KiB)), (ssize_t)(64 * KiB));
		shadow_write(&o.s, (uint64_t)i * 64 * KiB, o.w, 64 * KiB);
		print_message("  write %d: %.2f s\n", i, mono_now() - t0);
		if (mono_now() - t0 > 1)
			slow++;
	}
	shadow_assert_fd(&o.s, o.fd, "iod 1 stopped, default HELLO");
	cont("iod1");
	wait_identical("default-hello");
	ops_free(&o);
	/* One mark per stale copy (two: a part's copy each) waits. */
	if (slow > 2)
		fail_msg("%d of 8 writes took over a second with iod 1 stopped",
		    slow);
	setenv("PVFS_HELLO_INTERVAL", "0.3", 1);
	assert_int_equal(cluster_restart(&c), 0);
}

static int stopped; /* stop_later did */

static void *
stop_later(void *arg)
{
	usleep((useconds_t)(uintptr_t)arg);
	stop("iod1");
	__atomic_store_n(&stopped, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* iod 1 stopped while large calls stream to and from it. */
static void
test_stop_midstream(void **state)
{
	struct ops o;
	pthread_t t;
	int i;

	(void)state;
	ops_init(&o, "mid", "test_stop_midstream");
	for (i = 0; i < 10; i++)
		one_op(&o, 2 * MiB);
	/* Both copies fresh: a copy that missed a call while iod 0 was
	 * thought down would have its only fresh copy on the stopped iod. */
	wait_identical("mid");
	assert_int_equal(pthread_create(&t, NULL, stop_later,
	    (void *)(uintptr_t)rng_range(&o.r, 1000, 200000)), 0);
	for (i = 0; i < 80; i++) {
		one_op(&o, 2 * MiB);
		if (i == 20)
			pthread_join(t, NULL); /* the rest with iod 1 stopped */
	}
	ops_print(&o, "iod 1 stopped mid-stream");
	shadow_assert_fd(&o.s, o.fd, "iod 1 stopped mid-stream");
	cont("iod1");
	wait_identical("mid");
	check_from_iod1(&o, "mid");
	ops_free(&o);
}

/* iod 1 stopped while large reads stream from both copies: the part
 * on iod 1 is asked of iod 0 instead. */
static void
test_stop_midread(void **state)
{
	const size_t size = 24 * MiB, chunk = 4 * MiB;
	unsigned char *buf = malloc(chunk);
	double t0, worst = 0;
	struct rng r;
	pthread_t t;
	size_t off;
	int fd, pass;

	(void)state;
	assert_non_null(buf);
	rng_init(&r, "test_stop_midread");
	assert_true((fd = mirror_create("midread")) >= 0);
	for (off = 0; off < size; off += chunk) {
		pattern_fill(buf, chunk, off, 23);
		assert_int_equal(pvfs_pwrite(fd, buf, chunk, (off_t)off),
		    (ssize_t)chunk);
	}
	wait_identical("midread");
	__atomic_store_n(&stopped, 0, __ATOMIC_RELEASE);
	assert_int_equal(pthread_create(&t, NULL, stop_later,
	    (void *)(uintptr_t)rng_range(&r, 1000, 100000)), 0);
	/* Until two passes after the stop. */
	for (pass = 0; pass < 2; pass += __atomic_load_n(&stopped,
	    __ATOMIC_ACQUIRE))
		for (off = 0; off < size; off += chunk) {
			t0 = mono_now();
			assert_int_equal(pvfs_pread(fd, buf, chunk, (off_t)off),
			    (ssize_t)chunk);
			if (mono_now() - t0 > worst)
				worst = mono_now() - t0;
			if (pattern_check(buf, chunk, off, 23) >= 0)
				fail_msg("pass %d: bytes differ at %zu", pass,
				    off + (size_t)pattern_check(buf, chunk, off,
				    23));
		}
	pthread_join(t, NULL);
	print_message("reads with iod 1 stopped mid-stream: longest %.2f s\n",
	    worst);
	cont("iod1");
	assert_int_equal(pvfs_close(fd), 0);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stop_idle),
		cmocka_unit_test(test_stop_midstream),
		cmocka_unit_test(test_stop_midread),
		cmocka_unit_test(test_stop_default_hello),
	};

	setenv("PVFS_TIMEOUT", "60", 1);
	setenv("PVFS_HELLO_INTERVAL", "0.3", 1);
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
