# src/fuse: pvfs-fuse, the FUSE client (doc/fuse.md), built when configure
# finds libfuse3 (--with-fuse).  mount.fuse.pvfs lets mount(8) and fstab
# use the type fuse.pvfs through fuse3's mount.fuse3.
if HAVE_FUSE
bin_PROGRAMS += pvfs-fuse
sbin_SCRIPTS += mount.fuse.pvfs
man1_MANS += doc/man/pvfs-fuse.1
man8_MANS += doc/man/mount.fuse.pvfs.8
pvfs_fuse_SOURCES = src/fuse/pvfs-fuse.h src/fuse/pvfs-fuse.c \
	src/fuse/fuse-ops.c src/fuse/fuse-xattr.c src/fuse/fuse-loop.c \
	src/fuse/fuse-read.c
pvfs_fuse_CFLAGS = $(AM_CFLAGS) $(FUSE_CFLAGS)
pvfs_fuse_LDADD = libpvfs-client.la libpvfs-common.la $(FUSE_LIBS) $(PTHREAD_LIBS)
CLEANFILES += mount.fuse.pvfs
mount.fuse.pvfs: src/fuse/mount.fuse.pvfs.in Makefile
	$(AM_V_GEN)sed -e 's|@bindir[@]|$(bindir)|g' \
		$(top_srcdir)/src/fuse/mount.fuse.pvfs.in > $@.tmp && \
		chmod +x $@.tmp && mv $@.tmp $@
endif
EXTRA_DIST += src/fuse/mount.fuse.pvfs.in
