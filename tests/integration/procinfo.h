/*
 * procinfo.h - what /proc says about a running daemon of a test cluster:
 * open descriptors, resident memory, CPU time.  For tests that check a
 * daemon leaks nothing, stays bounded or does not spin.
 */
#ifndef PVFS_TEST_PROCINFO_H
#define PVFS_TEST_PROCINFO_H

#include <sys/types.h>

#include "cluster.h"

/* Pid of "mgr" or "iodK" from DIR/run/NAME.pid, or -1. */
pid_t proc_daemon_pid(struct cluster *c, const char *daemon);
/* Entries of /proc/PID/fd, or -1. */
int proc_fd_count(pid_t pid);
/* The n-th (from 1) lowest descriptor number PID does not use, or -1:
 * RLIMIT_NOFILE set to it leaves exactly n - 1 descriptors free. */
int proc_fd_nth_free(pid_t pid, int n);
/* VmRSS of PID in KiB, or -1. */
long proc_rss_kb(pid_t pid);
/* User + system CPU time of PID in seconds, or -1. */
double proc_cpu_secs(pid_t pid);

#endif /* PVFS_TEST_PROCINFO_H */
