#!/bin/bash
# coreutils.sh - unmodified coreutils on /pvfs through libpvfs-preload.so.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"

# Local material: a small tree and some data.
mkdir -p "$L/tree/sub/deeper"
head -c 300000 /dev/urandom >"$L/tree/big.bin"
seq 1 5000 >"$L/tree/sub/nums.txt"
printf 'alpha\nbeta\ngamma\n' >"$L/tree/sub/deeper/words.txt"
: >"$L/tree/empty"
chmod 640 "$L/tree/sub/nums.txt"

t "cp into /pvfs and cat back" 'cp tree/big.bin /pvfs/big && cat /pvfs/big | cmp - tree/big.bin'
t "cp -r a tree, diff -r" 'cp -r tree /pvfs/tree && diff -r tree /pvfs/tree'
t "cp -a keeps mode and mtime" '
	cp -a tree /pvfs/treea
	[ "$(stat -c "%a %Y" tree/sub/nums.txt)" = "$(stat -c "%a %Y" /pvfs/treea/sub/nums.txt)" ]
	diff -r tree /pvfs/treea'
t "cp out of /pvfs" 'cp /pvfs/big out.bin && cmp out.bin tree/big.bin'
t "mv a file inside /pvfs" 'cp tree/empty /pvfs/m1 && mv /pvfs/m1 /pvfs/m2 && [ -e /pvfs/m2 ] && [ ! -e /pvfs/m1 ]'
t "mv a directory inside /pvfs" 'cp -r tree /pvfs/mvd && mv /pvfs/mvd /pvfs/mvd2 && diff -r tree /pvfs/mvd2 && [ ! -e /pvfs/mvd ]'
t "mv between /pvfs and local (EXDEV copy)" '
	cp -r tree /pvfs/x1 && mv /pvfs/x1 moved && diff -r tree moved && [ ! -e /pvfs/x1 ]
	mv moved /pvfs/x2 && diff -r tree /pvfs/x2 && [ ! -e moved ]'
t "rm -r" 'cp -r tree /pvfs/rmme && rm -r /pvfs/rmme && [ ! -e /pvfs/rmme ]'
t "mkdir -p and rmdir" 'mkdir -p /pvfs/p/q/r && [ -d /pvfs/p/q/r ] && rmdir /pvfs/p/q/r /pvfs/p/q /pvfs/p && [ ! -e /pvfs/p ]'
t "rmdir of a non-empty directory fails" '! rmdir /pvfs/tree 2>err && grep -q "not empty" err'
t "ls -l, -a, -R" '
	grep -q "big.bin" <(ls -l /pvfs/tree)
	grep -qx "\.\." <(ls -a /pvfs/tree)
	[ "$(cd tree && ls -R)" = "$(cd /pvfs/tree && ls -R)" ]'
t "stat" '[ "$(stat -c "%s %F %a" /pvfs/tree/sub/nums.txt)" = "$(stat -c "%s %F %a" tree/sub/nums.txt)" ]'
t "touch creates and sets times" '
	touch /pvfs/touched && [ -f /pvfs/touched ]
	touch -d "2001-02-03 04:05:06" /pvfs/touched
	[ "$(date -r /pvfs/touched +%Y%m%d%H%M%S)" = 20010203040506 ]'
t "truncate grows and shrinks" '
	truncate -s 1M /pvfs/tr && [ "$(stat -c %s /pvfs/tr)" = 1048576 ]
	truncate -s 100 /pvfs/tr && [ "$(stat -c %s /pvfs/tr)" = 100 ]
	[ "$(tr -d "\0" </pvfs/tr | wc -c)" = 0 ]'
t "dd of= conv=fsync, skip and seek" '
	dd if=tree/big.bin of=/pvfs/dd bs=64k conv=fsync status=none && cmp /pvfs/dd tree/big.bin
	dd if=/pvfs/dd of=part bs=1000 skip=7 count=3 status=none
	cmp part <(tail -c +7001 tree/big.bin | head -c 3000)
	dd if=part of=/pvfs/dd bs=1000 seek=1 conv=notrunc status=none
	[ "$(stat -c %s /pvfs/dd)" = 300000 ]
	cmp <(head -c 1000 /pvfs/dd) <(head -c 1000 tree/big.bin)'
t "head and tail" '
	[ "$(head -n 3 /pvfs/tree/sub/nums.txt | tr "\n" " ")" = "1 2 3 " ]
	[ "$(tail -n 2 /pvfs/tree/sub/nums.txt | tr "\n" " ")" = "4999 5000 " ]
	[ "$(tail -c 5 /pvfs/tree/sub/nums.txt)" = 5000 ]
	head -c 1234 /pvfs/big | cmp - <(head -c 1234 tree/big.bin)'
