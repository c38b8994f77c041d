/* config.c - the client's pvfstab and the mgr's iod table.
 *
 * Both fail closed: every line is either blank, a comment or a valid
 * entry, and anything else stops the parse with file:line and the reason
 * (doc/configuration.md).  A table half understood would send a client's
 * writes to its local disk or stripe files over one iod twice. */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "common.h"

#define TAB_MAX_FIELDS 8

struct acc;

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

/* A Unix socket path after "name=": absolute and short enough. */
static int
sock_option(const char *v, char *out)
{
	if (v[0] != '/' || strlen(v) > PVFS_SOCK_MAX)
		return -1;
	strcpy(out, v);
	return 0;
}

static int
tab_auth_options(const char *o, struct pvfs_tab_entry *e, char **why)
{
	if (strncmp(o, "sock=", 5) == 0) {
		if (sock_option(o + 5, e->sock) != 0)
			return *why = "bad sock (an absolute path, at most 107 bytes)", -1;
	} else if (strncmp(o, "munge_socket=", 13) == 0) {
		if (sock_option(o + 13, e->munge_sock) != 0)
			return *why = "bad munge_socket", -1;
	} else if (strcmp(o, "auth=munge") == 0) {
		e->auth = PVFS_AUTH_MUNGE;
	} else if (strcmp(o, "auth=none") == 0) {
		e->auth = 0;
	} else if (strncmp(o, "auth=", 5) == 0) {
		return *why = "bad auth (munge or none)", -1;
	} else {
		return *why = "unknown option (port=, timeout=, sock=, auth=, "
		    "munge_socket=, cache=, defaults)", -1;
	}
	return 0;
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
		} else if (strcmp(o, "cache=off") == 0 || strcmp(o, "cache=on") == 0) {
			e->nocache = o[7] == 'f';
		} else if (strncmp(o, "cache=", 6) == 0) {
			return *why = "bad cache (on or off)", -1;
		} else if (strcmp(o, "defaults") == 0) {
			continue; /* fstab's word for "no options" */
		} else if (tab_auth_options(o, e, why) != 0) {
			return -1;
		}
	}
	return 0;
}

/* fstab's dump and pass fields, when present, are numbers. */
static int
tab_tail(char **f, int n, char **why)
{
	long v;
	int i;

	if (n > 6)
		return *why = "too many fields (want: mgrhost:/meta-dir /prefix "
		    "pvfs [options [0 0]])", -1;
	for (i = 4; i < n; i++)
		if (parse_uint(f[i], 9, &v) != 0)
			return *why = "fields 5 and 6 must be numbers (0 0)", -1;
	return 0;
}

static int
tab_line(char *line, void *entry, struct acc *a, char **why)
{
	struct pvfs_tab_entry *e = entry;
	char *f[TAB_MAX_FIELDS], *colon;
	size_t hl, pl;
	int n = split_fields(line, f, TAB_MAX_FIELDS);

	(void)a;
	if (n == 0)
		return 0;
	if (n < 3)
		return *why = "want: mgrhost:/meta-dir /prefix pvfs [options]", -1;
	if (tab_tail(f, n, why) != 0)
		return -1;
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
	if (!pvfs_host_valid(e->host))
		return *why = "bad mgr host name", -1;
	return 1;
}

/* Entries of one table, grown one line at a time. */
struct acc {
	void *v;
	int n;
	size_t size; /* bytes per entry */
	int max;
	/* 1 entry, 0 blank, -1 with *why */
	int (*line)(char *, void *entry, struct acc *a, char **why);
	int resolve;   /* iod table: names must resolve (pvfs_iodtab_load) */
	char (*addrs)[64]; /* iod table: each entry's resolved address */
	char whybuf[640]; /* a reason with details */
};

/* A configuration line is text: a control byte means a binary or
 * damaged file, which must not parse into something by chance. */
