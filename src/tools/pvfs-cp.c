/*
 * pvfs-cp - copy files and directories into, out of and within PVFS.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-cp [OPTION]... SRC DST\n"
"       pvfs-cp [OPTION]... SRC... DIR\n"
"Copy files local->PVFS, PVFS->local or PVFS->PVFS.  A PVFS path is under a\n"
"pvfstab mount prefix (/pvfs/dir/file) or a URL (pvfs://host:port/dir/file).\n"
"SRC '-' is standard input, DST '-' standard output.\n"
"\n"
"  -r, -R, --recursive  copy directories and their contents; symbolic links\n"
"                       in them, and given ones, are copied as links\n"
"  -a, --archive        -r -p -P\n"
"  -P, --no-dereference copy symbolic links as links\n"
"  -L, --dereference    copy what symbolic links lead to, even with -r\n"
"  -p, --preserve       keep mode, ownership (when permitted) and times\n"
"  -f, --force          remove an existing destination file and create it\n"
"                       anew (it then gets the distribution asked for)\n"
"      --base B         first iod of created PVFS files\n"
"      --pcount P       number of iods created PVFS files are striped over\n"
"      --ssize S        stripe size of created PVFS files (e.g. 64k, 1M)\n"
"      --mirror[=N]     created PVFS files keep N copies (default 2) of every\n"
"                       stripe on distinct iods (mirrored files)\n"
"                       An existing file keeps the layout it was created\n"
"                       with: asking for another is reported (exit 1) and\n"
"                       the data is still copied; -f recreates the file.\n"
"      --progress       show a progress bar even if stderr is not a terminal\n"
"      --help           show this help and exit\n"
"      --version        show the version and exit\n"
"\n"
"Each copy checks that every byte arrived; exit status 0 if all copies\n"
"succeeded, 1 if any failed, 2 on bad usage.\n";

enum { OPT_BASE = 0x100, OPT_PCOUNT, OPT_SSIZE, OPT_PROGRESS, OPT_MIRROR };

static const struct option longopts[] = {
	{ "recursive", no_argument, NULL, 'r' },
	{ "archive", no_argument, NULL, 'a' },
	{ "no-dereference", no_argument, NULL, 'P' },
	{ "dereference", no_argument, NULL, 'L' },
	{ "preserve", no_argument, NULL, 'p' },
	{ "force", no_argument, NULL, 'f' },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "pcount", required_argument, NULL, OPT_PCOUNT },
	{ "ssize", required_argument, NULL, OPT_SSIZE },
	{ "mirror", optional_argument, NULL, OPT_MIRROR },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

static int recursive;
static int deref = -1; /* -L 1, -P 0; else as GNU cp: 0 with -r, else 1 */
static struct tool_copy_opts opts;

static int cp_path(const char *src, const char *dst);

/* dst is src itself or lies inside it (compared as written). */
static int
cp_inside(const char *src, const char *dst)
{
	size_t l = strlen(src);

	while (l > 1 && src[l - 1] == '/')
		l--;
	return strncmp(src, dst, l) == 0 && (dst[l] == '\0' || dst[l] == '/');
}

static int
cp_tree(const char *src, const char *dst, const struct stat *st)
{
	struct stat dst_st;
	char **names, *s, *d;
	size_t i, n;
	int rc = 0;

	if (cp_inside(src, dst) && tool_is_pvfs(src) == tool_is_pvfs(dst)) {
		tool_errmsg(NULL, "cannot copy a directory, '%s', into itself, '%s'",
		    src, dst);
		return -1;
	}
	if (tool_mkdir(dst, (st->st_mode & 07777) | 0700) != 0) {
		if (errno == EEXIST && tool_stat(dst, &dst_st) == 0 &&
		    !S_ISDIR(dst_st.st_mode)) {
			tool_errmsg(NULL, "cannot overwrite non-directory '%s' "
			    "with directory '%s'", dst, src);
			return -1;
		}
		if (errno != EEXIST) {
			tool_copy_err("cannot create directory", dst, "", errno);
			return -1;
		}
	}
	if (tool_list_dir(src, &names, &n) != 0) {
		tool_err(src, errno);
		return -1;
	}
	for (i = 0; i < n; i++) {
		s = tool_join(src, names[i]);
		d = tool_join(dst, names[i]);
		rc |= cp_path(s, d);
		free(s);
		free(d);
	}
	tool_free_list(names, n);
	if (opts.preserve)
		(void)tool_chown(dst, st->st_uid, st->st_gid);
	if (tool_chmod(dst, st->st_mode & 07777) != 0 ||
	    (opts.preserve && tool_utimes(dst, st) != 0)) {
		tool_err(dst, errno);
		rc = -1;
	}
	return rc;
}

/* -r copies FIFOs, sockets and device nodes as themselves, as GNU cp
 * -R does (devices need root there too). */
static int
cp_special(const char *dst, const struct stat *st)
{
	if (tool_mknod(dst, st->st_mode & (S_IFMT | 07777), st->st_rdev) != 0) {
		tool_err(dst, errno);
		return -1;
	}
	if (opts.preserve)
		(void)tool_chown(dst, st->st_uid, st->st_gid);
	if (tool_chmod(dst, st->st_mode & 07777) != 0 ||
	    (opts.preserve && tool_utimes(dst, st) != 0)) {
		tool_err(dst, errno);
		return -1;
	}
	return 0;
}

