#!/bin/sh
# names.sh - pvfs-mkdir (-p, -m), pvfs-rmdir (-p), pvfs-rm (-r, -f) and
# pvfs-mv (rename, into a directory, across file systems, -n), with their
# errors, partial failures and exit codes.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster
printf data >"$T/data"

# pvfs-mkdir
check_quiet "mkdir" pvfs-mkdir /pvfs/m
check_grep "mkdir: default mode minus umask" '^drwxr-xr-x ' pvfs-ls -ld /pvfs/m
check_fail "mkdir: exists" 1 "pvfs-mkdir: /pvfs/m: File exists" pvfs-mkdir /pvfs/m
check_fail "mkdir: missing parent" 1 "pvfs-mkdir: /pvfs/no/m: No such file or directory" pvfs-mkdir /pvfs/no/m
check_quiet "mkdir -p: nested" pvfs-mkdir -p /pvfs/p1/p2/p3
check_quiet "mkdir -p: existing is fine" pvfs-mkdir -p /pvfs/p1/p2
check_out "mkdir -p: all made" "/pvfs/p1/p2/p3" pvfs-ls -d /pvfs/p1/p2/p3
pvfs-cp "$T/data" /pvfs/file
check_fail "mkdir -p: a file in the way" 1 "pvfs-mkdir: /pvfs/file: Not a directory" pvfs-mkdir -p /pvfs/file/x
check_quiet "mkdir -m 700" pvfs-mkdir -m 700 /pvfs/m700
check_grep "mkdir -m 700: mode" '^drwx------ ' pvfs-ls -ld /pvfs/m700
check_quiet "mkdir -m symbolic, ignoring the umask" pvfs-mkdir -m u=rwx,g=rwx,o= /pvfs/m770
check_grep "mkdir -m u=rwx,g=rwx,o=: mode" '^drwxrwx--- ' pvfs-ls -ld /pvfs/m770
check_quiet "mkdir -p -m: the last one gets the mode" pvfs-mkdir -p -m 711 /pvfs/pm/a/b
check_grep "mkdir -p -m: mode" '^drwx--x--x ' pvfs-ls -ld /pvfs/pm/a/b
check_fail "mkdir -m bad" 2 "pvfs-mkdir: invalid mode: 'q'" pvfs-mkdir -m q /pvfs/x
check_fail "mkdir: no operand" 2 "pvfs-mkdir: missing operand" pvfs-mkdir
check_rc "mkdir: several, one fails: exit 1" 1 pvfs-mkdir /pvfs/ok1 /pvfs/no/x /pvfs/ok2
check "... the others made" pvfs-ls -d /pvfs/ok1 /pvfs/ok2

# pvfs-rmdir
check_quiet "rmdir" pvfs-rmdir /pvfs/ok1
check_fail "rmdir: gone" 1 "pvfs-ls: /pvfs/ok1: No such file or directory" pvfs-ls /pvfs/ok1
check_fail "rmdir: not empty" 1 "pvfs-rmdir: /pvfs/p1: Directory not empty" pvfs-rmdir /pvfs/p1
check_fail "rmdir: a file" 1 "pvfs-rmdir: /pvfs/file: Not a directory" pvfs-rmdir /pvfs/file
check_quiet "rmdir -p" pvfs-rmdir -p /pvfs/p1/p2/p3
check_fail "rmdir -p: parents gone too" 1 "pvfs-ls: /pvfs/p1: No such file or directory" pvfs-ls /pvfs/p1
check_fail "rmdir: no operand" 2 "pvfs-rmdir: missing operand" pvfs-rmdir

# pvfs-rm
pvfs-mkdir -p /pvfs/t/a/b /pvfs/t/c && for f in /pvfs/t/x /pvfs/t/a/y /pvfs/t/a/b/z; do
	pvfs-cp "$T/data" $f; done
