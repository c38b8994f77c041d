/*
 * test_cache.c - coherent client caching (issue 18, doc/design.md "Client
 * caching"): two client processes, this one (A) and a peer (B, this
 * program run again with --peer), each with its own cache of STAT
 * answers.  Every step of a sequence of changes made by one is checked by
 * the other right after (stat and lstat, both warmed before the change):
 * create, chmod, rename, unlink, recreate with the same name, mkdir and
 * rmdir, utimes, a rename of a directory above a cached path.  A peer
 * stopped with SIGSTOP while it holds promises delays a change by at most
 * the promise term (and by some of it: the promise is real); a mgr
 * restart drops every promise; a forked child does not trust its parent's
 * cache; a killed peer's promises end with its connection; a peer with
 * PVFS_CACHE=0 holds no promise.
 *
 *   test_cache          the tests
 *   test_cache --peer   the other client: one command a line on stdin
 *                       ("stat P", "chmod P MODE", ...), one answer a line
 *                       on stdout ("RC ERRNO INO MODE NLINK MTIME")
 */
#include <sys/time.h>
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "pvfs.h"
#include "cluster.h"

#define NIODS 2
#define TERM "1"        /* PVFS_MGR_CACHE_TERM, seconds */
#define TERM_MS 1000
#define REGISTER_MS 500 /* a client's CALLBACK registration, after its first stat */

static struct cluster c;
static char self[PATH_MAX];
static pid_t peer_pid;
static FILE *peer_in, *peer_out;
static int peer_nocache;        /* start the peer with PVFS_CACHE=0 */

struct res {
	int rc, err;
	uint64_t ino;
	unsigned mode, nlink;
	long long mtime;
};

/* ---- the peer ---- */

static void
peer_answer(int rc, const struct stat *st)
{
	if (rc != 0)
		printf("-1 %d 0 0 0 0\n", errno);
	else if (st != NULL)
		printf("0 0 %" PRIu64 " %o %u %lld\n", (uint64_t)st->st_ino,
		    (unsigned)st->st_mode, (unsigned)st->st_nlink,
		    (long long)st->st_mtime);
	else
		printf("0 0 0 0 0 0\n");
	fflush(stdout);
}

static int
peer_main(void)
{
	char line[2 * PATH_MAX], cmd[32], a[PATH_MAX], b[PATH_MAX];
	struct timeval tv[2];
	struct stat st;
	unsigned m;
	long long t;
	int fd, rc;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		a[0] = b[0] = '\0';
		if (sscanf(line, "%31s %4095s %4095s", cmd, a, b) < 2)
			return 2;
		rc = -1;
		errno = 0;
		if (strcmp(cmd, "stat") == 0) {
			peer_answer(pvfs_stat(a, &st), &st);
			continue;
		} else if (strcmp(cmd, "lstat") == 0) {
			peer_answer(pvfs_lstat(a, &st), &st);
			continue;
		} else if (strcmp(cmd, "chmod") == 0) {
			m = (unsigned)strtoul(b, NULL, 8);
			rc = pvfs_chmod(a, m);
		} else if (strcmp(cmd, "creat") == 0) {
			m = (unsigned)strtoul(b, NULL, 8);
			if ((fd = pvfs_creat(a, m)) >= 0)
				rc = pvfs_close(fd);
		} else if (strcmp(cmd, "rename") == 0) {
			rc = pvfs_rename(a, b);
		} else if (strcmp(cmd, "unlink") == 0) {
			rc = pvfs_unlink(a);
		} else if (strcmp(cmd, "mkdir") == 0) {
			rc = pvfs_mkdir(a, 0755);
		} else if (strcmp(cmd, "rmdir") == 0) {
			rc = pvfs_rmdir(a);
		} else if (strcmp(cmd, "utimes") == 0) {
			t = strtoll(b, NULL, 10);
			tv[0].tv_sec = tv[1].tv_sec = (time_t)t;
			tv[0].tv_usec = tv[1].tv_usec = 0;
			rc = pvfs_utimes(a, tv);
		} else
			return 2;
		peer_answer(rc, NULL);
	}
	return 0;
}

