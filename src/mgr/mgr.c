/*
 * mgr.c - pvfs-mgr, the metadata manager: options, start-up, the loop.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mgr.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

#define MGR_DEFAULT_METADIR PVFS_DEFAULT_METADIR
#define MGR_DEFAULT_LISTEN "0.0.0.0:3000"
#define MGR_JOURNAL_MAX (64ull << 20)
#define MGR_IODTAB_MAX (1u << 20)

static struct {
	int foreground;
	const char *metadir, *listen, *iodtab, *keyfile;
	const char *pidfile, *portfile, *logfile;
	const char *sock; /* Unix socket path, NULL: none */
	const char *resync_cmd; /* the resync worker, NULL: beside us */
	enum pvfs_log_level level;
	int cmd;          /* MGR_CMD_*: run it instead of the daemon */
	const char *cmd_dir;
	unsigned max_conns; /* per peer (peer-limit.c) */
} opt = {
	.max_conns = PVFS_PEER_LIMIT_AUTO,
	.metadir = MGR_DEFAULT_METADIR,
	.listen = MGR_DEFAULT_LISTEN,
	.level = PVFS_LOG_INFO,
};

enum { OPT_PORT_FILE = 256, OPT_ROOT_SQUASH, OPT_SSIZE, OPT_IDLE_TIMEOUT,
	OPT_ANONYMOUS, OPT_MUNGE, OPT_MUNGE_SOCKET, OPT_BACKUP, OPT_RESTORE,
	OPT_SALVAGE, OPT_FSID, OPT_MAX_CONNS, OPT_MAKE_KEY, OPT_ORPHAN_GRACE,
	OPT_RESYNC_CMD };

static const struct option mgr_longopts[] = {
	{ "foreground", no_argument, NULL, 'f' },
	{ "meta-dir", required_argument, NULL, 'd' },
	{ "listen", required_argument, NULL, 'l' },
	{ "iodtab", required_argument, NULL, 't' },
	{ "key-file", required_argument, NULL, 'k' },
	{ "pid-file", required_argument, NULL, 'p' },
	{ "port-file", required_argument, NULL, OPT_PORT_FILE },
	{ "log-file", required_argument, NULL, 'L' },
	{ "log-level", required_argument, NULL, 'v' },
	{ "root-squash", no_argument, NULL, OPT_ROOT_SQUASH },
	{ "ssize", required_argument, NULL, OPT_SSIZE },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "max-conns-per-peer", required_argument, NULL, OPT_MAX_CONNS },
	{ "orphan-grace", required_argument, NULL, OPT_ORPHAN_GRACE },
	{ "socket", required_argument, NULL, 'u' },
	{ "anonymous", required_argument, NULL, OPT_ANONYMOUS },
	{ "munge", no_argument, NULL, OPT_MUNGE },
	{ "munge-socket", required_argument, NULL, OPT_MUNGE_SOCKET },
	{ "backup", required_argument, NULL, OPT_BACKUP },
	{ "restore", required_argument, NULL, OPT_RESTORE },
	{ "salvage", required_argument, NULL, OPT_SALVAGE },
	{ "fsid", required_argument, NULL, OPT_FSID },
	{ "make-key", required_argument, NULL, OPT_MAKE_KEY },
	{ "resync-cmd", required_argument, NULL, OPT_RESYNC_CMD },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	/* The first spellings, deprecated: the iod's are the project's. */
	{ "metadir", required_argument, NULL, 'd' },
	{ "keyfile", required_argument, NULL, 'k' },
	{ "pidfile", required_argument, NULL, 'p' },
	{ "logfile", required_argument, NULL, 'L' },
	{ NULL, 0, NULL, 0 },
};

/* --fsid: the id a new file system gets (its iods were formatted with
 * it), or the one an existing METADIR must have. */
static void
mgr_parse_fsid(const char *s)
{
	char *end;

	errno = 0;
	mgr.want_fsid = strtoull(s, &end, 16);
	if (errno != 0 || end == s || *end != '\0' || *s == '-' ||
	    mgr.want_fsid == 0)
		pvfs_fatal("bad --fsid: %s (a non-zero hex number)", s);
}

