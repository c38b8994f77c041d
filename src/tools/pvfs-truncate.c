/*
 * pvfs-truncate - shrink or extend PVFS files to a size (on every iod).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>

#include "tools.h"

static const char usage[] =
"Usage: pvfs-truncate [OPTION]... -s SIZE PATH...\n"
"Set the size of each PVFS file to SIZE: the part past SIZE is dropped on\n"
"every iod, an extension reads as zeros.  A missing file is created.\n"
"SIZE takes K, M, G, T (powers of 1024); '+SIZE' extends and '-SIZE'\n"
"shrinks by that much.\n"
"\n"
"  -s, --size=SIZE  the size, or the change of size\n"
"  -c, --no-create  do not create missing files\n"
"      --help       show this help and exit\n"
"      --version    show the version and exit\n"
"\n"
"Exit status: 0 success, 1 if any PATH failed, 2 bad usage.\n";

static const struct option longopts[] = {
	{ "size", required_argument, NULL, 's' },
	{ "no-create", no_argument, NULL, 'c' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int opt_nocreate, rel; /* rel: 0 absolute, 1 extend, -1 shrink */
static uint64_t size;

/* Failures are reported (and set the exit status) here: always 0. */
static int
truncate_one(const char *path)
{
	struct stat st;
	int64_t len = (int64_t)size;
	int fd;

	if (pvfs_stat(path, &st) != 0) {
		if (errno != ENOENT || opt_nocreate) {
			if (!(errno == ENOENT && opt_nocreate))
				tool_err(path, errno);
			return 0;
		}
		if ((fd = pvfs_open(path, O_WRONLY | O_CREAT, 0666)) < 0) {
			tool_err(path, errno);
			return 0;
		}
		pvfs_close(fd);
		st.st_size = 0;
	}
	if (rel != 0)
		len = rel > 0 ? st.st_size + len : st.st_size - len;
	if (len < 0)
		len = 0;
	if (pvfs_truncate(path, (off_t)len) != 0)
		tool_err(path, errno);
	return 0;
}

int
main(int argc, char **argv)
{
	const char *s;
	int c, have = 0;

	tool_init("pvfs-truncate", usage);
	while ((c = tool_getopt(argc, argv, "s:c", longopts)) != -1) {
		if (c == 's') {
			s = optarg;
			rel = *s == '+' ? 1 : *s == '-' ? -1 : 0;
			if (tool_parse_size(s + (rel != 0), &size) != 0 ||
			    size > INT64_MAX)
				tool_usage_error("invalid size: '%s'", optarg);
			have = 1;
		} else if (c == 'c') {
			opt_nocreate = 1;
		} else {
			tool_usage_error("invalid option");
		}
	}
	if (!have)
		tool_usage_error("you must specify '-s SIZE'");
	if (optind == argc)
		tool_usage_error("missing file operand");
	return tool_each_operand(argc, argv, optind, truncate_one);
}
