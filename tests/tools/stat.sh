#!/bin/sh
# stat.sh - pvfs-stat: attributes, distribution, and the bytes each iod
# holds, checked against the striping rule (doc/design.md).
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

# base 1, pcount 3, ssize 4096, 6 stripes + 100 bytes: part 0 (iod 1)
# holds stripes 0, 3, 6 = 8292 bytes, parts 1 and 2 (iods 2, 3) 8192 each.
mkrand "$T/f" $((6 * 4096 + 100))
pvfs-cp --base 1 --pcount 3 --ssize 4096 "$T/f" /pvfs/f || exit 1
touch -d '2010-06-07 08:09:10' "$T/f"
chmod 0600 "$T/f"
pvfs-cp -p "$T/f" /pvfs/p || exit 1
pvfs-mkdir /pvfs/d

check "stat a file" pvfs-stat /pvfs/f
cp "$T/out" "$T/f.stat"
check_grep "file name" '^  File: /pvfs/f$' cat "$T/f.stat"
check_grep "size, blocks, IO block = stripe size" '^  Size: 24676 +Blocks: [0-9]+ +IO Block: 4096$' cat "$T/f.stat"
check_grep "inode and links" '^ Inode: [0-9]+ +Links: 1$' cat "$T/f.stat"
check_grep "mode and owner" '^  Mode: 0644 \(-rw-r--r--\)  Uid: 0 \(root\)  Gid: 0 \(root\)$' cat "$T/f.stat"
check_grep "times" '^Modify: [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}\.[0-9]{9} [+-][0-9]{4}$' cat "$T/f.stat"
check_grep "distribution" '^  Dist: base 1  pcount 3  ssize 4096$' cat "$T/f.stat"
check_grep "part 0 on iod 1: 8292 bytes" '^ +0 +1 +127\.0\.0\.1:[0-9]+ +8292 +[0-9]+$' cat "$T/f.stat"
check_grep "part 1 on iod 2: 8192 bytes" '^ +1 +2 +127\.0\.0\.1:[0-9]+ +8192 +[0-9]+$' cat "$T/f.stat"
check_grep "part 2 on iod 3: 8192 bytes" '^ +2 +3 +127\.0\.0\.1:[0-9]+ +8192 +[0-9]+$' cat "$T/f.stat"
check_grep "total = file size" '^ +total +24676 +[0-9]+$' cat "$T/f.stat"
check_out "iod 0 holds nothing of it (pcount 3)" "3" sh -c "grep -cE '^ +[0-9]+ +[0-9]+ +127' '$T/f.stat'"
check_grep "-p: mtime kept" '^Modify: 2010-06-07 08:09:10\.' pvfs-stat /pvfs/p
check_grep "-p: mode kept" '^  Mode: 0600 \(-rw-------\)' pvfs-stat /pvfs/p
check_grep "a directory" '^  Mode: 0755 \(drwxr-xr-x\)' pvfs-stat /pvfs/d
check_out "a directory has no distribution" "" sh -c 'pvfs-stat /pvfs/d | grep Dist; true'
check_out "several operands" "2" sh -c 'pvfs-stat /pvfs/f /pvfs/d | grep -c "^  File: "'
check_fail "missing" 1 "pvfs-stat: /pvfs/nope: No such file or directory" pvfs-stat /pvfs/nope
check_rc "missing among others: exit 1" 1 pvfs-stat /pvfs/nope /pvfs/f
check_fail "no operand" 2 "pvfs-stat: missing operand" pvfs-stat

# A mirrored file (pvfs-cp --mirror): copies and shift, one row per copy of
# each part, each copy's iod and state; an iod down shows as such.
pvfs-cp --mirror --pcount 4 --ssize 4096 "$T/f" /pvfs/m || exit 1
check "stat a mirrored file" pvfs-stat /pvfs/m
cp "$T/out" "$T/m.stat"
check_grep "copies and shift" '^  Dist: base [0-9]  pcount 4  ssize 4096  copies 2  mshift [1-3]$' cat "$T/m.stat"
check_out "8 rows (4 parts x 2 copies), all ok" "8" sh -c "grep -cE '^ +[0-3] +[01] +[0-3] +127\.0\.0\.1:[0-9]+ +[0-9]+ +[0-9]+  ok$' '$T/m.stat'"
check_out "both copies of part 0 hold the same bytes" "1" sh -c "grep -E '^ +0 +[01] ' '$T/m.stat' | awk '{print \$5}' | sort -u | wc -l"
check_out "the copies hold the file twice" "$((2 * (6 * 4096 + 100)))" sh -c "grep -E ' ok$' '$T/m.stat' | awk '{s += \$5} END {print s}'"
check_fail "--mirror above the iods" 1 "pvfs-cp: --mirror=5: the file system has only 4 iods" pvfs-cp --mirror=5 "$T/f" /pvfs/m5
"$B/pvfs-local" kill "$T/fs" iod1 KILL >/dev/null
check "stat with an iod down" pvfs-stat /pvfs/m
cp "$T/out" "$T/down.stat"
check_out "its two copies show down" "2" sh -c "grep -cE '^ +[0-3] +[01] +1 .* down \(' '$T/down.stat'"
check "the mirrored file reads with an iod down" sh -c "pvfs-cp /pvfs/m - | cmp - '$T/f'"
"$B/pvfs-local" start "$T/fs" >/dev/null 2>&1
finish
