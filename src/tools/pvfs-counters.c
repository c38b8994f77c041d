/*
 * pvfs-counters - what every daemon of a file system has counted since it
 * started: requests and errors by kind with latency percentiles, bytes in
 * and out, connections.  As a table, as rates over an interval, or in
 * Prometheus' text exposition format for a site's monitoring.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libpvfs/pvfs-client.h"
#include "tools.h"

static const char usage[] =
"Usage: pvfs-counters [OPTION]... [PATH]...\n"
"Show what the mgr and every iod of each file system have counted since\n"
"they started: requests and errors by kind, latency percentiles (from a\n"
"request's arrival to its reply, estimated from above), bytes in and out,\n"
"connections.  The file systems are those of the PATHs (a mount prefix or\n"
"a pvfs://host:port URL), or, with none, every entry of the pvfstab.\n"
"\n"
"  -i, --interval=SECONDS  print rates over SECONDS instead, again and\n"
"                          again (requests/s and MB/s per daemon)\n"
"  -n, --count=N           with -i: stop after N intervals\n"
"  -P, --prometheus        print Prometheus' text format (one scrape)\n"
"      --help              show this help and exit\n"
"      --version           show the version and exit\n"
"\n"
"A daemon that does not answer within 5 seconds (or PVFS_TIMEOUT) is\n"
"listed as down (pvfs_up 0).\n"
"Exit status: 0 if every daemon answered, 1 if not, 2 bad usage.\n";

static const struct option longopts[] = {
	{ "interval", required_argument, NULL, 'i' },
	{ "count", required_argument, NULL, 'n' },
	{ "prometheus", no_argument, NULL, 'P' },
	TOOL_COMMON_OPTS,
	{ NULL, 0, NULL, 0 }
};

/* One daemon's answer. */
struct daemon {
	char fs[256];                /* the file system's path or URL */
	char name[16];               /* "mgr", "iod0", ... */
	char addr[300];
	int up, err;
	struct pvfs_counters_info c;
};

struct sample {
	struct daemon *d;
	uint32_t n;
};

static void
sample_free(struct sample *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		pvfs_admin_counters_free(&s->d[i].c);
	free(s->d);
	s->d = NULL;
	s->n = 0;
}

static struct daemon *
sample_add(struct sample *s, const char *fs, const char *name, const char *addr)
{
	struct daemon *d;

	s->d = realloc(s->d, (s->n + 1) * sizeof(*s->d));
	if (s->d == NULL) {
		tool_errmsg(NULL, "out of memory");
		exit(1);
	}
	d = &s->d[s->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->fs, sizeof(d->fs), "%s", fs);
	snprintf(d->name, sizeof(d->name), "%s", name);
	snprintf(d->addr, sizeof(d->addr), "%s", addr);
	return d;
}

struct sample_ctx {
	struct pvfs_admin *a;
	struct daemon *d; /* the file system's iods, in order */
};

static void
sample_iod(uint32_t i, void *arg)
{
	struct sample_ctx *x = arg;

	x->d[i].up = pvfs_admin_iod_counters(x->a, i, &x->d[i].c) == 0;
	x->d[i].err = errno;
}

/* Ask the mgr and every iod of the file system of path. */
static void
sample_fs(struct sample *s, const char *path)
{
	struct pvfs_admin *a;
	struct sample_ctx x;
	struct daemon *d;
	char addr[300], name[16];
	uint32_t i, niods = 0, first;

	if ((a = pvfs_admin_open(path)) == NULL) {
		tool_err(path, errno);
		return;
	}
	pvfs_admin_mgr_addr(a, addr, sizeof(addr));
	d = sample_add(s, path, "mgr", addr);
	if (pvfs_admin_mgr_counters(a, &d->c) == 0)
		d->up = 1;
	else
		tool_errmsg(path, "mgr %s: %s", addr, strerror(errno));
	if (pvfs_admin_niods(a, &niods) != 0)
		niods = 0;
	first = s->n;
	for (i = 0; i < niods; i++) {
		pvfs_admin_iod_addr(a, i, addr, sizeof(addr));
		snprintf(name, sizeof(name), "iod%u", i);
		(void)sample_add(s, path, name, addr);
	}
	/* Every iod at once: a host down costs one timeout. */
	x.a = a;
	x.d = &s->d[first];
	tool_each_parallel(niods, sample_iod, &x);
	for (i = 0; i < niods; i++)
		if (!x.d[i].up)
			tool_errmsg(path, "iod %u %s: %s", i, x.d[i].addr,
			    strerror(x.d[i].err));
	pvfs_admin_close(a);
}

static void
sample_all(struct sample *s, int argc, char **argv, int first)
{
	char **tab = NULL;
	int i, n;

	for (i = first; i < argc; i++)
		sample_fs(s, argv[i]);
	if (first < argc || (n = tool_tab_prefixes(&tab)) < 0)
		return;
	for (i = 0; i < n; i++)
		sample_fs(s, tab[i]);
	if (n == 0)
		tool_errmsg(NULL, "no file system in the pvfstab");
	tool_free_list(tab, (size_t)n);
}

