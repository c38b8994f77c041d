#!/bin/sh
# cp.sh - pvfs-cp: round trips with checksums, stdin/stdout, into a
# directory, -r trees compared with diff -r, -p, -f, distribution options,
# errors, exit codes, and failing transfers (a dead iod).
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

# Round trips local -> PVFS -> local and PVFS -> PVFS of awkward sizes:
# empty, 1 byte, odd, one block (8 MiB) +- 1, several blocks + odd.
for size in 0 1 4097 1234567 8388607 8388609 29360131; do
	mkrand "$T/src" "$size"
	check_quiet "$size bytes: local -> pvfs, quietly" pvfs-cp "$T/src" /pvfs/f
	check_out "$size bytes: size on pvfs" "$size" sh -c 'pvfs-stat /pvfs/f | sed -n "s/^  Size: \([0-9]*\).*/\1/p"'
	check_quiet "$size bytes: pvfs -> pvfs" pvfs-cp /pvfs/f /pvfs/g
	check_quiet "$size bytes: pvfs -> local" pvfs-cp /pvfs/g "$T/back"
	same "$size bytes: checksums match" "$T/src" "$T/back"
done

mkrand "$T/s3" 3000001
check "stdin -> pvfs" sh -c "pvfs-cp - /pvfs/in < '$T/s3'"
check "pvfs -> stdout" sh -c "pvfs-cp /pvfs/in - > '$T/out3'"
same "stdin/stdout round trip" "$T/s3" "$T/out3"
check "stdin from a pipe" sh -c "cat '$T/s3' | pvfs-cp - /pvfs/pipe && pvfs-cp /pvfs/pipe - | cmp - '$T/s3'"

pvfs-mkdir /pvfs/into
printf one >"$T/one"
printf two >"$T/two"
check_quiet "several sources into a directory" pvfs-cp "$T/one" "$T/two" /pvfs/into
check_out "both arrived" "one two" sh -c 'echo $(pvfs-cp /pvfs/into/one -) $(pvfs-cp /pvfs/into/two -)'
check_fail "several sources, target not a directory" 1 \
	"pvfs-cp: target '/pvfs/f': Not a directory" pvfs-cp "$T/one" "$T/two" /pvfs/f

# A tree with nested and empty directories and files of several sizes.
mkdir -p "$T/tree/a/b/c" "$T/tree/empty" "$T/tree/a/e"
mkrand "$T/tree/top" 100
mkrand "$T/tree/a/mid" 65537
mkrand "$T/tree/a/b/c/deep" 9000000
: >"$T/tree/a/b/zero"
mkrand "$T/tree/a/e/.dot" 3
check_quiet "-r local -> pvfs" pvfs-cp -r "$T/tree" /pvfs/tree
check_quiet "-r pvfs -> pvfs" pvfs-cp -r /pvfs/tree /pvfs/tree2
check_quiet "-r pvfs -> local" pvfs-cp -r /pvfs/tree2 "$T/tree.back"
check "-r round trip: diff -r" diff -r "$T/tree" "$T/tree.back"
check_quiet "-r into an existing directory" pvfs-cp -r "$T/tree" /pvfs/into
check "-r into: tree/a/b/c/deep there" cmp "$T/tree/a/b/c/deep" "$T/tree.back/a/b/c/deep"
check_out "-r into: lands under its base name" "a
empty
top" pvfs-ls /pvfs/into/tree
check_fail "a directory without -r" 1 \
	"pvfs-cp: -r not specified; omitting directory '$T/tree'" pvfs-cp "$T/tree" /pvfs/nodir
check_fail "a directory into itself" 1 \
	"pvfs-cp: cannot copy a directory, '/pvfs/tree', into itself, '/pvfs/tree/sub'" \
	pvfs-cp -r /pvfs/tree /pvfs/tree/sub
chmod 0640 "$T/one"
touch -d '2001-02-03 04:05:06' "$T/one"
check_quiet "-p local -> pvfs" pvfs-cp -p "$T/one" /pvfs/p
check_grep "-p kept mode and mtime" '^-rw-r----- 1 root root 3 Feb  3  2001 /pvfs/p$' pvfs-ls -l /pvfs/p
check_quiet "-p pvfs -> local" pvfs-cp -p /pvfs/p "$T/p.back"
check_out "-p round trip: mode and mtime" "640 $(stat -c %Y "$T/one")" stat -c '%a %Y' "$T/p.back"
check_quiet "without -p" pvfs-cp "$T/one" /pvfs/nop
check_grep "without -p: a new mtime" '^-rw-r----- 1 root root 3 [A-Z][a-z]{2} [ 0-9]{2} [0-9]{2}:[0-9]{2} /pvfs/nop$' pvfs-ls -l /pvfs/nop
check_quiet "-rp keeps directory times" pvfs-cp -rp "$T/tree" /pvfs/treep
check_out "-rp: directory mode" "drwxr-xr-x" sh -c 'pvfs-ls -ld /pvfs/treep/a | cut -c1-10'

