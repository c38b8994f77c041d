#!/bin/sh
# ls.sh - pvfs-ls: plain, -l, -a, -R, -h, -d, --dist, operands, errors.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

mkrand "$T/b" 1048583
printf abc >"$T/a"
pvfs-mkdir -p /pvfs/d/sub/deeper && pvfs-cp "$T/a" /pvfs/d/a &&
	pvfs-cp --base 1 --pcount 2 --ssize 4096 "$T/b" /pvfs/d/b &&
	pvfs-cp "$T/a" /pvfs/d/.hidden && pvfs-cp "$T/a" /pvfs/d/sub/x || exit 1

check_out "names sorted, dot files hidden" "a
b
sub" pvfs-ls /pvfs/d
check_out "-a shows . .. and dot files" ".
..
.hidden
a
b
sub" pvfs-ls -a /pvfs/d
check_grep "-l: mode links owner group size mtime name" \
	'^-rw-r--r-- 1 root root 1048583 [A-Z][a-z]{2} [ 0-9]{2} [0-9]{2}:[0-9]{2} b$' pvfs-ls -l /pvfs/d
check_grep "-l: directory line" '^drwxr-xr-x [0-9]+ root root +[0-9]+ .* sub$' pvfs-ls -l /pvfs/d
check "-l: total line, then entries sorted by name" sh -c \
	'pvfs-ls -l /pvfs/d | awk "NR==1 && !/^total [0-9]+\$/ {exit 1} NR>1 {print \$NF}" | tr "\n" " " | grep -qx "a b sub "'
check_grep "-lh: human sizes, rounded up as GNU ls does" '^-rw-r--r-- 1 root root +1\.1M .* b$' pvfs-ls -lh /pvfs/d
check_grep "-h alone changes nothing" '^b$' pvfs-ls -h /pvfs/d
check_out "-d lists the directory itself" "/pvfs/d" pvfs-ls -d /pvfs/d
check_grep "-ld: long line for the directory" '^drwxr-xr-x .* /pvfs/d$' pvfs-ls -ld /pvfs/d
check_out "-R walks subdirectories" "/pvfs/d:
a
b
sub

/pvfs/d/sub:
deeper
x

/pvfs/d/sub/deeper:" pvfs-ls -R /pvfs/d
check_grep "--dist: base pcount ssize of a file" '^ +1 +2 +4096 b$' pvfs-ls --dist /pvfs/d
check_grep "--dist: default distribution" '^ +[0-3] +4 +65536 a$' pvfs-ls --dist /pvfs/d
check_grep "--dist with -l" '^-rw-r--r-- .* +1 +2 +4096 b$' pvfs-ls -l --dist /pvfs/d
check_grep "--dist: directories show -" '^ +- +- +- sub$' pvfs-ls --dist /pvfs/d
check_out "a file operand" "/pvfs/d/a" pvfs-ls /pvfs/d/a
check_out "files first, then directories with headers" "/pvfs/d/a

/pvfs/d/sub:
deeper
x" pvfs-ls /pvfs/d/sub /pvfs/d/a
check_grep "no operand: the pvfstab's first prefix" '^d$' pvfs-ls
check_fail "missing path: message and exit 1" 1 \
	"pvfs-ls: /pvfs/nope: No such file or directory" pvfs-ls /pvfs/nope
check_rc "one bad operand, the rest still listed: exit 1" 1 pvfs-ls /pvfs/nope /pvfs/d
check "the rest still listed" sh -c 'pvfs-ls /pvfs/nope /pvfs/d 2>/dev/null | grep -qx sub'
check_fail "a local path is refused" 1 \
	"pvfs-ls: $T: not a PVFS path (no pvfstab prefix or pvfs:// URL)" pvfs-ls "$T"
check_fail "bad option: exit 2" 2 "Try 'pvfs-ls --help'." pvfs-ls -Z /pvfs

# Special files, made through the shim (there is no pvfs-mknod): their
# type letters, -F's marks, and a device's "major, minor" for its size.
shim="${PVFS_BUILDDIR:-.}/.libs/libpvfs-preload.so"
if [ -r "$shim" ] && [ "$(id -u)" = 0 ]; then
	umask 022
	LD_PRELOAD=$shim sh -c 'mkdir /pvfs/sp && mkfifo /pvfs/sp/p &&
		mknod /pvfs/sp/c c 1 3 && mknod /pvfs/sp/b b 7 200' || exit 1
	check_grep "-l: a FIFO" '^prw-r--r-- 1 root root +0 .* p$' pvfs-ls -l /pvfs/sp
	check_grep "-l: a character device's major, minor" \
		'^crw-r--r-- 1 root root +1, 3 .* c$' pvfs-ls -l /pvfs/sp
	check_grep "-l: a block device" '^brw-r--r-- 1 root root +7, 200 .* b$' \
		pvfs-ls -l /pvfs/sp
	check_out "-F: | after a FIFO" "b
c
p|" pvfs-ls -F /pvfs/sp
fi
finish
