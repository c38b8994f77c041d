#!/bin/sh
# cp-msgs.sh - pvfs-cp's messages about its target in coreutils' words: each
# case runs GNU cp on a local tree of the same shape and pvfs-cp on PVFS,
# and the two must say the same (prog and root aside) with exit 1; then the
# layout messages: "only N iods", and an existing file's fixed layout.
. "${PVFS_SRCDIR:-.}/tests/tools/lib.sh"
start_cluster
LC_ALL=C
export LC_ALL

# The same shape on both sides: a file f, a directory dd holding a
# directory named one, and the sources one and tr/ (local).
R=$T/root
mkdir -p "$R/dd/one" "$T/tr"
printf one >"$T/one"
printf f >"$R/f"
printf x >"$T/tr/x"
pvfs-mkdir -p /pvfs/dd/one && pvfs-cp "$R/f" /pvfs/f || exit 1

# like_cp NAME ARGS: ARGS with @ for the root; GNU cp on $R, pvfs-cp on /pvfs.
like_cp() {
	n=$1
	shift
	gargs=$(echo "$*" | sed "s|@|$R|g")
	pargs=$(echo "$*" | sed "s|@|/pvfs|g")
	# shellcheck disable=SC2086
	cp $gargs 2>&1 >/dev/null | sed "s|$R|/pvfs|g; s|^cp:|pvfs-cp:|" >"$T/gnu"
	# shellcheck disable=SC2086
	pvfs-cp $pargs >/dev/null 2>"$T/ours"
	rc=$?
	if [ "$rc" -eq 1 ] && [ -s "$T/gnu" ] && cmp -s "$T/gnu" "$T/ours"; then
		ok "$n"
	else
		echo "#   exit $rc; GNU cp says: $(cat "$T/gnu")"
		sed 's/^/#   we say: /' "$T/ours"
		not_ok "$n"
	fi
}

like_cp "into a missing directory" "$T/one @/missing/x"
like_cp "to a missing directory with a slash" "$T/one @/missing/"
like_cp "to a missing subdirectory with a slash" "$T/one @/dd/nodir/"
like_cp "several sources, the target a file" "$T/one $T/one @/f"
like_cp "several sources, the target missing" "$T/one $T/one @/missing"
like_cp "a file with a slash" "$T/one @/f/"
like_cp "under a file" "$T/one @/f/x"
like_cp "a file over a directory" "$T/one @/dd"
like_cp "-r a directory over a file" "-r $T/tr @/f"
like_cp "-r into a missing directory" "-r $T/tr @/missing/x"
check_fail "pvfs-mv: several sources, the target a file" 1 \
	"pvfs-mv: target '/pvfs/f': Not a directory" pvfs-mv /pvfs/f /pvfs/dd /pvfs/f
check_quiet "the plain cases still work: into a directory with a slash" \
	pvfs-cp "$T/one" /pvfs/dd/one/
check_out "... arrived" "one" pvfs-cp /pvfs/dd/one/one -

# Layouts: what the file system cannot give is refused before copying.
check_fail "--pcount beyond the iods: only N iods" 1 \
	"pvfs-cp: --pcount 5: the file system has only 4 iods" pvfs-cp --pcount 5 "$T/one" /pvfs/p5
check_fail "--base beyond the iods" 1 \
	"pvfs-cp: --base 4: the file system has only 4 iods (base 0 to 3)" \
	pvfs-cp --base 4 "$T/one" /pvfs/b4
check_fail "... nothing was created" 1 "pvfs-ls: /pvfs/p5: No such file or directory" \
	pvfs-ls /pvfs/p5
check_quiet "--pcount 4 of 4 iods is fine" pvfs-cp --pcount 4 "$T/one" /pvfs/p4
check_fail "-r: the check comes first" 1 \
	"pvfs-cp: --pcount 9: the file system has only 4 iods" pvfs-cp -r --pcount 9 "$T/tr" /pvfs/tr9
check_quiet "--pcount on a local destination: no layout to check" \
	pvfs-cp --pcount 9 /pvfs/f "$T/f.back"

# An existing file keeps its layout: each option that differs is named.
check_quiet "a file with base 1 pcount 2 ssize 4096" \
	pvfs-cp --base 1 --pcount 2 --ssize 4k "$T/one" /pvfs/lay
check_fail "overwrite asking for another pcount and ssize" 1 \
	"pvfs-cp: /pvfs/lay: exists, so --pcount 3 --ssize 8192 is not applied: a file's layout is fixed when it is created (it keeps pcount 2, ssize 4096); -f recreates it" \
	pvfs-cp --pcount 3 --ssize 8k --base 1 "$T/one" /pvfs/lay
check_fail "overwrite asking for another base" 1 \
	"pvfs-cp: /pvfs/lay: exists, so --base 0 is not applied: a file's layout is fixed when it is created (it keeps base 1); -f recreates it" \
	pvfs-cp --base 0 "$T/one" /pvfs/lay
check_grep "the layout stayed" '^  Dist: base 1  pcount 2  ssize 4096$' pvfs-stat /pvfs/lay
check_quiet "asking for the layout it has: quiet" pvfs-cp --pcount 2 "$T/one" /pvfs/lay
check_quiet "-f: recreated with the layout asked for" pvfs-cp -f --pcount 3 "$T/one" /pvfs/lay
check_grep "-f: new layout" 'pcount 3 ' pvfs-stat /pvfs/lay
pvfs-mkdir /pvfs/trees && pvfs-cp -r "$T/tr" /pvfs/trees/ || exit 1
check_fail "-r over an existing tree: per file" 1 \
	"pvfs-cp: /pvfs/trees/tr/x: exists, so --pcount 1 is not applied: a file's layout is fixed when it is created (it keeps pcount 4); -f recreates it" \
	pvfs-cp -r --pcount 1 "$T/tr" /pvfs/trees
finish
