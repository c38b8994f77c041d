/*
 * preload-exec.c - the exec family and posix_spawn.
 *
 * A child learns the virtual cwd from PVFS_PRELOAD_CWD, which the
 * wrappers put into (or remove from) the environment they pass, whatever
 * envp the program built.  When the child inherits PVFS state (that cwd,
 * or a PVFS descriptor without CLOEXEC), LD_PRELOAD and PVFSTAB_FILE are
 * put back if the program dropped them, so the child can use it.
 * A program stored on PVFS is copied into a memfd and run from there.
 * Wrappers may run in a vfork child: small environments are built on the
 * stack.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "preload.h"

#define PL_CWD_ENV "PVFS_PRELOAD_CWD="
#define PL_ENV_STACK 512
#define PL_ARGS_MAX 4096

extern char **environ;

struct pl_env {
	char **v;
	char *stack[PL_ENV_STACK];
	char cwd[PATH_MAX + sizeof(PL_CWD_ENV)];
	char extra[2][PATH_MAX + 32];
};

static int
pl_env_has(char *const envp[], const char *name, size_t len)
{
	size_t i;

	for (i = 0; envp != NULL && envp[i] != NULL; i++)
		if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=')
			return 1;
	return 0;
}

/* Add NAME=value from our own environment when envp lacks it. */
static void
pl_env_keep(char *const envp[], const char *name, char *buf, size_t len,
    char **v, size_t *n)
{
	const char *val = getenv(name);

	if (val == NULL || pl_env_has(envp, name, strlen(name)))
		return;
	snprintf(buf, len, "%s=%s", name, val);
	v[(*n)++] = buf;
}

static char **
pl_env_build(struct pl_env *e, char *const envp[])
{
	size_t i, n = 0, cnt = 0;
	char cwd[PATH_MAX];
	int inherit = pl_has_inheritable();

	while (envp != NULL && envp[cnt] != NULL)
		cnt++;
	e->v = cnt + 4 <= PL_ENV_STACK ? e->stack : malloc((cnt + 4) * sizeof(char *));
	if (e->v == NULL)
		return NULL;
	for (i = 0; i < cnt; i++)
		if (strncmp(envp[i], PL_CWD_ENV, sizeof(PL_CWD_ENV) - 1) != 0)
			e->v[n++] = envp[i];
	if (pl_cwd_get(cwd, sizeof(cwd))) {
		snprintf(e->cwd, sizeof(e->cwd), "%s%s", PL_CWD_ENV, cwd);
		e->v[n++] = e->cwd;
	}
	if (inherit) {
		pl_env_keep(envp, "LD_PRELOAD", e->extra[0], sizeof(e->extra[0]), e->v, &n);
		pl_env_keep(envp, "PVFSTAB_FILE", e->extra[1], sizeof(e->extra[1]), e->v, &n);
	}
	e->v[n] = NULL;
	return e->v;
}

/* Keeps errno: callers report the failed exec's. */
static void
pl_env_free(struct pl_env *e)
{
	int saved = errno;

	if (e->v != NULL && e->v != e->stack)
		free(e->v);
	errno = saved;
}

/* Copy a PVFS program into a memfd; its descriptor or -1.  Scripts keep
 * the memfd across exec (the interpreter opens /proc/self/fd/N). */
static int
pl_exec_copy(const char *abs)
{
	char buf[65536];
	ssize_t n, w;
	int in, out, script = -1;

	pl_busy++;
	script = pvfs_access(abs, X_OK);
	pl_busy--;
	if (script != 0)
		return -1;
	script = -1;
	if ((in = pl_open_abs(abs, O_RDONLY | O_CLOEXEC, 0)) == -1)
		return -1;
	/* CLOEXEC until we know: another thread may fork and exec meanwhile. */
	if ((out = memfd_create("pvfs-exec", MFD_CLOEXEC)) == -1) {
		pl_fd_close(in);
		return -1;
	}
	while ((n = pl_fd_read(in, buf, sizeof(buf))) > 0) {
		if (script == -1)
			script = n >= 2 && buf[0] == '#' && buf[1] == '!';
		for (w = 0; w < n; ) {
			ssize_t k = REAL(write)(out, buf + w, (size_t)(n - w));

			if (k <= 0) {
				n = -1;
				break;
			}
			w += k;
		}
		if (n < 0)
			break;
	}
	pl_fd_close(in);
	if (n < 0) {
		REAL(close)(out);
		return -1;
	}
	if (script == 1)
		REAL(fcntl)(out, F_SETFD, 0);
	return out;
}

static int
pl_exec_fd_path(int fd, char *path, size_t len)
{
	return snprintf(path, len, "/proc/self/fd/%d", fd) > 0 ? 0 : -1;
}

static int
pl_execve_env(const char *path, char *const argv[], char *const envp[])
{
	char abs[PL_ABS_MAX], fdpath[64];
	enum pl_route r = pl_route(AT_FDCWD, path, abs);
	struct pl_env e;
	char **env = pl_env_build(&e, envp);
	int fd, saved;

	if (env == NULL)
		return -1;
	if (r != PL_PVFS) {
		REAL(execve)(PL_USE(r, path, abs), argv, env);
	} else if ((fd = pl_exec_copy(abs)) != -1) {
		pl_exec_fd_path(fd, fdpath, sizeof(fdpath));
		REAL(execve)(fdpath, argv, env);
		saved = errno;
		REAL(close)(fd);
		errno = saved;
	} else if (PL_ESCAPED(fd)) {
		REAL(execve)(pvfs_local_path(), argv, env); /* a link led out */
	}
	pl_env_free(&e);
	return -1;
}

