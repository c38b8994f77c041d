/*
 * test_size.c - the size the mgr keeps (issue 18, doc/design.md "Size at
 * the mgr"): another client process stats after every step of a writer
 * (writes, ftruncate, truncate by path, O_TRUNC, closes) and sees the
 * size a shadow of the file says; once nobody writes, a repeated stat
 * asks no iod (the iods' IOD_SIZE counters stand still) and gives what
 * the iods gave.  A writer killed with SIGKILL mid-write: stat equals
 * what the stripe files hold.  Across a mgr restart: the size is right at
 * once, and a writer that had the file open before the restart and
 * writes again after the grace is seen by the next stat.  A fork's
 * child writing through an inherited descriptor after the parent closed
 * its copy is seen too.
 *
 *   test_size                   the tests
 *   test_size --stat PATH       another client: for each line on stdin,
 *                               stat PATH, print "size mtime_ns blocks"
 *                               (or "err ERRNO")
 *   test_size --write PATH      another client: append 64 KiB writes to
 *                               PATH until killed; "r" after the first
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"

#define NIODS 4
#define SSIZE 65536
#define GRACE "2"         /* the mgr's --orphan-grace: its size hold too */
#define AFTER_GRACE_US 3000000
#define STEPS 40

static struct cluster c;
static char self[PATH_MAX];

/* ---- the other clients ---- */

static int
child_stat(const char *path)
{
	char line[64];
	struct stat st;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (pvfs_stat(path, &st) != 0)
			printf("err %d\n", errno);
		else
			printf("%lld %lld %lld\n", (long long)st.st_size,
			    (long long)st.st_mtim.tv_sec * 1000000000LL +
			    st.st_mtim.tv_nsec, (long long)st.st_blocks);
	}
	return 0;
}

static int
child_write(const char *path)
{
	static unsigned char buf[65536];
	uint64_t off = 0;
	int fd = pvfs_open(path, O_WRONLY, 0);

	if (fd < 0)
		return 2;
	for (;;) {
		pattern_fill(buf, sizeof(buf), off, 7);
		if (pvfs_pwrite(fd, buf, sizeof(buf), (off_t)off) !=
		    (ssize_t)sizeof(buf))
			return 3;
		if (off == 0 && write(1, "r", 1) != 1)
			return 2;
		off += sizeof(buf);
	}
}

/* ---- helpers ---- */

static pid_t
spawn(char *const argv[], int in, int out)
{
	posix_spawn_file_actions_t fa;
	extern char **environ;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	if (in != -1)
		posix_spawn_file_actions_adddup2(&fa, in, 0);
	if (out != -1)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	if (posix_spawn(&pid, self, &fa, NULL, argv, environ) != 0)
		pid = -1;
	posix_spawn_file_actions_destroy(&fa);
	return pid;
}

struct peer {
	pid_t pid;
	int to;
	FILE *from;
};

static void
peer_start(struct peer *p, const char *mode, const char *path)
{
	char *argv[] = { self, (char *)mode, (char *)path, NULL };
	int in[2], out[2];

	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	p->pid = spawn(argv, in[0], out[1]);
	assert_true(p->pid > 0);
	close(in[0]);
	close(out[1]);
	p->to = in[1];
	assert_non_null(p->from = fdopen(out[0], "r"));
}

static void
peer_stop(struct peer *p, int sig)
{
	int st;

	if (sig != 0)
		kill(p->pid, sig);
	close(p->to);
	fclose(p->from);
	assert_int_equal(waitpid(p->pid, &st, 0), p->pid);
	if (sig == 0)
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

struct pstat {
	long long size, mtime_ns, blocks;
};

/* The other client's stat of its path. */
static struct pstat
peer_stat(struct peer *p)
{
	char line[128];
	struct pstat s;

	assert_int_equal(write(p->to, "\n", 1), 1);
	assert_non_null(fgets(line, sizeof(line), p->from));
	if (strncmp(line, "err", 3) == 0)
		fail_msg("the other client's stat failed: %s", line);
	assert_int_equal(sscanf(line, "%lld %lld %lld", &s.size, &s.mtime_ns,
	    &s.blocks), 3);
	return s;
}

/* IOD_SIZE requests the iods have answered since they started, from
 * pvfs-counters. */
static long long
iod_sizes(void)
{
	char cmd[PATH_MAX + 64], line[256], *slash;
	long long n = 0, v;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "%s", c.tool);
	if ((slash = strrchr(cmd, '/')) == NULL)
		fail_msg("no directory in %s", c.tool);
	snprintf(slash + 1, sizeof(cmd) - (size_t)(slash + 1 - cmd),
	    "pvfs-counters");
	assert_non_null(f = popen(cmd, "r"));
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, " IOD_SIZE %lld", &v) == 1)
			n += v;
	}
	assert_int_equal(pclose(f), 0);
	return n;
}

