/* daemon-limits.c - resource bounds shared by the daemons: descriptors
 * and how long a silent connection is kept. */
#include <sys/resource.h>

#include <errno.h>
#include <stdlib.h>

#include "common.h"

/* Each connection and each cached stripe file costs a descriptor, and the
 * soft limit is often far below the hard one (1024 vs 1048576). */
long
pvfs_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return -1;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur == RLIM_INFINITY ? -1 : (long)rl.rlim_cur;
}

int
pvfs_idle_timeout_parse(const char *opt, double *secs)
{
	const char *s = opt != NULL ? opt : getenv("PVFS_IDLE_TIMEOUT");
	char *end;
	double v;

	*secs = PVFS_IDLE_TIMEOUT_DEFAULT;
	if (s == NULL || *s == '\0')
		return 0;
	errno = 0;
	v = strtod(s, &end);
	/* NaN fails v >= 0; a day is far past any sane value; below 0.1 s
	 * (but not 0, "off") the sweep timer would nearly spin. */
	if (errno != 0 || *end != '\0' || !(v >= 0) || v > 86400 ||
	    (v > 0 && v < 0.1))
		return -1;
	*secs = v;
	return 0;
}

const char *
pvfs_conn_expired(double now, double last_io, int in_frame,
    double frame_start, int at_rest, double timeout)
{
	if (in_frame && now - frame_start >= timeout)
		return "frame too slow";
	if (now - last_io < timeout)
		return NULL;
	return at_rest ? PVFS_CONN_IDLE : "stalled mid-request";
}