# Distribution options, and -f to recreate an existing file.
check_quiet "--base --pcount --ssize" pvfs-cp --base 2 --pcount 3 --ssize 8k "$T/s3" /pvfs/dist
check_grep "distribution as asked" '^  Dist: base 2  pcount 3  ssize 8192$' pvfs-stat /pvfs/dist
check_fail "overwrite in place: the asked layout is refused, exit 1" 1 \
	"pvfs-cp: /pvfs/dist: exists, so --pcount 1 is not applied: a file's layout is fixed when it is created (it keeps pcount 3); -f recreates it" \
	pvfs-cp --pcount 1 "$T/one" /pvfs/dist
check_grep "still pcount 3" 'pcount 3 ' pvfs-stat /pvfs/dist
check "... the content was still copied" sh -c "pvfs-cp /pvfs/dist - | cmp - '$T/one'"
check_quiet "the layout it has already: no message" pvfs-cp --pcount 3 --ssize 8k "$T/one" /pvfs/dist
check_quiet "-f recreates the file" pvfs-cp -f --pcount 1 "$T/one" /pvfs/dist
check_grep "-f: new distribution" 'pcount 1 ' pvfs-stat /pvfs/dist
check "-f: new content" sh -c "pvfs-cp /pvfs/dist - | cmp - '$T/one'"
check_fail "--ssize out of range: usage" 2 "Try 'pvfs-cp --help'." pvfs-cp --ssize 100 "$T/one" /pvfs/x
check_fail "--pcount 0: usage" 2 "Try 'pvfs-cp --help'." pvfs-cp --pcount 0 "$T/one" /pvfs/x
check_fail "--pcount beyond the iods: only N iods" 1 \
	"pvfs-cp: --pcount 9: the file system has only 4 iods" pvfs-cp --pcount 9 "$T/one" /pvfs/x

# Errors.
check_fail "missing source" 1 "pvfs-cp: /pvfs/nope: No such file or directory" pvfs-cp /pvfs/nope "$T/x"
check_fail "missing destination directory" 1 \
	"pvfs-cp: cannot create regular file '/pvfs/nodir/x': No such file or directory" pvfs-cp "$T/one" /pvfs/nodir/x
check_fail "no destination: usage" 2 "pvfs-cp: missing destination file operand after '$T/one'" pvfs-cp "$T/one"
check_fail "no operand: usage" 2 "pvfs-cp: missing file operand" pvfs-cp
check_fail "same file" 1 "pvfs-cp: '/pvfs/p' and '/pvfs/p' are the same file" pvfs-cp /pvfs/p /pvfs/p
check_rc "one source missing: exit 1" 1 pvfs-cp /pvfs/nope "$T/two" /pvfs/into
check_out "... the others still copied" "two" pvfs-cp /pvfs/into/two -
pvfs-mkdir -p /pvfs/part/tree && pvfs-cp "$T/one" /pvfs/part/tree/a
check_fail "-r: a subdirectory that cannot be made" 1 \
	"pvfs-cp: cannot overwrite non-directory '/pvfs/part/tree/a' with directory '$T/tree/a'" \
	pvfs-cp -r "$T/tree" /pvfs/part
check_out "-r: ... the rest of the tree still copied" "a
empty
top" pvfs-ls /pvfs/part/tree

# A transfer that cannot complete: an iod is dead.
mkrand "$T/s20" 20000000
"$B/pvfs-local" kill "$T/fs" iod2 KILL >/dev/null
check_rc "write with a dead iod: exit 1" 1 env PVFS_TIMEOUT=5 pvfs-cp "$T/s20" /pvfs/dead
check_rc "read with a dead iod: exit 1" 1 env PVFS_TIMEOUT=5 pvfs-cp /pvfs/f "$T/dead"
cp "$T/err" "$T/err.dead"
check_grep "the failure names the file" '^pvfs-cp: /pvfs/f: ' cat "$T/err.dead"
start_cluster
check "after restart all is well" sh -c "pvfs-cp '$T/s20' /pvfs/alive && pvfs-cp /pvfs/alive - | cmp - '$T/s20'"

# -r copies FIFOs and device nodes as themselves, both ways (GNU cp -R).
if [ "$(id -u)" = 0 ]; then
	mkdir "$T/sp" && mkfifo -m 0640 "$T/sp/p" && mknod -m 0600 "$T/sp/c" c 1 3 || exit 1
	check "-r: a tree with a FIFO and a device into PVFS" pvfs-cp -r "$T/sp" /pvfs/sp
	check_grep "... the FIFO" '^prw-r----- .* p$' pvfs-ls -l /pvfs/sp
	check_grep "... the device" '^crw------- .* 1, 3 .* c$' pvfs-ls -l /pvfs/sp
	check "-r: and back" pvfs-cp -r /pvfs/sp "$T/sp2"
	check_out "... local types and modes" "character special file 600 1 3
fifo 640 0 0" stat -c '%F %a %t %T' "$T/sp2/c" "$T/sp2/p"
fi
finish
