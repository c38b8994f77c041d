/*
 * pvfs-fuse - mount a PVFS file system with FUSE (doc/fuse.md).
 *
 * libfuse 3's high-level, path-based API: the library's name-space calls
 * take paths, so there is no inode table of ours to keep coherent with
 * the mgr's, and libfuse's multi-threaded loop calls into the thread-safe
 * libpvfs directly.  Open files are the library's struct pvfs_file.
 *
 *   pvfs-fuse [SOURCE] MOUNTPOINT [-o OPTIONS] [-f]
 *
 * SOURCE (or -o source=) is pvfs://host:port[/dir] or a path under a
 * pvfstab prefix; without one, the pvfstab's first file system.  The
 * mount.fuse3 convention (mount -t fuse.pvfs, fstab) calls us as
 * pvfs-fuse SOURCE MOUNTPOINT -o OPTIONS through mount.fuse.pvfs.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h" /* pvfs_tab_path */
#include "pvfs-fuse.h"

struct fz_mount fz = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* An inode open through this mount, and how often. */
struct fz_open {
	uint64_t ino;
	int count;
	struct fz_open *next;
};

/* ---- paths ---- */

int
fz_path(const char *p, char *out)
{
	size_t n = strlen(p);

	if (fz.prefix_len + n + 1 > FZ_PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(out, fz.prefix, fz.prefix_len);
	/* "/" is the prefix itself: the library routes "/pvfs" and
	 * "pvfs://h:p" to the root. */
	if (strcmp(p, "/") == 0 && fz.prefix_len > 1)
		p = "";
	memcpy(out + fz.prefix_len, p, strlen(p) + 1);
	return 0;
}

int
fz_err(void)
{
	return errno != 0 ? -errno : -EIO;
}

/* ---- identity ---- */

void
fz_caller(struct fz_ident *who)
{
	struct fuse_context *c = fuse_get_context();
	int n;

	who->uid = c->uid;
	who->gid = c->gid;
	/* The groups of the calling thread, from /proc: 0 if it is gone. */
	n = fuse_getgroups(FZ_GROUPS, who->groups);
	who->ngroups = n < 0 ? 0 : n > FZ_GROUPS ? FZ_GROUPS : n;
}

void
fz_as(const struct fz_ident *who)
{
	struct fz_ident me;

	/* Every other operation of the caller's comes between its getattrs:
	 * what one fetched is not the next one's (a setattr's reply). */
	fz_attr_drop();
	if (!fz.as_caller)
		return;
	if (who == NULL) {
		fz_caller(&me);
		who = &me;
	}
	pvfs_client_set_ident(who->uid, who->gid, who->groups, who->ngroups);
}

/* ---- read-ahead ---- */

/* mountinfo escapes blanks and backslashes as \ooo. */
static void
fz_unescape(char *s)
{
	char *o = s;

	for (; *s != '\0'; s++, o++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' &&
		    s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*o = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o = *s;
		}
	}
	*o = '\0';
}

/* The kernel reads ahead 128 KiB by default, so sequential reads come as
 * 128 KiB requests, each a round trip through this daemon and the iods;
 * 1 MiB requests read about 1.6 times faster (doc/benchmarks.md).  The
 * knob is the mount's bdi in sysfs, root's to write; the mount is the
 * last fuse.pvfs line for our mount point. */
void
fz_set_readahead(void)
{
	char line[PATH_MAX + 512], mp[PATH_MAX + 1], dev[32] = "", path[96];
	unsigned maj, min;
	FILE *f;

	if (fz.read_ahead_kb == 0 || geteuid() != 0 ||
	    (f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*d %*d %u:%u %*s %4096s", &maj, &min, mp) != 3 ||
		    strstr(line, " - fuse.pvfs ") == NULL)
			continue;
		fz_unescape(mp);
		if (strcmp(mp, fz.mnt) == 0)
			snprintf(dev, sizeof(dev), "%u:%u", maj, min);
	}
	fclose(f);
	if (dev[0] == '\0')
		return;
	snprintf(path, sizeof(path), "/sys/class/bdi/%s/read_ahead_kb", dev);
	if ((f = fopen(path, "w")) != NULL) {
		fprintf(f, "%u\n", fz.read_ahead_kb);
		fclose(f);
	}
}

