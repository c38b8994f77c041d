/*
 * cluster.c - start, stop and break a local file system for the integration
 * tests (through pvfs-local), and the byte-checking helpers of cluster.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <sys/socket.h>
#include <sys/time.h>

#include "common.h"
#include "pvfs-proto.h"
#include "pvfs.h"
#include "cluster.h"

#define MAX_CLUSTERS 8
#define MAX_SEEDS 64

static struct cluster *clusters[MAX_CLUSTERS];
static struct {
	char what[64];
	uint64_t seed;
} seeds[MAX_SEEDS];
static int nseeds;

static void cluster_emergency_stop(void);

/* Run "pvfs-local CMD DIR ARGS..." with output appended to DIR/pvfs-local.log;
 * returns its exit status (or -1). */
static int
cluster_run_tool(struct cluster *c, char *const args[])
{
	char *argv[16], log[PATH_MAX + 32];
	int n = 0, status, fd;
	pid_t pid;

	argv[n++] = c->tool;
	argv[n++] = args[0];
	argv[n++] = c->dir;
	for (int i = 1; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	snprintf(log, sizeof(log), "%s/pvfs-local.log", c->dir);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(c->tool, argv);
		fprintf(stderr, "exec %s: %s\n", c->tool, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void
cluster_tail(const char *path, int lines)
{
	char cmd[PATH_MAX + 64];
	struct stat st;

	if (stat(path, &st) < 0 || st.st_size == 0)
		return;
	fprintf(stderr, "---- tail of %s ----\n", path);
	fflush(stderr);
	snprintf(cmd, sizeof(cmd), "tail -n %d '%s' >&2", lines, path);
	if (system(cmd) != 0)
		fprintf(stderr, "(tail failed)\n");
}

void
cluster_show_logs(struct cluster *c)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/pvfs-local.log", c->dir);
	cluster_tail(path, 30);
	for (int k = -1; k < c->niods; k++) {
		char name[32];

		if (k < 0)
			snprintf(name, sizeof(name), "mgr");
		else
			snprintf(name, sizeof(name), "iod%d", k);
		snprintf(path, sizeof(path), "%s/run/%s.log", c->dir, name);
		cluster_tail(path, 30);
		snprintf(path, sizeof(path), "%s/run/%s.err", c->dir, name);
		cluster_tail(path, 30);
	}
}

static void
cluster_on_signal(int sig)
{
	cluster_emergency_stop();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
cluster_atexit(void)
{
	cluster_emergency_stop();
}

/* Stop every cluster this process started that still runs. */
static void
cluster_emergency_stop(void)
{
	for (int i = 0; i < MAX_CLUSTERS; i++) {
		struct cluster *c = clusters[i];

		if (c == NULL || !c->running || c->owner != getpid())
			continue;
		c->running = 0;
		cluster_run_tool(c, (char *[]){"stop", NULL});
		fprintf(stderr, "cluster: stopped the daemons of %s on exit; "
		    "the dir is kept\n", c->dir);
	}
}

static void
cluster_register(struct cluster *c)
{
	static int hooked;

	for (int i = 0; i < MAX_CLUSTERS; i++)
		if (clusters[i] == c)
			return;
	for (int i = 0; i < MAX_CLUSTERS; i++)
		if (clusters[i] == NULL) {
			clusters[i] = c;
			break;
		}
	if (!hooked) {
		hooked = 1;
		atexit(cluster_atexit);
		signal(SIGTERM, cluster_on_signal);
		signal(SIGINT, cluster_on_signal);
		signal(SIGHUP, cluster_on_signal);
		signal(SIGPIPE, SIG_IGN);
	}
}

static int
cluster_find_tool(struct cluster *c)
{
	const char *b = getenv("PVFS_BUILDDIR");
	char cwd[PATH_MAX];

	if (b == NULL || *b == '\0') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			return -1;
		b = cwd;
	}
	if (snprintf(c->tool, sizeof(c->tool), "%s/pvfs-local", b) >=
	    (int)sizeof(c->tool))
		return -1;
	if (access(c->tool, X_OK) < 0) {
		fprintf(stderr, "cluster: %s: %s (set PVFS_BUILDDIR)\n", c->tool,
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* PVFS_TEST_TCP=1: clients reach the iods over TCP, as from another host.
 * pvfs-local's iodtab names each iod's Unix socket; with the socket gone
 * the client falls back to the iod's TCP port.  The mgr keeps its socket
 * (the tests' uid reaches it, as with a local mgr). */
static void
cluster_tcp_only(struct cluster *c)
{
	const char *e = getenv("PVFS_TEST_TCP");
	char path[PATH_MAX + 64];
	int k;

	if (e == NULL || strcmp(e, "1") != 0)
		return;
	for (k = 0; k < c->niods; k++) {
		snprintf(path, sizeof(path), "%s/run/iod%d.sock", c->dir, k);
		unlink(path);
	}
}

static int
cluster_launch(struct cluster *c, const char *what)
{
	char n[16];
	char *args[16] = { "start", "--iods", n, "--timeout", "5" };
	int rc, i, k = 5;

	snprintf(n, sizeof(n), "%d", c->niods);
	for (i = 0; c->start_args != NULL && c->start_args[i] != NULL && k < 15; i++)
		args[k++] = (char *)c->start_args[i];
	args[k] = NULL;
	rc = cluster_run_tool(c, args);
	if (rc != 0) {
		fprintf(stderr, "cluster: %s: pvfs-local start %s failed (%d)\n",
		    what, c->dir, rc);
		c->running = 1; /* so that stop still runs */
		cluster_show_logs(c);
		return -1;
	}
	c->running = 1;
	cluster_tcp_only(c);
	return 0;
}

int
cluster_start(struct cluster *c, int niods)
{
	const char *tmp = getenv("TMPDIR");

	memset(c, 0, sizeof(*c));
	c->niods = niods;
	c->owner = getpid();
	if (cluster_find_tool(c) < 0)
		return -1;
	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	if (snprintf(c->dir, sizeof(c->dir), "%s/pvfs-test.XXXXXX", tmp) >=
	    (int)sizeof(c->dir) - 64) {
		fprintf(stderr, "cluster: TMPDIR too long\n");
		return -1;
	}
	if (mkdtemp(c->dir) == NULL) {
		fprintf(stderr, "cluster: mkdtemp %s: %s\n", c->dir,
		    strerror(errno));
		return -1;
	}
	snprintf(c->tab, sizeof(c->tab), "%s/pvfstab", c->dir);
	setenv("PVFSTAB_FILE", c->tab, 1);
	cluster_register(c);
	return cluster_launch(c, "start");
}

int
cluster_stop(struct cluster *c)
{
	int rc;

	if (c->dir[0] == '\0')
		return 0;
	rc = cluster_run_tool(c, (char *[]){"stop", NULL});
	c->running = 0;
	if (rc != 0) {
		fprintf(stderr, "cluster: pvfs-local stop %s failed (%d)\n",
		    c->dir, rc);
		return -1;
	}
	return 0;
}

int
cluster_restart(struct cluster *c)
{
	if (cluster_stop(c) < 0)
		return -1;
	return cluster_launch(c, "restart");
}

int
cluster_start_again(struct cluster *c)
{
	return cluster_launch(c, "start again");
}

/* DIR/run/DAEMON.EXT, where pvfs-local keeps what a daemon left. */
static FILE *
cluster_run_open(struct cluster *c, const char *daemon, const char *ext)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/run/%s.%s", c->dir, daemon, ext);
	return fopen(path, "r");
}

/* The number in DIR/run/DAEMON.EXT, or -1. */
static long
cluster_run_number(struct cluster *c, const char *daemon, const char *ext)
{
	FILE *f = cluster_run_open(c, daemon, ext);
	long v = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

FILE *
cluster_log(struct cluster *c, const char *daemon)
{
	return cluster_run_open(c, daemon, "log");
}

static pid_t
cluster_pid(struct cluster *c, const char *daemon)
{
	return (pid_t)cluster_run_number(c, daemon, "pid");
}

/* 1 while pid exists and is not a zombie. */
static int
cluster_proc_alive(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');
	return p != NULL && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

int
cluster_kill(struct cluster *c, const char *daemon, int sig)
{
	char signum[16];
	pid_t pid = cluster_pid(c, daemon);

	snprintf(signum, sizeof(signum), "%d", sig);
	if (cluster_run_tool(c, (char *[]){"kill", (char *)daemon, signum,
	    NULL}) != 0) {
		fprintf(stderr, "cluster: pvfs-local kill %s %s failed\n",
		    daemon, signum);
		return -1;
	}
	if (sig != SIGKILL || pid <= 0)
		return 0;
	for (int i = 0; i < 500; i++) {
		if (!cluster_proc_alive(pid))
			return 0;
		usleep(10000);
	}
	fprintf(stderr, "cluster: %s (pid %ld) survives SIGKILL\n", daemon,
	    (long)pid);
	return -1;
}

int
cluster_port(struct cluster *c, const char *daemon)
{
	return (int)cluster_run_number(c, daemon, "port");
}

char *
cluster_path(struct cluster *c, const char *rel, char *buf)
{
	(void)c;
	while (*rel == '/')
		rel++;
	snprintf(buf, PATH_MAX, "/pvfs%s%s", *rel ? "/" : "", rel);
	return buf;
}

int
cluster_create(struct cluster *c, const char *rel, int flags, int base,
    int pcount, int ssize)
{
	char path[PATH_MAX];
	struct pvfs_filestat fs = {base, pcount, ssize, 0, 0};

	return pvfs_open(cluster_path(c, rel, path),
	    O_CREAT | O_RDWR | PVFS_O_META | flags, 0644, &fs);
}

char *
cluster_stripe_name(struct cluster *c, int k, uint64_t ino,
    uint64_t gen, char *buf)
{
	int n = snprintf(buf, PATH_MAX, "%s/iod%d/%02x/%" PRIu64, c->dir, k,
	    (unsigned)(ino & 0xff), ino);

	if (gen != 0 && n > 0 && n < PATH_MAX)
		snprintf(buf + n, (size_t)(PATH_MAX - n), ".%016" PRIx64, gen);
	return buf;
}

/* A stripe file of ino, whatever its gen, in the subdirectory XX of iod k
 * (in upper case if upper), into buf.  1 if found, else 0. */
static int
cluster_stripe_find(struct cluster *c, int k, int upper,
    uint64_t ino, char *buf)
{
	char dir[PATH_MAX - 64], name[32], ent[64];
	struct dirent *de;
	size_t len;
	DIR *d;
	int found = 0;

	snprintf(dir, sizeof(dir), upper ? "%s/iod%d/%02X" : "%s/iod%d/%02x",
	    c->dir, k, (unsigned)(ino & 0xff));
	len = (size_t)snprintf(name, sizeof(name), "%" PRIu64, ino);
	if ((d = opendir(dir)) == NULL)
		return 0;
	while (!found && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, name, len) != 0 ||
		    (de->d_name[len] != '\0' && de->d_name[len] != '.') ||
		    strlen(de->d_name) >= sizeof(ent))
			continue;
		snprintf(ent, sizeof(ent), "%s", de->d_name);
		snprintf(buf, PATH_MAX, "%s/%s", dir, ent);
		found = 1;
	}
	closedir(d);
	return found;
}

char *
cluster_stripe_file(struct cluster *c, int k, uint64_t ino, char *buf)
{
	if (!cluster_stripe_find(c, k, 0, ino, buf))
		cluster_stripe_name(c, k, ino, 0, buf);
	return buf;
}

int
cluster_stripe_exists(struct cluster *c, int k, uint64_t ino)
{
	char path[PATH_MAX];

	return cluster_stripe_find(c, k, 0, ino, path) ||
	    cluster_stripe_find(c, k, 1, ino, path);
}

int
cluster_stripes_gone(struct cluster *c, uint64_t ino, int limit_ms)
{
	struct timespec pause = { 0, 20 * 1000000 };
	int k, held, waited;

	for (waited = 0;; waited += 20) {
		for (k = held = 0; k < c->niods; k++)
			held += cluster_stripe_exists(c, k, ino);
		if (held == 0)
			return 0;
		if (waited >= limit_ms)
			return -1;
		nanosleep(&pause, NULL);
	}
}

static int
cluster_rm_rf(const char *dir)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execlp("rm", "rm", "-rf", "--", dir, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int
cluster_finish(struct cluster *c, int rc)
{
	if (c->running)
		cluster_stop(c);
	if (c->dir[0] == '\0')
		return rc;
	if (rc == 0) {
		cluster_rm_rf(c->dir);
		return rc;
	}
	cluster_show_logs(c);
	fprintf(stderr, "cluster: tests failed; %s is kept\n", c->dir);
	for (int i = 0; i < nseeds; i++)
		fprintf(stderr, "cluster: %s used seed %" PRIu64
		    " (replay with PVFS_TEST_SEED=%" PRIu64 ")\n",
		    seeds[i].what, seeds[i].seed, seeds[i].seed);
	return rc;
}

/* The group cluster_run_group runs: cmocka's fixtures take no argument. */
static struct cluster *group_c;
static int group_niods;
static int (*group_ready)(void);

static int
cluster_group_setup(void **state)
{
	(void)state;
	if (cluster_start(group_c, group_niods) != 0)
		return -1;
	return group_ready != NULL ? group_ready() : 0;
}

static int
cluster_group_teardown(void **state)
{
	(void)state;
	return cluster_stop(group_c);
}

int
cluster_run_group(struct cluster *c, int niods, int (*ready)(void),
    const char *name, const struct CMUnitTest *tests, size_t ntests)
{
	group_c = c;
	group_niods = niods;
	group_ready = ready;
	return cluster_finish(c, _cmocka_run_group_tests(name, tests, ntests,
	    cluster_group_setup, cluster_group_teardown));
}

long
cluster_check_ok(long r, const char *expr, const char *file, int line)
{
	if (r < 0) {
		print_error("%s: returned %ld: %s\n", expr, r, strerror(errno));
		_fail(file, line);
	}
	return r;
}

/* ---- PRNG ---- */

void
rng_init(struct rng *r, const char *what)
{
	const char *env = getenv("PVFS_TEST_SEED");
	struct timespec ts;

	if (env != NULL && *env != '\0') {
		r->seed = strtoull(env, NULL, 0);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		r->seed = ((uint64_t)ts.tv_sec * 1000000007u) ^
		    (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
	}
	r->state = r->seed;
	fprintf(stderr, "%s: seed %" PRIu64 "\n", what, r->seed);
	if (nseeds < MAX_SEEDS) {
		snprintf(seeds[nseeds].what, sizeof(seeds[nseeds].what), "%s",
		    what);
		seeds[nseeds++].seed = r->seed;
	}
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t z = (r->state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t
rng_range(struct rng *r, uint64_t lo, uint64_t hi)
{
	if (hi <= lo)
		return lo;
	if (hi - lo == UINT64_MAX)
		return rng_next(r);
	return lo + rng_next(r) % (hi - lo + 1);
}

void
rng_fill(struct rng *r, void *buf, size_t n)
{
	unsigned char *p = buf;
	uint64_t v;

	while (n >= 8) {
		v = rng_next(r);
		memcpy(p, &v, 8);
		p += 8;
		n -= 8;
	}
	v = rng_next(r);
	memcpy(p, &v, n);
}

/* ---- shadow ---- */

void
shadow_init(struct shadow *s)
{
	memset(s, 0, sizeof(*s));
}

void
shadow_free(struct shadow *s)
{
	free(s->data);
	memset(s, 0, sizeof(*s));
}

static void
shadow_grow(struct shadow *s, size_t len)
{
	size_t cap = s->cap ? s->cap : 65536;

	if (len <= s->cap)
		return;
	while (cap < len)
		cap *= 2;
	s->data = realloc(s->data, cap);
	if (s->data == NULL) {
		fprintf(stderr, "shadow: out of memory (%zu bytes)\n", cap);
		abort();
	}
	memset(s->data + s->cap, 0, cap - s->cap);
	s->cap = cap;
}

void
shadow_write(struct shadow *s, uint64_t off, const void *buf, size_t n)
{
	if (n == 0)
		return;
	shadow_grow(s, off + n);
	memcpy(s->data + off, buf, n);
	if (off + n > s->size)
		s->size = off + n;
}

void
shadow_truncate(struct shadow *s, uint64_t len)
{
	if (len > s->size) {
		shadow_grow(s, len);
	} else if (s->cap > len) {
		/* Bytes past the new end must read as zeros if it grows back. */
		memset(s->data + len, 0, s->cap - len);
	}
	s->size = len;
}

size_t
shadow_expect_len(const struct shadow *s, uint64_t off, size_t n)
{
	if (off >= s->size)
		return 0;
	return s->size - off < n ? s->size - off : n;
}

int
shadow_check_fd(const struct shadow *s, int fd, char *why, size_t whylen)
{
	const size_t chunk = 4u << 20;
	unsigned char *buf;
	struct stat st;
	uint64_t off = 0;

	if (pvfs_fstat(fd, &st) < 0) {
		snprintf(why, whylen, "fstat: %s", strerror(errno));
		return -1;
	}
	if ((uint64_t)st.st_size != s->size) {
		snprintf(why, whylen, "size %lld, expected %zu",
		    (long long)st.st_size, s->size);
		return -1;
	}
	buf = malloc(chunk + 1);
	if (buf == NULL)
		abort();
	/* Ask one byte more than remains to see the short read at the end. */
	for (;;) {
		size_t want = s->size - off < chunk ? s->size - off + 1 : chunk;
		ssize_t got = pvfs_pread(fd, buf, want, (off_t)off);
		size_t exp = shadow_expect_len(s, off, want);

		if (got < 0 || (size_t)got != exp) {
			snprintf(why, whylen, "pread(%zu at %" PRIu64 ") = %zd "
			    "(%s), expected %zu", want, off, got,
			    got < 0 ? strerror(errno) : "short", exp);
			free(buf);
			return -1;
		}
		for (size_t i = 0; i < exp; i++)
			if (buf[i] != s->data[off + i]) {
				snprintf(why, whylen, "byte %" PRIu64 " is 0x%02x, "
				    "expected 0x%02x", off + i, buf[i],
				    s->data[off + i]);
				free(buf);
				return -1;
			}
		off += exp;
		if (exp < want)
			break;
	}
	free(buf);
	return 0;
}

void
shadow_assert_fd(const struct shadow *s, int fd, const char *what)
{
	char why[256];

	if (shadow_check_fd(s, fd, why, sizeof(why)) < 0)
		fail_msg("%s: %s", what, why);
}

/* ---- patterns ---- */

static unsigned char
pattern_byte(uint64_t off, uint64_t seed)
{
	uint64_t z = (off >> 3) * 0x9e3779b97f4a7c15ull + seed;

	z = (z ^ (z >> 29)) * 0xbf58476d1ce4e5b9ull;
	z ^= z >> 32;
	return (unsigned char)(z >> (8 * (off & 7)));
}

void
pattern_fill(void *buf, size_t n, uint64_t off, uint64_t seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < n; i++)
		p[i] = pattern_byte(off + i, seed);
}

ssize_t
pattern_check(const void *buf, size_t n, uint64_t off, uint64_t seed)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < n; i++)
		if (p[i] != pattern_byte(off + i, seed))
			return (ssize_t)i;
	return -1;
}

size_t
first_diff(const void *a, const void *b, size_t n)
{
	const unsigned char *p = a, *q = b;
	size_t k = 0;

	while (k < n && p[k] == q[k])
		k++;
	return k;
}

ssize_t
first_nonzero(const void *buf, size_t n)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return (ssize_t)i;
	return -1;
}

double
mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the raw protocol client ---- */

int
raw_connect(struct cluster *c, const char *daemon, int secs)
{
	struct timeval tv = { secs, 0 };
	int port = cluster_port(c, daemon), fd;

	assert_true(port > 0);
	fd = pvfs_net_connect("127.0.0.1", (uint16_t)port, 5000);
	assert_true(fd >= 0);
	assert_int_equal(pvfs_set_nonblock(fd, 0), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

int
raw_connect_unix(struct cluster *c, const char *daemon, int secs)
{
	struct timeval tv = { secs, 0 };
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/run/%s.sock", c->dir, daemon);
	fd = pvfs_unix_connect(path, 5000);
	assert_true(fd >= 0);
	assert_int_equal(pvfs_set_nonblock(fd, 0), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

void
raw_send(int fd, const void *p, size_t n)
{
	assert_int_equal(pvfs_write_all(fd, p, n), 0);
}

int
raw_read(int fd, void *p, size_t n)
{
	uint8_t *b = p;
	ssize_t r;

	while (n > 0) {
		r = read(fd, b, n);
		if (r <= 0)
			return -1;
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

int
raw_status(int fd, struct pvfs_hdr *h)
{
	uint8_t raw[PVFS_HDR_LEN];

	if (raw_read(fd, raw, sizeof(raw)) != 0)
		return -1;
	assert_int_equal(pvfs_hdr_decode(raw, h), 0);
	assert_true(h->flags & PVFS_HDR_REPLY);
	return h->status;
}

void
raw_send_frame(int fd, uint16_t op, int reply, const void *msg)
{
	struct pvfs_buf b;

	pvfs_buf_init(&b);
	assert_int_equal(pvfs_frame_encode(&b, op, 42, reply, 0, msg), 0);
	raw_send(fd, b.data, b.len);
	pvfs_buf_free(&b);
}

int
raw_request(struct cluster *c, const char *daemon, uint16_t op,
    const void *msg)
{
	struct pvfs_hdr h;
	int fd = raw_connect(c, daemon, 10), st;

	raw_send_frame(fd, op, 0, msg);
	st = raw_status(fd, &h);
	close(fd);
	return st;
}

void
raw_assert_closed(int fd)
{
	uint8_t b[4096];
	ssize_t r;

	while ((r = read(fd, b, sizeof(b))) > 0)
		;
	assert_true(r == 0 || errno == ECONNRESET);
}

void
raw_open(struct cluster *c, const char *path, uint32_t flags,
    struct pvfs_mgr_attrcap_rep *rep)
{
	struct pvfs_mgr_open_req req;
	struct pvfs_hdr h;
	uint8_t body[4096];
	int fd = raw_connect_unix(c, "mgr", 10);

	memset(&req, 0, sizeof(req));
	req.flags = flags;
	req.dist.base = req.dist.pcount = req.dist.ssize = PVFS_DIST_DEFAULT;
	snprintf(req.path, sizeof(req.path), "%s", path);
	raw_send_frame(fd, PVFS_MGR_OPEN, 0, &req);
	assert_int_equal(raw_status(fd, &h), 0);
	assert_true(h.body_len <= sizeof(body));
	assert_int_equal(raw_read(fd, body, h.body_len), 0);
	assert_int_equal(pvfs_msg_decode(PVFS_MGR_OPEN, 1, body, h.body_len, rep), 0);
	close(fd);
}
