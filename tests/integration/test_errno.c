/*
 * test_errno.c - every failure has its POSIX errno: ENOENT, EEXIST, ENOTDIR,
 * EISDIR, ENOTEMPTY, EACCES/EPERM (as a non-owner), EBADF, ENAMETOOLONG,
 * EINVAL (bad distributions and renames).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
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
#define NOBODY 65534

static struct cluster c;

/* A small tree the tests share. */
static int
group_ready(void)
{
	if (pvfs_mkdir("/pvfs/dir", 0755) < 0 ||
	    pvfs_mkdir("/pvfs/dir/sub", 0755) < 0)
		return -1;
	int fd = pvfs_open("/pvfs/file", O_CREAT | O_WRONLY, 0644);

	if (fd < 0 || pvfs_write(fd, "content", 7) != 7 || pvfs_close(fd) < 0)
		return -1;
	fd = pvfs_creat("/pvfs/dir/sub/f", 0644);
	if (fd < 0 || pvfs_close(fd) < 0)
		return -1;
	return 0;
}

static void
test_enoent(void **state)
{
	struct stat st;

	assert_errno(pvfs_open("/pvfs/missing", O_RDONLY), ENOENT);
	assert_errno(pvfs_open("/pvfs/missing", O_RDWR), ENOENT);
	assert_errno(pvfs_open("/pvfs/nodir/f", O_CREAT | O_WRONLY, 0644), ENOENT);
	assert_errno(pvfs_stat("/pvfs/missing", &st), ENOENT);
	assert_errno(pvfs_lstat("/pvfs/dir/missing", &st), ENOENT);
	assert_errno(pvfs_unlink("/pvfs/missing"), ENOENT);
	assert_errno(pvfs_rmdir("/pvfs/missing"), ENOENT);
	assert_errno(pvfs_mkdir("/pvfs/nodir/x", 0755), ENOENT);
	assert_errno(pvfs_rename("/pvfs/missing", "/pvfs/x"), ENOENT);
	assert_errno(pvfs_rename("/pvfs/file", "/pvfs/nodir/x"), ENOENT);
	assert_errno(pvfs_truncate("/pvfs/missing", 0), ENOENT);
	assert_errno(pvfs_chmod("/pvfs/missing", 0644), ENOENT);
	assert_errno(pvfs_chown("/pvfs/missing", 0, 0), ENOENT);
	assert_errno(pvfs_utimes("/pvfs/missing", NULL), ENOENT);
	assert_errno(pvfs_access("/pvfs/missing", F_OK), ENOENT);
	errno = 0;
	assert_null(pvfs_opendir("/pvfs/missing"));
	assert_int_equal(errno, ENOENT);
	/* The source survived the failed rename. */
	check_ok(pvfs_stat("/pvfs/file", &st));
	assert_int_equal(st.st_size, 7);
}

static void
test_eexist(void **state)
{
	assert_errno(pvfs_open("/pvfs/file", O_CREAT | O_EXCL | O_RDWR, 0644),
	    EEXIST);
	assert_errno(pvfs_open("/pvfs/dir", O_CREAT | O_EXCL | O_RDWR, 0644),
	    EEXIST);
	assert_errno(pvfs_mkdir("/pvfs/dir", 0755), EEXIST);
	assert_errno(pvfs_mkdir("/pvfs/file", 0755), EEXIST);
	assert_errno(pvfs_mkdir("/pvfs", 0755), EEXIST);
	/* O_CREAT alone opens the existing file and keeps its bytes. */
	int fd = check_ok(pvfs_open("/pvfs/file", O_CREAT | O_RDWR, 0644));
	struct stat st;

	check_ok(pvfs_fstat(fd, &st));
	assert_int_equal(st.st_size, 7);
	check_ok(pvfs_close(fd));
}

static void
test_enotdir(void **state)
{
	struct stat st;

	assert_errno(pvfs_stat("/pvfs/file/x", &st), ENOTDIR);
	assert_errno(pvfs_open("/pvfs/file/x", O_RDONLY), ENOTDIR);
	assert_errno(pvfs_open("/pvfs/file/x", O_CREAT | O_WRONLY, 0644), ENOTDIR);
	assert_errno(pvfs_mkdir("/pvfs/file/x", 0755), ENOTDIR);
	assert_errno(pvfs_rmdir("/pvfs/file"), ENOTDIR);
	assert_errno(pvfs_rename("/pvfs/dir/sub", "/pvfs/file"), ENOTDIR);
	errno = 0;
	assert_null(pvfs_opendir("/pvfs/file"));
	assert_int_equal(errno, ENOTDIR);
	check_ok(pvfs_stat("/pvfs/dir/sub", &st));
	assert_true(S_ISDIR(st.st_mode));
}

