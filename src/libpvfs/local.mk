# src/libpvfs: the client library.  libpvfs-client holds the code; the
# public libpvfs.la wraps it with the version script, while in-tree programs
# that need internals (the tools, the preload shim, benchmarks) link the
# convenience library.  Every global name of the library and of
# libpvfs-common starts with pvfs_, so a static libpvfs.a needs no
# post-processing to stay out of a program's names (static-link.sh).
include_HEADERS += include/pvfs.h
lib_LTLIBRARIES += libpvfs.la
noinst_LTLIBRARIES += libpvfs-client.la
libpvfs_client_la_SOURCES = \
	src/libpvfs/pvfs-internal.h src/libpvfs/pvfs-client.h \
	src/libpvfs/client.c src/libpvfs/path.c src/libpvfs/resolve.c src/libpvfs/conn.c src/libpvfs/auth.c \
	src/libpvfs/pvfs-file.c src/libpvfs/buffered.c src/libpvfs/file.c src/libpvfs/meta.c \
	src/libpvfs/dir.c src/libpvfs/listio.c src/libpvfs/admin.c src/libpvfs/resync.c \
	src/libpvfs/size-list.c src/libpvfs/lease.c src/libpvfs/cache.c \
	src/libpvfs/io.c src/libpvfs/io-engine.h src/libpvfs/io-engine.c \
	src/libpvfs/io-op.h src/libpvfs/io-mirror.c \
	src/libpvfs/mirror-report.h src/libpvfs/mirror-report.c \
	src/libpvfs/mirror-down.h src/libpvfs/mirror-down.c
libpvfs_client_la_CFLAGS = $(AM_CFLAGS) -fPIC
libpvfs_client_la_LIBADD = libpvfs-common.la
libpvfs_la_SOURCES =
nodist_EXTRA_libpvfs_la_SOURCES = force-c-linker.c
libpvfs_la_LIBADD = libpvfs-client.la $(PTHREAD_LIBS)
libpvfs_la_LDFLAGS = $(AM_LDFLAGS) -version-info 1:0:0 \
	-Wl,--version-script=$(top_srcdir)/src/libpvfs/libpvfs.map
EXTRA_libpvfs_la_DEPENDENCIES = src/libpvfs/libpvfs.map
EXTRA_DIST += src/libpvfs/libpvfs.map

