# src/common: the wire codec, capabilities, striping, configuration, logging
# and daemon plumbing that the daemons, the library and the tools share.
noinst_LTLIBRARIES += libpvfs-common.la
libpvfs_common_la_SOURCES = \
	src/common/common.h src/common/pvfs-types.h src/common/pvfs-proto.h \
	src/common/proto-table.h \
	src/common/buf.c src/common/proto-codec.c src/common/proto-msgs.c \
	src/common/cap.c src/common/stripe.c src/common/sha256.c \
	src/common/siphash.c src/common/crc32c.c src/common/hello.c \
	src/common/key.c src/common/config.c src/common/log.c \
	src/common/net.c src/common/net-unix.c src/common/daemon.c \
	src/common/daemon-limits.c src/common/peer-limit.c
libpvfs_common_la_CFLAGS = $(AM_CFLAGS) -fPIC

# The daemons' connection layer (dconn.c) needs libev, which the client
# library must not pull in: a library of its own for the two daemons.
noinst_LTLIBRARIES += libpvfs-daemon.la
libpvfs_daemon_la_SOURCES = src/common/dconn.h src/common/dconn.c \
	src/common/counters.h src/common/counters.c \
	src/common/dsignal.c
libpvfs_daemon_la_LIBADD = $(EV_LIBS)
