#!/bin/sh
# keys.sh - keys fail closed (doc/security.md, "The key file"): pvfs-local
# refuses a directory or key another user planted, the mgr will not start
# without a key nor make one itself, an iod with another key says so in its
# log, and a tool names the iod behind its error.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"

# ---- a planted pvfs-local directory: 0644 all-zero key, 0777 run/ ----
P=$T/planted
# A pvfs-local that took the planted directory left daemons there.
trap '"$B/pvfs-local" stop "$P" >/dev/null 2>&1; lib_cleanup' EXIT
mkdir -p "$P/run"
printf '%064d\n' 0 >"$P/secret"
chmod 644 "$P/secret"
chmod 777 "$P/run"
if [ "$(id -u)" = 0 ]; then
	chown -R 1001:1001 "$P"
	check_err "planted directory of uid 1001: refused" 1 \
		"pvfs-local: $P: owned by uid 1001, not by you (uid 0); pvfs-local did not create it" \
		pvfs-local start "$P" --iods 1
	check "planted directory: nothing started" test ! -e "$P/run/mgr.pid"
	chown 0:0 "$P"
	check_err "planted run/ of uid 1001: refused" 1 \
		"pvfs-local: $P/run: owned by uid 1001" pvfs-local start "$P" --iods 1
	chown -R 0:0 "$P"
else
	echo "ok - planted directory of another uid: skipped (needs root)"
fi
check_err "run/ writable by all: refused" 1 \
	"pvfs-local: $P/run: writable by group or others (mode 777)" \
	pvfs-local start "$P" --iods 1
chmod 755 "$P/run"
check_err "0644 key: refused" 1 \
	"pvfs-local: $P/secret: readable by group or others (mode 644): the key may be known" \
	pvfs-local start "$P" --iods 1
chmod 600 "$P/secret"
chmod 775 "$P"
check_err "group-writable directory: refused" 1 \
	"pvfs-local: $P: writable by group or others (mode 775)" \
	pvfs-local start "$P" --iods 1
check "still nothing started" test ! -e "$P/run/mgr.pid"
chmod 755 "$P"
echo 1 >"$P/run/mgr.pid"
chmod 666 "$P/run/mgr.pid"
check_err "a pid file writable by all in run/: refused" 1 \
	"pvfs-local: $P/run/mgr.pid: writable by group or others (mode 666)" \
	pvfs-local start "$P" --iods 1
if [ "$(id -u)" = 0 ]; then
	chmod 644 "$P/run/mgr.pid"
	chown 1001 "$P/run/mgr.pid"
	check_err "another user's pid file in run/: refused" 1 \
		"pvfs-local: $P/run/mgr.pid: owned by uid 1001" \
		pvfs-local start "$P" --iods 1
fi
rm -f "$P/run/mgr.pid"

# ---- the mgr: no key, no start; --make-key makes one, once ----
M=$T/mgr
mkdir -m 700 "$M"
echo "127.0.0.1:7000" >"$M/iodtab"
check_err "mgr without a key: refuses to start" 1 \
	"$M/secret: no key file; make one with 'pvfs-mgr --make-key $M/secret'" \
	timeout 10 pvfs-mgr -f -d "$M" -l 127.0.0.1:0
check "mgr without a key: made none" test ! -e "$M/secret"
check_quiet "pvfs-mgr --make-key" pvfs-mgr --make-key "$M/secret"
check "the new key is 0600" sh -c "[ \"\$(stat -c %a '$M/secret')\" = 600 ]"
check_err "--make-key never replaces a key" 1 "$M/secret: File exists" \
	pvfs-mgr --make-key "$M/secret"
chmod 644 "$M/secret"
check_err "mgr with a 0644 key: refuses" 1 \
	"$M/secret: key is readable by others (chmod 600 $M/secret)" \
	timeout 10 pvfs-mgr -f -d "$M" -l 127.0.0.1:0
chmod 600 "$M/secret"
chmod 777 "$M"
check_err "mgr with a key in a 0777 directory: refuses" 1 \
	"key directory of $M/secret is writable by others than its owner (chmod go-w $M)" \
	timeout 10 pvfs-mgr -f -d "$M" -l 127.0.0.1:0
chmod 700 "$M"

# ---- an iod with another key: the client fails, the iod says why ----
start_cluster 2
mkrand "$T/f" 300000
check_quiet "cp in with matching keys" pvfs-cp "$T/f" /pvfs/f
# The iods restart with a new key; the mgr runs on with the old one.
pvfs-local kill "$T/fs" iod0
pvfs-local kill "$T/fs" iod1
rm "$T/fs/secret"
pvfs-mgr --make-key "$T/fs/secret"
start_cluster 2
check_rc "cp in with another key at the iods fails" 1 pvfs-cp "$T/f" /pvfs/g
check "... and its error names the iod" grep -qE \
	"Permission denied \(iod [01], [^)]*\)" "$T/last.err"
check "the iod logged a bad MAC" grep -q \
	"warn: capability refused: bad MAC (forged, or signed with another key)" \
	"$T/fs/run/iod0.log" "$T/fs/run/iod1.log"
check "rate-limited: not a line per request" sh -c \
	"[ \$(cat '$T'/fs/run/iod*.log | grep -c 'capability refused') -le 4 ]"

# ---- a tool names the iod that is down ----
pvfs-local stop "$T/fs" >/dev/null 2>&1
start_cluster 2
pvfs-local kill "$T/fs" iod1
sleep 0.3
PORT1=$(cat "$T/fs/run/iod1.lastport")
check_err "a down iod is named" 1 \
	"pvfs-cp: /pvfs/f: Connection refused (iod 1, 127.0.0.1:$PORT1)" \
	pvfs-cp /pvfs/f "$T/back"
finish