/* Nobody writes the file: the first stat may ask the iods (and tell the
 * mgr), the next must not, and both agree with want. */
static void
check_settled(struct peer *p, long long want)
{
	struct pstat a, b;
	long long before;

	a = peer_stat(p);
	assert_int_equal(a.size, want);
	before = iod_sizes();
	b = peer_stat(p);
	assert_int_equal(iod_sizes(), before);
	assert_int_equal(b.size, want);
	assert_int_equal(b.mtime_ns, a.mtime_ns);
	assert_int_equal(b.blocks, a.blocks);
}

/* The size the stripe files say: max over the iods of their logical
 * ends (the file has base 0 and pcount NIODS, so iod k is rel k). */
static long long
stripes_size(uint64_t ino)
{
	char path[PATH_MAX];
	struct stat st;
	uint64_t end, max = 0;
	uint32_t k, r;

	for (k = 0; k < NIODS; k++) {
		if (stat(cluster_stripe_file(&c, (int)k, ino, path), &st) != 0)
			continue;
		end = 0;
		/* pvfs_stripe_logical_end, as the iod computes it. */
		if (st.st_size > 0) {
			uint64_t last = (uint64_t)st.st_size - 1;
			uint64_t s = last / SSIZE;

			r = k;
			end = (s * NIODS + r) * SSIZE + last % SSIZE + 1;
		}
		if (end > max)
			max = end;
	}
	return (long long)max;
}

/* ---- tests ---- */

/* One client writes and truncates, through every path; the other stats
 * after each step and sees the shadow's size. */
static void
test_two_clients(void **state)
{
	static unsigned char buf[3 * SSIZE];
	char path[PATH_MAX];
	struct shadow sh;
	struct peer p;
	struct rng r;
	int fd, i;

	rng_init(&r, "test_two_clients");
	shadow_init(&sh);
	usleep(AFTER_GRACE_US); /* a mgr just started trusts no size */
	cluster_path(&c, "two", path);
	fd = cluster_create(&c, "two", 0, 0, NIODS, SSIZE);
	assert_true(fd >= 0);
	peer_start(&p, "--stat", path);
	assert_int_equal(peer_stat(&p).size, 0);
	for (i = 0; i < STEPS; i++) {
		uint64_t off = rng_range(&r, 0, 8 * SSIZE);
		size_t n = (size_t)rng_range(&r, 1, sizeof(buf));

		switch (rng_range(&r, 0, 5)) {
		case 0: case 1: case 2:
			rng_fill(&r, buf, n);
			assert_int_equal(pvfs_pwrite(fd, buf, n, (off_t)off),
			    (ssize_t)n);
			shadow_write(&sh, off, buf, n);
			break;
		case 3:
			assert_int_equal(pvfs_ftruncate(fd, (off_t)off), 0);
			shadow_truncate(&sh, off);
			break;
		case 4:
			/* By path, while this client has it open too. */
			assert_int_equal(pvfs_truncate(path, (off_t)off), 0);
			shadow_truncate(&sh, off);
			break;
		case 5:
			/* Closed: nobody writes; then open again. */
			assert_int_equal(pvfs_close(fd), 0);
			check_settled(&p, (long long)sh.size);
			if (rng_range(&r, 0, 1)) {
				assert_int_equal(pvfs_truncate(path, (off_t)off), 0);
				shadow_truncate(&sh, off);
				check_settled(&p, (long long)sh.size);
			}
			fd = pvfs_open(path, O_RDWR, 0);
			assert_true(fd >= 0);
			/* Open for writing, unchanged: still the size. */
			assert_int_equal(peer_stat(&p).size, (long long)sh.size);
			break;
		}
		assert_int_equal(peer_stat(&p).size, (long long)sh.size);
	}
	shadow_assert_fd(&sh, fd, "two");
	assert_int_equal(pvfs_close(fd), 0);
	check_settled(&p, (long long)sh.size);
	/* Opened for writing and closed without a write: still known. */
	fd = pvfs_open(path, O_WRONLY, 0);
	assert_true(fd >= 0);
	assert_int_equal(pvfs_close(fd), 0);
	{
		long long before = iod_sizes();

		assert_int_equal(peer_stat(&p).size, (long long)sh.size);
		assert_int_equal(iod_sizes(), before);
	}
	/* O_TRUNC changes it. */
	fd = pvfs_open(path, O_WRONLY | O_TRUNC, 0);
	assert_true(fd >= 0);
	assert_int_equal(peer_stat(&p).size, 0);
	assert_int_equal(pvfs_close(fd), 0);
	check_settled(&p, 0);
	peer_stop(&p, 0);
	shadow_free(&sh);
}

/* A writer killed mid-write: stat says what the iods hold, before and
 * after the mgr trusts its size again. */