static int
line_is_text(const char *line)
{
	const unsigned char *p;

	for (p = (const unsigned char *)line; *p != '\0'; p++)
		if ((*p < 0x20 && *p != '\t' && *p != '\r') || *p == 0x7f)
			return 0;
	return 1;
}

static int
acc_add(struct acc *a, const void *entry, char **why)
{
	void *nv;

	if (a->n == a->max)
		return *why = "too many entries", -1;
	if ((nv = realloc(a->v, a->size * (size_t)(a->n + 1))) == NULL)
		return *why = "out of memory", -1;
	a->v = nv;
	memcpy((uint8_t *)a->v + a->size * (size_t)a->n++, entry, a->size);
	return 0;
}

/* Parse each line of text into acc; stop at the first error. */
static int
acc_parse(const char *text, const char *fname, struct acc *a, char **cause)
{
	char *copy = strdup(text), *line, *next, *why = NULL;
	int lineno = 0, rc = 0;

	if (copy == NULL)
		return pvfs_set_cause(cause, "out of memory"), -1;
	for (line = copy; line != NULL && rc == 0; line = next) {
		union {
			struct pvfs_tab_entry tab;
			struct pvfs_iod_addr iod;
		} entry;

		if ((next = strchr(line, '\n')) != NULL)
			*next++ = '\0';
		lineno++;
		if (!line_is_text(line)) {
			rc = -1;
			why = "control characters: not a text file";
		} else {
			rc = a->line(line, &entry, a, &why);
		}
		if (rc == 1)
			rc = acc_add(a, &entry, &why);
		if (rc != 0)
			pvfs_set_cause(cause, "%s:%d: %s", fname, lineno, why);
	}
	free(copy);
	if (rc != 0) {
		free(a->v);
		a->v = NULL;
		return -1;
	}
	return a->n;
}

const char *
pvfs_tab_path(void)
{
	const char *path = getenv("PVFSTAB_FILE");

	return path == NULL || *path == '\0' ? PVFS_DEFAULT_TAB : path;
}

int
pvfs_tab_parse(const char *text, const char *fname,
    struct pvfs_tab_entry **out, char **cause)
{
	struct acc a = { NULL, 0, sizeof(**out), 1024, tab_line, 0, NULL, "" };
	int n = acc_parse(text, fname, &a, cause);

	*out = a.v;
	return n;
}

/* host:port or a Unix socket already named by an earlier entry. */
static int
iod_duplicate(struct acc *a, const struct pvfs_iod_addr *e, char **why)
{
	const struct pvfs_iod_addr *v = a->v;
	int i;

	for (i = 0; i < a->n; i++) {
		if (strcasecmp(v[i].host, e->host) == 0 && v[i].port == e->port)
			break;
		if (e->sock[0] != '\0' && strcmp(v[i].sock, e->sock) == 0)
			break;
	}
	if (i == a->n)
		return 0;
	snprintf(a->whybuf, sizeof(a->whybuf), "duplicate of iod %d "
	    "(%s:%u): two positions would share one iod", i, v[i].host,
	    v[i].port);
	return *why = a->whybuf, -1;
}

/* The name resolves, and to an address no earlier entry has on that
 * port (localhost:7000 and 127.0.0.1:7000 are one iod). */