/* ---- the table ---- */

static void
print_table(const struct sample *s)
{
	char in[16], out[16];
	uint32_t i, k;

	for (i = 0; i < s->n; i++) {
		const struct daemon *d = &s->d[i];

		if (!d->up) {
			printf("%s %s %s: down\n", d->fs, d->name, d->addr);
			continue;
		}
		printf("%s %s %s: up %.1fs, connections %" PRIu64 " open, %"
		    PRIu64 " since start, %s in, %s out\n", d->fs, d->name,
		    d->addr, (double)d->c.uptime_ms / 1000, d->c.conns_open,
		    d->c.conns_total, tool_human(d->c.bytes_in, in, sizeof(in)),
		    tool_human(d->c.bytes_out, out, sizeof(out)));
		if (d->c.nops == 0)
			continue;
		printf("  %-18s %10s %8s %9s %9s %9s %9s\n", "request", "count",
		    "errors", "p50 us", "p90 us", "p99 us", "max us");
		for (k = 0; k < d->c.nops; k++) {
			const struct pvfs_op_counters *o = &d->c.ops[k];

			printf("  %-18s %10" PRIu64 " %8" PRIu64 " %9" PRIu64
			    " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 "\n", o->name,
			    o->count, o->errors, o->p50_us, o->p90_us, o->p99_us,
			    o->max_us);
		}
	}
}

/* ---- rates over an interval ---- */

static uint64_t
requests(const struct daemon *d)
{
	uint64_t n = 0;
	uint32_t k;

	for (k = 0; k < d->c.nops; k++)
		if (strcmp(d->c.ops[k].name, "JOURNAL_COMMIT") != 0)
			n += d->c.ops[k].count;
	return n;
}

static uint64_t
errors(const struct daemon *d)
{
	uint64_t n = 0;
	uint32_t k;

	for (k = 0; k < d->c.nops; k++)
		n += d->c.ops[k].errors;
	return n;
}

/* The daemon of b that is a's (same file system and name), or NULL. */
static const struct daemon *
find(const struct sample *b, const struct daemon *a)
{
	uint32_t i;

	for (i = 0; i < b->n; i++)
		if (strcmp(b->d[i].fs, a->fs) == 0 &&
		    strcmp(b->d[i].name, a->name) == 0)
			return &b->d[i];
	return NULL;
}

static void
print_rates(const struct sample *was, const struct sample *now, double secs)
{
	const struct daemon *p;
	uint32_t i;

	printf("%-24s %-6s %10s %8s %10s %10s %6s\n", "file system", "daemon",
	    "req/s", "err/s", "in MB/s", "out MB/s", "conns");
	for (i = 0; i < now->n; i++) {
		const struct daemon *d = &now->d[i];

		p = find(was, d);
		if (!d->up || p == NULL || !p->up ||
		    d->c.uptime_ms < p->c.uptime_ms) {
			printf("%-24s %-6s %s\n", d->fs, d->name,
			    d->up ? "restarted" : "down");
			continue;
		}
		printf("%-24s %-6s %10.1f %8.1f %10.2f %10.2f %6" PRIu64 "\n",
		    d->fs, d->name, (double)(requests(d) - requests(p)) / secs,
		    (double)(errors(d) - errors(p)) / secs,
		    (double)(d->c.bytes_in - p->c.bytes_in) / secs / 1e6,
		    (double)(d->c.bytes_out - p->c.bytes_out) / secs / 1e6,
		    d->c.conns_open);
	}
	fflush(stdout);
}

/* ---- Prometheus ---- */

static void
prom_labels(const struct daemon *d, const char *op, const char *quantile)
{
	const char *c;

	printf("{fs=\"");
	for (c = d->fs; *c != '\0'; c++) {
		if (*c == '"' || *c == '\\')
			putchar('\\');
		if (*c == '\n')
			printf("\\n");
		else
			putchar(*c);
	}
	printf("\",daemon=\"%s\"", d->name);
	if (op != NULL)
		printf(",op=\"%s\"", op);
	if (quantile != NULL)
		printf(",quantile=\"%s\"", quantile);
	printf("}");
}

/* One family of a per-daemon value. */
static void
prom_daemon(const struct sample *s, const char *name, const char *type,
    const char *help, int need_up, double (*val)(const struct daemon *))
{
	uint32_t i;

	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
	for (i = 0; i < s->n; i++) {
		if (need_up && !s->d[i].up)
			continue;
		printf("%s", name);
		prom_labels(&s->d[i], NULL, NULL);
		printf(" %.15g\n", val(&s->d[i]));
	}
}

static double v_up(const struct daemon *d) { return d->up; }
static double v_uptime(const struct daemon *d) { return (double)d->c.uptime_ms / 1000; }
static double v_in(const struct daemon *d) { return (double)d->c.bytes_in; }
static double v_out(const struct daemon *d) { return (double)d->c.bytes_out; }
static double v_copen(const struct daemon *d) { return (double)d->c.conns_open; }
static double v_ctotal(const struct daemon *d) { return (double)d->c.conns_total; }

