/*
 * fsck-run.h - run pvfs-fsck (from the build directory) against a test
 * cluster and keep what it printed: shared by test_fsck and kill-restart.
 */
#ifndef PVFS_TEST_FSCK_RUN_H
#define PVFS_TEST_FSCK_RUN_H

#include <stddef.h>
#include <sys/types.h>

struct cluster;

/* Run "pvfs-fsck [opt] /pvfs" with stdout and stderr in out (NUL-ended,
 * cut at outlen).  uid is switched to first unless it is (uid_t)-1 (and
 * the mgr then named by URL: the pvfstab is private to the test).
 * Returns the exit status, or -1 if it did not exit normally. */
int fsck_run(struct cluster *c, const char *opt, uid_t uid, char *out,
    size_t outlen);
/* Lines of out that start with prefix. */
int fsck_count_lines(const char *out, const char *prefix);

#endif /* PVFS_TEST_FSCK_RUN_H */
