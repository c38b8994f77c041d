/*
 * iod.c - pvfs-iod: command line, start-up, signals and the event loop.
 *
 * Start-up does everything that can fail (key, data directory, listening
 * socket) before daemonizing, so that errors reach the caller's terminal
 * and exit status; the port file is written last, once the daemon serves.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iod.h"

struct iod iod;

static ev_signal iod_sigterm, iod_sigint;

static const struct option iod_longopts[] = {
	{ "foreground", no_argument, NULL, 'f' },
	{ "data-dir", required_argument, NULL, 'd' },
	{ "listen", required_argument, NULL, 'l' },
	{ "key-file", required_argument, NULL, 'k' },
	{ "pid-file", required_argument, NULL, 'p' },
	{ "port-file", required_argument, NULL, 'P' },
	{ "log-file", required_argument, NULL, 'L' },
	{ "log-level", required_argument, NULL, 'v' },
	{ "idle-timeout", required_argument, NULL, 'I' },
	{ "max-conns-per-peer", required_argument, NULL, 'M' },
	{ "socket", required_argument, NULL, 'u' },
	{ "format", no_argument, NULL, 'F' },
	{ "fsid", required_argument, NULL, 'S' },
	{ "index", required_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void
__attribute__((noreturn)) iod_usage(int status)
{
	FILE *f = status == 0 ? stdout : stderr;

	fprintf(f,
	    "Usage: pvfs-iod [-f] [-d DATADIR] [-l HOST:PORT] [-k KEYFILE]\n"
	    "                [-p PIDFILE] [--port-file FILE] [-L LOGFILE] "
	    "[-v LEVEL]\n"
	    "                [--fsid FSID] [--index N]\n"
	    "       pvfs-iod --format --fsid FSID --index N -d DATADIR\n"
	    "PVFS I/O daemon: stores and serves the stripes of PVFS files.\n\n"
	    "  -f, --foreground      stay in the foreground, log to stderr\n"
	    "  -d, --data-dir DIR    stripe files (default %s)\n"
	    "  -l, --listen H:P      address to serve (default 0.0.0.0:%d;\n"
	    "                        port 0 binds an ephemeral port)\n"
	    "  -k, --key-file FILE   the file system's secret (default %s)\n"
	    "  -p, --pid-file FILE   write the daemon's pid here\n"
	    "      --port-file FILE  write the bound port here once serving\n"
	    "  -L, --log-file FILE   log here (default: stderr with -f, "
	    "else syslog)\n"
	    "  -v, --log-level LVL   error, warn, info (default) or debug\n"
	    "      --idle-timeout S  close a connection on which nothing moved\n"
	    "                        for S seconds (default $PVFS_IDLE_TIMEOUT,\n"
	    "                        else %.0f; 0 = never)\n"
	    "      --max-conns-per-peer N\n"
	    "                        connections one uid (Unix socket) or\n"
	    "                        address (TCP) may hold; more are closed\n"
	    "                        at once (default: the descriptor limit\n"
	    "                        / %d; 0 = no limit; root and the iod's\n"
	    "                        uid: no limit)\n"
	    "  -u, --socket PATH     also listen on this Unix socket, for\n"
	    "                        clients on this host\n"
	    "      --format          label DATADIR as iod N of file system\n"
	    "                        FSID (the mgr's METADIR/fsid), then exit\n"
	    "      --fsid FSID       refuse a DATADIR labelled for another\n"
	    "                        file system (hex)\n"
	    "      --index N         refuse a DATADIR labelled for another\n"
	    "                        position in the iod table\n"
	    "  -h, --help            this help\n"
	    "  -V, --version         print the version\n",
	    IOD_DEFAULT_DATADIR, PVFS_DEFAULT_IOD_PORT, IOD_DEFAULT_KEYFILE,
	    PVFS_IDLE_TIMEOUT_DEFAULT, PVFS_PEER_LIMIT_SHARE);
	exit(status);
}

static int iod_format;

/* --fsid and --index: hex and decimal, range-checked. */
static void
iod_parse_ident(int ch, const char *arg)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(arg, &end, ch == 'S' ? 16 : 10);
	if (errno != 0 || end == arg || *end != '\0' || *arg == '-' ||
	    (ch == 'S' && v == 0) || (ch == 'N' && v >= PVFS_MAX_IODS)) {
		fprintf(stderr, "pvfs-iod: bad %s: %s\n",
		    ch == 'S' ? "file system id" : "iod index", arg);
		iod_usage(2);
	}
	if (ch == 'S')
		iod.want_fsid = v;
	else
		iod.want_index = (long)v;
}

