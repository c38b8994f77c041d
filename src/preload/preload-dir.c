/*
 * preload-dir.c - directory streams on PVFS directories, and the libc
 * walkers that open directories internally (scandir, glob, nftw, ftw).
 *
 * A PVFS DIR * is a struct pl_dir of ours (kept in a registry so that
 * readdir & co. recognise it) holding a library PVFS_DIR and the
 * placeholder descriptor that dirfd() returns and closedir() closes.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"

struct pl_dir {
	int fd;                 /* placeholder: dirfd(), closed by closedir() */
	PVFS_DIR *d;
	long pos;               /* entries returned since the start */
	struct pl_dir *next;
};

static pthread_mutex_t pl_dirs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pl_dir *pl_dirs;
static int pl_ndirs;

void
pl_dir_atfork(int take)
{
	if (take)
		pthread_mutex_lock(&pl_dirs_lock);
	else
		pthread_mutex_unlock(&pl_dirs_lock);
}

static struct pl_dir *
pl_dir_find(DIR *dp)
{
	struct pl_dir *p;

	if (__atomic_load_n(&pl_ndirs, __ATOMIC_ACQUIRE) == 0 || dp == NULL)
		return NULL;
	pthread_mutex_lock(&pl_dirs_lock);
	for (p = pl_dirs; p != NULL && (DIR *)p != dp; p = p->next)
		;
	pthread_mutex_unlock(&pl_dirs_lock);
	return p;
}

static void
pl_dir_unlink(struct pl_dir *pd)
{
	struct pl_dir **pp;

	pthread_mutex_lock(&pl_dirs_lock);
	for (pp = &pl_dirs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == pd) {
			*pp = pd->next;
			__atomic_sub_fetch(&pl_ndirs, 1, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&pl_dirs_lock);
}

DIR *
fdopendir(int fd)
{
	struct pl_file *f;
	struct pl_dir *pd;
	PVFS_DIR *d = NULL;

	if (!pl_fd_hit(fd) || (f = pl_get(fd)) == NULL)
		return REAL(fdopendir)(fd);
	if (!f->isdir) {
		errno = ENOTDIR;
	} else {
		pl_busy++;
		d = pvfs_opendir(f->path);
		pl_busy--;
	}
	pl_put(f);
	if (d == NULL)
		return NULL;
	if ((pd = calloc(1, sizeof(*pd))) == NULL) {
		pvfs_closedir(d);
		return NULL;
	}
	pd->fd = fd;
	pd->d = d;
	pthread_mutex_lock(&pl_dirs_lock);
	pd->next = pl_dirs;
	pl_dirs = pd;
	__atomic_add_fetch(&pl_ndirs, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&pl_dirs_lock);
	return (DIR *)pd;
}

DIR *
opendir(const char *path)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	DIR *dp;
	int fd, saved;

	if (r != PL_PVFS)
		return REAL(opendir)(PL_USE(r, path, abs));
	if ((fd = pl_open_abs(abs, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)) == -1)
		return PL_ESCAPED(fd) ? REAL(opendir)(pvfs_local_path()) : NULL;
	if ((dp = fdopendir(fd)) == NULL) {
		saved = errno;
		pl_fd_close(fd);
		errno = saved;
	}
	return dp;
}

static struct dirent *
pl_dir_read(struct pl_dir *pd)
{
	struct dirent *de;

	pl_busy++;
	de = pvfs_readdir(pd->d);
	pl_busy--;
	if (de != NULL)
		__atomic_add_fetch(&pd->pos, 1, __ATOMIC_RELAXED);
	return de;
}

struct dirent *
readdir(DIR *dp)
{
	struct pl_dir *pd = pl_dir_find(dp);

	return pd == NULL ? REAL(readdir)(dp) : pl_dir_read(pd);
}

struct dirent64 *
readdir64(DIR *dp)
{
	struct pl_dir *pd = pl_dir_find(dp);

	return pd == NULL ? REAL(readdir64)(dp) : (struct dirent64 *)pl_dir_read(pd);
}

