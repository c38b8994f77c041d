/*
 * preload.c - start-up, libc's real entry points, the descriptor table and
 * the placeholders behind open PVFS files.
 *
 * A placeholder is a memfd named "pvfs:PATH", sealed after the shim wrote a
 * struct pl_hdr into it.  The kernel allocates its number, dups it, passes
 * it over fork and exec and honours CLOEXEC; its file offset is the PVFS
 * offset, so processes sharing it share the offset as POSIX says.  After
 * exec the shim finds placeholders in /proc/self/fd and rebuilds its table
 * from their contents.  A program (or a static child) that reads or writes
 * a placeholder without the shim gets the header or EPERM: never data.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "preload.h"

#define PL_CHUNK 4096      /* table slots per chunk */
#define PL_NCHUNK 256      /* descriptors below 1 Mi can hold PVFS files */
#define PL_OWN_MAX PL_OWN_SPAN
#define PL_HDR_MAGIC "PVFSPL01"
#define PL_MEMFD_TAG "/memfd:pvfs:"

/* What a placeholder holds: enough to use the open file after exec. */
struct pl_hdr {
	char magic[8];
	uint32_t size;          /* sizeof(struct pl_hdr): another build refuses */
	int32_t flags;
	uint32_t isdir;
	uint32_t state_len;     /* of the library's export of the open file */
	unsigned char state[PVFS_FILE_EXPORT_MAX];
	char path[PATH_MAX];
};

__thread int pl_busy __attribute__((tls_model("initial-exec")));
int pl_ready;
pid_t pl_pid;
mode_t pl_umask = 022;

static pthread_once_t pl_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t pl_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pl_file **pl_tab[PL_NCHUNK];
static int pl_floor;
static uint8_t pl_own_map[PL_OWN_MAX / 8];

void *
pl_dlsym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	static const char msg[] = "libpvfs-preload: a libc entry point is missing\n";

	if (p == NULL) {
		(void)!write(2, msg, sizeof(msg) - 1);
		abort();
	}
	return p;
}

int
pl_active(void)
{
	return pl_started() && pl_path_nprefix() > 0;
}

int
pl_in_vfork(void)
{
	return getpid() != pl_pid;
}

/* ---- the table: chunks are never freed, so peeking needs no lock ---- */

static struct pl_file **
pl_slot(int fd, int create)
{
	struct pl_file **c;
	int i;

	if (fd < 0 || fd / PL_CHUNK >= PL_NCHUNK)
		return NULL;
	i = fd / PL_CHUNK;
	c = __atomic_load_n(&pl_tab[i], __ATOMIC_ACQUIRE);
	if (c == NULL && create) {
		if ((c = calloc(PL_CHUNK, sizeof(*c))) == NULL)
			return NULL;
		__atomic_store_n(&pl_tab[i], c, __ATOMIC_RELEASE);
	}
	return c == NULL ? NULL : &c[fd % PL_CHUNK];
}

int
pl_is_pvfs_fd(int fd)
{
	struct pl_file **s = pl_slot(fd, 0);

	return s != NULL && __atomic_load_n(s, __ATOMIC_RELAXED) != NULL;
}

void
pl_tab_lock(void)
{
	pthread_mutex_lock(&pl_lock);
}

void
pl_tab_unlock(void)
{
	pthread_mutex_unlock(&pl_lock);
}

struct pl_file *
pl_get(int fd)
{
	struct pl_file **s, *f = NULL;

	if (!pl_is_pvfs_fd(fd))
		return NULL;
	pthread_mutex_lock(&pl_lock);
	if ((s = pl_slot(fd, 0)) != NULL && (f = *s) != NULL)
		f->refs++;
	pthread_mutex_unlock(&pl_lock);
	return f;
}

struct pl_file *
pl_file_get(int fd)
{
	struct pl_file *f = pl_get(fd);

	if (f == NULL) {
		errno = EBADF;
	} else if (f->h == NULL) {
		pl_put(f);
		f = NULL;
		errno = EIO;
	}
	return f;
}

static void
pl_file_free(struct pl_file *f)
{
	int saved = errno;

	if (f->lockfd != -1) {
		pl_own_mark(f->lockfd, 0);
		REAL(close)(f->lockfd);
	}
	pl_busy++;
	pvfs_file_close(f->h);
	pl_busy--;
	pthread_mutex_destroy(&f->lock);
	free(f->path);
	free(f);
	errno = saved;
}

