/*
 * test_concurrent.c - concurrent clients: forked processes writing disjoint
 * interleaved regions of one file at once, a child using the library while
 * its parent does too, and threads of one process doing I/O concurrently.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"

#define NIODS 4
#define NWRITERS 4

static struct cluster c;
static struct rng rng;

struct layout {
	const char *path;
	int base, pcount, ssize;
	size_t block;  /* bytes per block; writer w owns blocks j % NWRITERS == w */
	int nblocks;
	uint64_t seed; /* writer w's bytes are pattern(seed + w) */
};

/* Child: open (creating) the file, wait at the barrier, write own blocks in
 * a shuffled order.  Returns 0, or 1 with a message on out. */
static int
writer_child(const struct layout *l, int w, int barrier, FILE *out)
{
	struct pvfs_filestat fs = {l->base, l->pcount, l->ssize, 0, 0};
	unsigned char *buf = malloc(l->block);
	int order[4096], n = 0, fd;
	struct rng r = {l->seed * 31 + (uint64_t)w, 0};
	char go;

	fd = pvfs_open(l->path, O_CREAT | O_RDWR | PVFS_O_META, 0644, &fs);
	if (fd < 0) {
		fprintf(out, "writer %d: open: %s\n", w, strerror(errno));
		return 1;
	}
	if (read(barrier, &go, 1) < 0)
		return 1;
	for (int j = w; j < l->nblocks; j += NWRITERS)
		order[n++] = j;
	for (int i = n - 1; i > 0; i--) {
		int k = (int)rng_range(&r, 0, (uint64_t)i), t = order[i];

		order[i] = order[k];
		order[k] = t;
	}
	for (int i = 0; i < n; i++) {
		uint64_t off = (uint64_t)order[i] * l->block;
		ssize_t got;

		pattern_fill(buf, l->block, off, l->seed + (uint64_t)w);
		got = pvfs_pwrite(fd, buf, l->block, (off_t)off);
		if (got != (ssize_t)l->block) {
			fprintf(out, "writer %d: pwrite(%zu at %" PRIu64 ") = %zd:"
			    " %s\n", w, l->block, off, got, strerror(errno));
			return 1;
		}
	}
	if (pvfs_close(fd) < 0) {
		fprintf(out, "writer %d: close: %s\n", w, strerror(errno));
		return 1;
	}
	free(buf);
	return 0;
}

/* Read the whole file and check each block holds its writer's pattern. */
static void
verify_blocks(const struct layout *l)
{
	size_t total = l->block * (size_t)l->nblocks;
	unsigned char *buf = malloc(total + 1);
	struct pvfs_filestat got;
	struct stat st;
	int fd;

	fd = check_ok(pvfs_open(l->path, O_RDONLY));
	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, total);
	check_ok(pvfs_ioctl(fd, PVFS_GETMETA, &got));
	assert_int_equal(got.pcount, l->pcount);
	assert_int_equal(got.ssize, l->ssize);
	assert_int_equal(check_ok(pvfs_pread(fd, buf, total + 1, 0)), total);
	for (int j = 0; j < l->nblocks; j++) {
		uint64_t off = (uint64_t)j * l->block;
		ssize_t bad = pattern_check(buf + off, l->block, off,
		    l->seed + (uint64_t)(j % NWRITERS));

		if (bad >= 0)
			fail_msg("%s: block %d (writer %d): byte %" PRIu64
			    " is wrong", l->path, j, j % NWRITERS,
			    off + (uint64_t)bad);
	}
	check_ok(pvfs_close(fd));
	free(buf);
}

