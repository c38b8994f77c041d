# src/romio: MPI-IO on PVFS (tests/romio/, doc/romio.md).  make romio builds
# Debian's MPICH 4.0.2 with the ad_pvfs driver into romio/mpich of the build
# tree (once; later runs rebuild only what changed) and the MPI programs that
# run on it; make check-romio runs ROMIO's tests and the project's MPI-IO
# tests on a pvfs-local cluster; make bench-romio prints native vs MPI-IO
# bandwidth.  None of it is part of make check.
ROMIO_DIR = $(abs_top_builddir)/romio
ROMIO_ARGS = $(ROMIO_DIR)/mpich $(ROMIO_DIR)/work $(abs_top_builddir)/.libs
EXTRA_DIST += src/romio/build-mpich.sh src/romio/build-progs.sh \
	src/romio/romio-pvfs.patch src/romio/ad_pvfs src/romio/tests \
	src/romio/bench-mpiio.c
romio: libpvfs.la pvfs-local pvfs-mgr pvfs-iod pvfs-cp
	$(SHELL) $(top_srcdir)/src/romio/build-mpich.sh -w $(ROMIO_DIR)/work \
		$(ROMIO_DIR)/mpich $(abs_top_builddir)/.libs
	$(SHELL) $(top_srcdir)/src/romio/build-progs.sh $(ROMIO_ARGS) $(ROMIO_DIR)/bin
check-romio: romio
	PVFS_BUILDDIR='$(abs_top_builddir)' $(SHELL) $(top_srcdir)/tests/romio/check-romio.sh
bench-romio: romio pvfs-bench
	PVFS_BUILDDIR='$(abs_top_builddir)' $(SHELL) $(top_srcdir)/tests/romio/bench-romio.sh
.PHONY: romio check-romio bench-romio