static int
iod_resolve(struct acc *a, const struct pvfs_iod_addr *e, char **why)
{
	struct addrinfo hints = { 0 }, *res;
	const struct pvfs_iod_addr *v = a->v;
	char addr[64], (*na)[64];
	int rc, i;

	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(e->host, NULL, &hints, &res)) != 0) {
		snprintf(a->whybuf, sizeof(a->whybuf), "%s: name does not resolve "
		    "(%s)", e->host, gai_strerror(rc));
		return *why = a->whybuf, -1;
	}
	rc = getnameinfo(res->ai_addr, res->ai_addrlen, addr, sizeof(addr),
	    NULL, 0, NI_NUMERICHOST);
	freeaddrinfo(res);
	if (rc != 0)
		return *why = "cannot print the resolved address", -1;
	for (i = 0; i < a->n; i++)
		if (v[i].port == e->port && strcmp(a->addrs[i], addr) == 0) {
			snprintf(a->whybuf, sizeof(a->whybuf), "%.200s is %s, as iod "
			    "%d (%.200s:%u): two positions would share one iod",
			    e->host, addr, i, v[i].host, v[i].port);
			return *why = a->whybuf, -1;
		}
	if ((na = realloc(a->addrs, sizeof(*na) * (size_t)(a->n + 1))) == NULL)
		return *why = "out of memory", -1;
	a->addrs = na;
	memcpy(na[a->n], addr, sizeof(addr));
	return 0;
}

static int
iod_line(char *line, void *entry, struct acc *a, char **why)
{
	struct pvfs_iod_addr *e = entry;
	char *f[2];
	int n = split_fields(line, f, 2);

	if (n == 0)
		return 0;
	if (n < 0)
		return *why = "want one host:port [unix=PATH] per line", -1;
	memset(e, 0, sizeof(*e));
	if (pvfs_net_parse_addr(f[0], e->host, sizeof(e->host), &e->port,
	    PVFS_DEFAULT_IOD_PORT) != 0 || e->port == 0)
		return *why = "bad host:port", -1;
	if (!pvfs_host_valid(e->host))
		return *why = "bad host name", -1;
	if (n == 2 && (strncmp(f[1], "unix=", 5) != 0 ||
	    sock_option(f[1] + 5, e->sock) != 0))
		return *why = "bad unix=PATH (absolute, at most 107 bytes)", -1;
	if (iod_duplicate(a, e, why) != 0)
		return -1;
	if (a->resolve && iod_resolve(a, e, why) != 0)
		return -1;
	return 1;
}

int
pvfs_iodtab_parse(const char *text, const char *fname,
    struct pvfs_iod_addr **out, char **cause)
{
	struct acc a = { NULL, 0, sizeof(**out), PVFS_MAX_IODS, iod_line, 0,
	    NULL, "" };
	int n = acc_parse(text, fname, &a, cause);

	*out = a.v;
	return n;
}

int
pvfs_iodtab_load(const char *path, size_t max, struct pvfs_iod_addr **out,
    char **cause)
{
	struct acc a = { NULL, 0, sizeof(**out), PVFS_MAX_IODS, iod_line, 1,
	    NULL, "" };
	char *text;
	int n;

	*out = NULL;
	if ((text = pvfs_config_read(path, max, cause)) == NULL)
		return -1;
	n = acc_parse(text, path, &a, cause);
	free(text);
	free(a.addrs);
	if (n == 0) {
		pvfs_set_cause(cause, "%s: no iods", path);
		free(a.v);
		return -1;
	}
	*out = a.v;
	return n;
}

/* Letters, digits and the punctuation of DNS names and IP addresses. */
int
pvfs_host_valid(const char *host)
{
	const char *p;

	if (*host == '\0' || *host == '-' || *host == '.')
		return 0;
	for (p = host; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789-._:%", *p) == NULL)
			return 0;
	return 1;
}

/* A NUL byte would end the text early and hide the rest of the file. */
char *
pvfs_config_read(const char *path, size_t max, char **cause)
{
	size_t len, i;
	int line = 1;
	char *text = pvfs_read_small_file(path, max, &len);

	if (text == NULL)
		return pvfs_set_cause(cause, "%s: %s", path, strerror(errno)), NULL;
	for (i = 0; i < len && text[i] != '\0'; i++)
		line += text[i] == '\n';
	if (i < len) {
		pvfs_set_cause(cause, "%s:%d: NUL byte: not a text file", path, line);
		free(text);
		errno = EINVAL;
		return NULL;
	}
	return text;
}