/* ---- A's side ---- */

static struct res
peer(const char *fmt, ...)
{
	char line[2 * PATH_MAX];
	struct res r;
	va_list ap;

	va_start(ap, fmt);
	vfprintf(peer_in, fmt, ap);
	va_end(ap);
	fputc('\n', peer_in);
	fflush(peer_in);
	memset(&r, 0, sizeof(r));
	if (fgets(line, sizeof(line), peer_out) == NULL ||
	    sscanf(line, "%d %d %" SCNu64 " %o %u %lld", &r.rc, &r.err, &r.ino,
	    &r.mode, &r.nlink, &r.mtime) != 6)
		fail_msg("the peer did not answer");
	return r;
}

static struct res
a_stat(const char *path, int l)
{
	struct stat st;
	struct res r;

	memset(&r, 0, sizeof(r));
	errno = 0;
	r.rc = l ? pvfs_lstat(path, &st) : pvfs_stat(path, &st);
	r.err = r.rc != 0 ? errno : 0;
	if (r.rc == 0) {
		r.ino = st.st_ino;
		r.mode = st.st_mode;
		r.nlink = st.st_nlink;
		r.mtime = st.st_mtime;
	}
	return r;
}

static const char *
P(const char *rel)
{
	static char buf[4][PATH_MAX];
	static int k;

	k = (k + 1) % 4;
	return cluster_path(&c, rel, buf[k]);
}

/* What both clients see of rel, each by stat and lstat. */
static void
expect_both(const char *rel, int err, unsigned mode, const char *what)
{
	struct res r[4];
	int i;

	r[0] = a_stat(P(rel), 0);
	r[1] = a_stat(P(rel), 1);
	r[2] = peer("stat %s", P(rel));
	r[3] = peer("lstat %s", P(rel));
	for (i = 0; i < 4; i++) {
		if (err != 0 && (r[i].rc == 0 || r[i].err != err))
			fail_msg("%s: %s %s of %s: rc %d errno %d, want errno %d",
			    what, i < 2 ? "A" : "B", i % 2 ? "lstat" : "stat", rel,
			    r[i].rc, r[i].err, err);
		if (err == 0 && (r[i].rc != 0 || r[i].mode != mode))
			fail_msg("%s: %s %s of %s: rc %d errno %d mode %o, want %o",
			    what, i < 2 ? "A" : "B", i % 2 ? "lstat" : "stat", rel,
			    r[i].rc, r[i].err, r[i].mode, mode);
	}
	if (err == 0 && (r[0].ino != r[2].ino || r[0].nlink != r[2].nlink ||
	    r[0].mtime != r[2].mtime))
		fail_msg("%s: A and B disagree on %s: ino %" PRIu64 "/%" PRIu64
		    " nlink %u/%u mtime %lld/%lld", what, rel, r[0].ino, r[2].ino,
		    r[0].nlink, r[2].nlink, r[0].mtime, r[2].mtime);
}

static void
ok(struct res r, const char *what)
{
	if (r.rc != 0)
		fail_msg("%s: errno %d", what, r.err);
}

static void
a_ok(int rc, const char *what)
{
	if (rc != 0)
		fail_msg("%s: %s", what, strerror(errno));
}

