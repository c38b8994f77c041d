/*
 * preload-path.c - which paths are PVFS paths, the virtual working
 * directory, and the calls that name or resolve directories (chdir,
 * fchdir, getcwd, realpath).
 *
 * Routing is lexical: a path is normalised ("//", "." and ".." folded)
 * against the virtual cwd or a PVFS directory descriptor and compared
 * with the pvfstab's mount prefixes.  Local paths go to libc unchanged,
 * except a relative path that climbs out of a virtual cwd: libc gets its
 * absolute form.  The kernel's cwd is left alone while the cwd is virtual.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
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

/* Fold "//", "." and ".." of an absolute path; -1/ENAMETOOLONG. */
static int
pl_normalize(const char *path, char *out, size_t outlen)
{
	const char *p = path, *e;
	size_t len = 0, n;

	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = p + strcspn(p, "/");
		n = (size_t)(e - p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
		} else if (!(n == 1 && p[0] == '.')) {
			if (len + 1 + n >= outlen) {
				errno = ENAMETOOLONG;
				return -1;
			}
			out[len++] = '/';
			memcpy(out + len, p, n);
			len += n;
		}
		p = e;
	}
	if (len == 0)
		out[len++] = '/';
	out[len] = '\0';
	return 0;
}

static int
pl_match(const char *norm)
{
	size_t l;
	int i;

	for (i = 0; i < pl_nprefix; i++) {
		l = pl_prefix_len[i];
		if (strncmp(norm, pl_prefix[i], l) == 0 &&
		    (norm[l] == '\0' || norm[l] == '/'))
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

/* Join base and a relative path, then normalise. */
static int
pl_join(const char *base, const char *path, char *abs)
{
	char tmp[2 * PATH_MAX + 2];
	size_t bl = strlen(base), pl = strlen(path);

	if (bl + pl + 2 > sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, base, bl);
	tmp[bl] = '/';
	memcpy(tmp + bl + 1, path, pl + 1);
	return pl_normalize(tmp, abs, PATH_MAX);
}

enum pl_route
pl_route(int dirfd, const char *path, char *abs)
{
	char base[PATH_MAX];
	struct pl_file *f;

	if (path == NULL || !pl_active())
		return PL_LOCAL;
	if (path[0] == '/') {
		/* Fast path: nothing to fold and no prefix: local as it is. */
		if (pl_match(path) < 0 && strstr(path, "/.") == NULL &&
		    strstr(path, "//") == NULL)
			return PL_LOCAL;
		if (pl_normalize(path, abs, PATH_MAX) != 0)
			return PL_LOCAL;
		if (pl_match(abs) >= 0)
			return PL_PVFS;
		/* "/pvfs/.." names "/": the kernel cannot walk through /pvfs. */
		return pl_match(path) >= 0 ? PL_LOCAL_ABS : PL_LOCAL;
	}
	if (path[0] == '\0')
		return PL_LOCAL;
	if (dirfd == AT_FDCWD) {
		if (!pl_cwd_get(base, sizeof(base)))
			return PL_LOCAL;
	} else {
		if ((f = pl_get(dirfd)) == NULL)
			return PL_LOCAL;
		snprintf(base, sizeof(base), "%s", f->path);
		pl_put(f);
	}
	if (pl_join(base, path, abs) != 0)
		return PL_LOCAL;
	return pl_match(abs) >= 0 ? PL_PVFS : PL_LOCAL_ABS;
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
	char abs[PATH_MAX];

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
	if (rc == 0)
		pl_cwd_set(abs);
	return rc;
}

int
chdir(const char *path)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	int rc;

	if (r == PL_PVFS)
		return pl_chdir_pvfs(abs);
	rc = REAL(chdir)(PL_USE(r, path, abs));
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
		pl_cwd_set(f->path);
		rc = 0;
	}
	pl_put(f);
	return rc;
}

char *
getcwd(char *buf, size_t size)
{
	char cwd[PATH_MAX];
	size_t len;

	if (!pl_active() || !pl_cwd_get(cwd, sizeof(cwd)))
		return REAL(getcwd)(buf, size);
	len = strlen(cwd) + 1;
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
	char cwd[PATH_MAX];

	if (!pl_active() || !pl_cwd_get(cwd, sizeof(cwd)))
		return REAL(get_current_dir_name)();
	return strdup(cwd);
}

char *
realpath(const char *path, char *resolved)
{
	char abs[PATH_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	struct stat st;

	if (r != PL_PVFS)
		return REAL(realpath)(PL_USE(r, path, abs), resolved);
	if (pl_stat_abs(abs, &st) != 0)
		return NULL;
	if (resolved == NULL)
		return strdup(abs);
	memcpy(resolved, abs, strlen(abs) + 1);
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