void
pl_put(struct pl_file *f)
{
	int last;

	if (f == NULL)
		return;
	pthread_mutex_lock(&pl_lock);
	last = --f->refs == 0;
	pthread_mutex_unlock(&pl_lock);
	if (last)
		pl_file_free(f);
}

struct pl_file *
pl_tab_set(int fd, struct pl_file *f)
{
	struct pl_file **s = pl_slot(fd, f != NULL), *prev;

	if (s == NULL)
		return NULL;
	prev = *s;
	if (f != NULL)
		f->refs++;
	__atomic_store_n(s, f, __ATOMIC_RELEASE);
	return prev;
}

static struct pl_file *
pl_file_new(struct pvfs_file *h, const char *path, int flags, int isdir)
{
	struct pl_file *f = calloc(1, sizeof(*f));

	/* The path resolved: keep its folded, real name (fchdir, *at). */
	if (f == NULL || (f->path = pl_path_canon(path)) == NULL) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	f->refs = 1;
	f->h = h;
	f->flags = flags;
	f->isdir = isdir;
	f->lockfd = -1;
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

/* ---- own descriptors (lock files, the library's sockets) ---- */

void
pl_own_mark(int fd, int on)
{
	int i = fd - pl_floor;

	if (pl_floor == 0 || i < 0 || i >= PL_OWN_MAX)
		return;
	if (on)
		__atomic_or_fetch(&pl_own_map[i / 8], 1u << (i % 8), __ATOMIC_RELAXED);
	else
		__atomic_and_fetch(&pl_own_map[i / 8], ~(1u << (i % 8)), __ATOMIC_RELAXED);
}

int
pl_own_fd(int fd)
{
	int i = fd - pl_floor;

	if (pl_floor == 0 || i < 0)
		return 0;
	if (i < PL_OWN_MAX &&
	    ((__atomic_load_n(&pl_own_map[i / 8], __ATOMIC_RELAXED) >> (i % 8)) & 1))
		return 1;
	return 0;
}

int
pl_own_floor(void)
{
	return pl_floor;
}

int
pl_own_place(int fd)
{
	int nfd;

	if (fd < 0 || pl_floor == 0 || (nfd = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, pl_floor)) == -1)
		return fd;
	REAL(close)(fd);
	pl_own_mark(nfd, 1);
	return nfd;
}

/* The library's sockets go to descriptors at or above the floor and are
 * marked as ours wherever they land, so that the program's close/dup2
 * can be refused on them. */
static int
pl_sock_open(int fd)
{
	int nfd;

	if (fd < pl_floor &&
	    (nfd = REAL(fcntl)(fd, F_DUPFD_CLOEXEC, pl_floor)) != -1) {
		REAL(close)(fd);
		fd = nfd;
	}
	pl_own_mark(fd, 1);
	return fd;
}

static void
pl_sock_close(int fd)
{
	pl_own_mark(fd, 0);
}

static const struct pvfs_socket_hooks pl_sock_hooks = {
	pl_sock_open, pl_sock_close
};

/* ---- placeholders ---- */

