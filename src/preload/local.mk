# src/preload: the LD_PRELOAD shim (doc/preload.md, tests/preload/).
# libpvfs-preload.so is one self-contained object: the shim plus its own
# copy of the client and common code, built WITHOUT sanitizers (an ASan
# runtime cannot be preloaded into the uninstrumented programs the shim
# serves, so --enable-asan builds and tests an uninstrumented shim), and
# exporting only the libc names it wraps (src/preload/preload.map).  The
# shim's own files are compiled without _FILE_OFFSET_BITS: they define
# both the plain and the 64-bit names.
# In $(preloaddir): LIBDIR, or a private directory (configure --with-preloaddir).
preload_LTLIBRARIES = libpvfs-preload.la
noinst_LTLIBRARIES += libpvfs-preload-core.la
libpvfs_preload_core_la_SOURCES = $(libpvfs_common_la_SOURCES) \
	$(libpvfs_client_la_SOURCES)
libpvfs_preload_core_la_CFLAGS = $(WARN_CFLAGS) -D_FILE_OFFSET_BITS=64 -fPIC
libpvfs_preload_la_SOURCES = src/preload/preload.h src/preload/preload.c \
	src/preload/preload-path.c src/preload/preload-fd.c \
	src/preload/preload-meta.c src/preload/preload-names.c \
	src/preload/preload-fcntl.c src/preload/preload-dir.c \
	src/preload/preload-stdio.c src/preload/preload-exec.c \
	src/preload/preload-special.c
# glibc marks path arguments nonnull; wrappers must still pass NULL on.
libpvfs_preload_la_CPPFLAGS = $(AM_CPPFLAGS) '-D__nonnull(params)='
libpvfs_preload_la_CFLAGS = $(WARN_CFLAGS) -fPIC
libpvfs_preload_la_LIBADD = libpvfs-preload-core.la $(PTHREAD_LIBS)
libpvfs_preload_la_LDFLAGS = -module -avoid-version -shared \
	-Wl,--version-script=$(top_srcdir)/src/preload/preload.map
EXTRA_libpvfs_preload_la_DEPENDENCIES = src/preload/preload.map
EXTRA_DIST += src/preload/preload.map