t "wc" '[ "$(wc -l </pvfs/tree/sub/nums.txt)" = 5000 ] && [ "$(wc -c </pvfs/big)" = 300000 ]'
t "sha256sum" '[ "$(sha256sum </pvfs/big)" = "$(sha256sum <tree/big.bin)" ] && sha256sum /pvfs/big | grep -q "/pvfs/big"'
t "du" '[ "$(du -sb /pvfs/tree | cut -f1)" -ge 300000 ] && grep -q words.txt <(du -a /pvfs/tree) && grep -q "^[0-9]" <(du -s /pvfs/tree)'
t "find with -name and -exec" '
	[ "$(cd tree && find . | sort)" = "$(cd /pvfs/tree && find . | sort)" ]
	[ "$(find /pvfs/tree -name "*.txt" -exec cat {} + | wc -l)" = 5003 ]'
t "sort -o" 'seq 100 -1 1 >/pvfs/unsorted && sort -n -o /pvfs/sorted /pvfs/unsorted && cmp /pvfs/sorted <(seq 1 100)'
t "sed -i" 'cp tree/sub/deeper/words.txt /pvfs/w && sed -i "s/beta/BETA/" /pvfs/w && grep -qx BETA /pvfs/w && [ "$(wc -l </pvfs/w)" = 3 ]'
t "install -m" 'install -m 755 tree/sub/nums.txt /pvfs/inst && [ "$(stat -c %a /pvfs/inst)" = 755 ] && cmp /pvfs/inst tree/sub/nums.txt'
t "install -d" 'install -d /pvfs/idir/x && [ -d /pvfs/idir/x ]'
t "chmod and chown" 'chmod 600 /pvfs/inst && [ "$(stat -c %a /pvfs/inst)" = 600 ] && chown 12:34 /pvfs/inst && [ "$(stat -c %u:%g /pvfs/inst)" = 12:34 ]'
t "ln fails cleanly" '
	! ln /pvfs/big /pvfs/hard 2>err1 && grep -q "ln:" err1 && [ ! -e /pvfs/hard ]
	! ln /pvfs/big hard2 2>/dev/null
	! readlink /pvfs/big'
# Symbolic links behave as in a local directory: the same tree made both
# ways, compared with find -printf (type, text), ls -l, cp -a and tar.
mkdir -p "$L/ltree/d/e" && echo data >"$L/ltree/f" && ln -s f "$L/ltree/lf" &&
	ln -s d "$L/ltree/ld" && ln -s ../f "$L/ltree/d/up" &&
	ln -s /nonexistent "$L/ltree/dang" && ln -s . "$L/ltree/self"
t "ln -s, readlink, ls -l, cat through a link" '
	mkdir /pvfs/lk && cd /pvfs/lk && echo data >f && ln -s f lf && mkdir -p d/e &&
	ln -s d ld && ln -s ../f d/up && ln -s /nonexistent dang && ln -s . self &&
	[ "$(readlink lf)" = f ] && [ "$(cat ld/up)" = data ] &&
	ls -l | grep -q "lf -> f\$" && [ -L ld ] && [ -d ld ] && [ ! -e dang ] &&
	[ "$(cd "$L/ltree" && find . -printf "%y %l %p\n" | sort)" = \
	  "$(find . -printf "%y %l %p\n" | sort)" ] &&
	[ "$(readlink -f self/ld/up)" = /pvfs/lk/f ]'
t "cp -a of a tree with links in and out, diff -r" '
	cp -a ltree /pvfs/lcp && cp -a /pvfs/lcp lback &&
	diff -r --no-dereference ltree /pvfs/lcp && diff -r --no-dereference ltree lback &&
	[ "$(cd ltree && find . -printf "%y %l %p\n" | sort)" = \
	  "$(cd lback && find . -printf "%y %l %p\n" | sort)" ]'
t "tar of a tree with links, both ways" '
	tar -C ltree -cf lt.tar . && mkdir /pvfs/ltar && tar -C /pvfs/ltar -xf lt.tar &&
	tar -C /pvfs/ltar -cf lt2.tar . && mkdir ltar2 && tar -C ltar2 -xf lt2.tar &&
	diff -r --no-dereference ltree /pvfs/ltar && diff -r --no-dereference ltree ltar2'
t "a link out of /pvfs is followed locally" '
	ln -s "$L/ltree/f" /pvfs/lhost && [ "$(cat /pvfs/lhost)" = data ] &&
	ln -s "$L/ltree" /pvfs/lout && [ "$(cat /pvfs/lout/d/up)" = data ] &&
	rm /pvfs/lhost /pvfs/lout && [ -f "$L/ltree/f" ] && [ -d "$L/ltree" ]'
t "rm of a file, then it is gone" 'cp tree/empty /pvfs/gone && rm /pvfs/gone && ! ls /pvfs/gone 2>/dev/null'
t "df on /pvfs" 'df /pvfs | tail -n 1 | grep -q "/pvfs\|[0-9]"'
t "paths outside /pvfs are untouched" '
	[ "$(ls -la /proc/self/fd/ | wc -l)" -gt 0 ]
	echo local >loc.txt && cat loc.txt | grep -qx local && cp -r tree tree2 && diff -r tree tree2
	[ "$(stat -c %s tree/big.bin)" = 300000 ]
	! ls /pvfsnot 2>/dev/null'
finish
