/*
 * test_vanish.c - clients killed mid-request (SIGKILL during a 64 MiB
 * write, a 64 MiB read, or a burst of metadata requests) leave the daemons
 * healthy: every daemon's descriptor count returns to what it was, its RSS
 * stays within a small bound, the data reads back byte for byte and a new
 * client is served.  PVFS_VANISH_ROUNDS sets the number of kills (30).
 */
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"
#include "procinfo.h"

#define NIODS 2
#define BIG (64u << 20)
/* RSS growth allowed: the allocator and libev's arrays settle within
 * 2 MiB; an iod also touches its 4 MiB shared write buffer lazily, as far
 * as the largest receive so far reached. */
#ifdef __SANITIZE_ADDRESS__
#define RSS_SLACK_KB 8192 /* ASan's quarantine holds freed blocks too */
#else
#define RSS_SLACK_KB 2048
#endif
#define IOD_XBUF_KB 4096

static struct cluster c;
static struct rng rng;
static uint64_t seed;
static unsigned char *big;
static const char *daemons[] = { "mgr", "iod0", "iod1" };
#define NDAEMONS 3

struct usage {
	int fds;
	long rss_kb;
};

/* Under ASan the daemons, being daemonized, would print a leak report to
 * /dev/null at exit: send their reports to files and fail on any. */
#ifdef __SANITIZE_ADDRESS__
static char san_dir[64];

static int
san_log_setup(void)
{
	const char *old = getenv("ASAN_OPTIONS");
	char opts[1024];

	snprintf(san_dir, sizeof(san_dir), "/tmp/pvfs-vanish-san.XXXXXX");
	if (mkdtemp(san_dir) == NULL)
		return -1;
	snprintf(opts, sizeof(opts), "%s%slog_path=%s/daemon",
	    old != NULL ? old : "", old != NULL && *old ? ":" : "", san_dir);
	return setenv("ASAN_OPTIONS", opts, 1);
}

/* 0 if no daemon wrote a report; removes the reports either way. */
static int
san_log_check(void)
{
	char path[PATH_MAX], line[512];
	struct dirent *e;
	int bad = 0;
	DIR *d;
	FILE *f;

	if (san_dir[0] == '\0' || (d = opendir(san_dir)) == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", san_dir, e->d_name);
		if ((f = fopen(path, "r")) != NULL) {
			while (fgets(line, sizeof(line), f) != NULL)
				fputs(line, stderr);
			fclose(f);
		}
		bad = 1;
		unlink(path);
	}
	closedir(d);
	rmdir(san_dir);
	return bad ? -1 : 0;
}
#else
static int san_log_setup(void) { return 0; }
static int san_log_check(void) { return 0; }
#endif

static int
group_setup(void **state)
{
	int fd;

	rng_init(&rng, "test_vanish");
	seed = rng_next(&rng);
	if (san_log_setup() != 0 || (big = malloc(BIG)) == NULL ||
	    cluster_start(&c, NIODS) < 0)
		return -1;
	pattern_fill(big, BIG, 0, seed);
	fd = pvfs_open("/pvfs/big", O_CREAT | O_RDWR, 0644);
	if (fd < 0 || pvfs_pwrite(fd, big, BIG, 0) != (ssize_t)BIG ||
	    pvfs_close(fd) != 0)
		return -1;
	return 0;
}

/* After the daemons exited: under ASan, their leak reports. */
static int
group_teardown(void **state)
{
	int rc = cluster_stop(&c);

	free(big);
	if (san_log_check() != 0) {
		fprintf(stderr, "test_vanish: a daemon reported leaks or "
		    "errors (above)\n");
		rc = -1;
	}
	return rc;
}

/* The child's endless work: rewriting the same bytes keeps the file's
 * expected content, so a kill at any point leaves it checkable. */
