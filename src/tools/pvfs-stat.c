/*
 * pvfs-stat - everything PVFS knows about a file: attributes, distribution
 * and, for each iod, how many bytes of the file it holds (PVFS 1's pvstat,
 * made complete).
 */
#include "config.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-stat [OPTION]... PATH...\n"
"Show the size, mode, owner, times and inode of each PVFS PATH; for a\n"
"regular file also its distribution (base iod, pcount, stripe size) and,\n"
"for each iod of the file, the bytes of its stripe file and the bytes\n"
"allocated on its disk.\n"
"\n"
"      --help       show this help and exit\n"
"      --version    show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any PATH failed, 2 bad usage.\n";

static const struct option longopts[] = {
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static void
stat_time(const char *label, const struct timespec *ts)
{
	char buf[64], zone[16];
	struct tm tm;

	localtime_r(&ts->tv_sec, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
	strftime(zone, sizeof(zone), "%z", &tm);
	printf("%s: %s.%09ld %s\n", label, buf, ts->tv_nsec, zone);
}

static void
stat_ids(const struct stat *st)
{
	static const char rwx[] = "rwxrwxrwx";
	struct passwd *pw = getpwuid(st->st_uid);
	struct group *gr = getgrgid(st->st_gid);
	char m[11];
	int i;

	m[0] = S_ISDIR(st->st_mode) ? 'd' : S_ISFIFO(st->st_mode) ? 'p' :
	    S_ISSOCK(st->st_mode) ? 's' : S_ISCHR(st->st_mode) ? 'c' :
	    S_ISBLK(st->st_mode) ? 'b' : '-';
	for (i = 0; i < 9; i++)
		m[i + 1] = (st->st_mode & (0400 >> i)) ? rwx[i] : '-';
	m[10] = '\0';
	printf("  Mode: %04o (%s)  Uid: %u (%s)  Gid: %u (%s)\n",
	    (unsigned)(st->st_mode & 07777), m, (unsigned)st->st_uid,
	    pw ? pw->pw_name : "?", (unsigned)st->st_gid, gr ? gr->gr_name : "?");
}

/* A mirrored file: where each copy of each part is, and whether its iod
 * answered. */
static int
stat_copies(const char *path, struct pvfs_admin *a,
    const struct pvfs_attr_info *d)
{
	struct pvfs_part_info *parts;
	uint32_t i, max = d->pcount * d->copies;
	char addr[300];
	int n;

	printf("  Dist: base %u  pcount %u  ssize %u  copies %u  mshift %u\n",
	    d->base, d->pcount, d->ssize, d->copies, d->mshift);
	parts = tool_xmalloc(max * sizeof(*parts));
	if ((n = pvfs_admin_parts(path, parts, max)) < 0) {
		tool_err(path, errno);
		free(parts);
		return -1;
	}
	printf("  %4s %4s %4s  %-24s %15s %15s  %s\n", "part", "copy", "iod",
	    "address", "bytes", "allocated", "state");
	for (i = 0; i < (uint32_t)n; i++) {
		pvfs_admin_iod_addr(a, parts[i].iod, addr, sizeof(addr));
		if (parts[i].err != 0) {
			printf("  %4u %4u %4u  %-24s %15s %15s  down (%s)\n",
			    parts[i].rel, parts[i].copy, parts[i].iod, addr, "-",
			    "-", strerror(parts[i].err));
			continue;
		}
		printf("  %4u %4u %4u  %-24s %15llu %15llu  ok\n", parts[i].rel,
		    parts[i].copy, parts[i].iod, addr,
		    (unsigned long long)parts[i].local_size,
		    (unsigned long long)parts[i].blocks * 512);
	}
	free(parts);
	return 0;
}

/* The distribution and what each iod holds. */
static int
stat_parts(const char *path, struct pvfs_admin *a,
    const struct pvfs_attr_info *d)
{
	struct pvfs_part_info *parts;
	char addr[300];
	uint64_t bytes = 0, alloc = 0;
	uint32_t i;
	int n;

	if (d->copies > 1)
		return stat_copies(path, a, d);
	printf("  Dist: base %u  pcount %u  ssize %u\n", d->base, d->pcount,
	    d->ssize);
	parts = tool_xmalloc(d->pcount * sizeof(*parts));
	if ((n = pvfs_admin_parts(path, parts, d->pcount)) < 0) {
		tool_err(path, errno);
		free(parts);
		return -1;
	}
	printf("  %4s %4s  %-24s %15s %15s\n", "part", "iod", "address", "bytes",
	    "allocated");
	for (i = 0; i < (uint32_t)n; i++) {
		pvfs_admin_iod_addr(a, parts[i].iod, addr, sizeof(addr));
		printf("  %4u %4u  %-24s %15llu %15llu\n", parts[i].rel, parts[i].iod,
		    addr, (unsigned long long)parts[i].local_size,
		    (unsigned long long)parts[i].blocks * 512);
		bytes += parts[i].local_size;
		alloc += parts[i].blocks * 512;
	}
	printf("  %4s %4s  %-24s %15llu %15llu\n", "", "", "total",
	    (unsigned long long)bytes, (unsigned long long)alloc);
	free(parts);
	return 0;
}

/* Failures are reported (and set the exit status) here: always 0. */
static int
stat_one(const char *path)
{
	struct pvfs_attr_info attr;
	struct pvfs_admin *a;
	struct stat st;

	if (pvfs_stat(path, &st) != 0 || pvfs_admin_attr(path, &attr) != 0 ||
	    (a = pvfs_admin_open(path)) == NULL) {
		tool_err(path, errno);
		return 0;
	}
	printf("  File: %s\n", path);
	printf("  Size: %-15lld Blocks: %-10lld IO Block: %ld\n",
	    (long long)st.st_size, (long long)st.st_blocks, (long)st.st_blksize);
	printf(" Inode: %-15llu Links: %lu\n", (unsigned long long)st.st_ino,
	    (unsigned long)st.st_nlink);
	stat_ids(&st);
	stat_time("Access", &st.st_atim);
	stat_time("Modify", &st.st_mtim);
	stat_time("Change", &st.st_ctim);
	if (S_ISREG(st.st_mode))
		stat_parts(path, a, &attr);
	pvfs_admin_close(a);
	return 0;
}

int
main(int argc, char **argv)
{
	int c;

	tool_init("pvfs-stat", usage);
	while ((c = tool_getopt(argc, argv, "", longopts)) != -1)
		tool_usage_error("invalid option");
	if (optind == argc)
		tool_usage_error("missing operand");
	return tool_each_operand(argc, argv, optind, stat_one);
}
