#!/bin/sh
# ls-opts.sh - pvfs-ls beside GNU ls: the same tree (names, sizes, modes,
# mtimes) is made locally and copied into PVFS with pvfs-cp -rp, and both
# listings must be the same for -1 -t -S -r -a -A -R -F -d -l -n -h, the
# column layout (-C -w, COLUMNS, a terminal of known width through
# script(1)) and --color; then what GNU ls cannot show: -i, --dist's header.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster
LC_ALL=C
TZ=UTC
export LC_ALL TZ
unset LS_COLORS COLORTERM TABSIZE COLUMNS

# The tree: files of distinct and equal sizes and times, dot files, an
# executable, setuid and sticky modes, subdirectories.
L=$T/L
mkdir -p "$L/sub/deep" "$L/.hdir" "$L/Zdir" "$L/S" "$L/tmpd"
i=0
for n in alpha Beta gamma .dot delta_long_name_here e1 e10 e2 x.sh Zeta mu nu \
    a_rather_long_file_name_for_columns b c d; do
	i=$((i + 1))
	head -c $((i * 37 % 200 + 5)) /dev/zero >"$L/$n"
	touch -d "2023-0$((i % 9 + 1))-0$((i % 7 + 1)) 10:00:0$((i % 3))" "$L/$n"
done
chmod 755 "$L/x.sh" "$L/gamma"
chmod 4755 "$L/e10"
chmod 1777 "$L/tmpd"
for n in s1 s2 s3 s4; do
	head -c 100 /dev/zero >"$L/S/$n"
done
head -c 3000 /dev/zero >"$L/S/big"
head -c 7 /dev/zero >"$L/S/small"
head -c 1048583 /dev/zero >"$L/S/mega"
touch -d '2023-05-05 10:00' "$L/S/s1" "$L/S/s2"
touch -d '2023-05-06 10:00' "$L/S/s3" "$L/S/big" "$L/S/mega"
touch -d '2020-01-01 00:00' "$L/S/s4" "$L/S/small"
echo x >"$L/sub/f"
touch -d '2022-01-01' "$L/sub/f" "$L/sub/deep" "$L/sub" "$L/Zdir" "$L/.hdir" \
	"$L/S" "$L/tmpd"
touch -d '2021-01-01' "$L"
pvfs-cp -rp "$L" /pvfs/L || exit 1

# like NAME DIR OPTION...: GNU ls on ./DIR in $L and pvfs-ls on /pvfs/L/DIR
# print the same (stdout and stderr; /pvfs/L shown as .).  The "total"
# line of -l differs (the iods' blocks are not the local disk's), so
# lines starting "total " are left out.
like() {
	n=$1 d=$2
	shift 2
	(cd "$L" && ls "$@" "$d") 2>&1 | grep -v '^total ' >"$T/gnu"
	pvfs-ls "$@" "/pvfs/L${d#.}" 2>&1 | grep -v '^total ' |
		sed 's|/pvfs/L|.|g; s|^pvfs-ls:|ls:|' >"$T/ours"
	if cmp -s "$T/gnu" "$T/ours"; then
		ok "$n"
	else
		diff "$T/gnu" "$T/ours" | sed 's/^/#   /' | head -20
		not_ok "$n"
	fi
}

like "by name, byte order in the C locale" .
like "-1" . -1
like "-t: newest first, ties by name" . -1 -t
like "-t on files only" ./S -t
like "-S: largest first, ties by name" ./S -S
like "-r: reversed name order" . -r
like "-tr" . -t -r
like "-Sr: ties reversed too" ./S -Sr
like "-a: . .. and dot files" . -a
like "-A: dot files, not . .." . -A
like "-aA: the last wins" . -a -A
like "-Aa: the last wins" . -A -a
like "-R" . -R
like "-RA -t" . -RAt
like "-F: / * marks" . -F
like "-d" . -d
like "-dF" . -dF
like "-l on files (after the total line)" ./S -l --color=never
like "-n" ./S -n
like "-lh: GNU's rounding up" ./S -lh
like "-lt" ./S -lt
like "-lS -r" ./S -lSr
like "-1 after -l: still long (GNU)" ./S -l -1
like "-l after -1: long" ./S -1 -l
like "-C after -l: columns" ./S -l -C -w 40

