# contrib: the systemd units, the daemons' user (sysusers.d) and pvfs.pc,
# each made from its .in with the configured paths ($(edit), Makefile.am).
# pvfs-iod@.service is the template for several iods on one host: the
# instance names @sysconfdir@/pvfs/iod-INSTANCE.conf (pvfs-genconfig).
PVFS_UNITS = pvfs-mgr.service pvfs-iod.service pvfs-iod@.service
if HAVE_SYSTEMD_UNITS
systemdsystemunit_DATA = $(PVFS_UNITS)
endif
if HAVE_SYSUSERS
sysusers_DATA = pvfs.conf
endif
pkgconfigdir = $(libdir)/pkgconfig
pkgconfig_DATA = pvfs.pc
CLEANFILES += $(PVFS_UNITS) pvfs.conf pvfs.pc

$(PVFS_UNITS): Makefile
	$(AM_V_GEN)$(edit) $(top_srcdir)/contrib/systemd/$@.in > $@.tmp && mv $@.tmp $@
pvfs-mgr.service: contrib/systemd/pvfs-mgr.service.in
pvfs-iod.service: contrib/systemd/pvfs-iod.service.in
pvfs-iod@.service: contrib/systemd/pvfs-iod@.service.in
pvfs.conf: contrib/sysusers/pvfs.conf.in Makefile
	$(AM_V_GEN)$(edit) $(top_srcdir)/contrib/sysusers/pvfs.conf.in > $@.tmp && mv $@.tmp $@
pvfs.pc: contrib/pvfs.pc.in Makefile
	$(AM_V_GEN)$(edit) -e 's|@PTHREAD_LIBS[@]|$(PTHREAD_LIBS)|g' \
		-e 's|@LIBS[@]|$(LIBS)|g' $(top_srcdir)/contrib/pvfs.pc.in > $@.tmp && \
		mv $@.tmp $@

# make deb: the Debian packages (scripts/deb.sh, into deb/ of the build
# tree); make check-deb: build them and check them (tests/deb/packages.sh,
# about two minutes, not part of make check).
deb:
	$(SHELL) $(top_srcdir)/scripts/deb.sh $(abs_top_builddir)/deb
check-deb: all
	PVFS_BUILDDIR='$(abs_top_builddir)' PVFS_SRCDIR='$(abs_top_srcdir)' \
		$(SHELL) $(top_srcdir)/tests/deb/packages.sh
.PHONY: deb check-deb
EXTRA_DIST += tests/deb/packages.sh debian