static int
pl_dir_read_r(struct pl_dir *pd, struct dirent *entry, struct dirent **result)
{
	struct dirent *de;
	int saved = errno;

	errno = 0;
	de = pl_dir_read(pd);
	if (de == NULL) {
		*result = NULL;
		if (errno != 0)
			return errno;
		errno = saved;
		return 0;
	}
	memcpy(entry, de, sizeof(*entry));
	*result = entry;
	errno = saved;
	return 0;
}

/* readdir_r is deprecated, and still called by old programs. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int
readdir_r(DIR *dp, struct dirent *entry, struct dirent **result)
{
	struct pl_dir *pd = pl_dir_find(dp);

	return pd == NULL ? REAL(readdir_r)(dp, entry, result) :
	    pl_dir_read_r(pd, entry, result);
}

int
readdir64_r(DIR *dp, struct dirent64 *entry, struct dirent64 **result)
{
	struct pl_dir *pd = pl_dir_find(dp);

	return pd == NULL ? REAL(readdir64_r)(dp, entry, result) :
	    pl_dir_read_r(pd, (struct dirent *)entry, (struct dirent **)result);
}
#pragma GCC diagnostic pop

int
closedir(DIR *dp)
{
	struct pl_dir *pd = pl_dir_find(dp);

	if (pd == NULL)
		return REAL(closedir)(dp);
	pl_dir_unlink(pd);
	pl_busy++;
	pvfs_closedir(pd->d);
	pl_busy--;
	close(pd->fd);
	free(pd);
	return 0;
}

void
rewinddir(DIR *dp)
{
	struct pl_dir *pd = pl_dir_find(dp);

	if (pd == NULL) {
		REAL(rewinddir)(dp);
		return;
	}
	pl_busy++;
	pvfs_rewinddir(pd->d);
	pl_busy--;
	__atomic_store_n(&pd->pos, 0, __ATOMIC_RELAXED);
}

long
telldir(DIR *dp)
{
	struct pl_dir *pd = pl_dir_find(dp);

	return pd == NULL ? REAL(telldir)(dp) : __atomic_load_n(&pd->pos, __ATOMIC_RELAXED);
}

/* Positions count entries: rewind and skip that many. */
void
seekdir(DIR *dp, long pos)
{
	struct pl_dir *pd = pl_dir_find(dp);

	if (pd == NULL) {
		REAL(seekdir)(dp, pos);
		return;
	}
	rewinddir(dp);
	while (__atomic_load_n(&pd->pos, __ATOMIC_RELAXED) < pos && pl_dir_read(pd) != NULL)
		;
}

int
dirfd(DIR *dp)
{
	struct pl_dir *pd = pl_dir_find(dp);

	return pd == NULL ? REAL(dirfd)(dp) : pd->fd;
}

/* ---- scandir ---- */

typedef int (*pl_filter_fn)(const struct dirent *);
typedef int (*pl_compar_fn)(const struct dirent **, const struct dirent **);

static int
pl_scan(DIR *dp, struct dirent ***list, pl_filter_fn filter, pl_compar_fn compar)
{
	struct dirent *de, **v = NULL, **nv, *copy;
	size_t n = 0, cap = 0;

	while ((de = readdir(dp)) != NULL) {
		if (filter != NULL && !filter(de))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			if ((nv = realloc(v, cap * sizeof(*v))) == NULL)
				goto fail;
			v = nv;
		}
		if ((copy = malloc(sizeof(*copy))) == NULL)
			goto fail;
		memcpy(copy, de, sizeof(*copy));
		v[n++] = copy;
	}
	closedir(dp);
	if (compar != NULL && n > 1)
		qsort(v, n, sizeof(*v), (int (*)(const void *, const void *))compar);
	*list = v;
	return (int)n;
fail:
	while (n > 0)
		free(v[--n]);
	free(v);
	closedir(dp);
	errno = ENOMEM;
	return -1;
}

