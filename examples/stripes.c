/*
 * stripes.c - create a file with a chosen distribution, write it, read it
 * back, and print where each stripe lives.
 *
 *   pvfs-example-stripes PATH [BASE PCOUNT SSIZE [BYTES]]
 *   pvfs-example-stripes --show PATH
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pvfs.h>

static void
show_layout(int fd, const char *path, const struct pvfs_filestat *fs,
    long long size)
{
	long long s, nstripes = (size + fs->ssize - 1) / fs->ssize;
	char addr[300];
	int rel, iod;

	printf("%s: %lld bytes, base %d, pcount %d, ssize %d\n", path, size,
	    fs->base, fs->pcount, fs->ssize);
	for (rel = 0; rel < fs->pcount; rel++) {
		iod = pvfs_getiod(fd, rel, addr, sizeof(addr));
		printf("  part %d: iod %d at %s\n", rel, iod, iod < 0 ? "?" : addr);
	}
	printf("  stripe  file offset   -> iod  local offset\n");
	for (s = 0; s < nstripes; s++) {
		if (nstripes > 12 && s == 8) {
			printf("  ... %lld more stripes in the same rotation ...\n",
			    nstripes - 10);
			s = nstripes - 2;
		}
		iod = pvfs_getiod(fd, (int)(s % fs->pcount), addr, sizeof(addr));
		printf("  %6lld  %-13lld -> %3d  %lld\n", s, s * fs->ssize, iod,
		    s / fs->pcount * fs->ssize);
	}
}

static int
show(const char *path)
{
	struct pvfs_filestat fs;
	struct stat st;
	int fd = pvfs_open(path, O_RDONLY);

	if (fd == -1 || pvfs_ioctl(fd, PVFS_GETMETA, &fs) == -1 ||
	    pvfs_fstat(fd, &st) == -1) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	show_layout(fd, path, &fs, (long long)st.st_size);
	pvfs_close(fd);
	return 0;
}

static int
create_write_verify(const char *path, struct pvfs_filestat *fs, size_t bytes)
{
	char *out = malloc(bytes), *in = malloc(bytes);
	size_t i;
	int fd;

	for (i = 0; i < bytes; i++)
		out[i] = (char)(i * 7 + i / 4096);
	fd = pvfs_open(path, O_CREAT | O_TRUNC | O_RDWR | PVFS_O_META, 0644, fs);
	if (fd == -1 || pvfs_write(fd, out, bytes) != (ssize_t)bytes ||
	    pvfs_pread(fd, in, bytes, 0) != (ssize_t)bytes) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	if (memcmp(in, out, bytes) != 0) {
		fprintf(stderr, "%s: data read back differs\n", path);
		return 1;
	}
	printf("wrote and verified %zu bytes\n", bytes);
	pvfs_ioctl(fd, PVFS_GETMETA, fs);
	show_layout(fd, path, fs, (long long)bytes);
	pvfs_close(fd);
	free(out);
	free(in);
	return 0;
}

int
main(int argc, char **argv)
{
	struct pvfs_filestat fs = { -1, -1, -1, 0, 0 };
	size_t bytes = 1 << 20;

	if (argc == 3 && strcmp(argv[1], "--show") == 0)
		return show(argv[2]);
	if (argc != 2 && argc != 5 && argc != 6) {
		fprintf(stderr, "usage: %s PATH [BASE PCOUNT SSIZE [BYTES]]\n"
		    "       %s --show PATH\n", argv[0], argv[0]);
		return 2;
	}
	if (argc >= 5) {
		fs.base = atoi(argv[2]);
		fs.pcount = atoi(argv[3]);
		fs.ssize = atoi(argv[4]);
	}
	if (argc == 6)
		bytes = strtoull(argv[5], NULL, 0);
	return create_write_verify(argv[1], &fs, bytes);
}