static void
mgr_usage(FILE *f)
{
	fprintf(f,
	    "Usage: pvfs-mgr [-f] [-d METADIR] [-l HOST:PORT] [-t IODTAB] [-k KEYFILE]\n"
	    "                [-p PIDFILE] [--port-file FILE] [-L LOGFILE] [-v LEVEL]\n"
	    "                [--root-squash] [--ssize N] [-u SOCKET] [--fsid HEX]\n"
	    "                [--idle-timeout S] [--max-conns-per-peer N] [--orphan-grace S]\n"
	    "                [--anonymous nobody|refuse|trust] [--munge [--munge-socket P]]\n"
	    "       pvfs-mgr -d METADIR --backup DEST | --restore BACKUP | --salvage DEST\n"
	    "       pvfs-mgr --make-key FILE\n"
	    "\n"
	    "The PVFS metadata manager: owns the name space, permissions and file\n"
	    "distributions, and issues the capabilities the iods check.\n"
	    "\n"
	    "  -f, --foreground     stay in the foreground, log to stderr\n"
	    "  -d, --meta-dir DIR   metadata directory (default %s)\n"
	    "  -l, --listen H:P     listen address (default %s; port 0: ephemeral)\n"
	    "  -t, --iodtab FILE    ordered iod table, one host:port per line\n"
	    "                       (default METADIR/iodtab)\n"
	    "      --fsid HEX       id of a new file system (the one its iods\n"
	    "                       were formatted with); an existing METADIR\n"
	    "                       must hold it\n"
	    "  -k, --key-file FILE  secret shared with the iods (default\n"
	    "                       METADIR/secret; it must exist)\n"
	    "  -p, --pid-file FILE  write the daemon's pid here\n"
	    "      --port-file FILE write the bound port here once ready\n"
	    "  -L, --log-file FILE  log here (default: stderr with -f, else syslog)\n"
	    "  -v, --log-level L    error, warn, info (default) or debug\n"
	    "      --root-squash    treat a client's uid 0 as nobody (65534)\n"
	    "      --ssize N        default stripe size (default %d)\n"
	    "      --idle-timeout S close a connection on which nothing moved for\n"
	    "                       S seconds (default %.0f; 0 = never)\n"
	    "      --max-conns-per-peer N\n"
	    "                       connections one uid (Unix socket) or address\n"
	    "                       (TCP) may hold; more are closed at once\n"
	    "                       (default: the descriptor limit / %d; 0 = no\n"
	    "                       limit; root and the mgr's uid: no limit)\n"
	    "      --orphan-grace S an open-unlinked file whose holder's connection\n"
	    "                       dropped, or that a restart found, is freed after\n"
	    "                       S seconds unless the holder returns (default %.0f)\n"
	    "  -u, --socket PATH    also listen on this Unix socket; its clients are\n"
	    "                       identified by the kernel (doc/security.md)\n"
	    "      --anonymous P    TCP clients that did not authenticate act as\n"
	    "                       nobody (default), are refused, or are trusted\n"
	    "      --munge          accept MUNGE credentials from TCP clients\n"
	    "      --munge-socket P munged's socket (default: libmunge's)\n"
	    "      --resync-cmd P   the program that resyncs mirrored files' stale\n"
	    "                       copies (default: pvfs-resync beside pvfs-mgr;\n"
	    "                       \"\": none, run pvfs-resync by hand)\n"
	    "\n"
	    "Metadata maintenance (no daemon is started; doc/administration.md):\n"
	    "      --backup DEST    write a consistent copy of METADIR to the new\n"
	    "                       directory DEST, even while a mgr runs on it\n"
	    "      --restore BACKUP make METADIR (missing or empty) from a backup\n"
	    "      --salvage DEST   recover what is valid in a damaged METADIR into\n"
	    "                       the new directory DEST and list what was lost\n"
	    "      --make-key FILE  write a new random key to FILE (mode 0600; an\n"
	    "                       existing FILE is an error) and exit\n"
	    "  -h, --help           show this help\n"
	    "  -V, --version        show the version\n"
	    "\n"
	    "Deprecated spellings, still accepted: --metadir, --keyfile, --pidfile,\n"
	    "--logfile (for --meta-dir, --key-file, --pid-file, --log-file).\n"
	    "\n"
	    "Environment: PVFS_MGR_JOURNAL_MAX=BYTES checkpoints the journal once it\n"
	    "passes BYTES (default 64 MiB).  PVFS_IDLE_TIMEOUT=S sets the default\n"
	    "of --idle-timeout, PVFS_MGR_ORPHAN_GRACE=S that of --orphan-grace.\n",
	    MGR_DEFAULT_METADIR, MGR_DEFAULT_LISTEN, PVFS_DEFAULT_SSIZE,
	    PVFS_IDLE_TIMEOUT_DEFAULT, PVFS_PEER_LIMIT_SHARE, MGR_LEASE_GRACE);
}