static void
print_prometheus(const struct sample *s)
{
	static const struct { const char *q; size_t off; } qs[] = {
		{ "0.5", offsetof(struct pvfs_op_counters, p50_us) },
		{ "0.9", offsetof(struct pvfs_op_counters, p90_us) },
		{ "0.99", offsetof(struct pvfs_op_counters, p99_us) },
		{ "1", offsetof(struct pvfs_op_counters, max_us) },
	};
	uint32_t i, k;
	size_t q;

	prom_daemon(s, "pvfs_up", "gauge", "Whether the daemon answered.", 0, v_up);
	prom_daemon(s, "pvfs_uptime_seconds", "gauge",
	    "Seconds since the daemon started.", 1, v_uptime);
	prom_daemon(s, "pvfs_received_bytes_total", "counter",
	    "Bytes received from peers.", 1, v_in);
	prom_daemon(s, "pvfs_sent_bytes_total", "counter",
	    "Bytes sent to peers.", 1, v_out);
	prom_daemon(s, "pvfs_connections", "gauge", "Open connections.", 1, v_copen);
	prom_daemon(s, "pvfs_connections_total", "counter",
	    "Connections accepted since start.", 1, v_ctotal);
	printf("# HELP pvfs_requests_total Requests served, by kind.\n"
	    "# TYPE pvfs_requests_total counter\n");
	for (i = 0; i < s->n; i++)
		for (k = 0; s->d[i].up && k < s->d[i].c.nops; k++) {
			printf("pvfs_requests_total");
			prom_labels(&s->d[i], s->d[i].c.ops[k].name, NULL);
			printf(" %" PRIu64 "\n", s->d[i].c.ops[k].count);
		}
	printf("# HELP pvfs_request_errors_total Requests answered with an "
	    "error, by kind.\n# TYPE pvfs_request_errors_total counter\n");
	for (i = 0; i < s->n; i++)
		for (k = 0; s->d[i].up && k < s->d[i].c.nops; k++) {
			printf("pvfs_request_errors_total");
			prom_labels(&s->d[i], s->d[i].c.ops[k].name, NULL);
			printf(" %" PRIu64 "\n", s->d[i].c.ops[k].errors);
		}
	printf("# HELP pvfs_request_duration_seconds From a request's arrival "
	    "to its reply (quantiles estimated from above).\n"
	    "# TYPE pvfs_request_duration_seconds summary\n");
	for (i = 0; i < s->n; i++)
		for (k = 0; s->d[i].up && k < s->d[i].c.nops; k++) {
			const struct pvfs_op_counters *o = &s->d[i].c.ops[k];

			for (q = 0; q < sizeof(qs) / sizeof(qs[0]); q++) {
				printf("pvfs_request_duration_seconds");
				prom_labels(&s->d[i], o->name, qs[q].q);
				printf(" %.6f\n",
				    (double)*(const uint64_t *)(const void *)
				    ((const char *)o + qs[q].off) / 1e6);
			}
			printf("pvfs_request_duration_seconds_sum");
			prom_labels(&s->d[i], o->name, NULL);
			printf(" %.6f\n", (double)o->sum_us / 1e6);
			printf("pvfs_request_duration_seconds_count");
			prom_labels(&s->d[i], o->name, NULL);
			printf(" %" PRIu64 "\n", o->count);
		}
}

static int
all_up(const struct sample *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (!s->d[i].up)
			return 0;
	return s->n > 0;
}

int
main(int argc, char **argv)
{
	struct sample was = { NULL, 0 }, now = { NULL, 0 };
	double interval = 0;
	long count = 0, n;
	int c, prom = 0, ok;
	struct timespec t0, t1;

	tool_init("pvfs-counters", usage);
	while ((c = tool_getopt(argc, argv, "i:n:P", longopts)) != -1) {
		if (c == 'i') {
			char *end;

			interval = strtod(optarg, &end);
			if (interval <= 0 || *end != '\0')
				tool_usage_error("invalid interval: '%s'", optarg);
		} else if (c == 'n') {
			count = tool_parse_long(optarg, 1, 1000000000, "count");
		} else if (c == 'P') {
			prom = 1;
		} else {
			tool_usage_error("invalid option");
		}
	}
	if (prom && interval > 0)
		tool_usage_error("--prometheus prints one scrape: no --interval");
	if (count > 0 && interval <= 0)
		tool_usage_error("--count needs --interval");
	tool_check_timeout();
	sample_all(&now, argc, argv, optind);
	if (interval <= 0) {
		if (prom)
			print_prometheus(&now);
		else
			print_table(&now);
		ok = all_up(&now);
		sample_free(&now);
		return ok && tool_status == 0 ? 0 : 1;
	}
	ok = all_up(&now);
	for (n = 0; count == 0 || n < count; n++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		usleep((useconds_t)(interval * 1e6));
		was = now;
		now = (struct sample){ NULL, 0 };
		sample_all(&now, argc, argv, optind);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		print_rates(&was, &now, (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		ok &= all_up(&now);
		sample_free(&was);
	}
	sample_free(&now);
	return ok && tool_status == 0 ? 0 : 1;
}
