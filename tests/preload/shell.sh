#!/bin/bash
# shell.sh - a preloaded shell on /pvfs: cd, redirections, pipes, and
# children inheriting open PVFS files and the PVFS working directory
# across fork and exec.
. "${PVFS_SRCDIR:-$(dirname "$0")/../..}/tests/preload/lib.sh"

pv mkdir -p /pvfs/dir/sub
pv cp /etc/hostname /pvfs/dir/host 2>/dev/null || echo host | pv tee /pvfs/dir/host >/dev/null

t "cd /pvfs/dir && ls" '[ "$(cd /pvfs/dir && ls | tr "\n" " ")" = "host sub " ]'
t "pwd, pwd -P and /bin/pwd in /pvfs" 'cd /pvfs/dir/sub && [ "$(pwd)" = /pvfs/dir/sub ] && [ "$(pwd -P)" = /pvfs/dir/sub ] && [ "$(/bin/pwd)" = /pvfs/dir/sub ]'
t "echo x > /pvfs/f" 'echo x >/pvfs/f && [ "$(cat /pvfs/f)" = x ]'
t "{ echo a; /bin/echo b; } >> /pvfs/f" '
	echo start >/pvfs/g
	{ echo a; /bin/echo b; } >>/pvfs/g
	[ "$(cat /pvfs/g | tr "\n" " ")" = "start a b " ]'
t "cat < /pvfs/f | wc -c" 'seq 1 1000 >/pvfs/n && [ "$(cat </pvfs/n | wc -c)" = 3893 ]'
t "cmd 2> /pvfs/log" 'ls /nonexistent 2>/pvfs/log || true; grep -q nonexistent /pvfs/log'
t "builtin and external output interleave in order" '
	{ echo 1; /bin/echo 2; printf "3\n"; sh -c "echo 4"; echo 5; } >/pvfs/order
	[ "$(tr "\n" " " </pvfs/order)" = "1 2 3 4 5 " ]'
t "relative paths in a PVFS cwd" '
	cd /pvfs/dir && echo rel >rel.txt && [ "$(cat rel.txt)" = rel ] && [ "$(cat /pvfs/dir/rel.txt)" = rel ]
	[ "$(cat ./sub/../rel.txt)" = rel ] && grep -qx dir <(ls ..)
	mkdir reldir && [ -d /pvfs/dir/reldir ] && rmdir reldir'
t "children inherit the PVFS cwd" '
	cd /pvfs/dir/sub
	[ "$(sh -c pwd)" = /pvfs/dir/sub ]
	[ "$(env -u PVFS_PRELOAD_CWD /bin/pwd)" = /pvfs/dir/sub ]
	[ "$(python3 -c "import os; print(os.getcwd())")" = /pvfs/dir/sub ]
	echo hi >child.txt && sh -c "cat child.txt" | grep -qx hi'
t "cd back to a local directory" 'cd /pvfs/dir && cd "$L" && [ "$(pwd)" = "$L" ] && echo l >lf && [ -f "$L/lf" ] && [ ! -e /pvfs/dir/lf ]'
t "a PVFS descriptor kept open across exec (exec 3>)" '
	exec 3>/pvfs/fd3
	echo a >&3
	sh -c "echo b >&3"
	/bin/echo c >&3
	exec 3>&-
	[ "$(tr "\n" " " </pvfs/fd3)" = "a b c " ]'
t "shared offset between parent and child" '
	seq 1 10 >/pvfs/seq
	exec 4</pvfs/seq
	read -r x <&4; sh -c "read -r y; echo \$y" <&4 >/pvfs/got; read -r z <&4
	exec 4<&-
	[ "$x $(cat /pvfs/got) $z" = "1 2 3" ]'
t "while read < /pvfs file" 'seq 1 50 >/pvfs/w; s=0; while read -r i; do s=$((s+i)); done </pvfs/w; [ $s = 1275 ]'
t "here-document into /pvfs" 'cat >/pvfs/here <<X
one
two
X
[ "$(wc -l </pvfs/here)" = 2 ]'
t "stdin of a child is a PVFS file" 'seq 1 3 >/pvfs/in && [ "$(sh -c "wc -l" </pvfs/in)" = 3 ] && [ "$(python3 -c "import sys; print(len(sys.stdin.read()))" </pvfs/in)" = 6 ]'
t "stdout and stderr of a child to PVFS files" '
	python3 -c "import sys; print(\"out\"); print(\"err\", file=sys.stderr)" >/pvfs/o 2>/pvfs/e
	[ "$(cat /pvfs/o)" = out ] && [ "$(cat /pvfs/e)" = err ]'
t "2>&1 into one PVFS file" 'sh -c "echo o; echo e >&2" >/pvfs/both 2>&1 && [ "$(sort /pvfs/both | tr "\n" " ")" = "e o " ]'
t "glob in a PVFS directory" 'cd /pvfs/dir && touch g1.c g2.c && [ "$(echo *.c)" = "g1.c g2.c" ] && [ "$(echo /pvfs/dir/*.c)" = "/pvfs/dir/g1.c /pvfs/dir/g2.c" ]'
t "system() and popen in a PVFS cwd" 'cd /pvfs/dir && [ "$(python3 -c "import os; print(os.popen(\"pwd\").read().strip())")" = /pvfs/dir ]'
t "cd into a file or a missing directory fails" '! cd /pvfs/f 2>/dev/null && ! cd /pvfs/missing 2>/dev/null'
t "a program that never touches /pvfs" 'for i in 1 2 3; do /bin/true; done && [ "$(echo hi | tr a-z A-Z)" = HI ]'
finish