static void
__attribute__((noreturn, format(printf, 1, 2)))
mgr_bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "pvfs-mgr: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'pvfs-mgr --help'.\n");
	exit(2);
}

/* --make-key: the one way a key comes to exist (doc/administration.md). */
static void
__attribute__((noreturn))
mgr_make_key(const char *path)
{
	char *cause = NULL;

	if (pvfs_key_create(path, &cause) != 0 ||
	    pvfs_key_check(path, &cause) != 0) {
		fprintf(stderr, "pvfs-mgr: %s\n", cause != NULL ? cause : path);
		exit(1);
	}
	exit(0);
}

static uint32_t
mgr_parse_ssize(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < PVFS_SSIZE_MIN ||
	    v > PVFS_SSIZE_MAX)
		mgr_bad_usage("bad stripe size: %s", s);
	return (uint32_t)v;
}

static void
mgr_set_cmd(int cmd, const char *dir)
{
	if (opt.cmd != MGR_CMD_NONE)
		mgr_bad_usage("only one of --backup, --restore and --salvage");
	opt.cmd = cmd;
	opt.cmd_dir = dir;
}

static int
mgr_parse_grace(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || !(v >= 0) || v > 86400)
		return -1;
	mgr_lease_set_grace(v);
	return 0;
}

/* $PVFS_MGR_CACHE_TERM: seconds a cache promise lasts; 0 grants none. */
static int
mgr_parse_cache_term(const char *s)
{
	char *end;
	double v = strtod(s, &end);

	if (*s == '\0' || *end != '\0' || !(v >= 0) || v > 3600)
		return -1;
	mgr_cache_set_term(v);
	return 0;
}

