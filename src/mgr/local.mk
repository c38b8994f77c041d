# src/mgr: the metadata manager.  Everything but main() is a convenience
# library, so unit tests drive the name space and the journal directly.
sbin_PROGRAMS += pvfs-mgr
noinst_LTLIBRARIES += libpvfs-mgr.la
libpvfs_mgr_la_LIBADD = $(EV_LIBS) $(MUNGE_LIBS)
libpvfs_mgr_la_SOURCES = \
	src/mgr/mgr.h src/mgr/mgr-server.c src/mgr/mgr-conn.c src/mgr/mgr-ops.c \
	src/mgr/mgr-auth.c src/mgr/mgr-perm.c src/mgr/mgr-ns.c \
	src/mgr/mgr-record.c src/mgr/mgr-journal.c src/mgr/mgr-load.c \
	src/mgr/mgr-backup.c src/mgr/mgr-admin.c src/mgr/mgr-iods.c \
	src/mgr/mgr-lease.c src/mgr/mgr-cache.c src/mgr/mgr-free.c src/mgr/mgr-layout.c \
	src/mgr/mgr-mirror.c src/mgr/mgr-resync.c src/mgr/mgr-size.c
pvfs_mgr_SOURCES = src/mgr/mgr.c
pvfs_mgr_LDADD = libpvfs-mgr.la libpvfs-daemon.la libpvfs-common.la
# pvfs-mgr-gen writes a metadata directory of N files with the mgr's own
# code, for the name-space benchmarks (scripts/bench/names.sh); not
# installed.
noinst_PROGRAMS += pvfs-mgr-gen
pvfs_mgr_gen_SOURCES = src/mgr/mgr-gen.c
pvfs_mgr_gen_LDADD = libpvfs-mgr.la libpvfs-daemon.la libpvfs-common.la
