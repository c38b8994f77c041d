#!/bin/sh
# iodid.sh - data-directory identity and clocks (issue 13, items 2 and 5):
# an iod refuses an empty, foreign or already-served data directory; the
# mgr checks each iod's label and key with its HELLOs and pvfs-ping names
# an iod that disagrees; a client never reads zeros from a foreign
# directory; an iod whose clock is 3,700 s ahead still serves.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
PVFS_HELLO_INTERVAL=0.3
export PVFS_HELLO_INTERVAL
start_cluster 2
FS=$T/fs
FSID=$(cat "$FS/meta/fsid")
IOD="$B/pvfs-iod"

# iod_try NAME DIR ARGS...: pvfs-iod in the foreground on an ephemeral
# port; it must refuse to start (exit 1 within 5 s).
iod_try() {
	n=$1 d=$2
	shift 2
	check_rc "$n" 1 timeout 5 "$IOD" -f -d "$d" -k "$FS/secret" \
		-l 127.0.0.1:0 "$@"
}

mkdir "$T/empty"
iod_try "empty directory: refused" "$T/empty" --fsid "$FSID" --index 0
check_grep "empty directory: the message names an unmounted disk" \
	'not a formatted iod data directory.*empty: is the disk that holds it mounted' \
	cat "$T/last.err"
check "empty directory: left empty" sh -c "[ -z \"\$(ls -A '$T/empty')\" ]"
iod_try "empty directory, no --fsid: refused too" "$T/empty"

mkdir "$T/foreign" "$T/other"
check "format a foreign file system's directory" \
	"$IOD" --format --fsid 1234abcd --index 0 -d "$T/foreign"
iod_try "other file system: refused" "$T/foreign" --fsid "$FSID" --index 0
check_grep "other file system: named" \
	"labelled as iod 0 of file system 000000001234abcd, not iod 0 of $FSID" \
	cat "$T/last.err"
check "format iod 1's directory" \
	"$IOD" --format --fsid "$FSID" --index 1 -d "$T/other"
iod_try "other index: refused" "$T/other" --fsid "$FSID" --index 0
check_grep "other index: named" "labelled as iod 1 of file system $FSID, not iod 0" \
	cat "$T/last.err"
check_rc "format twice: refused" 1 "$IOD" --format --fsid "$FSID" --index 1 -d "$T/other"
check_grep "format twice: says so" 'already formatted' cat "$T/last.err"

iod_try "two iods on one directory: the second refused" "$FS/iod0" \
	--fsid "$FSID" --index 0
check_grep "two iods: named" 'another pvfs-iod serves this directory' cat "$T/last.err"

check "ping: all ok" pvfs-ping
cp "$T/out" "$T/ping0"
check_out "ping: the mgr's view of both iods" 2 \
	sh -c "grep -cE '^iod [01] 127\.0\.0\.1:[0-9]+: mgr.s view: ok, label $FSID/[01] uuid [0-9a-f]{32}, clock [-+][0-9.]+ s$' '$T/ping0'"

head -c 1048576 /dev/urandom >"$T/src"
check "write a 1 MiB file" pvfs-cp "$T/src" /pvfs/f

# replace_iod K DIR KEY [ARGS...]: stop iod K, serve DIR on its port.
replace_iod() {
	k=$1 d=$2 key=$3
	shift 3
	port=$(cat "$FS/run/iod$k.lastport")
	"$B/pvfs-local" kill "$FS" "iod$k" KILL >/dev/null 2>&1
	# The old iod's lock and port go with its exit: retry until then.
	for _ in $(seq 50); do
		"$IOD" -d "$d" -k "$key" -l "127.0.0.1:$port" -p "$T/x.pid" \
			-L "$T/x.log" -u "$FS/run/iod$k.sock" "$@" 2>>"$T/x.err" &&
			return 0
		sleep 0.1
	done
	echo "# replace_iod: pvfs-iod did not start"; cat "$T/x.err"
}
stop_replacement() {
	[ -s "$T/x.pid" ] && kill "$(cat "$T/x.pid")" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		[ -e "$T/x.pid" ] || break
		sleep 0.2
	done
}
# wait_ping REGEX: pvfs-ping's output matches within 5 s.
wait_ping() {
	for _ in $(seq 50); do
		pvfs-ping >"$T/ping" 2>&1 && [ "$1" = ok ] && return 0
		grep -qE -- "$1" "$T/ping" && return 0
		sleep 0.1
	done
	return 1
}

# A key that differs: the mgr's HELLO does not verify at the iod.
(umask 077 && head -c32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$T/otherkey")
replace_iod 1 "$FS/iod1" "$T/otherkey" --fsid "$FSID" --index 1
check "key differs: pvfs-ping sees it" wait_ping '^iod 1 .*FAILED: mgr.s view: key differs'
check_rc "key differs: pvfs-ping exits 1" 1 pvfs-ping
check_grep "key differs: iod 1 named, iod 0 ok" \
	"^iod 0 127.0.0.1:[0-9]+: mgr.s view: ok" cat "$T/last.out"
check_grep "key differs: the mgr logs it" \
	'error: iod 1 \(127\.0\.0\.1:[0-9]+\): key differs' cat "$FS/run/mgr.log"
stop_replacement

# A directory labelled for iod 1 served as iod 0 by an iod not told which
# it should be: the mgr's HELLO refuses it, and clients get an error.
replace_iod 0 "$T/other" "$FS/secret"
check "label mismatch: pvfs-ping sees it" wait_ping '^iod 0 .*FAILED: mgr.s view: label mismatch'
check_grep "label mismatch: pvfs-ping names the label found" \
	"^iod 0 .*labelled iod 1 of file system $FSID \(uuid [0-9a-f]{32}\), expected iod 0" cat "$T/ping"
check_grep "label mismatch: the mgr logs an error naming the iod" \
	"error: iod 0 \(127\.0\.0\.1:[0-9]+\): label mismatch: data directory labelled iod 1" \
	cat "$FS/run/mgr.log"
check_rc "label mismatch: reading the file fails, no zeros" 1 \
	pvfs-cp /pvfs/f "$T/dst"
check_grep "label mismatch: the iod logs it" 'serving no data until it matches' cat "$T/x.log"
stop_replacement

"$B/pvfs-local" stop "$FS" >/dev/null 2>&1
PVFS_TEST_CLOCK_OFFSET=3700 start_cluster 2
check "skewed clock: pvfs-ping ok" wait_ping ok
check_grep "skewed clock: pvfs-ping reports the skew" \
	'^iod 1 .*: warning: clock skewed \+3700\.[0-9] s from the mgr' cat "$T/ping"
check_grep "skewed clock: the mgr logs it" \
	'warn: iod 0 \(127\.0\.0\.1:[0-9]+\): clock \+3700\.[0-9] s from the mgr' \
	cat "$FS/run/mgr.log"
check "skewed clock: the file reads back" pvfs-cp /pvfs/f "$T/dst"
check "skewed clock: same bytes" cmp "$T/src" "$T/dst"
check "skewed clock: a new file writes" pvfs-cp "$T/src" /pvfs/g

finish
