/*
 * pvfs-rmdir - remove empty PVFS directories.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

static const char usage[] =
"Usage: pvfs-rmdir [OPTION]... DIR...\n"
"Remove empty PVFS directories.\n"
"\n"
"  -p, --parents    also remove each parent that becomes empty, as\n"
"                   'pvfs-rmdir -p a/b/c' is 'pvfs-rmdir a/b/c a/b a'\n"
"      --help       show this help and exit\n"
"      --version    show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any DIR could not be removed, 2 bad usage.\n";

/* Strip the last component in place; 0 when nothing is left to strip. */
static int
rmdir_parent(char *p)
{
	char *s;

	while ((s = strrchr(p, '/')) != NULL && s[1] == '\0' && s != p)
		*s = '\0';
	if ((s = strrchr(p, '/')) == NULL || s == p || s[-1] == '/')
		return 0;
	*s = '\0';
	return 1;
}

int
main(int argc, char **argv)
{
	int i, parents = 0;
	char *p;

	tool_init("pvfs-rmdir", usage);
	parents = tool_getflag(argc, argv, 'p', "parents");
	if (optind == argc)
		tool_usage_error("missing operand");
	for (i = optind; i < argc; i++) {
		if (!tool_need_pvfs(argv[i]))
			continue;
		p = strdup(argv[i]);
		do {
			if (pvfs_rmdir(p) != 0) {
				tool_err(p, errno);
				break;
			}
		} while (parents && rmdir_parent(p) && !tool_is_root(p));
		free(p);
	}
	return tool_status;
}
