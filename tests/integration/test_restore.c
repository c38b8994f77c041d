/*
 * test_restore.c - no file ever reads another file's old bytes (issue 12):
 * user A writes private files, an online backup is taken, A writes more,
 * the backup is restored (the inode counter rolls back), and user B's new
 * files, which get A's lost inode numbers, read only B's bytes or nothing.
 * Then pvfs-fsck lists A's stranded stripes as orphans, although their
 * inode numbers are below the restored counter or live again, and removes
 * them with --repair.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cluster.h"
#include "pvfs.h"

#define UA 1001
#define UB 1002
#define NA 6          /* A's files written after the backup */
#define NB 12         /* B's files after the restore */
#define ASIZE 150000  /* over two stripes: both iods hold some */

static struct cluster c;
static uint64_t a_inos[NA];

/* Run fn as uid (and gid uid) in a child, with a connection of its own. */
static int
as_user(uid_t uid, int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	gid_t g = uid;
	int status;

	if (pid == 0) {
		if (setgroups(1, &g) != 0 || setresgid(g, g, g) != 0 ||
		    setresuid(uid, uid, uid) != 0)
			_exit(3);
		_exit(fn(arg) == 0 ? 0 : 1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int
write_file(const char *path, int byte, size_t len, mode_t mode)
{
	char *buf = malloc(len);
	int fd = pvfs_open(path, O_CREAT | O_EXCL | O_WRONLY, mode), rc = -1;

	memset(buf, byte, len);
	if (fd >= 0 && pvfs_write(fd, buf, len) == (ssize_t)len)
		rc = pvfs_close(fd);
	free(buf);
	if (rc != 0)
		fprintf(stderr, "write %s: %s\n", path, strerror(errno));
	return rc;
}

/* The whole file holds exactly len bytes of byte. */
static int
file_is(const char *path, int byte, size_t len)
{
	size_t cap = 4 * ASIZE, i;
	char *buf = malloc(cap);
	int fd = pvfs_open(path, O_RDONLY), rc = -1;
	struct stat st;
	ssize_t n;

	if (fd >= 0 && pvfs_fstat(fd, &st) == 0 && (size_t)st.st_size == len &&
	    (n = pvfs_pread(fd, buf, cap, 0)) == (ssize_t)len) {
		for (i = 0; i < len && buf[i] == byte; i++)
			;
		rc = i == len ? 0 : -1;
	}
	if (rc != 0)
		fprintf(stderr, "%s: not %zu bytes of '%c' (size %lld)\n", path,
		    len, byte, fd >= 0 ? (long long)st.st_size : -1LL);
	if (fd >= 0)
		pvfs_close(fd);
	free(buf);
	return rc;
}

static int
a_before(void *arg)
{
	(void)arg;
	return write_file("/pvfs/home/a-kept", 'A', ASIZE, 0600);
}

static int
a_after(void *arg)
{
	char path[64];
	int i;

	(void)arg;
	for (i = 0; i < NA; i++) {
		snprintf(path, sizeof(path), "/pvfs/home/a-lost%d", i);
		if (write_file(path, 'A', ASIZE, 0600) != 0)
			return -1;
	}
	return 0;
}

static int
a_reads_own(void *arg)
{
	(void)arg;
	return file_is("/pvfs/home/a-kept", 'A', ASIZE);
}

/* B's new files: nothing in them until B writes, then only B's bytes. */
static int
b_new_files(void *arg)
{
	uint64_t *inos = arg;
	struct stat st;
	char path[64];
	int i, fd;

	for (i = 0; i < NB; i++) {
		snprintf(path, sizeof(path), "/pvfs/home/b%d", i);
		if ((fd = pvfs_open(path, O_CREAT | O_EXCL | O_RDWR, 0644)) < 0 ||
		    pvfs_fstat(fd, &st) != 0)
			return -1;
		inos[i] = st.st_ino;
		pvfs_close(fd);
		if (file_is(path, 'B', 0) != 0)
			return -1;
		if ((fd = pvfs_open(path, O_WRONLY)) < 0 ||
		    pvfs_pwrite(fd, "BBBBBBBBBB", 10, 0) != 10 || pvfs_close(fd) != 0)
			return -1;
		if (file_is(path, 'B', 10) != 0)
			return -1;
	}
	return 0;
}

static void
run(const char *cmd, int want, char *out, size_t outlen)
{
	FILE *f = popen(cmd, "r");
	size_t n;
	int status;

	assert_non_null(f);
	n = fread(out, 1, outlen - 1, f);
	out[n] = '\0';
	status = pclose(f);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != want)
		fail_msg("%s: exit %d, want %d: %s", cmd, WEXITSTATUS(status), want,
		    out);
}

static void
test_restore_never_leaks(void **state)
{
	char cmd[4 * PATH_MAX], out[16384], want[128];
	const char *b = getenv("PVFS_BUILDDIR");
	uint64_t b_inos[NB];
	struct stat st;
	int i, k, reused = 0;
	uint64_t *shared;

	(void)state;
	check_ok(pvfs_mkdir("/pvfs/home", 0777));
	check_ok(pvfs_chmod("/pvfs/home", 01777));
	assert_int_equal(as_user(UA, a_before, NULL), 0);
	snprintf(cmd, sizeof(cmd), "%s/pvfs-mgr -d %s/meta --backup %s/bk 2>&1",
	    b, c.dir, c.dir);
	run(cmd, 0, out, sizeof(out));
	assert_int_equal(as_user(UA, a_after, NULL), 0);
	for (i = 0; i < NA; i++) {
		snprintf(cmd, sizeof(cmd), "/pvfs/home/a-lost%d", i);
		check_ok(pvfs_stat(cmd, &st));
		a_inos[i] = st.st_ino;
	}

	/* Restore as doc/administration.md says. */
	assert_int_equal(cluster_stop(&c), 0);
	snprintf(cmd, sizeof(cmd), "mv %s/meta %s/meta.old && %s/pvfs-mgr -d "
	    "%s/meta --restore %s/bk 2>&1", c.dir, c.dir, b, c.dir, c.dir);
	run(cmd, 0, out, sizeof(out));
	assert_int_equal(cluster_start_again(&c), 0);
	assert_errno(pvfs_stat("/pvfs/home/a-lost0", &st), ENOENT);

	/* B's files get A's lost numbers, and never A's bytes. */
	shared = mmap(NULL, sizeof(b_inos), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(shared != MAP_FAILED);
	assert_int_equal(as_user(UB, b_new_files, shared), 0);
	memcpy(b_inos, shared, sizeof(b_inos));
	munmap(shared, sizeof(b_inos));
	for (i = 0; i < NB; i++)
		for (k = 0; k < NA; k++)
			reused += b_inos[i] == a_inos[k];
	assert_true(reused >= NA); /* the counter did roll back */
	assert_int_equal(as_user(UA, a_reads_own, NULL), 0);

	/* fsck: A's stranded stripes are orphans, whatever the counter says. */
	snprintf(cmd, sizeof(cmd), "%s/pvfs-fsck /pvfs 2>&1", b);
	run(cmd, 4, out, sizeof(out));
	for (k = 0; k < NA; k++) {
		snprintf(want, sizeof(want), "inode %llu ",
		    (unsigned long long)a_inos[k]);
		if (strstr(out, want) == NULL)
			fail_msg("fsck did not list %s: %s", want, out);
	}
	snprintf(cmd, sizeof(cmd), "%s/pvfs-fsck --repair /pvfs 2>&1", b);
	run(cmd, 1, out, sizeof(out));
	snprintf(cmd, sizeof(cmd), "%s/pvfs-fsck /pvfs 2>&1", b);
	run(cmd, 0, out, sizeof(out));
	assert_int_equal(as_user(UA, a_reads_own, NULL), 0);
	for (i = 0; i < NB; i++) {
		snprintf(cmd, sizeof(cmd), "/pvfs/home/b%d", i);
		assert_int_equal(file_is(cmd, 'B', 10), 0);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_restore_never_leaks),
	};

	if (geteuid() != 0) {
		fprintf(stderr, "test_restore: needs root to act as two users\n");
		return 77;
	}
	return cluster_run_tests(&c, 2, NULL, tests);
}
