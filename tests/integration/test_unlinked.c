/*
 * test_unlinked.c - open-unlinked files (issue 14, doc/design.md): a file
 * unlinked by another client process stays readable, writable and
 * fstat-able through the descriptor that has it open, and its stripes
 * leave the iods' data directories after the last close; after the
 * holder is killed with SIGKILL, within the mgr's grace; across a mgr
 * restart, a holder that is still alive keeps it, a dead one does not;
 * pvfs-fsck reports no orphan stripes for a live open-unlinked file.
 * With an iod killed, unlink and rename over a file succeed, the other
 * iods' stripes go at once and the dead one's when it is back, across a
 * mgr restart too (the ORPHAN records are the durable list); the mgr
 * does all this on its one thread.
 *
 *   test_unlinked                 the tests
 *   test_unlinked --unlink PATH   another client: unlink PATH
 *   test_unlinked --hold PATH SEED
 *                                 another client: open PATH, say "r" on
 *                                 stdout, check the bytes every 100 ms
 *                                 (fstat: a request to the mgr) until
 *                                 stdin closes; exit 0 if they all held
 */
#include <sys/wait.h>

#include <dirent.h>
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
#include <poll.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"
#include "fsck-run.h"
#include "procinfo.h"

#define NIODS 3
#define FSIZE (300u * 1024) /* stripes on every iod */
#define GRACE "2"           /* the mgr's --orphan-grace, seconds */
#define GRACE_MS 2000
/* The bound: the grace, the mgr's 0.5 s look at its orphans and the
 * removal itself, with room for a loaded machine. */
#define FREE_BOUND_MS (GRACE_MS + 8000)
/* An iod back: the mgr's HELLO (every 10 s) or its own retry (at most
 * 10 s apart) finds it, with room for a loaded machine. */
#define BACK_BOUND_MS 20000
#define DOWN_IOD 1

static struct cluster c;
static char self[PATH_MAX];

/* ---- the other clients ---- */

static int
child_unlink(const char *path)
{
	return pvfs_unlink(path) == 0 ? 0 : 1;
}

static int
child_hold(const char *path, uint64_t seed)
{
	static unsigned char buf[FSIZE];
	struct pollfd pfd = { .fd = 0, .events = POLLIN };
	struct stat st;
	int fd = pvfs_open(path, O_RDONLY, 0), bad = 0;

	if (fd < 0)
		return 2;
	if (write(1, "r", 1) != 1)
		return 2;
	/* fstat asks the mgr (which may be restarting: no matter), pread
	 * the iods; the bytes must hold throughout. */
	for (;;) {
		(void)pvfs_fstat(fd, &st);
		if (pvfs_pread(fd, buf, FSIZE, 0) == FSIZE &&
		    pattern_check(buf, FSIZE, 0, seed) != -1) {
			fprintf(stderr, "holder: the bytes changed\n");
			bad = 1;
		}
		if (poll(&pfd, 1, 100) != 0)
			break;
	}
	if (pvfs_fstat(fd, &st) != 0 || st.st_size != FSIZE || st.st_nlink != 0 ||
	    pvfs_pread(fd, buf, FSIZE, 0) != FSIZE ||
	    pattern_check(buf, FSIZE, 0, seed) != -1) {
		fprintf(stderr, "holder: the last check failed (%s)\n",
		    strerror(errno));
		bad = 1;
	}
	pvfs_close(fd);
	return bad;
}

/* ---- helpers ---- */

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int
stripes_present(uint64_t ino)
{
	int k, n = 0;

	for (k = 0; k < NIODS; k++)
		n += cluster_stripe_exists(&c, k, ino);
	return n;
}

/* Milliseconds until ino has no stripe on any iod, or -1 past limit_ms. */
static int64_t
wait_stripes_gone(uint64_t ino, int64_t limit_ms)
{
	int64_t t0 = now_ms();

	while (stripes_present(ino) != 0) {
		if (now_ms() - t0 > limit_ms)
			return -1;
		usleep(50000);
	}
	return now_ms() - t0;
}

