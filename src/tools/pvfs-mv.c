/*
 * pvfs-mv - rename PVFS files and directories; move files between PVFS
 * and the local file system (copy, verify, then remove the source).
 */
#include "config.h"

#include <errno.h>
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

static const struct option longopts[] = {
	{ "no-clobber", no_argument, NULL, 'n' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

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

static void
mv_one(const char *src, const char *dst)
{
	struct stat st, dst_st;

	if (tool_stat(src, &st) != 0) {
		tool_err(src, errno);
		return;
	}
	if (opt_noclobber && tool_stat(dst, &dst_st) == 0)
		return;
	if (mv_rename(src, dst) == 0)
		return;
	if (errno == EXDEV)
		mv_copy(src, dst, &st);
	else
		tool_err(src, errno);
}

int
main(int argc, char **argv)
{
	struct stat st;
	const char *dst;
	char *base, *d;
	int c, i, n, into;

	tool_init("pvfs-mv", usage);
	while ((c = tool_getopt(argc, argv, "n", longopts)) != -1) {
		if (c == 'n')
			opt_noclobber = 1;
		else
			tool_usage_error("invalid option");
	}
	if ((n = argc - optind) < 2)
		tool_usage_error(n == 0 ? "missing file operand" :
		    "missing destination file operand");
	tool_operands(argc, argv, optind);
	dst = argv[argc - 1];
	into = tool_stat(dst, &st) == 0 && S_ISDIR(st.st_mode);
	if (n > 2 && !into) {
		tool_errmsg(NULL, "target '%s' is not a directory", dst);
		return TOOL_EXIT_FAIL;
	}
	for (i = optind; i < argc - 1; i++) {
		if (!into) {
			mv_one(argv[i], dst);
			continue;
		}
		base = tool_base(argv[i]);
		d = tool_join(dst, base);
		mv_one(argv[i], d);
		free(base);
		free(d);
	}
	return tool_status;
}