static void
test_eisdir(void **state)
{
	struct stat st;

	assert_errno(pvfs_open("/pvfs/dir", O_WRONLY), EISDIR);
	assert_errno(pvfs_open("/pvfs/dir", O_RDWR), EISDIR);
	assert_errno(pvfs_open("/pvfs/dir", O_RDWR | O_CREAT, 0644), EISDIR);
	assert_errno(pvfs_unlink("/pvfs/dir/sub"), EISDIR);
	assert_errno(pvfs_rename("/pvfs/file", "/pvfs/dir/sub"), EISDIR);
	assert_errno(pvfs_truncate("/pvfs/dir", 0), EISDIR);
	check_ok(pvfs_stat("/pvfs/dir/sub/f", &st));
}

static void
test_enotempty(void **state)
{
	struct stat st;

	assert_errno(pvfs_rmdir("/pvfs/dir/sub"), ENOTEMPTY);
	assert_errno(pvfs_rmdir("/pvfs/dir"), ENOTEMPTY);
	check_ok(pvfs_mkdir("/pvfs/other", 0755));
	/* Linux says ENOTEMPTY, POSIX allows EEXIST. */
	errno = 0;
	assert_int_equal(pvfs_rename("/pvfs/other", "/pvfs/dir/sub"), -1);
	if (errno != ENOTEMPTY && errno != EEXIST)
		fail_msg("rename onto a non-empty dir: errno %d (%s)", errno,
		    strerror(errno));
	check_ok(pvfs_stat("/pvfs/dir/sub/f", &st));
	check_ok(pvfs_rmdir("/pvfs/other"));
}

