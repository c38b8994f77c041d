/* log.c - leveled logging to stderr, a file or syslog. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

enum pvfs_log_level pvfs_log_lvl = PVFS_LOG_INFO;
static FILE *log_file;
static char *log_path; /* log_file's name, reopened by pvfs_log_reopen */
static int log_syslog;
static const char *log_prog = "pvfs";
static const char *const log_names[] = { "error", "warn", "info", "debug" };

static void log_vwrite(enum pvfs_log_level, const char *, va_list);

int
pvfs_log_open(const char *prog, const char *path, enum pvfs_log_level lvl)
{
	FILE *f;

	char *name;

	log_prog = prog;
	pvfs_log_lvl = lvl;
	if (path == NULL)
		return 0;
	if (strcmp(path, "syslog") == 0) {
		openlog(prog, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		log_syslog = 1;
		return 0;
	}
	if ((name = strdup(path)) == NULL)
		return -1;
	if ((f = fopen(path, "ae")) == NULL) {
		free(name);
		return -1;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	if (log_file != NULL)
		fclose(log_file);
	log_file = f;
	free(log_path);
	log_path = name;
	return 0;
}

/* A line whatever the level: the operator asked for it. */
static void
log_always(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(PVFS_LOG_INFO, fmt, ap);
	va_end(ap);
}

/* Open the log file's name again, so that a file logrotate moved away is
 * left behind.  Until the new one is open the old one stays in use, and
 * says why. */
void
pvfs_log_reopen(const char *why)
{
	FILE *f;

	if (log_path == NULL) {
		log_always("%s: logging to %s, no file to reopen", why,
		    log_syslog ? "syslog" : "stderr");
		return;
	}
	if ((f = fopen(log_path, "ae")) == NULL) {
		pvfs_log_error("%s: cannot reopen %s: %s; still logging to the "
		    "file opened before", why, log_path, strerror(errno));
		return;
	}
	setvbuf(f, NULL, _IOLBF, 0);
	fclose(log_file);
	log_file = f;
	log_always("%s: reopened the log file %s", why, log_path);
}

/* One level more (step 1) or less (-1) verbose, within error .. debug. */
void
pvfs_log_level_step(int step, const char *why)
{
	int lvl = (int)pvfs_log_lvl + step;

	if (lvl < PVFS_LOG_ERR)
		lvl = PVFS_LOG_ERR;
	if (lvl > PVFS_LOG_DEBUG)
		lvl = PVFS_LOG_DEBUG;
	pvfs_log_lvl = (enum pvfs_log_level)lvl;
	log_always("%s: log level %s", why, log_names[lvl]);
}

int
pvfs_log_level_parse(const char *s, enum pvfs_log_level *lvl)
{
	int i;

	for (i = 0; i < 4; i++) {
		if (strcmp(s, log_names[i]) == 0) {
			*lvl = (enum pvfs_log_level)i;
			return 0;
		}
	}
	return -1;
}

static void
log_vwrite(enum pvfs_log_level lvl, const char *fmt, va_list ap)
{
	static const int prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };
	static const char *tag[] = { "error", "warn", "info", "debug" };
	FILE *f = log_file ? log_file : stderr;
	char msg[1024], when[32];
	struct timespec ts;
	struct tm tm;
	int saved = errno;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_syslog) {
		syslog(prio[lvl], "%s", msg);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		localtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(f, "%s.%03ld %s[%d] %s: %s\n", when, ts.tv_nsec / 1000000,
		    log_prog, (int)getpid(), tag[lvl], msg);
	}
	errno = saved;
}

void
pvfs_log_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(PVFS_LOG_ERR, fmt, ap);
	va_end(ap);
}

void
pvfs_log_warn(const char *fmt, ...)
{
	va_list ap;

	if (pvfs_log_lvl < PVFS_LOG_WARN)
		return;
	va_start(ap, fmt);
	log_vwrite(PVFS_LOG_WARN, fmt, ap);
	va_end(ap);
}

/* One line per interval: a flood of bad requests must not become a flood
 * of log lines, yet the count of the lines held back is kept. */
int
pvfs_ratelimit(struct pvfs_ratelimit *r, int64_t now_ms,
    unsigned long *suppressed)
{
	if (r->last_ms != 0 && now_ms - r->last_ms < PVFS_RATELIMIT_MS) {
		r->suppressed++;
		return 0;
	}
	*suppressed = r->suppressed;
	r->suppressed = 0;
	r->last_ms = now_ms;
	return 1;
}

void
pvfs_log_info(const char *fmt, ...)
{
	va_list ap;

	if (pvfs_log_lvl < PVFS_LOG_INFO)
		return;
	va_start(ap, fmt);
	log_vwrite(PVFS_LOG_INFO, fmt, ap);
	va_end(ap);
}

void
pvfs_log_debug(const char *fmt, ...)
{
	va_list ap;

	if (pvfs_log_lvl < PVFS_LOG_DEBUG)
		return;
	va_start(ap, fmt);
	log_vwrite(PVFS_LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
pvfs_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(PVFS_LOG_ERR, fmt, ap);
	va_end(ap);
	exit(1);
}

void
pvfs_set_cause(char **cause, const char *fmt, ...)
{
	va_list ap;

	if (cause == NULL)
		return;
	va_start(ap, fmt);
	if (vasprintf(cause, fmt, ap) == -1)
		*cause = NULL;
	va_end(ap);
}
