# src/iod: the I/O daemon.  Everything but main() is a convenience library,
# so unit tests drive the stripe store directly.
sbin_PROGRAMS += pvfs-iod
noinst_LTLIBRARIES += libpvfs-iod.la
libpvfs_iod_la_LIBADD = $(EV_LIBS) $(PTHREAD_LIBS)
libpvfs_iod_la_SOURCES = \
	src/iod/iod.h src/iod/iod-conn.c src/iod/iod-ops.c src/iod/iod-xfer.c \
	src/iod/iod-store.c src/iod/iod-admin.c src/iod/iod-label.c \
	src/iod/iod-mirror.c \
	src/iod/iod-intent.c
pvfs_iod_SOURCES = src/iod/iod.c
pvfs_iod_LDADD = libpvfs-iod.la libpvfs-daemon.la libpvfs-common.la
