#!/bin/sh
# url.sh - pvfs://host:port/path works wherever a path does, shares the
# file system with the pvfstab spelling, and needs no pvfstab at all.
# Without a pvfstab entry there is no Unix socket, so the client comes over
# TCP unauthenticated: the mgr trusts such clients here (doc/security.md),
# as it did before authentication, to keep root's view of the tree.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster 4 --anonymous trust
mkrand "$T/f" 777777

check_quiet "cp local -> URL" pvfs-cp "$T/f" "$URL/f"
check "the same file under the prefix" sh -c "pvfs-cp /pvfs/f - | cmp - '$T/f'"
check_quiet "cp URL -> local" pvfs-cp "$URL/f" "$T/back"
same "URL round trip" "$T/f" "$T/back"
check_quiet "mkdir -p URL" pvfs-mkdir -p "$URL/a/b"
check_out "ls URL" "a
f" pvfs-ls "$URL/"
check_out "ls URL without a path: the root" "a
f" pvfs-ls "$URL"
check_grep "ls -l URL" '^-rw-r--r-- 1 root root 777777 .* f$' pvfs-ls -l "$URL/"
check_grep "stat URL" '^  Size: 777777 ' pvfs-stat "$URL/f"
check_quiet "mv between the two spellings (one file system: rename)" pvfs-mv "$URL/f" /pvfs/a/b/f
check_out "moved" "f" pvfs-ls "$URL/a/b"
check_quiet "cp -r URL -> local" pvfs-cp -r "$URL/a" "$T/a"
check "cp -r URL: tree intact" cmp "$T/a/b/f" "$T/f"
check_quiet "chmod URL" pvfs-chmod 600 "$URL/a/b/f"
check_grep "chmod seen under the prefix" '^-rw------- ' pvfs-ls -l /pvfs/a/b/f
check_quiet "truncate URL" pvfs-truncate -s 10 "$URL/a/b/f"
check_grep "truncate seen" '^  Size: 10 ' pvfs-stat /pvfs/a/b/f
check_quiet "rm -r URL" pvfs-rm -r "$URL/a"
check_out "rm seen" "" pvfs-ls /pvfs
check_fail "rm -r of the URL root refused" 1 \
	"pvfs-rm: $URL/: refusing to remove the root of a file system" pvfs-rm -r "$URL/"

# No pvfstab at all: the URL alone names the file system.
check_quiet "no pvfstab: cp in" env PVFSTAB_FILE=/nonexistent pvfs-cp "$T/f" "$URL/g"
check_out "no pvfstab: ls" "g" env PVFSTAB_FILE=/nonexistent pvfs-ls "$URL/"
check "no pvfstab: cp out" sh -c "PVFSTAB_FILE=/nonexistent pvfs-cp '$URL/g' - | cmp - '$T/f'"
check_grep "no pvfstab: df" '^  iod 3 ' env PVFSTAB_FILE=/nonexistent pvfs-df "$URL/"
check_fail "no pvfstab: a prefix path is neither local nor PVFS" 1 \
	"pvfs-ls: /pvfs: no pvfstab (tried /nonexistent from \$PVFSTAB_FILE), so it is unknown whether this is a PVFS path; set PVFSTAB_FILE or give a pvfs:// URL" \
	env PVFSTAB_FILE=/nonexistent pvfs-ls /pvfs
check_fail "URL with no mgr there" 1 "pvfs-ls: pvfs://127.0.0.1:1/: Connection refused" pvfs-ls pvfs://127.0.0.1:1/
check_fail "URL with no host" 1 "pvfs-ls: pvfs:///x: No such file or directory" pvfs-ls pvfs:///x
check_fail "URL with a bad port" 1 "pvfs-ls: pvfs://127.0.0.1:99999/: No such file or directory" pvfs-ls pvfs://127.0.0.1:99999/
check_fail "URL: missing file" 1 "pvfs-stat: $URL/nope: No such file or directory" pvfs-stat "$URL/nope"
finish
