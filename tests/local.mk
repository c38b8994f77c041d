# tests: make check (doc/reliability.md says what each group covers).
# A test is declared by adding its name to one list below: a program
# tests/DIR/NAME is built from tests/DIR/NAME.c, linked with the cluster
# harness (tests/integration/cluster.c: real daemons on loopback) and the
# public libpvfs; a script runs as it is.
check_LTLIBRARIES += tests/libpvfs-harness.la
tests_libpvfs_harness_la_SOURCES = \
	tests/integration/cluster.c tests/integration/cluster.h \
	tests/integration/procinfo.c tests/integration/procinfo.h \
	tests/integration/fsck-run.c tests/integration/fsck-run.h \
	tests/integration/files.c tests/integration/files.h \
	tests/unit/mgr-test.c tests/unit/mgr-test.h \
	tests/unit/xorshift.c tests/unit/xorshift.h
AM_CFLAGS += $(CMOCKA_CFLAGS)
HARNESS = tests/libpvfs-harness.la
TEST_LIBS = libpvfs-common.la $(CMOCKA_LIBS) $(PTHREAD_LIBS)
LDADD = $(HARNESS) libpvfs.la $(TEST_LIBS)

# Unit tests: one part of the code, no daemons.
UNIT_TESTS = tests/unit/test_stripe tests/unit/test_proto \
	tests/unit/test_common tests/unit/test_siphash tests/unit/test_listio \
	tests/unit/test_config tests/unit/test_peer_limit \
	tests/unit/test_mgr_record tests/unit/test_mgr_ns \
	tests/unit/test_mgr_journal tests/unit/test_iod_store \
	tests/unit/test_mgr_gen \
	tests/unit/test_mgr_mirror tests/unit/test_iod_mirror
# ... of a daemon's internals: linked with its convenience library.
MGR_TEST_LIBS = $(HARNESS) libpvfs-mgr.la libpvfs-daemon.la libpvfs.la $(TEST_LIBS)
tests_unit_test_mgr_record_LDADD = $(MGR_TEST_LIBS)
tests_unit_test_mgr_ns_LDADD = $(MGR_TEST_LIBS)
tests_unit_test_mgr_journal_LDADD = $(MGR_TEST_LIBS)
tests_unit_test_mgr_gen_LDADD = $(MGR_TEST_LIBS)
tests_unit_test_mgr_mirror_LDADD = $(MGR_TEST_LIBS)
tests_unit_test_iod_store_LDADD = $(HARNESS) libpvfs-iod.la libpvfs-daemon.la libpvfs.la $(TEST_LIBS)
tests_unit_test_iod_mirror_LDADD = $(HARNESS) libpvfs-iod.la libpvfs-daemon.la libpvfs.la $(TEST_LIBS)

# Integration tests: a cluster of real daemons per test.
INTEGRATION_TESTS = tests/integration/test_io tests/integration/test_dirs \
	tests/integration/test_errno tests/integration/test_concurrent \
	tests/integration/test_restart tests/integration/test_crash \
	tests/integration/test_timeout tests/integration/test_hostile \
	tests/integration/test_recovery tests/integration/test_restore \
	tests/integration/test_noncontig tests/integration/test_caps \
	tests/integration/test_perms tests/integration/test_fsck \
	tests/integration/test_idle tests/integration/test_enospc \
	tests/integration/test_vanish tests/integration/test_load \
	tests/integration/test_fair tests/integration/test_auth \
	tests/integration/test_unlinked tests/integration/test_mirror \
	tests/integration/test_resync tests/integration/test_size tests/integration/test_cache \
	tests/integration/test_buffered tests/integration/test_stall \
	tests/stress/kill-restart tests/stress/soak
# test_fsck asks for the ADMIN capability through the library's internals.
tests_integration_test_fsck_LDADD = $(HARNESS) libpvfs-client.la $(TEST_LIBS)
# test_mirror reads a file's copies and mshift with pvfs_admin_attr.
tests_integration_test_mirror_LDADD = $(HARNESS) libpvfs-client.la $(TEST_LIBS)
# test_resync asks a mirrored file's identity (pvfs_admin_attr).
tests_integration_test_resync_LDADD = $(HARNESS) libpvfs-client.la $(TEST_LIBS)
# test_stall compares a mirrored file's copies on disk (pvfs_admin_attr).
tests_integration_test_stall_LDADD = $(HARNESS) libpvfs-client.la $(TEST_LIBS)
# test_dirs reads directories with pvfs_readdir_stat (pvfs-client.h).
tests_integration_test_dirs_LDADD = $(HARNESS) libpvfs-client.la $(TEST_LIBS)

# The differential POSIX suite (issue 14): each call on a local directory
# and on PVFS, natively and through the shim, compared exactly.
POSIX_TESTS = tests/posix/test_paths
tests_posix_test_paths_SOURCES = tests/posix/test_paths.c tests/posix/posix.h \
	tests/posix/posix-times.c tests/posix/posix-extra.c

