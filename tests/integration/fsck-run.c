/* fsck-run.c - see fsck-run.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cluster.h"
#include "fsck-run.h"

/* Child: become uid if asked, send output to fd, exec pvfs-fsck. */
static void
fsck_child(struct cluster *c, const char *opt, uid_t uid, int fd)
{
	char prog[PATH_MAX + 16], *slash;
	char *argv[4], url[64] = "/pvfs";
	int n = 0;

	snprintf(prog, sizeof(prog), "%s", c->tool);
	slash = strrchr(prog, '/');
	snprintf(slash != NULL ? slash + 1 : prog,
	    sizeof(prog) - (size_t)(slash != NULL ? slash + 1 - prog : 0),
	    "pvfs-fsck");
	argv[n++] = prog;
	if (opt != NULL)
		argv[n++] = (char *)opt;
	/* Another user cannot read the test's pvfstab: name the mgr. */
	if (uid != (uid_t)-1)
		snprintf(url, sizeof(url), "pvfs://127.0.0.1:%d",
		    cluster_port(c, "mgr"));
	argv[n++] = url;
	argv[n] = NULL;
	dup2(fd, 1);
	dup2(fd, 2);
	if (uid != (uid_t)-1 && (setgid(uid) != 0 || setuid(uid) != 0))
		_exit(126);
	execv(prog, argv);
	fprintf(stderr, "exec %s: %s\n", prog, strerror(errno));
	_exit(127);
}

int
fsck_run(struct cluster *c, const char *opt, uid_t uid, char *out,
    size_t outlen)
{
	char scratch[4096];
	size_t have = 0;
	int pfd[2], status;
	ssize_t r;
	pid_t pid;

	if (pipe(pfd) != 0)
		return -1;
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		close(pfd[0]);
		fsck_child(c, opt, uid, pfd[1]);
	}
	close(pfd[1]);
	/* Read to the end even past outlen, or the child would block. */
	while ((r = have < outlen - 1 ?
	    read(pfd[0], out + have, outlen - 1 - have) :
	    read(pfd[0], scratch, sizeof(scratch))) > 0 ||
	    (r < 0 && errno == EINTR))
		if (r > 0 && have < outlen - 1)
			have += (size_t)r;
	out[have] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int
fsck_count_lines(const char *out, const char *prefix)
{
	size_t len = strlen(prefix);
	const char *p = out;
	int n = 0;

	while (*p != '\0') {
		if (strncmp(p, prefix, len) == 0)
			n++;
		if ((p = strchr(p, '\n')) == NULL)
			break;
		p++;
	}
	return n;
}
