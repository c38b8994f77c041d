/* procinfo.c - /proc readings of a test cluster's daemons (procinfo.h). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procinfo.h"

pid_t
proc_daemon_pid(struct cluster *c, const char *daemon)
{
	char path[PATH_MAX + 64];
	long pid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/run/%s.pid", c->dir, daemon);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = -1;
	fclose(f);
	return (pid_t)pid;
}

int
proc_fd_count(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int
proc_fd_nth_free(pid_t pid, int n)
{
	char path[64];
	int fd;

	for (fd = 0; fd < 1 << 20; fd++) {
		snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)pid, fd);
		if (access(path, F_OK) != 0 && --n == 0)
			return fd;
	}
	return -1;
}

long
proc_rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

double
proc_cpu_secs(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* The command name may hold spaces: fields count from its ')'. */
	if ((p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
	    &ut, &st) != 2)
		return -1;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}
