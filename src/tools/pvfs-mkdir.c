/*
 * pvfs-mkdir - make PVFS directories.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"

static const char usage[] =
"Usage: pvfs-mkdir [OPTION]... DIR...\n"
"Create PVFS directories.\n"
"\n"
"  -p, --parents    make parent directories as needed; an existing\n"
"                   directory is no error\n"
"  -m, --mode=MODE  set the mode (as in chmod: 755, u=rwx,go=rx), not\n"
"                   a=rwx minus the umask\n"
"      --help       show this help and exit\n"
"      --version    show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any DIR could not be made, 2 bad usage.\n";

static const struct option longopts[] = {
	{ "parents", no_argument, NULL, 'p' },
	{ "mode", required_argument, NULL, 'm' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int opt_parents, have_mode;
static mode_t opt_mode;

/* The parent of path as written, or NULL at the top. */
static char *
mkdir_parent(const char *path)
{
	char *p = strdup(path), *s;

	while ((s = strrchr(p, '/')) != NULL && s[1] == '\0' && s != p)
		*s = '\0';
	if ((s = strrchr(p, '/')) == NULL || s == p || s[-1] == '/') {
		free(p);
		return NULL;
	}
	*s = '\0';
	return p;
}

/* mkdir -p: make the missing ancestors (u+wx so we can go on). */
static int
mkdir_parents(const char *path)
{
	struct stat st;
	char *up;
	int rc = 0;

	if (pvfs_stat(path, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : (errno = ENOTDIR, -1);
	if (errno != ENOENT || (up = mkdir_parent(path)) == NULL)
		return -1;
	if (mkdir_parents(up) != 0)
		rc = -1;
	else if (pvfs_mkdir(path, 0777) != 0 && errno != EEXIST)
		rc = -1;
	free(up);
	return rc;
}

/* Failures are reported (and set the exit status) here: always 0. */
static int
mkdir_one(const char *path)
{
	struct stat st;
	char *up;

	if (opt_parents && (up = mkdir_parent(path)) != NULL) {
		if (mkdir_parents(up) != 0) {
			tool_err(up, errno);
			free(up);
			return 0;
		}
		free(up);
	}
	if (pvfs_mkdir(path, 0777) != 0) {
		if (!opt_parents || errno != EEXIST || pvfs_stat(path, &st) != 0 ||
		    !S_ISDIR(st.st_mode))
			tool_err(path, errno == 0 ? EEXIST : errno);
		return 0;
	}
	if (have_mode && pvfs_chmod(path, opt_mode) != 0)
		tool_err(path, errno);
	return 0;
}

int
main(int argc, char **argv)
{
	int c;

	tool_init("pvfs-mkdir", usage);
	while ((c = tool_getopt(argc, argv, "pm:", longopts)) != -1) {
		if (c == 'p') {
			opt_parents = 1;
		} else if (c == 'm') {
			if (tool_parse_mode(optarg, S_IFDIR | 0777, &opt_mode) != 0)
				tool_usage_error("invalid mode: '%s'", optarg);
			have_mode = 1;
		} else {
			tool_usage_error("invalid option");
		}
	}
	if (optind == argc)
		tool_usage_error("missing operand");
	return tool_each_operand(argc, argv, optind, mkdir_one);
}
