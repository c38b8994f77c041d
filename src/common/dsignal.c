/*
 * dsignal.c - the operator's signals to a daemon: SIGHUP reopens the log
 * file (logrotate's postrotate, systemctl reload), SIGUSR1 and SIGUSR2
 * make the log one level more or less verbose.  Each says so in the log;
 * none stops the daemon.
 */
#include <signal.h>

#include "dconn.h"

static ev_signal dsignal_hup, dsignal_usr1, dsignal_usr2;

static void
dsignal_cb(struct ev_loop *loop, ev_signal *w, int revents)
{
	switch (w->signum) {
	case SIGHUP:
		pvfs_log_reopen("SIGHUP");
		break;
	case SIGUSR1:
		pvfs_log_level_step(1, "SIGUSR1");
		break;
	case SIGUSR2:
		pvfs_log_level_step(-1, "SIGUSR2");
		break;
	}
}

void
pvfs_dsignal_start(struct ev_loop *loop)
{
	ev_signal_init(&dsignal_hup, dsignal_cb, SIGHUP);
	ev_signal_init(&dsignal_usr1, dsignal_cb, SIGUSR1);
	ev_signal_init(&dsignal_usr2, dsignal_cb, SIGUSR2);
	ev_signal_start(loop, &dsignal_hup);
	ev_signal_start(loop, &dsignal_usr1);
	ev_signal_start(loop, &dsignal_usr2);
}