static int
peer_start(void **state)
{
	int in[2], out[2];
	struct stat st;

	(void)state;
	if (pipe(in) != 0 || pipe(out) != 0)
		return -1;
	if ((peer_pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		close(in[1]);
		close(out[0]);
		if (peer_nocache)
			setenv("PVFS_CACHE", "0", 1);
		execl(self, self, "--peer", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	/* Daemons a restart forks must not hold the peer's stdin open. */
	fcntl(in[1], F_SETFD, FD_CLOEXEC);
	fcntl(out[0], F_SETFD, FD_CLOEXEC);
	peer_in = fdopen(in[1], "w");
	peer_out = fdopen(out[0], "r");
	if (peer_pid < 0 || peer_in == NULL || peer_out == NULL)
		return -1;
	/* Both register their CALLBACK connections at their first stat. */
	if ((pvfs_mkdir(P("cache"), 0755) != 0 && errno != EEXIST) ||
	    pvfs_stat(P(""), &st) != 0)
		return -1;
	if (peer("stat %s", P("")).rc != 0)
		return -1;
	usleep(REGISTER_MS * 1000);
	return 0;
}

static int
peer_stop(void **state)
{
	int st;

	(void)state;
	fclose(peer_in);
	waitpid(peer_pid, &st, 0);
	fclose(peer_out);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* Every step by one client, checked by the other at once; each check
 * warms both caches for the next step. */
static void
test_two_clients(void **state)
{
	struct timeval tv[2];
	struct res r;
	uint64_t ino;
	int fd;

	(void)state;
	expect_both("cache/f", ENOENT, 0, "before create");
	a_ok((fd = pvfs_creat(P("cache/f"), 0644)) < 0 ? -1 : pvfs_close(fd),
	    "A create");
	expect_both("cache/f", 0, S_IFREG | 0644, "A created f");
	ok(peer("chmod %s 600", P("cache/f")), "B chmod");
	expect_both("cache/f", 0, S_IFREG | 0600, "B chmod f");
	a_ok(pvfs_chmod(P("cache/f"), 0640), "A chmod");
	expect_both("cache/f", 0, S_IFREG | 0640, "A chmod f");
	ino = a_stat(P("cache/f"), 0).ino;
	a_ok(pvfs_rename(P("cache/f"), P("cache/g")), "A rename");
	expect_both("cache/f", ENOENT, 0, "A renamed f");
	expect_both("cache/g", 0, S_IFREG | 0640, "A renamed to g");
	if (peer("stat %s", P("cache/g")).ino != ino)
		fail_msg("g is not f's inode after the rename");
	ok(peer("unlink %s", P("cache/g")), "B unlink");
	expect_both("cache/g", ENOENT, 0, "B unlinked g");
	ok(peer("creat %s 604", P("cache/g")), "B recreate");
	expect_both("cache/g", 0, S_IFREG | 0604, "B recreated g");
	if (a_stat(P("cache/g"), 0).ino == ino)
		fail_msg("the recreated g has the old inode");
	/* A renames over a name B has cached. */
	a_ok((fd = pvfs_creat(P("cache/h"), 0611)) < 0 ? -1 : pvfs_close(fd),
	    "A create h");
	expect_both("cache/h", 0, S_IFREG | 0611, "A created h");
	a_ok(pvfs_rename(P("cache/h"), P("cache/g")), "A rename over");
	expect_both("cache/g", 0, S_IFREG | 0611, "A renamed h over g");
	expect_both("cache/h", ENOENT, 0, "A renamed h away");
	/* Directories: a cached path below one that goes or moves. */
	a_ok(pvfs_mkdir(P("cache/d"), 0755), "A mkdir");
	expect_both("cache/d", 0, S_IFDIR | 0755, "A mkdir d");
	ok(peer("mkdir %s", P("cache/d/e")), "B mkdir e");
	ok(peer("creat %s 644", P("cache/d/e/x")), "B create x");
	expect_both("cache/d/e/x", 0, S_IFREG | 0644, "B created d/e/x");
	ok(peer("rename %s %s", P("cache/d/e"), P("cache/d/e2")), "B rename dir");
	expect_both("cache/d/e/x", ENOENT, 0, "B renamed d/e");
	expect_both("cache/d/e2/x", 0, S_IFREG | 0644, "B renamed d/e to e2");
	a_ok(pvfs_rename(P("cache/d/e2"), P("cache/d/e")), "A rename dir back");
	expect_both("cache/d/e2/x", ENOENT, 0, "A renamed d/e2");
	expect_both("cache/d/e/x", 0, S_IFREG | 0644, "A renamed e2 back");
	ok(peer("unlink %s", P("cache/d/e/x")), "B unlink x");
	ok(peer("rmdir %s", P("cache/d/e")), "B rmdir e");
	expect_both("cache/d/e", ENOENT, 0, "B rmdir d/e");
	expect_both("cache/d", 0, S_IFDIR | 0755, "B rmdir d/e, d");
	ok(peer("rmdir %s", P("cache/d")), "B rmdir d");
	expect_both("cache/d", ENOENT, 0, "B rmdir d");
	a_ok(pvfs_mkdir(P("cache/d"), 0700), "A mkdir again");
	expect_both("cache/d", 0, S_IFDIR | 0700, "A mkdir d again");
	/* Times. */
	ok(peer("utimes %s 1000000000", P("cache/g")), "B utimes");
	expect_both("cache/g", 0, S_IFREG | 0611, "B utimes g");
	if ((r = a_stat(P("cache/g"), 0)).mtime != 1000000000)
		fail_msg("A sees mtime %lld after B's utimes", r.mtime);
	tv[0].tv_sec = tv[1].tv_sec = 1200000000;
	tv[0].tv_usec = tv[1].tv_usec = 0;
	a_ok(pvfs_utimes(P("cache/g"), tv), "A utimes");
	if ((r = peer("stat %s", P("cache/g"))).mtime != 1200000000)
		fail_msg("B sees mtime %lld after A's utimes", r.mtime);
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A stopped holder: the change waits for its promise's term, no more. */
static void
test_stopped_peer(void **state)
{
	int64_t t0, el;
	int fd;

	(void)state;
	a_ok((fd = pvfs_creat(P("cache/s"), 0644)) < 0 ? -1 : pvfs_close(fd),
	    "A create s");
	expect_both("cache/s", 0, S_IFREG | 0644, "A created s");
	ok(peer("stat %s", P("cache/s")), "B stat s");
	if (kill(peer_pid, SIGSTOP) != 0)
		fail_msg("SIGSTOP: %s", strerror(errno));
	t0 = now_ms();
	a_ok(pvfs_chmod(P("cache/s"), 0600), "A chmod s");
	el = now_ms() - t0;
	kill(peer_pid, SIGCONT);
	printf("chmod with the peer stopped: %lld ms (term %d ms)\n",
	    (long long)el, TERM_MS);
	if (el < TERM_MS / 4)
		fail_msg("chmod took %lld ms: the peer held no promise",
		    (long long)el);
	if (el > TERM_MS + 3000)
		fail_msg("chmod took %lld ms, past the term", (long long)el);
	expect_both("cache/s", 0, S_IFREG | 0600, "A chmod s, B resumed");
	/* And at once when the peer answers. */
	t0 = now_ms();
	a_ok(pvfs_chmod(P("cache/s"), 0640), "A chmod s again");
	el = now_ms() - t0;
	if (el > TERM_MS / 2)
		fail_msg("chmod took %lld ms with the peer running", (long long)el);
	expect_both("cache/s", 0, S_IFREG | 0640, "A chmod s again");
}

/* A forked child does not use its parent's answers. */
static void
test_fork(void **state)
{
	struct res r;
	pid_t pid;
	int st, p[2];
	char ch;

	(void)state;
	expect_both("cache/s", 0, S_IFREG | 0640, "before fork");
	if (pipe(p) != 0)
		fail_msg("pipe");
	if ((pid = fork()) == 0) {
		close(p[1]);
		if (read(p[0], &ch, 1) != 1)
			_exit(3);
		r = a_stat(P("cache/s"), 0);
		_exit(r.rc == 0 && r.mode == (S_IFREG | 0604) ? 0 : 1);
	}
	close(p[0]);
	ok(peer("chmod %s 604", P("cache/s")), "B chmod s");
	if (write(p[1], "g", 1) != 1)
		fail_msg("write");
	close(p[1]);
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("the forked child saw a stale mode (status %d)", st);
	expect_both("cache/s", 0, S_IFREG | 0604, "after fork");
}

/* A mgr restart: every promise goes; the caches start again. */
static void
test_mgr_restart(void **state)
{
	(void)state;
	expect_both("cache/s", 0, S_IFREG | 0604, "before restart");
	if (cluster_restart(&c) != 0)
		fail_msg("restart");
	ok(peer("chmod %s 644", P("cache/s")), "B chmod after restart");
	expect_both("cache/s", 0, S_IFREG | 0644, "B chmod after restart");
	usleep(REGISTER_MS * 1000 * 3); /* both registered again */
	expect_both("cache/s", 0, S_IFREG | 0644, "registered again");
	a_ok(pvfs_chmod(P("cache/s"), 0600), "A chmod after restart");
	expect_both("cache/s", 0, S_IFREG | 0600, "A chmod after restart");
}

/* A killed holder: its connection's close ends its promises at once. */
static void
test_killed_peer(void **state)
{
	int64_t t0, el;
	int st;

	(void)state;
	expect_both("cache/s", 0, S_IFREG | 0600, "before kill");
	if (kill(peer_pid, SIGKILL) != 0)
		fail_msg("SIGKILL: %s", strerror(errno));
	waitpid(peer_pid, &st, 0);
	t0 = now_ms();
	a_ok(pvfs_chmod(P("cache/s"), 0606), "A chmod s");
	el = now_ms() - t0;
	if (el > TERM_MS / 2)
		fail_msg("chmod took %lld ms after the holder died", (long long)el);
	if (a_stat(P("cache/s"), 0).mode != (S_IFREG | 0606))
		fail_msg("A does not see its own chmod");
	a_ok(pvfs_chmod(P("cache/s"), 0600), "A chmod s back");
}

static int
peer_reap(void **state)
{
	(void)state;
	fclose(peer_in);
	fclose(peer_out);
	return 0;
}

/* A peer with its cache off holds no promise: nothing waits for it. */
static void
test_cache_off(void **state)
{
	int64_t t0, el;

	(void)state;
	expect_both("cache/s", 0, S_IFREG | 0600, "cache off");
	if (kill(peer_pid, SIGSTOP) != 0)
		fail_msg("SIGSTOP: %s", strerror(errno));
	t0 = now_ms();
	a_ok(pvfs_chmod(P("cache/s"), 0644), "A chmod s");
	el = now_ms() - t0;
	kill(peer_pid, SIGCONT);
	if (el > TERM_MS / 2)
		fail_msg("chmod took %lld ms: the peer without a cache held a "
		    "promise", (long long)el);
	expect_both("cache/s", 0, S_IFREG | 0644, "cache off, A chmod");
}

static int
peer_start_nocache(void **state)
{
	peer_nocache = 1;
	return peer_start(state);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_two_clients, peer_start),
		cmocka_unit_test(test_stopped_peer),
		cmocka_unit_test(test_fork),
		cmocka_unit_test_teardown(test_mgr_restart, peer_stop),
		cmocka_unit_test_setup_teardown(test_killed_peer, peer_start,
		    peer_reap),
		cmocka_unit_test_setup_teardown(test_cache_off, peer_start_nocache,
		    peer_stop),
	};

	umask(022);
	if (argc == 2 && strcmp(argv[1], "--peer") == 0)
		return peer_main();
	if (realpath("/proc/self/exe", self) == NULL)
		return 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	setenv("PVFS_MGR_CACHE_TERM", TERM, 1);
	return cluster_run_tests(&c, NIODS, NULL, tests);
}
