/*
 * tools-common.c - messages, option parsing, sizes, paths and the file
 * operations every shell tool uses, so that all of them behave alike.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

const char *tool_prog = "pvfs";
int tool_status = TOOL_EXIT_OK;
static const char *tool_usage_text = "";

void
tool_init(const char *prog, const char *usage)
{
	tool_prog = prog;
	tool_usage_text = usage;
}

/* The daemon behind the error, when the library knows it: "Connection
 * refused (iod 2, 127.0.0.1:7002)". */
void
tool_err(const char *path, int err)
{
	const char *who = pvfs_error_detail();

	if (who != NULL && pvfs_error_detail_errno() == err)
		tool_errmsg(path, "%s (%s)", strerror(err), who);
	else
		tool_errmsg(path, "%s", strerror(err));
}

void
tool_errmsg(const char *path, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	if (path != NULL)
		fprintf(stderr, "%s: %s: ", tool_prog, path);
	else
		fprintf(stderr, "%s: ", tool_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	tool_status = TOOL_EXIT_FAIL;
}

void
tool_usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", tool_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '%s --help'.\n", tool_prog);
	exit(TOOL_EXIT_USAGE);
}

int
tool_getopt(int argc, char **argv, const char *opts,
    const struct option *longopts)
{
	char buf[64];
	int c;

	snprintf(buf, sizeof(buf), ":%s", opts);
	opterr = 0;
	c = getopt_long(argc, argv, buf, longopts, NULL);
	switch (c) {
	case TOOL_OPT_HELP:
		fputs(tool_usage_text, stdout);
		exit(TOOL_EXIT_OK);
	case TOOL_OPT_VERSION:
		printf("%s (PVFS) %s\n", tool_prog, PVFS_VERSION_STRING);
		exit(TOOL_EXIT_OK);
	case ':':
		if (optopt > 0 && optopt < 0x80 && isprint(optopt))
			tool_usage_error("option requires an argument -- '%c'", optopt);
		tool_usage_error("option '%s' requires an argument", argv[optind - 1]);
	case '?':
		if (optopt > 0 && optopt < 0x80 && isprint(optopt))
			tool_usage_error("invalid option -- '%c'", optopt);
		tool_usage_error("unrecognized option '%s'", argv[optind - 1]);
	}
	return c;
}

/* Most tools have one flag besides --help and --version. */
int
tool_getflag(int argc, char **argv, int flag, const char *name)
{
	const struct option longopts[] = {
		{ name, no_argument, NULL, flag },
		TOOL_COMMON_OPTS,
		{ NULL, 0, NULL, 0 }
	};
	const char opts[] = { (char)flag, '\0' };
	int c, set = 0;

	while ((c = tool_getopt(argc, argv, opts, longopts)) != -1) {
		if (c == flag)
			set = 1;
		else
			tool_usage_error("invalid option");
	}
	return set;
}

long
tool_parse_long(const char *s, long min, long max, const char *what)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
		tool_usage_error("invalid %s: '%s'", what, s);
	return v;
}

int
tool_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "kmgtpe";
	const char *u;
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	if (*end != '\0') {
		if ((u = strchr(units, tolower((unsigned char)*end))) == NULL)
			return -1;
		shift = 10 * (int)(u - units + 1);
		end++;
		if ((*end == 'i' && end[1] == 'B') || *end == 'B')
			end += *end == 'i' ? 2 : 1;
		if (*end != '\0' || (v != 0 && v > (UINT64_MAX >> shift)))
			return -1;
	}
	*out = (uint64_t)v << shift;
	return 0;
}

const char *
tool_human(uint64_t n, char *buf, size_t len)
{
	static const char units[] = "KMGTPE";
	double v = (double)n;
	int i = -1;

	if (n < 1024) {
		snprintf(buf, len, "%llu", (unsigned long long)n);
		return buf;
	}
	while (v >= 1024 && i < 5) {
		v /= 1024;
		i++;
	}
	if (v < 10)
		snprintf(buf, len, "%.1f%c", v, units[i]);
	else
		snprintf(buf, len, "%.0f%c", v, units[i]);
	return buf;
}

/* Bits of one symbolic clause's permission letters for the users in who;
 * X counts the mode as changed so far, as chmod(1) does. */
