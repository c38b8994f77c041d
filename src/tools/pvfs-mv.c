/*
 * pvfs-mv - rename PVFS files and directories; move files between PVFS
 * and the local file system (copy, verify, then remove the source).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

static const char usage[] =
"Usage: pvfs-mv [OPTION]... SRC DST\n"
"       pvfs-mv [OPTION]... SRC... DIR\n"
"Rename SRC to DST, or move each SRC into the existing directory DIR.\n"
"Within one file system this is an atomic rename at the mgr; a regular\n"
"file moved between file systems (PVFS and local, or two PVFS file\n"
"systems) is copied, checked and then removed.\n"
"\n"
"  -n, --no-clobber  do not replace an existing destination\n"
"      --help        show this help and exit\n"
"      --version     show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any SRC could not be moved, 2 bad usage.\n";

static int opt_noclobber;

static int
mv_rename(const char *src, const char *dst)
{
	if (tool_is_pvfs(src) && tool_is_pvfs(dst))
		return pvfs_rename(src, dst);
	if (!tool_is_pvfs(src) && !tool_is_pvfs(dst))
		return rename(src, dst);
	errno = EXDEV;
	return -1;
}

/* Across file systems: copy with attributes, then drop the source. */
static void
mv_copy(const char *src, const char *dst, const struct stat *st)
{
	struct tool_copy_opts o;
	char target[PATH_MAX];

	if (S_ISLNK(st->st_mode)) {
		if (tool_readlink(src, target, sizeof(target)) != 0 ||
		    tool_symlink(target, dst) != 0 || tool_unlink(src) != 0)
			tool_err(src, errno);
		return;
	}
	if (!S_ISREG(st->st_mode)) {
		tool_errmsg(src, "cannot move a directory to another file system "
		    "(use pvfs-cp -r, then pvfs-rm -r)");
		return;
	}
	memset(&o, 0, sizeof(o));
	o.preserve = 1;
	if (tool_copy_file(src, dst, &o) != 0)
		return;
	if (tool_unlink(src) != 0)
		tool_err(src, errno);
}

/* Failures are reported (and set the exit status) here: always 0. */
static int
mv_one(const char *src, const char *dst)
{
	struct stat st, dst_st;

	/* A link moves as a link (lstat), as mv(1) moves it.  Only the
	 * type matters: no size is asked, so a rename works with an iod
	 * down. */
	if (tool_lstat_meta(src, &st) != 0) {
		tool_err(src, errno);
		return 0;
	}
	if (opt_noclobber && tool_lstat_meta(dst, &dst_st) == 0)
		return 0;
	if (mv_rename(src, dst) == 0)
		return 0;
	if (errno == EXDEV)
		mv_copy(src, dst, &st);
	else
		tool_err(src, errno);
	return 0;
}

int
main(int argc, char **argv)
{
	int n;

	tool_init("pvfs-mv", usage);
	opt_noclobber = tool_getflag(argc, argv, 'n', "no-clobber");
	if ((n = argc - optind) < 2)
		tool_usage_error(n == 0 ? "missing file operand" :
		    "missing destination file operand");
	return tool_copy_each(argc, argv, optind, 0, mv_one);
}