int
scandirat(int dirfd_, const char *path, struct dirent ***list,
    pl_filter_fn filter, pl_compar_fn compar)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(dirfd_, path, abs);
	DIR *dp;

	if (r != PL_PVFS)
		return REAL(scandirat)(dirfd_, PL_USE(r, path, abs), list, filter, compar);
	if ((dp = opendir(abs)) == NULL)
		return -1;
	return pl_scan(dp, list, filter, compar);
}

int
scandir(const char *path, struct dirent ***list, pl_filter_fn filter,
    pl_compar_fn compar)
{
	return scandirat(AT_FDCWD, path, list, filter, compar);
}

int
scandir64(const char *path, struct dirent64 ***list,
    int (*filter)(const struct dirent64 *),
    int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	return scandirat(AT_FDCWD, path, (struct dirent ***)list,
	    (pl_filter_fn)filter, (pl_compar_fn)compar);
}

int
scandirat64(int dirfd_, const char *path, struct dirent64 ***list,
    int (*filter)(const struct dirent64 *),
    int (*compar)(const struct dirent64 **, const struct dirent64 **))
{
	return scandirat(dirfd_, path, (struct dirent ***)list,
	    (pl_filter_fn)filter, (pl_compar_fn)compar);
}

/* ---- glob: libc's, with our directory and stat calls ---- */

static void *
pl_gl_opendir(const char *path)
{
	return opendir(path);
}

static struct dirent *
pl_gl_readdir(void *dp)
{
	return readdir(dp);
}

static void
pl_gl_closedir(void *dp)
{
	closedir(dp);
}

static int
pl_gl_stat(const char *path, struct stat *st)
{
	return stat(path, st);
}

static int
pl_gl_lstat(const char *path, struct stat *st)
{
	return lstat(path, st);
}

/* Whether a pattern may reach PVFS: the cwd is virtual, or it starts
 * under a prefix. */
static int
pl_glob_pvfs(const char *pattern)
{
	char abs[PL_ABS_MAX];

	if (pattern == NULL || !pl_active())
		return 0;
	return pl_cwd_is_virtual() || pl_route(AT_FDCWD, pattern, abs) == PL_PVFS;
}

/* glob64_t is glob_t's layout (as struct stat64 is struct stat's on the
 * 64-bit targets): one body serves both. */
_Static_assert(sizeof(glob_t) == sizeof(glob64_t), "glob_t layouts differ");

static int
pl_glob(int is64, const char *pattern, int flags,
    int (*errfunc)(const char *, int), glob_t *g)
{
	if (pl_glob_pvfs(pattern) && !(flags & GLOB_ALTDIRFUNC)) {
		g->gl_opendir = pl_gl_opendir;
		g->gl_readdir = pl_gl_readdir;
		g->gl_closedir = pl_gl_closedir;
		g->gl_stat = pl_gl_stat;
		g->gl_lstat = pl_gl_lstat;
		flags |= GLOB_ALTDIRFUNC;
	}
	return is64 ? REAL(glob64)(pattern, flags, errfunc, (glob64_t *)g) :
	    REAL(glob)(pattern, flags, errfunc, g);
}

int
glob(const char *pattern, int flags, int (*errfunc)(const char *, int),
    glob_t *g)
{
	return pl_glob(0, pattern, flags, errfunc, g);
}

int
glob64(const char *pattern, int flags, int (*errfunc)(const char *, int),
    glob64_t *g)
{
	return pl_glob(1, pattern, flags, errfunc, (glob_t *)g);
}

/* ---- nftw and ftw on PVFS trees ---- */

typedef int (*pl_nftw_fn)(const char *, const struct stat *, int, struct FTW *);

struct pl_walk {
	pl_nftw_fn fn;
	int flags;
	char path[PATH_MAX];
};

static int pl_walk(struct pl_walk *w, size_t len, int level);