/* Run as nobody in a child; each failed expectation is written to out. */
static int
nobody_checks(FILE *out)
{
	int bad = 0, fd;
	char buf[16];
	struct stat st;

#define EXPECT_ERR(expr, err1, err2)                                           \
	do {                                                                   \
		errno = 0;                                                     \
		long r_ = (long)(expr);                                        \
		if (r_ != -1 || (errno != (err1) && errno != (err2))) {        \
			fprintf(out, "%s = %ld errno %d (%s), expected %s\n",  \
			    #expr, r_, errno, strerror(errno), #err1);         \
			bad++;                                                 \
		}                                                              \
	} while (0)

	EXPECT_ERR(pvfs_open("/pvfs/acc/secret", O_RDONLY), EACCES, EACCES);
	EXPECT_ERR(pvfs_open("/pvfs/acc/pub", O_WRONLY), EACCES, EACCES);
	EXPECT_ERR(pvfs_open("/pvfs/acc/new", O_CREAT | O_WRONLY, 0644), EACCES,
	    EACCES);
	EXPECT_ERR(pvfs_mkdir("/pvfs/acc/newdir", 0755), EACCES, EACCES);
	EXPECT_ERR(pvfs_unlink("/pvfs/acc/pub"), EACCES, EACCES);
	EXPECT_ERR(pvfs_rename("/pvfs/acc/pub", "/pvfs/acc/pub2"), EACCES,
	    EACCES);
	EXPECT_ERR(pvfs_truncate("/pvfs/acc/pub", 0), EACCES, EACCES);
	EXPECT_ERR(pvfs_stat("/pvfs/acc/private/f", &st), EACCES, EACCES);
	EXPECT_ERR(pvfs_chmod("/pvfs/acc/pub", 0777), EPERM, EPERM);
	EXPECT_ERR(pvfs_chown("/pvfs/acc/pub", NOBODY, NOBODY), EPERM, EPERM);
	EXPECT_ERR(pvfs_access("/pvfs/acc/secret", R_OK), EACCES, EACCES);
	/* Sticky directory: own files only. */
	EXPECT_ERR(pvfs_unlink("/pvfs/sticky/roots"), EPERM, EACCES);
	/* What nobody may do works, so the checks above are not vacuous. */
	fd = pvfs_open("/pvfs/acc/pub", O_RDONLY);
	if (fd < 0 || pvfs_read(fd, buf, sizeof(buf)) != 6 ||
	    memcmp(buf, "public", 6) != 0) {
		fprintf(out, "nobody cannot read /pvfs/acc/pub: %s\n",
		    strerror(errno));
		bad++;
	}
	if (fd >= 0)
		pvfs_close(fd);
	fd = pvfs_open("/pvfs/sticky/mine", O_CREAT | O_WRONLY, 0600);
	if (fd < 0 || pvfs_fstat(fd, &st) < 0 || st.st_uid != NOBODY) {
		fprintf(out, "nobody cannot create in /pvfs/sticky or gets the "
		    "wrong owner: %s\n", strerror(errno));
		bad++;
	} else {
		pvfs_close(fd);
		if (pvfs_unlink("/pvfs/sticky/mine") < 0) {
			fprintf(out, "nobody cannot unlink its own file: %s\n",
			    strerror(errno));
			bad++;
		}
	}
	return bad;
#undef EXPECT_ERR
}

static void
test_eacces_as_nobody(void **state)
{
	int fd, pfd[2], status;
	char report[4096];
	ssize_t n;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	check_ok(pvfs_mkdir("/pvfs/acc", 0755));
	check_ok(pvfs_mkdir("/pvfs/acc/private", 0700));
	check_ok(pvfs_close(check_ok(pvfs_creat("/pvfs/acc/private/f", 0644))));
	fd = check_ok(pvfs_open("/pvfs/acc/secret", O_CREAT | O_WRONLY, 0600));
	check_ok(pvfs_write(fd, "secret", 6));
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open("/pvfs/acc/pub", O_CREAT | O_WRONLY, 0644));
	check_ok(pvfs_write(fd, "public", 6));
	check_ok(pvfs_close(fd));
	check_ok(pvfs_mkdir("/pvfs/sticky", 0777));
	check_ok(pvfs_chmod("/pvfs/sticky", 01777));
	check_ok(pvfs_close(check_ok(pvfs_creat("/pvfs/sticky/roots", 0666))));
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		FILE *out = fdopen(pfd[1], "w");

		close(pfd[0]);
		if (setgroups(0, NULL) < 0 || setgid(NOBODY) < 0 ||
		    setuid(NOBODY) < 0) {
			fprintf(out, "cannot become nobody: %s\n",
			    strerror(errno));
			fclose(out);
			_exit(2);
		}
		int bad = nobody_checks(out);

		fclose(out);
		_exit(bad ? 1 : 0);
	}
	close(pfd[1]);
	n = 0;
	for (ssize_t r; (r = read(pfd[0], report + n,
	    sizeof(report) - 1 - (size_t)n)) > 0;)
		n += r;
	report[n] = '\0';
	close(pfd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("as nobody (status 0x%x):\n%s", status, report);
	/* Nothing changed behind root's back. */
	{
		struct stat st;

		check_ok(pvfs_stat("/pvfs/acc/pub", &st));
		assert_int_equal(st.st_mode & 07777, 0644);
		assert_int_equal(st.st_size, 6);
		assert_errno(pvfs_stat("/pvfs/acc/new", &st), ENOENT);
		check_ok(pvfs_stat("/pvfs/sticky/roots", &st));
	}
}

static void
test_ebadf(void **state)
{
	char buf[16];
	struct stat st;
	int fd;

	assert_errno(pvfs_read(-1, buf, 1), EBADF);
	assert_errno(pvfs_write(-1, buf, 1), EBADF);
	assert_errno(pvfs_read(1000000, buf, 1), EBADF);
	assert_errno(pvfs_fstat(-1, &st), EBADF);
	assert_errno(pvfs_close(-1), EBADF);
	assert_errno(pvfs_lseek(-1, 0, SEEK_SET), EBADF);
	/* A descriptor of the process that libpvfs did not return. */
	assert_false(pvfs_is_pvfs_fd(0));
	assert_errno(pvfs_read(0, buf, 1), EBADF);
	assert_errno(pvfs_fsync(2), EBADF);
	/* Access mode. */
	fd = check_ok(pvfs_open("/pvfs/file", O_WRONLY));
	assert_true(pvfs_is_pvfs_fd(fd));
	assert_errno(pvfs_read(fd, buf, 1), EBADF);
	assert_errno(pvfs_pread(fd, buf, 1, 0), EBADF);
	check_ok(pvfs_close(fd));
	fd = check_ok(pvfs_open("/pvfs/file", O_RDONLY));
	assert_errno(pvfs_write(fd, "x", 1), EBADF);
	assert_errno(pvfs_pwrite(fd, "x", 1, 0), EBADF);
	errno = 0;
	assert_int_equal(pvfs_ftruncate(fd, 0), -1);
	if (errno != EBADF && errno != EINVAL)
		fail_msg("ftruncate on O_RDONLY: errno %d (%s)", errno,
		    strerror(errno));
	/* A closed descriptor. */
	check_ok(pvfs_close(fd));
	assert_false(pvfs_is_pvfs_fd(fd));
	assert_errno(pvfs_read(fd, buf, 1), EBADF);
	assert_errno(pvfs_close(fd), EBADF);
	assert_errno(pvfs_dup(fd), EBADF);
	/* The file is intact. */
	check_ok(pvfs_stat("/pvfs/file", &st));
	assert_int_equal(st.st_size, 7);
}

