#!/bin/sh
# glob.sh - pvfs-local shell: the user's shell under the preload library
# expands globs on PVFS paths (doc/tools.md), and its errors.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
if [ ! -f "$B/.libs/libpvfs-preload.so" ]; then
	echo "SKIP: the preload library is not built"
	exit 77
fi
start_cluster
pvfs-mkdir /pvfs/trees /pvfs/other
for f in tree1 tree2 treetop apple; do
	: >"$T/e" && pvfs-cp "$T/e" "/pvfs/$f"
done

check_out "no shim: the glob stays as written" "/pvfs/tre*" sh -c 'echo /pvfs/tre*'
for sh in sh bash; do
	command -v $sh >/dev/null || continue
	check_out "$sh: /pvfs/tre* expands" "/pvfs/tree1 /pvfs/tree2 /pvfs/trees /pvfs/treetop" \
		env SHELL="$(command -v $sh)" pvfs-local shell "$T/fs" -c 'echo /pvfs/tre*'
	check_out "$sh: character classes" "/pvfs/tree1 /pvfs/tree2" \
		env SHELL="$(command -v $sh)" pvfs-local shell "$T/fs" -c 'echo /pvfs/tree[0-9]'
done
# dash tells directories by stat("NAME/"), which the shim still answers
# for a file (issue 14); bash reads d_type.
check_out "bash: directories only (*/)" "/pvfs/other/ /pvfs/trees/" \
	env SHELL=/bin/bash pvfs-local shell "$T/fs" -c 'echo /pvfs/*/'

check_out "ls of a glob" "/pvfs/tree1
/pvfs/tree2
/pvfs/trees" env SHELL=/bin/sh pvfs-local shell "$T/fs" -c 'ls -d /pvfs/tree?'
check_out "cd and a relative glob" "apple other" env SHELL=/bin/sh pvfs-local shell "$T/fs" -c 'cd /pvfs && echo [ao]*'
check_out "PVFSTAB_FILE is set" "$T/fs/pvfstab" env -u PVFSTAB_FILE SHELL=/bin/sh pvfs-local shell "$T/fs" -c 'echo $PVFSTAB_FILE'
check_out "no match: as written" "/pvfs/zz*" env SHELL=/bin/sh pvfs-local shell "$T/fs" -c 'echo /pvfs/zz*'
check_out "interactive: the shell reads stdin" "/pvfs/apple" sh -c "echo 'echo /pvfs/app*' | SHELL=/bin/sh pvfs-local shell '$T/fs'"
check_out "the shell's exit status" "3" sh -c "SHELL=/bin/sh pvfs-local shell '$T/fs' -c 'exit 3'; echo \$?"
check_fail "shell: no DIR" 2 "pvfs-local: shell: which DIR?" pvfs-local shell
check_fail "shell: DIR missing" 1 "pvfs-local: $T/nope: no such directory" pvfs-local shell "$T/nope"
mkdir "$T/empty"
check_fail "shell: DIR not started" 1 "pvfs-local: $T/empty: no pvfstab (run pvfs-local start $T/empty first)" pvfs-local shell "$T/empty"
check_fail "shell: shim missing" 1 "pvfs-local: $T/none.so: no such file" env PVFS_PRELOAD_LIB="$T/none.so" pvfs-local shell "$T/fs" -c true
finish