/* Milliseconds until ino has no stripe on any iod but DOWN_IOD, or -1. */
static int64_t
wait_up_stripes_gone(uint64_t ino, int64_t limit_ms)
{
	int64_t t0 = now_ms();
	int k, n;

	for (;;) {
		for (k = n = 0; k < NIODS; k++)
			n += k != DOWN_IOD && cluster_stripe_exists(&c, k, ino);
		if (n == 0)
			return now_ms() - t0;
		if (now_ms() - t0 > limit_ms)
			return -1;
		usleep(50000);
	}
}

/* Threads of the mgr process (entries of /proc/PID/task), or -1. */
static int
mgr_threads(void)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	pid_t pid = proc_daemon_pid(&c, "mgr");
	int n = 0;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A file of FSIZE pattern bytes on every iod; its inode. */
static uint64_t
make_file(const char *rel, uint64_t seed)
{
	static unsigned char buf[FSIZE];
	struct stat st;
	int fd = cluster_create(&c, rel, O_TRUNC, -1, -1, 65536);

	assert_true(fd >= 0);
	pattern_fill(buf, FSIZE, 0, seed);
	assert_int_equal(pvfs_pwrite(fd, buf, FSIZE, 0), FSIZE);
	assert_int_equal(pvfs_fstat(fd, &st), 0);
	assert_int_equal(pvfs_close(fd), 0);
	assert_int_equal(stripes_present(st.st_ino), NIODS);
	return st.st_ino;
}

/* posix_spawn, not fork: a fork makes the library treat the files open
 * at that moment as shared with the child (their last close here then
 * leaves the mgr's grace, for the child to take its own lease). */
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