# Scripts: the tools, the preload shim, the fuzzers' smoke run.
TOOL_TESTS = tests/tools/ls.sh tests/tools/cp.sh tests/tools/cp-big.sh \
	tests/tools/progress.sh tests/tools/names.sh tests/tools/stat.sh \
	tests/tools/admin.sh tests/tools/attrs.sh tests/tools/url.sh \
	tests/tools/usage.sh tests/tools/iodid.sh tests/tools/keys.sh \
	tests/tools/tables.sh tests/tools/bench-smoke.sh tests/tools/layers.sh \
	tests/tools/df.sh tests/tools/du.sh tests/tools/glob.sh \
	tests/tools/man.sh tests/tools/readme.sh \
	tests/tools/ls-opts.sh tests/tools/cp-msgs.sh tests/tools/counters.sh \
	tests/tools/links.sh tests/tools/genconfig.sh tests/tools/install.sh \
	tests/tools/signals.sh tests/tools/iod-down.sh
PRELOAD_TESTS = tests/preload/coreutils.sh tests/preload/shell.sh \
	tests/preload/programs.sh tests/preload/build.sh tests/preload/fio.sh \
	tests/preload/random.sh tests/preload/trees.sh \
	tests/preload/mirror-fio.sh
# Several emulated hosts (network namespaces; root only, else skipped).
NETNS_TESTS = tests/netns/hosts.sh tests/netns/deploy.sh
# The FUSE client (doc/fuse.md): skipped (77) when pvfs-fuse is not built
# or /dev/fuse is missing.
FUSE_TESTS = tests/fuse/mount.sh tests/fuse/users.sh tests/fuse/programs.sh
SCRIPT_TESTS = $(TOOL_TESTS) $(PRELOAD_TESTS) $(NETNS_TESTS) $(FUSE_TESTS) \
	tests/integration/static-link.sh tests/fuzz/smoke.sh

if HAVE_CMOCKA
check_PROGRAMS += $(UNIT_TESTS) $(INTEGRATION_TESTS) $(POSIX_TESTS)
TESTS += $(UNIT_TESTS) $(INTEGRATION_TESTS) $(POSIX_TESTS) $(SCRIPT_TESTS)
endif
TEST_EXTENSIONS = .sh
LOG_COMPILER = $(top_srcdir)/tests/integration/run-test.sh
SH_LOG_COMPILER = $(top_srcdir)/tests/integration/run-test.sh $(SHELL)
AM_TESTS_ENVIRONMENT = PVFS_BUILDDIR='$(abs_top_builddir)'; PVFS_SRCDIR='$(abs_top_srcdir)'; \
	CC='$(CC)'; SAN_LDFLAGS='$(SAN_LDFLAGS)'; export PVFS_BUILDDIR PVFS_SRCDIR CC SAN_LDFLAGS;
EXTRA_DIST += $(SCRIPT_TESTS) tests/integration/run-test.sh \
	tests/tools/lib.sh tests/preload/lib.sh tests/netns/lib.sh tests/preload/random-check.py \
	tests/fuse/lib.sh \
	tests/data tests/romio/check-romio.sh tests/romio/romio-tests.txt \
	tests/romio/bench-romio.sh \
	tests/fuzz/fuzz_frame.c tests/fuzz/fuzz_config.c \
	tests/fuzz/fuzz_pattern.c tests/fuzz/fuzz_journal.c \
	tests/fuzz/gen_seeds.c tests/fuzz/run.sh

# The seed corpus is a directory; copy it from the source tree (a directory
# in EXTRA_DIST would be taken from the build tree when one exists there).
dist-hook:
	cp -pR $(srcdir)/tests/fuzz/corpus $(distdir)/tests/fuzz/
	chmod -R u+w $(distdir)/tests/fuzz/corpus

# make stress: the long hardening runs (doc/reliability.md).  Each entry is a
# script or a check program that runs for minutes and prints its figures;
# tests/stress/run.sh runs them in order and keeps their logs in
# stress-logs/.  kill-restart and soak run short in make check, long here.
STRESS_TESTS = tests/stress/fuzz-long.sh tests/stress/kill-restart.sh \
	tests/stress/load-1000.sh tests/stress/soak.sh tests/stress/vanish-long.sh \
	tests/stress/mirror-fio.sh
EXTRA_DIST += tests/stress/run.sh $(STRESS_TESTS)
stress: all
	$(MAKE) $(AM_MAKEFLAGS) $(check_PROGRAMS)
	PVFS_BUILDDIR='$(abs_top_builddir)' PVFS_SRCDIR='$(abs_top_srcdir)' \
		$(SHELL) $(top_srcdir)/tests/stress/run.sh $(STRESS_TESTS)
.PHONY: stress
