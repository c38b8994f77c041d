/*
 * tools.h - what every shell tool shares (tools-common.c): messages in the
 * form "prog: path: message", the exit codes, the option parser, sizes,
 * and one set of file operations over local and PVFS paths; and the copy
 * engine of pvfs-cp and pvfs-mv (tools-copy.c).
 *
 * Exit codes (doc/tools.md): 0 success, 1 any failure (after reporting
 * it and, in recursive operations, going on with the rest), 2 bad usage.
 */
#ifndef PVFS_TOOLS_H
#define PVFS_TOOLS_H

#include <getopt.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "common.h"
#include "pvfs.h"

#define TOOL_EXIT_OK 0
#define TOOL_EXIT_FAIL 1
#define TOOL_EXIT_USAGE 2

/* Long options every tool has; tool_getopt handles them. */
#define TOOL_OPT_HELP 0x1001
#define TOOL_OPT_VERSION 0x1002
#define TOOL_COMMON_OPTS \
	{ "help", no_argument, NULL, TOOL_OPT_HELP }, \
	{ "version", no_argument, NULL, TOOL_OPT_VERSION }

/* ---- tools-common.c: messages, options, sizes ---- */
extern const char *tool_prog;
extern int tool_status; /* TOOL_EXIT_FAIL once anything failed */

void tool_init(const char *prog, const char *usage);
/* "prog: path: strerror(err)" on stderr; the exit status becomes 1. */
void tool_err(const char *path, int err);
/* "prog: path: message"; path may be NULL ("prog: message"). */
void tool_errmsg(const char *path, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "prog: message", "Try 'prog --help'." and exit 2. */
void tool_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));
/* getopt_long that answers --help and --version itself (exit 0) and turns
 * an unknown option or a missing argument into a usage error. */
int tool_getopt(int argc, char **argv, const char *opts,
    const struct option *longopts);
/* All the options of a tool whose one option is the flag -flag, --name:
 * 1 if it was given, else 0 (tool_getopt's errors, --help, --version). */
int tool_getflag(int argc, char **argv, int flag, const char *name);
/* A whole number in [min, max], else a usage error naming what. */
long tool_parse_long(const char *s, long min, long max, const char *what);
/* "512", "64k", "8M", "2G", "1T" (powers of 1024): 0 or -1. */
int tool_parse_size(const char *s, uint64_t *out);
/* "1.5K", "23M", "4.0G": ls -h / df -h style (powers of 1024). */
const char *tool_human(uint64_t n, char *buf, size_t len);
/* Octal ("755") or symbolic ("u+x,go-w", "a=r") mode applied to old. */
int tool_parse_mode(const char *s, mode_t old, mode_t *out);

/* ---- tools-common.c: paths ---- */
/* 1 if path is a PVFS path: under a pvfstab prefix, or pvfs://host/path.
 * Exits with a message when the pvfstab is malformed, or missing and no
 * URL operand made plain paths local (tool_operands). */
int tool_is_pvfs(const char *path);
/* Note the operands argv[first..argc-1]: a pvfs:// URL among them lets
 * plain paths be local when there is no pvfstab (pvfs-cp, pvfs-mv). */
void tool_operands(int argc, char **argv, int first);
/* Like tool_is_pvfs, but reports "not a PVFS path" when it is not. */
int tool_need_pvfs(const char *path);
/* dir + "/" + name, malloc'd (exits on no memory). */
char *tool_join(const char *dir, const char *name);
/* The last component of path (trailing slashes ignored), malloc'd. */
char *tool_base(const char *path);
/* 1 if path names the root of a file system (prefix or pvfs://h:p/). */
int tool_is_root(const char *path);
/* Health checks (pvfs-ping, pvfs-counters) give each daemon
 * TOOL_CHECK_TIMEOUT seconds unless -t or PVFS_TIMEOUT says otherwise:
 * an unreachable host is reported in seconds, not waited for. */
#define TOOL_CHECK_TIMEOUT "5"
void tool_check_timeout(void);
/* fn(i, arg) for i in [0, n), all at once, one thread each (fewer if
 * threads run out: then in turn), and back when every call returned:
 * n unreachable daemons cost one timeout, not n. */