/* ---- one fetch per stat ----
 *
 * With attr_timeout=0 a stat(2) of a path is two requests, LOOKUP and
 * then GETATTR, and libfuse's high-level API makes both a getattr of
 * the same path: two mgr round trips (and a regular file's size, an
 * IOD_SIZE to each of its iods, twice) for one answer.  So a getattr's
 * result is handed to the next getattr of the same path by the same
 * calling thread, once, if it comes within FZ_HANDOFF_NS: the GETATTR
 * of the same system call.  Every system call still asks the mgr. */

#define FZ_HANDOFF_NS 2000000   /* 2 ms */
#define FZ_HANDOFF_SLOTS 64

struct fz_handoff {
	pid_t pid;              /* the caller's thread; 0: empty */
	int64_t when;
	struct stat st;
	char path[FZ_PATH_MAX];
};
static struct fz_handoff fz_handoff[FZ_HANDOFF_SLOTS];
static pthread_mutex_t fz_handoff_lock = PTHREAD_MUTEX_INITIALIZER;

static int64_t
fz_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
fz_attr_drop(void)
{
	pid_t pid = fuse_get_context()->pid;
	struct fz_handoff *h = &fz_handoff[(unsigned)pid % FZ_HANDOFF_SLOTS];

	if (!fz.handoff || pid <= 0)
		return;
	pthread_mutex_lock(&fz_handoff_lock);
	if (h->pid == pid)
		h->pid = 0;
	pthread_mutex_unlock(&fz_handoff_lock);
}

int
fz_attr_take(const char *path, struct stat *st)
{
	pid_t pid = fuse_get_context()->pid;
	struct fz_handoff *h = &fz_handoff[(unsigned)pid % FZ_HANDOFF_SLOTS];
	int hit;

	if (!fz.handoff || pid <= 0)
		return 0;
	pthread_mutex_lock(&fz_handoff_lock);
	hit = h->pid == pid && fz_now() - h->when < FZ_HANDOFF_NS &&
	    strcmp(h->path, path) == 0;
	if (hit)
		*st = h->st;
	if (h->pid == pid)
		h->pid = 0;
	pthread_mutex_unlock(&fz_handoff_lock);
	return hit;
}

void
fz_attr_give(const char *path, const struct stat *st)
{
	pid_t pid = fuse_get_context()->pid;
	struct fz_handoff *h = &fz_handoff[(unsigned)pid % FZ_HANDOFF_SLOTS];
	size_t n = strlen(path);

	if (!fz.handoff || pid <= 0 || n >= sizeof(h->path))
		return;
	pthread_mutex_lock(&fz_handoff_lock);
	h->pid = pid;
	h->when = fz_now();
	h->st = *st;
	memcpy(h->path, path, n + 1);
	pthread_mutex_unlock(&fz_handoff_lock);
}

/* ---- open counts (a distribution changes only while none is open) ---- */

void
fz_open_count(uint64_t ino, int delta)
{
	struct fz_open **pp, *o;

	pthread_mutex_lock(&fz.lock);
	for (pp = &fz.opens; (o = *pp) != NULL && o->ino != ino; pp = &o->next)
		;
	if (o == NULL && delta > 0 && (o = calloc(1, sizeof(*o))) != NULL) {
		o->ino = ino;
		o->next = fz.opens;
		fz.opens = o;
		pp = &fz.opens;
	}
	if (o != NULL && (o->count += delta) <= 0) {
		*pp = o->next;
		free(o);
	}
	pthread_mutex_unlock(&fz.lock);
}

