# src/tools: the shell tools (doc/tools.md, doc/man), pvfs-bench
# (doc/benchmarks.md) and pvfs-local.  A tool is src/tools/NAME.c plus the
# shared tools-common.c and tools-copy.c.
PVFS_TOOLS = pvfs-ls pvfs-cp pvfs-rm pvfs-mkdir pvfs-rmdir pvfs-mv \
	pvfs-stat pvfs-ping pvfs-df pvfs-chmod pvfs-chown pvfs-truncate \
	pvfs-du pvfs-counters
bin_PROGRAMS += $(PVFS_TOOLS) pvfs-bench
# pvfs-fsck and pvfs-resync need the mgr's admin right (root or the
# daemons' user).
sbin_PROGRAMS += pvfs-fsck pvfs-resync
bin_SCRIPTS += pvfs-local
noinst_LTLIBRARIES += libpvfs-tools.la
libpvfs_tools_la_SOURCES = src/tools/tools.h src/tools/tools-common.c \
	src/tools/tools-copy.c
TOOLS_LIBS = libpvfs-tools.la libpvfs-client.la libpvfs-common.la $(PTHREAD_LIBS)
pvfs_ls_SOURCES = src/tools/pvfs-ls.c
pvfs_ls_LDADD = $(TOOLS_LIBS)
pvfs_cp_SOURCES = src/tools/pvfs-cp.c
pvfs_cp_LDADD = $(TOOLS_LIBS)
pvfs_rm_SOURCES = src/tools/pvfs-rm.c
pvfs_rm_LDADD = $(TOOLS_LIBS)
pvfs_mkdir_SOURCES = src/tools/pvfs-mkdir.c
pvfs_mkdir_LDADD = $(TOOLS_LIBS)
pvfs_rmdir_SOURCES = src/tools/pvfs-rmdir.c
pvfs_rmdir_LDADD = $(TOOLS_LIBS)
pvfs_mv_SOURCES = src/tools/pvfs-mv.c
pvfs_mv_LDADD = $(TOOLS_LIBS)
pvfs_stat_SOURCES = src/tools/pvfs-stat.c
pvfs_stat_LDADD = $(TOOLS_LIBS)
pvfs_ping_SOURCES = src/tools/pvfs-ping.c
pvfs_ping_LDADD = $(TOOLS_LIBS)
pvfs_df_SOURCES = src/tools/pvfs-df.c
pvfs_df_LDADD = $(TOOLS_LIBS)
pvfs_chmod_SOURCES = src/tools/pvfs-chmod.c
pvfs_chmod_LDADD = $(TOOLS_LIBS)
pvfs_chown_SOURCES = src/tools/pvfs-chown.c
pvfs_chown_LDADD = $(TOOLS_LIBS)
pvfs_truncate_SOURCES = src/tools/pvfs-truncate.c
pvfs_truncate_LDADD = $(TOOLS_LIBS)
pvfs_fsck_SOURCES = src/tools/pvfs-fsck.c
pvfs_fsck_LDADD = $(TOOLS_LIBS)
pvfs_resync_SOURCES = src/tools/pvfs-resync.c
pvfs_resync_LDADD = $(TOOLS_LIBS)
pvfs_du_SOURCES = src/tools/pvfs-du.c
pvfs_du_LDADD = $(TOOLS_LIBS)
pvfs_counters_SOURCES = src/tools/pvfs-counters.c
pvfs_counters_LDADD = $(TOOLS_LIBS)

# pvfs-bench prints figures (make bench); bench-smoke.sh runs it tiny in
# make check.
pvfs_bench_SOURCES = src/tools/bench.h src/tools/pvfs-bench.c \
	src/tools/bench-group.c src/tools/bench-data.c src/tools/bench-meta.c \
	src/tools/bench-noncontig.c src/tools/bench-ref.c
pvfs_bench_LDADD = libpvfs-client.la libpvfs-common.la $(PTHREAD_LIBS)
# Runs the cases of doc/benchmarks.md on a fresh pvfs-local cluster in a
# temporary directory; BENCH_SIZE=256M etc. shrink it (see the script).
bench: pvfs-bench pvfs-local pvfs-mgr pvfs-iod
	PVFS_BUILDDIR='$(abs_top_builddir)' $(SHELL) $(top_srcdir)/scripts/bench/run.sh
.PHONY: bench
# The mgr with millions of names (issue 18): generated store, restart, RSS,
# rates, readdir, 64 concurrent clients; NAMES_FILES=1000000 etc. shrink it.
bench-names: pvfs-bench pvfs-local pvfs-mgr pvfs-iod pvfs-mgr-gen
	PVFS_BUILDDIR='$(abs_top_builddir)' $(SHELL) $(top_srcdir)/scripts/bench/names.sh
.PHONY: bench-names
EXTRA_DIST += scripts/bench/run.sh scripts/bench/targets.sh scripts/bench/names.sh \
	scripts/bench/ab.sh scripts/bench/emulated-cluster.sh

EXTRA_DIST += src/tools/pvfs-local.in
CLEANFILES += pvfs-local
pvfs-local: src/tools/pvfs-local.in Makefile
	$(AM_V_GEN)$(edit) $(top_srcdir)/src/tools/pvfs-local.in > $@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@

# pvfs-genconfig writes a multi-host configuration (doc/administration.md).
sbin_SCRIPTS += pvfs-genconfig
EXTRA_DIST += src/tools/pvfs-genconfig.in
CLEANFILES += pvfs-genconfig
pvfs-genconfig: src/tools/pvfs-genconfig.in Makefile
	$(AM_V_GEN)$(edit) $(top_srcdir)/src/tools/pvfs-genconfig.in > $@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@