int
execve(const char *path, char *const argv[], char *const envp[])
{
	if (!pl_active())
		return REAL(execve)(path, argv, envp);
	return pl_execve_env(path, argv, envp);
}

int
execv(const char *path, char *const argv[])
{
	return execve(path, argv, environ);
}

int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	char abs[PL_ABS_MAX];
	enum pl_route r = PL_LOCAL;
	struct pl_env e;
	char **env;

	if (!pl_active())
		return REAL(execvpe)(file, argv, envp);
	/* A local name with a '/' stays libc's: it runs a script without
	 * "#!" with /bin/sh on ENOEXEC, as execve does not. */
	if (file != NULL && strchr(file, '/') != NULL &&
	    (r = pl_route(AT_FDCWD, file, abs)) == PL_PVFS)
		return pl_execve_env(abs, argv, envp);
	if ((env = pl_env_build(&e, envp)) == NULL)
		return -1;
	REAL(execvpe)(PL_USE(r, file, abs), argv, env);
	pl_env_free(&e);
	return -1;
}

int
execvp(const char *file, char *const argv[])
{
	return execvpe(file, argv, environ);
}

/* Collect execl's arguments; envp (execle) follows the NULL. */
static int
pl_vargs(const char *first, va_list ap, char **argv, char ***envp)
{
	size_t n = 1;

	argv[0] = (char *)first;
	while (argv[n - 1] != NULL && n < PL_ARGS_MAX)
		argv[n++] = va_arg(ap, char *);
	if (argv[n - 1] != NULL) {
		errno = E2BIG;
		return -1;
	}
	if (envp != NULL)
		*envp = va_arg(ap, char **);
	return 0;
}

int
execl(const char *path, const char *arg, ...)
{
	char *argv[PL_ARGS_MAX];
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = pl_vargs(arg, ap, argv, NULL);
	va_end(ap);
	return rc != 0 ? -1 : execve(path, argv, environ);
}

int
execle(const char *path, const char *arg, ...)
{
	char *argv[PL_ARGS_MAX], **envp = NULL;
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = pl_vargs(arg, ap, argv, &envp);
	va_end(ap);
	return rc != 0 ? -1 : execve(path, argv, envp);
}

int
execlp(const char *file, const char *arg, ...)
{
	char *argv[PL_ARGS_MAX];
	va_list ap;
	int rc;

	va_start(ap, arg);
	rc = pl_vargs(arg, ap, argv, NULL);
	va_end(ap);
	return rc != 0 ? -1 : execvpe(file, argv, environ);
}

int
fexecve(int fd, char *const argv[], char *const envp[])
{
	struct pl_env e;
	struct pl_file *f;
	char **env, path[PATH_MAX];

	if (!pl_active())
		return REAL(fexecve)(fd, argv, envp);
	if ((f = pl_get(fd)) != NULL) {
		snprintf(path, sizeof(path), "%s", f->path);
		pl_put(f);
		return pl_execve_env(path, argv, envp);
	}
	if ((env = pl_env_build(&e, envp)) == NULL)
		return -1;
	REAL(fexecve)(fd, argv, env);
	pl_env_free(&e);
	return -1;
}

int
execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
    int flags)
{
	char abs[PL_ABS_MAX];
	enum pl_route r;
	struct pl_env e;
	char **env;

	if (!pl_active())
		return REAL(execveat)(dirfd, path, argv, envp, flags);
	if (path != NULL && path[0] == '\0' && (flags & AT_EMPTY_PATH))
		return fexecve(dirfd, argv, envp);
	if ((r = pl_route(dirfd, path, abs)) == PL_PVFS)
		return pl_execve_env(abs, argv, envp);
	if ((env = pl_env_build(&e, envp)) == NULL)
		return -1;
	REAL(execveat)(dirfd, PL_USE(r, path, abs), argv, env, flags);
	pl_env_free(&e);
	return -1;
}

/* which: 0 posix_spawn, 1 posix_spawnp (a name without '/' is searched
 * for in PATH). */
static int
pl_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[],
    int which)
{
	char abs[PL_ABS_MAX], fdpath[64];
	enum pl_route r = PL_LOCAL;
	struct pl_env e;
	char **env;
	int rc, fd = -1;

	if (!pl_active())
		return which == 0 ? REAL(posix_spawn)(pid, path, fa, attr, argv, envp) :
		    REAL(posix_spawnp)(pid, path, fa, attr, argv, envp);
	if (which == 0 || strchr(path, '/') != NULL)
		r = pl_route(AT_FDCWD, path, abs);
	if ((env = pl_env_build(&e, envp)) == NULL)
		return errno;
	if (r == PL_PVFS) {
		if ((fd = pl_exec_copy(abs)) == -1 && PL_ESCAPED(fd)) {
			rc = REAL(posix_spawn)(pid, pvfs_local_path(), fa, attr,
			    argv, env); /* a link led out of PVFS */
			pl_env_free(&e);
			return rc;
		}
		if (fd == -1) {
			pl_env_free(&e);
			return errno;
		}
		pl_exec_fd_path(fd, fdpath, sizeof(fdpath));
		rc = REAL(posix_spawn)(pid, fdpath, fa, attr, argv, env);
		REAL(close)(fd);
	} else if (which == 0) {
		rc = REAL(posix_spawn)(pid, PL_USE(r, path, abs), fa, attr, argv, env);
	} else {
		rc = REAL(posix_spawnp)(pid, PL_USE(r, path, abs), fa, attr, argv, env);
	}
	pl_env_free(&e);
	return rc;
}

int
posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return pl_spawn(pid, path, fa, attr, argv, envp, 0);
}

int
posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return pl_spawn(pid, file, fa, attr, argv, envp, 1);
}