static int
pl_placeholder(struct pl_file *f, int cloexec)
{
	struct pl_hdr hdr;
	char name[250];
	size_t len;
	int fd;

	memset(&hdr, 0, sizeof(hdr));
	memcpy(hdr.magic, PL_HDR_MAGIC, sizeof(hdr.magic));
	hdr.size = sizeof(hdr);
	hdr.flags = f->flags;
	hdr.isdir = (uint32_t)f->isdir;
	hdr.state_len = (uint32_t)pvfs_file_export(f->h, hdr.state,
	    sizeof(hdr.state));
	snprintf(hdr.path, sizeof(hdr.path), "%s", f->path);
	snprintf(name, sizeof(name), "pvfs:%s", f->path);
	fd = memfd_create(name, MFD_ALLOW_SEALING | (cloexec ? MFD_CLOEXEC : 0));
	if (fd == -1)
		return -1;
	len = offsetof(struct pl_hdr, path) + strlen(hdr.path) + 1;
	if (REAL(pwrite)(fd, &hdr, len, 0) != (ssize_t)len ||
	    REAL(fcntl)(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_WRITE | F_SEAL_SEAL) != 0) {
		REAL(close)(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

/* Publish f under a new placeholder; the table takes its own reference. */
static int
pl_install_new(struct pl_file *f, int cloexec)
{
	struct pl_file *prev;
	int fd;

	pthread_mutex_lock(&pl_lock);
	if ((fd = pl_placeholder(f, cloexec)) != -1 && pl_slot(fd, 1) == NULL) {
		REAL(close)(fd);
		errno = EMFILE;
		fd = -1;
	}
	prev = fd == -1 ? NULL : pl_tab_set(fd, f);
	pthread_mutex_unlock(&pl_lock);
	pl_put(prev);
	return fd;
}

int
pl_open_abs(const char *abs, int flags, mode_t mode)
{
	struct pvfs_file_info info;
	struct pvfs_file *h;
	struct pl_file *f;
	int hflags, fd;

	if ((flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	hflags = flags & ~(O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
	    O_LARGEFILE | O_NOATIME | O_DIRECT | O_ASYNC);
	if (flags & O_PATH)
		hflags = (hflags & ~(O_PATH | O_ACCMODE)) | O_RDONLY;
	if (flags & O_CREAT)
		mode &= ~__atomic_load_n(&pl_umask, __ATOMIC_RELAXED);
	pl_busy++;
	h = pvfs_file_open(abs, hflags, mode, NULL);
	pl_busy--;
	if (h == NULL)
		return -1;
	pvfs_file_info(h, &info);
	if (S_ISFIFO(info.mode)) { /* a kernel's FIFO (preload-special.c) */
		pvfs_file_close(h);
		return pl_fifo_open(info.fsid, info.ino, flags);
	}
	if ((f = pl_file_new(h, abs, flags & ~(O_CREAT | O_EXCL | O_TRUNC |
	    O_CLOEXEC), S_ISDIR(info.mode))) == NULL) {
		pvfs_file_close(h);
		return -1;
	}
	fd = pl_install_new(f, flags & O_CLOEXEC);
	pl_put(f);
	pl_std_sync(fd);
	return fd;
}

/* ---- after exec: rebuild the table from /proc/self/fd ---- */

struct pl_seen {
	ino_t ino;
	struct pl_file *f;
};

static struct pl_file *
pl_rebuild_one(int fd)
{
	struct pl_hdr hdr;
	struct pvfs_file *h = NULL;
	struct pl_file *f;
	ssize_t n;

	memset(&hdr, 0, sizeof(hdr));
	n = REAL(pread)(fd, &hdr, sizeof(hdr) - 1, 0);
	if (n > (ssize_t)offsetof(struct pl_hdr, path) &&
	    memcmp(hdr.magic, PL_HDR_MAGIC, sizeof(hdr.magic)) == 0 &&
	    hdr.size == sizeof(hdr))
		h = pvfs_file_import(hdr.path, hdr.state, hdr.state_len);
	/* Without a handle the file stays in the table: its I/O fails (EIO). */
	f = pl_file_new(h, hdr.path[0] ? hdr.path : "/", hdr.flags, hdr.isdir != 0);
	if (f == NULL && h != NULL)
		pvfs_file_close(h);
	return f;
}

static int
pl_is_placeholder(int fd)
{
	char link[64], buf[sizeof(PL_MEMFD_TAG)];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = REAL(readlink)(link, buf, sizeof(buf) - 1);
	return n == (ssize_t)sizeof(buf) - 1 &&
	    memcmp(buf, PL_MEMFD_TAG, sizeof(buf) - 1) == 0;
}

/* Descriptors sharing one placeholder (dup'ed before exec) share its
 * memfd inode, so they get one struct pl_file again. */
static void
pl_rebuild_fd(int fd, struct pl_seen **seen, size_t *nseen)
{
	struct pl_seen *ns;
	struct pl_file *f = NULL;
	struct stat st;
	size_t i;

	if (!pl_is_placeholder(fd) || REAL(fstat)(fd, &st) != 0)
		return;
	for (i = 0; i < *nseen && f == NULL; i++)
		if ((*seen)[i].ino == st.st_ino)
			f = (*seen)[i].f;
	if (f == NULL) {
		if ((f = pl_rebuild_one(fd)) == NULL ||
		    (ns = realloc(*seen, (*nseen + 1) * sizeof(**seen))) == NULL) {
			/* Unpublished, and pl_put would take pl_lock again. */
			if (f != NULL)
				pl_file_free(f);
			return;
		}
		*seen = ns;
		ns[*nseen].ino = st.st_ino;
		ns[(*nseen)++].f = f;
	}
	if (pl_slot(fd, 1) != NULL)
		pl_put(pl_tab_set(fd, f));
}

static void
pl_rebuild(void)
{
	struct pl_seen *seen = NULL;
	struct dirent *de;
	size_t nseen = 0, i;
	DIR *d;
	int fd;

	if ((d = REAL(opendir)("/proc/self/fd")) == NULL)
		return;
	pthread_mutex_lock(&pl_lock);
	while ((de = REAL(readdir)(d)) != NULL) {
		fd = atoi(de->d_name);
		if (de->d_name[0] != '.' && fd != dirfd(d))
			pl_rebuild_fd(fd, &seen, &nseen);
	}
	pthread_mutex_unlock(&pl_lock);
	REAL(closedir)(d);
	for (i = 0; i < nseen; i++)
		pl_put(seen[i].f);
	free(seen);
}

/* Whether a child would inherit PVFS state: a virtual cwd, or an open
 * PVFS file without CLOEXEC. */
int
pl_has_inheritable(void)
{
	int i, j, fl;

	if (pl_cwd_is_virtual())
		return 1;
	for (i = 0; i < PL_NCHUNK; i++) {
		if (__atomic_load_n(&pl_tab[i], __ATOMIC_ACQUIRE) == NULL)
			continue;
		for (j = 0; j < PL_CHUNK; j++) {
			if (!pl_is_pvfs_fd(i * PL_CHUNK + j))
				continue;
			fl = REAL(fcntl)(i * PL_CHUNK + j, F_GETFD);
			if (fl != -1 && !(fl & FD_CLOEXEC))
				return 1;
		}
	}
	return 0;
}

/* ---- fork ---- */

/* The leaf locks (cwd, std streams, directory registry) are never held
 * while another shim lock is taken, so any order is safe here. */
static void
pl_atfork_prepare(void)
{
	pl_std_atfork(1);
	pl_dir_atfork(1);
	pl_cwd_atfork(1);
	pthread_mutex_lock(&pl_lock);
}

static void
pl_atfork_parent(void)
{
	pthread_mutex_unlock(&pl_lock);
	pl_cwd_atfork(0);
	pl_dir_atfork(0);
	pl_std_atfork(0);
}

/* Threads that held a file's lock (kept across network waits) are gone;
 * the library resets its open files' own locks.  The rest is as in the
 * parent. */
static void
pl_atfork_child(void)
{
	struct pl_file **c;
	int i, j;

	pl_pid = getpid();
	for (i = 0; i < PL_NCHUNK; i++) {
		if ((c = pl_tab[i]) == NULL)
			continue;
		for (j = 0; j < PL_CHUNK; j++) {
			if (c[j] == NULL)
				continue;
			pthread_mutex_init(&c[j]->lock, NULL);
		}
	}
	pl_atfork_parent();
}

/* ---- start-up ---- */

static void
pl_floor_init(void)
{
	const char *s = getenv("PVFS_PRELOAD_FD_FLOOR");
	struct rlimit rl;
	long v;

	if (s != NULL && *s != '\0') {
		v = strtol(s, NULL, 10);
		pl_floor = v > 0 && v < INT_MAX ? (int)v : 0;
	} else if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		v = rl.rlim_cur == RLIM_INFINITY ? 8192 : (long)rl.rlim_cur / 2;
		pl_floor = v > 4096 ? 4096 : v < 16 ? 0 : (int)v;
	}
	if (pl_floor != 0)
		pvfs_set_socket_hooks(&pl_sock_hooks);
	pvfs_set_local_escape(1); /* links out of PVFS: PL_ESCAPED */
}

/* Run by the first wrapper called (maybe before our constructor): it
 * must leave errno as the real call will. */
static void
pl_init_once(void)
{
	int saved = errno;
	mode_t m;
	int fd;

	pl_busy++;
	pl_pid = getpid();
	m = REAL(umask)(022);
	REAL(umask)(m);
	pl_umask = m;
	pl_floor_init();
	pl_path_load();
	if (pl_path_nprefix() > 0) {
		pthread_atfork(pl_atfork_prepare, pl_atfork_parent, pl_atfork_child);
		pl_cwd_from_env();
		pl_rebuild();
	}
	__atomic_store_n(&pl_ready, 1, __ATOMIC_RELEASE);
	pl_busy--;
	for (fd = 0; fd <= 2; fd++)
		if (pl_is_pvfs_fd(fd))
			pl_std_sync(fd);
	errno = saved;
}

void
pl_init(void)
{
	pthread_once(&pl_once, pl_init_once);
}

__attribute__((constructor)) static void
pl_constructor(void)
{
	pl_init();
}

mode_t
umask(mode_t mask)
{
	mode_t old = REAL(umask)(mask);

	__atomic_store_n(&pl_umask, mask & 0777, __ATOMIC_RELAXED);
	return old;
}