/* PVFS_TEST_CLOCK_OFFSET: seconds added to this iod's clock, so that
 * tests can run it skewed from the mgr's.  For tests only. */
static void
iod_test_clock(void)
{
	const char *s = getenv("PVFS_TEST_CLOCK_OFFSET");
	char *end;
	long long v;

	if (s == NULL || *s == '\0')
		return;
	v = strtoll(s, &end, 10);
	if (*end != '\0' || v < -1000000000LL || v > 1000000000LL)
		pvfs_fatal("bad PVFS_TEST_CLOCK_OFFSET: %s", s);
	iod.test_offset_ns = v * 1000000000LL;
}

static void
iod_parse_args(int argc, char **argv)
{
	const char *idle = NULL;
	int ch;

	iod.want_index = -1;
	iod.datadir = IOD_DEFAULT_DATADIR;
	iod.keyfile = IOD_DEFAULT_KEYFILE;
	iod.listen = "0.0.0.0";
	iod.level = PVFS_LOG_INFO;
	iod.max_conns = PVFS_PEER_LIMIT_AUTO;
	while ((ch = getopt_long(argc, argv, "fd:l:k:p:L:v:u:hV", iod_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'f':
			iod.foreground = 1;
			break;
		case 'd':
			iod.datadir = optarg;
			break;
		case 'l':
			iod.listen = optarg;
			break;
		case 'k':
			iod.keyfile = optarg;
			break;
		case 'p':
			iod.pidfile = optarg;
			break;
		case 'P':
			iod.portfile = optarg;
			break;
		case 'L':
			iod.logfile = optarg;
			break;
		case 'u':
			iod.sock = optarg;
			break;
		case 'I':
			idle = optarg;
			break;
		case 'F':
			iod_format = 1;
			break;
		case 'S':
		case 'N':
			iod_parse_ident(ch, optarg);
			break;
		case 'M':
			if (pvfs_peer_limit_parse(optarg, &iod.max_conns) != 0) {
				fprintf(stderr, "pvfs-iod: bad "
				    "--max-conns-per-peer: %s\n", optarg);
				iod_usage(2);
			}
			break;
		case 'v':
			if (pvfs_log_level_parse(optarg, &iod.level) != 0) {
				fprintf(stderr, "pvfs-iod: bad log level: %s\n",
				    optarg);
				iod_usage(2);
			}
			break;
		case 'h':
			iod_usage(0);
		case 'V':
			printf("pvfs-iod %s (protocol %d)\n", PACKAGE_VERSION,
			    PVFS_PROTO_VERSION);
			exit(0);
		default:
			iod_usage(2);
		}
	}
	if (optind != argc) {
		fprintf(stderr, "pvfs-iod: unexpected argument: %s\n",
		    argv[optind]);
		iod_usage(2);
	}
	if (pvfs_idle_timeout_parse(idle, &iod.idle_timeout) != 0) {
		fprintf(stderr, "pvfs-iod: bad idle timeout: %s\n",
		    idle != NULL ? idle : getenv("PVFS_IDLE_TIMEOUT"));
		iod_usage(2);
	}
}

static uint16_t
iod_listen(void)
{
	char host[PVFS_HOST_MAX + 1];
	uint16_t port, bound = 0;

	if (pvfs_net_parse_addr(iod.listen, host, sizeof host, &port,
	    PVFS_DEFAULT_IOD_PORT) != 0)
		pvfs_fatal("bad listen address: %s", iod.listen);
	if ((iod.lfd = pvfs_net_listen(host, port, &bound)) == -1)
		pvfs_fatal("listen on %s:%u: %s", host, port, strerror(errno));
	iod.ufd = -1;
	if (iod.sock != NULL && (iod.ufd = pvfs_unix_listen(iod.sock)) == -1)
		pvfs_fatal("listen on %s: %s", iod.sock, strerror(errno));
	return bound;
}

/* Everything that can fail, while errors still reach the terminal. */
static uint16_t
iod_prepare(void)
{
	char *cause = NULL;

	if (pvfs_log_open("pvfs-iod", iod.foreground ? iod.logfile : NULL,
	    iod.level) != 0)
		pvfs_fatal("%s: %s", iod.logfile, strerror(errno));
	if (pvfs_key_load(iod.keyfile, iod.key, &iod.keylen, &cause) != 0)
		pvfs_fatal("no secret, refusing to start: %s",
		    cause ? cause : iod.keyfile);
	if (iod_label_open(iod.datadir, &cause) != 0)
		pvfs_fatal("refusing to start: %s", cause ? cause : iod.datadir);
	if (iod_store_init(iod.datadir, &cause) != 0)
		pvfs_fatal("data directory: %s", cause ? cause : iod.datadir);
	if (iod_intent_open(iod.datadir, &cause) != 0)
		pvfs_fatal("refusing to start: %s", cause ? cause : iod.datadir);
	if ((iod.xbuf = malloc(IOD_XFER_BUF)) == NULL)
		pvfs_fatal("out of memory");
	signal(SIGPIPE, SIG_IGN);
	return iod_listen();
}

/* The log file is opened before the fork, while a failure to open it can
 * still be reported on the terminal. */
static void
iod_daemonize(void)
{
	if (iod.foreground)
		return;
	if (iod.logfile != NULL &&
	    pvfs_log_open("pvfs-iod", iod.logfile, iod.level) != 0)
		pvfs_fatal("%s: %s", iod.logfile, strerror(errno));
	if (pvfs_daemonize() != 0)
		pvfs_fatal("daemonize: %s", strerror(errno));
	if (iod.logfile == NULL)
		pvfs_log_open("pvfs-iod", "syslog", iod.level);
}

static void
iod_signal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	pvfs_log_info("signal %d, exiting", w->signum);
	ev_break(loop, EVBREAK_ALL);
}

