/*
 * copy.c - copy a file into, out of, or within PVFS with large requests.
 *
 *   pvfs-example-copy SRC DST
 *
 * Either path may be a PVFS path (under a pvfstab mount prefix) or a local
 * one.  New PVFS files get the file system's default distribution.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pvfs.h>

#define COPY_BUF (8 << 20)

struct end {
	int fd, pvfs;
};

static int
end_open(struct end *e, const char *path, int flags)
{
	e->pvfs = pvfs_is_pvfs_path(path);
	e->fd = e->pvfs ? pvfs_open(path, flags, 0644) : open(path, flags, 0644);
	return e->fd;
}

static ssize_t
end_io(struct end *e, char *buf, size_t n, int writing)
{
	if (writing)
		return e->pvfs ? pvfs_write(e->fd, buf, n) : write(e->fd, buf, n);
	return e->pvfs ? pvfs_read(e->fd, buf, n) : read(e->fd, buf, n);
}

static int
end_close(struct end *e)
{
	return e->pvfs ? pvfs_close(e->fd) : close(e->fd);
}

static int
copy(struct end *in, struct end *out, const char *src, const char *dst)
{
	char *buf = malloc(COPY_BUF);
	ssize_t n, w;
	long long total = 0;

	while ((n = end_io(in, buf, COPY_BUF, 0)) > 0) {
		if ((w = end_io(out, buf, (size_t)n, 1)) != n) {
			fprintf(stderr, "%s: %s\n", dst, w < 0 ? strerror(errno) : "short write");
			return 1;
		}
		total += n;
	}
	if (n < 0) {
		fprintf(stderr, "%s: %s\n", src, strerror(errno));
		return 1;
	}
	free(buf);
	printf("copied %lld bytes: %s -> %s\n", total, src, dst);
	return 0;
}

int
main(int argc, char **argv)
{
	struct end in, out;
	int rc;

	if (argc != 3) {
		fprintf(stderr, "usage: %s SRC DST\n", argv[0]);
		return 2;
	}
	if (end_open(&in, argv[1], O_RDONLY) == -1) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (end_open(&out, argv[2], O_WRONLY | O_CREAT | O_TRUNC) == -1) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	rc = copy(&in, &out, argv[1], argv[2]);
	end_close(&in);
	if (end_close(&out) == -1) {
		fprintf(stderr, "%s: %s\n", argv[2], strerror(errno));
		rc = 1;
	}
	return rc;
}
