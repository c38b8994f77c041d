#!/bin/bash
# build.sh - make + gcc compile a small C project that lives on /pvfs
# (the PVFS-PM paper's test), then run the program from /pvfs.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"
command -v make >/dev/null && command -v gcc >/dev/null ||
	{ echo "SKIP: needs make and gcc"; exit 77; }

mkdir -p "$L/proj/include"
cat >"$L/proj/include/sum.h" <<'C'
int sum(int n);
C
cat >"$L/proj/sum.c" <<'C'
#include "sum.h"
int sum(int n) { int s = 0; for (int i = 1; i <= n; i++) s += i; return s; }
C
cat >"$L/proj/main.c" <<'C'
#include <stdio.h>
#include "sum.h"
int main(void) { printf("%d\n", sum(100)); return 0; }
C
cat >"$L/proj/Makefile" <<'M'
CFLAGS = -O2 -Iinclude
prog: main.o sum.o
	$(CC) -o $@ main.o sum.o
main.o sum.o: include/sum.h
clean:
	rm -f prog *.o
M

t "copy the project onto /pvfs" 'cp -r proj /pvfs/proj && diff -r proj /pvfs/proj'
t "make builds it on /pvfs" 'cd /pvfs/proj && make >make.log 2>&1 && [ -f prog ] && [ -f main.o ] && [ -f sum.o ]'
t "the program runs from /pvfs" '[ "$(/pvfs/proj/prog)" = 5050 ] && cd /pvfs/proj && [ "$(./prog)" = 5050 ]'
t "the built objects equal a local build" 'make -C proj >/dev/null 2>&1 && cmp proj/main.o /pvfs/proj/main.o && cmp proj/sum.o /pvfs/proj/sum.o'
t "make again: nothing to do" 'cd /pvfs/proj && make >again.log 2>&1; cat again.log; ls -l --time-style=full-iso prog *.o include; grep -q "is up to date" again.log'
t "a touched header rebuilds both objects" '
	cd /pvfs/proj && sleep 1 && touch include/sum.h && make >log2 2>&1
	grep -q "main.c" log2 && grep -q "sum.c" log2 && [ "$(./prog)" = 5050 ]'
t "make -C from outside and make clean" 'make -C /pvfs/proj clean >/dev/null && [ ! -e /pvfs/proj/prog ] && make -C /pvfs/proj >/dev/null 2>&1 && [ -x /pvfs/proj/prog ]'
t "gcc -o straight onto /pvfs" 'gcc -Iproj/include -o /pvfs/prog2 proj/main.c proj/sum.c && [ "$(/pvfs/prog2)" = 5050 ]'
cat >"$L/dup2.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
/* Buffered stdout text follows descriptor 1 through dup2, as in libc. */
int main(int argc, char **argv)
{
	int fd;

	printf("hello");
	if ((fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1 ||
	    dup2(fd, 1) != 1)
		return 1;
	printf(" world\n");
	return argc != 2;
}
C
t "dup2 onto stdout does not flush the program's buffer" 'gcc -o dup2 dup2.c && ./dup2 "$L/d.out" | cat && [ "$(cat d.out)" = "hello world" ]'
finish
