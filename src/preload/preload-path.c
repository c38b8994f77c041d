/*
 * preload-path.c - which paths are PVFS paths, the virtual working
 * directory, and the calls that name or resolve directories (chdir,
 * fchdir, getcwd, realpath).
 *
 * Routing is the library's pvfs_path_route: a path, joined to the virtual
 * cwd or a PVFS directory descriptor's path when relative, is compared
 * with the pvfstab's mount prefixes.  Under a prefix ".", ".." and a
 * trailing "/" go to the mgr as given (they change what a call means).
 * Local paths go to libc unchanged, except a relative path that climbs
 * out of a virtual cwd: libc gets its absolute form.  The kernel's cwd is
 * left alone while the cwd is virtual.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "preload.h"

#define PL_CWD_ENV "PVFS_PRELOAD_CWD"

static char **pl_prefix;
static size_t *pl_prefix_len;
static int pl_nprefix;

static pthread_mutex_t pl_cwd_lock = PTHREAD_MUTEX_INITIALIZER;
static char *pl_cwd;
static int pl_cwd_on;

/* The mount prefixes of the pvfstab (the library reads it again itself).
 * A prefix "/" would take the whole name space, programs included: it is
 * not routed. */
void
pl_path_load(void)
{
	char **tab, *cause;
	int n, i;

	n = pvfs_tab_prefixes(&tab, &cause);
	/* Said once: the program runs on, but no path is PVFS's now.  A
	 * missing or unreadable pvfstab is not worth a word. */
	if (n < 0 && errno == EINVAL && cause != NULL) {
		static const char pre[] = "libpvfs-preload: ",
		    post[] = "; no path is routed to PVFS\n";

		(void)!write(2, pre, sizeof(pre) - 1);
		(void)!write(2, cause, strlen(cause));
		(void)!write(2, post, sizeof(post) - 1);
	}
	free(cause);
	if (n <= 0 || (pl_prefix = calloc((size_t)n, sizeof(*pl_prefix))) == NULL ||
	    (pl_prefix_len = calloc((size_t)n, sizeof(*pl_prefix_len))) == NULL) {
		pvfs_free_list(tab);
		return;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(tab[i], "/") == 0 ||
		    (pl_prefix[pl_nprefix] = strdup(tab[i])) == NULL)
			continue;
		pl_prefix_len[pl_nprefix++] = strlen(tab[i]);
	}
	pvfs_free_list(tab);
}

int
pl_path_nprefix(void)
{
	return pl_nprefix;
}

/* Fold "//", "." and ".." of an absolute path; -1/ENAMETOOLONG.  Only
 * for paths that resolved (or the cwd from the environment): folding
 * "d/missing/.." would hide an ENOENT. */
static int
pl_normalize(const char *path, char *out, size_t outlen)
{
	const char *p = path, *c;
	size_t len = 0, n;

	while ((c = pvfs_path_next(&p, &n)) != NULL) {
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			pvfs_path_up(out, &len);
		} else if (!(n == 1 && c[0] == '.')) {
			if (len + 1 + n >= outlen) {
				errno = ENAMETOOLONG;
				return -1;
			}
			out[len++] = '/';
			memcpy(out + len, c, n);
			len += n;
		}
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return 0;
}

