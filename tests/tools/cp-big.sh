#!/bin/sh
# cp-big.sh - a multi-GiB sparse file (4 GiB + an odd tail, data near 2^31
# and 2^32 and at the very end) round trips local -> PVFS -> local with
# equal checksums, stays sparse on the iods and locally, and keeps its size.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

size=$((4 * 1024 * 1024 * 1024 + 12345))
f="$T/sparse"
truncate -s "$size" "$f"
mkrand "$T/chunk" 16384
for off in 0 $((2147483648 - 5000)) $((4294967296 - 4096)) $((size - 16384)); do
	dd if="$T/chunk" of="$f" bs=16384 seek="$off" oflag=seek_bytes conv=notrunc \
		status=none || exit 1
done
check_out "the test file has its size" "$size" stat -c %s "$f"

check_quiet "local -> pvfs" pvfs-cp "$f" /pvfs/big
check_out "size on pvfs" "$size" sh -c 'pvfs-stat /pvfs/big | sed -n "s/^  Size: \([0-9]*\).*/\1/p"'
check "sparse on the iods (under 64 MiB allocated)" sh -c \
	'test "$(pvfs-stat /pvfs/big | awk "\$1 == \"total\" {print \$3}")" -lt 67108864'
check_quiet "pvfs -> local" pvfs-cp /pvfs/big "$T/back"
check_out "size back" "$size" stat -c %s "$T/back"
check "sparse locally (under 64 MiB allocated)" test "$(du -k "$T/back" | cut -f1)" -lt 65536
same "checksums match" "$f" "$T/back"
finish