check_quiet "rm a file" pvfs-rm /pvfs/t/x
check_fail "rm: gone" 1 "pvfs-ls: /pvfs/t/x: No such file or directory" pvfs-ls /pvfs/t/x
check_fail "rm: missing" 1 "pvfs-rm: /pvfs/t/x: No such file or directory" pvfs-rm /pvfs/t/x
check_quiet "rm -f: missing is fine" pvfs-rm -f /pvfs/t/x
check_quiet "rm -f: no operand is fine" pvfs-rm -f
check_fail "rm: no operand" 2 "pvfs-rm: missing operand" pvfs-rm
check_fail "rm: a directory without -r" 1 "pvfs-rm: /pvfs/t: Is a directory" pvfs-rm /pvfs/t
check_quiet "rm -r a tree" pvfs-rm -r /pvfs/t
check_fail "rm -r: gone" 1 "pvfs-ls: /pvfs/t: No such file or directory" pvfs-ls /pvfs/t
check_quiet "rm -R is -r" sh -c 'pvfs-mkdir -p /pvfs/R/a && pvfs-rm -R /pvfs/R'
check_fail "rm -r: the root is refused" 1 \
	"pvfs-rm: /pvfs: refusing to remove the root of a file system" pvfs-rm -r /pvfs
check_fail "rm -r: the root via /." 1 \
	"pvfs-rm: /pvfs/.: refusing to remove the root of a file system" pvfs-rm -rf /pvfs/.
pvfs-cp "$T/data" /pvfs/r1 && pvfs-cp "$T/data" /pvfs/r2
check_rc "rm: one missing among others: exit 1" 1 pvfs-rm /pvfs/r1 /pvfs/nope /pvfs/r2
check_out "... the others removed" "" sh -c 'pvfs-ls /pvfs | grep "^r[12]$"; true'

# pvfs-mv
pvfs-cp "$T/data" /pvfs/mv1
check_quiet "mv: rename" pvfs-mv /pvfs/mv1 /pvfs/mv2
check_out "mv: content under the new name" "data" pvfs-cp /pvfs/mv2 -
check_fail "mv: old name gone" 1 "pvfs-ls: /pvfs/mv1: No such file or directory" pvfs-ls /pvfs/mv1
printf other | pvfs-cp - /pvfs/mv3
check_quiet "mv: replaces an existing file" pvfs-mv /pvfs/mv2 /pvfs/mv3
check_out "mv: replaced" "data" pvfs-cp /pvfs/mv3 -
printf keep | pvfs-cp - /pvfs/keep
check_quiet "mv -n: does not replace" pvfs-mv -n /pvfs/mv3 /pvfs/keep
check_out "mv -n: kept" "keep" pvfs-cp /pvfs/keep -
check_quiet "mv: into a directory" pvfs-mv /pvfs/mv3 /pvfs/keep /pvfs/m
check_out "mv: both moved" "keep
mv3" pvfs-ls /pvfs/m
check_quiet "mv: a directory" pvfs-mv /pvfs/m /pvfs/m2
check_out "mv: directory renamed with its contents" "keep
mv3" pvfs-ls /pvfs/m2
check_fail "mv: a directory into itself" 1 "pvfs-mv: /pvfs/m2: Invalid argument" pvfs-mv /pvfs/m2 /pvfs/m2/sub
mkrand "$T/big" 10000001
cp "$T/big" "$T/big.orig"
check_quiet "mv: local -> pvfs (copy, then remove)" pvfs-mv "$T/big" /pvfs/big
check "mv: local source removed" test ! -e "$T/big"
check_quiet "mv: pvfs -> local" pvfs-mv /pvfs/big "$T/big.back"
check_fail "mv: pvfs source removed" 1 "pvfs-ls: /pvfs/big: No such file or directory" pvfs-ls /pvfs/big
same "mv: across file systems intact" "$T/big.orig" "$T/big.back"
check_fail "mv: a directory across file systems" 1 \
	"pvfs-mv: /pvfs/m2: cannot move a directory to another file system (use pvfs-cp -r, then pvfs-rm -r)" \
	pvfs-mv /pvfs/m2 "$T/m2"
check_fail "mv: missing source" 1 "pvfs-mv: /pvfs/nope: No such file or directory" pvfs-mv /pvfs/nope /pvfs/x
check_fail "mv: several into a non-directory" 1 "pvfs-mv: target '/pvfs/file': Not a directory" \
	pvfs-mv /pvfs/m2/keep /pvfs/m2/mv3 /pvfs/file
check_fail "mv: one operand" 2 "pvfs-mv: missing destination file operand" pvfs-mv /pvfs/file
finish
