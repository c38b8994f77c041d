/*
 * pvfs-chmod - change the mode of PVFS files.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-chmod [OPTION]... MODE PATH...\n"
"Change the mode of each PVFS PATH.  MODE is octal (644, 2775) or symbolic\n"
"as in chmod(1): [ugoa]*[+-=][rwxXst]*, comma-separated (u+x,go-w).\n"
"Only the owner or root may change a mode.\n"
"\n"
"  -R, --recursive  change directories and their contents\n"
"      --help       show this help and exit\n"
"      --version    show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any PATH failed, 2 bad usage.\n";

static int opt_rec;
static const char *mode_arg;

static int chmod_path(const char *path);

/* In a -R walk, links are skipped, as chmod(1) skips them (a link has no
 * mode of its own, and what it leads to may lie outside the tree). */
static int
chmod_child(const char *path)
{
	struct stat st;

	if (pvfs_stat_meta(path, &st, 1) == 0 && S_ISLNK(st.st_mode))
		return 0;
	return chmod_path(path);
}

/* Failures are reported (and set the exit status) here; the walk goes on.
 * An operand that is a link: what it leads to changes. */
static int
chmod_path(const char *path)
{
	struct stat st;
	mode_t m;

	/* The mode and type only: no iod is asked (one may be down). */
	if (pvfs_stat_meta(path, &st, 0) != 0) {
		tool_err(path, errno);
		return 0;
	}
	if (tool_parse_mode(mode_arg, st.st_mode, &m) != 0)
		tool_usage_error("invalid mode: '%s'", mode_arg);
	if (pvfs_chmod(path, m) != 0)
		tool_err(path, errno);
	if (opt_rec && S_ISDIR(st.st_mode))
		tool_each_child(path, chmod_child);
	return 0;
}

int
main(int argc, char **argv)
{
	mode_t m;

	tool_init("pvfs-chmod", usage);
	opt_rec = tool_getflag(argc, argv, 'R', "recursive");
	if (argc - optind < 2)
		tool_usage_error(argc == optind ? "missing operand" :
		    "missing operand after '%s'", argv[argc - 1]);
	mode_arg = argv[optind];
	if (tool_parse_mode(mode_arg, 0, &m) != 0)
		tool_usage_error("invalid mode: '%s'", mode_arg);
	return tool_each_operand(argc, argv, optind + 1, chmod_path);
}
