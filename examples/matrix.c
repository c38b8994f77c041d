/*
 * matrix.c - the FSDDS paper's matrix pattern: an N x N matrix of 32-bit
 * integers stored row-major in one file, and P processes each reading
 * their column block (columns k*N/P .. (k+1)*N/P - 1 of every row) with
 * ONE call: a PVFS 1 partition (offset k*N/P*4, gsize N/P*4, stride N*4)
 * set with pvfs_ioctl(SETPART), then one pvfs_read.  Each iod gets one
 * strided request per process and streams its part of the column block.
 *
 *   pvfs-example-matrix PATH [N [P]]      (defaults: N 1024, P 4)
 *
 * The parent writes the matrix (element (i, j) = i * N + j), forks P
 * readers, and each checks every element it read.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <pvfs.h>

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int
write_matrix(const char *path, long n)
{
	size_t row = (size_t)n * sizeof(int32_t);
	int32_t *buf = malloc(row);
	long i, j;
	int fd;

	if (buf == NULL)
		return -1;
	if ((fd = pvfs_open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644)) == -1) {
		free(buf);
		return -1;
	}
	for (i = 0; i < n; i++) {
		for (j = 0; j < n; j++)
			buf[j] = (int32_t)(i * n + j);
		if (pvfs_write(fd, buf, row) != (ssize_t)row) {
			free(buf);
			pvfs_close(fd);
			return -1;
		}
	}
	free(buf);
	return pvfs_close(fd);
}

/* Reader k: its column block, in one call, checked element by element. */
static int
read_block(const char *path, long n, long p, long k)
{
	long w = n / p, i, j;
	struct fpart part = { 0, 0, 0, 0, 0 };
	size_t want = (size_t)n * (size_t)w * sizeof(int32_t);
	int32_t *blk = malloc(want);
	double t0;
	ssize_t got;
	int fd;

	if (blk == NULL || (fd = pvfs_open(path, O_RDONLY)) == -1)
		return 1;
	part.offset = k * w * (int64_t)sizeof(int32_t);
	part.gsize = w * (int64_t)sizeof(int32_t);
	part.stride = n * (int64_t)sizeof(int32_t);
	if (pvfs_ioctl(fd, SETPART, &part) == -1)
		return 1;
	t0 = now();
	got = pvfs_read(fd, blk, want);
	if (got != (ssize_t)want) {
		fprintf(stderr, "reader %ld: read %zd of %zu: %s\n", k, got, want,
		    got < 0 ? strerror(errno) : "short");
		return 1;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < w; j++)
			if (blk[i * w + j] != (int32_t)(i * n + k * w + j)) {
				fprintf(stderr, "reader %ld: element (%ld, %ld) "
				    "is %d\n", k, i, k * w + j, blk[i * w + j]);
				return 1;
			}
	printf("reader %ld: columns %ld..%ld, %zu bytes in one read, %.1f ms\n",
	    k, k * w, k * w + w - 1, want, (now() - t0) * 1e3);
	pvfs_close(fd);
	free(blk);
	return 0;
}

int
main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 1024, p = argc > 3 ? atol(argv[3]) : 4;
	int status, rc = 0;
	pid_t pid;
	long k;

	if (argc < 2 || n < 1 || p < 1 || p > 256 || n % p != 0) {
		fprintf(stderr, "usage: pvfs-example-matrix PATH [N [P]] "
		    "(P divides N, P <= 256)\n");
		return 2;
	}
	if (write_matrix(argv[1], n) != 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("%s: %ld x %ld matrix of int32, row-major, %ld readers\n",
	    argv[1], n, n, p);
	fflush(stdout);
	for (k = 0; k < p; k++) {
		if ((pid = fork()) == -1) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(read_block(argv[1], n, p, k));
	}
	while (wait(&status) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			rc = 1;
	printf(rc == 0 ? "all column blocks correct\n" : "FAILED\n");
	return rc;
}
