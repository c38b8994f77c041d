/* daemon.c - start-up chores shared by the daemons and tools. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

static int64_t
pvfs_clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
pvfs_now_ns(void)
{
	return pvfs_clock_ns(CLOCK_REALTIME);
}

int64_t
pvfs_mono_ns(void)
{
	return pvfs_clock_ns(CLOCK_MONOTONIC);
}

int64_t
pvfs_mono_ms(void)
{
	return pvfs_clock_ns(CLOCK_MONOTONIC) / 1000000;
}

int
pvfs_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n > 0) {
		w = write(fd, c, n);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Readers (tests, pvfs-local) poll for the file: they must never see it
 * half written, hence temp file + fsync + rename. */
int
pvfs_write_file_atomic(const char *path, const char *text)
{
	char tmp[PATH_MAX];
	int fd, err;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1)
		return -1;
	if (pvfs_write_all(fd, text, strlen(text)) != 0 ||
	    pvfs_write_all(fd, "\n", 1) != 0 || fsync(fd) != 0) {
		err = errno;
		close(fd);
		unlink(tmp);
		errno = err;
		return -1;
	}
	close(fd);
	if (rename(tmp, path) != 0) {
		err = errno;
		unlink(tmp);
		errno = err;
		return -1;
	}
	return 0;
}

/* A daemon serves: its pid file, then its port file (either may be NULL),
 * the pid first because a script that sees the port file may look for it. */
void
pvfs_publish(const char *pidfile, const char *portfile, const char *port)
{
	char pid[32];

	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (pidfile != NULL && pvfs_write_file_atomic(pidfile, pid) != 0)
		pvfs_fatal("%s: %s", pidfile, strerror(errno));
	if (portfile != NULL && pvfs_write_file_atomic(portfile, port) != 0)
		pvfs_fatal("%s: %s", portfile, strerror(errno));
}

int
pvfs_daemonize(void)
{
	pid_t pid = fork();
	int fd;

	if (pid == -1)
		return -1;
	if (pid > 0)
		_exit(0);
	if (setsid() == -1)
		return -1;
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	return 0;
}

char *
pvfs_read_small_file(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *buf;
	size_t n = 0;
	ssize_t r;

	if (fd == -1)
		return NULL;
	if ((buf = malloc(max + 1)) == NULL) {
		close(fd);
		return NULL;
	}
	while (n < max && (r = read(fd, buf + n, max - n)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			free(buf);
			close(fd);
			return NULL;
		}
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

int
pvfs_mkdir_p(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *p;

	if (strlen(path) >= sizeof(buf)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(buf, path);
	for (p = buf + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, mode) != 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(buf, mode) != 0 && errno != EEXIST)
		return -1;
	return 0;
}