static void
test_enametoolong(void **state)
{
	char name[300], path[5000];
	struct stat st;

	memset(name, 'n', 255);
	name[255] = '\0';
	snprintf(path, sizeof(path), "/pvfs/%s", name);
	/* 255 bytes is fine. */
	check_ok(pvfs_close(check_ok(pvfs_creat(path, 0644))));
	check_ok(pvfs_stat(path, &st));
	check_ok(pvfs_unlink(path));
	memset(name, 'n', 256);
	name[256] = '\0';
	snprintf(path, sizeof(path), "/pvfs/%s", name);
	assert_errno(pvfs_open(path, O_CREAT | O_WRONLY, 0644), ENAMETOOLONG);
	assert_errno(pvfs_mkdir(path, 0755), ENAMETOOLONG);
	assert_errno(pvfs_stat(path, &st), ENAMETOOLONG);
	assert_errno(pvfs_rename("/pvfs/file", path), ENAMETOOLONG);
	/* A whole path beyond PATH_MAX, made of short components. */
	strcpy(path, "/pvfs");
	while (strlen(path) < 4200)
		strcat(path, "/abcdefgh");
	assert_errno(pvfs_stat(path, &st), ENAMETOOLONG);
	assert_errno(pvfs_mkdir(path, 0755), ENAMETOOLONG);
}

static void
test_einval_bad_distribution(void **state)
{
	static const struct {
		int base, pcount, ssize;
	} bad[] = {
		/* 0 for pcount or ssize means the default, like -1 (PVFS 1
		 * programs often zero the struct); other negatives are bad. */
		{0, NIODS + 1, 65536}, /* more iods than exist */
		{0, -7, 65536},
		{NIODS, 2, 65536},     /* base out of range */
		{-5, 2, 65536},
		{0, 2, -4096},
		{0, 2, 128 << 20},     /* past PVFS_SSIZE_MAX */
	};
	char report[2048] = "";
	struct stat st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct pvfs_filestat fs = {bad[i].base, bad[i].pcount,
		    bad[i].ssize, 0, 0};
		size_t len = strlen(report);

		errno = 0;
		int fd = pvfs_open("/pvfs/baddist", O_CREAT | O_RDWR |
		    PVFS_O_META, 0644, &fs);

		if (fd != -1 || errno != EINVAL)
			snprintf(report + len, sizeof(report) - len,
			    "  base %d pcount %d ssize %d: open = %d errno %d "
			    "(%s)\n", bad[i].base, bad[i].pcount, bad[i].ssize,
			    fd, errno, fd >= 0 ? "-" : strerror(errno));
		if (fd >= 0) {
			pvfs_close(fd);
			pvfs_unlink("/pvfs/baddist");
		}
	}
	if (report[0] != '\0')
		fail_msg("bad distributions not refused with EINVAL:\n%s", report);
	assert_errno(pvfs_stat("/pvfs/baddist", &st), ENOENT);
	/* Other EINVALs: a directory into itself, an unknown ioctl. */
	assert_errno(pvfs_rename("/pvfs/dir", "/pvfs/dir/sub/into"), EINVAL);
	int fd = check_ok(pvfs_open("/pvfs/file", O_RDWR));

	errno = 0;
	assert_int_equal(pvfs_ioctl(fd, 0x7fff, NULL), -1);
	if (errno != ENOTTY && errno != EINVAL)
		fail_msg("unknown ioctl: errno %d (%s)", errno, strerror(errno));
	assert_errno(pvfs_ftruncate(fd, -1), EINVAL);
	check_ok(pvfs_close(fd));
	assert_errno(pvfs_truncate("/pvfs/file", -1), EINVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_enoent),
		cmocka_unit_test(test_eexist),
		cmocka_unit_test(test_enotdir),
		cmocka_unit_test(test_eisdir),
		cmocka_unit_test(test_enotempty),
		cmocka_unit_test(test_eacces_as_nobody),
		cmocka_unit_test(test_ebadf),
		cmocka_unit_test(test_enametoolong),
		cmocka_unit_test(test_einval_bad_distribution),
	};

	return cluster_run_tests(&c, NIODS, group_ready, tests);
}
