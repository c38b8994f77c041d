/*
 * pvfs-rm - remove PVFS files and, with -r, directory trees.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-rm [OPTION]... PATH...\n"
"Remove PVFS files (their stripes go from every iod).\n"
"\n"
"  -r, -R, --recursive  remove directories and their contents\n"
"  -f, --force      ignore missing files, never fail for lack of operands\n"
"      --help       show this help and exit\n"
"      --version    show the version and exit\n"
"\n"
"A failure inside a tree is reported and the rest is still removed.  The\n"
"root of a file system is never removed.  Exit status: 0 success, 1 if\n"
"anything could not be removed, 2 bad usage.\n";

static const struct option longopts[] = {
	{ "recursive", no_argument, NULL, 'r' },
	{ "force", no_argument, NULL, 'f' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int opt_rec, opt_force;

static int rm_path(const char *path);

static int
rm_tree(const char *path)
{
	if (tool_each_child(path, rm_path) != 0)
		return -1; /* its failure was reported; ENOTEMPTY would add nothing */
	if (pvfs_rmdir(path) != 0 && !(opt_force && errno == ENOENT)) {
		tool_err(path, errno);
		return -1;
	}
	return 0;
}

static int
rm_path(const char *path)
{
	struct stat st;

	/* A link is removed, never what it leads to (lstat, as rm).  The
	 * type is all it needs: no iod is asked (one may be down). */
	if (pvfs_stat_meta(path, &st, 1) != 0) {
		if (opt_force && errno == ENOENT)
			return 0;
		tool_err(path, errno);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (pvfs_unlink(path) == 0 || (opt_force && errno == ENOENT))
			return 0;
		tool_err(path, errno);
		return -1;
	}
	if (!opt_rec) {
		tool_err(path, EISDIR);
		return -1;
	}
	if (tool_is_root(path)) {
		tool_errmsg(path, "refusing to remove the root of a file system");
		return -1;
	}
	return rm_tree(path);
}

int
main(int argc, char **argv)
{
	int c;

	tool_init("pvfs-rm", usage);
	while ((c = tool_getopt(argc, argv, "rRf", longopts)) != -1) {
		if (c == 'r' || c == 'R')
			opt_rec = 1;
		else if (c == 'f')
			opt_force = 1;
		else
			tool_usage_error("invalid option");
	}
	if (optind == argc && !opt_force)
		tool_usage_error("missing operand");
	return tool_each_operand(argc, argv, optind, rm_path);
}
