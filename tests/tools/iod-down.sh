#!/bin/sh
# iod-down.sh - with one iod killed, what needs no file size works
# (issue 15): pvfs-rm, pvfs-mv (a rename over a file), pvfs-chmod,
# pvfs-chown, pvfs-rmdir and a plain listing succeed; pvfs-ls -l shows
# every column but the size of the files it cannot size, which it shows
# as "?", names the iod once on stderr and exits 1.  After the iod is
# back, sizes show again.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster 4

# Every file has a stripe on every iod, so all of them lose iod 2.
pvfs-mkdir /pvfs/d /pvfs/empty || exit 1
for f in a b c e; do
	mkrand "$T/$f" 100000
	pvfs-cp --pcount 4 "$T/$f" /pvfs/d/$f || exit 1
done

"$B/pvfs-local" kill "$T/fs" iod2 KILL >/dev/null

check_quiet "chmod with iod 2 down" pvfs-chmod 0600 /pvfs/d/a
check_quiet "chmod -R with iod 2 down" pvfs-chmod -R go-w /pvfs/d
check_quiet "chown with iod 2 down" pvfs-chown 1234:5678 /pvfs/d/a
check_quiet "chown -R with iod 2 down" pvfs-chown -R 1234:5678 /pvfs/d
check_quiet "mv (rename over a file) with iod 2 down" pvfs-mv /pvfs/d/b /pvfs/d/c
check_quiet "rm with iod 2 down" pvfs-rm /pvfs/d/e
check_quiet "rmdir with iod 2 down" pvfs-rmdir /pvfs/empty
check_out "a listing (readdir) with iod 2 down" "$(printf 'a\nc')" pvfs-ls -1 /pvfs/d

check_rc "ls -l with iod 2 down exits 1" 1 pvfs-ls -l /pvfs/d
check_grep "ls -l: the chmod and chown held, size ?" \
    '^-rw------- +1 +1234 +5678 +\? .* a$' cat "$T/last.out"
check_grep "ls -l: the renamed file, size ?" \
    '^-rw-r--r-- +1 +1234 +5678 +\? .* c$' cat "$T/last.out"
check_out "ls -l: two files listed" 2 sh -c "grep -c '^-' '$T/last.out'"
check_grep "ls -l names iod 2" 'iod 2' cat "$T/last.err"
check_out "ls -l names it once" 1 sh -c "wc -l <'$T/last.err'"
check_rc "ls -l of one file with iod 2 down exits 1" 1 pvfs-ls -l /pvfs/d/a
check_grep "ls -l of one file: size ?" '^-rw------- .* \? .*/pvfs/d/a$' \
    cat "$T/last.out"

"$B/pvfs-local" start "$T/fs" >/dev/null 2>&1
check_grep "ls -l after the iod is back: sizes" \
    '^-rw------- +1 +1234 +5678 +100000 .* a$' pvfs-ls -l /pvfs/d
finish
