/*
 * ls.c - list a PVFS directory with sizes and each file's distribution.
 *
 *   pvfs-example-ls DIR
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include <pvfs.h>

static void
print_entry(const char *dir, const char *name)
{
	char path[4096];
	struct pvfs_filestat fs;
	struct stat st;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (pvfs_stat(path, &st) == -1) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return;
	}
	printf("%c%04o %4lu %12lld  %-24s", S_ISDIR(st.st_mode) ? 'd' : '-',
	    (unsigned)(st.st_mode & 07777), (unsigned long)st.st_nlink,
	    (long long)st.st_size, name);
	if (S_ISREG(st.st_mode) && (fd = pvfs_open(path, O_RDONLY)) != -1) {
		if (pvfs_ioctl(fd, PVFS_GETMETA, &fs) == 0)
			printf("  base %d pcount %d ssize %d", fs.base, fs.pcount, fs.ssize);
		pvfs_close(fd);
	}
	printf("\n");
}

int
main(int argc, char **argv)
{
	PVFS_DIR *d;
	struct dirent *de;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	if ((d = pvfs_opendir(argv[1])) == NULL) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while ((de = pvfs_readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			print_entry(argv[1], de->d_name);
	}
	pvfs_closedir(d);
	return 0;
}