static void
run_writers(const struct layout *l)
{
	int barrier[2], report[2], status, failed = 0;
	pid_t pids[NWRITERS];
	char msg[4096];
	ssize_t n = 0;

	assert_int_equal(pipe(barrier), 0);
	assert_int_equal(pipe(report), 0);
	for (int w = 0; w < NWRITERS; w++) {
		pids[w] = fork();
		assert_true(pids[w] >= 0);
		if (pids[w] == 0) {
			FILE *out = fdopen(report[1], "w");
			int rc;

			close(barrier[1]);
			close(report[0]);
			setvbuf(out, NULL, _IONBF, 0);
			rc = writer_child(l, w, barrier[0], out);
			_exit(rc);
		}
	}
	close(barrier[0]);
	close(report[1]);
	/* Let the children open the file, then release them all at once. */
	usleep(200000);
	close(barrier[1]);
	for (ssize_t r; (r = read(report[0], msg + n,
	    sizeof(msg) - 1 - (size_t)n)) > 0;)
		n += r;
	msg[n] = '\0';
	close(report[0]);
	for (int w = 0; w < NWRITERS; w++) {
		assert_int_equal(waitpid(pids[w], &status, 0), pids[w]);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	if (failed)
		fail_msg("%d writers failed:\n%s", failed, msg);
	verify_blocks(l);
}

/* Runs first: the parent has not used libpvfs before these forks. */
static void
test_forked_writers_disjoint_blocks(void **state)
{
	struct layout big = {"/pvfs/shared_big", 1, 4, 65536, 100000, 96,
	    rng_next(&rng)};
	struct layout small = {"/pvfs/shared_small", 2, 3, 4096, 1000, 1200,
	    rng_next(&rng)};

	run_writers(&big);
	run_writers(&small);
}

/* A child forked after the parent used the library works with the library
 * while the parent keeps using it too. */
static void
test_fork_after_use(void **state)
{
	const size_t sz = 300000;
	unsigned char *buf = malloc(sz), *rbuf = malloc(sz);
	uint64_t seed = rng_next(&rng);
	int fd, status;
	pid_t pid;

	fd = check_ok(pvfs_open("/pvfs/parent_file", O_CREAT | O_RDWR, 0644));
	pattern_fill(buf, sz, 0, seed);
	assert_int_equal(check_ok(pvfs_pwrite(fd, buf, sz, 0)), sz);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int cfd = pvfs_open("/pvfs/child_file", O_CREAT | O_RDWR, 0644);
		int bad = cfd < 0;

		for (int i = 0; i < 30 && !bad; i++) {
			pattern_fill(buf, sz, (uint64_t)i * sz, seed + 1);
			bad |= pvfs_pwrite(cfd, buf, sz, (off_t)i * sz) !=
			    (ssize_t)sz;
			bad |= pvfs_pread(cfd, rbuf, sz, (off_t)i * sz) !=
			    (ssize_t)sz;
			bad |= memcmp(buf, rbuf, sz) != 0;
		}
		if (bad)
			_exit(1);
		/* The descriptor inherited from the parent works too. */
		if (pvfs_pread(fd, rbuf, sz, 0) != (ssize_t)sz ||
		    pattern_check(rbuf, sz, 0, seed) >= 0)
			_exit(2);
		_exit(0);
	}
	for (int i = 0; i < 30; i++) {
		struct stat st;

		assert_int_equal(check_ok(pvfs_pread(fd, rbuf, sz, 0)), sz);
		assert_int_equal(pattern_check(rbuf, sz, 0, seed), -1);
		check_ok(pvfs_stat("/pvfs/parent_file", &st));
		assert_int_equal(st.st_size, sz);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the child %s (status 0x%x)", WIFEXITED(status) &&
		    WEXITSTATUS(status) == 2 ? "could not read through the "
		    "descriptor it inherited" : "could not use libpvfs while "
		    "its parent did", status);
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open("/pvfs/child_file", O_RDONLY));
	assert_int_equal(check_ok(pvfs_pread(fd, rbuf, sz, 29 * sz)), sz);
	assert_int_equal(pattern_check(rbuf, sz, 29 * sz, seed + 1), -1);
	check_ok(pvfs_close(fd));
	free(buf);
	free(rbuf);
}

struct thread_arg {
	const char *path;
	uint64_t seed, base;   /* region of the file this thread owns */
	size_t len;
	int rounds;
	char err[256];
};

