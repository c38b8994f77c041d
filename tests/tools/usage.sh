#!/bin/sh
# usage.sh - conventions every tool shares: --help (exit 0, usage on
# stdout), --version, bad options and missing arguments (exit 2, message
# and a hint on stderr), and "prog: path: message" errors with exit 1.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster
version=$(sed -n 's/^#define PVFS_VERSION_STRING "\(.*\)"/\1/p' "${PVFS_SRCDIR:-.}/include/pvfs.h")

for t in ls cp rm mkdir rmdir mv stat ping df du chmod chown truncate counters; do
	p=pvfs-$t
	check_grep "$p --help" "^Usage: $p " $p --help
	check_quiet "$p --help: nothing on stderr" sh -c "$p --help >/dev/null"
	check_out "$p --version" "$p (PVFS) $version" $p --version
	check_fail "$p: unknown option, exit 2" 2 "$p: unrecognized option '--bogus'" $p --bogus
	check_grep "$p: the hint names the tool" "^Try '$p --help'\.$" sh -c "$p -Q 2>&1; true"
	check_grep "$p: a local path is refused (exit 1)" "^$p: " sh -c "$p /tmp/x /tmp/y 2>&1 >/dev/null; test \$? -ge 1"
done
# The daemons: one spelling of the shared options; the mgr's first
# spellings still parse (--version exits after the options before it).
for p in pvfs-mgr pvfs-iod; do
	check_grep "$p --help" "^Usage: $p " $p --help
	for o in --key-file --pid-file --log-file --port-file; do
		check_grep "$p --help: $o" "^ *(-., )?$o " $p --help
	done
done
check_grep "pvfs-mgr --help: --meta-dir" "^ *-d, --meta-dir " pvfs-mgr --help
check_grep "pvfs-mgr --help: old spellings deprecated" "^Deprecated spellings" pvfs-mgr --help
check_grep "pvfs-mgr: new spellings parse" "^pvfs-mgr " pvfs-mgr --meta-dir /nonexistent \
	--key-file /nonexistent --pid-file /nonexistent --log-file /nonexistent --version
check_grep "pvfs-mgr: deprecated spellings parse" "^pvfs-mgr " pvfs-mgr --metadir /nonexistent \
	--keyfile /nonexistent --pidfile /nonexistent --logfile /nonexistent --version
check_grep "pvfs-iod: the same spellings parse" "^pvfs-iod " pvfs-iod --data-dir /nonexistent \
	--key-file /nonexistent --pid-file /nonexistent --log-file /nonexistent --version
check_fail "a missing option argument" 2 "pvfs-mkdir: option requires an argument -- 'm'" pvfs-mkdir -m
check_fail "a missing long option argument" 2 "pvfs-cp: option '--ssize' requires an argument" pvfs-cp a b --ssize
finish