char *
pl_path_canon(const char *abs)
{
	char *out = malloc(PL_ABS_MAX);
	int rc;

	if (out == NULL)
		return NULL;
	pl_busy++;
	rc = pvfs_realpath(abs, out, PL_ABS_MAX);
	pl_busy--;
	if (rc != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* The prefix that path starts with, literally, or -1. */
static int
pl_match(const char *path)
{
	size_t l;
	int i;

	for (i = 0; i < pl_nprefix; i++) {
		l = pl_prefix_len[i];
		if (strncmp(path, pl_prefix[i], l) == 0 &&
		    (path[l] == '\0' || path[l] == '/'))
			return i;
	}
	return -1;
}

void
pl_path_root(const char *abs, char *root, size_t len)
{
	int i = pl_match(abs);

	snprintf(root, len, "%s", i >= 0 ? pl_prefix[i] : abs);
}

static int
pl_route_abs(const char *path, char *abs)
{
	return pvfs_path_route(path, (const char *const *)pl_prefix, pl_nprefix,
	    abs, PL_ABS_MAX);
}

/* Join base (a canonical directory) and a relative path.  Leading "./"
 * and "../" are taken from base at once: base is a directory that
 * resolved, so its parent is its lexical one, and a deep cwd keeps room
 * for the rest.  A last "." or ".." stays (rmdir("..") is not rmdir of
 * the parent). */
static int
pl_join(const char *base, const char *path, char *abs)
{
	size_t bl = strlen(base), pl;
	char *tmp;
	int rc;

	for (;;) {
		if (path[0] == '.' && path[1] == '/')
			path += 2;
		else if (path[0] == '.' && path[1] == '.' && path[2] == '/') {
			while (bl > 0 && base[bl - 1] != '/')
				bl--;
			if (bl > 0)
				bl--;
			path += 3;
		} else
			break;
		while (path[0] == '/')
			path++;
	}
	pl = strlen(path);
	if ((tmp = malloc(bl + pl + 2)) == NULL)
		return -2;
	memcpy(tmp, base, bl);
	tmp[bl] = '/';
	memcpy(tmp + bl + 1, path, pl + 1);
	rc = pl_route_abs(tmp, abs);
	free(tmp);
	return rc;
}

/* Whether a relative path from some local directory could lead under a
 * prefix: it climbs ("..") or its first component is a component of a
 * prefix ("pvfs/x" from "/").  Cheap, so local *at calls of programs
 * that never name PVFS pay no system call. */
static int
pl_local_may_reach(const char *path)
{
	const char *p = path, *c, *q, *pc;
	size_t n, first = 0, m;
	const char *f = NULL;
	int i;

	while ((c = pvfs_path_next(&p, &n)) != NULL) {
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return 1;
		if (f == NULL && !(n == 1 && c[0] == '.')) {
			f = c;
			first = n;
		}
	}
	if (f == NULL)
		return 0;
	for (i = 0; i < pl_nprefix; i++) {
		q = pl_prefix[i];
		while ((pc = pvfs_path_next(&q, &m)) != NULL) {
			if (m == first && memcmp(pc, f, m) == 0)
				return 1;
		}
	}
	return 0;
}

/* The path of a local directory: the kernel's cwd (AT_FDCWD) or a
 * descriptor's, as /proc names it; 0 if it has none (deleted, or not a
 * directory path). */
static int
pl_local_dir(int dirfd, char *base, size_t len)
{
	char link[64];
	ssize_t n;

	if (dirfd == AT_FDCWD)
		return REAL(getcwd)(base, len) != NULL && base[0] == '/';
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	n = REAL(readlink)(link, base, len - 1);
	if (n <= 0 || base[0] != '/')
		return 0;
	base[n] = '\0';
	return 1;
}

/* A relative path from a local directory: PVFS only if, joined to that
 * directory, it lands under a prefix (rsync walks "/" then "pvfs" with
 * openat); otherwise the caller's call goes to libc as it is. */
static enum pl_route
pl_route_local_dir(int dirfd, const char *path, char *abs)
{
	char base[PL_ABS_MAX];

	if (!pl_local_may_reach(path) || !pl_local_dir(dirfd, base, sizeof(base)))
		return PL_LOCAL;
	return pl_join(base, path, abs) >= 0 ? PL_PVFS : PL_LOCAL;
}

enum pl_route
pl_route(int dirfd, const char *path, char *abs)
{
	char base[PL_ABS_MAX];
	struct pl_file *f;

	if (PL_BAD_PTR(path) || !pl_active())
		return PL_LOCAL; /* the kernel says EFAULT */
	if (path[0] == '/') {
		/* Fast path: nothing to fold and no prefix: local as it is. */
		if (pl_match(path) < 0 && strstr(path, "/.") == NULL &&
		    strstr(path, "//") == NULL)
			return PL_LOCAL;
		if (strlen(path) >= PATH_MAX)
			return PL_LOCAL; /* the kernel's ENAMETOOLONG */
		if (pl_route_abs(path, abs) >= 0)
			return PL_PVFS;
		/* "/pvfs/.." names "/": the kernel cannot walk through /pvfs. */
		return pl_match(path) >= 0 ? PL_LOCAL_ABS : PL_LOCAL;
	}
	/* Linux's limit is on the string given, not on where it leads. */
	if (path[0] == '\0' || strlen(path) >= PATH_MAX)
		return PL_LOCAL;
	if (dirfd == AT_FDCWD) {
		if (!pl_cwd_get(base, sizeof(base)))
			return pl_route_local_dir(dirfd, path, abs);
	} else {
		if ((f = pl_get(dirfd)) == NULL)
			return pl_route_local_dir(dirfd, path, abs);
		snprintf(base, sizeof(base), "%s", f->path);
		pl_put(f);
	}
	switch (pl_join(base, path, abs)) {
	case -2:
		/* Longer than the shim can name: libc would take the path
		 * from the kernel's cwd, an unrelated directory. */
		return PL_TOOLONG;
	case -1:
		return PL_LOCAL_ABS;
	default:
		return PL_PVFS;
	}
}

/* A path the kernel refuses with ENAMETOOLONG before any lookup. */
const char *
pl_toolong_path(void)
{
	static char s[PATH_MAX + 1];

	if (s[0] == '\0') {
		memset(s + 1, 'x', PATH_MAX - 1);
		s[0] = '/';
	}
	return s;
}

/* ---- the virtual working directory ---- */

int
pl_cwd_is_virtual(void)
{
	return __atomic_load_n(&pl_cwd_on, __ATOMIC_ACQUIRE);
}

int
pl_cwd_get(char *buf, size_t len)
{
	int on;

	if (!pl_cwd_is_virtual())
		return 0;
	pthread_mutex_lock(&pl_cwd_lock);
	if ((on = pl_cwd != NULL))
		snprintf(buf, len, "%s", pl_cwd);
	pthread_mutex_unlock(&pl_cwd_lock);
	return on;
}

void
pl_cwd_atfork(int take)
{
	if (take)
		pthread_mutex_lock(&pl_cwd_lock);
	else
		pthread_mutex_unlock(&pl_cwd_lock);
}

/* The environment carries the virtual cwd to children started by libc
 * itself (system, popen); the exec wrappers add it to explicit envps. */
void
pl_cwd_set(const char *abs)
{
	char *n = abs == NULL ? NULL : strdup(abs), *old;

	pthread_mutex_lock(&pl_cwd_lock);
	old = pl_cwd;
	pl_cwd = n;
	__atomic_store_n(&pl_cwd_on, n != NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pl_cwd_lock);
	free(old);
	pl_busy++;
	if (n != NULL)
		setenv(PL_CWD_ENV, n, 1);
	else if (old != NULL)
		unsetenv(PL_CWD_ENV);
	pl_busy--;
}

void
pl_cwd_from_env(void)
{
	const char *s = getenv(PL_CWD_ENV);
	char abs[PL_ABS_MAX];

	if (s != NULL && s[0] == '/' && pl_normalize(s, abs, sizeof(abs)) == 0 &&
	    pl_match(abs) >= 0) {
		pl_cwd = strdup(abs);
		__atomic_store_n(&pl_cwd_on, pl_cwd != NULL, __ATOMIC_RELEASE);
	}
}

static int
pl_chdir_pvfs(const char *abs)
{
	struct stat st;
	int rc;

	if (pl_stat_abs(abs, &st) != 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	pl_busy++;
	rc = pvfs_access(abs, X_OK);
	pl_busy--;
	if (rc == 0) {
		/* It resolved: the name with its links resolved is its real
		 * one, which getcwd gives and ".." climbs from. */
		char *canon = pl_path_canon(abs);

		if (canon == NULL)
			return -1;
		pl_cwd_set(canon);
		free(canon);
	}
	return rc;
}

int
chdir(const char *path)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	const char *use = PL_USE(r, path, abs);
	int rc;

	if (r == PL_PVFS) {
		if (!PL_ESCAPED(rc = pl_chdir_pvfs(abs)))
			return rc;
		use = pvfs_local_path();
	}
	rc = REAL(chdir)(use);
	if (rc == 0 && !pl_busy && pl_cwd_is_virtual())
		pl_cwd_set(NULL);
	return rc;
}

int
fchdir(int fd)
{
	struct pl_file *f;
	int rc;

	if (pl_busy || (f = pl_get(fd)) == NULL) {
		rc = REAL(fchdir)(fd);
		if (rc == 0 && !pl_busy && pl_cwd_is_virtual())
			pl_cwd_set(NULL);
		return rc;
	}
	if (!f->isdir) {
		errno = ENOTDIR;
		rc = -1;
	} else {
		/* Its physical name, should it have been opened through a
		 * link: getcwd and ".." as after chdir. */
		char *canon = pl_path_canon(f->path);

		pl_cwd_set(canon != NULL ? canon : f->path);
		free(canon);
		rc = 0;
	}
	pl_put(f);
	return rc;
}

char *
getcwd(char *buf, size_t size)
{
	char cwd[PL_ABS_MAX];
	size_t len;

	if (!pl_active() || !pl_cwd_get(cwd, sizeof(cwd)))
		return REAL(getcwd)(buf, size);
	len = strlen(cwd) + 1;
	if (len > PATH_MAX) { /* as the kernel's getcwd */
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (buf != NULL && size == 0) {
		errno = EINVAL;
		return NULL;
	}
	if ((buf != NULL || size != 0) && size < len) {
		errno = ERANGE;
		return NULL;
	}
	if (buf == NULL && (buf = malloc(size ? size : len)) == NULL)
		return NULL;
	memcpy(buf, cwd, len);
	return buf;
}

char *
__getcwd_chk(char *buf, size_t size, size_t buflen)
{
	if (size > buflen)
		__chk_fail();
	return getcwd(buf, size);
}

char *
get_current_dir_name(void)
{
	char cwd[PL_ABS_MAX];

	if (!pl_active() || !pl_cwd_get(cwd, sizeof(cwd)))
		return REAL(get_current_dir_name)();
	if (strlen(cwd) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return strdup(cwd);
}

char *
realpath(const char *path, char *resolved)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	struct stat st;

	if (r != PL_PVFS)
		return REAL(realpath)(PL_USE(r, path, abs), resolved);
	char *canon;

	if (pl_stat_abs(abs, &st) != 0 || (canon = pl_path_canon(abs)) == NULL)
		return PL_ESCAPED(-1) ? REAL(realpath)(pvfs_local_path(),
		    resolved) : NULL;
	if (strlen(canon) >= PATH_MAX) {
		free(canon);
		errno = ENAMETOOLONG;
		return NULL;
	}
	if (resolved == NULL)
		return canon;
	memcpy(resolved, canon, strlen(canon) + 1);
	free(canon);
	return resolved;
}

char *
__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	if (resolvedlen < PATH_MAX)
		__chk_fail();
	return realpath(path, resolved);
}

char *
canonicalize_file_name(const char *path)
{
	return realpath(path, NULL);
}

/* ---- AF_UNIX names ---- */

/* The kernel resolves a socket's name itself, a relative one from its own
 * cwd, which under a virtual cwd is an unrelated directory.  0: give the
 * kernel sa as it is; 1: give it *un (the name made absolute, *len set);
 * 2: the name is in PVFS, abs (PL_ABS_MAX bytes); -1 with errno. */
static int
pl_unix_route(const struct sockaddr *sa, socklen_t *len, struct sockaddr_un *un,
    char *abs)
{
	size_t off = offsetof(struct sockaddr_un, sun_path), n;
	char name[sizeof(un->sun_path) + 1];

	if (!pl_active() || PL_BAD_PTR(sa) || *len <= off ||
	    sa->sa_family != AF_UNIX)
		return 0;
	n = *len - off < sizeof(un->sun_path) ? *len - off : sizeof(un->sun_path);
	memcpy(name, ((const struct sockaddr_un *)(const void *)sa)->sun_path, n);
	name[n] = '\0';
	if (name[0] == '\0') /* abstract: no path at all */
		return 0;
	switch (pl_route(AT_FDCWD, name, abs)) {
	case PL_PVFS:
		return 2;
	case PL_LOCAL_ABS:
		if (strlen(abs) >= sizeof(un->sun_path)) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memset(un, 0, sizeof(*un));
		un->sun_family = AF_UNIX;
		memcpy(un->sun_path, abs, strlen(abs) + 1);
		*len = (socklen_t)(off + strlen(abs) + 1);
		return 1;
	case PL_TOOLONG:
		errno = ENAMETOOLONG;
		return -1;
	default:
		return 0;
	}
}

/* bind or connect at a local name that a PVFS path's links lead to. */
static int
pl_unix_local(int fd, const char *name, int bind_it)
{
	struct sockaddr_un un;
	socklen_t len;

	if (strlen(name) >= sizeof(un.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memset(&un, 0, sizeof(un));
	un.sun_family = AF_UNIX;
	memcpy(un.sun_path, name, strlen(name) + 1);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name) + 1);
	return bind_it ? REAL(bind)(fd, (const struct sockaddr *)&un, len) :
	    REAL(connect)(fd, (const struct sockaddr *)&un, len);
}

/* A PVFS name for a socket: an S_IFSOCK node there, the socket itself
 * at a local name (preload-special.c). */
int
bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr_un un;
	char abs[PL_ABS_MAX];
	int rc;

	switch (pl_unix_route(sa, &len, &un, abs)) {
	case 0:
		return REAL(bind)(fd, sa, len);
	case 1:
		return REAL(bind)(fd, (const struct sockaddr *)&un, len);
	case 2:
		if ((rc = pl_sock_bind(fd, abs)) == 0 || !PL_ESCAPED(rc))
			return rc;
		return pl_unix_local(fd, pvfs_local_path(), 1);
	default:
		return -1;
	}
}

int
connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct sockaddr_un un;
	char abs[PL_ABS_MAX];
	int rc;

	switch (pl_unix_route(sa, &len, &un, abs)) {
	case 0:
		return REAL(connect)(fd, sa, len);
	case 1:
		return REAL(connect)(fd, (const struct sockaddr *)&un, len);
	case 2:
		if ((rc = pl_sock_connect(fd, abs)) == 0 || !PL_ESCAPED(rc))
			return rc;
		/* A link led out of PVFS: the socket may be there. */
		return pl_unix_local(fd, pvfs_local_path(), 0);
	default:
		return -1;
	}
}