int
fz_open_busy(uint64_t ino)
{
	struct fz_open *o;
	int n = 0;

	pthread_mutex_lock(&fz.lock);
	for (o = fz.opens; o != NULL; o = o->next)
		if (o->ino == ino)
			n = o->count;
	pthread_mutex_unlock(&fz.lock);
	return n;
}

/* ---- the command line ---- */

struct fz_opts {
	char *source;
	unsigned read_ahead_kb;
	int writeback;
	int page_cache;
	int prefetch;
	int as_owner;
	int help, version;
};

#define FZ_OPT(t, p) { t, offsetof(struct fz_opts, p), 1 }
static const struct fuse_opt fz_optspec[] = {
	{ "source=%s", offsetof(struct fz_opts, source), 0 },
	{ "read_ahead_kb=%u", offsetof(struct fz_opts, read_ahead_kb), 0 },
	FZ_OPT("writeback_cache", writeback),
	FZ_OPT("page_cache", page_cache),
	{ "prefetch=%u", offsetof(struct fz_opts, prefetch), 0 },
	FZ_OPT("as_owner", as_owner),
	FZ_OPT("-h", help),
	FZ_OPT("--help", help),
	FZ_OPT("-V", version),
	FZ_OPT("--version", version),
	FUSE_OPT_END
};

static char *fz_nonopt[2];
static int fz_nnonopt;

static int
fz_optproc(void *data, const char *arg, int key, struct fuse_args *out)
{
	if (key != FUSE_OPT_KEY_NONOPT)
		return 1;
	if (fz_nnonopt == 2) {
		fprintf(stderr, "pvfs-fuse: too many arguments: %s\n", arg);
		return -1;
	}
	fz_nonopt[fz_nnonopt++] = strdup(arg);
	return 0;
}

static void
fz_usage(void)
{
	printf(
"Usage: pvfs-fuse [SOURCE] MOUNTPOINT [-o OPTION[,OPTION...]] [-f] [-d] [-s]\n"
"Mount a PVFS file system at MOUNTPOINT.  SOURCE (or -o source=) is\n"
"pvfs://HOST:PORT[/DIR] or a path under a pvfstab prefix ($PVFSTAB_FILE,\n"
"else the default pvfstab); without one, the pvfstab's first file system.\n"
"\n"
"  -o attr_timeout=S    seconds the kernel may cache attributes (default 0)\n"
"  -o entry_timeout=S   seconds it may cache names (default 0)\n"
"  -o page_cache        reads and writes through the kernel's page cache\n"
"                       (read-ahead for small reads; default: direct I/O)\n"
"  -o writeback_cache   let the kernel cache writes (one writer a file;\n"
"                       implies page_cache)\n"
"  -o prefetch=0        direct I/O: no read-ahead in pvfs-fuse for sequential\n"
"                       readers (default 1)\n"
"  -o read_ahead_kb=N   the mount's read-ahead, as root (default 1024; 0: the\n"
"                       kernel's 128)\n"
"  -o as_owner          as root: act as root, not as each caller\n"
"  -o allow_other, default_permissions, max_threads=N, ... as for FUSE\n"
"  -f                   stay in the foreground (systemd)\n"
"  -d                   debug: foreground, each request logged\n"
"  -s                   one thread\n"
"  -h, --help           this help and libfuse's options\n"
"  -V, --version        the version\n"
"\n"
"See pvfs-fuse(1) and doc/fuse.md.\n");
}

