#!/bin/sh
# du.sh - pvfs-du beside GNU du on a local tree of the same shape: every
# option (-a -b -c -h -s --apparent-size), per-directory lines, the
# allocated size against the iods' blocks, and the errors.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster

# The tree: files of odd sizes, an empty file, an empty directory, nesting.
L=$T/local
mkdir -p "$L/d/e/f" "$L/d/empty" "$L/g"
mkrand "$L/d/a" 100000
mkrand "$L/d/e/b" 70001
mkrand "$L/d/e/f/c" 1
: >"$L/d/e/zero"
mkrand "$L/g/h" 300000
mkrand "$L/top" 5000
pvfs-cp -r "$L/d" "$L/g" "$L/top" /pvfs/ || echo "# pvfs-cp -r failed"

# GNU du counts directories' own sizes; PVFS directories hold no iod
# bytes, so take those out of the local figure.
local_apparent() {
	du -s -b "$1" | cut -f1
}
dirs_bytes() {
	find "$1" -type d -printf '%s\n' | awk '{s+=$1} END {print s+0}'
}
check_out "du -s --apparent-size -B1 = GNU du of the local copy" \
	"$(($(local_apparent "$L/d") - $(dirs_bytes "$L/d")))" sh -c 'pvfs-du -sb /pvfs/d | cut -f1'
check_out "du -sb: the whole tree" \
	"$(($(local_apparent "$L") - $(dirs_bytes "$L")))" sh -c 'pvfs-du -sb /pvfs | cut -f1'
check_out "du --apparent-size -s: 1K blocks rounded up" \
	"$(( ($(local_apparent "$L/d") - $(dirs_bytes "$L/d") + 1023) / 1024 ))" sh -c 'pvfs-du -s --apparent-size /pvfs/d | cut -f1'

# Per directory, in the order du walks (children first).
check "du: one line per directory" pvfs-du /pvfs/d
cut -f2 "$T/out" >"$T/dirs"
printf '%s\n' /pvfs/d/e/f /pvfs/d/e /pvfs/d/empty /pvfs/d | sort >"$T/want"
check_out "du: the directories, each once" "$(cat "$T/want")" sort "$T/dirs"
check_out "du: a directory after its children" "/pvfs/d" tail -n 1 "$T/dirs"
check_out "du: an empty directory is 0" "0" sh -c "pvfs-du /pvfs/d | awk -F'\t' '\$2 == \"/pvfs/d/empty\" {print \$1}'"
check_out "du -b: per directory, as GNU du -b minus directories" \
	"$(( $(du -sb "$L/d/e" | cut -f1) - $(dirs_bytes "$L/d/e") ))	/pvfs/d/e" \
	sh -c "pvfs-du -b /pvfs/d | grep '/pvfs/d/e\$'"

# Allocated: the iods' blocks, which pvfs-stat shows per file.
blocks=0
for f in /pvfs/d/a /pvfs/d/e/b /pvfs/d/e/f/c /pvfs/d/e/zero; do
	n=$(pvfs-stat "$f" | sed -n 's/.*Blocks: \([0-9]*\).*/\1/p')
	blocks=$((blocks + n))
done
check_out "du -s: allocated = the files' 512-byte blocks, in 1K" \
	"$(( (blocks * 512 + 1023) / 1024 ))" sh -c 'pvfs-du -s /pvfs/d | cut -f1'
check "du: allocated >= apparent for dense files" sh -c \
	'[ $(pvfs-du -s /pvfs/g | cut -f1) -ge $(pvfs-du -s --apparent-size /pvfs/g | cut -f1) ]'

check_out "du -a: files too" "5" sh -c "pvfs-du -a /pvfs/d | grep -c -e '/a\$' -e '/b\$' -e '/c\$' -e '/zero\$' -e '/d\$'"
check_out "du -a -b: a file's line" "100000	/pvfs/d/a" sh -c "pvfs-du -ab /pvfs/d | grep '/a\$'"
check_out "du FILE: the file" "5000	/pvfs/top" pvfs-du -b /pvfs/top
check_out "du -c: a grand total" "$((100000 + 70001 + 1 + 300000))	total" \
	sh -c 'pvfs-du -cb /pvfs/d /pvfs/g | tail -n 1'
check_out "du -sc: two summaries and a total" "3" sh -c 'pvfs-du -sc /pvfs/d /pvfs/g | wc -l'
check_grep "du -h" '^[0-9.]+K	/pvfs/g$' pvfs-du -h --apparent-size /pvfs/g
check_grep "du -sh" '^[0-9.]+[KM]	/pvfs$' pvfs-du -sh /pvfs
check_out "du --summarize --total --bytes" "$((100000 + 70001 + 1))	total" \
	sh -c 'pvfs-du --summarize --total --bytes /pvfs/d | tail -n 1'
check_out "du --all --human-readable" "98K	/pvfs/d/a" sh -c "pvfs-du --all --human-readable --apparent-size /pvfs/d | grep '/a\$'"
check_out "du URL" "5000	$URL/top" pvfs-du -b "$URL/top"

check_fail "du: no operand" 2 "pvfs-du: missing operand" pvfs-du
check_fail "du -as" 2 "pvfs-du: cannot both summarize and show all entries" pvfs-du -as /pvfs
check_fail "du: bad option" 2 "pvfs-du: invalid option -- 'x'" pvfs-du -x /pvfs
check_rc "du: a missing path" 1 pvfs-du /pvfs/nope
check_grep "du: names it" '^pvfs-du: /pvfs/nope: No such file or directory$' cat "$T/last.err"
check_rc "du: missing and present, exit 1" 1 pvfs-du -sb /pvfs/nope /pvfs/top
check_grep "du: still counts the rest" '^5000	/pvfs/top$' cat "$T/last.out"
check_fail "du: not a PVFS path" 1 "pvfs-du: /tmp: not a PVFS path (no pvfstab prefix or pvfs:// URL)" pvfs-du /tmp
check_grep "du --help" '^  -s, --summarize' pvfs-du --help
check_grep "du --version" '^pvfs-du \(PVFS\) ' pvfs-du --version

# A dead iod: its files' sizes cannot be known; du says so, exit 1.
"$B/pvfs-local" kill "$T/fs" iod2 KILL >/dev/null
check_rc "du: a dead iod, exit 1" 1 pvfs-du -s /pvfs/d
check_grep "du: names a file it could not size" '^pvfs-du: /pvfs/d/' cat "$T/last.err"
finish