# Several operands: files first (sorted as asked), then directories.
(cd "$L" && ls -1t ./S/s4 ./S/big ./S/s1 ./sub ./Zdir) >"$T/gnu" 2>&1
pvfs-ls -1t /pvfs/L/S/s4 /pvfs/L/S/big /pvfs/L/S/s1 /pvfs/L/sub /pvfs/L/Zdir 2>&1 |
	sed 's|/pvfs/L|.|g' >"$T/ours"
check "operands sorted with -t" cmp "$T/gnu" "$T/ours"
(cd "$L" && ls -1S ./S/s4 ./S/big ./S/small) >"$T/gnu"
pvfs-ls -1S /pvfs/L/S/s4 /pvfs/L/S/big /pvfs/L/S/small | sed 's|/pvfs/L|.|g' >"$T/ours"
check "operands sorted with -S" cmp "$T/gnu" "$T/ours"

# Columns: GNU's layout, tabs included, for several widths.
for w in 1 20 33 40 60 80 132 0; do
	like "-C -w $w" . -C -w "$w"
	like "-CF -w $w" . -CF -w "$w"
done
like "-C -A -w 50" . -CA -w 50
like "-C -R -w 40" . -CR -w 40
(cd "$L" && COLUMNS=44 ls -C) >"$T/gnu"
COLUMNS=44 pvfs-ls -C /pvfs/L >"$T/ours"
check "-C takes the width from COLUMNS" cmp "$T/gnu" "$T/ours"
(cd "$L" && TABSIZE=0 ls -C -w 60) >"$T/gnu"
TABSIZE=0 pvfs-ls -C -w 60 /pvfs/L >"$T/ours"
check "TABSIZE=0: spaces only" cmp "$T/gnu" "$T/ours"
check_err "COLUMNS not a number: a warning, exit 0" 0 \
	"pvfs-ls: ignoring invalid width in environment variable COLUMNS: 'wide'" \
	env COLUMNS=wide pvfs-ls -C /pvfs/L
check_quiet "... not looked at for one per line (GNU neither)" \
	sh -c 'COLUMNS=wide pvfs-ls /pvfs/L >/dev/null'
check_quiet "... nor with -w" sh -c 'COLUMNS=wide pvfs-ls -C -w 40 /pvfs/L >/dev/null'
check_err "TABSIZE not a number: a warning, exit 0" 0 \
	"pvfs-ls: ignoring invalid tab size in environment variable TABSIZE: 'x'" \
	env TABSIZE=x pvfs-ls -C /pvfs/L
(cd "$L" && TABSIZE=4 ls -C -w 70) >"$T/gnu"
TABSIZE=4 pvfs-ls -C -w 70 /pvfs/L >"$T/ours"
check "TABSIZE=4" cmp "$T/gnu" "$T/ours"
check_out "piped: one name per line" "S
Zdir
sub" sh -c 'pvfs-ls /pvfs/L | grep -x -e S -e Zdir -e sub'

# A terminal: columns by default, as wide as the terminal (not COLUMNS).
if command -v script >/dev/null 2>&1; then
	for w in 50 100; do
		(cd "$L" && script -qec "stty cols $w; COLUMNS=30 ls" /dev/null) >"$T/gnu" 2>&1
		script -qec "stty cols $w; COLUMNS=30 pvfs-ls /pvfs/L" /dev/null >"$T/ours" 2>&1
		check "a terminal $w wide: columns" cmp "$T/gnu" "$T/ours"
	done
	(cd "$L" && TERM=xterm script -qec "stty cols 80; ls --color=auto -F" /dev/null) >"$T/gnu" 2>&1
	TERM=xterm script -qec "stty cols 80; pvfs-ls --color=auto -F /pvfs/L" /dev/null >"$T/ours" 2>&1
	check "a terminal: --color=auto colors" cmp "$T/gnu" "$T/ours"
	check "... and it did color" grep -q "$(printf '\033')\[01;34m" "$T/ours"
