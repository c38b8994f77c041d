#!/bin/sh
# admin.sh - pvfs-ping (-m, -t, PATH, every pvfstab entry) and pvfs-df
# (-h, one shared host disk counted once), healthy and with a dead or
# stopped iod (df.sh tests pvfs-df further).
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

check "ping: healthy, exit 0" pvfs-ping
cp "$T/out" "$T/ping"
check_grep "ping: the mgr line" \
	"^mgr 127\.0\.0\.1:$MGR_PORT: ok, protocol [0-9]+, fsid [0-9a-f]{16}, up [0-9]+s, [0-9]+\.[0-9]{3} ms, 4 iods$" cat "$T/ping"
check_out "ping: one line per iod, all ok" "4" sh -c "grep -cE '^iod [0-3] 127\.0\.0\.1:[0-9]+: ok, protocol [0-9]+, up [0-9]+s, [0-9.]+ ms, [0-9.]+[KMGT]? free of [0-9.]+[KMGT]?$' '$T/ping'"
check_quiet "ping: nothing on stderr" sh -c 'pvfs-ping >/dev/null'
check_grep "ping -m HOST:PORT" '^mgr .*: ok' pvfs-ping -m "127.0.0.1:$MGR_PORT"
check_grep "ping PATH" '^iod 3 .*: ok' pvfs-ping /pvfs
check_grep "ping URL" '^iod 0 .*: ok' pvfs-ping "$URL/"
check_grep "ping over TCP without MUNGE (no pvfstab): told it acts as nobody" \
	"^mgr 127\.0\.0\.1:$MGR_PORT: warning: this client is not authenticated \(TCP without MUNGE\): the mgr serves its requests as nobody \(uid 65534\); set up MUNGE or use the mgr's Unix socket \(doc/security\.md\)$" \
	env PVFSTAB_FILE=/nonexistent pvfs-ping -m "127.0.0.1:$MGR_PORT"
check "ping over the Unix socket: no such warning" sh -c "! grep -q warning '$T/ping'"
check_grep "the mgr says at start whom it trusts" \
	'info: trust: capabilities signed with the key in .*/secret; clients on the Unix socket are who the kernel says; .* TCP clients without one act as nobody \(uid 65534\)' \
	cat "$T/fs/run/mgr.log"
check_grep "an iod says at start which key it checks with" \
	'info: trust: capabilities checked with the key in .*/secret' cat "$T/fs/run/iod0.log"
check_grep "the mgr's log says so too" 'not authenticated \(TCP without MUNGE\): its requests as uid [0-9]+ are served as nobody' \
	cat "$T/fs/run/mgr.log"
check_grep "ping without a pvfstab, -m only" '^mgr .*: ok' env PVFSTAB_FILE=/nonexistent pvfs-ping -m "127.0.0.1:$MGR_PORT"
check_rc "ping -m with no mgr there: exit 1" 1 pvfs-ping -m 127.0.0.1:1
check_grep "ping: the dead mgr is named" '^mgr 127\.0\.0\.1:1: FAILED: Connection refused$' cat "$T/last.out"
check_fail "ping -t bad: usage" 2 "pvfs-ping: invalid timeout: 'x'" pvfs-ping -t x

check "df" pvfs-df
cp "$T/out" "$T/df"
check_grep "df: header" '^Filesystem +1K-blocks +Used +Available +Use% Mounted on$' cat "$T/df"
check_grep "df: total line" "^127\.0\.0\.1:$MGR_PORT +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+% /pvfs$" cat "$T/df"
check_out "df: one line per iod" "4" sh -c "grep -cE '^  iod [0-3] 127\.0\.0\.1:[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+% *(\(disk of iod 0\))?$' '$T/df'"
check "df: one host disk counted once" sh -c "awk '/^127/ {t=\$2} /^  iod 0/ {s=\$4} END {exit t != s}' '$T/df'"
check_grep "df -h" '^127\.0\.0\.1:[0-9]+ +[0-9.]+[KMGTP] +[0-9.]+[KMGTP]? +[0-9.]+[KMGTP] +[0-9]+% /pvfs$' pvfs-df -h
check_grep "df -h header" '^Filesystem +Size +Used +Available' pvfs-df -h
check_grep "df PATH (URL)" '^  iod 3 ' pvfs-df "$URL/"
check_fail "df: not a PVFS path" 1 "pvfs-df: /tmp: not a PVFS path (no pvfstab prefix or pvfs:// URL)" \
	sh -c 'pvfs-df /tmp >/dev/null'

# A stopped iod: ping gives up after -t and says which one.
"$B/pvfs-local" kill "$T/fs" iod1 STOP >/dev/null
start=$(date +%s)
check_rc "ping: a stopped iod, exit 1" 1 pvfs-ping -t 1
check "ping -t 1: bounded wait" test $(($(date +%s) - start)) -lt 10
check_grep "ping: the stopped iod named" '^iod 1 .*: FAILED: Connection timed out$' cat "$T/last.out"
check_out "ping: the others fine" "3" sh -c "grep -c '^iod .*: ok, protocol' '$T/last.out'"
check_grep "ping: summary on stderr" '^pvfs-ping: /pvfs: 1 of 5 daemons failed$' cat "$T/last.err"
"$B/pvfs-local" kill "$T/fs" iod1 CONT >/dev/null

# A dead iod.
"$B/pvfs-local" kill "$T/fs" iod2 KILL >/dev/null
check_rc "ping: a dead iod, exit 1" 1 pvfs-ping
check_grep "ping: the dead iod named" '^iod 2 .*: FAILED: Connection refused$' cat "$T/last.out"
check_rc "df: a dead iod, exit 1" 1 pvfs-df
check_grep "df: still prints the others" '^  iod 3 .* [0-9]+% \(disk of iod 0\)$' cat "$T/last.out"
check_grep "df: names the dead iod" '^pvfs-df: /pvfs: iod 2 \(127\.0\.0\.1:[0-9]+\): Connection refused$' cat "$T/last.err"
"$B/pvfs-local" stop "$T/fs" >/dev/null
check_rc "ping: everything down, exit 1" 1 pvfs-ping
check_grep "ping: the mgr is down" '^mgr .*: FAILED: Connection refused$' cat "$T/last.out"
start_cluster
check "ping: healthy again" pvfs-ping
finish