static mode_t
tool_mode_bits(const char *p, const char **end, mode_t who, mode_t old)
{
	mode_t bits = 0;

	for (; *p && strchr("rwxXst", *p); p++) {
		if (*p == 'r')
			bits |= (S_IRUSR | S_IRGRP | S_IROTH) & who;
		else if (*p == 'w')
			bits |= (S_IWUSR | S_IWGRP | S_IWOTH) & who;
		else if (*p == 'x' || (*p == 'X' && (S_ISDIR(old) || (old & 0111))))
			bits |= (S_IXUSR | S_IXGRP | S_IXOTH) & who;
		else if (*p == 's')
			bits |= (S_ISUID | S_ISGID) & who;
		else if (*p == 't')
			bits |= S_ISVTX;
	}
	*end = p;
	return bits;
}

static mode_t
tool_mode_who(const char **p)
{
	mode_t who = 0;

	for (; **p && strchr("ugoa", **p); (*p)++)
		who |= **p == 'u' ? S_ISUID | S_IRWXU : **p == 'g' ? S_ISGID | S_IRWXG :
		    **p == 'o' ? S_IRWXO : 07777;
	return who;
}

int
tool_parse_mode(const char *s, mode_t old, mode_t *out)
{
	mode_t m = old & 07777, who, bits, mask = umask(0);
	const char *p = s;
	char *end;
	int op, all;

	umask(mask);
	if (isdigit((unsigned char)*s)) {
		unsigned long v = strtoul(s, &end, 8);

		if (*end != '\0' || v > 07777)
			return -1;
		*out = (mode_t)v;
		return 0;
	}
	do {
		all = (who = tool_mode_who(&p)) == 0;
		if (all)
			who = 07777 & ~mask;
		if (*p != '+' && *p != '-' && *p != '=')
			return -1;
		while (*p == '+' || *p == '-' || *p == '=') {
			op = *p++;
			bits = tool_mode_bits(p, &p, all ? 07777 : who,
			    (old & S_IFMT) | m) & who;
			if (op == '=')
				m = (m & ~(all ? 07777 : who)) | bits;
			else
				m = op == '+' ? m | bits : m & ~bits;
		}
	} while (*p == ',' && *++p != '\0');
	if (*p != '\0')
		return -1;
	*out = m;
	return 0;
}

static int tool_local_ok; /* no pvfstab: plain paths are local */

void
tool_operands(int argc, char **argv, int first)
{
	int i;

	for (i = first; i < argc; i++)
		if (strncmp(argv[i], "pvfs://", 7) == 0)
			tool_local_ok = 1;
}

/* Exits unless the pvfstab tells local paths from PVFS ones (doc/tools.md,
 * "Local or PVFS"): a malformed one is an error, and with none at all a
 * plain path is local only next to a pvfs:// URL operand. */
static void
tool_tab_check(const char *path)
{
	const char *tab, *cause = NULL;
	int st = pvfs_tab_status(&tab, &cause);

	if (st == 0 || (st == ENOENT && tool_local_ok))
		return;
	if (st == EINVAL)
		tool_errmsg(NULL, "%s", cause != NULL ? cause : tab);
	else
		tool_errmsg(path, "no pvfstab (tried %s%s), so it is unknown "
		    "whether this is a PVFS path; set PVFSTAB_FILE or give a "
		    "pvfs:// URL", tab, getenv("PVFSTAB_FILE") != NULL &&
		    *getenv("PVFSTAB_FILE") != '\0' ? " from $PVFSTAB_FILE" : "");
	exit(TOOL_EXIT_FAIL);
}

int
tool_is_pvfs(const char *path)
{
	if (strncmp(path, "pvfs://", 7) == 0)
		return 1;
	if (strcmp(path, "-") == 0)
		return 0;
	tool_tab_check(path);
	return pvfs_is_pvfs_path(path);
}

int
tool_need_pvfs(const char *path)
{
	if (tool_is_pvfs(path))
		return 1;
	tool_errmsg(path, "not a PVFS path (no pvfstab prefix or pvfs:// URL)");
	return 0;
}

void *
tool_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL) {
		tool_errmsg(NULL, "%s", strerror(ENOMEM));
		exit(TOOL_EXIT_FAIL);
	}
	return p;
}