static void
mgr_options(int argc, char **argv)
{
	const char *idle = NULL, *s;
	int ch;

	mgr.ssize = PVFS_DEFAULT_SSIZE;
	if ((s = getenv("PVFS_MGR_ORPHAN_GRACE")) != NULL && *s != '\0' &&
	    mgr_parse_grace(s) != 0)
		mgr_bad_usage("bad PVFS_MGR_ORPHAN_GRACE: %s", s);
	if ((s = getenv("PVFS_MGR_CACHE_TERM")) != NULL && *s != '\0' &&
	    mgr_parse_cache_term(s) != 0)
		mgr_bad_usage("bad PVFS_MGR_CACHE_TERM: %s", s);
	while ((ch = getopt_long(argc, argv, "fd:l:t:k:p:L:v:u:hV", mgr_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f': opt.foreground = 1; break;
		case 'd': opt.metadir = optarg; break;
		case 'l': opt.listen = optarg; break;
		case 't': opt.iodtab = optarg; break;
		case 'k': opt.keyfile = optarg; break;
		case 'p': opt.pidfile = optarg; break;
		case 'L': opt.logfile = optarg; break;
		case OPT_PORT_FILE: opt.portfile = optarg; break;
		case OPT_ROOT_SQUASH: mgr.root_squash = 1; break;
		case OPT_SSIZE: mgr.ssize = mgr_parse_ssize(optarg); break;
		case OPT_IDLE_TIMEOUT: idle = optarg; break;
		case OPT_ORPHAN_GRACE:
			if (mgr_parse_grace(optarg) != 0)
				mgr_bad_usage("bad --orphan-grace: %s", optarg);
			break;
		case OPT_MAX_CONNS:
			if (pvfs_peer_limit_parse(optarg, &opt.max_conns) != 0)
				mgr_bad_usage("bad --max-conns-per-peer: %s",
				    optarg);
			break;
		case 'u': opt.sock = optarg; break;
		case OPT_RESYNC_CMD: opt.resync_cmd = optarg; break;
		case OPT_MUNGE: mgr.munge = 1; break;
		case OPT_MUNGE_SOCKET: mgr.munge_sock = optarg; break;
		case OPT_ANONYMOUS:
			if (mgr_auth_policy_parse(optarg, &mgr.anonymous) != 0)
				mgr_bad_usage("bad --anonymous: %s", optarg);
			break;
		case 'v':
			if (pvfs_log_level_parse(optarg, &opt.level) != 0)
				mgr_bad_usage("bad log level: %s", optarg);
			break;
		case OPT_BACKUP: mgr_set_cmd(MGR_CMD_BACKUP, optarg); break;
		case OPT_RESTORE: mgr_set_cmd(MGR_CMD_RESTORE, optarg); break;
		case OPT_SALVAGE: mgr_set_cmd(MGR_CMD_SALVAGE, optarg); break;
		case OPT_FSID: mgr_parse_fsid(optarg); break;
		case OPT_MAKE_KEY: mgr_make_key(optarg);
		case 'h': mgr_usage(stdout); exit(0);
		case 'V': printf("pvfs-mgr %s\n", PACKAGE_VERSION); exit(0);
		default: mgr_bad_usage("bad option");
		}
	}
	if (optind != argc)
		mgr_bad_usage("unexpected argument: %s", argv[optind]);
	if (pvfs_idle_timeout_parse(idle, &mgr.idle_timeout) != 0)
		mgr_bad_usage("bad idle timeout: %s",
		    idle != NULL ? idle : getenv("PVFS_IDLE_TIMEOUT"));
}

/* A path in the metadata directory unless the user named one. */
static char *
mgr_meta_path(const char *given, const char *name)
{
	char *p;

	if (given != NULL)
		p = strdup(given);
	else if (asprintf(&p, "%s/%s", mgr.metadir, name) == -1)
		p = NULL;
	if (p == NULL)
		pvfs_fatal("out of memory");
	return p;
}

static void
mgr_setup_dir(void)
{
	char *abs;

	if (pvfs_mkdir_p(opt.metadir, 0700) != 0)
		pvfs_fatal("%s: %s", opt.metadir, strerror(errno));
	/* Absolute, so nothing depends on the working directory. */
	if ((abs = realpath(opt.metadir, NULL)) == NULL)
		pvfs_fatal("%s: %s", opt.metadir, strerror(errno));
	mgr.metadir = abs;
}

/* A key the mgr made itself would match no iod's: every write would fail
 * with EACCES while pvfs-ping says all is well.  So a missing key stops
 * the mgr, and says how to make one. */
/* Stop on a helper's cause, freed first so that a leak checker sees a
 * clean exit. */
static void
__attribute__((noreturn))
mgr_fatal_cause(char *cause, char *path)
{
	char msg[2048];

	snprintf(msg, sizeof(msg), "%s", cause != NULL ? cause : path);
	free(cause);
	free(path);
	pvfs_fatal("%s", msg);
}

static char *mgr_keypath; /* for the trust line at start */

static void
mgr_load_key(void)
{
	char *path = mgr_meta_path(opt.keyfile, "secret"), *cause = NULL;

	if (access(path, F_OK) != 0 && errno == ENOENT)
		pvfs_fatal("%s: no key file; make one with 'pvfs-mgr --make-key %s' and "
		    "give the iods the same file (-k)", path, path);
	if (pvfs_key_load(path, mgr.key, &mgr.keylen, &cause) != 0)
		mgr_fatal_cause(cause, path);
	mgr_keypath = path;
}

static void
mgr_load_iodtab(void)
{
	char *path = mgr_meta_path(opt.iodtab, "iodtab"), *cause = NULL;
	int n;

	/* Every line valid, every name resolved, no iod twice: or no mgr. */
	if ((n = pvfs_iodtab_load(path, MGR_IODTAB_MAX, &mgr.iods, &cause)) < 0)
		mgr_fatal_cause(cause, path);
	mgr.niods = (uint32_t)n;
	pvfs_log_info("%s: %d iods", path, n);
	free(path);
}

static void
mgr_journal_limit(void)
{
	const char *s = getenv("PVFS_MGR_JOURNAL_MAX");
	char *end;
	unsigned long long v;

	mgr.journal_max = MGR_JOURNAL_MAX;
	if (s == NULL || *s == '\0')
		return;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0' || v == 0)
		pvfs_fatal("PVFS_MGR_JOURNAL_MAX: not a byte count: %s", s);
	mgr.journal_max = v;
}

static int
mgr_listen(void)
{
	char host[PVFS_HOST_MAX + 1], text[16];
	uint16_t port, bound = 0;
	int fd;

	if (pvfs_net_parse_addr(opt.listen, host, sizeof(host), &port,
	    PVFS_DEFAULT_MGR_PORT) != 0)
		pvfs_fatal("bad listen address: %s", opt.listen);
	/* The Unix socket first: a local client that finds it dead falls
	 * back to TCP, where it is anonymous, so during a restart on the same
	 * port TCP must not answer before the socket does. */
	if (opt.sock != NULL && (mgr.unix_fd = pvfs_unix_listen(opt.sock)) == -1)
		pvfs_fatal("listen on %s: %s", opt.sock, strerror(errno));
	if (opt.sock != NULL)
		pvfs_log_info("listening on %s", opt.sock);
	if ((fd = pvfs_net_listen(host, port, &bound)) == -1)
		pvfs_fatal("listen on %s: %s", opt.listen, strerror(errno));
	pvfs_log_info("listening on %s port %u", host, bound);
	snprintf(text, sizeof(text), "%u", bound);
	mgr.bound_port = strdup(text);
	return fd;
}

static void
mgr_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	pvfs_log_info("signal %d: shutting down", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

/* After every journal commit: held replies go out, and orphans logged
 * before may have their stripes removed. */
static void
mgr_durable(void)
{
	mgr_conn_release_all();
	mgr_free_durable();
}

static void
mgr_shutdown(void)
{
	mgr_lease_stop();
	mgr_cache_stop();
	mgr_journal_commit();
	mgr_resync_stop();
	mgr_iods_stop();
	mgr_conn_close_all();
	mgr_journal_close();
	if (opt.pidfile != NULL)
		unlink(opt.pidfile);
	if (opt.portfile != NULL)
		unlink(opt.portfile);
	if (opt.sock != NULL)
		unlink(opt.sock);
	mgr_auth_free();
	mgr_ns_free();
	free(mgr.iods);
	free(mgr.bound_port);
	free(mgr_keypath);
	free((char *)mgr.metadir);
	ev_loop_destroy(mgr.loop);
	pvfs_log_info("stopped");
}

int
main(int argc, char **argv)
{
	ev_signal sigterm, sigint;
	long nofile;
	int lfd;

	mgr_options(argc, argv);
	signal(SIGPIPE, SIG_IGN);
	nofile = pvfs_raise_nofile();
	if (pvfs_log_open("pvfs-mgr", opt.logfile, opt.level) != 0)
		pvfs_fatal("%s: %s", opt.logfile, strerror(errno));
	if (opt.cmd != MGR_CMD_NONE)
		return mgr_backup_main(opt.cmd, opt.metadir, opt.cmd_dir);
	mgr.start_ms = pvfs_mono_ms();
	mgr_journal_limit();
	mgr_setup_dir();
	mgr_load_key();
	mgr_load_iodtab();
	mgr_op_init();
	pvfs_counters_init(&mgr_counters, PVFS_MGR_PING, PVFS_MGR_OP_END);
	mgr_auth_init();
	pvfs_peer_limit_init(opt.max_conns, nofile);
	mgr_journal_open(mgr.metadir);
	mgr.fsid = mgr_journal_fsid();
	lfd = mgr_listen();
	if (!opt.foreground) {
		if (pvfs_daemonize() != 0)
			pvfs_fatal("daemonize: %s", strerror(errno));
		if (opt.logfile == NULL)
			pvfs_log_open("pvfs-mgr", "syslog", opt.level);
	}
	if ((mgr.loop = ev_default_loop(EVFLAG_AUTO)) == NULL)
		pvfs_fatal("cannot start the event loop");
	ev_signal_init(&sigterm, mgr_signal_cb, SIGTERM);
	ev_signal_init(&sigint, mgr_signal_cb, SIGINT);
	ev_signal_start(mgr.loop, &sigterm);
	ev_signal_start(mgr.loop, &sigint);
	pvfs_dsignal_start(mgr.loop);
	mgr_conn_listen(lfd);
	if (opt.sock != NULL)
		mgr_conn_listen_unix(mgr.unix_fd);
	mgr_journal_start(mgr.loop, mgr_durable);
	mgr_resync_start(mgr.loop, opt.resync_cmd, opt.sock);
	mgr_iods_start(mgr.loop);
	mgr_lease_start(mgr.loop);
	mgr_cache_start(mgr.loop);
	pvfs_publish(opt.pidfile, opt.portfile, mgr.bound_port);
	pvfs_log_info("ready: file system %016" PRIx64 ", %u iods", mgr.fsid, mgr.niods);
	mgr_auth_log_trust(mgr_keypath, opt.sock != NULL);
	ev_run(mgr.loop, 0);
	mgr_shutdown();
	return 0;
}