static int
run_child(const char *mode, const char *path)
{
	char *argv[] = { self, (char *)mode, (char *)path, NULL };
	int st;
	pid_t pid = spawn(argv, -1, -1);

	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

struct holder {
	pid_t pid;
	int to, from; /* its stdin, its stdout */
};

static void
holder_start(struct holder *h, const char *path, uint64_t seed)
{
	char sbuf[32], r;
	char *argv[] = { self, "--hold", (char *)path, sbuf, NULL };
	int in[2], out[2];

	/* CLOEXEC: no other child (a restarted daemon) may keep the holder's
	 * stdin open. */
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	snprintf(sbuf, sizeof(sbuf), "%" PRIu64, seed);
	h->pid = spawn(argv, in[0], out[1]);
	assert_true(h->pid > 0);
	close(in[0]);
	close(out[1]);
	h->to = in[1];
	h->from = out[0];
	assert_int_equal(read(h->from, &r, 1), 1);
	assert_int_equal(r, 'r');
}

/* Close its stdin: it checks once more and exits; its status. */
static int
holder_finish(struct holder *h)
{
	int st;

	close(h->to);
	close(h->from);
	if (waitpid(h->pid, &st, 0) != h->pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void
holder_kill(struct holder *h)
{
	int st;

	kill(h->pid, SIGKILL);
	assert_int_equal(waitpid(h->pid, &st, 0), h->pid);
	close(h->to);
	close(h->from);
}

/* ---- tests ---- */

/* Another process unlinks the file this one has open: reads, writes and
 * fstat go on; pvfs-fsck sees no orphan; the last close frees it. */
static void
test_unlinked_by_another(void **state)
{
	static unsigned char buf[FSIZE], more[4096], back[4096];
	uint64_t seed = 0x51ab, ino;
	char path[PATH_MAX], out[8192];
	struct stat st;
	int fd, i;
	int64_t ms;

	(void)state;
	ino = make_file("u1", seed);
	cluster_path(&c, "u1", path);
	assert_true((fd = pvfs_open(path, O_RDWR, 0)) >= 0);
	assert_int_equal(run_child("--unlink", path), 0);
	assert_int_equal(pvfs_stat(path, &st), -1);
	assert_int_equal(errno, ENOENT);

	assert_int_equal(pvfs_fstat(fd, &st), 0);
	assert_int_equal(st.st_nlink, 0);
	assert_int_equal(st.st_size, FSIZE);
	assert_int_equal((uint64_t)st.st_ino, ino);
	assert_int_equal(pvfs_pread(fd, buf, FSIZE, 0), FSIZE);
	assert_int_equal(pattern_check(buf, FSIZE, 0, seed), -1);
	for (i = 0; i < (int)sizeof(more); i++)
		more[i] = (unsigned char)(i * 7 + 3);
	assert_int_equal(pvfs_pwrite(fd, more, sizeof(more), FSIZE), sizeof(more));
	assert_int_equal(pvfs_pread(fd, back, sizeof(back), FSIZE), sizeof(back));
	assert_memory_equal(back, more, sizeof(more));
	assert_int_equal(pvfs_fstat(fd, &st), 0);
	assert_int_equal(st.st_size, FSIZE + sizeof(more));
	assert_int_equal(stripes_present(ino), NIODS);

	/* Its stripes belong to a live file, not to nobody. */
	assert_int_equal(fsck_run(&c, NULL, (uid_t)-1, out, sizeof(out)), 0);
	assert_int_equal(fsck_count_lines(out, "orphan:"), 0);

	assert_int_equal(pvfs_close(fd), 0);
	/* pvfs-fsck ran in a forked child since the open: the close leaves
	 * the grace to a child that may hold the file too. */
	ms = wait_stripes_gone(ino, FREE_BOUND_MS);
	print_message("stripes gone %" PRId64 " ms after the last close\n", ms);
	assert_true(ms >= 0);
}

/* A renamed-over file, open in two descriptors of this process: the first
 * close keeps it, the second frees it. */
static void
test_renamed_over(void **state)
{
	static unsigned char buf[FSIZE];
	uint64_t seed = 0x7e7e, ino;
	char path[PATH_MAX], other[PATH_MAX];
	int fd1, fd2;
	int64_t ms;

	(void)state;
	ino = make_file("r1", seed);
	make_file("r2", seed + 1);
	cluster_path(&c, "r1", path);
	cluster_path(&c, "r2", other);
	assert_true((fd1 = pvfs_open(path, O_RDONLY, 0)) >= 0);
	assert_true((fd2 = pvfs_open(path, O_RDONLY, 0)) >= 0);
	assert_int_equal(pvfs_rename(other, path), 0);
	assert_int_equal(pvfs_close(fd1), 0);
	usleep(1500 * 1000); /* three looks of the mgr at its orphans */
	assert_int_equal(stripes_present(ino), NIODS);
	assert_int_equal(pvfs_pread(fd2, buf, FSIZE, 0), FSIZE);
	assert_int_equal(pattern_check(buf, FSIZE, 0, seed), -1);
	assert_int_equal(pvfs_close(fd2), 0);
	/* No fork since the opens: the last close frees it without waiting
	 * for the grace. */
	ms = wait_stripes_gone(ino, FREE_BOUND_MS);
	print_message("stripes gone %" PRId64 " ms after the last close\n", ms);
	assert_true(ms >= 0 && ms < GRACE_MS);
}

/* The holder dies with SIGKILL: the stripes go within the bound. */
static void
test_holder_killed(void **state)
{
	struct holder h;
	uint64_t seed = 0xdead, ino;
	char path[PATH_MAX];
	int64_t ms;

	(void)state;
	ino = make_file("k1", seed);
	cluster_path(&c, "k1", path);
	holder_start(&h, path, seed);
	assert_int_equal(pvfs_unlink(path), 0);
	assert_int_equal(stripes_present(ino), NIODS);
	holder_kill(&h);
	ms = wait_stripes_gone(ino, FREE_BOUND_MS);
	print_message("stripes gone %" PRId64 " ms after SIGKILL (grace %d ms)\n",
	    ms, GRACE_MS);
	assert_true(ms >= 0);
}

/* A mgr restart with two orphans: the one whose holder lives is kept
 * (it takes its lease again), the one whose holder died while the mgr
 * was down is freed after the grace. */
static void
test_mgr_restart(void **state)
{
	struct holder live, dead;
	uint64_t s1 = 0x1111, s2 = 0x2222, ino1, ino2;
	char p1[PATH_MAX], p2[PATH_MAX];

	(void)state;
	ino1 = make_file("m1", s1);
	ino2 = make_file("m2", s2);
	cluster_path(&c, "m1", p1);
	cluster_path(&c, "m2", p2);
	holder_start(&live, p1, s1);
	holder_start(&dead, p2, s2);
	assert_int_equal(pvfs_unlink(p1), 0);
	assert_int_equal(pvfs_unlink(p2), 0);
	assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	holder_kill(&dead);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_true(wait_stripes_gone(ino2, FREE_BOUND_MS) >= 0);
	/* Well past the grace: the live holder's file stays. */
	usleep(2 * GRACE_MS * 1000);
	assert_int_equal(stripes_present(ino1), NIODS);
	assert_int_equal(holder_finish(&live), 0);
	assert_true(wait_stripes_gone(ino1, FREE_BOUND_MS) >= 0);
}

/* Files removed while an iod is down: with iod DOWN_IOD killed, unlink
 * and rename over a file succeed at once; the other iods' stripes go;
 * the dead iod's stay until it is back, then go too.  With restart_mgr,
 * the mgr is killed while the iod is down and starts again with it: the
 * ORPHAN records bring the pending stripes back. */
static void
iod_down_case(const char *tag, int restart_mgr)
{
	uint64_t seed = 0x10d0, ino1, ino2;
	char a[32], b[32], v[32], pa[PATH_MAX], pb[PATH_MAX], pv[PATH_MAX];
	char daemon[16];
	double t0;

	snprintf(a, sizeof(a), "%s-a", tag);
	snprintf(b, sizeof(b), "%s-b", tag);
	snprintf(v, sizeof(v), "%s-v", tag);
	snprintf(daemon, sizeof(daemon), "iod%d", DOWN_IOD);
	ino1 = make_file(a, seed);
	ino2 = make_file(v, seed + 1); /* the victim of the rename */
	make_file(b, seed + 2);
	cluster_path(&c, a, pa);
	cluster_path(&c, b, pb);
	cluster_path(&c, v, pv);
	assert_int_equal(cluster_kill(&c, daemon, SIGKILL), 0);
	t0 = mono_now();
	assert_int_equal(pvfs_unlink(pa), 0);
	assert_int_equal(pvfs_rename(pb, pv), 0);
	print_message("%s: unlink and rename with %s down: %.3f s\n", tag,
	    daemon, mono_now() - t0);
	assert_true(mono_now() - t0 < 2.0); /* nobody waited for the iod */
	assert_true(wait_up_stripes_gone(ino1, FREE_BOUND_MS) >= 0);
	assert_true(wait_up_stripes_gone(ino2, FREE_BOUND_MS) >= 0);
	assert_int_equal(cluster_stripe_exists(&c, DOWN_IOD, ino1), 1);
	assert_int_equal(cluster_stripe_exists(&c, DOWN_IOD, ino2), 1);
	if (restart_mgr)
		assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
	usleep(1000 * 1000); /* retries against the dead iod meanwhile */
	assert_int_equal(cluster_stripe_exists(&c, DOWN_IOD, ino1), 1);
	assert_int_equal(cluster_start_again(&c), 0);
	assert_true(wait_stripes_gone(ino1, BACK_BOUND_MS) >= 0);
	assert_true(wait_stripes_gone(ino2, BACK_BOUND_MS) >= 0);
	print_message("%s: the returned iod's stripes gone\n", tag);
	assert_int_equal(mgr_threads(), 1);
}

static void
test_iod_down(void **state)
{
	(void)state;
	iod_down_case("down", 0);
}

static void
test_iod_down_mgr_restart(void **state)
{
	(void)state;
	iod_down_case("restart", 1);
}

/* The mgr removes stripes from its event loop: one thread, after it has
 * freed files (the old worker thread started at start anyway). */
static void
test_one_thread(void **state)
{
	uint64_t ino;
	char path[PATH_MAX];

	(void)state;
	ino = make_file("t1", 0x7777);
	assert_int_equal(pvfs_unlink(cluster_path(&c, "t1", path)), 0);
	assert_true(wait_stripes_gone(ino, FREE_BOUND_MS) >= 0);
	assert_int_equal(mgr_threads(), 1);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlinked_by_another),
		cmocka_unit_test(test_renamed_over),
		cmocka_unit_test(test_holder_killed),
		cmocka_unit_test(test_mgr_restart),
		cmocka_unit_test(test_one_thread),
		cmocka_unit_test(test_iod_down),
		cmocka_unit_test(test_iod_down_mgr_restart),
	};

	if (argc == 3 && strcmp(argv[1], "--unlink") == 0)
		return child_unlink(argv[2]);
	if (argc == 4 && strcmp(argv[1], "--hold") == 0)
		return child_hold(argv[2], strtoull(argv[3], NULL, 10));
	if (realpath("/proc/self/exe", self) == NULL)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	setenv("PVFS_MGR_ORPHAN_GRACE", GRACE, 1);
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