static void
test_writer_killed(void **state)
{
	char path[PATH_MAX], r;
	struct peer w, s;
	struct stat st;
	int fd;

	cluster_path(&c, "killed", path);
	fd = cluster_create(&c, "killed", 0, 0, NIODS, SSIZE);
	assert_true(fd >= 0);
	assert_int_equal(pvfs_close(fd), 0);
	assert_int_equal(pvfs_stat(path, &st), 0);
	peer_start(&w, "--write", path);
	assert_int_equal(fread(&r, 1, 1, w.from), 1);
	usleep(300000);
	peer_stop(&w, SIGKILL);
	usleep(200000); /* its last bytes in the iods' sockets */
	peer_start(&s, "--stat", path);
	assert_int_equal(pvfs_stat(path, &st), 0);
	assert_true(st.st_size > 0);
	assert_int_equal(st.st_size, stripes_size(st.st_ino));
	assert_int_equal(peer_stat(&s).size, st.st_size);
	usleep(AFTER_GRACE_US);
	check_settled(&s, stripes_size(st.st_ino));
	peer_stop(&s, 0);
}

/* Across a mgr restart: every size is asked of the iods again; a writer
 * of the old mgr that writes after the grace is seen. */
static void
test_mgr_restart(void **state)
{
	static unsigned char buf[SSIZE + 100];
	char path[PATH_MAX];
	struct peer s;
	int fd;

	cluster_path(&c, "restart", path);
	fd = cluster_create(&c, "restart", 0, 0, NIODS, SSIZE);
	assert_true(fd >= 0);
	memset(buf, 'a', sizeof(buf));
	assert_int_equal(pvfs_pwrite(fd, buf, 1000, 0), 1000);
	assert_int_equal(pvfs_close(fd), 0);
	peer_start(&s, "--stat", path);
	check_settled(&s, 1000);
	fd = pvfs_open(path, O_RDWR, 0);
	assert_true(fd >= 0);
	assert_int_equal(pvfs_pwrite(fd, buf, 2000, 0), 2000);
	assert_int_equal(cluster_restart(&c), 0);
	assert_int_equal(peer_stat(&s).size, 2000);
	/* Past the grace the mgr would take a size from the iods: this
	 * writer has not spoken to it since. */
	usleep(AFTER_GRACE_US);
	check_settled(&s, 2000);
	assert_int_equal(pvfs_pwrite(fd, buf, sizeof(buf), 5000),
	    (ssize_t)sizeof(buf));
	assert_int_equal(peer_stat(&s).size, 5000 + (long long)sizeof(buf));
	assert_int_equal(pvfs_close(fd), 0);
	check_settled(&s, 5000 + (long long)sizeof(buf));
	peer_stop(&s, 0);
}

/* A fork's child writes through the descriptor it inherited after the
 * parent closed its copy (the parent's lease goes with the grace, clean:
 * it wrote nothing): the child's first write takes its write lease
 * before its data goes, so the next stat sees it. */
static void
test_fork_child_writes(void **state)
{
	static unsigned char buf[SSIZE + 10];
	char path[PATH_MAX], ch;
	int go[2], done[2], st, fd;
	struct peer s;
	pid_t pid;

	cluster_path(&c, "forked", path);
	fd = cluster_create(&c, "forked", 0, 0, NIODS, SSIZE);
	assert_true(fd >= 0);
	assert_int_equal(pvfs_close(fd), 0);
	peer_start(&s, "--stat", path);
	check_settled(&s, 0);
	fd = pvfs_open(path, O_WRONLY, 0);
	assert_true(fd >= 0);
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	memset(buf, 'f', sizeof(buf));
	if ((pid = fork()) == 0) {
		if (read(go[0], &ch, 1) != 1 ||
		    pvfs_pwrite(fd, buf, sizeof(buf), 3 * SSIZE) !=
		    (ssize_t)sizeof(buf) || write(done[1], "d", 1) != 1)
			_exit(1);
		/* Until the parent has looked: still open here. */
		if (read(go[0], &ch, 1) != 1)
			_exit(1);
		_exit(pvfs_close(fd) == 0 ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(pvfs_close(fd), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(done[0], &ch, 1), 1);
	assert_int_equal(peer_stat(&s).size, 3 * SSIZE + (long long)sizeof(buf));
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	check_settled(&s, 3 * SSIZE + (long long)sizeof(buf));
	peer_stop(&s, 0);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_clients),
		cmocka_unit_test(test_writer_killed),
		cmocka_unit_test(test_mgr_restart),
		cmocka_unit_test(test_fork_child_writes),
	};

	if (argc == 3 && strcmp(argv[1], "--stat") == 0)
		return child_stat(argv[2]);
	if (argc == 3 && strcmp(argv[1], "--write") == 0)
		return child_write(argv[2]);
	if (realpath("/proc/self/exe", self) == NULL)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	setenv("PVFS_MGR_ORPHAN_GRACE", GRACE, 1);
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