/* The PVFS path that the mount's root stands for. */
static int
fz_resolve_source(const char *src)
{
	char **prefixes = NULL, *cause = NULL;
	struct stat st;
	size_t n;

	if (src == NULL) {
		if (pvfs_tab_prefixes(&prefixes, &cause) < 1) {
			fprintf(stderr, "pvfs-fuse: no source given and no file "
			    "system in the pvfstab (%s): %s\n", pvfs_tab_path(),
			    cause != NULL ? cause : strerror(errno ? errno : ENOENT));
			free(cause);
			pvfs_free_list(prefixes);
			return -1;
		}
		snprintf(fz.prefix, sizeof(fz.prefix), "%s", prefixes[0]);
		pvfs_free_list(prefixes);
	} else if (snprintf(fz.prefix, sizeof(fz.prefix), "%s", src) >=
	    (int)sizeof(fz.prefix)) {
		fprintf(stderr, "pvfs-fuse: %s: source too long\n", src);
		return -1;
	}
	/* "pvfs://h:p/" and "/pvfs/" name their roots: drop the slash, so
	 * mount paths append. */
	n = strlen(fz.prefix);
	while (n > 1 && fz.prefix[n - 1] == '/')
		fz.prefix[--n] = '\0';
	fz.prefix_len = n;
	if (!pvfs_is_pvfs_path(fz.prefix)) {
		fprintf(stderr, "pvfs-fuse: %s: not a PVFS file system "
		    "(pvfstab %s)\n", fz.prefix, pvfs_tab_path());
		return -1;
	}
	/* Ask the mgr now, so a bad source fails the mount, not the first
	 * program that looks. */
	if (pvfs_stat(fz.prefix, &st) != 0) {
		fprintf(stderr, "pvfs-fuse: %s: %s\n", fz.prefix, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "pvfs-fuse: %s: not a directory\n", fz.prefix);
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	struct fz_opts o;
	char fsopt[PATH_MAX + 64];
	const char *source = NULL, *mnt = NULL;
	int rc;

	memset(&o, 0, sizeof(o));
	o.read_ahead_kb = 1024;
	o.prefetch = 1;
	if (fuse_opt_parse(&args, &o, fz_optspec, fz_optproc) != 0)
		return 1;
	if (o.version) {
		printf("pvfs-fuse (PVFS) %s\n", PVFS_VERSION_STRING);
		return 0;
	}
	if (o.help) {
		fz_usage();
		printf("\nlibfuse's options:\n");
		fuse_lib_help(&args);
		return 0;
	}
	if (fz_nnonopt == 2) {
		source = fz_nonopt[0];
		mnt = fz_nonopt[1];
	} else if (fz_nnonopt == 1) {
		mnt = fz_nonopt[0];
	}
	if (o.source != NULL)
		source = o.source;
	if (mnt == NULL) {
		fprintf(stderr, "pvfs-fuse: no mount point given\n"
		    "Try 'pvfs-fuse --help'.\n");
		return 2;
	}
	if (fz_resolve_source(source) != 0)
		return 1;
	/* Before libfuse daemonizes (and changes to /). */
	if (realpath(mnt, fz.mnt) == NULL) {
		fprintf(stderr, "pvfs-fuse: %s: %s\n", mnt, strerror(errno));
		return 1;
	}
	fz.read_ahead_kb = o.read_ahead_kb > 1048576 ? 1048576 : o.read_ahead_kb;
	fz.source = fz.prefix;
	fz.writeback = o.writeback;
	fz.direct = !o.page_cache && !o.writeback;
	fz.ahead = o.prefetch != 0;
	fz.as_caller = geteuid() == 0 && !o.as_owner;
	fz.max_write = 1024 * 1024;
	/* Safe defaults for several clients writing the same files; options
	 * given later on the command line win. */
	fuse_opt_insert_arg(&args, 1,
	    "-oattr_timeout=0,entry_timeout=0,negative_timeout=0");
	snprintf(fsopt, sizeof(fsopt), "-osubtype=pvfs,fsname=%s", fz.prefix);
	/* fsname is a comma-separated option value: escape commas. */
	if (strchr(fz.prefix, ',') != NULL)
		snprintf(fsopt, sizeof(fsopt), "-osubtype=pvfs");
	fuse_opt_insert_arg(&args, 2, fsopt);
	fuse_opt_add_arg(&args, mnt);
	rc = fz_main(&args);
	fuse_opt_free_args(&args);
	return rc;
}