/* A link copied as a link: the same text, wherever it points.  An
 * existing destination that is not a directory is replaced (GNU cp
 * unlinks it first too). */
static int
cp_link(const char *src, const char *dst, const struct stat *st)
{
	char target[PATH_MAX];
	struct stat dst_st;

	if (tool_readlink(src, target, sizeof(target)) != 0) {
		tool_err(src, errno);
		return -1;
	}
	if (tool_symlink(target, dst) != 0) {
		if (errno != EEXIST || tool_lstat(dst, &dst_st) != 0 ||
		    S_ISDIR(dst_st.st_mode) || tool_unlink(dst) != 0 ||
		    tool_symlink(target, dst) != 0) {
			tool_copy_err("cannot create symbolic link", dst, "", errno);
			return -1;
		}
	}
	if (opts.preserve)
		(void)tool_lchown(dst, st->st_uid, st->st_gid);
	return 0;
}

static int
cp_path(const char *src, const char *dst)
{
	struct stat st;
	int follow = deref >= 0 ? deref : !recursive;

	if (strcmp(src, "-") == 0)
		return tool_copy_file(src, dst, &opts);
	if ((follow ? tool_stat(src, &st) : tool_lstat(src, &st)) != 0) {
		tool_err(src, errno);
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		return cp_link(src, dst, &st);
	if (recursive && !S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return cp_special(dst, &st);
	if (!S_ISDIR(st.st_mode))
		return tool_copy_file(src, dst, &opts);
	if (!recursive) {
		tool_errmsg(NULL, "-r not specified; omitting directory '%s'", src);
		return -1;
	}
	return cp_tree(src, dst, &st);
}

/* A layout the destination's file system cannot give is refused before
 * anything is copied (the library would only say EINVAL). */
static void
cp_check_iods(const char *dst)
{
	struct pvfs_admin *a;
	uint32_t n;
	int rc;

	if ((opts.dist.pcount < 0 && opts.dist.base < 0 && opts.copies == 0) ||
	    strcmp(dst, "-") == 0 || !tool_is_pvfs(dst) ||
	    (a = pvfs_admin_open(dst)) == NULL)
		return;
	rc = pvfs_admin_niods(a, &n);
	pvfs_admin_close(a);
	if (rc != 0)
		return;  /* the copy will say what is wrong */
	if (opts.dist.pcount > (int32_t)n) {
		tool_errmsg(NULL, "--pcount %d: the file system has only %u iod%s",
		    opts.dist.pcount, n, n == 1 ? "" : "s");
		exit(TOOL_EXIT_FAIL);
	}
	if (opts.copies > (int)n) {
		tool_errmsg(NULL, "--mirror=%d: the file system has only %u iod%s",
		    opts.copies, n, n == 1 ? "" : "s");
		exit(TOOL_EXIT_FAIL);
	}
	if (opts.dist.base >= (int32_t)n) {
		tool_errmsg(NULL, "--base %d: the file system has only %u iod%s "
		    "(base 0 to %u)", opts.dist.base, n, n == 1 ? "" : "s", n - 1);
		exit(TOOL_EXIT_FAIL);
	}
}

static void
cp_options(int argc, char **argv)
{
	uint64_t v;
	int c;

	opts.dist.base = opts.dist.pcount = opts.dist.ssize = -1;
	while ((c = tool_getopt(argc, argv, "rRpfaPL", longopts)) != -1) {
		switch (c) {
		case 'r':
		case 'R':
			recursive = 1;
			break;
		case 'a':
			recursive = opts.preserve = 1;
			deref = 0;
			break;
		case 'P':
			deref = 0;
			break;
		case 'L':
			deref = 1;
			break;
		case 'p':
			opts.preserve = 1;
			break;
		case 'f':
			opts.force = 1;
			break;
		case OPT_BASE:
			opts.dist.base = (int32_t)tool_parse_long(optarg, 0,
			    PVFS_MAX_IODS - 1, "base");
			opts.have_dist = 1;
			break;
		case OPT_PCOUNT:
			opts.dist.pcount = (int32_t)tool_parse_long(optarg, 1,
			    PVFS_MAX_IODS, "pcount");
			opts.have_dist = 1;
			break;
		case OPT_SSIZE:
			if (tool_parse_size(optarg, &v) != 0 || v < PVFS_SSIZE_MIN ||
			    v > PVFS_SSIZE_MAX)
				tool_usage_error("invalid ssize: '%s' (512 .. 64M)", optarg);
			opts.dist.ssize = (int32_t)v;
			opts.have_dist = 1;
			break;
		case OPT_PROGRESS:
			opts.progress = 1;
			break;
		case OPT_MIRROR:
			opts.copies = optarg == NULL ? 2 : (int)tool_parse_long(
			    optarg, 1, PVFS_COPIES_MAX, "mirror");
			opts.have_dist = 1;
			break;
		default:
			tool_usage_error("invalid option");
		}
	}
}

int
main(int argc, char **argv)
{
	int n;

	tool_init("pvfs-cp", usage);
	cp_options(argc, argv);
	if (isatty(STDERR_FILENO))
		opts.progress = 1;
	n = argc - optind;
	if (n < 1)
		tool_usage_error("missing file operand");
	if (n < 2)
		tool_usage_error("missing destination file operand after '%s'",
		    argv[optind]);
	tool_operands(argc, argv, optind);
	cp_check_iods(argv[argc - 1]);
	return tool_copy_each(argc, argv, optind, 1, cp_path);
}
