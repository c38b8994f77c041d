/*
 * test_crash.c - the mgr SIGKILLed while a client creates files as fast as
 * it can: every create that was acknowledged survives, nothing is
 * duplicated or half-made, and inode numbers keep growing.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
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
#define CYCLES 5
#define MAX_PER_CYCLE 1000000

static struct cluster c;
static struct rng rng;

/* The directory the tests work in. */
static int
group_ready(void)
{
	return pvfs_mkdir("/pvfs/crash", 0755) < 0 ? -1 : 0;
}

/* Per cycle: which indices were acknowledged. */
struct cycle {
	unsigned char *acked; /* [MAX_PER_CYCLE] */
	int nacked, last;     /* count, highest acknowledged index (-1) */
	int child_errno;
};

static void
name_of(char *buf, size_t len, int cycle, int i)
{
	snprintf(buf, len, "/pvfs/crash/c%d_%d", cycle, i);
}

/* Child: create c<cycle>_0, _1, ... and report each acknowledged index on
 * fd; on the first failure report -1 and the errno. */
static void
creator_child(int cycle, int fd)
{
	char path[64];
	int rec[2];

	for (int i = 0; i < MAX_PER_CYCLE; i++) {
		name_of(path, sizeof(path), cycle, i);
		int f = pvfs_open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);

		if (f < 0) {
			rec[0] = -1;
			rec[1] = errno;
			if (write(fd, rec, sizeof(rec)) < 0)
				_exit(3);
			_exit(0);
		}
		if (write(fd, &i, sizeof(i)) != sizeof(i))
			_exit(3);
		pvfs_close(f);
	}
	_exit(2);
}

static void
drain(int fd, struct cycle *cy, int *pending_err)
{
	static int buf[4096];
	static size_t have;
	ssize_t n;

	while ((n = read(fd, (char *)buf + have, sizeof(buf) - have)) > 0) {
		size_t k = 0;

		have += (size_t)n;
		while (have - k * sizeof(int) >= sizeof(int)) {
			int v = buf[k];

			if (*pending_err) {
				cy->child_errno = v;
				*pending_err = 0;
			} else if (v == -1) {
				*pending_err = 1;
			} else if (v >= 0 && v < MAX_PER_CYCLE) {
				cy->acked[v] = 1;
				cy->nacked++;
				if (v > cy->last)
					cy->last = v;
			}
			k++;
		}
		memmove(buf, buf + k, have - k * sizeof(int));
		have -= k * sizeof(int);
	}
}

static void
run_cycle(int cycle, struct cycle *cy, int kill_ms)
{
	int pfd[2], status = 0, pending_err = 0, killed = 0;
	double t0, deadline;
	pid_t pid;

	cy->acked = calloc(MAX_PER_CYCLE, 1);
	cy->last = -1;
	cy->child_errno = 0;
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pfd[0]);
		creator_child(cycle, pfd[1]);
	}
	close(pfd[1]);
	assert_int_equal(fcntl(pfd[0], F_SETFL, O_NONBLOCK), 0);
	t0 = mono_now();
	deadline = t0 + 30;
	for (;;) {
		struct pollfd p = {pfd[0], POLLIN, 0};

		poll(&p, 1, 10);
		drain(pfd[0], cy, &pending_err);
		if (!killed && mono_now() - t0 >= kill_ms / 1000.0) {
			assert_int_equal(cluster_kill(&c, "mgr", SIGKILL), 0);
			killed = 1;
		}
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		if (mono_now() > deadline) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("cycle %d: the creator did not fail within 30 s "
			    "of the mgr's death (hang?)", cycle);
		}
	}
	drain(pfd[0], cy, &pending_err);
	close(pfd[0]);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("cycle %d: creator status 0x%x", cycle, status);
	if (!killed)
		fail_msg("cycle %d: the creator failed before the kill: %s",
		    cycle, strerror(cy->child_errno));
	print_message("cycle %d: %d creates acknowledged in %d ms, then %s\n",
	    cycle, cy->nacked, kill_ms, strerror(cy->child_errno));
	assert_true(cy->nacked > 0);
	assert_int_equal(cy->nacked, cy->last + 1);
}

