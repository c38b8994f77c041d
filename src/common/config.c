/* config.c - the client's pvfstab and the mgr's iod table. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

#define TAB_MAX_FIELDS 8

/* Split a line into white-space separated fields; '#' starts a comment. */
static int
split_fields(char *line, char **f, int max)
{
	char *save = NULL, *tok, *hash = strchr(line, '#');
	int n = 0;

	if (hash != NULL)
		*hash = '\0';
	for (tok = strtok_r(line, " \t\r", &save); tok != NULL;
	    tok = strtok_r(NULL, " \t\r", &save)) {
		if (n == max)
			return -1;
		f[n++] = tok;
	}
	return n;
}

static int
parse_uint(const char *s, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return *s == '\0' || *end != '\0' || errno || *out < 0 || *out > max ? -1 : 0;
}

static int
tab_options(char *opts, struct pvfs_tab_entry *e, char **why)
{
	char *save = NULL, *o;
	long v;

	for (o = strtok_r(opts, ",", &save); o != NULL; o = strtok_r(NULL, ",", &save)) {
		if (strncmp(o, "port=", 5) == 0) {
			if (parse_uint(o + 5, 65535, &v) != 0 || v == 0)
				return *why = "bad port", -1;
			e->port = (uint16_t)v;
		} else if (strncmp(o, "timeout=", 8) == 0) {
			if (parse_uint(o + 8, 86400, &v) != 0 || v == 0)
				return *why = "bad timeout", -1;
			e->timeout_ms = (int)v * 1000;
		}
	}
	return 0;
}

static int
tab_line(char *line, struct pvfs_tab_entry *e, char **why)
{
	char *f[TAB_MAX_FIELDS], *colon;
	size_t hl, pl;
	int n = split_fields(line, f, TAB_MAX_FIELDS);

	if (n == 0)
		return 0;
	if (n < 3)
		return *why = "want: mgrhost:/meta-dir /prefix pvfs [options]", -1;
	memset(e, 0, sizeof(*e));
	e->port = PVFS_DEFAULT_MGR_PORT;
	if ((colon = strchr(f[0], ':')) == NULL || colon == f[0])
		return *why = "first field must be mgrhost:/meta-dir", -1;
	hl = (size_t)(colon - f[0]);
	if (hl > PVFS_HOST_MAX || strlen(colon + 1) > PVFS_PATH_MAX)
		return *why = "host or meta-dir too long", -1;
	memcpy(e->host, f[0], hl);
	strcpy(e->meta_dir, colon + 1);
	pl = strlen(f[1]);
	if (f[1][0] != '/' || pl > PVFS_PATH_MAX)
		return *why = "mount prefix must be an absolute path", -1;
	while (pl > 1 && f[1][pl - 1] == '/')
		f[1][--pl] = '\0';
	strcpy(e->prefix, f[1]);
	if (strcmp(f[2], "pvfs") != 0)
		return *why = "file system type must be pvfs", -1;
	if (n > 3 && tab_options(f[3], e, why) != 0)
		return -1;
	return 1;
}

/* Call fn on each line of text; stop at the first error. */
static int
each_line(const char *text, const char *fname, void *arg,
    int (*fn)(char *, void *, char **), char **cause)
{
	char *copy = strdup(text), *line, *save = NULL, *why = NULL;
	int lineno = 0, rc = 0;

	if (copy == NULL)
		return pvfs_set_cause(cause, "out of memory"), -1;
	for (line = copy; line != NULL && rc == 0; line = save) {
		save = strchr(line, '\n');
		if (save != NULL)
			*save++ = '\0';
		lineno++;
		if ((rc = fn(line, arg, &why)) != 0)
			pvfs_set_cause(cause, "%s:%d: %s", fname, lineno, why);
	}
	free(copy);
	return rc;
}

struct tab_acc {
	struct pvfs_tab_entry *v;
	int n;
};

static int
tab_acc_line(char *line, void *arg, char **why)
{
	struct tab_acc *a = arg;
	struct pvfs_tab_entry e, *nv;
	int rc = tab_line(line, &e, why);

	if (rc <= 0)
		return rc;
	if ((nv = realloc(a->v, sizeof(*nv) * (size_t)(a->n + 1))) == NULL)
		return *why = "out of memory", -1;
	a->v = nv;
	a->v[a->n++] = e;
	return 0;
}

int
pvfs_tab_parse(const char *text, const char *fname,
    struct pvfs_tab_entry **out, char **cause)
{
	struct tab_acc a = { NULL, 0 };

	if (each_line(text, fname, &a, tab_acc_line, cause) != 0) {
		free(a.v);
		return -1;
	}
	*out = a.v;
	return a.n;
}

struct iod_acc {
	struct pvfs_iod_addr *v;
	int n;
};

static int
iod_acc_line(char *line, void *arg, char **why)
{
	struct iod_acc *a = arg;
	struct pvfs_iod_addr e, *nv;
	char *f[2];
	int n = split_fields(line, f, 1);

	if (n == 0)
		return 0;
	if (n < 0)
		return *why = "want one host:port per line", -1;
	memset(&e, 0, sizeof(e));
	if (pvfs_net_parse_addr(f[0], e.host, sizeof(e.host), &e.port,
	    PVFS_DEFAULT_IOD_PORT) != 0 || e.port == 0)
		return *why = "bad host:port", -1;
	if (a->n == PVFS_MAX_IODS)
		return *why = "too many iods", -1;
	if ((nv = realloc(a->v, sizeof(*nv) * (size_t)(a->n + 1))) == NULL)
		return *why = "out of memory", -1;
	a->v = nv;
	a->v[a->n++] = e;
	return 0;
}

int
pvfs_iodtab_parse(const char *text, const char *fname,
    struct pvfs_iod_addr **out, char **cause)
{
	struct iod_acc a = { NULL, 0 };

	if (each_line(text, fname, &a, iod_acc_line, cause) != 0) {
		free(a.v);
		return -1;
	}
	*out = a.v;
	return a.n;
}
