#!/bin/sh
# programs.sh - unmodified programs through the mount, as the shim's tests
# run them through LD_PRELOAD: make + gcc build a project that lives on
# the mount and run it from there; fio with the psync and the mmap
# engines and verify=crc32c; the random-operation checker against a local
# shadow file.
. "${PVFS_SRCDIR:-.}/tests/fuse/lib.sh"
S=${PVFS_SRCDIR:-.}
start_cluster 4
M=$T/mnt
check "mount" fz_mount "$M"

if command -v make >/dev/null && command -v gcc >/dev/null; then
	mkdir -p "$T/proj/include"
	printf 'int sum(int n);\n' >"$T/proj/include/sum.h"
	printf '#include "sum.h"\nint sum(int n) { int s = 0; for (int i = 1; i <= n; i++) s += i; return s; }\n' >"$T/proj/sum.c"
	printf '#include <stdio.h>\n#include "sum.h"\nint main(void) { printf("%%d\\n", sum(100)); return 0; }\n' >"$T/proj/main.c"
	printf 'CFLAGS = -O2 -Iinclude\nprog: main.o sum.o\n\t$(CC) -o $@ main.o sum.o\nmain.o sum.o: include/sum.h\n' >"$T/proj/Makefile"
	check "copy a C project onto the mount" cp -r "$T/proj" "$M/proj"
	check "make builds it there" make -C "$M/proj"
	check_out "the program runs from the mount" "5050" "$M/proj/prog"
	check "its objects equal a local build" sh -c \
		"make -C '$T/proj' >/dev/null 2>&1 && cmp '$T/proj/main.o' '$M/proj/main.o' && cmp '$T/proj/sum.o' '$M/proj/sum.o'"
	check_grep "make again: nothing to do" "is up to date" make -C "$M/proj"
else
	echo "# skipped: no make or gcc"
fi

if command -v fio >/dev/null; then
	for engine in psync mmap; do
		check "fio $engine: random writes of mixed sizes, verify=crc32c" \
			fio --name=$engine --filename="$M/fio.$engine" --ioengine=$engine \
			--rw=randwrite --bsrange=512-128k --size=4M --verify=crc32c \
			--do_verify=1 --verify_fatal=1 --verify_state_save=0 \
			--output-format=terse --minimal
		check_out "fio $engine: the file read natively has the size" "4194304" \
			sh -c "pvfs-cp /pvfs/fio.$engine - | wc -c"
	done
else
	echo "# skipped: no fio"
fi

seed=$(( $(date +%s) % 100000 ))
check "random operations against a shadow file (seed $seed, 5000 ops)" \
	python3 "$S/tests/preload/random-check.py" "$M/rand" "$T/shadow" 5000 "$seed"
check "the file read natively equals the shadow" sh -c \
	"pvfs-cp /pvfs/rand - | cmp - '$T/shadow'"
check "unmount" fz_umount "$M"
finish
