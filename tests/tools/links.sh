#!/bin/sh
# links.sh - symbolic links in the tools: pvfs-ls -l shows "name -> text"
# (type l, -F's @, GNU ls's colours), pvfs-cp -r and -a copy links as
# links into and out of PVFS, pvfs-rm removes a link and never what it
# leads to, pvfs-chmod -R skips links, pvfs-fsck is not confused by them.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster 2

mkdir -p "$T/src/sub" && printf abc >"$T/src/f" && ln -s f "$T/src/lf" &&
	ln -s sub "$T/src/ldir" && ln -s /nonexistent "$T/src/dang" &&
	ln -s ../f "$T/src/sub/up" || exit 1

check "cp -a of a tree with links into PVFS" pvfs-cp -a "$T/src" /pvfs/t
check_grep "ls -l: type l, size = text length, name -> text" \
	'^lrwxrwxrwx 1 [a-z0-9]+ [a-z0-9]+ +1 .* lf -> f$' pvfs-ls -l /pvfs/t
check_grep "ls -l: a dangling link" '^l.* dang -> /nonexistent$' pvfs-ls -l /pvfs/t
check_grep "ls -lF: the target's mark" '^l.* ldir -> sub/$' pvfs-ls -lF /pvfs/t
check_out "ls -F: @ after a link" "dang@
f
ldir@
lf@
sub/" pvfs-ls -F /pvfs/t
check_grep "ls -l --color: link cyan, target in its own colour" \
	"$(printf 'ldir\033\\[0m -> \033\\[01;34msub')" \
	pvfs-ls -l --color=always /pvfs/t
check_out "ls of a link to a directory lists the directory" "up" \
	pvfs-ls /pvfs/t/ldir
check_grep "ls -l of it shows the link" '^l.* /pvfs/t/ldir -> sub$' \
	pvfs-ls -l /pvfs/t/ldir
check "cp -a back out of PVFS" pvfs-cp -a /pvfs/t "$T/back"
check "the round trip: same tree, links as links (diff -r)" \
	diff -r --no-dereference "$T/src" "$T/back"
check "the round trip: find -printf '%y %l' agrees" sh -c \
	"cd '$T/src' && find . -printf '%y %l %p\n' | sort >'$T/a' &&
	 cd '$T/back' && find . -printf '%y %l %p\n' | sort >'$T/b' &&
	 cmp '$T/a' '$T/b'"
check "cp -r copies a link as a link" sh -c \
	"pvfs-cp -r /pvfs/t/lf '$T/lf2' && [ -L '$T/lf2' ] &&
	 [ \"\$(readlink '$T/lf2')\" = f ]"
check "cp without -r copies what a link leads to" sh -c \
	"pvfs-cp /pvfs/t/lf '$T/lf3' && [ ! -L '$T/lf3' ] &&
	 [ \"\$(cat '$T/lf3')\" = abc ]"
check "cp -L -r follows links" sh -c \
	"pvfs-cp -L -r /pvfs/t/ldir '$T/ldir2' && [ -d '$T/ldir2' ] &&
	 [ ! -L '$T/ldir2' ]"
check "cp -a PVFS -> PVFS keeps links" sh -c \
	"pvfs-cp -a /pvfs/t /pvfs/t2 && pvfs-ls -l /pvfs/t2/sub | grep -q 'up -> ../f\$'"
check "chmod -R skips links" sh -c \
	"pvfs-chmod -R 600 /pvfs/t2 && pvfs-ls -l /pvfs/t2 | grep -q '^-rw------- .* f\$'"
check "rm of a link" pvfs-rm /pvfs/t/lf
check_out "... leaves what it led to" "dang
f
ldir
sub" pvfs-ls /pvfs/t
check "rm -r of a link to a directory" pvfs-rm -r /pvfs/t/ldir
check_out "... leaves the directory and its contents" "up" pvfs-ls /pvfs/t/sub
check "rm of a dangling link" pvfs-rm /pvfs/t/dang
check "fsck: links are no orphans, no missing stripes" sh -c \
	"pvfs-fsck /pvfs >'$T/fsck' 2>&1; rc=\$?; cat '$T/fsck'; [ \$rc -eq 0 ]"
finish
