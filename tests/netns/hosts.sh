#!/bin/bash
# hosts.sh - one file system across emulated hosts (network namespaces):
# the mgr, two iod hosts and two client hosts.  What one client host
# writes, the other reads at once, through the tools and through the
# shim; names made on one are seen on the other.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/netns/lib.sh"

netns_init
netns_host mgr 2
netns_host io1 11
netns_host io2 12
netns_host ca 101
netns_host cb 102
netns_fs io1 io2
SHIM=$B/.libs/libpvfs-preload.so
export SHIM T NETNS_TAG
export -f on
head -c 20000000 /dev/urandom >"$T/data"

t "pvfs-ping from a client host: the mgr and both iods answer" '
	out=$(on ca pvfs-ping /pvfs)
	echo "$out"
	[ "$(grep -c " ok" <<<"$out")" -ge 3 ]'
t "pvfs-cp in on one host, out on the other: the same bytes" '
	on ca pvfs-cp "$T/data" /pvfs/data
	on cb pvfs-cp /pvfs/data "$T/back"
	cmp "$T/data" "$T/back"'
t "the stripes are on both iod hosts" '
	[ "$(find "$T/iod0" "$T/iod1" -type f -size +1M | wc -l)" -ge 2 ]'
t "through the shim: written on one host, read on the other at once" '
	on ca env LD_PRELOAD=$SHIM sh -c "echo v1 >/pvfs/g"
	[ "$(on cb env LD_PRELOAD=$SHIM cat /pvfs/g)" = v1 ]
	on ca env LD_PRELOAD=$SHIM sh -c "echo v2 >/pvfs/g; echo more >>/pvfs/g"
	[ "$(on cb env LD_PRELOAD=$SHIM cat /pvfs/g)" = "$(printf "v2\nmore")" ]
	[ "$(on cb env LD_PRELOAD=$SHIM stat -c %s /pvfs/g)" = 8 ]'
t "names: made on one host, renamed on the other, seen by both" '
	on ca env LD_PRELOAD=$SHIM mkdir -p /pvfs/d/e
	on cb env LD_PRELOAD=$SHIM mv /pvfs/d/e /pvfs/d/f
	[ "$(on ca env LD_PRELOAD=$SHIM ls /pvfs/d)" = f ]
	on ca env LD_PRELOAD=$SHIM rmdir /pvfs/d/f
	[ -z "$(on cb env LD_PRELOAD=$SHIM ls /pvfs/d)" ]'
t "cmp through the shim on the reading host" '
	on cb env LD_PRELOAD=$SHIM cmp /pvfs/data "$T/data"'

# A host that is not there: no answer to ARP, no RST.  pvfs-ping reports
# it within its 5-second default, not the 30-second client timeout.
t "pvfs-ping: an unreachable mgr host is reported in seconds" '
	start=$(date +%s)
	! on ca timeout 20 pvfs-ping -m 10.78.0.99:3000 >"$T/unreach" 2>&1
	cat "$T/unreach"
	grep -q "^mgr 10.78.0.99:3000: FAILED: " "$T/unreach"
	[ $(($(date +%s) - start)) -le 12 ]'
t "pvfs-ping: an iod host gone is named, the rest still answer" '
	on io2 kill -STOP $(cat "$T/run/iod1.pid")
	! on ca timeout 30 pvfs-ping >"$T/stopped" 2>&1
	on io2 kill -CONT $(cat "$T/run/iod1.pid")
	cat "$T/stopped"
	grep -q "^iod 1 10.78.0.12:7000: FAILED: " "$T/stopped"
	grep -q "^iod 0 10.78.0.11:7000: ok" "$T/stopped"'

finish
