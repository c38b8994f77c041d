/*
 * dconn.h - the daemons' connection layer (dconn.c): listeners, accept and
 * its backoff, peer identity and accounting, the idle sweep, frame header
 * checks, raw error replies and the one place a connection closes.
 *
 * A daemon embeds struct dconn first in its own connection struct and
 * plugs in its body handling and stream states through struct dconn_ops
 * (tmux proc_add_peer, redis ConnectionType).  Only the daemons link this
 * (it needs libev); the client library does not.
 */
#ifndef PVFS_DCONN_H
#define PVFS_DCONN_H

#include <sys/queue.h>

#include <ev.h>
#include <stdint.h>

#include "common.h"
#include "pvfs-proto.h"

/* dsignal.c: SIGHUP reopens the log, SIGUSR1/SIGUSR2 step its level. */
void pvfs_dsignal_start(struct ev_loop *loop);

#define DCONN_ACCEPT_BATCH 64 /* accepts per wake-up */
#define DCONN_LISTENERS 2     /* TCP and Unix */

/* dconn_close's err besides 0 (an ordinary end, logged at debug) and an
 * errno (a system call failed, logged at info with its text): the peer
 * broke the protocol or stalled, logged at info. */
#define DCONN_FAULT (-1)

/* dconn_hdr_check: not our magic, close without a reply (it may not even
 * be a PVFS peer). */
#define DCONN_HDR_DROP (-1)

struct dconn;

/* What the idle sweep asks of a connection. */
struct dconn_activity {
	int in_frame; /* a request frame is partly received (since frame_start) */
	int at_rest;  /* between requests with nothing to send: idle is normal */
	int ours;     /* waiting on the daemon (a journal commit), not the peer */
};

/* What a daemon plugs in. */
struct dconn_ops {
	size_t size; /* of the daemon's connection: struct dconn first */
	/* A new connection, its struct zeroed but for the layer's part: 0,
	 * or -1 to close it at once (out of memory). */
	int (*open)(struct dconn *c);
	/* Readiness of the watchers dconn_watch asked for; last_io is set. */
	void (*readable)(struct dconn *c);
	void (*writable)(struct dconn *c);
	void (*activity)(const struct dconn *c, struct dconn_activity *a);
	/* Release the daemon's part; the layer closes fd and frees c. */
	void (*release)(struct dconn *c);
};

struct dconn_server;

struct dconn {
	int fd;
	struct dconn_server *srv;
	struct pvfs_peer_id peer;  /* read once at accept */
	char name[64];             /* pvfs_peer_id_name, for logs */
	struct pvfs_peer *limit;   /* the peer's count (peer-limit.c), or NULL */
	ev_io rio, wio;            /* started only while wanted */
	ev_tstamp last_io;         /* loop time of the last readiness */
	ev_tstamp frame_start;     /* first byte of a partial frame, or 0 */
	uint64_t nreq;             /* requests handled, for the close log */
	TAILQ_ENTRY(dconn) entry;
};

struct dconn_listener {
	int fd;
	ev_io io;
};

struct dconn_server {
	struct ev_loop *loop;
	const struct dconn_ops *ops;
	double idle_timeout;       /* 0: never */
	struct dconn_listener lis[DCONN_LISTENERS];
	int nlis;
	ev_timer backoff;          /* re-enables accept after EMFILE */
	int starved;               /* accept paused since the last success */
	ev_timer sweep;            /* the idle sweep */
	TAILQ_HEAD(, dconn) conns;
	unsigned count;
	uint64_t accepted;         /* connections since start (counters) */
};

void dconn_server_init(struct dconn_server *s, struct ev_loop *loop,
    const struct dconn_ops *ops, double idle_timeout);
/* Accept on fd, a listening socket (TCP or Unix). */
void dconn_server_listen(struct dconn_server *s, int fd);
/* Close every connection and listener (the daemon unlinks its socket). */
void dconn_server_stop(struct dconn_server *s, const char *why);

void dconn_watch_read(struct dconn *c, int on);
void dconn_watch_write(struct dconn *c, int on);
/* The single exit of a connection: log why once, free everything. */
void dconn_close(struct dconn *c, int err, const char *why);

/* Check a request's header before anything is read or allocated for its
 * body: 0, DCONN_HDR_DROP, or the status of the error reply after which
 * the connection closes (EMSGSIZE, EPROTO). */
int dconn_hdr_check(const uint8_t *raw, struct pvfs_hdr *h);
/* Queue an error reply to op/reqid: a header without a body, encoded
 * without the codec so that an opcode it does not know gets one too.  0,
 * or -1 if out of memory. */
int dconn_reply_error(struct pvfs_buf *out, uint16_t op, uint32_t reqid,
    int32_t status);

#endif /* PVFS_DCONN_H */
