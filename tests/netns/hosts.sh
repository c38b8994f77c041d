#!/bin/bash
# hosts.sh - one file system across emulated hosts (network namespaces):
# the mgr, two iod hosts and two client hosts.  What one client host
# writes, the other reads at once, through the tools and through the
# shim; names made on one are seen on the other; a file unlinked on one
# stays readable and writable where it is open on the other until the
# close (or the holder's death and the mgr's grace); an unreachable mgr
# host and a stopped iod host are reported in seconds.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/netns/lib.sh"

netns_init
netns_host mgr 2
netns_host io1 11
netns_host io2 12
netns_host ca 101
netns_host cb 102
NETNS_MGR_ARGS="--orphan-grace 2"
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

# An open-unlinked file across hosts: a process on one client host holds
# it open; the other host unlinks it; the holder goes on reading and
# writing it, and its stripes leave the iods only after the close (or,
# for a holder killed, after the mgr's grace: 2 s here).
cat >"$T/holder.py" <<'PY'
import os, sys
path, ready, go = sys.argv[1], sys.argv[2], sys.argv[3]
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, b"A" * 300000)
with open(ready, "w") as f:
    f.write(str(os.getpid()))
while not os.path.exists(go):
    pass
st = os.fstat(fd)
assert st.st_nlink == 0, st.st_nlink
assert os.pread(fd, 300000, 0) == b"A" * 300000
os.pwrite(fd, b"B" * 1000, 300000)
assert os.fstat(fd).st_size == 301000
assert os.pread(fd, 1000, 300000) == b"B" * 1000
if len(sys.argv) > 4:
    open(sys.argv[4], "w").close()
    while True:
        pass
os.close(fd)
print("holder ok")
PY
export -f netns_addr
stripes() { find "$T/iod0" "$T/iod1" -type f -name "$1.*" | wc -l; }
export -f stripes
wait_gone() {
	for i in $(seq 1 100); do
		[ "$(stripes "$1")" = 0 ] && return 0
		sleep 0.1
	done
	return 1
}
export -f wait_gone
t "open-unlinked across hosts: unlinked on cb, still read and written on ca" '
	rm -f "$T/ready" "$T/go"
	on ca env LD_PRELOAD=$SHIM python3 "$T/holder.py" /pvfs/ou "$T/ready" "$T/go" >"$T/holder.out" 2>&1 &
	pid=$!
	while [ ! -e "$T/ready" ]; do sleep 0.05; done
	ino=$(on cb env LD_PRELOAD=$SHIM stat -c %i /pvfs/ou)
	on cb env LD_PRELOAD=$SHIM rm /pvfs/ou
	if on cb env LD_PRELOAD=$SHIM stat /pvfs/ou 2>/dev/null; then exit 1; fi
	[ "$(stripes $ino)" -ge 1 ]
	touch "$T/go"
	wait $pid
	cat "$T/holder.out"
	grep -q "holder ok" "$T/holder.out"
	wait_gone $ino'
t "open-unlinked across hosts: a holder killed on ca, freed after the grace" '
	rm -f "$T/ready" "$T/go" "$T/spin"
	on ca env LD_PRELOAD=$SHIM python3 "$T/holder.py" /pvfs/ok "$T/ready" "$T/go" "$T/spin" >/dev/null 2>&1 &
	pid=$!
	while [ ! -e "$T/ready" ]; do sleep 0.05; done
	ino=$(on cb env LD_PRELOAD=$SHIM stat -c %i /pvfs/ok)
	on cb env LD_PRELOAD=$SHIM rm /pvfs/ok
	touch "$T/go"
	while [ ! -e "$T/spin" ]; do sleep 0.05; done
	sleep 0.5
	[ "$(stripes $ino)" -ge 1 ]
	kill -KILL $(cat "$T/ready")
	wait $pid || true
	wait_gone $ino'

# A host that is not there: no answer to ARP, no RST.  pvfs-ping reports
# it within its 5-second default, not the 30-second client timeout.
t "pvfs-ping: an unreachable mgr host is reported in seconds" '
	start=$(date +%s)
	if on ca timeout 20 pvfs-ping -m 10.78.0.99:3000 >"$T/unreach" 2>&1; then exit 1; fi
	cat "$T/unreach"
	grep -q "^mgr 10.78.0.99:3000: FAILED: " "$T/unreach"
	[ $(($(date +%s) - start)) -le 12 ]'
t "pvfs-ping: an iod host gone is named, the rest still answer" '
	on io2 kill -STOP $(cat "$T/run/iod1.pid")
	rc=0; on ca timeout 30 pvfs-ping >"$T/stopped" 2>&1 || rc=$?
	on io2 kill -CONT $(cat "$T/run/iod1.pid")
	cat "$T/stopped"
	grep -q "^iod 1 10.78.0.12:7000: FAILED: " "$T/stopped"
	grep -q "^iod 0 10.78.0.11:7000: ok" "$T/stopped"
	[ "$rc" = 1 ]'

finish
