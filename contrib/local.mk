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