void tool_each_parallel(uint32_t n, void (*fn)(uint32_t i, void *arg),
    void *arg);
/* The pvfstab's mount prefixes (malloc'd array of malloc'd strings). */
int tool_tab_prefixes(char ***out);
void *tool_xmalloc(size_t n);
void tool_free_list(char **v, size_t n);

/* ---- tools-common.c: one interface to local and PVFS files ---- */
struct tool_fd {
	int fd;
	int pvfs;
};
int tool_stat(const char *path, struct stat *st);
int tool_lstat(const char *path, struct stat *st);
/* tool_lstat without a regular file's size, times or blocks (a PVFS
 * file's are not asked of its iods): for what needs only its type, so
 * that it works while an iod is down. */
int tool_lstat_meta(const char *path, struct stat *st);
/* A link's text, NUL-terminated, in buf (len bytes: ENAMETOOLONG if
 * short). */
int tool_readlink(const char *path, char *buf, size_t len);
int tool_symlink(const char *target, const char *path);
int tool_lchown(const char *path, uid_t uid, gid_t gid);
/* dist != NULL asks for a distribution, copies > 0 for that many copies
 * (a mirrored file), when a PVFS file is created. */
int tool_open(const char *path, int flags, mode_t mode,
    const struct pvfs_filestat *dist, int copies, struct tool_fd *f);
ssize_t tool_read(struct tool_fd *f, void *buf, size_t n);
ssize_t tool_write(struct tool_fd *f, const void *buf, size_t n);
ssize_t tool_pread(struct tool_fd *f, void *buf, size_t n, off_t off);
ssize_t tool_pwrite(struct tool_fd *f, const void *buf, size_t n, off_t off);
int tool_fstat(struct tool_fd *f, struct stat *st);
int tool_ftruncate(struct tool_fd *f, off_t len);
int tool_close(struct tool_fd *f);
int tool_mkdir(const char *path, mode_t mode);
int tool_mknod(const char *path, mode_t mode, dev_t dev);
int tool_rmdir(const char *path);
int tool_unlink(const char *path);
int tool_chmod(const char *path, mode_t mode);
int tool_chown(const char *path, uid_t uid, gid_t gid);
int tool_utimes(const char *path, const struct stat *st);
/* A directory's entry names without "." and "..", sorted by strcmp. */
int tool_list_dir(const char *path, char ***names, size_t *n);
/* fn on dir/name for each entry, in name order: -1 if the listing failed
 * (reported) or any fn returned non-zero, else 0. */
int tool_each_child(const char *dir, int (*fn)(const char *path));
/* fn on each operand argv[first..argc-1] that is a PVFS path (the others
 * are reported as not); the exit status. */
int tool_each_operand(int argc, char **argv, int first,
    int (*fn)(const char *path));

/* ---- tools-copy.c: the copy engine ---- */
struct tool_copy_opts {
	int preserve;   /* -p: mode, owner, group, times */
	int force;      /* -f: remove a destination that cannot be opened */
	int progress;   /* draw a progress bar on stderr */
	int have_dist;  /* new PVFS files get dist */
	struct pvfs_filestat dist;
	int copies;     /* --mirror: new PVFS files get copies (0: default) */
};
/* "prog: PRE 'path'POST: strerror(err)", coreutils' form of cp's errors
 * ("cannot create regular file 'x': No such file or directory"). */
void tool_copy_err(const char *pre, const char *path, const char *post,
    int err);
/* Copy one file (or "-" = stdin/stdout) to dst, verifying the byte count.
 * Errors are reported; 0 or -1. */
int tool_copy_file(const char *src, const char *dst,
    const struct tool_copy_opts *o);
/* The operands SRC... DST of pvfs-cp and pvfs-mv, argv[first..argc-1]:
 * fn(SRC, DST), or fn(SRC, DST/base(SRC)) for each SRC when DST is a
 * directory, as it must be for more than one SRC.  With dash, "-" is
 * standard input or output (never a directory, named "stdin" inside one).
 * The exit status. */
int tool_copy_each(int argc, char **argv, int first, int dash,
    int (*fn)(const char *src, const char *dst));

#endif /* PVFS_TOOLS_H */
