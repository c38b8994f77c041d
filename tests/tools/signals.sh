#!/bin/sh
# signals.sh - the operator's signals (doc/administration.md, "Logs"):
# SIGHUP makes a daemon reopen its log file, as logrotate's postrotate
# needs, and keeps the old file with a line saying why when the new one
# cannot be opened; SIGUSR1/SIGUSR2 step the log level, within error ..
# debug, and the level shows in what is logged.  No signal stops a daemon.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster 2
RUN=$T/fs/run

# wait_line FILE TEXT: up to 5 s for TEXT to appear in FILE.
wait_line() {
	w=0
	while ! grep -qF -- "$2" "$1" 2>/dev/null && [ $w -lt 50 ]; do
		sleep 0.1
		w=$((w + 1))
	done
	grep -qF -- "$2" "$1"
}
alive() {
	kill -0 "$(cat "$RUN/$1.pid")"
}

for d in mgr iod0; do
	mv "$RUN/$d.log" "$RUN/$d.log.1"
	pvfs-local kill "$T/fs" $d HUP >/dev/null
	check "$d: SIGHUP: a new log file says so" wait_line "$RUN/$d.log" \
		"SIGHUP: reopened the log file $RUN/$d.log"
	check "$d: SIGHUP: still running" alive $d
	check_out "$d: SIGHUP: the old file got nothing more" "0" \
		sh -c "grep -c SIGHUP '$RUN/$d.log.1' || true"
done
check "after SIGHUP: the file system works" pvfs-ping
check "after SIGHUP: the mgr logs to the new file" sh -c "! cmp -s '$RUN/mgr.log' /dev/null"

# A name that cannot be opened: the old file stays in use and says why.
mv "$RUN/mgr.log" "$RUN/mgr.log.2"
mkdir "$RUN/mgr.log"
pvfs-local kill "$T/fs" mgr HUP >/dev/null
check "unopenable name: the old file says why" wait_line "$RUN/mgr.log.2" \
	"SIGHUP: cannot reopen $RUN/mgr.log: Is a directory; still logging to the file opened before"
check "unopenable name: still running" alive mgr
rmdir "$RUN/mgr.log"
pvfs-local kill "$T/fs" mgr HUP >/dev/null
check "then a new file again" wait_line "$RUN/mgr.log" "SIGHUP: reopened"

# Levels: info at start; debug shows each request.
L=$RUN/mgr.log
debug_lines() { grep -c ' debug: ' "$L" || true; }
check_out "info: no debug line" "0" debug_lines
pvfs-local kill "$T/fs" mgr USR1 >/dev/null
check "SIGUSR1: log level debug" wait_line "$L" "SIGUSR1: log level debug"
pvfs-ls /pvfs >/dev/null
check "debug: requests are logged" sh -c "[ \$(grep -c ' debug: ' '$L') -gt 0 ]"
pvfs-local kill "$T/fs" mgr USR1 >/dev/null
sleep 0.2
check_out "SIGUSR1 at debug: stays debug" "2" grep -c "SIGUSR1: log level debug" "$L"
pvfs-local kill "$T/fs" mgr USR2 >/dev/null
check "SIGUSR2: log level info" wait_line "$L" "SIGUSR2: log level info"
before=$(debug_lines)
pvfs-ls /pvfs >/dev/null
check_out "info again: no new debug line" "$before" debug_lines
for lvl in warn error error; do
	pvfs-local kill "$T/fs" mgr USR2 >/dev/null
	sleep 0.2
done
check_out "SIGUSR2 down to error, and no lower" \
	"SIGUSR2: log level warn
SIGUSR2: log level error
SIGUSR2: log level error" sh -c "grep -o 'SIGUSR2: log level [a-z]*' '$L' | tail -n 3"
check "after the signals: still running" alive mgr
check "after the signals: the file system works" pvfs-ping
finish
