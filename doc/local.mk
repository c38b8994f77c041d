# doc: the manual pages (the rest of doc/ is Markdown, shipped as is).
man1_MANS += doc/man/pvfs-ls.1 doc/man/pvfs-cp.1 doc/man/pvfs-rm.1 \
	doc/man/pvfs-mkdir.1 doc/man/pvfs-rmdir.1 doc/man/pvfs-mv.1 \
	doc/man/pvfs-stat.1 doc/man/pvfs-ping.1 doc/man/pvfs-df.1 \
	doc/man/pvfs-chmod.1 doc/man/pvfs-chown.1 doc/man/pvfs-truncate.1 \
	doc/man/pvfs-du.1 doc/man/pvfs-local.1 doc/man/pvfs-bench.1 \
	doc/man/pvfs-counters.1
man3_MANS += doc/man/pvfs.3
man5_MANS += doc/man/pvfstab.5 doc/man/iodtab.5
man7_MANS += doc/man/libpvfs-preload.7
man8_MANS += doc/man/pvfs-mgr.8 doc/man/pvfs-iod.8 doc/man/pvfs-fsck.8 doc/man/pvfs-resync.8 \
	doc/man/pvfs-genconfig.8