static void *
io_thread(void *p)
{
	struct thread_arg *a = p;
	unsigned char *buf = malloc(a->len), *rbuf = malloc(a->len);
	int fd = pvfs_open(a->path, O_CREAT | O_RDWR, 0644);

	if (fd < 0) {
		snprintf(a->err, sizeof(a->err), "open %s: %s", a->path,
		    strerror(errno));
		return NULL;
	}
	for (int i = 0; i < a->rounds && a->err[0] == '\0'; i++) {
		uint64_t off = a->base + (uint64_t)(i % 7) * 1013;
		ssize_t n;

		pattern_fill(buf, a->len, off, a->seed + (uint64_t)i);
		n = pvfs_pwrite(fd, buf, a->len, (off_t)off);
		if (n != (ssize_t)a->len) {
			snprintf(a->err, sizeof(a->err), "round %d: pwrite = %zd:"
			    " %s", i, n, strerror(errno));
			break;
		}
		n = pvfs_pread(fd, rbuf, a->len, (off_t)off);
		if (n != (ssize_t)a->len || memcmp(buf, rbuf, a->len) != 0)
			snprintf(a->err, sizeof(a->err), "round %d: pread = %zd "
			    "(%s) or wrong bytes", i, n, strerror(errno));
	}
	pvfs_close(fd);
	free(buf);
	free(rbuf);
	return NULL;
}

static void
test_threads_concurrent_io(void **state)
{
	struct thread_arg args[4] = {
		/* Two threads, two files. */
		{"/pvfs/thread_a", rng_next(&rng), 0, 700000, 40, ""},
		{"/pvfs/thread_b", rng_next(&rng), 12345, 333333, 40, ""},
		/* Two threads, disjoint regions of one file. */
		{"/pvfs/thread_same", rng_next(&rng), 0, 500000, 40, ""},
		{"/pvfs/thread_same", rng_next(&rng), 2000000, 500000, 40, ""},
	};
	pthread_t t[4];

	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, io_thread,
		    &args[i]), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (int i = 0; i < 4; i++)
		if (args[i].err[0] != '\0')
			fail_msg("thread %d (%s): %s", i, args[i].path,
			    args[i].err);
	/* The last round of each thread is what the file holds. */
	for (int i = 0; i < 4; i++) {
		struct thread_arg *a = &args[i];
		int last = a->rounds - 1, fd;
		uint64_t off = a->base + (uint64_t)(last % 7) * 1013;
		unsigned char *buf = malloc(a->len);

		fd = check_ok(pvfs_open(a->path, O_RDONLY));
		assert_int_equal(check_ok(pvfs_pread(fd, buf, a->len, off)),
		    a->len);
		assert_int_equal(pattern_check(buf, a->len, off,
		    a->seed + (uint64_t)last), -1);
		check_ok(pvfs_close(fd));
		free(buf);
	}
}

struct blocked_read {
	int fd;
	ssize_t n;
};

static void *
blocked_reader(void *p)
{
	struct blocked_read *b = p;
	char buf[4096];

	b->n = pvfs_read(b->fd, buf, sizeof(buf));
	return NULL;
}

/* A read waiting on stopped iods holds its open file's offset lock; a
 * child forked meanwhile must still be able to use that descriptor
 * (regression: the child inherited the locked mutex and hung). */
static void
test_fork_while_reading(void **state)
{
	struct blocked_read b = {-1, -1};
	char name[8];
	pthread_t t;
	int status;
	pid_t pid;

	b.fd = check_ok(pvfs_open("/pvfs/fork_busy", O_CREAT | O_RDWR, 0644));
	assert_int_equal(check_ok(pvfs_pwrite(b.fd, "x", 1, 0)), 1);
	for (int i = 0; i < NIODS; i++) {
		snprintf(name, sizeof(name), "iod%d", i);
		assert_int_equal(cluster_kill(&c, name, SIGSTOP), 0);
	}
	assert_int_equal(pthread_create(&t, NULL, blocked_reader, &b), 0);
	usleep(300000);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		alarm(5);
		_exit(pvfs_lseek(b.fd, 0, SEEK_CUR) == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	for (int i = 0; i < NIODS; i++) {
		snprintf(name, sizeof(name), "iod%d", i);
		assert_int_equal(cluster_kill(&c, name, SIGCONT), 0);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the child could not lseek a descriptor its parent "
		    "was reading (status 0x%x)", status);
	assert_int_equal(b.n, 1);
	check_ok(pvfs_close(b.fd));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forked_writers_disjoint_blocks),
		cmocka_unit_test(test_fork_after_use),
		cmocka_unit_test(test_threads_concurrent_io),
		cmocka_unit_test(test_fork_while_reading),
	};
	rng_init(&rng, "test_concurrent");
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