void
tool_free_list(char **v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

char *
tool_join(const char *dir, const char *name)
{
	size_t l = strlen(dir);
	char *s = tool_xmalloc(l + strlen(name) + 2);

	sprintf(s, "%s%s%s", dir, l > 0 && dir[l - 1] == '/' ? "" : "/", name);
	return s;
}

char *
tool_base(const char *path)
{
	size_t e = strlen(path), b;
	char *s;

	while (e > 1 && path[e - 1] == '/')
		e--;
	for (b = e; b > 0 && path[b - 1] != '/'; b--)
		;
	s = tool_xmalloc(e - b + 1);
	memcpy(s, path + b, e - b);
	s[e - b] = '\0';
	return s;
}

int
tool_is_root(const char *path)
{
	return pvfs_path_is_root(path);
}

struct tool_job {
	void (*fn)(uint32_t, void *);
	void *arg;
	uint32_t i;
};

static void *
tool_job_run(void *p)
{
	struct tool_job *j = p;

	j->fn(j->i, j->arg);
	return NULL;
}

void
tool_each_parallel(uint32_t n, void (*fn)(uint32_t i, void *arg), void *arg)
{
	struct tool_job *jobs = tool_xmalloc((n ? n : 1) * sizeof(*jobs));
	pthread_t *tids = tool_xmalloc((n ? n : 1) * sizeof(*tids));
	char *started = tool_xmalloc(n ? n : 1);
	uint32_t i;

	for (i = 0; i < n; i++) {
		jobs[i] = (struct tool_job){ fn, arg, i };
		started[i] = pthread_create(&tids[i], NULL, tool_job_run,
		    &jobs[i]) == 0;
		if (!started[i])
			fn(i, arg);
	}
	for (i = 0; i < n; i++)
		if (started[i])
			pthread_join(tids[i], NULL);
	free(jobs);
	free(tids);
	free(started);
}

void
tool_check_timeout(void)
{
	if (getenv("PVFS_TIMEOUT") == NULL)
		setenv("PVFS_TIMEOUT", TOOL_CHECK_TIMEOUT, 1);
}

int
tool_tab_prefixes(char ***out)
{
	char *cause;
	int n;

	if ((n = pvfs_tab_prefixes(out, &cause)) < 0) {
		tool_errmsg(NULL, "%s", cause != NULL ? cause : strerror(errno));
		free(cause);
	}
	return n;
}

/* ---- one interface to local and PVFS files ---- */

int
tool_stat(const char *path, struct stat *st)
{
	return tool_is_pvfs(path) ? pvfs_stat(path, st) : stat(path, st);
}

int
tool_lstat(const char *path, struct stat *st)
{
	return tool_is_pvfs(path) ? pvfs_lstat(path, st) : lstat(path, st);
}

int
tool_lstat_meta(const char *path, struct stat *st)
{
	return tool_is_pvfs(path) ? pvfs_stat_meta(path, st, 1) :
	    lstat(path, st);
}

int
tool_readlink(const char *path, char *buf, size_t len)
{
	ssize_t n = tool_is_pvfs(path) ? pvfs_readlink(path, buf, len) :
	    readlink(path, buf, len);

	if (n < 0)
		return -1;
	if ((size_t)n >= len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

int
tool_symlink(const char *target, const char *path)
{
	return tool_is_pvfs(path) ? pvfs_symlink(target, path) :
	    symlink(target, path);
}

int
tool_lchown(const char *path, uid_t uid, gid_t gid)
{
	return tool_is_pvfs(path) ? pvfs_lchown(path, uid, gid) :
	    lchown(path, uid, gid);
}

int
tool_open(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *dist, int copies, struct tool_fd *f)
{
	struct pvfs_filestat d;

	f->pvfs = tool_is_pvfs(path);
	if (!f->pvfs)
		f->fd = open(path, flags | O_CLOEXEC, mode);
	else if (copies > 0)
		f->fd = pvfs_open_mirror(path, flags, mode, dist, copies);
	else if (dist != NULL && (flags & O_CREAT)) {
		d = *dist;
		f->fd = pvfs_open(path, flags | PVFS_O_META, mode, &d);
	} else
		f->fd = pvfs_open(path, flags, mode);
	return f->fd < 0 ? -1 : 0;
}

ssize_t
tool_read(struct tool_fd *f, void *buf, size_t n)
{
	return f->pvfs ? pvfs_read(f->fd, buf, n) : read(f->fd, buf, n);
}

ssize_t
tool_write(struct tool_fd *f, const void *buf, size_t n)
{
	return f->pvfs ? pvfs_write(f->fd, buf, n) : write(f->fd, buf, n);
}

ssize_t
tool_pread(struct tool_fd *f, void *buf, size_t n, off_t off)
{
	return f->pvfs ? pvfs_pread(f->fd, buf, n, off) : pread(f->fd, buf, n, off);
}

ssize_t
tool_pwrite(struct tool_fd *f, const void *buf, size_t n, off_t off)
{
	return f->pvfs ? pvfs_pwrite(f->fd, buf, n, off) :
	    pwrite(f->fd, buf, n, off);
}

int
tool_fstat(struct tool_fd *f, struct stat *st)
{
	return f->pvfs ? pvfs_fstat(f->fd, st) : fstat(f->fd, st);
}

int
tool_ftruncate(struct tool_fd *f, off_t len)
{
	return f->pvfs ? pvfs_ftruncate(f->fd, len) : ftruncate(f->fd, len);
}

int
tool_close(struct tool_fd *f)
{
	return f->pvfs ? pvfs_close(f->fd) : close(f->fd);
}

int
tool_mkdir(const char *path, mode_t mode)
{
	return tool_is_pvfs(path) ? pvfs_mkdir(path, mode) : mkdir(path, mode);
}

int
tool_mknod(const char *path, mode_t mode, dev_t dev)
{
	return tool_is_pvfs(path) ? pvfs_mknod(path, mode, dev) :
	    mknod(path, mode, dev);
}

int
tool_rmdir(const char *path)
{
	return tool_is_pvfs(path) ? pvfs_rmdir(path) : rmdir(path);
}

int
tool_unlink(const char *path)
{
	return tool_is_pvfs(path) ? pvfs_unlink(path) : unlink(path);
}

int
tool_chmod(const char *path, mode_t mode)
{
	return tool_is_pvfs(path) ? pvfs_chmod(path, mode) : chmod(path, mode);
}

int
tool_chown(const char *path, uid_t uid, gid_t gid)
{
	return tool_is_pvfs(path) ? pvfs_chown(path, uid, gid) :
	    chown(path, uid, gid);
}

int
tool_utimes(const char *path, const struct stat *st)
{
	struct timeval tv[2];

	tv[0].tv_sec = st->st_atim.tv_sec;
	tv[0].tv_usec = st->st_atim.tv_nsec / 1000;
	tv[1].tv_sec = st->st_mtim.tv_sec;
	tv[1].tv_usec = st->st_mtim.tv_nsec / 1000;
	return tool_is_pvfs(path) ? pvfs_utimes(path, tv) : utimes(path, tv);
}

static int
tool_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append a name to a growing array. */
static void
tool_list_add(char ***v, size_t *n, size_t *cap, const char *name)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		if ((*v = realloc(*v, *cap * sizeof(char *))) == NULL) {
			tool_errmsg(NULL, "%s", strerror(ENOMEM));
			exit(TOOL_EXIT_FAIL);
		}
	}
	(*v)[(*n)++] = strdup(name);
}

int
tool_list_dir(const char *path, char ***names, size_t *n)
{
	int pv = tool_is_pvfs(path);
	PVFS_DIR *pd = NULL;
	DIR *d = NULL;
	struct dirent *de;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (pv ? (pd = pvfs_opendir(path)) == NULL : (d = opendir(path)) == NULL)
		return -1;
	errno = 0;
	while ((de = pv ? pvfs_readdir(pd) : readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			tool_list_add(names, n, &cap, de->d_name);
		errno = 0;
	}
	if (errno != 0) {
		int saved = errno;

		tool_free_list(*names, *n);
		pv ? pvfs_closedir(pd) : closedir(d);
		errno = saved;
		return -1;
	}
	pv ? pvfs_closedir(pd) : closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof(char *), tool_name_cmp);
	return 0;
}

int
tool_each_child(const char *dir, int (*fn)(const char *path))
{
	char **names, *p;
	size_t i, n;
	int rc = 0;

	if (tool_list_dir(dir, &names, &n) != 0) {
		tool_err(dir, errno);
		return -1;
	}
	for (i = 0; i < n; i++) {
		p = tool_join(dir, names[i]);
		rc |= fn(p);
		free(p);
	}
	tool_free_list(names, n);
	return rc != 0 ? -1 : 0;
}

int
tool_each_operand(int argc, char **argv, int first,
    int (*fn)(const char *path))
{
	int i;

	for (i = first; i < argc; i++)
		if (tool_need_pvfs(argv[i]))
			fn(argv[i]);
	return tool_status;
}
