#!/bin/sh
# layers.sh - the shell tools and the shim see the client API only: no
# file of src/tools or src/preload includes the wire protocol's header
# (src/common/pvfs-proto.h), directly or through another header.  Each is
# preprocessed with the build's include flags and its line markers read.
set -eu
b=${PVFS_BUILDDIR:-.}
s=${PVFS_SRCDIR:-.}
[ -f "$b/config.h" ] || { echo "SKIP: no config.h in $b"; exit 77; }
flags="-include $b/config.h -I$b -I$s/include -I$s/src -I$s/src/common"

# 0 if $1 includes pvfs-proto.h, 1 if not, 2 if it does not preprocess.
sees_proto()
{
	out=$(${CC:-cc} -E $flags "$1") || return 2
	printf '%s\n' "$out" | grep -q '^# *[0-9][0-9]* "[^"]*/pvfs-proto\.h"'
}

pass=0 fail=0
# The check itself: a file that includes the header must be caught.
if sees_proto "$s/src/libpvfs/pvfs-file.c"; then
	pass=$((pass + 1))
else
	echo "FAIL: pvfs-proto.h not seen in src/libpvfs/pvfs-file.c"
	fail=$((fail + 1))
fi
for f in "$s"/src/tools/*.c "$s"/src/preload/*.c; do
	rc=0
	sees_proto "$f" || rc=$?
	case $rc in
	0) echo "FAIL: ${f#"$s"/} includes pvfs-proto.h"; fail=$((fail + 1)) ;;
	1) pass=$((pass + 1)) ;;
	*) echo "FAIL: ${f#"$s"/} does not preprocess"; fail=$((fail + 1)) ;;
	esac
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
