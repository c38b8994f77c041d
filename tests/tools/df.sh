#!/bin/sh
# df.sh - pvfs-df: a host disk shared by every iod counted once (beside GNU
# df on that disk), Used = what the iods hold for files (= pvfs-du), -i
# with the mgr's inodes as a total and its free part, -h, and the usage
# errors.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

# pvfs-local puts every iod's data directory on the disk of $T.
disk_kb=$(df -P -k "$T" | awk 'NR == 2 {print $2}')
check "df" pvfs-df
cp "$T/out" "$T/df"
check_out "df: size = the one host disk's (GNU df), not 4 times it" "$disk_kb" \
	awk '/^127/ {print $2}' "$T/df"
check_out "df: iods 1-3 share iod 0's disk" "3" sh -c "grep -c ' (disk of iod 0)$' '$T/df'"
check_grep "df: iod 0 names no other disk" '^  iod 0 .*% $' cat "$T/df"
check_out "df: empty file system, Used 0" "0" awk '/^127/ {print $3}' "$T/df"

# Used is the bytes the iods allocate to stripe files: pvfs-du's figure.
mkrand "$T/r" 1000000
pvfs-mkdir /pvfs/d
pvfs-cp "$T/r" /pvfs/d/f1 && pvfs-cp "$T/r" /pvfs/f2
sleep 1.2 # the iods keep their scan for up to a second
check "df after writing 2 MB" pvfs-df
cp "$T/out" "$T/df"
used=$(awk '/^127/ {print $3}' "$T/df")
check "df: Used >= the 1953 KB written" test "$used" -ge 1953
check_out "df: Used = pvfs-du -s" "$used" sh -c "pvfs-du -s /pvfs | cut -f1"
check "df: Used = sum of the iods' Used" sh -c "awk '/^127/ {t=\$3} /^  iod/ {s+=\$5} END {exit t != s}' '$T/df'"
check "df: Use% is the host disk's (GNU df's, within 1)" sh -c \
	"a=\$(awk '/^127/ {sub(/%/, \"\", \$5); print \$5}' '$T/df'); b=\$(df -P '$T' | awk 'NR == 2 {sub(/%/, \"\", \$5); print \$5}'); [ \$((a - b)) -le 1 ] && [ \$((b - a)) -le 1 ]"

check "df -i" pvfs-df -i
cp "$T/out" "$T/dfi"
check_grep "df -i: header" '^Filesystem +Inodes +IUsed +IFree +IUse% Mounted on$' cat "$T/dfi"
# Inodes in use: /, /pvfs/d, f1, f2.
check_out "df -i: IUsed = the mgr's inodes in use" "4" awk '/^127/ {print $3}' "$T/dfi"
check "df -i: Inodes = IUsed + IFree" awk '/^127/ {exit $2 != $3 + $4}' "$T/dfi"
check_out "df -i: each iod holds 2 stripe files" "2 2 2 2" sh -c "awk '/^  iod/ {printf \"%s%s\", s, \$5; s=\" \"}' '$T/dfi'"
check_out "df -i: an iod's Inodes are its host disk's (GNU df -i)" \
	"$(df -P -i "$T" | awk 'NR == 2 {print $2}')" awk '/^  iod 0/ {print $4}' "$T/dfi"
check_grep "df -i -h" '^127\.0\.0\.1:[0-9]+ +[0-9.]+[KMGTP] +4 ' pvfs-df -i -h
check_grep "df --inodes" '^Filesystem +Inodes' pvfs-df --inodes
check_grep "df --human-readable" '^Filesystem +Size' pvfs-df --human-readable
check_grep "df -hi" '^Filesystem +Inodes' pvfs-df -hi
check_grep "df /pvfs" ' /pvfs$' pvfs-df /pvfs
check_out "df: two PATHs, two totals" "2" sh -c "pvfs-df /pvfs '$URL/' | grep -c '^127'"
check_fail "df: bad option" 2 "pvfs-df: invalid option -- 'x'" pvfs-df -x
check_fail "df: bad long option" 2 "pvfs-df: unrecognized option '--bogus'" pvfs-df --bogus
check_grep "df --help" '^  -i, --inodes' pvfs-df --help
check_grep "df --version" '^pvfs-df \(PVFS\) ' pvfs-df --version

# statfs through the library (the shim's df) counts the disk once too.
SHIM=$B/.libs/libpvfs-preload.so
if [ -f "$SHIM" ]; then
	check_out "statfs: one host disk (df under the shim)" "$disk_kb" \
		sh -c "LD_PRELOAD='$SHIM' df -P -k /pvfs | awk 'NR == 2 {print \$2}'"
	check_out "statfs: f_files - f_ffree = inodes in use (df -i)" "4" \
		sh -c "LD_PRELOAD='$SHIM' df -P -i /pvfs | awk 'NR == 2 {print \$3}'"
fi
finish
