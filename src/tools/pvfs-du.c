/*
 * pvfs-du - space used by PVFS files, per directory: the bytes the iods
 * allocate to a tree's stripe files, or with --apparent-size its files'
 * lengths.
 *
 * One pass over the tree: each directory is read in batches of up to
 * PVFS_READDIRPLUS_MAX entries whose attributes and size capabilities
 * come with the names (pvfs_readdir_stat), so no entry costs a mgr round
 * trip; a regular file costs one IOD_SIZE to each of its iods, sent to all
 * of them at once (the mgr knows no sizes: they live on the iods).  A
 * directory that can be read but not searched is read by name, and each
 * of its files stat'ed, failing as GNU du's would.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-du [OPTION]... PATH...\n"
"Summarize the space used by each PATH, recursively for directories: by\n"
"default the bytes the iods allocate to its files' stripes, in 1K blocks.\n"
"Directories themselves count nothing (they live on the mgr, not the iods).\n"
"\n"
"  -a, --all             write counts for all files, not just directories\n"
"      --apparent-size   the files' lengths instead of the space allocated\n"
"  -b, --bytes           --apparent-size in bytes (not 1K blocks)\n"
"  -c, --total           write a grand total last\n"
"  -h, --human-readable  sizes like 1.5K, 23M, 4.0G\n"
"  -s, --summarize       write only a total for each PATH\n"
"      --help            show this help and exit\n"
"      --version         show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any file could not be read (its size is left\n"
"out), 2 bad usage.\n";

#define DU_OPT_APPARENT 0x2001

static const struct option longopts[] = {
	{ "all", no_argument, NULL, 'a' },
	{ "apparent-size", no_argument, NULL, DU_OPT_APPARENT },
	{ "bytes", no_argument, NULL, 'b' },
	{ "total", no_argument, NULL, 'c' },
	{ "human-readable", no_argument, NULL, 'h' },
	{ "summarize", no_argument, NULL, 's' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int opt_all, opt_apparent, opt_bytes, opt_human, opt_summary;

/* du's units: bytes rounded up to 1K blocks unless -b or -h. */
static void
du_print(uint64_t bytes, const char *path)
{
	char buf[32];

	if (opt_human)
		tool_human(bytes, buf, sizeof(buf));
	else if (opt_bytes)
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
	else
		snprintf(buf, sizeof(buf), "%llu",
		    (unsigned long long)((bytes + 1023) / 1024));
	printf("%s\t%s\n", buf, path);
}

static uint64_t
du_file_bytes(const struct stat *st)
{
	if (!S_ISREG(st->st_mode))
		return 0;
	return opt_apparent ? (uint64_t)st->st_size :
	    (uint64_t)st->st_blocks * 512;
}

static uint64_t du_dir(const char *dir, int depth);

/* One entry of dir: its bytes, counted and printed as du does. */
static uint64_t
du_entry(const char *dir, const struct dirent *de, const struct stat *st,
    int depth)
{
	uint64_t n;
	char *path;

	if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
		return 0;
	path = tool_join(dir, de->d_name);
	if (de->d_type == DT_DIR) {
		n = du_dir(path, depth + 1);
	} else if (st == NULL) {
		tool_err(path, errno);
		n = 0;
	} else {
		n = du_file_bytes(st);
		if (opt_all && !opt_summary)
			du_print(n, path);
	}
	free(path);
	return n;
}

/* dir by names alone, each file stat'ed by path: for a directory that
 * can be read but not searched, where each stat fails. */
static uint64_t
du_dir_names(const char *dir, PVFS_DIR *d, int depth)
{
	struct dirent *de;
	struct stat st;
	uint64_t sum = 0;
	char *path;
	int rc;

	errno = 0;
	while ((de = pvfs_readdir(d)) != NULL) {
		if (de->d_type != DT_DIR) {
			path = tool_join(dir, de->d_name);
			rc = pvfs_lstat(path, &st); /* a link is not followed */
			free(path);
		} else
			rc = 0;
		sum += du_entry(dir, de, rc == 0 ? &st : NULL, depth);
		errno = 0;
	}
	if (errno != 0)
		tool_err(dir, errno);
	return sum;
}

/* The bytes under dir (printed unless -s when depth > 0). */
static uint64_t
du_dir(const char *dir, int depth)
{
	PVFS_DIR *d;
	struct dirent *de;
	struct stat st;
	uint64_t sum = 0;
	int any = 0;

	if ((d = pvfs_opendir(dir)) == NULL) {
		tool_err(dir, errno);
		return 0;
	}
	errno = 0;
	while ((de = pvfs_readdir_stat(d, &st)) != NULL) {
		any = 1;
		sum += du_entry(dir, de, st.st_nlink != 0 ? &st : NULL, depth);
		errno = 0;
	}
	if (errno == EACCES && !any) {
		pvfs_rewinddir(d);
		sum = du_dir_names(dir, d, depth);
	} else if (errno != 0)
		tool_err(dir, errno);
	pvfs_closedir(d);
	if (!opt_summary || depth == 0)
		du_print(sum, dir);
	return sum;
}

static uint64_t
du_operand(const char *path)
{
	struct stat st;
	uint64_t n;

	if (!tool_need_pvfs(path))
		return 0;
	if (pvfs_stat(path, &st) != 0) {
		tool_err(path, errno);
		return 0;
	}
	if (S_ISDIR(st.st_mode))
		return du_dir(path, 0);
	n = du_file_bytes(&st);
	du_print(n, path);
	return n;
}

int
main(int argc, char **argv)
{
	uint64_t total = 0;
	int c, i, opt_total = 0;

	tool_init("pvfs-du", usage);
	while ((c = tool_getopt(argc, argv, "abchs", longopts)) != -1) {
		switch (c) {
		case 'a':
			opt_all = 1;
			break;
		case 'b':
			opt_bytes = opt_apparent = 1;
			break;
		case 'c':
			opt_total = 1;
			break;
		case 'h':
			opt_human = 1;
			break;
		case 's':
			opt_summary = 1;
			break;
		case DU_OPT_APPARENT:
			opt_apparent = 1;
			break;
		}
	}
	if (opt_all && opt_summary)
		tool_usage_error("cannot both summarize and show all entries");
	if (optind == argc)
		tool_usage_error("missing operand");
	for (i = optind; i < argc; i++)
		total += du_operand(argv[i]);
	if (opt_total)
		du_print(total, "total");
	return tool_status;
}