static void
iod_loop_init(void)
{
	if ((iod.loop = ev_default_loop(EVFLAG_AUTO)) == NULL)
		pvfs_fatal("cannot initialise libev");
	/* Here, after the fork, so that the limits reach the log file. */
	pvfs_peer_limit_init(iod.max_conns, pvfs_raise_nofile());
	iod_conn_start();
	ev_signal_init(&iod_sigterm, iod_signal_cb, SIGTERM);
	ev_signal_start(iod.loop, &iod_sigterm);
	ev_signal_init(&iod_sigint, iod_signal_cb, SIGINT);
	ev_signal_start(iod.loop, &iod_sigint);
	pvfs_dsignal_start(iod.loop);
}

static void
iod_publish(uint16_t port)
{
	char text[32];

	snprintf(text, sizeof text, "%u", port);
	pvfs_publish(iod.pidfile, iod.portfile, text);
	pvfs_log_info("serving %s on port %u: iod %" PRIu32 " of file system %016"
	    PRIx64 " (uuid %s)", iod.datadir, port, iod.label.index,
	    iod.label.fsid, iod.label.uuid);
	pvfs_log_info("trust: capabilities checked with the key in %s; only "
	    "the mgr holding it grants access", iod.keyfile);
}

static void
iod_shutdown(void)
{
	iod_conn_stop();
	iod_intent_close();
	iod_store_shutdown();
	if (iod.ufd != -1)
		unlink(iod.sock);
	free(iod.xbuf);
	close(iod.label_fd);
	if (iod.pidfile != NULL)
		unlink(iod.pidfile);
	ev_loop_destroy(iod.loop);
}

/* pvfs-iod --format: label the data directory, then exit. */
static int
iod_format_main(void)
{
	char *cause = NULL;

	if (iod.want_fsid == 0 || iod.want_index < 0) {
		fprintf(stderr, "pvfs-iod: --format needs --fsid and --index\n");
		return 2;
	}
	if (iod_label_format(iod.datadir, iod.want_fsid,
	    (uint32_t)iod.want_index, &cause) != 0) {
		fprintf(stderr, "pvfs-iod: %s\n", cause ? cause : "format failed");
		free(cause);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	uint16_t port;

	iod_parse_args(argc, argv);
	if (iod_format)
		return iod_format_main();
	iod_test_clock();
	port = iod_prepare();
	iod_daemonize();
	iod.start_ms = pvfs_mono_ms();
	pvfs_counters_init(&iod.counters, PVFS_IOD_PING, PVFS_IOD_OP_END);
	iod_loop_init();
	iod_publish(port);
	ev_run(iod.loop, 0);
	iod_shutdown();
	pvfs_log_info("stopped");
	return 0;
}
