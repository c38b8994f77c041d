/*
 * preload-stdio.c - FILE streams on PVFS descriptors.
 *
 * glibc's stdio calls its own internal read/write, which no preload can
 * reach, so a stream on a PVFS descriptor is a fopencookie() stream whose
 * callbacks call the shim on the descriptor NUMBER (like a real stream)
 * and whose _fileno is that number, so fileno() agrees.  When descriptor
 * 0, 1 or 2 becomes a PVFS file (at start-up after exec, or by dup2 as a
 * shell's redirection does), stdin/stdout/stderr point at such a stream,
 * and back at the program's own stream when it stops being one.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"

struct pl_cookie {
	int fd;
	int std;        /* stands in for stdin/stdout/stderr */
	FILE *fp;
};

static pthread_mutex_t pl_std_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *pl_std_orig[3];   /* the program's stream while ours stands in */
static FILE *pl_std_ck[3];     /* ours, while in place */
static FILE *pl_std_spare[3];  /* ours, kept for the next time */

static ssize_t
pl_ck_read(void *v, char *buf, size_t n)
{
	struct pl_cookie *ck = v;

	return pl_fd_read(ck->fd, buf, n);
}

/* The stream's cached offset is not advanced by cookie writes: drop it
 * so that ftell asks the descriptor. */
static ssize_t
pl_ck_write(void *v, const char *buf, size_t n)
{
	struct pl_cookie *ck = v;
	size_t done = 0;
	ssize_t k;

	if (ck->fp != NULL)
		ck->fp->_offset = -1;
	while (done < n) {
		k = pl_fd_write(ck->fd, buf + done, n - done);
		if (k <= 0)
			return done > 0 ? (ssize_t)done : -1;
		done += (size_t)k;
	}
	return (ssize_t)done;
}

static int
pl_ck_seek(void *v, off64_t *pos, int whence)
{
	struct pl_cookie *ck = v;
	off_t r = pl_fd_lseek(ck->fd, *pos, whence);

	if (r == -1)
		return -1;
	*pos = r;
	return 0;
}

static FILE **
pl_std_slot(int fd)
{
	return fd == 0 ? &stdin : fd == 1 ? &stdout : &stderr;
}

/* fclose of a stream of ours closes its descriptor, as fclose does. */
static int
pl_ck_close(void *v)
{
	struct pl_cookie *ck = v;
	int fd = ck->fd, rc;

	if (ck->std) {
		pthread_mutex_lock(&pl_std_lock);
		if (pl_std_ck[fd] == ck->fp) {
			if (*pl_std_slot(fd) == ck->fp)
				*pl_std_slot(fd) = pl_std_orig[fd];
			pl_std_ck[fd] = NULL;
		}
		if (pl_std_spare[fd] == ck->fp)
			pl_std_spare[fd] = NULL;
		pthread_mutex_unlock(&pl_std_lock);
	}
	rc = close(fd);
	free(ck);
	return rc;
}

static FILE *
pl_cookie_open(int fd, const char *mode, int std)
{
	cookie_io_functions_t io = { pl_ck_read, pl_ck_write, pl_ck_seek, pl_ck_close };
	struct pl_cookie *ck = calloc(1, sizeof(*ck));
	FILE *fp;

	if (ck == NULL)
		return NULL;
	ck->fd = fd;
	ck->std = std;
	if ((fp = fopencookie(ck, mode, io)) == NULL) {
		free(ck);
		return NULL;
	}
	fp->_fileno = fd;
	ck->fp = fp;
	return fp;
}

/* Flags of an fopen mode; -1/EINVAL when it is not one. */
int
pl_stdio_flags(const char *mode, int *flags)
{
	const char *p;
	int f;

	switch (mode == NULL ? '\0' : mode[0]) {
	case 'r':
		f = O_RDONLY;
		break;
	case 'w':
		f = O_WRONLY | O_CREAT | O_TRUNC;
		break;
	case 'a':
		f = O_WRONLY | O_CREAT | O_APPEND;
		break;
	default:
		errno = EINVAL;
		return -1;
	}
	for (p = mode + 1; *p != '\0' && *p != ','; p++) {
		if (*p == '+')
			f = (f & ~O_ACCMODE) | O_RDWR;
		else if (*p == 'x')
			f |= O_EXCL;
		else if (*p == 'e')
			f |= O_CLOEXEC;
	}
	*flags = f;
	return 0;
}

static const char *
pl_cookie_mode(int flags)
{
	switch (flags & O_ACCMODE) {
	case O_RDONLY:
		return "r";
	case O_WRONLY:
		return "w";
	default:
		return "r+";
	}
}

FILE *
pl_stdio_open(int fd, const char *mode)
{
	int flags;

	if (pl_stdio_flags(mode, &flags) != 0)
		return NULL;
	return pl_cookie_open(fd, pl_cookie_mode(flags), 0);
}