/* After the mgr is back: names, stats, no duplicates; returns max ino. */
static ino_t
check_all(struct cycle *cys, int ncycles)
{
	unsigned char *seen[CYCLES];
	char path[PATH_MAX];
	ino_t maxino = 0;
	struct dirent *de;
	struct stat st;
	PVFS_DIR *d;

	for (int k = 0; k < ncycles; k++) {
		seen[k] = calloc(MAX_PER_CYCLE, 1);
		for (int i = 0; i <= cys[k].last; i++) {
			name_of(path, sizeof(path), k, i);
			if (pvfs_stat(path, &st) < 0)
				fail_msg("acknowledged %s is lost: %s", path,
				    strerror(errno));
			assert_true(S_ISREG(st.st_mode));
			assert_int_equal(st.st_size, 0);
		}
	}
	d = pvfs_opendir("/pvfs/crash");
	if (d == NULL)
		fail_msg("opendir: %s", strerror(errno));
	while ((errno = 0, de = pvfs_readdir(d)) != NULL) {
		int k, i;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "/pvfs/crash/%s", de->d_name);
		if (pvfs_stat(path, &st) < 0)
			fail_msg("entry %s does not stat: %s", path,
			    strerror(errno));
		if (st.st_ino > maxino)
			maxino = st.st_ino;
		if (sscanf(de->d_name, "c%d_%d", &k, &i) != 2)
			continue; /* "after" files */
		if (k < 0 || k >= ncycles || i < 0 || i >= MAX_PER_CYCLE)
			fail_msg("unexpected entry %s", de->d_name);
		if (seen[k][i]++)
			fail_msg("readdir lists %s twice", de->d_name);
		/* One create at most was in flight when the mgr died. */
		if (i > cys[k].last + 1)
			fail_msg("%s exists but the client never got that far "
			    "(last acknowledged %d)", de->d_name, cys[k].last);
	}
	if (errno != 0)
		fail_msg("readdir: %s", strerror(errno));
	check_ok(pvfs_closedir(d));
	for (int k = 0; k < ncycles; k++) {
		for (int i = 0; i <= cys[k].last; i++)
			if (!seen[k][i])
				fail_msg("readdir misses acknowledged c%d_%d",
				    k, i);
		free(seen[k]);
	}
	return maxino;
}

static void
test_mgr_sigkill_during_creates(void **state)
{
	struct cycle cys[CYCLES];
	char path[64];
	struct stat st;
	ino_t maxino;

	memset(cys, 0, sizeof(cys));
	for (int k = 0; k < CYCLES; k++) {
		int kill_ms = k == 0 ? 300 : (int)rng_range(&rng, 50, 600);

		run_cycle(k, &cys[k], kill_ms);
		assert_int_equal(cluster_start_again(&c), 0);
		maxino = check_all(cys, k + 1);
		/* New files work and get new inode numbers. */
		snprintf(path, sizeof(path), "/pvfs/crash/after%d", k);
		check_ok(pvfs_close(check_ok(pvfs_open(path, O_CREAT | O_EXCL |
		    O_WRONLY, 0644))));
		check_ok(pvfs_stat(path, &st));
		if (st.st_ino <= maxino)
			fail_msg("new file got inode %" PRIu64 ", not above %"
			    PRIu64, (uint64_t)st.st_ino, (uint64_t)maxino);
	}
	/* A clean restart on top keeps it all. */
	assert_int_equal(cluster_restart(&c), 0);
	maxino = check_all(cys, CYCLES);
	assert_true(maxino >= st.st_ino);
	for (int k = 0; k < CYCLES; k++)
		free(cys[k].acked);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mgr_sigkill_during_creates),
	};

	rng_init(&rng, "test_crash");
	return cluster_run_tests(&c, NIODS, group_ready, tests);
}