else
	ok "a terminal: skipped (no script(1))"
fi

# Colors: GNU's defaults (TERM known to GNU ls), and LS_COLORS type keys.
TERM=xterm
export TERM
like "--color=always" . --color=always
like "--color: always" . --color -F
like "--color -l" ./S -l --color
like "--color -C -w 70: spaces, no tabs" . --color -C -w 70
like "--color with setuid, sticky, other-writable" . --color -1 -a
LS_COLORS='di=01;35:ex=04;31:su=00:tw=01:*.sh=01;33'
export LS_COLORS
like "LS_COLORS type keys (ex, su=00, tw; ex wins over *.sh)" . --color=always -1
unset LS_COLORS
check_out "--color=auto, piped: none" "$(pvfs-ls -1 /pvfs/L)" pvfs-ls --color=auto -1 /pvfs/L
check_out "--color=never" "$(pvfs-ls -1 /pvfs/L)" pvfs-ls --color=never -1 /pvfs/L
check_fail "--color=bogus: usage" 2 "Try 'pvfs-ls --help'." pvfs-ls --color=bogus /pvfs/L

# What GNU ls cannot show: PVFS inode numbers and the distribution.
ino=$(pvfs-stat /pvfs/L/S/big | sed -n 's/^ *Inode: \([0-9]*\).*/\1/p')
check_out "-i: the inode pvfs-stat shows" "$ino /pvfs/L/S/big" pvfs-ls -i /pvfs/L/S/big
check_grep "-li: inode before the mode" "^$ino -rw-r--r-- 1 root root 3000 " pvfs-ls -li /pvfs/L/S/big
check "-1i: inode numbers right-aligned" sh -c \
	'[ "$(pvfs-ls -1i /pvfs/L | sed -E "s/^( *[0-9]+ ).*/\1/" | awk "{ print length }" | sort -u | wc -l)" = 1 ] &&
	 [ "$(pvfs-ls -1i /pvfs/L | sed "s/^ *[0-9]* //")" = "$(pvfs-ls -1 /pvfs/L)" ]'
check "-Ci: inode numbers in the columns" sh -c \
	"pvfs-ls -Ci -w 60 /pvfs/L | grep -qE '^ *[0-9]+ S[[:space:]]'"
pvfs-cp --pcount 2 --ssize 8k "$T/L/S/big" /pvfs/L/S/d2
check_grep "-l --dist: a header over the columns" '^ +base pcount +ssize$' pvfs-ls -l --dist /pvfs/L/S
check "-l --dist: the header is line 2, after total" sh -c \
	'pvfs-ls -l --dist /pvfs/L/S | sed -n 2p | grep -q "base pcount"'
check "-l --dist: header and values end in the same column" sh -c \
	'pvfs-ls -l --dist /pvfs/L/S >"$0/dist" &&
	 h=$(sed -n 2p "$0/dist" | awk "{ print length }") &&
	 v=$(grep " d2\$" "$0/dist" | sed "s/ d2\$//" | awk "{ print length }") &&
	 [ "$h" = "$v" ]' "$T"
check_grep "-l --dist: values" '^-rw-r--r-- .* +[0-3] +2 +8192 d2$' pvfs-ls -l --dist /pvfs/L/S
check "--dist without -l: no header" sh -c \
	'! pvfs-ls --dist /pvfs/L/S | grep -q pcount'
check_grep "--dist without -l: one per line even with -C" '^ +[0-3] +2 +8192 d2$' \
	pvfs-ls -C --dist /pvfs/L/S
check_grep "-ld --dist on a file operand: header too" '^ +base pcount +ssize$' \
	pvfs-ls -ld --dist /pvfs/L/S/d2
finish