static FILE *
pl_fopen_abs(const char *abs, const char *mode)
{
	FILE *fp;
	int flags, fd, saved;

	if (pl_stdio_flags(mode, &flags) != 0)
		return NULL;
	if ((fd = pl_open_abs(abs, flags, 0666)) == -1)
		return PL_ESCAPED(fd) ? REAL(fopen)(pvfs_local_path(), mode) : NULL;
	if ((fp = pl_cookie_open(fd, pl_cookie_mode(flags), 0)) == NULL) {
		saved = errno;
		pl_fd_close(fd);
		errno = saved;
	}
	return fp;
}

FILE *
fopen(const char *path, const char *mode)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);

	if (r != PL_PVFS)
		return REAL(fopen)(PL_USE(r, path, abs), mode);
	return pl_fopen_abs(abs, mode);
}

FILE *
fopen64(const char *path, const char *mode)
{
	return fopen(path, mode);
}

FILE *
fdopen(int fd, const char *mode)
{
	int flags, fl;

	if (!pl_fd_hit(fd))
		return REAL(fdopen)(fd, mode);
	if (pl_stdio_flags(mode, &flags) != 0 || (fl = fcntl(fd, F_GETFL)) == -1)
		return NULL;
	if ((flags & O_APPEND) && !(fl & O_APPEND))
		fcntl(fd, F_SETFL, fl | O_APPEND);
	return pl_cookie_open(fd, pl_cookie_mode(fl), 0);
}

static int
pl_std_index(FILE *stream)
{
	int i;

	for (i = 0; i <= 2; i++)
		if (stream == *pl_std_slot(i) || (pl_std_orig[i] != NULL &&
		    stream == pl_std_orig[i]))
			return i;
	return -1;
}

/* freopen onto stdin/stdout/stderr keeps the descriptor number (dup2);
 * another stream of ours is closed and a new one returned. */
static FILE *
pl_freopen(const char *path, const char *abs, enum pl_route r,
    const char *mode, FILE *stream)
{
	int k = pl_std_index(stream), flags, fd;

	if (pl_stdio_flags(mode, &flags) != 0)
		return NULL;
	if (k < 0) {
		fclose(stream);
		return r == PL_PVFS ? pl_fopen_abs(abs, mode) :
		    REAL(fopen)(PL_USE(r, path, abs), mode);
	}
	fflush(stream);
	fd = r == PL_PVFS ? pl_open_abs(abs, flags & ~O_CLOEXEC, 0666) :
	    REAL(openat)(AT_FDCWD, PL_USE(r, path, abs), flags & ~O_CLOEXEC, 0666);
	if (r == PL_PVFS && PL_ESCAPED(fd))
		fd = REAL(openat)(AT_FDCWD, pvfs_local_path(), flags & ~O_CLOEXEC,
		    0666);
	if (fd == -1)
		return NULL;
	if (fd != k) {
		if (dup2(fd, k) == -1) {
			close(fd);
			return NULL;
		}
		close(fd);
	}
	pl_std_sync(k);
	clearerr(*pl_std_slot(k));
	return *pl_std_slot(k);
}

FILE *
freopen(const char *path, const char *mode, FILE *stream)
{
	char abs[PL_ABS_MAX];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	int fd;

	if (!pl_active())
		return REAL(freopen)(path, mode, stream);
	fd = stream == NULL ? -1 : stream->_fileno;
	if (path == NULL && fd >= 0 && pl_is_pvfs_fd(fd))
		return stream;  /* a mode change on a PVFS stream: kept as is */
	if (r != PL_PVFS && (fd < 0 || !pl_is_pvfs_fd(fd)))
		return REAL(freopen)(PL_USE(r, path, abs), mode, stream);
	return pl_freopen(path, abs, r, mode, stream);
}

FILE *
freopen64(const char *path, const char *mode, FILE *stream)
{
	return freopen(path, mode, stream);
}

/* ---- stdin, stdout, stderr ---- */

void
pl_std_atfork(int take)
{
	if (take)
		pthread_mutex_lock(&pl_std_lock);
	else
		pthread_mutex_unlock(&pl_std_lock);
}

void
pl_std_flush(int fd)
{
	if (fd == 1 || fd == 2)
		fflush(*pl_std_slot(fd));
}

static FILE *
pl_std_make(int fd)
{
	FILE *c = pl_std_spare[fd];

	pl_std_spare[fd] = NULL;
	if (c != NULL) {
		clearerr(c);
		c->_offset = -1;
		return c;
	}
	c = pl_cookie_open(fd, fd == 0 ? "r" : "w", 1);
	if (c != NULL && fd == 2)
		setvbuf(c, NULL, _IONBF, 0);
	return c;
}

void
pl_std_sync(int fd)
{
	FILE **slot = pl_std_slot(fd), *c;

	if (fd < 0 || fd > 2)
		return;
	pthread_mutex_lock(&pl_std_lock);
	if (pl_is_pvfs_fd(fd)) {
		if (pl_std_ck[fd] == NULL && (c = pl_std_make(fd)) != NULL) {
			pl_std_orig[fd] = *slot;
			*slot = c;
			pl_std_ck[fd] = c;
		}
	} else if ((c = pl_std_ck[fd]) != NULL) {
		if (*slot == c)
			*slot = pl_std_orig[fd];
		pl_std_ck[fd] = NULL;
		pl_std_spare[fd] = c;
	}
	pthread_mutex_unlock(&pl_std_lock);
}