static int
pl_walk_dir(struct pl_walk *w, size_t len, int level)
{
	struct dirent *de;
	size_t nl;
	DIR *dp;
	int rc = 0;

	if ((dp = opendir(w->path)) == NULL)
		return -2;
	while (rc == 0 && (de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		nl = strlen(de->d_name);
		if (len + 1 + nl >= sizeof(w->path)) {
			errno = ENAMETOOLONG;
			rc = -1;
			break;
		}
		w->path[len] = '/';
		memcpy(w->path + len + 1, de->d_name, nl + 1);
		rc = pl_walk(w, len + 1 + nl, level + 1);
		w->path[len] = '\0';
		if ((w->flags & FTW_ACTIONRETVAL) && rc == FTW_SKIP_SIBLINGS)
			break;
		if ((w->flags & FTW_ACTIONRETVAL) && rc == FTW_SKIP_SUBTREE)
			rc = 0;
	}
	closedir(dp);
	return (w->flags & FTW_ACTIONRETVAL) && rc == FTW_SKIP_SIBLINGS ? 0 : rc;
}

static int
pl_walk(struct pl_walk *w, size_t len, int level)
{
	struct FTW ftw;
	struct stat st;
	const char *slash;
	int rc;

	slash = strrchr(w->path, '/');
	ftw.base = slash != NULL && slash[1] != '\0' ? (int)(slash - w->path + 1) : 0;
	ftw.level = level;
	if (((w->flags & FTW_PHYS) ? lstat(w->path, &st) : stat(w->path, &st)) != 0)
		return w->fn(w->path, &st, FTW_NS, &ftw);
	if (!S_ISDIR(st.st_mode))
		return w->fn(w->path, &st, FTW_F, &ftw);
	if (!(w->flags & FTW_DEPTH) && (rc = w->fn(w->path, &st, FTW_D, &ftw)) != 0)
		return rc;
	rc = pl_walk_dir(w, len, level);
	if (rc == -2)
		return w->fn(w->path, &st, FTW_DNR, &ftw);
	if (rc != 0)
		return rc;
	return (w->flags & FTW_DEPTH) ? w->fn(w->path, &st, FTW_DP, &ftw) : 0;
}

int
nftw(const char *dir, pl_nftw_fn fn, int nopenfd, int flags)
{
	char abs[PL_ABS_MAX];
	struct pl_walk *w;
	size_t len;
	int rc;

	if (pl_route(AT_FDCWD, dir, abs) != PL_PVFS)
		return REAL(nftw)(dir, fn, nopenfd, flags);
	if ((len = strlen(dir)) >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((w = malloc(sizeof(*w))) == NULL)
		return -1;
	w->fn = fn;
	w->flags = flags;
	memcpy(w->path, dir, len + 1);
	while (len > 1 && w->path[len - 1] == '/')
		w->path[--len] = '\0';
	rc = pl_walk(w, len, 0);
	free(w);
	return rc;
}

int
nftw64(const char *dir, int (*fn)(const char *, const struct stat64 *, int,
    struct FTW *), int nopenfd, int flags)
{
	return nftw(dir, (pl_nftw_fn)fn, nopenfd, flags);
}

typedef int (*pl_ftw_fn)(const char *, const struct stat *, int);
static __thread pl_ftw_fn pl_ftw_cb;

static int
pl_ftw_adapt(const char *path, const struct stat *st, int type, struct FTW *f)
{
	return pl_ftw_cb(path, st, type);
}

int
ftw(const char *dir, pl_ftw_fn fn, int nopenfd)
{
	char abs[PL_ABS_MAX];

	if (pl_route(AT_FDCWD, dir, abs) != PL_PVFS)
		return REAL(ftw)(dir, fn, nopenfd);
	pl_ftw_cb = fn;
	return nftw(dir, pl_ftw_adapt, nopenfd, 0);
}

int
ftw64(const char *dir, int (*fn)(const char *, const struct stat64 *, int),
    int nopenfd)
{
	return ftw(dir, (pl_ftw_fn)fn, nopenfd);
}
