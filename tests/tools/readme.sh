#!/bin/sh
# readme.sh - the README's examples run as written on a fresh pvfs-local
# file system: every ```sh block after a "<!-- readme-test" mark, in
# order, in one bash -e, in a directory holding big.dat, with /srv/pvfs
# replaced by this test's directory (so lib.sh's trap stops it).
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
README=${PVFS_SRCDIR:-.}/README.md
unset PVFSTAB_FILE

awk '
	/^<!-- readme-test/ { armed = 1 }
	armed && /^```sh$/ { inblk = 1; armed = 0; n++; print "# --- block " n; next }
	inblk && /^```$/ { inblk = 0; next }
	inblk { print }
' "$README" | sed "s|/srv/pvfs|$T/fs|g" >"$T/examples.sh"
check_out "README: marked blocks found" "2" grep -c '^# --- block' "$T/examples.sh"
check_grep "README: the examples use the tools" '^pvfs-cp ' cat "$T/examples.sh"
check_grep "README: the mkdir before the cp into /pvfs/in/" '^pvfs-mkdir /pvfs/in ' cat "$T/examples.sh"

mkdir "$T/work"
mkrand "$T/work/big.dat" 3000000
check "README: the examples run (bash -e)" sh -c "cd '$T/work' && SHELL=/bin/bash bash -e -o pipefail '$T/examples.sh'"
cp "$T/out" "$T/ran"
check_grep "README: the glob in pvfs-local shell expanded" '^/pvfs/in/big\.dat$' cat "$T/ran"
check_grep "README: pvfs-du -sh printed" '^[0-9.]+M	/pvfs/in$' cat "$T/ran"
PVFSTAB_FILE=$T/fs/pvfstab
export PVFSTAB_FILE
pvfs-cp /pvfs/in/big.dat "$T/back" 2>/dev/null
same "README: big.dat came back whole" "$T/work/big.dat" "$T/back"
# Without the mkdir the copy fails as cp's does (the README bug of issue 20).
check_rc "README: cp into a missing directory fails" 1 pvfs-cp "$T/work/big.dat" /pvfs/missing/
finish