static void
__attribute__((noreturn)) child_work(int mode)
{
	char name[64];
	int fd;

	if (mode == 2) {
		for (unsigned i = 0;; i++) {
			snprintf(name, sizeof(name), "/pvfs/m%d.%u",
			    (int)getpid(), i);
			if ((fd = pvfs_open(name, O_CREAT | O_RDWR, 0644)) >= 0)
				pvfs_close(fd);
			pvfs_unlink(name);
		}
	}
	if ((fd = pvfs_open("/pvfs/big", O_RDWR)) < 0)
		_exit(1);
	for (;;) {
		if (mode == 0)
			pvfs_pwrite(fd, big, BIG, 0);
		else
			pvfs_pread(fd, big, BIG, 0);
	}
}

static void
measure(struct usage *u)
{
	for (int i = 0; i < NDAEMONS; i++) {
		pid_t pid = proc_daemon_pid(&c, daemons[i]);

		u[i].fds = proc_fd_count(pid);
		u[i].rss_kb = proc_rss_kb(pid);
		assert_true(u[i].fds > 0 && u[i].rss_kb > 0);
	}
}

static void
vanish_once(int mode)
{
	pid_t pid;
	int status;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		child_work(mode);
	usleep((useconds_t)rng_range(&rng, 20000, 300000));
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status))
		fail_msg("child (mode %d) ended by itself: status %d", mode,
		    status);
}

/* Daemons see the resets asynchronously: wait until each is back to its
 * baseline descriptor count (up to 10 s). */
static void
settle(const struct usage *base, struct usage *now)
{
	double t0 = mono_now();
	int ok;

	do {
		usleep(50000);
		measure(now);
		ok = 1;
		for (int i = 0; i < NDAEMONS; i++)
			ok &= now[i].fds <= base[i].fds;
	} while (!ok && mono_now() - t0 < 10);
}

/* Transfers the iods saw cut off: proof the kills hit mid-request. */
static int
cut_transfers(void)
{
	char path[PATH_MAX + 64], line[1024];
	int n = 0;
	FILE *f;

	for (int k = 0; k < NIODS; k++) {
		snprintf(path, sizeof(path), "%s/run/iod%d.log", c.dir, k);
		if ((f = fopen(path, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL)
			n += strstr(line, "mid-stream") != NULL ||
			    strstr(line, "closed: sendfile") != NULL;
		fclose(f);
	}
	return n;
}

static void
test_killed_clients_leak_nothing(void **state)
{
	struct usage base[NDAEMONS], now[NDAEMONS];
	const char *rounds_env = getenv("PVFS_VANISH_ROUNDS");
	int rounds = rounds_env ? atoi(rounds_env) : 30, fd;
	unsigned char *back;

	/* Warm-up: one kill of each kind, so that buffers the daemons keep
	 * for good (the iod's 4 MiB write buffer, libev arrays) exist. */
	for (int mode = 0; mode < 3; mode++)
		vanish_once(mode);
	sleep(1);
	measure(base);
	for (int r = 0; r < rounds; r++)
		vanish_once(r % 3);
	settle(base, now);
	for (int i = 0; i < NDAEMONS; i++) {
		print_message("figure vanish %s: %d kills: fds %d -> %d, "
		    "RSS %ld -> %ld KiB\n", daemons[i], rounds, base[i].fds,
		    now[i].fds, base[i].rss_kb, now[i].rss_kb);
		assert_int_equal(now[i].fds, base[i].fds);
		assert_true(now[i].rss_kb <= base[i].rss_kb + RSS_SLACK_KB +
		    (i > 0 ? IOD_XBUF_KB : 0));
	}
	print_message("figure vanish: %d transfers cut by the kills\n",
	    cut_transfers());
	assert_true(cut_transfers() > 0);
	/* The data is whole and a new client is served. */
	assert_non_null(back = malloc(BIG));
	fd = check_ok(pvfs_open("/pvfs/big", O_RDONLY));
	assert_int_equal(check_ok(pvfs_pread(fd, back, BIG, 0)), (long)BIG);
	assert_true(pattern_check(back, BIG, 0, seed) < 0);
	check_ok(pvfs_close(fd));
	free(back);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_killed_clients_leak_nothing),
	};
	int rc;

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown);
	return cluster_finish(&c, rc);
}
